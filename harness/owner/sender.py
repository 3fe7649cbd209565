"""A process that asks the chat: `ever send`, `ever memory …`, `ever log`, `ever mcp`.

It asks the chat's owner over the socket (harness/owner/socket.py), or, when none runs, holds the
chat itself for as long as the request takes (harness/owner/owner.py). The owner is asked first:
handing a message to a running owner loads the standard library, the protocol and this module,
never the SDK, the line editor or the planner.
"""

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

from harness.memory.daylog import StoreError
from harness.owner import protocol, socket

# how long a newcomer waits for the chat's owner to answer its socket; EVER_OWNER_WAIT_SECONDS
# sets it (a machine so loaded that an owner takes longer to start listening, or a test's hang guard)
OWNER_WAIT_SECONDS = 30.0
OWNER_WAIT_SAID_SECONDS = 1.0  # a wait longer than this is said on stderr


def owner_wait_seconds() -> float:
    try:
        seconds = float(os.environ.get("EVER_OWNER_WAIT_SECONDS", OWNER_WAIT_SECONDS))
    except ValueError:
        return OWNER_WAIT_SECONDS
    return seconds if seconds > 0 else OWNER_WAIT_SECONDS


def new_key() -> str:
    """A message's key when its sender gave none [S9]."""
    return "send=" + os.urandom(8).hex()


class OwnerSilent(StoreError):
    """Another process owns the chat and did not answer its socket in OWNER_WAIT_SECONDS: one
    sentence, as a StoreError's (the CLI ends on it with exit 1)."""


async def asked(settings, request: protocol.Request) -> dict[str, Any]:
    """The owner's answer, the damage it found said here as it found it [S13]."""
    answer = await socket.ask(settings.chat_dir / "socket", request)
    damage = answer.pop("damage", None) if isinstance(answer, dict) else None
    if damage:
        from harness.memory.store import DAMAGE_LISTENERS

        for sentence in damage:
            for listener in DAMAGE_LISTENERS:
                listener(sentence)
    return answer


async def with_owner(settings, here: Callable[[], Awaitable[dict[str, Any]]], request: protocol.Request,
                     say=None) -> dict[str, Any]:
    """`request` answered by the process that owns the chat, or `here()` with the chat owned by
    this process when none does. An owner answers its socket for as long as it holds the chat,
    but it takes the chat a moment before it listens and lets it go a moment after: meanwhile a
    newcomer tries again, for OWNER_WAIT_SECONDS at most, and says that it waits once it has
    waited a second."""
    from harness.memory.store import ChatBusy

    wait_seconds = owner_wait_seconds()
    started = time.monotonic()
    said = False
    path = settings.chat_dir / "socket"
    busy: BaseException | None = None
    while True:
        if path.exists() or busy is not None:
            try:
                return await asked(settings, request)
            except (socket.Unanswered, socket.Dropped) as silent:
                # Dropped: the owner took the message (it is on disk) and went, or died; the
                # next owner (maybe this process) answers it, and the key makes the request
                # safe to repeat. An owner that took it was alive: the wait starts again.
                if isinstance(silent, socket.Dropped):
                    started = time.monotonic()
                if busy is not None:
                    waited = time.monotonic() - started
                    if waited > wait_seconds:
                        raise OwnerSilent(f"{busy} It did not answer on {path} for {wait_seconds:.0f} s "
                                          f"({silent}); nothing was sent: try again.") from None
                    if say is not None and not said and waited > OWNER_WAIT_SAID_SECONDS:
                        say(f"{busy} Waiting for it to answer (at most {wait_seconds:.0f} s).")
                        said = True
                    await asyncio.sleep(0.05)
        try:
            return await here()
        except ChatBusy as error:
            busy = error


async def send_once(settings, text: str, yes: bool = False, key: str | None = None,
                    say=None) -> dict[str, Any]:
    """`ever send`: handed to the chat's owner, or one turn here [gist §1]. The answer's `logged`
    says whether the message is kept (in the log or the inbox) when there is an error."""
    key = key or new_key()  # a retry inside, or by the script with --key, is never logged twice

    async def here() -> dict[str, Any]:
        from harness.owner.owner import Owner, send_here

        # one turn, then the process ends: a report is logged, never a turn of its own [A6]. A
        # setting to fix first (no key, a thinking the memory model lacks) is a ConfigError
        # here, before anything of the message is kept: `ever send` exits 1 (docs/reliability.md)
        owner = await Owner.open(settings, yes=yes, report_turns=False)
        return await send_here(owner, text, key)

    return await with_owner(settings, here, protocol.Send(text, yes, key), say)


async def local_answer(settings, request: "protocol.Request | dict[str, Any]", say=None) -> dict[str, Any]:
    """`ever memory …`: answered by the chat's owner, or, when none runs, by opening the chat
    here read-only (no key needed)."""
    if isinstance(request, dict):
        request = protocol.request_from(request)
    if isinstance(request, protocol.Refused):
        return request.answer()

    async def here() -> dict[str, Any]:
        from harness.memory.service import Memory

        memory = Memory.open(settings.home, read_only=True)
        try:
            return socket.answer_memory(memory, request)
        finally:
            memory.close()

    return await with_owner(settings, here, request, say)
