"""`a line is its node's latest call's`: a compaction's outcome reaches the planner only from
the call the compactor started last for that node. A call the planner stopped (a waiting turn
takes its slot [P5], the compactor pauses [C11]) and started again later has a newer call for
the same node; the older one's line, made from the inputs and context as they were when it
started, must never be applied over it [P7].

Checked in the process, as the outcome is applied: the compactor's `Memory._run` and `_apply`
are wrapped for the run (a fork per seed, or a replay's own process), so the product's code runs
as it is and the wrapper only watches which task applies what.
"""

import asyncio

from harness.memory.events import Built, Failed
from harness.memory.service import Memory

INVARIANT = "a line is its node's latest call's"

_watching: list = []  # the run whose failures it records, while one runs


def watch(run) -> None:
    """Watch `run`'s owners' compactors: every outcome applied is checked as it is."""
    _watching[:] = [run]
    if getattr(Memory, "_sim_watched", False):
        return
    started, applied = Memory._run, Memory._apply

    async def _run(self, job):
        latest = self.__dict__.setdefault("_sim_latest", {})
        latest[(job.l, job.i)] = asyncio.current_task()
        return await started(self, job)

    def _apply(self, event):
        if isinstance(event, (Built, Failed)) and _watching:
            node = (event.l, event.i)
            task = asyncio.current_task() if _running_loop() else None
            latest = self.__dict__.get("_sim_latest", {}).get(node)
            if task is not None and latest is not None and task is not latest and node in self.planner.running:
                _watching[0].fail(INVARIANT, f"{type(event).__name__.lower()} {event.l} {event.i} came from a "
                                  f"call stopped before the node's latest one started")
        return applied(self, event)

    Memory._run, Memory._apply, Memory._sim_watched = _run, _apply, True


def _running_loop() -> bool:
    try:
        asyncio.get_running_loop()
        return True
    except RuntimeError:
        return False
