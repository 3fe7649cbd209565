"""`ever chat` attached to the chat's running owner [gist §10] [R3].

When another process owns the chat (`ever serve`, another terminal's `ever chat`, an `ever send`
mid-turn), `ever chat` attaches to it over the chat's socket instead of refusing: it shows every
turn's stream, whoever sent the message, asks the tools' questions, and its Ctrl-C stops the
running call for all. Ctrl-D leaves; the owner goes on. If the owner goes away, `ever chat`
says so and opens the chat itself (harness/chat/terminal.py `chat_until_left`).

The protocol is harness/chat/hub.py's.
"""

import asyncio
import json
import time

from harness.chat.config import Settings
from harness.chat.owner import LINE_BYTES_MAX

DIM, RESET = "\x1b[2m", "\x1b[0m"
LEFT, OWNER_GONE, NO_OWNER = "left", "owner gone", "no owner"


async def run_attached(settings: Settings, yes: bool = False) -> str:
    """Attach to the owner; LEFT when the person leaves, OWNER_GONE when the owner ends, NO_OWNER
    when none answers the socket."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.patch_stdout import patch_stdout

    from harness.chat.terminal import (
        ANSWER_WORDS,
        HELP,
        BareLeave,
        Terminal,
        _history,
        _line_breaks,
        _terminal_input,
        typed,
        waiting_prompt,
    )

    try:
        reader, writer = await asyncio.open_unix_connection(str(settings.chat_dir / "socket"),
                                                            limit=LINE_BYTES_MAX)
    except OSError:
        return NO_OWNER
    writer.write(json.dumps({"op": "attach", "yes": yes}).encode() + b"\n")
    await writer.drain()
    try:
        first = json.loads(await asyncio.wait_for(reader.readline(), 10))
    except (TimeoutError, ValueError, ConnectionError):
        first = None
    if not isinstance(first, dict) or first.get("event") != "attached":
        writer.close()
        return NO_OWNER

    terminal = Terminal()
    terminal.quiet = settings.memory_quiet
    session: PromptSession = PromptSession(history=_history(settings), input=_terminal_input(),
                                           key_bindings=_line_breaks())
    questions: list[tuple[int, str]] = []
    waits: dict[str, tuple[str, float]] = {}
    terminal._write(f"Ever · attached to the running chat ({first['messages']:,} messages) · "
                    f"{first['status']} · /help\n")

    def prompt_text() -> str:
        if questions:
            return questions[0][1]
        return waiting_prompt(terminal, waits)

    def request(line: dict) -> None:
        writer.write(json.dumps(line).encode() + b"\n")

    def show(event: dict) -> None:
        kind = event.get("event")
        if kind == "text":
            terminal.text(event["delta"])
        elif kind == "thinking":
            terminal.thinking(event["delta"])
        elif kind == "tool":
            terminal.tool(event["name"], event.get("input") or {})
        elif kind == "result":
            terminal.result(event["text"], bool(event.get("is_error")))
        elif kind == "notice":
            terminal.notice(event["sentence"])
        elif kind == "row":
            terminal.row(f"{DIM}{terminal.shown(event['text'])}{RESET}\n")
        elif kind == "end":
            terminal.end_reply()
            terminal._write(f"{DIM}{terminal.shown(event['status'])}{RESET}\n")
        elif kind == "wait":
            if event.get("what"):
                waits["owner"] = (event["what"], time.monotonic() + float(event.get("seconds") or 0))
            else:
                waits.pop("owner", None)
        elif kind == "question":
            questions.append((event["id"], terminal.shown(event["text"])))
        elif kind == "answered":
            questions[:] = [q for q in questions if q[0] != event["id"]]
        elif kind == "reply":
            terminal._write(terminal.shown(event["text"]) + "\n")
        session.app.invalidate()

    gone = asyncio.Event()

    async def listen() -> None:
        try:
            while True:
                raw = await reader.readline()
                if not raw:
                    break
                try:
                    event = json.loads(raw)
                except ValueError:
                    continue
                if isinstance(event, dict):
                    show(event)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        gone.set()
        if session.app.is_running:
            session.app.exit(exception=EOFError())

    listening = asyncio.create_task(listen())
    bare = BareLeave()
    try:
        with patch_stdout(raw=True):
            while True:
                try:
                    text = await session.prompt_async(prompt_text)
                except KeyboardInterrupt:
                    request({"op": "stop"})  # the running call stops, for every terminal
                    continue
                except EOFError:
                    break
                if gone.is_set():
                    break
                if questions and text.strip().lower() in ANSWER_WORDS:
                    number, _ = questions.pop(0)
                    request({"op": "answer", "id": number, "answer": text.strip()})
                    continue
                what, text = typed(text, terminal, bare)
                if what == "leave":
                    break
                if what == "slash" and text == "/help":
                    terminal._write(HELP + "\n")
                elif what == "slash":
                    request({"op": "slash", "text": text})
                elif what == "say":
                    request({"op": "say", "text": text.rstrip("\n")})
    finally:
        listening.cancel()
        writer.close()
        terminal.end_line()
    if gone.is_set():
        terminal._write("(the chat's owner went away)\n")
        return OWNER_GONE
    return LEFT


async def chat_until_left(settings: Settings, yes: bool = False, api_key: str | None = None) -> None:
    """`ever chat`: own the chat, or attach to its owner; if the owner goes, own it [R3]."""
    from harness.chat.terminal import run_chat
    from harness.memory.store import ChatBusy

    said = False
    while True:
        try:
            await run_chat(settings, yes, api_key)
            return
        except ChatBusy as busy:
            outcome = await run_attached(settings, yes)
            if outcome == LEFT:
                return
            if outcome == NO_OWNER:  # the owner is between taking the chat and listening, or going
                if not said:
                    print(f"{busy} Waiting for it to answer…", flush=True)
                    said = True
                await asyncio.sleep(0.2)
