"""An asyncio event loop whose time is virtual: it never waits, it jumps.

When nothing is ready, the real loop would block in its selector until the next timer; this one
moves its clock to that timer instead, so an hour of backoffs, settle waits and silence deadlines
costs nothing (FoundationDB and TigerBeetle run their code under simulated time the same way).
When nothing is ready and no timer is due, nothing can ever happen again: that is a hang, and it
is raised (`Hang`) rather than waited for. Everything that reads the loop's time (`asyncio.sleep`,
`asyncio.timeout`, `wait_for`, `call_later`) reads the virtual clock; the World's clock
(sim/world.py) is this loop's time too.

Hand-made rather than a library's (looptime patches pytest's loops): the simulation must own the
one decision a library would hide, what an idle loop means.
"""

import asyncio
import selectors


class Hang(Exception):
    """Nothing is ready and no timer is due: every task waits for something that cannot come."""


class VirtualSelector(selectors.DefaultSelector):
    def __init__(self) -> None:
        super().__init__()
        self.loop: VirtualLoop | None = None

    def select(self, timeout=None):
        events = super().select(0)
        if events or timeout == 0:
            return events
        loop = self.loop
        if not loop._scheduled:
            raise Hang("every task waits and no timer is due")
        loop.virtual_seconds = max(loop.virtual_seconds, loop._scheduled[0].when())
        return []


class VirtualLoop(asyncio.SelectorEventLoop):
    def __init__(self, start_seconds: float = 0.0) -> None:
        selector = VirtualSelector()
        super().__init__(selector)
        selector.loop = self
        self.virtual_seconds = start_seconds
        self.steps = 0  # iterations: each runs the callbacks ready at one instant

    def _run_once(self) -> None:
        self.steps += 1
        super()._run_once()

    def time(self) -> float:
        return self.virtual_seconds

    def run_in_executor(self, executor, func, *args):
        """Work sent to a thread (the SDK asks its platform's name in one) runs here, at once:
        a thread would finish at a real instant the virtual clock cannot order, and a replay
        would differ."""
        future = self.create_future()
        try:
            future.set_result(func(*args))
        except BaseException as error:  # as the executor's future would hold it
            future.set_exception(error)
        return future
