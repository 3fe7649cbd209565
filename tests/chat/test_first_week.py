"""What a person trips on in a first week, each through the command as they run it: a chat fed
from a pipe, a wait's countdown, a long paste the server refuses.

- `echo hi | ever chat`: the replies, in order, with no escape sequence and no line editor's
  drawing (stdout a pipe); the log holds each line as a message and its reply.
- The wait line says its seconds are left, not gone (the clock held still: no time asserted).
- A 900 KB paste through `ever send -`, refused by the server with the real API's words for a
  prompt past the window (`prompt is too long: N tokens > M maximum`, a 400
  invalid_request_error): the sentence blames the message's length, not the model's settings.
"""

import pytest

from harness.chat import terminal as terminals
from harness.localapi.server import echo, status_error
from tests.support.chat import environment, ever, is_compaction, lines


@pytest.mark.slow
def test_a_chat_fed_from_a_pipe_answers_each_line_in_order_with_no_escape_code(tmp_path, api):
    api.reset()
    api.responder = lambda body: "a summary line" if is_compaction(body) else echo(body)
    done = ever(["chat"], environment(tmp_path, api), stdin="hi\nand a second line\n")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout + done.stderr
    assert "Input is not a terminal" not in done.stderr
    said = done.stdout.splitlines()
    first, second = (said.index(f"(local API, no model) You said: {text}") for text in ("hi", "and a second line"))
    assert first < second and said[first + 1].startswith("mem ") and said[second + 1].startswith("mem ")
    assert [(r["kind"], r["text"]) for r in lines(tmp_path)] == [
        ("user", "hi"), ("ever", "(local API, no model) You said: hi"),
        ("user", "and a second line"), ("ever", "(local API, no model) You said: and a second line")]


class Screen:
    def shown(self, text: str) -> str:
        return text


def test_the_wait_line_says_its_seconds_are_left(monkeypatch):
    monkeypatch.setattr(terminals.time, "monotonic", lambda: 1_000.0)
    waits = {"memory": ("waiting for the memory to summarize 2 lines", 1_037.2)}
    assert terminals.waiting_prompt(Screen(), waits) == (
        "(waiting for the memory to summarize 2 lines · 37 s left · Ctrl-C stops)\n› ")


@pytest.mark.slow
def test_a_long_paste_the_server_refuses_is_blamed_on_its_length(tmp_path, api):
    api.reset()
    api.responder = lambda body: "a summary line" if is_compaction(body) else None
    api.enqueue(status_error(400, "invalid_request_error", "prompt is too long: 230412 tokens > 200000 maximum"),
                when=lambda body: not is_compaction(body))
    paste = ("a line of a long log pasted whole, " * 26 + "\n") * 1_000  # 937,000 bytes
    done = ever(["send", "-"], environment(tmp_path, api), stdin=paste)
    assert done.returncode == 3  # kept, not answered [S9]
    said = done.stderr.strip()
    assert said.count("\n") == 0 and "prompt is too long: 230412 tokens > 200000 maximum" in said
    assert "the request is too long for claude-sonnet-4-6: a message this long does not fit one turn" in said
    assert "its settings" not in said
