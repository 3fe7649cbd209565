"""The owner's edges as one value: the clock, the disk, the randomness and the provider it calls.

`World.real()` is today's machine. A test or a simulation builds its own World and passes it to
`Owner.open` (harness/owner/owner.py): the owner then waits in its clock's time, keeps the chat's
files on its disk (harness/memory/disk.py, under every log's one writer, harness/memory/logfile.py),
draws its keys from its randomness and calls the models through its provider, and the production
code under test is the same code.
"""

import asyncio
import dataclasses
import os
import time
from collections.abc import Callable
from typing import Any

from harness.memory.disk import Disk, RealDisk


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
    SDK is loaded only here, by an owner about to call. `model` and `providers` pick the API
    (harness/calls/providers.py): an OpenAI one is harness/calls/openai_client.py's provider."""
    from harness.calls.providers import provider_key, route

    chosen = route(changes.pop("model", None) or "", changes.pop("providers", None)).provider
    if chosen.openai:
        from harness.calls.openai_client import openai_provider

        return openai_provider(client_settings, chosen, **changes)
    from harness.calls.client import Client

    gate = changes.pop("gate", None)
    if chosen.name != "anthropic":  # a named Messages API: its URL, its key, its `NAME/` dropped
        changes.update(base_url=chosen.base_url or client_settings.base_url, model_prefix=chosen.name + "/")
        if chosen.key_env:
            changes["api_key"] = provider_key(chosen)
    return Client(dataclasses.replace(client_settings, **changes), gate=gate)


@dataclasses.dataclass(frozen=True)
class World:
    clock: Clock = dataclasses.field(default_factory=Clock)
    random: Randomness = dataclasses.field(default_factory=Randomness)
    # builds a client for the owner's turns or its compactor from the settings and their changes
    provider: Callable[..., Any] = real_clients
    # every file of the chat, read and written through it
    disk: Disk = dataclasses.field(default_factory=RealDisk)

    @classmethod
    def real(cls) -> "World":
        return cls()
