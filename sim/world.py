"""The simulated World (harness/owner/world.py's edges) that an owner is opened with.

- the clock is the virtual loop's time (sim/loop.py), and the date a line is logged with is a
  fixed start plus that time, in a fixed zone: a replay logs the same bytes;
- the randomness is the run's (a message's key, a backoff's jitter);
- the provider builds the real `Client` (harness/calls/client.py, the real SDK) sending through
  the simulated API (sim/provider.py) instead of a socket;
- the disk is one process's view of the simulated disk (sim/disk.py);
- the working directory is one fixed name, not the process's: the request's state line and a
  read outside it name it, so a seed logs the same bytes from any folder of the code.
"""

import asyncio
import random
from datetime import datetime, timedelta, timezone

from harness.owner.world import World
from sim.provider import SimAPI, SimTransport

START = datetime(2026, 10, 8, 9, 30, tzinfo=timezone(timedelta(hours=2)))
WORKDIR = "/home/user"  # the work tools read the real file system: no file of the simulation's is under it


def virtual_seconds() -> float:
    return asyncio.get_running_loop().time()


class SimClock:
    def monotonic(self) -> float:
        return virtual_seconds()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    def now(self) -> datetime:
        return START + timedelta(seconds=int(virtual_seconds()))


class SimRandomness:
    def __init__(self, rng: random.Random):
        self.rng = rng

    def token(self, nbytes: int) -> str:
        return self.rng.randbytes(nbytes).hex()

    def fraction(self) -> float:
        return self.rng.random()


def sim_world(api: SimAPI, disk, rng: random.Random, planner=None) -> World:
    from harness.calls.client import Client, PrefixGate

    clock = SimClock()

    def provider(client_settings, clock=clock, random=None, gate=None, **changes):
        import dataclasses

        changes.pop("model", None)  # the simulated API is the one provider: no routing
        changes.pop("providers", None)
        random = random or SimRandomness(rng)
        return Client(dataclasses.replace(client_settings, **changes), gate=gate or PrefixGate(clock.monotonic),
                      sleep=clock.sleep, random=random.fraction, monotonic=clock.monotonic,
                      transport=SimTransport(api))

    sizes = {"planner": planner} if planner is not None else {}
    return World(clock=clock, random=SimRandomness(rng), provider=provider, disk=disk, workdir=WORKDIR, **sizes)
