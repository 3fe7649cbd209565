"""`python -m bridge`: the production planner against the model on seeded scenarios.

Each run sends one event list to model/ (`step`) and to harness/'s `Planner`, prints a trace of
each side after every event with its own printer (bridge/model_trace.py, harness/memory/trace.py; the
format is bridge/FORMAT.md), and compares them byte for byte. A restart is done by the production
side as a new process would: its last checkpoint (taken when `save_due()` said so) loaded into a
fresh Planner, which replays the texts logged past it [F1] [P10].
"""

import argparse
import json
import os
import re
import resource
import sys
import tempfile
import time
from collections import Counter, deque
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import TextIO

from bridge import model_trace
from bridge.scenarios import SCENARIOS, Run, format_event, runs
from harness.memory import events as he
from harness.memory import line as hl
from harness.memory import trace as ht
from harness.memory.planner import Config, Planner
from model import line as ml
from model import planner as mp

CONTEXT_LINES = 3


# A scenario event's head names the same class in model/planner.py and harness/memory/events.py.
EVENT_CLASSES = {
    "message": "Message", "built": "Built", "failed": "Failed", "retry": "Retry",
    "wait": "Wait", "turn_end": "TurnEnd", "restart": "Restart",
}


def event_for(module, event):
    """The scenario event as `module`'s event object (module: model.planner or harness.memory.events)."""
    if event[0] not in EVENT_CLASSES:
        raise ValueError(event)
    return getattr(module, EVENT_CLASSES[event[0]])(*event[1:])


LINE_BYTES_MAX = 512


def line_records(k: int, event, side) -> list[str]:
    """FORMAT.md's `l`, `m` and `p` records; both sides print them the same way from plain
    values. `side` is model.line or harness.memory.line."""
    if event[0] == "line":
        outcome = side.line(event[1])
        records = [
            f"l\t{k}\t{outcome.calls}\t{len(outcome.text.encode('utf-8'))}\t{json.dumps(outcome.text)}"
            f"\t{json.dumps(list(outcome.follow_ups))}"
        ]
        capped = side.capped_line(event[2])
    else:
        text = side.merge_input_cut(event[1], event[2], LINE_BYTES_MAX)
        records = [f"m\t{k}\t{len(text.encode('utf-8'))}\t{json.dumps(text)}"]
        capped = side.capped_merge(event[1], event[2])
    return records + [f"p\t{k}\t{len(capped.encode('utf-8'))}\t{json.dumps(capped)}"]


# The paths a planner bug can hide on, which every run's counts should show reached. Each is read
# from the scenario event and the model's trace records (FORMAT.md), not from either planner's
# state, so the counts mean the same whatever the rules or the data structures become.
PATHS = (
    "stale built, message",
    "stale built, merge",
    "stale failed, message",
    "stale failed, merge",
    "stale outcome, already built",
    "stale outcome, after a failure",
    "stale outcome, stopped by a waiting turn",
    "stale outcome, forgotten at a restart",
    "stale outcome, never started",
    "built smaller than counted, shrinking",
    "built smaller than counted, compaction view shrinking",
    "shrinking ended with no merge",
    "compaction view shrinking ended with no merge",
    "failed message, 1 job",
    "failed message, 2 jobs",
    "failed message, 3 jobs",
    "failure cap reached",
    # an old message fails for good while the view has merged past it into a line of the same
    # index: its capped line must come from its own source [P16] (a bulk import)
    "failure cap of a message, a merged line of its index in the view",
    "line of 5 tries",
    "wait with free slots and a merge running",
    "wait stopped a call",
    "turn gave up",
    "message built after a later message",
    "outage of 10 messages",
    "message with \\r\\n",
    "message with a lone \\r",
    "message with a lone \\n",
    "message with U+2028",
    "message with U+2029",
    "message with U+0085",
    "message with \\v",
    "message with \\f",
    "message with a tab",
    "message with another C0 control",
    "message with DEL",
    "message with another C1 control",
    "message with multibyte text",
    # the production side's, counted at each Restart [P10]
    "restart replayed messages past its checkpoint",
    "restart replayed nodes past its checkpoint",
    "restart replayed a node built after the last message",
)

_CHARACTER_CLASSES = tuple(
    (path, re.compile(pattern))
    for path, pattern in (
        ("message with \\r\\n", "\r\n"),
        ("message with a lone \\r", "\r(?!\n)"),
        ("message with a lone \\n", "(?<!\r)\n"),
        ("message with U+2028", "\u2028"),
        ("message with U+2029", "\u2029"),
        ("message with U+0085", "\x85"),
        ("message with \\v", "\v"),
        ("message with \\f", "\f"),
        ("message with a tab", "\t"),
        ("message with another C0 control", "[\x00-\x08\x0e-\x1f]"),
        ("message with DEL", "\x7f"),
        ("message with another C1 control", "[\x80-\x84\x86-\x9f]"),
        ("message with multibyte text", "[^\x00-\x9f\u2028\u2029]"),
    )
)


def _item(l: int, i: int) -> str:
    return f"{i << l}+{1 << l}"


def _merged_of_index(part: str, i: int) -> bool:
    """The view item `part` ("first+size", "*" when unbuilt) is a merged line (l ≥ 1, i)."""
    first, size = (int(number) for number in part.rstrip("*").split("+"))
    return size > 1 and first // size == i


# Columns of the `e` record (FORMAT.md numbers them from 1).
T_COLUMN, VIEW, VIEW_BYTES, SHRINKING = 2, 4, 5, 6
CVIEW_BYTES, CSHRINKING, MERGES, CMERGES = 8, 9, 10, 11
RUNNING, WAITING, FAILURES = 12, 15, 17
# The record of a planner before its first event: nothing runs, nothing is shrinking.
_START = ["e", "-1", "0", "-", "-", "0", "0", "-", "0", "0", "-", "-", "-", "-", "-", "0", "-", "-"]


class Paths:
    """Counts how often a run reaches each of PATHS, from each event and the model's records."""

    def __init__(self) -> None:
        self.counts = {path: 0 for path in PATHS}

    def start(self, config) -> None:
        self.jobs = config[4]
        self.before = _START  # the last `e` record's columns
        self.stopped_how: dict = {}  # item -> how its call last stopped running
        self.quiet_messages = 0  # messages in a row with calls running and no outcome

    def add(self, path: str) -> None:
        self.counts[path] += 1

    def observe(self, event, lines: list[str]) -> None:
        if event[0] == "line":
            for record in lines:
                if record.startswith("l\t") and record.split("\t")[2] == "5":
                    self.add("line of 5 tries")
            return
        if event[0] == "merge_input" or not lines or not lines[0].startswith("e\t"):
            return
        before = self.before
        after = lines[0].split("\t")
        self.before = after
        head = event[0]
        running_before = before[RUNNING].split(" ")
        running_after = after[RUNNING].split(" ")
        item = _item(event[1], event[2]) if head in ("built", "failed") else None
        for gone in set(running_before) - set(running_after) - {"-"}:
            if gone == item:
                self.stopped_how[gone] = "already built" if head == "built" else "after a failure"
            elif head == "restart":
                self.stopped_how[gone] = "forgotten at a restart"
            else:
                self.stopped_how[gone] = "stopped by a waiting turn"
        if head == "message":
            self._message(event[2], before, after)
        elif item is not None:
            self._outcome(event, item, running_before, before, after)
        elif head == "wait" and before[WAITING] == "0":
            running = [node for node in running_before if node != "-"]
            merge_running = any(not node.endswith("+1") for node in running)
            if 0 < len(running) < self.jobs and merge_running and "*" in before[VIEW]:
                self.add("wait with free slots and a merge running")
            if set(running) - set(running_after):
                self.add("wait stopped a call")
        elif head == "turn_end" and before[WAITING] == "1":
            self.add("turn gave up")

    def _outcome(self, event, item: str, running_before: list[str], before: list[str], after: list[str]) -> None:
        head, l, i = event[0], event[1], event[2]
        self.quiet_messages = 0
        if item not in running_before:
            self.add(f"stale {head}, " + ("message" if l == 0 else "merge"))
            self.add("stale outcome, " + self.stopped_how.get(item, "never started"))
        elif head == "built":
            if before[SHRINKING] == "1" and int(after[VIEW_BYTES]) < int(before[VIEW_BYTES]):
                self.add("built smaller than counted, shrinking")
            if before[CSHRINKING] == "1" and int(after[CVIEW_BYTES]) < int(before[CVIEW_BYTES]):
                self.add("built smaller than counted, compaction view shrinking")
            if l == 0 and i < int(after[T_COLUMN]) - 1:
                self.add("message built after a later message")
        else:
            if l == 0 and self.jobs <= 3:
                self.add(f"failed message, {self.jobs} job" + ("s" if self.jobs > 1 else ""))
            if item not in {entry.split(":")[0] for entry in after[FAILURES].split(" ")}:
                self.add("failure cap reached")
                if l == 0 and any(_merged_of_index(part, i) for part in before[VIEW].split(" ")):
                    self.add("failure cap of a message, a merged line of its index in the view")

    def _message(self, text: str, before: list[str], after: list[str]) -> None:
        if before[RUNNING] == "-":
            self.quiet_messages = 0
        else:
            self.quiet_messages += 1
            if self.quiet_messages == 10:
                self.add("outage of 10 messages")
        if before[SHRINKING] == "1" and after[MERGES] == "-" and after[SHRINKING] == "0":
            self.add("shrinking ended with no merge")
        if before[CSHRINKING] == "1" and after[MERGES] == after[CMERGES] == "-" and after[CSHRINKING] == "0":
            self.add("compaction view shrinking ended with no merge")
        for path, pattern in _CHARACTER_CLASSES:
            if pattern.search(text):
                self.add(path)

    def report(self) -> str:
        width = max(len(path) for path in PATHS)
        return "\n".join(f"  {path:<{width}}  {self.counts[path]}" for path in PATHS)


@dataclass
class Mismatch:
    k: int
    before: list[str]
    model_lines: list[str]
    harness_lines: list[str]
    line_index: int


@dataclass
class Result:
    name: str
    seed: int
    scale: str
    events: int
    T_max: int
    seconds: float
    mismatch: Mismatch | None
    paths: dict
    model_seconds: float = 0.0  # CPU seconds of each side's steps and trace printing
    harness_seconds: float = 0.0
    planner_seconds: float = 0.0  # of which the production planner's own (checkpoints and loads too)


def _guarded(side, *arguments) -> list[str]:
    try:
        return side(*arguments)
    except Exception as error:  # a crash on one side is a difference, reported like one
        return [f"error\t{type(error).__name__}: {error}"]


class Sides:
    """Both planners, fed the same events."""

    def __init__(self, config) -> None:
        self.state = mp.State(mp.Config(*config))
        self.planner = Planner(Config(*config))
        # view.json as the memory service keeps it: a checkpoint, then what the logs replay
        self.saved = self.planner.checkpoint()
        self.replays: Counter = Counter()
        self.model_failed = False
        self.harness_failed = False
        self.planner_seconds = 0.0  # CPU seconds in the production planner itself, not its trace

    def probe(self):
        return self.state.running, self.state.waiting, self.state.T

    def model_step(self, k: int, event) -> list[str]:
        model_ev = event_for(mp, event)
        self.state = mp.step(self.state, model_ev)
        return model_trace.trace_records(k, model_ev, self.state)

    def harness_step(self, k: int, event) -> list[str]:
        harness_ev = event_for(he, event)
        clock = time.process_time()
        if isinstance(harness_ev, he.Restart):
            # a new process: the last checkpoint and the logs are all it has [F1]
            # [P10]; the texts outlive the process, as the files do
            texts = self.planner.texts
            tail = texts.nodes_after(self.saved["last_node"])
            if texts.message_count() > self.saved["T"]:
                self.replays["restart replayed messages past its checkpoint"] += 1
            if tail:
                self.replays["restart replayed nodes past its checkpoint"] += 1
            if any(T == texts.message_count() for _, _, _, T in tail):
                self.replays["restart replayed a node built after the last message"] += 1
            self.planner = Planner.load(self.saved, texts)
            self._checkpoint()
        else:
            self.planner.apply(harness_ev)
            if self.planner.save_due():
                self._checkpoint()
        self.planner_seconds += time.process_time() - clock
        return ht.records(k, harness_ev, self.planner)

    def _checkpoint(self) -> None:
        # view.json's text round trip, as the service writes and reads it
        self.saved = json.loads(json.dumps(self.planner.checkpoint()))


def first_difference(k: int, before: deque, model_lines: list[str], harness_lines: list[str]) -> Mismatch:
    """Event k's records differ: where, and the lines printed before that place."""
    index = 0
    while index < min(len(model_lines), len(harness_lines)) and model_lines[index] == harness_lines[index]:
        index += 1
    return Mismatch(k, list(before) + model_lines[:index], model_lines, harness_lines, index)


def execute(run: Run, limit: int | None = None, sinks: tuple[TextIO, TextIO, TextIO] | None = None) -> Result:
    """Run both sides on the run's events; stop at the first difference, or after `limit`
    events. With sinks (scenario, model trace, harness trace), write everything."""
    started = time.monotonic()
    before: deque = deque(maxlen=CONTEXT_LINES)
    T_max = 0
    k = -1
    sides = Sides(run.config) if run.kind == "planner" else None
    paths = Paths()
    paths.start(run.config)
    probe = sides.probe if sides else (lambda: ((), False, 0))
    if sinks:
        sinks[0].write(f"scenario {run.name} {run.seed} {run.scale}\n")
        sinks[0].write("config " + " ".join(str(n) for n in run.config) + "\n")
    mismatch = None
    model_seconds = harness_seconds = 0.0
    for k, event in enumerate(run.events(probe)):
        if limit is not None and k >= limit:
            k -= 1
            break
        if sides:
            clock = time.process_time()
            model_lines = _guarded(sides.model_step, k, event)
            middle = time.process_time()
            harness_lines = _guarded(sides.harness_step, k, event)
            done = time.process_time()
            model_seconds += middle - clock
            harness_seconds += done - middle
            T_max = max(T_max, sides.state.T)
        else:
            model_lines = _guarded(line_records, k, event, ml)
            harness_lines = _guarded(line_records, k, event, hl)
        paths.observe(event, model_lines)
        if sinks:
            sinks[0].write(format_event(event) + "\n")
            sinks[1].write("\n".join(model_lines) + "\n")
            sinks[2].write("\n".join(harness_lines) + "\n")
        if model_lines != harness_lines and mismatch is None:
            mismatch = first_difference(k, before, model_lines, harness_lines)
            if limit is None:
                break
        before.extend(model_lines)
    else:
        if sides:
            model_lines = _guarded(model_trace.end_records, k + 1, sides.state)
            harness_lines = _guarded(ht.final_records, k + 1, sides.planner)
            if sinks:
                sinks[1].write("\n".join(model_lines) + "\n")
                sinks[2].write("\n".join(harness_lines) + "\n")
            if model_lines != harness_lines and mismatch is None:
                mismatch = first_difference(k + 1, before, model_lines, harness_lines)
    if sides:
        for path, count in sides.replays.items():
            paths.counts[path] += count
    return Result(run.name, run.seed, run.scale, k + 1, T_max, time.monotonic() - started, mismatch, paths.counts,
                  model_seconds, harness_seconds, sides.planner_seconds if sides else 0.0)


def _execute_named(arguments: tuple[str, int, str]) -> Result:
    name, seed, scale = arguments
    return execute(runs(scale, name, seed)[0])


def _clip(line: str) -> str:
    return line if len(line) <= 400 else line[:400] + f"… ({len(line)} chars)"


def report(result: Result, out_dir: str) -> None:
    m = result.mismatch
    assert m is not None
    print(f"DIFFERENCE in scenario {result.name}, seed {result.seed}, scale {result.scale}, at event {m.k}")
    for line in m.before[-CONTEXT_LINES:]:
        print(f"    {_clip(line)}")
    print(f"  model:   {_clip(m.model_lines[m.line_index]) if m.line_index < len(m.model_lines) else '(no line)'}")
    print(f"  harness: {_clip(m.harness_lines[m.line_index]) if m.line_index < len(m.harness_lines) else '(no line)'}")
    for label, lines in (("model", m.model_lines), ("harness", m.harness_lines)):
        for line in lines[m.line_index + 1 : m.line_index + 1 + CONTEXT_LINES]:
            print(f"  {label} then: {_clip(line)}")
    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.join(out_dir, f"{result.name}-{result.seed}-{result.scale}")
    run = runs(result.scale, result.name, result.seed)[0]
    with open(stem + ".scenario", "w", encoding="utf-8") as scenario, open(
        stem + ".model.trace", "w", encoding="utf-8"
    ) as model_file, open(stem + ".harness.memory.trace", "w", encoding="utf-8") as harness_file:
        execute(run, limit=m.k + 1 + CONTEXT_LINES, sinks=(scenario, model_file, harness_file))
    print(f"  traces: {stem}.model.trace {stem}.harness.memory.trace (events: {stem}.scenario)")
    scale = "" if result.scale == "full" else f" --scale {result.scale}"
    print(f"  replay: python -m bridge --scenario {result.name} --seed {result.seed}{scale}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bridge", description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=("tiny", "full"), default="full")
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), help="only this scenario")
    parser.add_argument("--seed", type=int, help="only this seed")
    parser.add_argument("--out", help="write scenarios and traces here (on a difference: a temp dir)")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--paths", action="store_true", help="print how often the runs reached each path")
    arguments = parser.parse_args(argv)
    chosen = runs(arguments.scale, arguments.scenario, arguments.seed)
    chosen.sort(key=lambda run: -run.cost)  # longest first, so the two processes end together
    started = time.monotonic()
    results: list[Result] = []
    if arguments.out:
        os.makedirs(arguments.out, exist_ok=True)
        for run in chosen:
            stem = os.path.join(arguments.out, f"{run.name}-{run.seed}-{run.scale}")
            with open(stem + ".scenario", "w", encoding="utf-8") as scenario, open(
                stem + ".model.trace", "w", encoding="utf-8"
            ) as model_file, open(stem + ".harness.memory.trace", "w", encoding="utf-8") as harness_file:
                results.append(execute(run, sinks=(scenario, model_file, harness_file)))
    elif arguments.jobs > 1 and len(chosen) > 1:
        with ProcessPoolExecutor(max_workers=arguments.jobs) as pool:
            keys = [(run.name, run.seed, run.scale) for run in chosen]
            results = list(pool.map(_execute_named, keys))
    else:
        results = [execute(run) for run in chosen]
    failed = [result for result in results if result.mismatch is not None]
    # traces are written for a difference only: an agreeing run leaves nothing behind
    out_dir = arguments.out or (tempfile.mkdtemp(prefix="ever-bridge-") if failed else "")
    for result in failed:
        report(result, out_dir)
    events = sum(result.events for result in results)
    T_max = max((result.T_max for result in results), default=0)
    seconds = time.monotonic() - started
    # CPU seconds, which another process's load changes far less than the wall's: the whole run
    # (the workers' and this process's) and each side's share
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_seconds = own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime
    model_seconds = sum(result.model_seconds for result in results)
    harness_seconds = sum(result.harness_seconds for result in results)
    planner_seconds = sum(result.planner_seconds for result in results)
    verdict = "agree" if not failed else f"DIFFER in {len(failed)} runs"
    if arguments.paths:
        total = Paths()
        for result in results:
            for path, count in result.paths.items():
                total.counts[path] += count
        print("paths reached (counted from the model's records):")
        print(total.report())
    # the wall time of two processes is at least the longest run's: name the longest
    slowest = sorted(results, key=lambda result: -result.seconds)[:3]
    if len(results) > 1:
        print("longest runs: " + ", ".join(f"{result.name}/{result.seed} {result.seconds:.1f}s (CPU: the model's side "
                                           f"{result.model_seconds:.1f}s, the production planner's "
                                           f"{result.harness_seconds:.1f}s)" for result in slowest))
    print(
        f"bridge {arguments.scale}: {len(results)} runs, {events} events compared, "
        f"largest T {T_max}, {seconds:.1f}s (CPU {cpu_seconds:.1f}s; the model's side {model_seconds:.1f}s, "
        f"the production planner's {harness_seconds:.1f}s, {model_seconds / harness_seconds if harness_seconds else 0:.1f}x; "
        f"the production planner itself {planner_seconds:.1f}s, its trace the rest): {verdict}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
