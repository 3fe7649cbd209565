"""`ever chat` as the chat's owner: this process holds the chat, and its terminal is one of the
hub's, hearing the same events as an attached one (harness/owner/hub.py).
"""

import asyncio

from harness.chat.config import Settings
from harness.chat.terminal import DIM, RESET, Terminal, run_terminal
from harness.owner import hub as hubs
from harness.owner import protocol
from harness.owner.commands import answer as command_answer
from harness.owner.owner import Owner, counted


class LocalSink:
    """The terminal's lines, taken by the owner in this process."""

    def __init__(self, owner: Owner, client: hubs.LocalClient, terminal: Terminal):
        self.owner = owner
        self.client = client
        self.terminal = terminal

    def say(self, text: str) -> None:
        self.owner.typed(text, self.client)

    def answer(self, number: int, text: str) -> None:
        self.owner.hub.answer(number, text)

    def command(self, text: str) -> None:
        self.terminal.show(protocol.Reply(command_answer(self.owner, text)))

    def interrupt(self) -> None:
        sentence = self.owner.interrupt()
        if sentence:
            self.owner.hub.notice(sentence)


async def run_chat(settings: Settings, yes: bool = False, api_key: str | None = None) -> None:
    """`ever chat` holding the chat; ChatBusy when another process does. `api_key` stands in for
    the configured key (the demo's)."""
    terminal = Terminal()
    terminal.quiet = settings.memory_quiet
    hub = hubs.Hub()
    client = hubs.LocalClient(terminal.show, yes)
    hub.clients.append(client)
    from harness.browse.browsing import page_writer

    owner = await Owner.open(settings, hub, yes=yes, api_key=api_key, ask=True)
    owner.page_writer = page_writer  # [B5] `ever forget` makes the pages anew
    try:
        terminal.secrets = (owner.client.settings.api_key,)
        await owner.serve()
        status = owner.memory.status()
        lines = owner.memory.render().split("\n")[1:-1]
        terminal._write(f"Ever · {counted(status['messages'], 'message')} · view {status['view_bytes']:,} "
                        f"bytes, {counted(len(lines), 'line')} · /help\n")
        for warning in owner.memory.store.warnings:  # a killed owner's lock taken over, a torn line
            terminal._write(f"{warning}\n")
        for line in lines[-5:]:
            terminal._write(f"{DIM}{terminal.shown(line[:160])}{RESET}\n")
        await run_terminal(settings, LocalSink(owner, client, terminal), terminal, asyncio.Event())
    finally:
        hub.left(client)  # the other terminals hear the owner go; this one has left
        await owner.close()
