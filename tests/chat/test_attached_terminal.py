"""Strategy: an attached terminal is the same terminal as the owner's. `ever chat` runs in
pseudo-terminals through the real SDK against the local Messages API served by this test
process, which echoes each turn's message, so every reply expected is computed from the text the
test typed. One terminal owns the chat, a second attaches to it: what the second types comes back
with Up and lands in the history file; a line one byte past the message limit gets the one
sentence [S12] and the terminal stays attached (its next line is answered); the owner leaving
(/exit) prints no traceback, and the attached terminal goes on, owning the chat. A raw socket
says the same of a line the terminal's own check would have stopped: the owner answers it too.
"""

import json
import re
import socket

import pexpect
import pytest

from harness.localapi.server import echo
from harness.memory.accepted import MESSAGE_BYTES_MAX
from tests.support.chat import EVER, environment, is_compaction, logged
from tests.support.terminal import write_all

pytestmark = pytest.mark.slow  # real processes in pseudo-terminals

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\r")
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
UP = "\x1b[A"
TOO_LONG_SENTENCE = r"more than 10,000,000 bytes \(10,000,001 or more\)"


def echoed(text: str) -> str:
    return f"(local API, no model) You said: {text}"


@pytest.fixture
def local(api):
    api.reset()
    api.responder = lambda body: "a summary line" if is_compaction(body) else echo(body)
    yield api


class Terminal:
    """`ever chat` in a pseudo-terminal; `printed` is all it wrote, escapes taken out."""

    def __init__(self, home, api, opened: str):
        self.child = pexpect.spawn(EVER, ["chat"], env=environment(home, api), encoding="utf-8",
                                   timeout=60, dimensions=(40, 200))
        self.child.delaybeforesend = None
        self.printed = ""
        self.expect(opened)
        self.expect("›")  # the line editor listens

    def expect(self, pattern, timeout: float = 60) -> None:
        try:
            self.child.expect(pattern, timeout=timeout)
        finally:
            after = self.child.after if isinstance(self.child.after, str) else ""
            self.printed += ANSI.sub("", (self.child.before or "") + after)

    def turn(self, text: str) -> None:
        self.child.send(text + "\r")
        self.expect(re.escape(echoed(text)))
        self.expect("›")

    def close(self) -> None:
        self.child.close(force=True)


def leave(*terminals: Terminal) -> None:
    """Ctrl-D in each, in order: the attached terminal first, so the owner leaves none behind."""
    for terminal in terminals:
        terminal.child.sendcontrol("d")
        terminal.expect(pexpect.EOF)


def test_an_attached_terminals_line_comes_back_with_up_and_is_in_the_history_file(tmp_path, local):
    owner = Terminal(tmp_path, local, "/help")
    attached = Terminal(tmp_path, local, "attached to the running chat")
    try:
        attached.turn("a line typed in the attached terminal")
        attached.child.send(UP + "\r")  # the line editor recalls it, and Enter sends it again
        attached.turn("and one after it")
        leave(attached, owner)
    finally:
        attached.close()
        owner.close()
    line, after = "a line typed in the attached terminal", "and one after it"
    assert logged(tmp_path) == [("user", line), ("ever", echoed(line)), ("user", line), ("ever", echoed(line)),
                                ("user", after), ("ever", echoed(after))]
    history = (tmp_path / "history").read_text()
    assert f"+{line}\n" in history and f"+{after}\n" in history, history


def test_a_line_past_the_limit_typed_in_an_attached_terminal_is_one_sentence_and_it_stays_attached(
        tmp_path, local):
    too_long = "x" * MESSAGE_BYTES_MAX + "!"
    owner = Terminal(tmp_path, local, "/help")
    attached = Terminal(tmp_path, local, "attached to the running chat")
    try:
        writer = write_all(attached.child.child_fd, (PASTE_START + too_long + PASTE_END + "\r").encode())
        attached.expect(TOO_LONG_SENTENCE, timeout=120)
        writer.join(60)
        attached.turn("a short one after it")  # still attached: the owner answers it
        leave(attached, owner)
    finally:
        attached.close()
        owner.close()
    assert "the chat's owner went away" not in attached.printed
    assert "Traceback" not in attached.printed + owner.printed
    history = (tmp_path / "history").read_text()  # what was refused is kept nowhere, not even there
    assert "x" * 1000 not in history and "+a short one after it\n" in history, len(history)
    assert logged(tmp_path) == [("user", "a short one after it"), ("ever", echoed("a short one after it"))]


def test_a_say_past_the_limit_on_the_socket_is_one_sentence_and_the_connection_stays(tmp_path, local):
    owner = Terminal(tmp_path, local, "/help")
    try:
        with socket.socket(socket.AF_UNIX) as client:
            client.settimeout(60)
            client.connect(str(tmp_path / "chat" / "socket"))
            lines = client.makefile("rb")

            def next_event(kinds: tuple) -> dict:
                """The next event of one of `kinds` (the memory's rows may come between)."""
                while True:
                    raw = lines.readline()
                    assert raw.endswith(b"\n"), "the owner closed the terminal's connection"
                    event = json.loads(raw)
                    assert "event" in event, f"the owner answered a terminal's line as a failed request: {event}"
                    if event["event"] in kinds:
                        return event

            client.sendall(b'{"op": "attach", "yes": false}\n')
            assert next_event(("attached",))["messages"] == 0
            said = json.dumps({"op": "say", "text": "y" * (MESSAGE_BYTES_MAX + 1)}).encode() + b"\n"
            client.sendall(said)
            event = next_event(("notice",))
            assert "more than 10,000,000 bytes" in event.get("sentence", ""), event
            client.sendall(b'{"op": "slash", "text": "/help"}\n')  # the same connection answers on
            assert next_event(("reply",))["text"].startswith("/memory ")
        owner.child.sendcontrol("d")
        owner.expect(pexpect.EOF)
    finally:
        owner.close()
    assert logged(tmp_path) == []


def test_the_owner_leaving_with_a_terminal_attached_prints_no_traceback_and_the_other_goes_on(tmp_path, local):
    owner = Terminal(tmp_path, local, "/help")
    attached = Terminal(tmp_path, local, "attached to the running chat")
    try:
        owner.turn("first, from the owner")
        attached.expect(re.escape(echoed("first, from the owner")))  # every terminal sees every turn
        owner.child.send("/exit\r")
        owner.expect(pexpect.EOF)
        attached.expect(r"the chat's owner went away")
        attached.expect(r"Ever · 2 messages")  # it holds the chat now
        attached.expect("›")
        attached.turn("then, from the one left")
        attached.child.sendcontrol("d")
        attached.expect(pexpect.EOF)
    finally:
        attached.close()
        owner.close()
    for bad in ("Traceback", "CancelledError", "Task exception", "Unhandled exception"):
        assert bad not in owner.printed, owner.printed
        assert bad not in attached.printed, attached.printed
    assert logged(tmp_path) == [("user", "first, from the owner"), ("ever", echoed("first, from the owner")),
                                ("user", "then, from the one left"), ("ever", echoed("then, from the one left"))]
