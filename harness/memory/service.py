"""The memory service: the log, the tree and the view on disk, kept by the planner, built by the
compactor [gist §1, §2, §3.2, §4].

`harness/memory/planner.py` is the brain; this module feeds it events and carries out what it decides.
Every change goes through `_apply`, in one order, one event at a time:

1. what the event brings is on disk first: a message is logged (fsync) before the planner sees it;
   a compactor's line is handed to the planner, which gives it to the store as it builds it;
2. the planner applies the event; the nodes it built are logged, once, in build order, each with
   the message count T of its building;
3. if the planner says a checkpoint is due, view.json is replaced (write, fsync, rename,
   directory fsync) [P10];
4. compactions start for the calls the planner started, and stop for those it stopped.

**A restart** [F1] [P10]. view.json is a checkpoint, written at open, at close, when
a failure count changes, and every `SAVE_LINES` (128, harness/memory/checkpoint.py) lines logged; the planner's state is
a function of the logs past it, so the rest is replayed at start: each message in turn, each node
adopted before the message that followed its building (its T). A crash can lose only what dies
with the process (running calls, retries due, a waiting turn) and a failure count in the instant
before its checkpoint; the view after a restart is the live view, byte for byte.
tests/memory/test_service_crash.py kills the process at random points to check it, and the bridge
restarts the production planner from its last checkpoint at every `Restart`.

**A read refused inside an event** [S37]. The planner reads the texts it needs through the
store: a read the disk refuses (EIO) raises out of `apply` with the event half applied. The memory
then loads the planner again as a restart does and gives it the event once more, unless it is a
message, which the logs hold and the load replays (`_reload`).

**A pause** [C11]. A compaction that fails for a reason that is not the model's answer
(a wrong key, a refused request, a spend limit: `Paused`, with the sentence saying what failed,
where, and what to do) counts no try: the compactor pauses. Its calls stop, the planner still has
them running, the sentence is a `memory:` row and `status()["compactor"]`, and a waiting turn goes
on at once. It resumes (the calls start again) when a turn starts — the user acted — or after
PAUSE_BACKOFF_SECONDS, whichever is first.

The service reads the clock (for the store's dates and the compactor's backoff); the planner
does not: time reaches it as events.
"""

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

from harness.memory.accepted import Accepted
from harness.memory.covers import Covers
from harness.memory.disk import REAL_DISK, Disk
from harness.memory.events import Built, Event, Failed, Message, Retry, TurnEnd, Wait
from harness.memory.images import pages as paged
from harness.memory.inbox import Inbox
from harness.memory.planner import Config, Node, Planner, node_name
from harness.memory.store import Store, StoreError
from harness.memory.text import split_long

log = logging.getLogger("ever.memory")

PAGE_CHARS = 30_000  # zoom(id, 1) gives a long message in pages of this many characters
RETRY_BACKOFF_SECONDS = (2.0, 4.0, 8.0)  # after a content failure, while a turn waits [P8]
# [C11] a paused compactor tries again after these, then every last one
PAUSE_BACKOFF_SECONDS = (30.0, 60.0, 120.0, 300.0)
# [S28] a built node's line the disk refused is tried again after these, then every last one
LINE_RETRY_SECONDS = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0)


class Paused(Exception):
    """A compaction that cannot succeed until something outside it changes (the key, the model,
    a spend limit); the text is one sentence: what failed, the URL, what to do. No node's failure."""


class StoreTexts:
    """The planner's `Texts` over the store: texts are read back from the logs by id."""

    def __init__(self, store: Store):
        self.store = store
        # a read-only chat's nodes built in memory, and the nodes whose line the disk refused
        self.unlogged: dict[tuple[int, int], str] = {}
        # the nodes built whose line the disk refused (ENOSPC, EIO), in build order, each with its
        # T: logged by `flush`, the first of them before any node built after it [S28]
        self.pending: list[tuple[int, int, str, int]] = []
        self.refused = ""  # the disk's error for the first of them
        self.kept: list[Node] = []  # [S29] nodes replayed with another text: their logged line is kept

    def node(self, l: int, i: int) -> str | None:
        return self.unlogged.get((l, i)) or self.store.node(l, i)

    def message(self, i: int) -> tuple[str, str]:
        record = self.store.message(i)
        return record["kind"], record["text"]

    def message_count(self) -> int:
        return self.store.count

    def record_message(self, i: int, kind: str, text: str) -> None:
        # the service logs a message before the planner applies it
        if i >= self.store.count:
            raise RuntimeError(f"message {i} reached the planner before the log")

    def record_nodes(self, nodes: list[tuple[int, int, str]], T: int) -> None:
        for l, i, text in nodes:
            if self.pending:  # logged in build order: after the nodes waiting for the disk
                self._hold(l, i, text, T)
                continue
            logged = self.node(l, i)
            if logged is None and not self.store.writable and self.store.read_only:
                self.unlogged[(l, i)] = text  # read only: what a replay builds stays in memory
            elif logged is None:
                try:
                    self.store.append_node(l, i, text, T)
                except StoreError as error:
                    # [S28] the node is built; its line waits for the disk, tried again by `flush`
                    self.refused = str(error)
                    self._hold(l, i, text, T)
            elif logged != text:
                # a node is built once [gist §2]; a replay gives the text logged before, unless a
                # message or a line under it was lost or damaged since: then the line logged
                # from it whole is kept [S13]; so too when a message under it reads otherwise
                # with no sign of damage (a byte changed on disk that left its line JSON), said [S29]
                if not self.store.damaged_between(i << l, ((i + 1) << l) - 1):
                    self.store.changed_under(l, i, node_name(l, i))
                self.kept.append((l, i))

    def _hold(self, l: int, i: int, text: str, T: int) -> None:
        self.unlogged[(l, i)] = text
        self.pending.append((l, i, text, T))

    def flush(self) -> bool:
        """Log the nodes waiting for the disk, in build order, each with the T of its building
        [S28]; whether none waits now."""
        while self.pending:
            l, i, text, T = self.pending[0]
            try:
                self.store.append_node(l, i, text, T)
            except StoreError as error:
                self.refused = str(error)
                return False
            self.pending.pop(0)
            self.unlogged.pop((l, i), None)
        self.refused = ""
        return True

    def built_levels(self) -> list[list]:
        return self.store.built_levels()

    def last_node(self) -> Node | None:
        return self.store.last_node()

    def nodes_after(self, last: Node | None) -> list[tuple[int, int, str, int]]:
        return self.store.nodes_after(None if last is None else (last[0], last[1]))


@dataclass(frozen=True)
class Job:
    """One compaction, as the compactor needs it: the node, its context and its input."""

    l: int
    i: int
    context: tuple[str, ...]  # the rendered lines of the compaction's view, oldest first
    kind: str  # a message's kind, or "" for a merge
    text: str  # a message's whole text, or ""
    halves: tuple[str, ...]  # a merge's two line texts, or ()

    @property
    def name(self) -> str:
        return node_name(self.l, self.i)


@dataclass(frozen=True)
class JobResult:
    """A compactor's answer: a line (1 to 512 bytes), or a content failure [P16]."""

    text: str = ""
    reason: str = ""

    @property
    def failed(self) -> bool:
        return self.text == ""


Build = Callable[[Job], Awaitable[JobResult]]


def _is_int(value: object, least: int = 0) -> bool:
    return type(value) is int and value >= least


def _lines_problem(name: str, lines: object, T: int, store: Store, tiles: bool = True) -> str:
    """A view's lines must tile messages 0..T−1 in order, each line built unless a message's;
    the compaction view's lines only need to be in order, within T and logged."""
    if not isinstance(lines, list):
        return f"its {name} is not a list of lines"
    first = 0
    for line in lines:
        if not (isinstance(line, list) and len(line) == 2 and _is_int(line[0]) and _is_int(line[1])
                and line[0] <= 62):
            return f"its {name} holds {line!r}, not a line [l, i]"
        l, i = line
        if i << l < first or (tiles and i << l != first):
            missing = f"messages {first} to {(i << l) - 1} are in no line" if i << l > first else \
                f"line {node_name(l, i)} overlaps the line before it"
            return f"its {name} does not tile the chat: {missing}"
        first = (i + 1) << l
        if l > 0 and store.node(l, i) is None:
            return f"its {name} shows line {node_name(l, i)}, which the tree has not logged"
    if first > T or (tiles and first != T):
        return f"its {name} covers messages 0 to {first - 1}, not the {T} the checkpoint counts"
    return ""


def saved_view_problem(saved: dict, store: Store) -> str:
    """What is wrong with view.json against the logs, or "" [S10]: a sane config, T
    within the log, the view tiling 0..T−1 with logged lines (the compaction view's in order), failure counts in range, and a
    last node the tree holds (a torn or missing tree line is named as such)."""
    fields = ("config", "T", "view", "cview", "shrinking", "cshrinking", "failures")
    missing = [field for field in fields if field not in saved]
    if missing:
        return f"it has no {', '.join(missing)}"
    config = saved["config"]
    if not (isinstance(config, list) and len(config) == 6 and all(_is_int(v, 1) for v in config)):
        return f"its config {config!r} is not six whole numbers of at least 1"
    if config[1] > config[0] or config[3] > config[2]:
        return f"its config {config!r} has a floor above its ceiling"
    T = saved["T"]
    if not _is_int(T) or T > store.count:
        return f"its T {T!r} is not a message count within the {store.count:,} messages logged"
    for name in ("view", "cview"):
        problem = _lines_problem(name, saved[name], T, store, tiles=name == "view")
        if problem:
            return problem
    if not (isinstance(saved["shrinking"], bool) and isinstance(saved["cshrinking"], bool)):
        return "its shrinking flags are not true or false"
    failures = saved["failures"]
    if not (isinstance(failures, list) and all(
            isinstance(f, list) and len(f) == 3 and _is_int(f[0]) and _is_int(f[1]) and _is_int(f[2], 1)
            and f[2] <= config[5] for f in failures)):
        return "its failure counts are not [l, i, count] with a count from 1 to the cap"
    last = saved.get("last_node")
    if last is not None:
        if not (isinstance(last, list) and len(last) == 2 and _is_int(last[0]) and _is_int(last[1])
                and last[0] <= 62):
            return f"its last node {last!r} is not a node [l, i]"
        if store.node(last[0], last[1]) is None:
            torn = [w for w in store.warnings if "/tree/" in w and "skipped" in w]
            return (f"it names node {node_name(*last)} as the tree's last, and the tree has no such line: "
                    + (f"a tree line is torn ({torn[-1]})" if torn else "a tree line is missing"))
    return ""


def loaded(store: Store, texts: StoreTexts, config: Config) -> Planner:
    """The planner as the chat's files give it: view.json's checkpoint and the logs past it [P10]."""
    try:
        saved = store.load_view()
        problem = "" if saved is None else saved_view_problem(saved, store)
    except StoreError as error:
        saved, problem = None, str(error)
    if problem:
        # [S10] the logs are the truth and view.json their checkpoint: a damaged
        # one is replaced by the state the logs alone give
        store.warnings.append(f"{store.chat / 'view.json'} was set aside: {problem}; the view "
                              "was rebuilt from the logs (the compactor's failure counts start again)")
        saved = None
    if saved is None:
        # a new chat, or one cut short before its first checkpoint: an empty chat's
        # state, and the whole log replayed
        saved = Planner(config).save()
    return Planner.load(saved, texts)


class Memory:
    """One chat's memory, owned by this process [gist §1]."""

    def __init__(self, store: Store, planner: Planner, build: Build | None = None,
                 on_change: Callable[[str], None] | None = None, inbox: Inbox | None = None):
        self.store = store
        self.planner = planner
        self.build = build
        self.on_change = on_change  # a `memory:` row for each compactor change
        self.tasks: dict[Node, asyncio.Task] = {}
        self.failures_in_wait = 0
        self._settled = asyncio.Event()
        self._retry_handle: asyncio.TimerHandle | None = None
        self.inbox = inbox or Inbox(store.chat, store.disk)
        self.covers = Covers(store.message)  # [P22] what an unbuilt line covers, in its placeholder
        # [S11] the pieces a killed owner logged of a long message, by key, counted at open
        # while they still end the log: its delivery logs the rest, not the whole again
        self.partly_logged: dict[str, int] = {}
        # [S11] the message whose last pieces wait: every other line is logged after them, so
        # its pieces stay together at the log's end until its key is logged
        self.unfinished: Accepted | None = None
        self.finished_early: set[str] = set()  # keys of such messages logged whole by another line
        for key, text in self.inbox.pending():
            if store.key_id(key) is None:
                logged = self.pieces_logged(split_long(text))
                if logged:
                    self.partly_logged[key] = logged
                    self.unfinished = Accepted(text, key, "inbox")
                    break  # only the message being logged at the kill ends the log
        self.on_wait: Callable[[str | None, float | None], None] | None = None  # [C12]
        self.paused = ""  # [C11] the sentence, while the compactor is paused
        self._pauses = 0  # in a row, for the backoff
        self._last_pause = ""  # the cause last shown, until a line is built
        self._resume_handle: asyncio.TimerHandle | None = None
        self._line_handle: asyncio.TimerHandle | None = None  # [S28] the next try of a refused line
        self._line_tries = 0
        # the clock a wait's deadline is shown in; the waits themselves run on the event loop's
        # time, which a simulation makes the World's (sim/loop.py)
        self.monotonic: Callable[[], float] = time.monotonic

    # ---- opening ----

    @classmethod
    def open(cls, home=None, config: Config = Config(), build: Build | None = None,
             on_change: Callable[[str], None] | None = None, read_only: bool = False,
             disk: Disk = REAL_DISK, clock=None, lock=None) -> "Memory":
        """Own the chat under `home` and load its view [P10]: see the module's text.
        `read_only` (for `ever memory`, and any chat on a read-only disk) writes nothing. Every
        file of the chat is read and written through `disk` (harness/memory/disk.py); `clock`
        (the World's, harness/owner/world.py: `monotonic()` and `now()`) dates the lines and
        times the waits shown, the system's when None. `lock`: the chat's lock, held already
        (`close(keep_lock=True)`)."""
        store = Store.open(home, read_only=read_only, disk=disk, lock=lock)
        if clock is not None:
            store.now = clock.now
        try:
            inbox = Inbox(store.chat, store.disk, durable=store.writable)
            texts = StoreTexts(store)
            planner = loaded(store, texts, config)
            if store.writable and not texts.pending:  # [S28] never a view naming an unlogged node
                try:
                    store.save_view(planner.checkpoint())
                except OSError:
                    pass  # a full disk: the logs replay it next time [P10]
        except BaseException:
            store.close()
            raise
        memory = cls(store, planner, build, on_change, inbox)
        if clock is not None:
            memory.monotonic = clock.monotonic
        return memory

    def close(self, keep_lock: bool = False):
        """The chat given up; `keep_lock`: its files closed and its lock, still held, returned."""
        for task in self.tasks.values():
            task.cancel()
        self.tasks.clear()
        if self._retry_handle is not None:
            self._retry_handle.cancel()
        self.inbox.close()
        if self._resume_handle is not None:
            self._resume_handle.cancel()
        if self._line_handle is not None:
            self._line_handle.cancel()
            self._line_handle = None
        if not self.store.closed and self.store.writable:
            self._flush()  # [S28] a line still refused dies with the process, as a running call does
        if not self.store.closed and self.store.writable and self.planner.lines_since_save:
            self._checkpoint()  # the next open replays nothing
        return self.store.close(keep_lock)

    # ---- what changes the memory ----

    def append(self, kind: str, text: str, now: datetime | None = None,
               key: str | None = None, origin: str | None = None) -> dict:
        """Log one message, then let the planner see it [gist §1, §3.2]; the record is returned
        once it is on disk. A user's message logs its key on its first line (harness/memory/accepted.py)
        [S8] [S9]. A long message cut short by a refused piece is finished first [S11]."""
        if self.unfinished is not None:
            self._finish(now)
        return self._log(kind, text, now, key, origin)

    def _finish(self, now: datetime | None) -> None:
        """[S11] The long message cut short logged whole before another line; its own delivery,
        when it comes, logs nothing more."""
        message = self.unfinished
        assert message is not None
        self.append_accepted(message, now)
        self.finished_early.add(message.key)

    def _log(self, kind: str, text: str, now: datetime | None, key: str | None = None,
             origin: str | None = None) -> dict:
        record = self.store.append_message(kind, text, now, key, origin)
        self._apply(Message(kind, record["text"]))
        return record

    def append_accepted(self, message: Accepted, now: datetime | None = None) -> None:
        """Log a user's message as it entered (harness/memory/accepted.py), split if long
        [H2], its key ending its LAST line [S8] [S9] [S11]: the key says all of it is logged.
        A message accepted before a restart goes on from the first piece the killed owner did
        not log (`partly_logged`); one whose piece the disk refused goes on from that piece, and
        before any other line (`unfinished`), so its pieces are never apart nor logged twice."""
        if message.key in self.finished_early:
            self.finished_early.discard(message.key)
            return  # finished before another line: logged once
        if self.unfinished is not None and self.unfinished.key != message.key:
            self._finish(now)
        pieces = split_long(message.text)
        start = self.partly_logged.pop(message.key, 0)
        for k in range(start, len(pieces)):
            try:
                self._log("user", pieces[k], now, key=message.key if k == len(pieces) - 1 else None)
            except BaseException:
                if k > 0:
                    self.partly_logged[message.key] = k
                    self.unfinished = message
                raise
        if self.unfinished is not None and self.unfinished.key == message.key:
            self.unfinished = None

    def pieces_logged(self, pieces: list[str]) -> int:
        """How many of a message's first pieces end the log as user lines with no key [S11]:
        those an owner killed inside the message logged before its last piece, which carries
        the key. Every accepted message has a key, so a keyless user line at the log's end can
        only be such a piece. An id lost among them is a piece's write the kill tore [S13]: the
        pieces before it are still logged, and the rest goes after it."""
        store = self.store
        if len(pieces) < 2:
            return 0
        tail: list[str] = []  # the texts of the keyless user lines ending the log, oldest first
        i = store.count - 1
        while i >= 0 and len(tail) < len(pieces) - 1:
            if not store.lost(i):
                record = store.message(i)
                if record.get("kind") != "user" or "key" in record:
                    break
                tail.insert(0, record.get("text"))
            i -= 1
        for k in range(len(tail), 0, -1):  # the longest run first
            if tail[-k:] == pieces[:k]:
                return k
        return 0

    def _pending(self) -> list:
        return getattr(self.planner.texts, "pending", [])

    def _flush(self) -> bool:
        flush = getattr(self.planner.texts, "flush", None)
        return True if flush is None else flush()

    def _line_refused(self) -> None:
        """[S28] A node's line refused by the disk: one row says so, and the line is tried again
        on a backoff; the node is built meanwhile, and no checkpoint is written until it is logged."""
        if self._line_handle is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (an open, a command): `start` or the next event tries again
        delay = LINE_RETRY_SECONDS[min(self._line_tries, len(LINE_RETRY_SECONDS) - 1)]
        if self._line_tries == 0:
            l, i, _, _ = self._pending()[0]
            self._row(f"{node_name(l, i)} is built and its line waits for the disk "
                      f"({self.planner.texts.refused}); tried again in {delay:.0f} s")
        self._line_tries += 1
        self._line_handle = loop.call_later(delay, self._retry_line)

    def _retry_line(self) -> None:
        self._line_handle = None
        if self.store.closed:
            return
        if not self._flush():
            self._line_refused()
            return
        self._line_tries = 0
        if self.planner.save_due():
            self._checkpoint()

    def _checkpoint(self) -> None:
        """view.json is a checkpoint: the logs replay what a failed save leaves out [P10]."""
        if not self.store.writable or self._pending():
            return  # [S28] a view naming a node the tree lacks would be set aside at the next open
        try:
            self.store.save_view(self.planner.checkpoint())
        except OSError as error:
            log.warning("view.json was not saved (%s); the next open replays the logs past the last one",
                        error.strerror or error)

    def _apply(self, event: Event) -> None:
        try:
            self.planner.apply(event)
        except OSError as error:
            self._reload(event, error)
        if self._pending():
            self._line_refused()
        if self.planner.save_due():
            self._checkpoint()
        if self.planner.merges:
            self._row(f"the view merged {len(self.planner.merges)} pairs")
        self._follow_running()
        if not self.planner.waiting:
            self._settled.set()

    def _reload(self, event: Event, error: OSError) -> None:
        """[S37] A text the event needed could not be read (the disk refused a line of the tree
        or the log): the planner stopped half an event on, its state a function of no events. It
        is loaded again from the chat's files as a restart loads it [P10], and takes the event
        once more unless the event is a message, which is logged and so replayed; a read refused
        again raises, as before."""
        log.warning("a line of the chat could not be read (%s) while the planner took an event; "
                    "it is loaded again from the chat's files", error.strerror or error)
        self.planner = loaded(self.store, self.planner.texts, self.planner.config)
        if not isinstance(event, Message):
            self.planner.apply(event)

    # ---- the compactor ----

    def start(self) -> None:
        """Begin the work the logs imply (an import, a kill, a close mid-work) as soon as the chat
        is open, not at the next message: the planner's load already started its calls [P11]."""
        if self._pending():
            self._line_refused()  # [S28] a line the open's replay could not log
        self._follow_running()

    def _follow_running(self) -> None:
        """Start a compaction for each call the planner started; stop those it stopped."""
        if self.build is None:
            return
        running = set(self.planner.running)
        for node in list(self.tasks):
            if node not in running:
                self.tasks.pop(node).cancel()
        if self.paused:
            return  # the planner's calls start when the compactor resumes
        for node in self.planner.running:
            if node not in self.tasks:
                try:
                    job = self.job(*node)
                except OSError as error:
                    # [S35] the input is read after the line that started the call is logged: a
                    # read the disk refuses pauses the compactor, as a call that fails alike does,
                    # and never reaches the caller, which would take its logged line for refused
                    self._pause(f"the chat's log could not be read ({error.strerror or error})")
                    return
                self.tasks[node] = asyncio.get_running_loop().create_task(self._run(job))

    def job(self, l: int, i: int) -> Job:
        planner = self.planner
        context = tuple(planner.rendered(cl, ci) for cl, ci in planner.context(l, i))
        if l == 0:
            record = self.store.message(i)
            return Job(l, i, context, record["kind"], record["text"], ())
        halves = (planner.text(l - 1, 2 * i) or "", planner.text(l - 1, 2 * i + 1) or "")
        return Job(l, i, context, "", "", halves)

    async def _run(self, job: Job) -> None:
        node = (job.l, job.i)
        try:
            result = await self.build(job)
        except asyncio.CancelledError:
            raise
        except Paused as pause:
            if self.tasks.get(node) is asyncio.current_task():
                del self.tasks[node]
                self._pause(str(pause))
            return
        except Exception as error:  # a bug or an unexpected answer: a failed try, logged
            log.exception("compaction of %s raised", job.name)
            result = JobResult(reason=f"{type(error).__name__}: {error}")
        if self.tasks.get(node) is not asyncio.current_task():
            return  # stopped meanwhile: its outcome is not the planner's [P7]
        del self.tasks[node]
        if result.failed:
            self._apply(Failed(job.l, job.i))
            reason = result.reason or "no line"
            if self.planner.built(job.l, job.i):
                # [P16] the last allowed try: the line is kept cut, and marked
                self._row(f"{job.name} failed ({reason}); its input kept cut and marked: zoom it")
            else:
                count = self.planner.failures.get(node, 0)
                self._row(f"{job.name} failed ({reason}), try {count} of {self.planner.config.failures_max}")
            if self.planner.waiting:
                self._retry_later()
        else:
            self._pauses, self._last_pause = 0, ""
            self._apply(Built(job.l, job.i, result.text))
            if job.l == 0:
                self._row(f"message {job.i} summarized as {job.name}")
            else:
                left, right = node_name(job.l - 1, 2 * job.i), node_name(job.l - 1, 2 * job.i + 1)
                self._row(f"lines {left} and {right} merged into {job.name}")

    def _row(self, what: str) -> None:
        """A `memory:` row for each compactor change, with the view's size after it."""
        if self.on_change:
            self.on_change(f"memory: {what} · view {self.planner.view.bytes:,} bytes")

    def _pause(self, sentence: str) -> None:
        """[C11] Stop the calls (each would fail alike), say why, resume on a backoff."""
        shown = sentence != self._last_pause
        self.paused = self._last_pause = sentence
        for task in self.tasks.values():
            task.cancel()
        self.tasks.clear()
        if shown:
            self._row(f"the compactor is paused: {sentence}")
        delay = PAUSE_BACKOFF_SECONDS[min(self._pauses, len(PAUSE_BACKOFF_SECONDS) - 1)]
        self._pauses += 1
        if self._resume_handle is not None:
            self._resume_handle.cancel()
        self._resume_handle = asyncio.get_running_loop().call_later(delay, self.resume)
        self._settled.set()  # a waiting turn goes on: no line comes until the cause is fixed

    def resume(self) -> None:
        """Start the paused compactor's calls again; a pause for the same cause is not shown twice."""
        if self._resume_handle is not None:
            self._resume_handle.cancel()
            self._resume_handle = None
        if not self.paused:
            return
        self.paused = ""
        self._follow_running()

    def _retry_later(self) -> None:
        """While a turn waits, send Retry once the compactor's backoff has passed [P8]."""
        if self._retry_handle is not None:
            return
        delay = RETRY_BACKOFF_SECONDS[min(self.failures_in_wait, len(RETRY_BACKOFF_SECONDS) - 1)]
        self.failures_in_wait += 1

        def fire() -> None:
            self._retry_handle = None
            if self.planner.waiting:
                self._apply(Retry())

        self._retry_handle = asyncio.get_running_loop().call_later(delay, fire)

    async def idle(self) -> None:
        """Wait until no compaction runs (for tests and a clean exit)."""
        while self.tasks:
            await asyncio.gather(*list(self.tasks.values()), return_exceptions=True)

    async def idle_or_stop(self, timeout_seconds: float) -> None:
        """At exit: let running compactions end for a while, then stop them; a stopped call is
        started again by the next process [P11]."""
        try:
            await asyncio.wait_for(self.idle(), timeout_seconds)
        except TimeoutError:
            for task in self.tasks.values():
                task.cancel()
            self.tasks.clear()

    # ---- a turn [gist §6] [P17] ----

    async def settle(self, timeout_seconds: float) -> str:
        """Steps 1 to 3 of a turn: wait until every line of the view is summarized, at most
        `timeout_seconds`; then the view is rendered. The turn logs its message after this."""
        self._settled = asyncio.Event()
        self.failures_in_wait = 0
        self.resume()  # [C11] the user acted: a paused compactor tries again
        self._apply(Wait())
        try:
            if self.planner.waiting:
                if self.on_wait is not None:  # [C12] shown, with its countdown
                    unbuilt = sum(1 for l, i in self.planner.view.lines() if not self.planner.built(l, i))
                    self.on_wait(f"waiting for the memory to summarize {unbuilt} line"
                                 f"{'' if unbuilt == 1 else 's'}",
                                 self.monotonic() + timeout_seconds)
                await asyncio.wait_for(self._settled.wait(), timeout_seconds)
        except TimeoutError:
            pass
        finally:  # a turn stopped while it waits ends its wait too
            if self.on_wait is not None:
                self.on_wait(None, None)
            if self.planner.waiting:
                self._apply(TurnEnd())
        return self.render()

    def render(self, lines: list[Node] | None = None) -> str:
        """The view a turn sends (or `lines`), each unbuilt line saying what it covers [P22]."""
        return self.planner.render(lines, self.placeholder)

    def placeholder(self, l: int, i: int) -> str:
        return self.covers.placeholder(l, i, self.planner.T)

    def render_cview(self) -> str:
        """The compaction view, rendered: what a compaction that needed all of it would see."""
        return self.planner.render(self.planner.cview.lines())

    # ---- the tools' side [gist §6] ----

    def zoom(self, first: int, n: int, page: int = 1) -> str:
        """`zoom(id, n)`: line id+n opened into its two lines of n/2; n = 1 gives the message
        whole, in pages of PAGE_CHARS characters. Bad arguments give a sentence, never a raise.

        The text is the log's; a page never ends inside an image's reference line, so each image
        goes with the page that names it (harness/memory/images.py turns the references into images for
        the model, and into file paths for the terminal) [H8]."""
        T = self.planner.T
        if n < 1 or n & (n - 1):
            return f"zoom: n must be a power of 2 (1, 2, 4, …), not {n}"
        if first < 0:
            return f"zoom: id must be 0 or more (a message's number), not {first}"
        if first % n:
            return f"zoom: id must be a multiple of n = {n}, not {first}"
        if first >= T:
            return f"zoom: the chat has messages 0 to {T - 1}; there is no message {first}"
        if n == 1:
            record = self.store.message(first)
            text = f"{record['kind']}: {record['text']}"
            bodies = paged(text, PAGE_CHARS)
            pages = len(bodies)
            if not 1 <= page <= pages:
                return f"zoom: message {first} has {pages} pages, not page {page}"
            body = bodies[page - 1]
            if pages == 1:
                return body
            return f"[message {first}, page {page} of {pages}]\n{body}"
        l = n.bit_length() - 1
        i = first >> l
        lines = []
        for half in (2 * i, 2 * i + 1):
            if (half << (l - 1)) >= T:
                break
            if self.planner.built(l - 1, half):
                lines.append(self.planner.rendered(l - 1, half))
            else:
                lines.append(f"{node_name(l - 1, half)}|{self.placeholder(l - 1, half)}")
        return "\n".join(lines)

    def date(self, i: int) -> str:
        T = self.planner.T
        if not 0 <= i < T:
            return f"date: the chat has messages 0 to {T - 1}; there is no message {i}"
        date = self.store.message(i).get("date")
        if not isinstance(date, str) or not date:
            # [S13] a lost id is dated as the message before it: the first has none, and a
            # damaged line may keep no date that reads; the answer is a sentence, never empty
            return (f"date: message {i} has no date that reads: its line in the log is damaged or lost "
                    "(`ever doctor` says more)")
        return date

    def status(self) -> dict:
        """The memory's figures, each the truth of this instant: the view the next turn sends
        (`render()`, the bytes `ever memory view` prints, its lines and its placeholders), the
        view as the planner counts it (an unbuilt line at its 512-byte reserve) and whether it
        shrinks, and the work that waits, read from the logs whether or not a compactor runs."""
        planner = self.planner
        lines = planner.turn_lines()
        sent = self.render(lines)
        unbuilt = sum(1 for l, i in lines if not planner.built(l, i))
        c = planner.config
        return {
            "messages": planner.T,
            "view_bytes": len(sent.encode("utf-8")),
            "view_lines": len(lines),
            "unsummarized": unbuilt,
            "counted_view_bytes": planner.view.bytes,
            "view_bytes_ceiling": c.view_bytes_ceiling,
            "view_bytes_floor": c.view_bytes_floor,
            "cview_bytes": planner.cview.bytes,
            "shrinking": planner.shrinking,
            "shrinking_because": self._shrinking_because(),
            "summaries_waiting": len(planner.unbuilt),
            "merges_ready": len(planner.ready_merges()),
            "merges_at_most": merges_left(planner),
            "running": [node_name(l, i) for l, i in planner.running] if self.build is not None else [],
            "failures": {node_name(l, i): count for (l, i), count in planner.failures.items()},
            "compactor": self._compactor_state(),
            "last_backup": self.last_backup(),
        }

    def last_backup(self) -> dict | None:
        """The last backup's time and place, for `status()`: None while the chat has none. The
        backup room answers here (its record of the last run), so status says it once it exists."""
        from harness.memory.backup_state import last_backup

        return last_backup(self.store.home, self.store.disk)

    def _shrinking_because(self) -> str:
        """Why the planner's view is shrinking or not [gist §3.2]: it shrinks from past its
        ceiling down to its floor, merging at each message the most due pairs whose parent is
        built; the view a turn sends is fit under the ceiling whatever it counts."""
        planner, c = self.planner, self.planner.config
        counted = planner.view.bytes
        if planner.shrinking:
            return (f"the view counts {counted:,} bytes (an unsummarized line at its 512-byte reserve), past its "
                    f"floor of {c.view_bytes_floor:,} since it passed its ceiling of {c.view_bytes_ceiling:,}: "
                    "it merges at each message the pairs whose parent is built, so it shrinks as the "
                    "compactor builds them and messages come; until then a turn sends it fit under the ceiling")
        if counted > c.view_bytes_ceiling:
            return (f"the view counts {counted:,} bytes, past its ceiling of {c.view_bytes_ceiling:,}: it starts "
                    "shrinking at the next message")
        return f"the view counts {counted:,} bytes, within its ceiling of {c.view_bytes_ceiling:,}"

    def _compactor_state(self) -> str:
        planner = self.planner
        summaries, merges = len(planner.unbuilt), len(planner.ready_merges())
        waits = [f"{summaries:,} summar{'y' if summaries == 1 else 'ies'}" if summaries else "",
                 f"{merges:,} merge{'' if merges == 1 else 's'}" if merges else ""]
        waiting = " and ".join(w for w in waits if w)
        if self.build is None:  # opened to read (`ever memory status` with no owner): nothing runs
            said = f"{waiting} wait{'s' if summaries + merges == 1 else ''}" if waiting else "nothing waits"
            return (f"not running: no chat is open ({said}; the compactor works while `ever chat` "
                    "or `ever serve` runs)")
        if self.paused:
            return f"paused: {self.paused}"
        if planner.running:
            return f"working: {len(planner.running)} call{'' if len(planner.running) == 1 else 's'} running" + (
                f", {waiting} waiting" if waiting else "")
        return "idle: nothing waits" if not waiting else f"idle, though {waiting} wait"


def merges_left(planner: Planner) -> int:
    """The merges the tree still lacks: every node of level 1 and up whose range is whole and that
    is not built. An upper bound on the merge calls to come, since two halves whose join fits a
    line make their parent for free [gist §2]."""
    built = planner.built_nodes
    left = 0
    for l in range(1, planner.T.bit_length()):
        whole = planner.T >> l
        left += whole - min(built.watermarks[l], whole) - sum(1 for i in built.beyond[l] if i < whole)
    return left
