"""Each owner life's planner, as the bridge needs it: its state once loaded, the events it then
applied, and the trace it printed after each (bridge/FORMAT.md, "Life files"). `python -m
bridge.lives` runs the model on the same events from the same state and compares the traces.

**Where a life's comparison starts.** A new process does not replay the chat from its first
event through `Planner.apply`: it loads view.json's checkpoint (the views, both shrinking flags
and the failure counts, never rebuilt) and replays only the logs past it, each node logged there
adopted by `checkpoint._adopt` (not a `Built` event), then rebuilds the ready merges from the
built nodes' frontier and starts calls (harness/memory/checkpoint.py `restore`). The model has
no such load: its `Restart` keeps the old state whole. And a whole run may not agree, rightly: a
restart that lost lines not yet fsync'd loads less than the live planner held. So a life is
compared from its load on: what the loaded planner holds (T, both views, both shrinking flags,
the failure counts, every built node's text and the sources of the unbuilt lines of its views)
is written down, the bridge builds the model's state from it (each built node's parent readied
as the model's `ready_parent` readies it: built when free, else a ready merge), and the first
event both take is the model's `Restart`, whose
`e` record (k = 0) already compares the calls the load started; then every event `apply` took,
as it took it. The load itself is compared in `make bridge`'s `restart` events.

**Watching without changing the run.** `Planner.load` and `Planner.apply` are wrapped for the
run, as sim/calls.py wraps the service, and only the owner's planners are recorded (read-only
checkers and the backup phase open their own). The trace is printed with the planner's `texts`
and its text cache swapped for copies answered from memory, so printing never reads the run's
disk (a read is a disk operation, which a `kill inside` counts, and a draw of the disk's
faults); the texts a load holds beyond the planner's cache are read from a copy of the disk
(sim/invariants.py `snapshot`). An exception inside `apply` (the process killed inside a disk
read, a read refused) ends that life's record before the event: its state is half an event's. A
planner that takes another event after that is said in the life file: the chat went on with a
state no list of events gives, which `python -m bridge.lives` counts as a difference.

With no directory set (`--traces` of `python -m sim`) nothing is watched.
"""

import json
import os
from dataclasses import dataclass, field

from harness.memory import trace as production_trace
from harness.memory.events import Built, Failed, Message, Restart, Retry, TurnEnd, Wait
from harness.memory.planner import Planner

DIRECTORY = ""  # set by `python -m sim --traces DIR`, before the workers fork

_watching: list = []  # the run whose owners' planners are recorded, while one runs


@dataclass
class Life:
    """One loaded planner of an owner: `owner life N`, its Mth load in that process."""

    name: str
    planner: Planner
    process: object  # its owner's process (sim/disk.py ProcessDisk): a killed one's events are none
    start: dict
    known: dict  # (l, i) -> text: every node built, for printing
    messages: dict  # i -> (kind, text)
    events: list[str] = field(default_factory=list)  # FORMAT.md scenario records
    trace: list[str] = field(default_factory=list)
    cut: str = ""  # why the record ended before the life did
    after_cut: int = 0  # the events the planner took after that


_originals: list = []  # Planner's own `load` and `apply`, while they are wrapped


def watch(run) -> None:
    """Record `run`'s owners' planners, if a directory is set, until `finish`."""
    _watching[:] = [run] if DIRECTORY else []
    run.planner_lives = []
    if not DIRECTORY or _originals:
        return
    _originals[:] = [Planner.__dict__["load"], Planner.apply]
    loaded, applied = Planner.load.__func__, Planner.apply

    def load(cls, saved, texts):
        planner = loaded(cls, saved, texts)
        if _watching and _is_owners(_watching[0], texts):
            run = _watching[0]
            try:
                _begin(run, planner)
            except Exception as error:  # the recorder's own trouble, said as such, never the product's
                run.fail("each owner life's planner is recorded", f"life {run.lives}: {error!r}")
        return planner

    def apply(self, event):
        life = self.__dict__.get("_sim_life")
        if life is not None and life.cut and life.process.alive:
            life.after_cut += 1  # the chat went on with a planner half an event on
        if life is None or life.cut:
            return applied(self, event)
        try:
            applied(self, event)
        except BaseException as error:
            life.cut = f"{type(error).__name__} inside apply at event {len(life.events) + 1}"
            raise
        life.events.append(record(event))
        life.trace += _printed(life, len(life.events), event)

    Planner.load, Planner.apply = classmethod(load), apply


def _is_owners(run, texts) -> bool:
    process = getattr(getattr(texts, "store", None), "disk", None)
    return process is not None and process is run.process and process.name.startswith("owner ")


def _begin(run, planner: Planner) -> None:
    life_number = run.lives
    loads = sum(1 for life in run.planner_lives if life.name.split(".")[0] == str(life_number))
    nodes, messages = _loaded_texts(run, planner)
    start = {
        "T": planner.T,
        "view": [list(node) for node in planner.view.lines()],
        "cview": [list(node) for node in planner.cview.lines()],
        "shrinking": planner.shrinking,
        "cshrinking": planner.cshrinking,
        "failures": [[l, i, count] for (l, i), count in sorted(planner.failures.items())],
        "nodes": [[l, i, text] for (l, i), text in sorted(nodes.items())],
        "sources": [[i, kind + ": " + text] for i, (kind, text) in sorted(messages.items())],
    }
    life = Life(f"{life_number}.{loads + 1}", planner, run.process, start, nodes, messages)
    planner._sim_life = life
    _wrap_record_nodes(planner, life)
    run.planner_lives.append(life)
    life.trace += _printed(life, 0, Restart())


def _loaded_texts(run, planner: Planner) -> tuple[dict, dict]:
    """Every built node's text and the source of each unbuilt line of either view, from the
    planner's cache and its unlogged lines, else from a copy of the disk."""
    built = planner.built_nodes
    unlogged = getattr(planner.texts, "unlogged", {})
    kept = set(getattr(planner.texts, "kept", ()))  # [S29] the open forgets their replayed text
    nodes, wanted = {}, []
    for l in range(built.levels()):
        for i in sorted(set(range(built.watermarks[l])) | built.beyond[l]):
            entry = None if (l, i) in kept else planner._recent.get((i << 6) | l)
            if entry is not None:
                nodes[(l, i)] = entry[0]
            elif (l, i) in unlogged:
                nodes[(l, i)] = unlogged[(l, i)]
            else:
                wanted.append((l, i))
    unbuilt = sorted({i for l, i in planner.view.lines() + planner.cview.lines() if l == 0 and not built.has(0, i)})
    messages = {}
    if wanted or unbuilt:
        store = _copied_store(run)
        try:
            for l, i in wanted:
                nodes[(l, i)] = store.node(l, i)
            for i in unbuilt:
                record = store.message(i)
                messages[i] = (record["kind"], record["text"])
        finally:
            store.close()
    return nodes, messages


def _copied_store(run):
    from harness.memory.store import Store
    from sim.invariants import snapshot

    machine = snapshot(run.disk)
    return Store.open(run.home, read_only=True, disk=machine.process("planner trace"))


def _wrap_record_nodes(planner: Planner, life: Life) -> None:
    """The nodes each event builds, remembered as the planner hands them to its store."""
    texts = planner.texts
    handed = texts.record_nodes

    def record_nodes(nodes, T):
        for l, i, text in nodes:
            life.known[(l, i)] = text
        return handed(nodes, T)

    texts.record_nodes = record_nodes


class _Remembered:
    """The planner's `Texts` while its trace is printed: from memory, never the disk."""

    def __init__(self, life: Life, texts) -> None:
        self.life = life
        self.texts = texts

    def node(self, l: int, i: int) -> str | None:
        return self.life.known.get((l, i))

    def message(self, i: int) -> tuple[str, str]:
        return self.life.messages[i]

    def message_count(self) -> int:
        return self.life.planner.T


def _printed(life: Life, k: int, event) -> list[str]:
    """Event k's records, printed by harness/memory/trace.py with the texts from memory and the
    planner's cache as it was: printing leaves the planner as it found it."""
    planner = life.planner
    if isinstance(event, Message):
        life.messages[planner.T - 1] = (event.kind, event.text)
    texts, recent = planner.texts, planner._recent
    planner.texts, planner._recent = _Remembered(life, texts), dict(recent)
    try:
        if event is None:  # the life's end: the `z` record
            return production_trace.final_records(k, planner)
        return production_trace.records(k, event, planner)
    except Exception as error:  # a printing error is a difference, as the bridge prints one
        return [f"error\t{type(error).__name__}: {error}"]
    finally:
        planner.texts, planner._recent = texts, recent


def record(event) -> str:
    """The event as a bridge/FORMAT.md scenario record (bridge/scenarios.py format_event writes
    the same from the bridge's tuples; sim/ may not import bridge/)."""
    if isinstance(event, Message):
        return f"message {event.kind} {json.dumps(event.text)}"
    if isinstance(event, Built):
        return f"built {event.l} {event.i} {json.dumps(event.text)}"
    if isinstance(event, Failed):
        return f"failed {event.l} {event.i}"
    if isinstance(event, Retry):
        return "retry"
    if isinstance(event, Wait):
        return "wait"
    if isinstance(event, TurnEnd):
        return "turn_end"
    raise TypeError(f"not a planner event: {event!r}")


def finish(run) -> None:
    """Write each life's files: `<seed>-<life>.life` (its config, start and events) and
    `<seed>-<life>.harness.memory.trace` (the production planner's trace, `z` record last); and
    Planner's own methods back."""
    _watching[:] = []
    if _originals:
        Planner.load, Planner.apply = _originals
        _originals[:] = []
    if not DIRECTORY or not getattr(run, "planner_lives", None):
        return
    os.makedirs(DIRECTORY, exist_ok=True)
    for life in run.planner_lives:
        planner = life.planner
        c = planner.config
        config = [c.view_bytes_ceiling, c.view_bytes_floor, c.cview_bytes_ceiling, c.cview_bytes_floor, c.jobs_max,
                  c.failures_max]
        final = [] if life.cut else _printed(life, len(life.events) + 1, None)
        stem = os.path.join(DIRECTORY, f"{run.seed}-{life.name}")
        cut = f" cut {json.dumps(life.cut)} {life.after_cut}" if life.cut else ""
        head = [f"life {run.seed} {life.name}{cut}",
                "config " + " ".join(str(n) for n in config), "start " + json.dumps(life.start), "restart"]
        with open(stem + ".life", "w", encoding="utf-8") as out:
            out.write("\n".join(head + life.events) + "\n")
        with open(stem + ".harness.memory.trace", "w", encoding="utf-8") as out:
            out.write("\n".join(life.trace + final) + "\n")
