"""`python -m bridge.branches`: which branches of the production planner each tiny run reaches.

Each tiny run (bridge/scenarios.py, the runs `make test` and `make test-slow` make) is executed
under coverage.py with branch measurement, on harness/memory/planner.py and checkpoint.py; a
branch is an arc out of a line with two exits or more (coverage.py's own parse of the source). It
prints, for each file, how many branch arcs there are and how many the runs reach three times or
more, then every arc reached by fewer than three runs, with the runs that reach it: where a planner
bug is seen by one run, or none (docs/trust.md, "What make test's tiny runs reach").
"""

import collections
import sys
from pathlib import Path

import coverage
from coverage.python import PythonParser

from bridge.__main__ import execute
from bridge.scenarios import runs

FILES = ("harness/memory/planner.py", "harness/memory/checkpoint.py")
ROOT = Path(__file__).resolve().parent.parent
FEW = 3


def arcs_by_run() -> dict[str, dict[str, set]]:
    found = {}
    for run in runs("tiny"):
        measured = coverage.Coverage(branch=True, data_file=None, include=[str(ROOT / name) for name in FILES])
        measured.start()
        try:
            execute(run)
        finally:
            measured.stop()
        data = measured.get_data()
        found[f"{run.name}/{run.seed}"] = {
            name: set(data.arcs(str(ROOT / name)) or ()) for name in FILES}
        print(f"ran {run.name}/{run.seed}", file=sys.stderr, flush=True)
    return found


def branch_arcs(name: str) -> list[tuple[int, int]]:
    parser = PythonParser(filename=str(ROOT / name))
    parser.parse_source()
    lines = {line for line, exits in parser.exit_counts().items() if exits > 1}
    return sorted(arc for arc in parser.arcs() if arc[0] in lines)


def main() -> int:
    found = arcs_by_run()
    for name in FILES:
        source = (ROOT / name).read_text().splitlines()
        reached = collections.Counter(arc for arcs in found.values() for arc in arcs[name])
        arcs = branch_arcs(name)
        few = [arc for arc in arcs if reached[arc] < FEW]
        print(f"{name}: {len(arcs)} branch arcs, {len(arcs) - len(few)} reached by {FEW} runs or more, "
              f"{len(few)} by fewer ({sum(1 for arc in few if reached[arc] == 0)} by none), in {len(found)} tiny runs")
        for start, end in few:
            names = [run for run, arcs_of in found.items() if (start, end) in arcs_of[name]]
            print(f"  {reached[(start, end)]} runs: line {start} -> {end if end > 0 else 'exit'}  "
                  f"{source[start - 1].strip()[:72]}" + (f"  ({', '.join(names)})" if names else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
