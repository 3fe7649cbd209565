"""An asyncio event loop whose time is virtual: it never waits, it jumps.

When nothing is ready, the real loop would block in its selector until the next timer; this one
moves its clock to that timer instead, so an hour of backoffs, settle waits and silence deadlines
costs nothing (FoundationDB and TigerBeetle run their code under simulated time the same way).
When nothing is ready and no timer is due, nothing can ever happen again: that is a hang, and it
is raised (`Hang`) rather than waited for. Everything that reads the loop's time (`asyncio.sleep`,
`asyncio.timeout`, `wait_for`, `call_later`) reads the virtual clock; the World's clock
(sim/world.py) is this loop's time too.

Work sent to a thread (`asyncio.to_thread`) runs on a thread of its own, but never beside the
loop: the loop waits while it runs, until it ends or waits for the loop itself (a tool's question
to the terminals, `Hub.ask`'s `run_coroutine_threadsafe`), and waits again from the instant that
answer is set. So the work runs at the instant it was sent, as it always did here, and a question
is asked and answered in virtual time, the same in every replay.

Hand-made rather than a library's (looptime patches pytest's loops): the simulation must own the
one decision a library would hide, what an idle loop means.
"""

import asyncio
import concurrent.futures
import selectors
import threading


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
        self.workers: dict[threading.Thread, Worker] = {}  # by thread: the calls sent to a thread, running

    def _run_once(self) -> None:
        self.steps += 1
        super()._run_once()

    def time(self) -> float:
        return self.virtual_seconds

    def run_in_executor(self, executor, func, *args):
        """Work sent to a thread (the SDK asks its platform's name in one, a tool call runs in
        one) runs now, on a thread the loop waits for: a thread running beside the loop would
        finish at a real instant the virtual clock cannot order, and a replay would differ."""
        worker = Worker(self, func, args)
        worker.hand_over()
        return worker.future

    def call_soon_threadsafe(self, callback, *args, context=None):
        """From a worker: the loop is waiting, so the callback is queued as from the loop. One
        that carries a future the worker will wait for (`run_coroutine_threadsafe`) hands the loop
        back until that future is set; then the loop waits for the worker again."""
        worker = self.workers.get(threading.current_thread())
        if worker is None:
            return super().call_soon_threadsafe(callback, *args, context=context)
        handle = self.call_soon(callback, *args, context=context)
        awaited = awaited_future(callback)
        if awaited is not None:
            awaited.add_done_callback(lambda _: worker.hand_over())
            worker.turn.release()
        return handle


def awaited_future(callback) -> concurrent.futures.Future | None:
    """The future `run_coroutine_threadsafe` returns to the thread that called it, found in the
    callback it queues (its closure holds it): the thread's next step is to wait for it."""
    for cell in getattr(callback, "__closure__", None) or ():
        try:
            held = cell.cell_contents
        except ValueError:  # a cell not filled yet
            continue
        if isinstance(held, concurrent.futures.Future):
            return held
    return None


class Worker:
    """One call sent to a thread, run while the loop waits for it (`hand_over`)."""

    def __init__(self, loop: VirtualLoop, func, args):
        self.loop = loop
        self.future = loop.create_future()
        self.turn = threading.Semaphore(0)  # released by the worker when the loop may go on
        self.outcome: tuple[bool, object] | None = None
        self.thread = threading.Thread(target=self.work, args=(func, args), daemon=True)
        loop.workers[self.thread] = self
        self.thread.start()

    def work(self, func, args) -> None:
        try:
            self.outcome = (True, func(*args))
        except BaseException as error:  # as the executor's future would hold it
            self.outcome = (False, error)
        self.turn.release()

    def hand_over(self) -> None:
        """The loop waits while the worker runs, until it ends (its future is set now) or waits
        for the loop. A worker whose loop's process was killed meanwhile never runs again."""
        self.turn.acquire()
        if self.outcome is None:
            return
        self.loop.workers.pop(self.thread, None)
        ok, value = self.outcome
        if self.future.done():  # cancelled: the task that sent it is gone
            return
        if ok:
            self.future.set_result(value)
        else:
            self.future.set_exception(value)
