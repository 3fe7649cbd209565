"""Strategy: the socket's protocol (harness/owner/protocol.py) and the screen every terminal shows
it on (harness/chat/terminal.py), without processes. Each event written as a line reads back as the
same value, and the lines the docstring documents (written out here by hand) read as the values
they name; a request that is not one gets its one sentence. On the screen, an aside (another
sender's message) waits for a streaming reply's end, as a `memory:` row does, while a plain
notice ends the reply's line at once.
"""

import io
import json

import pytest

from harness.chat.terminal import Terminal
from harness.owner import protocol

EVENTS = [protocol.Attached(12, "mem 1K/128K"), protocol.Text("a ré"), protocol.Thinking("hm"),
          protocol.Tool("shell", {"command": "ls"}), protocol.Result("out", True),
          protocol.Notice("[ever send] hi", True), protocol.Row("memory: message 0 summarized"),
          protocol.Wait("waiting", 12.0, "call"), protocol.Wait(None), protocol.End("mem 2K/128K"),
          protocol.Question(3, "Allow shell: ls?"), protocol.Answered(3), protocol.Reply("/help's answer")]


@pytest.mark.parametrize("event", EVENTS, ids=[type(e).__name__ for e in EVENTS])
def test_an_event_read_back_is_the_event_written(event):
    assert protocol.event_of(protocol.line_of(event)) == event


def test_the_documented_lines_read_as_their_values():
    assert protocol.event_of(b'{"event": "notice", "sentence": "x"}\n') == protocol.Notice("x", False)
    waited = protocol.event_of(b'{"event": "wait", "what": null, "seconds": 12.0}\n')
    assert waited == protocol.Wait(None, 12.0, "owner")
    assert protocol.event_of(b'{"event": "question", "id": "3", "text": "t"}\n') is None  # an id is a number
    assert protocol.event_of(b'{"event": "from a newer owner"}\n') is None
    sent = protocol.request_of(b'{"op": "send", "text": "hi", "yes": true, "key": "k1"}\n')
    assert sent == protocol.Send("hi", True, "k1")
    assert protocol.request_of(b'{"op": "messages", "ids": [4, 9]}\n') == protocol.Messages(ids=(4, 9))
    assert protocol.terminal_request_of(b'{"op": "answer", "id": 3, "answer": "y"}\n') == protocol.Answer(3, "y")
    assert protocol.terminal_request_of(b'{"op": "say", "text": "   "}\n') is None  # nothing to say
    assert json.loads(protocol.line_of(protocol.Messages(last=10))) == {"op": "messages", "last": 10}


def test_a_request_that_is_not_one_gets_one_sentence():
    assert protocol.request_of(b"not json\n").answer() == {"error": "no such request: None"}
    assert protocol.request_of(b'{"op": "zoom", "id": "0", "n": 1}\n').answer() == {
        "text": "zoom: id, n and page are whole numbers"}
    refused = protocol.request_of(b'{"op": "send", "text": 7}\n').answer()
    assert refused["logged"] is False and refused["reply"] == "" and "nothing was logged" in refused["error"]


def test_an_aside_waits_for_the_streaming_reply_and_a_notice_does_not():
    screen = io.StringIO()
    terminal = Terminal(stream=screen)
    terminal.show(protocol.Text("A reply that is half"))
    terminal.show(protocol.Notice("[ever send] a script's message", aside=True))
    terminal.show(protocol.Text(" written.\n"))
    terminal.show(protocol.End("mem 1K/128K"))
    assert screen.getvalue() == ("A reply that is half written.\n"
                                 "[ever send] a script's message\n"
                                 "\x1b[2mmem 1K/128K\x1b[0m\n")
    screen.truncate(0), screen.seek(0)
    terminal.show(protocol.Text("Another half"))
    terminal.show(protocol.Notice("(stopped)"))
    assert screen.getvalue() == "Another half\n(stopped)\n"
