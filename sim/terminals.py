"""Attached terminals in a run (`ever chat` attached to `ever serve` [R3]): a seed may attach up
to three to each owner's life, over the chat's socket as the command does (`{"op": "attach"}`),
each staying a drawn while or to the life's end, and reading every event the owner sends.

The promise checked (`every attached terminal saw every turn`): what a terminal reads, from its
`attached` event on, is every event the hub fanned out from then, in order, none missing, none
added: all of them when the owner closes (its socket ends after its last event), a prefix of
them when the terminal leaves or the owner is killed (what was in flight goes with it). The hub's
fan-out is recorded at its Output methods, before it reaches any terminal, so a terminal dropped,
skipped or fed out of order shows as a difference.

Attaches are taken one at a time (a lock held until the `attached` event), so each terminal's
start is the fan-out's length when the hub took it. Drawn from its own randomness (seed * 7 + 8),
so the seed's other draws stay its own; none in a seed kept from an earlier world.
"""

import asyncio
import json
import random

from harness.owner import hub as hub_module
from harness.owner.protocol import LINE_BYTES_MAX, line_of

INVARIANT = "every attached terminal saw every turn"
OUTPUTS = ("text", "thinking", "tool", "result", "notice", "end", "row")

_fanned: list = []  # the run's hub fan-out: (life, event line) in order, while a run watches
_taken: list = []  # the fan-out's length at each attach, in order
_closed: list = []  # the fan-out's length when the owner closed the terminals' sockets


def watch() -> None:
    """Record every event the hub fans out, and where each attach starts."""
    Hub = hub_module.Hub
    if getattr(Hub, "_sim_watched", False):
        return
    each, attach, close_all = Hub._each, Hub.attach, Hub.close_all

    def _each(self, event, skip=None):
        _fanned.append(line_of(event))  # a skipped client is a terminal that typed: none of the run's
        return each(self, event, skip)

    def _close_all(self):
        _closed.append(len(_fanned))  # what the terminals are sent before their sockets end
        return close_all(self)

    async def _attach(self, owner, request, reader, writer):
        _taken.append(len(_fanned))
        return await attach(self, owner, request, reader, writer)

    Hub._each, Hub.attach, Hub.close_all, Hub._sim_watched = _each, _attach, _close_all, True


def plan(seed: int) -> list[tuple[float, float | None]]:
    """Each terminal of a life: (seconds after the life starts it attaches, seconds it stays or
    None: to the life's end)."""
    from sim.seeds import world

    draw = random.Random(seed * 7 + 8)
    if world(seed) < 2 or draw.random() < 0.4:
        return []
    return [(draw.uniform(0, 120), None if draw.random() < 0.5 else draw.expovariate(1 / 600))
            for _ in range(draw.randrange(1, 4))]


class Terminals:
    """One life's attached terminals."""

    def __init__(self, run, owner):
        self.run = run
        self.owner = owner
        self.lock = asyncio.Lock()
        _fanned.clear()
        _taken.clear()
        _closed.clear()

    def start(self, seed: int) -> None:
        loop = asyncio.get_running_loop()
        for n, (after, stays) in enumerate(plan(seed)):
            task = loop.create_task(self.terminal(n, after, stays))
            self.owner.busy.add(task)

    async def terminal(self, n: int, after: float, stays: float | None) -> None:
        run, process = self.run, self.run.process
        await asyncio.sleep(after)
        async with self.lock:
            if not process.alive or self.owner.server is None:
                return
            reader, writer = await asyncio.open_unix_connection(str(self.owner.socket_path), limit=LINE_BYTES_MAX)
            run.connections.append(writer)
            writer.write(json.dumps({"op": "attach", "yes": False}).encode() + b"\n")
            await writer.drain()
            first = await reader.readline()
            if not first or json.loads(first).get("event") != "attached":
                if process.alive and first:
                    run.fail(INVARIANT, f"terminal {n} got {first[:120]!r} for its attach")
                return
            start = _taken[-1] if _taken else 0
        run.counts.add("terminal attached")
        received: list[bytes] = []
        ended = False

        async def read() -> None:
            nonlocal ended
            while True:
                raw = await reader.readline()
                if not raw:
                    ended = True
                    return
                event = json.loads(raw)
                if event.get("event") in OUTPUTS:
                    received.append(raw)

        reading = asyncio.get_running_loop().create_task(read())
        try:
            if stays is None:
                await reading
            else:
                await asyncio.wait_for(asyncio.shield(reading), stays)
        except (TimeoutError, ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            reading.cancel()
        if not process.alive:
            return  # killed with its owner: what it read is checked nowhere
        closed = _closed[0] if _closed else None
        expected = [raw for raw in _fanned[start:closed] if json.loads(raw).get("event") in OUTPUTS]
        if ended and closed is not None:
            whole = received == expected
        else:
            whole = received == expected[:len(received)]
            writer.close()
            run.counts.add("terminal left")
        if not whole:
            at = next((k for k, (a, b) in enumerate(zip(received, expected)) if a != b), min(len(received),
                                                                                            len(expected)))
            run.fail(INVARIANT, f"terminal {n} read {len(received)} events of the {len(expected)} fanned out "
                     f"since it attached, differing at {at}: "
                     f"{received[at][:80] if at < len(received) else b'(none)'!r} for "
                     f"{expected[at][:80] if at < len(expected) else b'(none)'!r}")
        elif ended:
            run.counts.add("terminal saw its owner close, every turn read")
