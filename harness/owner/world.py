"""The owner's edges as one value: the clock, the randomness and the provider it calls.

`World.real()` is today's machine. A test or a simulation builds its own World and passes it to
`Owner.open` (harness/owner/owner.py): the owner then waits in its clock's time, draws its keys
from its randomness and calls the models through its provider, and the production code under test
is the same code. The disk is the store's (harness/memory/logfile.py, every log's one writer).
"""

import asyncio
import dataclasses
import os
import time
from collections.abc import Callable
from typing import Any


class Clock:
    """The machine's monotonic time, and waiting in it."""

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class Randomness:
    """The machine's randomness: a message's key when its sender gave none [S9]."""

    def token(self, nbytes: int) -> str:
        return os.urandom(nbytes).hex()


def real_clients(client_settings: Any, **changes: Any) -> Any:
    """A client of the model's API (harness/calls/client.py), with `changes` to its settings; the
    SDK is loaded only here, by an owner about to call."""
    from harness.calls.client import Client

    gate = changes.pop("gate", None)
    return Client(dataclasses.replace(client_settings, **changes), gate=gate)


@dataclasses.dataclass(frozen=True)
class World:
    clock: Clock = dataclasses.field(default_factory=Clock)
    random: Randomness = dataclasses.field(default_factory=Randomness)
    # builds a client for the owner's turns or its compactor from the settings and their changes
    provider: Callable[..., Any] = real_clients

    @classmethod
    def real(cls) -> "World":
        return cls()
