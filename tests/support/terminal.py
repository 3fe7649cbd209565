"""`ever chat` in a pseudo-terminal, for the tests that type into it as a person does.

- `spawn_chat(home, api)`: the chat started, its prompt shown; the test reads the raw stream.
- `Chat(home, api)`: the same, through a terminal emulator (pyte), so a test reads the screen as
  shown after the line editor's redraws; `turn`, `answer`, `leave`.
- `STATUS`: the status line printed once a turn is over.
- `StallingAPI`: the local API with one more fault, a reply that streams, then goes quiet.
"""

import os
import re
import signal
import threading
from pathlib import Path

import pexpect
import pyte

from harness.localapi.server import LocalAPI
from tests.support.chat import EVER, environment, is_compaction

STATUS = r"mem \d+K/128K · cache [^\r\n]*\r?\n"  # printed once a turn is over


class StallingAPI(LocalAPI):
    """The local API, with one more fault: `stall(n)` makes the next turn's reply stop after its
    first n SSE chunks, the connection open, until `release` is set (a model that streams, then
    goes quiet)."""

    def __init__(self, **options):
        super().__init__(**options)
        self.release = threading.Event()
        self._stall_after = None

    def stall(self, chunks: int) -> None:
        self.release.clear()
        self._stall_after = chunks

    def _answer(self, handler, body, *rest):
        if self._stall_after is None or is_compaction(body):
            return super()._answer(handler, body, *rest)
        chunks, self._stall_after = self._stall_after, None
        sent = [0]
        send_chunk = handler.send_chunk

        def stalling_send_chunk(data: bytes) -> None:
            if sent[0] == chunks:
                self.release.wait(60)
            sent[0] += 1
            send_chunk(data)

        handler.send_chunk = stalling_send_chunk
        try:
            return super()._answer(handler, body, *rest)
        finally:
            del handler.send_chunk  # the handler serves the connection's next request too


class Chat:
    """`ever chat` in a pseudo-terminal, and the screen a person reads there: every byte the chat
    writes goes through a terminal emulator (pyte), so what the tests read is what is shown after
    the line editor's redraws."""

    columns, rows = 160, 40

    def __init__(self, home: Path, api: LocalAPI, **env: str):
        environ = environment(home, api)
        environ.pop("VISUAL", None)
        environ["PYTHONFAULTHANDLER"] = "1"  # a chat that does not leave shows its threads
        environ.update(env)
        self.child = pexpect.spawn(EVER, ["chat"], env=environ, encoding="utf-8", timeout=60,
                                   dimensions=(self.rows, self.columns))
        self.child.delaybeforesend = None  # the chat never hides what is typed
        self.screen = pyte.Screen(self.columns, self.rows)
        self.stream = pyte.Stream(self.screen)
        self.printed: list[str] = []  # all the chat wrote, rows scrolled off the screen included
        self.expect("/help")
        self.expect("›")
        self.opening = self.shown()

    def expect(self, pattern, timeout: float = 60) -> None:
        self.child.expect(pattern, timeout=timeout)
        after = self.child.after if isinstance(self.child.after, str) else ""
        self.printed.append(self.child.before + after)
        self.stream.feed(self.child.before + after)

    def shown(self) -> list:
        return [row.rstrip() for row in self.screen.display if row.strip()]

    def send(self, keys: str) -> None:
        self.child.send(keys)

    def turn(self, keys: str, answer: str, timeout: float = 60) -> None:
        """Send keys that end a message; wait for the reply and the status line after it."""
        self.send(keys)
        self.expect(re.escape(answer), timeout=timeout)
        self.expect(STATUS, timeout=timeout)

    def answer(self, typed: str, last: str) -> list:
        """Type a line; the rows the chat shows in answer, down to the one holding `last`."""
        self.send(typed + "\r")
        self.expect(re.escape(typed) + r"[^\n]*\n")  # the line as accepted, then the answer
        self.expect(re.escape(last) + r"[^\n]*\n")
        rows = self.shown()
        begin = max(k for k, row in enumerate(rows) if row == f"› {typed}")
        return [row for row in rows[begin + 1:] if row != "›"]

    def leave(self) -> None:
        self.send("\x04")  # Ctrl-D
        try:
            self.expect(pexpect.EOF)
        except pexpect.TIMEOUT:
            self.child.kill(signal.SIGABRT)  # the fault handler prints every thread's stack
            self.child.expect(pexpect.EOF, timeout=10)
            raise AssertionError("the chat did not leave on Ctrl-D; its threads:\n"
                                 + self.child.before[-20000:]) from None
        self.child.close()
        assert self.child.exitstatus == 0

    def close(self) -> None:
        self.child.close(force=True)



def spawn_chat(home: Path, api: LocalAPI, env: dict | None = None) -> pexpect.spawn:
    """`ever chat` in a terminal; `env` instead of `environment(home, api)` (another provider's)."""
    child = pexpect.spawn(EVER, ["chat"], env=env or environment(home, api), encoding="utf-8",
                          timeout=60, dimensions=(40, 160))
    child.expect("/help")
    child.expect("›")
    return child


def write_all(fd: int, data: bytes) -> threading.Thread:
    """Write `data` to the terminal from a thread, so the test reads what the chat prints
    meanwhile (a terminal's buffers hold a few kilobytes each way)."""
    def write() -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view[:65536]):]

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return writer
