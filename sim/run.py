"""One seed: the chat's owner, its store, inbox, compactor and turns, and `ever send` senders, run
under the simulated World through a seeded schedule of messages, kills and faults.

A run is a sequence of the owner's lives on one disk. Each life is a new process (a new
`ProcessDisk`, a new event loop whose time continues the last one's) that opens the chat with
`Owner.open`, as `ever serve` does, and takes the schedule's events as their time comes:

- `send`: a sender hands a message over as `ever send` does (harness/owner/socket.py's
  `answer_send`, the socket's own handler for a Send, with the written lines read back: the
  `{"accepted": true}` line is the acknowledgement). A sender not answered when its owner dies
  sends again, with the same key, to the next owner (harness/owner/sender.py does so);
- `kill`: SIGKILL at that instant; `kill inside`: SIGKILL inside the process's Nth disk operation
  from then (a write torn at any byte); `power`: the machine stops (sim/disk.py);
- `flip`: one bit changed in a cold day file;
- `race`: a second process tries to own the chat while the first does;
- `client`: a hostile client of the chat's socket (`Run.client`).

Disk and provider faults are drawn at the run's rates while the schedule runs. Then the run's
**quiet phase** (VOPR's liveness mode): the faults stop, a last owner opens, every sender not
answered sends again, each must be answered, the owner closes, the machine loses power once more,
and the invariants (sim/invariants.py) are checked on what the disk kept. They are also checked at
every restart, on what the disk kept then.

Everything drawn comes from `random.Random`s seeded from the seed: the same seed gives the same
events, faults, bytes and trace.
"""

import asyncio
import contextlib
import dataclasses
import hashlib
import logging
import os
import random
import shutil
from dataclasses import dataclass
from pathlib import Path

from harness.calls.caps import TurnCaps
from sim.counts import Counts
from sim.disk import Faults, Killed, SimDisk
from sim.loop import Hang, VirtualLoop
from sim.provider import ProviderRates, SimAPI

DAY_SECONDS = 86_400.0
QUIET_SECONDS_MAX = 6 * 3600.0  # the quiet phase's answers must all come within this


@dataclass
class Probabilities:
    """What one seed draws before its run, printed as VOPR prints its options."""

    messages: int
    message_gap_mean_seconds: float
    long_message: float
    kill: float
    kill_inside: float
    power_loss: float
    bit_flip: float
    race: float
    disk: Faults
    provider: ProviderRates
    # drawn from the run's side randomness (seed * 7 + 4), so the draws above stay each seed's own
    hostile_client: float = 0.0

    def lines(self) -> list[str]:
        shown = []
        for name, value in dataclasses.asdict(self).items():
            if isinstance(value, dict):
                shown += [f"{name}.{key}={render(item)}" for key, item in value.items()]
            else:
                shown.append(f"{name}={render(value)}")
        return shown


def render(value) -> str:
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def side_randomness(seed: int) -> random.Random:
    """The draws added after the first ones (the hostile socket clients): from their own
    randomness, so each seed's other probabilities and events are what they were."""
    return random.Random(seed * 7 + 4)


def planner_config(seed: int):
    """The sizes the planner works at: the gist's, or from world 5 in 1 seed of 2 the laws' small
    ones (a ceiling of 3,000 bytes, a compaction view's of 1,000), so the view merges and the
    compaction view shrinks within a seed's minutes, and each life's comparison with the model
    reaches the batches."""
    from harness.memory.planner import Config
    from sim.seeds import world

    if world(seed) < 5 or random.Random(seed * 7 + 17).random() < 0.5:
        return Config()
    return Config(3_000, 1_500, 1_000, 500)


def agent_rate(seed: int) -> float:
    """The chance a turn's reply starts a subagent."""
    from sim.seeds import part_rate

    return part_rate(seed, 6, 2, 0.0, 0.3)


def sends_with_yes(seed: int, key: str) -> bool:
    """Whether `ever send` sends this message with --yes: always in a world before approvals,
    else 7 in 10, drawn from the key's own randomness, whatever the order of the sends."""
    from sim.seeds import world

    return world(seed) < 3 or random.Random(f"yes {seed} {key}").random() < 0.7


def asking_rate(seed: int) -> float:
    """The chance a turn's reply reads a file outside the working directory, which asks first [H4]:
    from world 4, when terminals answer questions, up to twice as often, and never none in a seed
    whose terminals talk."""
    from sim.seeds import part_rate, world
    from sim.terminals import plan, talking_rate

    drawn = part_rate(seed, 12, 3, 0.0, 0.3)
    if world(seed) < 4:
        return drawn
    return 2 * drawn or (0.3 if plan(seed) and talking_rate(seed) > 0 else 0.0)


def tell_rate(seed: int) -> float:
    """The chance a turn's reply tells the subagent its replies started last."""
    from sim.seeds import part_rate

    return part_rate(seed, 11, 3, 0.0, 0.5)


CLIENT_KINDS = ("blank line", "not JSON", "half a line, then gone", "a send, then gone")
LONG_LINE = "a line past the socket's limit is refused in one sentence"


def long_line_at(seed: int, life: int) -> float | None:
    """Seconds into this life at which a client sends a send's line past the socket's 64 MB
    limit, or None: in 1 seed of 12, in one of its first three lives, drawn from its own
    randomness (seed * 7 + 15)."""
    from sim.seeds import world

    draw = random.Random(seed * 7 + 15)
    if world(seed) < 4 or draw.random() >= 1 / 12:
        return None
    return draw.uniform(0, 300) if draw.randrange(1, 4) == life else None


def draw_probabilities(rng: random.Random, side: random.Random | None = None) -> Probabilities:
    """Swarm testing: each seed its own mix, some faults off altogether, some frequent."""

    def rate(high: float, off: float = 0.3) -> float:
        return 0.0 if rng.random() < off else rng.uniform(0, high)

    drawn = Probabilities(
        messages=rng.randrange(6, 22),
        message_gap_mean_seconds=rng.choice((5.0, 60.0, 900.0, 7200.0)),
        long_message=rate(0.25),
        kill=rate(0.35, 0.2),
        kill_inside=rate(0.35, 0.2),
        power_loss=rate(0.3, 0.2),
        bit_flip=rate(0.05, 0.7),
        race=rate(0.2, 0.5),
        disk=Faults(write_enospc=rate(0.02), write_eio=rate(0.01), fsync_eio=rate(0.01), read_eio=rate(0.002, 0.6),
                    short_write=rate(0.2)),
        provider=ProviderRates(
            latency_mean_seconds=rng.choice((0.05, 0.5, 3.0)),
            status_429=rate(0.1), status_500=rate(0.08), status_529=rate(0.08),
            overloaded_mid_stream=rate(0.08), stream_cut=rate(0.08), malformed_event=rate(0.05),
            silence=rate(0.04, 0.6), huge=rate(0.05, 0.5), empty=rate(0.06, 0.5), whitespace=rate(0.06, 0.5),
            tool_loop=rate(0.04, 0.6), refusal=rate(0.06, 0.5), nul_search=rate(0.06, 0.5), zoom=rate(0.1, 0.5)),
    )
    if side is not None:
        drawn.hostile_client = 0.0 if side.random() < 0.4 else side.uniform(0, 0.4)
    return drawn


@dataclass
class Event:
    at_seconds: float
    kind: str  # send | kill | kill inside | power | flip | race | client (its text: one of CLIENT_KINDS)
    text: str = ""
    key: str = ""
    operations: int = 0  # for `kill inside`: the operation the kill falls in

    def line(self) -> str:
        what = f" {self.key} ({len(self.text):,} chars)" if self.kind == "send" else ""
        what += f" {self.key}: {self.text}" if self.kind == "client" else ""
        what += f" at operation +{self.operations}" if self.kind == "kill inside" else ""
        return f"{self.at_seconds:12.3f} {self.kind}{what}"


def words(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(("kept", "log", "word", "every", "chat", "day", "line", "never", "lost", "é", "ü"))
                    for _ in range(count))


def schedule(rng: random.Random, p: Probabilities, side: random.Random | None = None) -> list[Event]:
    events = []
    now = 0.0
    for n in range(p.messages):
        now += rng.expovariate(1 / p.message_gap_mean_seconds)
        if rng.random() < p.long_message:
            text = (words(rng, 40) + "\n") * rng.randrange(150, 400)  # 36 to 100 K characters: pieces
        else:
            text = f"message {n}: " + words(rng, rng.randrange(1, 30))
        events.append(Event(round(now, 3), "send", text, f"sim-{n}"))
        for kind, chance in (("kill", p.kill), ("kill inside", p.kill_inside), ("power", p.power_loss),
                             ("flip", p.bit_flip), ("race", p.race)):
            if rng.random() < chance:
                at = round(now + rng.expovariate(1 / max(1.0, p.message_gap_mean_seconds / 2)), 3)
                events.append(Event(at, kind, operations=rng.randrange(1, 300) if kind == "kill inside" else 0))
    if side is not None and p.hostile_client > 0:
        sends = [event for event in events if event.kind == "send"]
        for n, sent in enumerate(sends):
            if side.random() < p.hostile_client:
                at = round(sent.at_seconds + side.expovariate(1 / max(1.0, p.message_gap_mean_seconds / 2)), 3)
                events.append(Event(at, "client", side.choice(CLIENT_KINDS), f"client-{n}"))
    events.sort(key=lambda event: event.at_seconds)
    return events


@dataclass
class Sender:
    """One `ever send`: what it sent, whether it was acknowledged, and its answer."""

    key: str
    text: str
    sent: bool = False
    acknowledged: bool = False
    answer: dict | None = None
    tries: int = 0
    vanished: bool = False  # a socket client gone once its line was written: never sends again
    yes: bool = True  # sent with --yes: its turns' tools run without asking (sim/approvals.py)


class Writer:
    """The socket's writer, as the owner's handler uses it; the lines it gets are the sender's."""

    def __init__(self, sender: Sender, alive):
        self.sender = sender
        self.alive = alive

    def write(self, data: bytes) -> None:
        import json

        if not self.alive():
            return
        for raw in data.split(b"\n"):
            if raw and json.loads(raw) == {"accepted": True}:
                self.sender.acknowledged = True

    async def drain(self) -> None:
        if not self.alive():
            raise ConnectionResetError("the owner died")

    def close(self) -> None:
        pass


@dataclass
class Failure:
    invariant: str
    detail: str
    at_seconds: float


@dataclass
class Result:
    seed: int
    probabilities: Probabilities
    events: list[Event]
    counts: Counts
    failures: list[Failure]
    trace: list[str]
    steps: int
    lives: int
    digest: str = ""

    @property
    def passed(self) -> bool:
        return not self.failures


SCRATCH_ROOT = "/tmp"  # not tempfile's: TMPDIR would move every path a seed logs


@contextlib.contextmanager
def scratch_folder(seed: int):
    """The run's scratch folder on the machine (its socket, search's SQLite; the rest is on the
    simulated disk), named by the seed alone: a sentence logged may name a file under it, and a
    hash of such a line (a backup's manifest) is the same in every replay only if the name is.
    So it is under SCRATCH_ROOT whatever TMPDIR says; only another user's runs, by its uid, log
    other bytes. A second run of the seed meanwhile (another `make sim` on the machine) waits for
    this one."""
    import fcntl

    root = Path(SCRATCH_ROOT) / f"ever-sim-{os.getuid()}"
    root.mkdir(mode=0o700, exist_ok=True)
    with open(root / f"{seed}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        scratch = root / str(seed)
        shutil.rmtree(scratch, ignore_errors=True)  # what a run killed from outside left
        scratch.mkdir(mode=0o700)
        try:
            yield str(scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


class Errors(logging.Handler):
    """Every ERROR the product logs: a traceback the person would see."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        error = f" ({record.exc_info[1]!r})" if record.exc_info else ""
        self.records.append(f"{record.name}: {record.getMessage()}{error}"[:400])


class Run:
    def __init__(self, seed: int, events: list[Event] | None = None, probabilities: Probabilities | None = None):
        self.seed = seed
        master, side = random.Random(seed), side_randomness(seed)
        if probabilities is None:
            probabilities = draw_probabilities(master, side)
            probabilities.provider.agent = agent_rate(seed)
            probabilities.provider.tell = tell_rate(seed)
            probabilities.provider.asking_read = asking_rate(seed)
        self.probabilities = probabilities
        drawn_events = schedule(master, self.probabilities, side)
        self.events = drawn_events if events is None else events
        self.counts = Counts()
        self.disk = SimDisk(random.Random(seed * 7 + 1), self.counts, self.probabilities.disk)
        self.now = 0.0
        self.api = SimAPI(random.Random(seed * 7 + 2), self.counts, self.probabilities.provider, self.clock)
        self.world_rng = random.Random(seed * 7 + 3)
        self.planner = planner_config(seed)  # every process of the run opens the chat at these sizes
        self.turn_caps = TurnCaps(calls=6, tool_calls=8)  # small, as a config may set them: a tool loop meets them
        self.senders: dict[str, Sender] = {}
        self.failures: list[Failure] = []
        self.trace: list[str] = []
        self.steps = 0
        self.lives = 0
        self.loop: VirtualLoop | None = None
        self.exceptions: list[str] = []
        self.process = None
        self.flipped: set[str] = set()  # files a bit was flipped in
        self.lost_to_flip: set[str] = set()  # keys of acknowledged messages a flip spoiled, said
        self.spoiled: dict[int, dict] = {}  # id -> its message line as logged, before a bit flipped in it
        self.read_damaged: set[int] = set()  # the spoiled ids the store reads as damaged, at the last check
        self.ids_seen: dict[int, str] = {}  # id -> the digest of its durable line
        self.ids_torn: set[int] = set()  # ids seen on torn lines
        self.position = 0  # the schedule's next event in this life
        self.owner = None
        self.connections: list = []  # the socket clients' writers of this life
        self.imported: list[tuple[str, str]] = []  # an import that ended: its notes' keys and texts
        self.life_calls: dict[int, int] = {}  # each life: the provider's request number as it opened
        self.typed: list = []  # sim/terminals.py: what the terminals said (Typed)
        self.questions: list = []  # sim/terminals.py: the questions the hub asked (Asked)

    def clock(self) -> float:
        return self.loop.time() if self.loop is not None else self.now

    def fail(self, invariant: str, detail: str) -> None:
        detail = self.unscratched(detail)
        self.failures.append(Failure(invariant, detail, self.clock()))
        self.note(f"FAILED {invariant}: {detail}")

    def note(self, line: str) -> None:
        self.trace.append(f"{self.clock():12.3f} {self.unscratched(line)}")

    def unscratched(self, text: str) -> str:
        """The run's scratch folder named alike in every replay: a trace compares byte for byte."""
        scratch = getattr(self, "scratch", None)
        return text.replace(scratch, "<scratch>") if scratch else text

    # ---- the run

    def run(self) -> Result:
        from sim import calls, invariants, mcp, planner_trace, terminals
        from sim.backup_world import backup_phase
        from sim.importing import import_phase

        calls.watch(self)  # sim/calls.py: each compaction's outcome checked as it is applied
        planner_trace.watch(self)  # sim/planner_trace.py: each owner's planner, for `python -m bridge.lives`
        terminals.start_run(self)  # sim/terminals.py: the hub's fan-out, questions and answers, recorded
        errors = Errors()
        loggers = [logging.getLogger(name) for name in ("ever", "harness", "asyncio")]
        for logger in loggers:
            logger.addHandler(errors)
        logging.getLogger("asyncio").propagate = False
        with scratch_folder(self.seed) as scratch:
            self.scratch = scratch
            self.home = Path(scratch) / "home"
            (self.home / "chat").mkdir(parents=True)  # outside the disk's seam: search's SQLite
            self.disk.make_durable_directories(scratch)
            try:
                self.settings = self.settings_for(self.home)
                import_phase(self)  # sim/importing.py: notes imported first, as `ever import` does
                pending = list(self.events)
                while pending and not self.failures:
                    pending = self.life(pending)
                    if not self.failures:
                        invariants.at_restart(self)
                if not self.failures:
                    self.quiet()
                if not self.failures:
                    invariants.at_end(self)
                if not self.failures:
                    backup_phase(self)  # sim/backup_world.py: backups killed and faulted, then checked
            finally:
                for logger in loggers:
                    logger.removeHandler(errors)
                mcp.rejoined()  # sim/mcp.py: the sender's own seams back
        for record in errors.records:
            self.fail("no unhandled exception", record)
        planner_trace.finish(self)
        digest = hashlib.sha256("\n".join(self.trace).encode() + self.disk_bytes()).hexdigest()[:16]
        return Result(self.seed, self.probabilities, self.events, self.counts, self.failures, self.trace,
                      self.steps, self.lives, digest)

    def disk_bytes(self) -> bytes:
        found: list = []
        self.disk._files(self.disk.root, "", found)
        # the lock holds the last owner's pid, the machine's, not the run's
        # a sentence logged may name a file under the scratch folder: named alike in every replay
        scratch = self.scratch.encode()
        return b"".join(self.unscratched(path).encode() + b"\0"
                        + (b"" if path.endswith("/chat/lock") else bytes(inode.data).replace(scratch, b"<scratch>"))
                        for path, inode in found)

    def settings_for(self, home: Path):
        from harness.chat.config import load_settings

        settings = load_settings({"EVER_HOME": str(home), "EVER_MODEL": "claude-sonnet-4-6"})
        # a tool loop is stopped by the turn's caps: small ones, as a config may set them
        return dataclasses.replace(settings, turn_caps=self.turn_caps, settle_timeout_seconds=60.0)

    def new_loop(self) -> VirtualLoop:
        loop = VirtualLoop(self.now)
        loop.set_exception_handler(self.loop_exception)
        self.failed_tasks: list = []
        loop.set_task_factory(self.task_made)
        return loop

    def task_made(self, loop, coro, context=None):
        """Every task of the life, watched: one that ends on an exception while its process lives
        is noted, and at the life's end (`unretrieved`) one whose exception nobody took is a
        failure, as asyncio would log it only when the task is collected, if ever."""
        task = asyncio.Task(coro, loop=loop, context=context)
        process = self.process

        def ended(done: asyncio.Task) -> None:
            if process.alive and not done.cancelled() and done._exception is not None:
                self.failed_tasks.append(done)

        task.add_done_callback(ended)
        return task

    def unretrieved(self) -> None:
        for task in self.failed_tasks:
            if task._log_traceback:  # asyncio's own mark: set with the exception, cleared once it is taken
                task._log_traceback = False  # said here, not again when it is collected
                error = task._exception
                if not isinstance(error, Killed):
                    made = getattr(task.get_coro(), "__qualname__", "?")
                    self.exceptions.append(f"Task exception was never retrieved ({made}): {error!r}"[:300])
        self.failed_tasks = []

    def loop_exception(self, loop, context) -> None:
        error = context.get("exception")
        if isinstance(error, Killed) or (self.process is not None and not self.process.alive):
            return  # what a killed process left undone
        self.exceptions.append(f"{context.get('message')}: {error!r}"[:300])

    def life(self, pending: list[Event]) -> list[Event]:
        """One owner's life, until it is killed or the schedule ends; the events left."""
        self.lives += 1
        self.process = self.disk.process(f"owner {self.lives}")
        self.disk.armed = True
        self.loop = loop = self.new_loop()
        self.process.on_kill = loop.stop
        self.position = 0
        try:
            loop.run_until_complete(self.live(pending))
        except RuntimeError as error:
            if "stopped before Future completed" not in str(error):
                raise
        except Killed:
            pass  # the kill fell inside the driver's own await of the owner
        except Hang as hang:
            self.fail("no hang", f"{hang} in the owner's life {self.lives}")
        died = not self.process.alive
        self.end_loop(loop)
        self.disk.armed = False
        for message in self.exceptions:
            self.fail("no unhandled exception", message)
        self.exceptions = []
        return pending[self.position:] if died else []

    def end_loop(self, loop: VirtualLoop) -> None:
        """A killed process's tasks never run again: their coroutines are closed here, in a fixed
        order, with every disk operation refused (sim/disk.py's Killed)."""
        self.now = loop.time()
        self.steps += loop.steps
        self.unretrieved()
        self.process.kill()
        server = getattr(self.owner, "server", None)
        if server is not None:  # the dead process's socket: the next owner serves its own
            server.close()
        for writer in self.connections:
            writer.transport.abort()
        self.connections, self.owner = [], None
        tasks = sorted(asyncio.all_tasks(loop), key=lambda task: task.get_name())
        for task in tasks:
            try:
                task.get_coro().close()
            except BaseException:
                pass
        loop.set_exception_handler(lambda loop, context: None)
        loop.close()
        self.loop = None

    async def live(self, pending: list[Event]) -> None:
        from harness.owner.owner import Owner

        owner = await self.open_owner(Owner)
        if owner is None:
            return
        self.owner = owner
        from sim.mcp import Calls
        from sim.terminals import Terminals, plan

        attaching = plan(self.seed)
        mcp_calls = self.mcp_calls = getattr(self, "mcp_calls", None) or Calls(self)
        long_line = long_line_at(self.seed, self.lives)
        if attaching or mcp_calls.chance > 0 or long_line is not None \
                or any(event.kind == "client" for event in pending):
            await owner.serve()  # the chat's socket, for the schedule's hostile clients and terminals
        if attaching:
            Terminals(self, owner).start(self.seed)  # sim/terminals.py
        if long_line is not None:
            task = asyncio.get_running_loop().create_task(self.long_line(owner, long_line))
            owner.busy.add(task)
        # a sender left unanswered by the last owner sends again, as `ever send` does
        for sender in self.senders.values():
            if sender.answer is None and not sender.vanished:
                self.spawn_send(owner, sender)
        index = 0
        while index < len(pending):
            event = pending[index]
            delay = event.at_seconds - self.loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            index += 1
            self.position = index
            self.note(event.line().strip())
            if event.kind == "send":
                sender = self.senders.setdefault(event.key, Sender(event.key, event.text,
                                                                   yes=sends_with_yes(self.seed, event.key)))
                self.spawn_send(owner, sender)
                mcp_calls.after_send(owner)  # sim/mcp.py: maybe an MCP tool call a while after
            elif event.kind == "kill":
                self.counts.add("process killed")
                self.process.kill()
                await asyncio.sleep(0)
            elif event.kind == "kill inside":
                self.process.kill_at = self.process.operations + event.operations
            elif event.kind == "power":
                self.disk.power_loss()
                await asyncio.sleep(0)
            elif event.kind == "flip":
                flipped = self.disk.flip_cold_bit()
                if flipped is not None:
                    path, line = flipped
                    self.flipped.add(path)
                    self.spoil(line)
                    self.note(f"bit flipped in {path}")
            elif event.kind == "race":
                await self.race(Owner)
            elif event.kind == "client":
                task = asyncio.get_running_loop().create_task(self.client(owner, event))
                owner.busy.add(task)
        # the schedule is done: the owner closes, as `ever serve` does when stopped
        await owner.close()
        self.note("closed")

    async def open_owner(self, Owner):
        from harness.memory.store import StoreError
        from sim import invariants

        world = self.world(self.process)
        self.life_calls[self.lives] = self.api.number  # the requests after it are this life's
        try:
            owner = await Owner.open(self.settings, yes=True, api_key="sim-key", world=world)
            invariants.restart_view(self, owner)
            return owner
        except OSError as error:  # an injected disk fault at open: the next start tries again
            self.counts.add("open failed on a disk fault")
            self.note(f"open failed: {error}")
            self.process.kill()
            return None
        except StoreError as error:
            if self.repaired(error):
                self.process.kill()  # the next life opens the repaired chat
                return None
            if any(words in str(error) for words in ("could not be written", "could not record", "cannot be read (")):
                # the disk refused a line the open writes, or a read (EIO): one sentence, and the
                # next start tries again
                self.counts.add("open failed on a disk fault")
                self.note(f"open refused: {error}")
                self.process.kill()
                return None
            self.fail("the chat opens after every crash", str(error))
            return None

    def spoil(self, line: bytes) -> None:
        """Note the message line a bit was flipped in as it was logged: a flip that leaves it JSON
        may change its key or its terminal's tag, which the checks know a message by, where the
        store sees no damage (a line has no sum of its own) (sim/invariants.py `as_logged`)."""
        from sim.invariants import parsed

        record = parsed(line)
        if record is not None and isinstance(record.get("i"), int):
            self.spoiled.setdefault(record["i"], record)

    def repaired(self, error: Exception) -> bool:
        """A chat that a bit flipped in a cold file keeps from opening (LogCorrupt, naming `ever
        doctor --repair`) is repaired as the sentence says, by the doctor's own functions on this
        disk between two owners' lives; whether it was. Only after a flip: a crash alone must
        never need it."""
        from harness.memory.damage import examine, repair_logs
        from harness.memory.daylog import LogCorrupt
        from sim.importing import FixedClock

        if not (self.flipped and isinstance(error, LogCorrupt) and "ever doctor --repair" in str(error)):
            return False
        doctor = self.disk.process("ever doctor --repair")
        armed, self.disk.armed = self.disk.armed, False
        try:
            chat = self.home / "chat"
            # dated by the run's clock, as every line of a run is: a replay writes the same bytes
            copies = repair_logs(chat, examine(chat, doctor), FixedClock(self.now).now(), doctor)
        finally:
            self.disk.armed = armed
            doctor.kill()
        self.counts.add("ever doctor --repair after a bit flip")
        self.note(f"ever doctor --repair: {len(copies)} files of lines set aside")
        return True

    def world(self, process):
        from sim.world import sim_world

        return sim_world(self.api, process, self.world_rng, self.planner)

    async def race(self, Owner) -> None:
        """A second process tries to own the chat: one chat has one owner."""
        from harness.memory.store import ChatBusy

        rival = self.disk.process(f"rival of owner {self.lives}")
        try:
            other = await Owner.open(self.settings, yes=True, api_key="sim-key", world=self.world(rival))
        except ChatBusy:
            self.counts.add("rival refused: the chat is owned")
            rival.kill()
            return
        except OSError:
            rival.kill()
            return
        self.fail("one chat has one owner", "a second process opened the chat its owner holds")
        rival.kill()
        del other

    def refused_left(self, sender: Sender) -> None:
        """A message refused ("nothing was logged") leaves no byte of it in the chat's files, as
        the processes read them (the page cache), from the moment it is refused [S5] [S9]: not
        only once a crash shows it."""
        needle = f'"{sender.key}"'.encode()
        chat = self.home / "chat"
        files: list = []
        self.disk._files(self.disk.root, "", files)
        for path, inode in files:
            inside = path.startswith(str(chat / "main") + "/") or path == str(chat / "inbox.jsonl")
            if inside and needle in inode.data:
                self.fail("refused means not kept", f"{sender.key} was refused and its bytes are in "
                          f"{self.unscratched(path)}")
                return

    async def client(self, owner, event: Event) -> None:
        """A hostile client of the chat's socket (harness/owner/socket.py's `serve`): a blank
        line, a line not JSON, half a line and gone, a whole send and gone before its answer.
        One that waits must get one line, JSON, saying nothing was kept; a send whose client
        went is logged once or not at all, and sent by nobody again."""
        import json

        from harness.owner.protocol import LINE_BYTES_MAX

        process = self.process
        try:
            reader, writer = await asyncio.open_unix_connection(str(owner.socket_path), limit=LINE_BYTES_MAX)
        except (FileNotFoundError, ConnectionRefusedError):
            # a dead owner's socket refuses, as a real one does: the client's trouble, no promise broken
            if process.alive and owner.server is not None and not owner.leaving:
                self.fail("every client answered in one line", f"{event.key} could not reach a serving owner")
            return
        self.connections.append(writer)
        kind = event.text
        self.counts.add(f"socket client: {kind}")
        if kind == "half a line, then gone":
            writer.write(b'{"op": "send", "text": "half of a')
            writer.close()
            return
        if kind == "a send, then gone":
            text = f"{event.key}: sent, and the sender gone"
            self.senders.setdefault(event.key, Sender(event.key, text, sent=True, vanished=True))
            writer.write(json.dumps({"op": "send", "text": text, "yes": True, "key": event.key}).encode() + b"\n")
            await writer.drain()
            writer.close()
            return
        writer.write(b"\n" if kind == "blank line" else b"{this is not JSON\n")
        await writer.drain()
        raw = await reader.readline()
        writer.close()
        if not process.alive:
            return
        try:
            answer = json.loads(raw)
        except ValueError:
            answer = None
        if not raw.endswith(b"\n") or not isinstance(answer, dict) or not answer.get("error") \
                or answer.get("logged", False):
            self.fail("every client answered in one line", f"{event.key} ({kind}) got {raw[:120]!r}")
        owner.busy.discard(asyncio.current_task())

    async def long_line(self, owner, delay: float) -> None:
        """A send whose line is past the socket's limit (LINE_BYTES_MAX, 64 MB), written a
        megabyte at a time, so no copy of it is ever whole in memory (the owner's reader holds up
        to the limit, then refuses): it is answered with one line saying, in one sentence,
        that nothing was logged; nothing of it is kept, and the owner answers the next request."""
        import json

        from harness.owner.protocol import LINE_BYTES_MAX, parsed

        await asyncio.sleep(delay)
        process = self.process
        if not process.alive or owner.server is None or owner.leaving:
            return
        key = f"long-line-{self.lives}"
        sender = self.senders.setdefault(key, Sender(key, "(a line past the socket's limit)", sent=True, vanished=True))
        reader, writer = await asyncio.open_unix_connection(str(owner.socket_path))
        self.connections.append(writer)
        self.counts.add("socket client: a line past 64 MB")
        answered = asyncio.get_running_loop().create_task(reader.readline())
        head = json.dumps({"op": "send", "key": key, "yes": True, "text": ""})[:-2].encode()  # to the text's quote
        chunk = b"a" * (1 << 20)
        written = 0
        try:
            writer.write(head)
            while written <= LINE_BYTES_MAX and not answered.done():
                writer.write(chunk)
                written += len(chunk)
                await writer.drain()
            writer.write(b'"}\n')
            await writer.drain()
        except ConnectionError:
            pass  # the owner answered and closed while the rest was on its way
        try:
            raw = await answered
        except ConnectionError:
            raw = b""
        writer.close()
        if not process.alive or owner.leaving:
            return
        answer = parsed(raw) if raw.endswith(b"\n") else None
        error = answer.get("error") if answer is not None else None
        if not isinstance(error, str) or "nothing was logged" not in error or "\n" in error \
                or answer.get("logged") is not False:
            self.fail(LONG_LINE, f"{key} of {written + len(head):,} bytes got {raw[:160]!r}")
            return
        sender.answer = answer
        self.refused_left(sender)
        status = await asyncio.open_unix_connection(str(owner.socket_path))
        self.connections.append(status[1])
        status[1].write(b'{"op": "status"}\n')
        await status[1].drain()
        raw = await status[0].readline()
        status[1].close()
        if process.alive and not owner.leaving and "status" not in (parsed(raw) or {}):
            self.fail(LONG_LINE, f"after {key} the owner answered a status request with {raw[:120]!r}")
        self.counts.add("a line past 64 MB refused, the owner serving on")
        owner.busy.discard(asyncio.current_task())

    def spawn_send(self, owner, sender: Sender) -> None:
        sender.sent = True
        sender.tries += 1
        task = asyncio.get_running_loop().create_task(self.send(owner, sender))
        owner.busy.add(task)

    async def send(self, owner, sender: Sender) -> None:
        from harness.owner import protocol
        from harness.owner.socket import answer_send

        process = self.process
        answer = await answer_send(owner, protocol.Send(sender.text, sender.yes, sender.key),
                                   Writer(sender, lambda: process.alive))
        if not process.alive:
            return
        if answer is None:
            return  # the owner is going: the sender tries the next one
        sender.answer = answer
        if answer.get("logged"):
            sender.acknowledged = True
        elif sender.tries == 1 and not sender.acknowledged:
            self.refused_left(sender)
        self.note(f"answered {sender.key}: " + ("error " + answer["error"][:60] if answer.get("error")
                                                  else f"reply of {len(answer.get('reply', '')):,} chars"))
        owner.busy.discard(asyncio.current_task())

    # ---- the quiet phase

    def quiet(self) -> None:
        from sim import invariants

        self.api.quiet = True
        self.disk.faults = Faults()
        self.lives += 1
        self.process = self.disk.process(f"owner {self.lives} (quiet)")
        self.loop = loop = self.new_loop()
        self.process.on_kill = loop.stop
        try:
            loop.run_until_complete(asyncio.wait_for(self.quiet_life(), QUIET_SECONDS_MAX))
        except TimeoutError:
            waiting = [key for key, sender in self.senders.items() if sender.answer is None and not sender.vanished]
            self.fail("every sender is answered", f"{len(waiting)} not answered in {QUIET_SECONDS_MAX:.0f} s "
                      f"of quiet: {', '.join(waiting[:5])}")
        except Hang as hang:
            self.fail("no hang", f"{hang} in the quiet phase")
        self.end_loop(loop)
        for message in self.exceptions:
            self.fail("no unhandled exception", message)
        self.exceptions = []
        # a last power loss: what was acknowledged is on disk, whatever the page cache held
        self.disk.power_loss()
        invariants.at_restart(self)

    async def quiet_life(self) -> None:
        from harness.owner.owner import Owner

        owner = await self.open_owner(Owner)
        if owner is None:
            return
        self.owner = owner
        for sender in self.senders.values():
            if sender.answer is None and not sender.vanished:
                self.spawn_send(owner, sender)
        # every sender answered, and what the inbox held from before (a turn that failed) answered too
        # and every subagent ended and its report logged (a turn of its own, or the close's flush)
        while any(sender.answer is None and not sender.vanished for sender in self.senders.values()) \
                or owner.memory.inbox.entries or (owner.agents is not None and owner.agents.running):
            await asyncio.sleep(1.0)
        await owner.memory.idle()
        await owner.close()
        self.note("closed")


def run_seed(seed: int, events: list[Event] | None = None, probabilities: Probabilities | None = None) -> Result:
    return Run(seed, events, probabilities).run()
