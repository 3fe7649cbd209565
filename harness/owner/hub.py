"""One chat, many terminals: the owner's output fanned out to every attached terminal [gist §10]
[R3].

The process that owns the chat (`ever serve`, or the first `ever chat`) shows every turn through
a `Hub`: its own terminal, if it has one, and each terminal attached over the chat's socket sees
the same stream, whoever sent the message (a terminal, `ever send`, a subagent's report, MCP). A
tool's question goes to all of them and the first answer counts; Ctrl-C in any of them stops the
running call for all. Closing an attached terminal stops nothing. What travels is
harness/owner/protocol.py's events and an attached terminal's requests.

A terminal's messages carry its own approval (`yes` when it was started with `--yes`), never the
owner's: the weakest of the two wins [S9].
"""

import asyncio
import itertools
import time
from collections.abc import Callable
from typing import Any, Protocol

from harness.calls.approval import Answer, approval_summary
from harness.owner import protocol
from harness.owner.protocol import Event

ANSWERS = {"y": Answer.YES, "yes": Answer.YES, "a": Answer.ALWAYS, "always": Answer.ALWAYS,
           Answer.GONE.value: Answer.GONE}
QUESTION_TAIL = "? [y]es / [n]o / [a]lways for this tool: "
QUESTION_CHARS_MAX = 200  # a longer question is printed above in full, the prompt one line
RESULT_CHARS_MAX = 2000  # a tool's result, to an attached terminal: it shows the first line


async def read_line(reader: asyncio.StreamReader) -> bytes | None:
    """An attached terminal's next line, b"" at its end, or None for a line past the socket's
    limit: that one is read on to its newline and dropped, a part at a time, never held whole, so
    it is answered once [S12] and the line after it is the terminal's own, not its tail read as a
    request [S25]."""
    past = False
    while True:
        try:
            raw = await reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as end:
            return b"" if past else end.partial
        except asyncio.LimitOverrunError as overrun:
            await reader.readexactly(overrun.consumed)  # the part read so far, dropped
            past = True
            continue
        return None if past else raw


class Held(Protocol):
    """What the hub asks of the chat's owner (harness/owner/owner.py)."""

    memory: Any

    def status_line(self) -> str: ...
    def typed(self, text: str, client: Any) -> None: ...
    def interrupt(self) -> str: ...


class Client:
    """One attached terminal: its socket's writer, and whether its messages may run tools
    without asking."""

    def __init__(self, writer: asyncio.StreamWriter, yes: bool):
        self.writer = writer
        self.yes = yes
        self.approval: Any = None  # its own [A8], made by the owner at its first message

    def send(self, event: Event) -> None:
        try:
            self.writer.write(protocol.line_of(event))
        except (ConnectionError, RuntimeError):
            pass  # gone: `attach` drops it when its reader ends

    def close(self) -> None:
        self.writer.close()


class LocalClient:
    """The owner's own terminal: it hears the same events as an attached one, in this process."""

    def __init__(self, show: Callable[[Event], None], yes: bool = False):
        self.show = show
        self.yes = yes
        self.approval: Any = None  # its own [A8], made by the owner at its first message

    def send(self, event: Event) -> None:
        self.show(event)

    def close(self) -> None:
        pass


class Hub:
    """The owner's output, fanned out to every terminal: its own, if it has one, and each one
    attached over the socket. It is the turns' Output (harness/calls/turn.py)."""

    def __init__(self) -> None:
        self.clients: list[Client | LocalClient] = []
        self.loop: asyncio.AbstractEventLoop | None = None
        self.questions: dict[int, asyncio.Future[str]] = {}
        self.asking: dict[int, str] = {}  # [A9] each waiting question's text, for a terminal that attaches
        self.numbers = itertools.count(1)
        self.slash: Callable[[str], str] | None = None  # a /command's answer, by the owner

    def _each(self, event: Event, skip: Any = None) -> None:
        for client in list(self.clients):
            if client is not skip:
                client.send(event)

    # ---- the Output protocol (harness/calls/turn.py) ----

    def text(self, delta: str) -> None:
        self._each(protocol.Text(delta))

    def thinking(self, delta: str) -> None:
        self._each(protocol.Thinking(delta))

    def tool(self, name: str, tool_input: dict[str, Any]) -> None:
        self._each(protocol.Tool(name, tool_input))

    def result(self, text: str, is_error: bool) -> None:
        self._each(protocol.Result(text[:RESULT_CHARS_MAX], is_error))

    def notice(self, sentence: str, skip: Any = None, aside: bool = False) -> None:
        self._each(protocol.Notice(sentence, aside), skip)

    def end_line(self) -> None:
        pass  # each terminal ends its line at the turn's End

    def end(self, status: str) -> None:
        """A turn ended: every terminal ends its reply and shows the status line."""
        self._each(protocol.End(status))

    def row(self, text: str) -> None:
        """A `memory:` row, in every terminal."""
        self._each(protocol.Row(text))

    def waiting(self, source: str) -> Callable[[str | None, float | None], None]:
        """What the chat waits for (`source`: the call, the memory), with its deadline on the
        monotonic clock, told to every terminal as seconds left [C12]."""
        def on_wait(what: str | None, deadline: float | None) -> None:
            seconds = None if deadline is None else max(0.0, deadline - time.monotonic())
            self._each(protocol.Wait(what, seconds, source))
        return on_wait

    def close_all(self) -> None:
        """The owner goes: each attached terminal hears its socket close."""
        for client in list(self.clients):
            client.close()

    # ---- questions ----

    def ask(self, name: str, tool_input: dict[str, Any]) -> Answer:
        """A tool's question, from the tool's thread: asked in every terminal, the first answer
        counts. With no terminal at all (`ever serve` with none attached), the answer is no."""
        if self.loop is None:
            return Answer.NO
        reply = asyncio.run_coroutine_threadsafe(self._ask(name, tool_input), self.loop).result()
        return ANSWERS.get(reply.strip().lower(), Answer.NO)

    async def _ask(self, name: str, tool_input: dict[str, Any]) -> str:
        summary = approval_summary(name, tool_input)
        if "\n" in summary or len(summary) > QUESTION_CHARS_MAX:
            # [H4] a question taller than the terminal would show only its head and tail, and `y`
            # would run lines never shown: every line is printed above, numbered, and the question
            # names how many there are
            rows = summary.removeprefix(f"{name}: ").split("\n")
            numbered = "\n".join(f"{n:>5}  {row}" for n, row in enumerate(rows, 1))
            self.notice(f"The {name} call below asks to run these {len(rows)} lines:\n{numbered}")
            text = f"Allow {name}: the {len(rows)} lines above{QUESTION_TAIL}"
        else:
            text = f"Allow {summary}{QUESTION_TAIL}"
        if not self.clients:
            return "n"
        number = next(self.numbers)
        answer = asyncio.get_running_loop().create_future()
        self.questions[number] = answer
        self.asking[number] = text
        self._each(protocol.Question(number, text))
        try:
            return await answer
        finally:
            self.questions.pop(number, None)
            self.asking.pop(number, None)
            self._each(protocol.Answered(number))  # every terminal stops asking

    def answer(self, number: int, reply: str) -> None:
        future = self.questions.get(number)
        if future is not None and not future.done():
            future.set_result(reply)

    async def attach(self, owner: Held, request: protocol.Attach, reader: asyncio.StreamReader,
                     writer: asyncio.StreamWriter) -> None:
        """Serve one attached terminal until it goes, or the owner does."""
        client = Client(writer, request.yes)
        self.clients.append(client)
        client.send(protocol.Attached(owner.memory.planner.T, owner.status_line()))
        for number, text in list(self.asking.items()):  # [A9] a question waiting is asked here too
            client.send(protocol.Question(number, text))
        try:
            while True:
                raw = await read_line(reader)
                if raw is None:  # a line past the socket's limit: one sentence, and on [S12]
                    from harness.memory.accepted import too_long_sentence

                    client.send(protocol.Notice(f"{too_long_sentence(protocol.LINE_BYTES_MAX)}."))
                    client.send(protocol.Took(ok=False))  # [S25] the line is answered, once, as refused
                    continue
                if not raw:
                    return
                line = protocol.terminal_request_of(raw)
                if isinstance(line, protocol.Say):
                    owner.typed(line.text, client)
                elif isinstance(line, protocol.Answer):
                    self.answer(line.id, line.answer)
                elif isinstance(line, protocol.Stop):
                    sentence = owner.interrupt()
                    if sentence:
                        self.notice(sentence)
                elif isinstance(line, protocol.Slash):
                    answer = self.slash(line.text) if self.slash is not None else "no commands here"
                    client.send(protocol.Reply(answer))
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            self.left(client)

    def left(self, client: Any) -> None:
        """A terminal went: [A9] a question it was asked is still asked in the others; with none
        left, it is declined at once, and the declined result says why (it is logged)."""
        if client in self.clients:
            self.clients.remove(client)
        if not self.clients:
            self.decline_all(Answer.GONE.value)

    def waiting_question(self) -> str:
        """The question waiting for an answer, for the status line; "" if none."""
        return next(iter(self.asking.values()), "")

    def decline_all(self, reply: str = "n") -> None:
        for future in self.questions.values():
            if not future.done():
                future.set_result(reply)

