"""`ever chat` attached to the chat's running owner [gist §10] [R3].

When another process owns the chat (`ever serve`, another terminal's `ever chat`), `ever chat`
attaches to it over the chat's socket instead of refusing: it shows every turn's stream, whoever
sent the message, asks the tools' questions, and its Ctrl-C stops the running call for all. Ctrl-D
leaves; the owner goes on. If the owner goes away, `ever chat` says so and opens the chat itself
(`chat_until_left`). The terminal's loop is harness/chat/terminal.py's, the same as the owner's;
what travels is harness/owner/protocol.py's.
"""

import asyncio

from harness.chat.config import ConfigError, Settings, load_key
from harness.chat.terminal import Terminal, run_terminal
from harness.owner import protocol
from harness.owner.protocol import LINE_BYTES_MAX

LEFT, OWNER_GONE, NO_OWNER = "left", "owner gone", "no owner"
ATTACH_ANSWER_SECONDS = 10.0  # an owner that took the connection answers at once, or is going


class AttachedSink:
    """The terminal's lines, sent to the owner over the socket."""

    def __init__(self, writer: asyncio.StreamWriter):
        self.writer = writer
        self.pending: list[str] = []  # [S25] lines said, not yet taken by the owner, oldest first

    def send(self, request: protocol.TerminalRequest) -> None:
        try:
            self.writer.write(protocol.line_of(request))
        except (ConnectionError, RuntimeError):
            pass  # the owner went: the terminal hears it from its reader

    def say(self, text: str) -> None:
        self.pending.append(text)
        self.send(protocol.Say(text))

    def took(self) -> None:
        if self.pending:
            self.pending.pop(0)

    def not_sent(self) -> list[str]:
        """[S25] A sentence for each line the owner never took: it ended first."""
        return [f"(not sent: the chat's owner ended before it said it took \"{text.strip().splitlines()[0][:80]}\"; "
                "`ever log` shows whether it is there before you send it again)"
                for text in self.pending if text.strip()]

    def answer(self, number: int, text: str) -> None:
        self.send(protocol.Answer(number, text))

    def command(self, text: str) -> None:
        self.send(protocol.Slash(text))

    def interrupt(self) -> None:
        self.send(protocol.Stop())  # the running call stops, for every terminal


def known_secrets(settings: Settings) -> tuple[str, ...]:
    """The key as this process would find it, hidden in what this terminal keeps and shows [H3]."""
    try:
        return (load_key(settings.home).reveal(),)
    except ConfigError:
        return ()


async def run_attached(settings: Settings, yes: bool = False) -> str:
    """Attach to the owner; LEFT when the person leaves, OWNER_GONE when the owner ends, NO_OWNER
    when none answers the socket."""
    try:
        reader, writer = await asyncio.open_unix_connection(str(settings.chat_dir / "socket"),
                                                            limit=LINE_BYTES_MAX)
    except OSError:
        return NO_OWNER
    writer.write(protocol.line_of(protocol.Attach(yes)))
    try:
        await writer.drain()
        first = protocol.event_of(await asyncio.wait_for(reader.readline(), ATTACH_ANSWER_SECONDS))
    except (TimeoutError, ConnectionError):
        first = None
    if not isinstance(first, protocol.Attached):
        writer.close()
        return NO_OWNER

    terminal = Terminal()
    terminal.quiet = settings.memory_quiet
    terminal.secrets = known_secrets(settings)
    terminal._write(f"Ever · attached to the running chat ({first.messages:,} messages) · "
                    f"{terminal.shown(first.status)} · /help\n")
    gone = asyncio.Event()
    sink = AttachedSink(writer)

    async def listen() -> None:
        try:
            while raw := await reader.readline():
                event = protocol.event_of(raw)
                if isinstance(event, protocol.Took):
                    sink.took()
                elif event is not None:
                    terminal.show(event)
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        gone.set()

    listening = asyncio.create_task(listen())
    try:
        await run_terminal(settings, sink, terminal, gone)
    finally:
        listening.cancel()
        writer.close()
    if gone.is_set():
        for sentence in sink.not_sent():
            terminal._write(f"{sentence}\n")
        terminal._write("(the chat's owner went away)\n")
        return OWNER_GONE
    return LEFT


async def chat_until_left(settings: Settings, yes: bool = False, api_key: str | None = None) -> None:
    """`ever chat`: own the chat, or attach to its owner; if the owner goes, own it [R3]."""
    from harness.chat.local import run_chat
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
