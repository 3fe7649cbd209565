"""`python -m mutants`: plant each bug in a copy of the tree, run the check that must catch it,
and fail unless every check failed for its own reason.

Strategy: the working tree is never touched. Each mutant gets a fresh copy of the files git knows
(tracked and untracked, not ignored) in a temporary folder; its replacement must match exactly
once, so a mutant that no longer applies is an error, not a pass. The check runs there with the
same Python. A mutant counts as caught only when mutants/judge.py says its check failed for its
own reason: the named law printed FAIL (not a crash, not an import or syntax error, not a
misspelled name), the named test failed by an assertion, the bridge found a trace difference
that is not a crash, the simulation failed a seed on the named invariant; and the subset lint passed, unless the mutant is one the lint must catch.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from mutants import (
    backup_mutants,
    bridge_mutants,
    chat_mutants,
    claims_mutants,
    guard_mutants,
    import_browse_mutants,
    law_mutants,
    lives_mutants,
    models_mutants,
    provider_mutants,
    recall_mutants,
    sim_mutants,
    view_mutants,
    week_mutants,
)
from mutants.base import Mutant
from mutants.judge import HOW, how_caught, judge, kind_of, malformed

ROOT = Path(__file__).resolve().parent.parent
MODULES = (law_mutants, bridge_mutants, chat_mutants, import_browse_mutants, recall_mutants, claims_mutants,
           guard_mutants, week_mutants, provider_mutants,
           backup_mutants, view_mutants, sim_mutants, lives_mutants, models_mutants)  # every module of mutants, by name: a missing one is an error
LINT_CHECK = ("python", "-c", "import sys; from laws.subset import all_violations; sys.exit(1 if all_violations() else 0)")


def all_mutants() -> list[Mutant]:
    found = [mutant for module in MODULES for mutant in module.MUTANTS]
    names = [mutant.name for mutant in found]
    assert len(names) == len(set(names)), "a mutant name is used twice"
    return found


def tree_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, check=True, capture_output=True,
    ).stdout.decode().split("\0")
    return [name for name in listed if name and (ROOT / name).is_file()]


def copy_tree(destination: Path) -> None:
    for name in tree_files():
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)


def argv_of(check: tuple[str, ...]) -> list[str]:
    return [sys.executable if part == "python" else part for part in check]


def run_whole(argv, cwd, environment, timeout_seconds: int) -> subprocess.CompletedProcess:
    """The check in a session of its own, and at its timeout every process of it killed: a
    simulation's workers outliving a check that timed out held their seeds' scratch folders, and
    every later run of those seeds waited for them."""
    process = subprocess.Popen(argv, cwd=cwd, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout_seconds)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    return subprocess.CompletedProcess(argv, process.returncode, out, err)


def run_one(mutant: Mutant, timeout_seconds: int, known_laws: Iterable[str]) -> tuple[bool, str, float]:
    """(caught, why, seconds) for one mutant; a catch's `why` opens with how it was caught
    (mutants/judge.py HOW) in brackets."""
    problem = malformed(mutant, known_laws)
    if problem:
        return False, f"not run: {problem}", 0.0
    with tempfile.TemporaryDirectory(prefix="ever-mutant-") as folder:
        copy = Path(folder)
        copy_tree(copy)
        path = copy / mutant.path
        text = path.read_text()
        count = text.count(mutant.old)
        if count != 1:
            # an error, not a pass, and the other mutants still run
            return False, f"not run: its text occurs {count} times in {mutant.path}, not once", 0.0
        path.write_text(text.replace(mutant.old, mutant.new))
        report = copy / ".mutant-report"
        environment = dict(os.environ, PYTHONPATH=str(copy), PYTHONDONTWRITEBYTECODE="1",
                           EVER_MUTANT_REPORT=str(report))
        argv = argv_of(mutant.check)
        if kind_of(mutant) == "pytest":
            argv = argv + ["-p", "mutants.pytest_plugin"]
        started = time.monotonic()
        try:
            if kind_of(mutant) != "laws" and not mutant.lint:
                lint = subprocess.run(argv_of(LINT_CHECK), cwd=copy, env=environment, capture_output=True,
                                      text=True, timeout=timeout_seconds)
                if lint.returncode != 0:
                    return False, "the subset lint failed: not a lint mutant", time.monotonic() - started
            result = run_whole(argv, copy, environment, timeout_seconds)
        except subprocess.TimeoutExpired:
            return False, f"check timed out after {timeout_seconds} s", time.monotonic() - started
        written = report.read_text() if report.exists() else ""
        caught, why = judge(mutant, result.returncode, result.stdout + result.stderr, written)
        if caught:
            why = f"[{how_caught(mutant, result.stdout + result.stderr)}] {why}"
        return caught, why, time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m mutants", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", default=[], help="run only this mutant (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the mutants and their checks")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per check")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="checks run at once, each in its own copy of the tree (default: the cores)")
    arguments = parser.parse_args()
    mutants = all_mutants()
    if arguments.only:
        unknown = set(arguments.only) - {m.name for m in mutants}
        if unknown:
            parser.error(f"no such mutant: {', '.join(sorted(unknown))}")
        mutants = [m for m in mutants if m.name in arguments.only]
    if arguments.list:
        for m in mutants:
            print(f"{m.name}\t{m.path}\t{' '.join(m.check)}\t{m.note}")
        return 0
    from laws.registry import laws  # the unmutated tree's laws: the names a check may use

    known_laws = [law.name for law in laws()]
    missed = []
    ways = {how: [] for how in HOW}
    started = time.monotonic()
    # Each check runs in a copy of its own, so they share nothing but the cores; the lines come
    # in the mutants' order, each as soon as it and the ones before it are done.
    with ThreadPoolExecutor(max_workers=max(1, arguments.jobs)) as pool:
        outcomes = [pool.submit(run_one, m, arguments.timeout, known_laws) for m in mutants]
        for m, outcome in zip(mutants, outcomes):
            caught, why, seconds = outcome.result()
            verdict = "caught" if caught else "MISSED"
            print(f"{m.name:<32} {verdict:<7} {seconds:7.1f}s  by: {' '.join(m.check)}  | {why}", flush=True)
            if not caught:
                missed.append(m.name)
            else:
                ways[why[1:why.index("]")]].append(m.name)
    total = time.monotonic() - started
    print(f"mutants: {len(mutants) - len(missed)} of {len(mutants)} caught in {total:.1f}s"
          + (f"; missed: {', '.join(missed)}" if missed else ""))
    print("caught by: " + ", ".join(f"{len(names)} {how}" for how, names in ways.items() if names)
          + (f" (Z3's unknown, not a counterexample: {', '.join(ways['unknown'])})" if ways["unknown"] else ""))
    return 1 if missed or not mutants else 0


if __name__ == "__main__":
    sys.exit(main())
