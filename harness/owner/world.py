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
import random as random_module
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from harness.memory.disk import Disk, RealDisk
from harness.memory.planner import Config as PlannerConfig


class Clock:
    """The machine's monotonic time, waiting in it, and the local date a line is logged with."""

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    def now(self) -> datetime:
        return datetime.now().astimezone()


class Randomness:
    """The machine's randomness: a message's key when its sender gave none [S9], and the
    jitter of a client's backoff."""

    def token(self, nbytes: int) -> str:
        return os.urandom(nbytes).hex()

    def fraction(self) -> float:
        return random_module.random()

def real_clients(client_settings: Any, clock: Clock | None = None, random: Randomness | None = None,
                 **changes: Any) -> Any:
    """A client of the model's API (harness/calls/client.py), with `changes` to its settings; its
    backoffs wait on `clock` and draw their jitter from `random` (the World's). The SDK is loaded
    only here, by an owner about to call. The settings' `route` picks the API
    (harness/calls/providers.py): an OpenAI one is harness/calls/openai_client.py's provider."""
    from harness.calls.providers import provider_key, route

    chosen = (client_settings.route or route("")).provider
    clock, random = clock or Clock(), random or Randomness()
    if chosen.openai:
        from harness.calls.openai_client import openai_provider

        return openai_provider(client_settings, chosen, sleep=clock.sleep, random=random.fraction,
                               monotonic=clock.monotonic, **changes)
    from harness.calls.client import Client

    gate = changes.pop("gate", None)
    if chosen.name != "anthropic":  # a named Messages API: its URL, its key, its `NAME/` dropped
        changes.update(base_url=chosen.base_url or client_settings.base_url, model_prefix=chosen.name + "/")
        if chosen.key_env:
            changes["api_key"] = provider_key(chosen)
    return Client(dataclasses.replace(client_settings, **changes), gate=gate, sleep=clock.sleep,
                  random=random.fraction, monotonic=clock.monotonic)


@dataclasses.dataclass(frozen=True)
class World:
    clock: Clock = dataclasses.field(default_factory=Clock)
    random: Randomness = dataclasses.field(default_factory=Randomness)
    # builds a client for the owner's turns or its compactor from the settings and their changes
    provider: Callable[..., Any] = real_clients
    # every file of the chat, read and written through it
    disk: Disk = dataclasses.field(default_factory=RealDisk)
    # the sizes the planner works at: the gist's; a simulation's may be smaller, so that a few
    # minutes of chat pass the view's ceilings and it merges
    planner: PlannerConfig = PlannerConfig()
    # the folder a turn's work tools work in and its state line names: the process's own; a
    # simulation's is one fixed name, so that a seed's bytes do not depend on where its code runs
    workdir: str = dataclasses.field(default_factory=os.getcwd)

    @classmethod
    def real(cls) -> "World":
        return cls()
