"""`python -m bridge`: the production planner against the model on seeded scenarios.

Each run sends one event list to model/ (`step`) and to harness/'s `Planner`, prints a trace of
each side after every event with its own printer (bridge/model_trace.py, harness/trace.py; the
format is bridge/FORMAT.md), and compares them byte for byte. A restart is done by the production
side as a new process would: save, then load into a fresh Planner [fix F1].
"""

import argparse
import json
import os
import sys
import tempfile
import time
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import List, Optional, TextIO, Tuple

from bridge import model_trace
from bridge.scenarios import SCENARIOS, Run, format_event, runs
from harness import events as he
from harness import line as hl
from harness import trace as ht
from harness.planner import Config, Planner
from model import line as ml
from model import planner as mp

CONTEXT_LINES = 3


# A scenario event's head names the same class in model/planner.py and harness/events.py.
EVENT_CLASSES = {
    "message": "Message", "built": "Built", "failed": "Failed", "retry": "Retry",
    "wait": "Wait", "turn_end": "TurnEnd", "restart": "Restart",
}


def event_for(module, event):
    """The scenario event as `module`'s event object (module: model.planner or harness.events)."""
    if event[0] not in EVENT_CLASSES:
        raise ValueError(event)
    return getattr(module, EVENT_CLASSES[event[0]])(*event[1:])


LINE_BYTES_MAX = 512


def line_records(k: int, event, side) -> List[str]:
    """FORMAT.md's `l`, `m` and `p` records; both sides print them the same way from plain
    values. `side` is model.line or harness.line."""
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


@dataclass
class Mismatch:
    k: int
    before: List[str]
    model_lines: List[str]
    harness_lines: List[str]
    line_index: int


@dataclass
class Result:
    name: str
    seed: int
    scale: str
    events: int
    T_max: int
    seconds: float
    mismatch: Optional[Mismatch]


def _guarded(side, *arguments) -> List[str]:
    try:
        return side(*arguments)
    except Exception as error:  # a crash on one side is a difference, reported like one
        return [f"error\t{type(error).__name__}: {error}"]


class Sides:
    """Both planners, fed the same events."""

    def __init__(self, config) -> None:
        self.state = mp.State(mp.Config(*config))
        self.planner = Planner(Config(*config))
        self.model_failed = False
        self.harness_failed = False

    def probe(self):
        return self.state.running, self.state.waiting, self.state.T

    def model_step(self, k: int, event) -> List[str]:
        model_ev = event_for(mp, event)
        self.state = mp.step(self.state, model_ev)
        return model_trace.trace_records(k, model_ev, self.state)

    def harness_step(self, k: int, event) -> List[str]:
        harness_ev = event_for(he, event)
        if isinstance(harness_ev, he.Restart):
            # a new process: what was saved is all it has [fix F1] [decision P10]
            # view.json's text round trip; the texts outlive the process, as the files do
            saved = json.loads(json.dumps(self.planner.save()))
            self.planner = Planner.load(saved, self.planner.texts)
        else:
            self.planner.apply(harness_ev)
        return ht.records(k, harness_ev, self.planner)


def first_difference(k: int, before: deque, model_lines: List[str], harness_lines: List[str]) -> Mismatch:
    """Event k's records differ: where, and the lines printed before that place."""
    index = 0
    while index < min(len(model_lines), len(harness_lines)) and model_lines[index] == harness_lines[index]:
        index += 1
    return Mismatch(k, list(before) + model_lines[:index], model_lines, harness_lines, index)


def execute(run: Run, limit: Optional[int] = None, sinks: Optional[Tuple[TextIO, TextIO, TextIO]] = None) -> Result:
    """Run both sides on the run's events; stop at the first difference, or after `limit`
    events. With sinks (scenario, model trace, harness trace), write everything."""
    started = time.monotonic()
    before: deque = deque(maxlen=CONTEXT_LINES)
    T_max = 0
    k = -1
    sides = Sides(run.config) if run.kind == "planner" else None
    probe = sides.probe if sides else (lambda: ((), False, 0))
    if sinks:
        sinks[0].write(f"scenario {run.name} {run.seed} {run.scale}\n")
        sinks[0].write("config " + " ".join(str(n) for n in run.config) + "\n")
    mismatch = None
    for k, event in enumerate(run.events(probe)):
        if limit is not None and k >= limit:
            k -= 1
            break
        if sides:
            model_lines = _guarded(sides.model_step, k, event)
            harness_lines = _guarded(sides.harness_step, k, event)
            T_max = max(T_max, sides.state.T)
        else:
            model_lines = _guarded(line_records, k, event, ml)
            harness_lines = _guarded(line_records, k, event, hl)
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
    return Result(run.name, run.seed, run.scale, k + 1, T_max, time.monotonic() - started, mismatch)


def _execute_named(arguments: Tuple[str, int, str]) -> Result:
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
    ) as model_file, open(stem + ".harness.trace", "w", encoding="utf-8") as harness_file:
        execute(run, limit=m.k + 1 + CONTEXT_LINES, sinks=(scenario, model_file, harness_file))
    print(f"  traces: {stem}.model.trace {stem}.harness.trace (events: {stem}.scenario)")
    scale = "" if result.scale == "full" else f" --scale {result.scale}"
    print(f"  replay: python -m bridge --scenario {result.name} --seed {result.seed}{scale}")


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bridge", description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=("tiny", "full"), default="full")
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), help="only this scenario")
    parser.add_argument("--seed", type=int, help="only this seed")
    parser.add_argument("--out", help="write scenarios and traces here (on a difference: a temp dir)")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    arguments = parser.parse_args(argv)
    chosen = runs(arguments.scale, arguments.scenario, arguments.seed)
    chosen.sort(key=lambda run: -run.size)  # longest first, so the two processes end together
    started = time.monotonic()
    results: List[Result] = []
    if arguments.out:
        os.makedirs(arguments.out, exist_ok=True)
        for run in chosen:
            stem = os.path.join(arguments.out, f"{run.name}-{run.seed}-{run.scale}")
            with open(stem + ".scenario", "w", encoding="utf-8") as scenario, open(
                stem + ".model.trace", "w", encoding="utf-8"
            ) as model_file, open(stem + ".harness.trace", "w", encoding="utf-8") as harness_file:
                results.append(execute(run, sinks=(scenario, model_file, harness_file)))
    elif arguments.jobs > 1 and len(chosen) > 1:
        with ProcessPoolExecutor(max_workers=arguments.jobs) as pool:
            keys = [(run.name, run.seed, run.scale) for run in chosen]
            results = list(pool.map(_execute_named, keys))
    else:
        results = [execute(run) for run in chosen]
    out_dir = arguments.out or tempfile.mkdtemp(prefix="ever-bridge-")
    failed = [result for result in results if result.mismatch is not None]
    for result in failed:
        report(result, out_dir)
    events = sum(result.events for result in results)
    T_max = max((result.T_max for result in results), default=0)
    seconds = time.monotonic() - started
    verdict = "agree" if not failed else f"DIFFER in {len(failed)} runs"
    print(
        f"bridge {arguments.scale}: {len(results)} runs, {events} events compared, "
        f"largest T {T_max}, {seconds:.1f}s: {verdict}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
