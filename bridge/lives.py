"""`python -m bridge.lives DIR`: the production planner of each owner life the simulation wrote
(`python -m sim --traces DIR`, sim/planner_trace.py) against the model on the same events.

Strategy: a life file (bridge/FORMAT.md, "Life files") holds the planner's state once the owner's
process loaded it, then every event its `apply` took; the production trace beside it is what the
planner printed after each, in the simulation. Here the model's state is built from that start
(`start_state`: the views' lines from the built nodes' texts and the unbuilt lines' sources, each
built node's parent readied as the model's own `ready_parent` does, nothing running, no turn
waiting), takes the `restart` event
first (the model's `Restart`: its calls start, as the load started the production planner's),
then each event in turn, printed by bridge/model_trace.py; the two traces compare byte for byte.
Why from the load and not from the chat's first event: sim/planner_trace.py's docstring.

    python -m bridge.lives DIR                 # every life in DIR
    python -m bridge.lives --seed 17           # the simulation's seed 17 run again, its lives compared

A difference prints the seed, the life, the event, the first differing line and the command that
replays it; the run fails on any, and when it compared no life or no event.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from bridge import model_trace
from bridge.__main__ import CONTEXT_LINES, _clip, _guarded, event_for, first_difference
from bridge.scenarios import parse_event
from model import planner as mp
from model.tree import Tree, tree_get, tree_put
from model.view import built_line, waiting_line


@dataclass
class Life:
    seed: int
    name: str  # `N.M`: the owner's Nth life, its Mth load of the planner
    config: tuple
    start: dict
    events: list  # FORMAT.md scenario events, `restart` first
    cut: str  # why the simulation's record ended before the life did, or ""
    after_cut: int = 0  # the events the production planner took after that


@dataclass
class Compared:
    life: Life
    events: int
    difference: str  # the report, or "" when the traces agree


def read_life(path: str) -> Life:
    with open(path, encoding="utf-8") as source:
        lines = source.read().split("\n")
    head = lines[0].split(" ", 3)
    assert head[0] == "life"
    cut, after_cut = "", 0
    if len(head) > 3:
        cut, end = json.JSONDecoder().raw_decode(head[3], len("cut "))
        after_cut = int(head[3][end:])
    config_head, *numbers = lines[1].split(" ")
    assert config_head == "config"
    start_head, _, start = lines[2].partition(" ")
    assert start_head == "start"
    events = [parse_event(line) for line in lines[3:] if line]
    return Life(int(head[1]), head[2], tuple(int(n) for n in numbers), json.loads(start), events, cut, after_cut)


def start_state(config: tuple, start: dict) -> mp.State:
    """The model's state holding what the loaded planner holds: every built node in the tree,
    each view's lines (a built line shows its node's text, an unbuilt one its message's source),
    both shrinking flags, the failure counts; then each built node's parent as the model readies
    it (`ready_parent`): built at once when free [gist §2], else a ready merge, by last message
    [P5]. So a load that left a free parent unbuilt, or a ready merge out, differs at event 0."""
    tree = Tree()
    for l, i, text in start["nodes"]:
        tree = tree_put(tree, l, i, text)
    sources = {i: source for i, source in start["sources"]}

    def line(l: int, i: int):
        text = tree_get(tree, l, i)
        return built_line(l, i, text) if text is not None else waiting_line(i, sources[i])

    state = mp.State(
        config=mp.Config(*config),
        T=start["T"],
        view=tuple(line(l, i) for l, i in start["view"]),
        shrinking=start["shrinking"],
        cview=tuple(line(l, i) for l, i in start["cview"]),
        cshrinking=start["cshrinking"],
        tree=tree,
        failures=tuple(((l, i), count) for l, i, count in start["failures"]),
    )
    for l, i, _ in sorted(start["nodes"]):
        if i % 2 == 0 and tree_get(state.tree, l + 1, i >> 1) is None:
            state = mp.ready_parent(state, l, i)
    return state


def compare(life: Life, production: list[str]) -> Compared:
    """The model's trace of the life against the production planner's, event by event."""
    state = start_state(life.config, life.start)
    chunks = records_by_event(production)
    before: deque = deque(maxlen=CONTEXT_LINES)

    def step(k: int, event) -> list[str]:
        nonlocal state
        model_event = event_for(mp, event)
        state = mp.step(state, model_event)
        return model_trace.trace_records(k, model_event, state)

    sides = [(k, lambda k=k, event=event: _guarded(step, k, event)) for k, event in enumerate(life.events)]
    if not life.cut:  # a record cut short ends with its last whole event: no `z` record
        sides.append((len(life.events), lambda: _guarded(model_trace.end_records, len(life.events), state)))
    for k, model_side in sides:
        model_lines = model_side()
        harness_lines = chunks[k] if k < len(chunks) else []
        if harness_lines != model_lines:
            return Compared(life, k, report(life, k, first_difference(k, before, model_lines, harness_lines)))
        before.extend(model_lines)
    if life.after_cut:
        return Compared(life, len(life.events), went_on(life))
    if len(chunks) > len(sides):
        return Compared(life, len(sides), report(life, len(sides), first_difference(
            len(sides), before, [], chunks[len(sides)])))
    return Compared(life, len(life.events), "")


def records_by_event(trace: list[str]) -> list[list[str]]:
    """The trace cut into each event's records: each starts at an `e` (or the last, `z`) record;
    no line of a rendered view starts so (FORMAT.md: `<chat>`, `id+n|…`, `</chat>`)."""
    chunks: list[list[str]] = []
    for line in trace:
        if line.startswith(("e\t", "z\t")) or not chunks:
            chunks.append([])
        chunks[-1].append(line)
    return chunks


def went_on(life: Life) -> str:
    """A life the chat went on with after an exception inside `apply` left its planner half an
    event on: no list of events gives that state, so no model can follow it."""
    return "\n".join([
        f"DIFFERENCE in the simulation's seed {life.seed}, owner life {life.name}, at event {len(life.events)}",
        f"  harness: {life.cut}, and the planner took {life.after_cut} more events after it",
        "  model:   (a planner half an event on follows no list of events)",
        f"  replay: {command(life.seed, life.name)}",
    ])


def command(seed: int, life: str = "") -> str:
    return f"python -m bridge.lives --seed {seed}" + (f" --life {life}" if life else "")


def report(life: Life, k: int, mismatch) -> str:
    m = mismatch
    lines = [f"DIFFERENCE in the simulation's seed {life.seed}, owner life {life.name}, at event {k}"]
    lines += [f"    {_clip(line)}" for line in m.before[-CONTEXT_LINES:]]
    for side, side_lines in (("model:  ", m.model_lines), ("harness:", m.harness_lines)):
        lines.append(f"  {side} {_clip(side_lines[m.line_index]) if m.line_index < len(side_lines) else '(no line)'}")
    lines.append(f"  replay: {command(life.seed, life.name)}")
    return "\n".join(lines)


def life_stems(directory: str, seed: int | None = None, life: str = "") -> list[str]:
    stems = []
    for name in os.listdir(directory):
        if name.endswith(".life"):
            stem = name[: -len(".life")]
            seed_text, _, life_name = stem.partition("-")
            if (seed is None or int(seed_text) == seed) and (not life or life_name == life):
                stems.append(os.path.join(directory, stem))
    return sorted(stems, key=lambda stem: [int(part) for part in os.path.basename(stem).replace("-", ".").split(".")])


def compare_stem(stem: str) -> Compared:
    with open(stem + ".harness.memory.trace", encoding="utf-8") as source:
        production = source.read().split("\n")[:-1]
    return compare(read_life(stem + ".life"), production)


def compare_directory(directory: str, seed: int | None = None, life: str = "", jobs: int = 1) -> list[Compared]:
    stems = life_stems(directory, seed, life)
    if jobs > 1 and len(stems) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            return list(pool.map(compare_stem, stems, chunksize=16))
    return [compare_stem(stem) for stem in stems]


def simulated(seed: int, directory: str) -> None:
    """The simulation's seed run again, its lives written to `directory`: as a program, since the
    bridge never imports sim/ (nor sim/ the bridge)."""
    subprocess.run([sys.executable, "-m", "sim", "--seed", str(seed), "--traces", directory], check=False,
                   stdout=subprocess.DEVNULL)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bridge.lives", description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", help="the lives `python -m sim --traces DIR` wrote")
    parser.add_argument("--seed", type=int, help="only this seed's lives (without DIR: the seed run again)")
    parser.add_argument("--life", default="", help="only this life (N.M, as a difference names it)")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    arguments = parser.parse_args(argv)
    started = time.monotonic()
    directory = arguments.directory
    if directory is None:
        if arguments.seed is None:
            parser.error("name a directory, or a seed to run again")
        directory = tempfile.mkdtemp(prefix="ever-lives-")
        simulated(arguments.seed, directory)
    compared = compare_directory(directory, arguments.seed, arguments.life, arguments.jobs)
    for result in compared:
        if result.difference:
            print(result.difference)
    differ = [result for result in compared if result.difference]
    events = sum(result.events for result in compared)
    seeds = len({result.life.seed for result in compared})
    cut = sum(1 for result in compared if result.life.cut)
    verdict = "agree" if not differ else f"DIFFER in {len(differ)} lives"
    print(f"bridge lives: {len(compared)} owner lives of {seeds} seeds ({cut} cut short by an error inside "
          f"apply), {events} events compared in {time.monotonic() - started:.1f} s: {verdict}")
    if not compared or not events:
        print("bridge lives: nothing was compared")
        return 1
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
