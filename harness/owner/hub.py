"""One chat, many terminals: the owner's output fanned out to every attached terminal [gist §10]
[R3].

The process that owns the chat (`ever serve`, or the first `ever chat`) shows every turn through
a `Hub`: its own terminal, if it has one, and each terminal attached over the chat's socket sees
the same stream, whoever sent the message (a terminal, `ever send`, a subagent's report, MCP). A
tool's question goes to all of them and the first answer counts; Ctrl-C in any of them stops the
running call for all. Closing an attached terminal stops nothing.

An attached terminal speaks JSON lines on the socket (harness/chat/owner.py): after
`{"op": "attach", "yes": false}` the owner sends events,

    {"event": "text"|"thinking", "delta": "..."}     a reply streaming
    {"event": "tool", "name": "...", "input": {...}}
    {"event": "result", "text": "...", "is_error": false}
    {"event": "notice", "sentence": "..."}            a line to show (another sender's message, ...)
    {"event": "row", "text": "..."}                   a `memory:` row
    {"event": "wait", "what": "..." | null, "seconds": 12.0}
    {"event": "end", "status": "mem 64K/128K · ..."}  a turn ended
    {"event": "question", "id": 3, "text": "Allow shell: ls? ..."}
    {"event": "answered", "id": 3}                    answered elsewhere: stop asking
    {"event": "reply", "text": "..."}                 the answer to this terminal's /command

and takes requests, one a line:

    {"op": "say", "text": "..."}                      a message, as typed
    {"op": "answer", "id": 3, "answer": "y"}
    {"op": "stop"}                                    Ctrl-C: the running call stops
    {"op": "slash", "text": "/memory"}

A terminal's messages carry its own approval (`yes` when it was started with `--yes`), never the
owner's: the weakest of the two wins [S9].
"""

import asyncio
import itertools
import json
from collections.abc import Callable
from typing import Any

from harness.calls.approval import Answer, Approval, approval_summary

ANSWERS = {"y": Answer.YES, "yes": Answer.YES, "a": Answer.ALWAYS, "always": Answer.ALWAYS}
QUESTION_TAIL = "? [y]es / [n]o / [a]lways for this tool: "
QUESTION_CHARS_MAX = 200  # a longer question is printed above in full, the prompt one line


class Client:
    """One attached terminal: its socket's writer, and whether its messages may run tools
    without asking."""

    def __init__(self, writer: asyncio.StreamWriter, yes: bool):
        self.writer = writer
        self.yes = yes

    def send(self, event: dict[str, Any]) -> None:
        try:
            self.writer.write(json.dumps(event, ensure_ascii=False).encode() + b"\n")
        except (ConnectionError, RuntimeError):
            pass  # gone: `attach` drops it when its reader ends


class Hub:
    """The owner's output: the local terminal (or nothing, for `ever serve`) and every attached
    terminal."""

    def __init__(self, local: Any = None, local_question: Callable[[str], "asyncio.Future[str]"] | None = None):
        self.local = local
        self.local_question = local_question  # the owner's own terminal asks too
        self.clients: list[Client] = []
        self.loop: asyncio.AbstractEventLoop | None = None
        self.questions: dict[int, asyncio.Future[str]] = {}
        self.numbers = itertools.count(1)
        self.secrets: tuple[str, ...] = ()
        self.slash: Callable[[str], str] | None = None  # a /command's answer, by the owner

    def _each(self, event: dict[str, Any], skip: Client | None = None) -> None:
        for client in list(self.clients):
            if client is not skip:
                client.send(event)

    # ---- the Output protocol (harness/calls/turn.py) ----

    def text(self, delta: str) -> None:
        if self.local is not None:
            self.local.text(delta)
        self._each({"event": "text", "delta": delta})

    def thinking(self, delta: str) -> None:
        if self.local is not None:
            self.local.thinking(delta)
        self._each({"event": "thinking", "delta": delta})

    def tool(self, name: str, tool_input: dict[str, Any]) -> None:
        if self.local is not None:
            self.local.tool(name, tool_input)
        self._each({"event": "tool", "name": name, "input": tool_input})

    def result(self, text: str, is_error: bool) -> None:
        if self.local is not None:
            self.local.result(text, is_error)
        self._each({"event": "result", "text": text[:2000], "is_error": is_error})

    def notice(self, sentence: str, skip: Client | None = None) -> None:
        if self.local is not None:
            self.local.notice(sentence)
        self._each({"event": "notice", "sentence": sentence}, skip)

    def end_line(self) -> None:
        end_line = getattr(self.local, "end_line", None)
        if end_line is not None:
            end_line()

    def end(self, status: str) -> None:
        """A turn ended: the attached terminals end their reply and show the status line."""
        self._each({"event": "end", "status": status})

    def row(self, text: str) -> None:
        self._each({"event": "row", "text": text})

    def wait(self, what: str | None, seconds: float | None) -> None:
        self._each({"event": "wait", "what": what, "seconds": seconds})

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
        futures = []
        number = next(self.numbers)
        if self.clients:
            mine = asyncio.get_running_loop().create_future()
            self.questions[number] = mine
            self._each({"event": "question", "id": number, "text": text})
            futures.append(mine)
        if self.local_question is not None:
            futures.append(self.local_question(text))
        if not futures:
            return "n"
        try:
            done, _ = await asyncio.wait(futures, return_when=asyncio.FIRST_COMPLETED)
            return next(iter(done)).result()
        finally:
            self.questions.pop(number, None)
            for future in futures:
                if not future.done():
                    future.set_result("n")  # the local prompt stops asking too
            self._each({"event": "answered", "id": number})

    def answer(self, number: int, reply: str) -> None:
        future = self.questions.get(number)
        if future is not None and not future.done():
            future.set_result(reply)

    async def attach(self, chat: Any, request: dict[str, Any], reader: asyncio.StreamReader,
                     writer: asyncio.StreamWriter) -> None:
        """Serve one attached terminal until it goes."""
        client = Client(writer, bool(request.get("yes")))
        self.clients.append(client)
        client.send({"event": "attached", "messages": chat.memory.planner.T, "status": chat.status_line()})
        try:
            while True:
                raw = await reader.readline()
                if not raw:
                    return
                try:
                    line = json.loads(raw)
                except ValueError:
                    continue
                if not isinstance(line, dict):
                    continue
                op = line.get("op")
                if op == "say" and isinstance(line.get("text"), str) and line["text"].strip():
                    say(chat, self, client, line["text"])
                elif op == "answer" and isinstance(line.get("id"), int) and isinstance(line.get("answer"), str):
                    self.answer(line["id"], line["answer"])
                elif op == "stop":
                    self.decline_all()
                    if chat.stop_call():
                        self.notice("(stopped)")
                elif op == "slash" and isinstance(line.get("text"), str):
                    answer = self.slash(line["text"]) if self.slash is not None else "no commands here"
                    client.send({"event": "reply", "text": answer})
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            self.clients.remove(client)

    def decline_all(self) -> None:
        for future in self.questions.values():
            if not future.done():
                future.set_result("n")


def say(chat: Any, hub: Hub, client: Client, text: str) -> None:
    """A message typed in an attached terminal: accepted, then it joins the running call or
    waits for its turn, under that terminal's approval."""
    from harness.memory.store import StoreError

    approval = Approval(chat.approval.allowed, yes=client.yes, ask=hub.ask)
    try:
        chat.submit(chat.entering(text, None, "terminal"), None, approval)
    except (OSError, StoreError) as error:
        from harness.chat.owner import failed_append

        client.send({"event": "notice", "sentence": failed_append(error)})
        return
    first_line = text.strip().split("\n", 1)[0]
    hub.notice(f"[another terminal] {first_line[:160]}", skip=client)
