"""`python -m mutants`: apply each planted bug to a copy of the tree, run its check, and fail unless
the check fails.

Strategy: the working tree is never touched. Each mutant gets a fresh copy of the files git knows
(tracked and untracked, not ignored) in a temporary folder; its replacement must match exactly once,
so a mutant that no longer applies is an error, not a pass. The check runs there with the same
Python, and the mutant counts as caught only if the check exits non-zero.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mutants.base import Mutant

ROOT = Path(__file__).resolve().parent.parent


def all_mutants() -> list[Mutant]:
    found: list[Mutant] = []
    for module in ("mutants.law_mutants", "mutants.bridge_mutants"):
        try:
            loaded = __import__(module, fromlist=["MUTANTS"])
        except ModuleNotFoundError as error:
            if error.name != module:
                raise
            continue
        found.extend(loaded.MUTANTS)
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


def run_one(mutant: Mutant, timeout_seconds: int) -> tuple[bool, str, float]:
    with tempfile.TemporaryDirectory(prefix="ever-mutant-") as folder:
        copy = Path(folder)
        copy_tree(copy)
        path = copy / mutant.path
        text = path.read_text()
        count = text.count(mutant.old)
        if count != 1:
            raise SystemExit(f"mutant {mutant.name}: its text occurs {count} times in {mutant.path}, not once")
        path.write_text(text.replace(mutant.old, mutant.new))
        argv = [sys.executable if part == "python" else part for part in mutant.check]
        environment = dict(os.environ, PYTHONPATH=str(copy), PYTHONDONTWRITEBYTECODE="1")
        started = time.monotonic()
        try:
            result = subprocess.run(argv, cwd=copy, env=environment, capture_output=True,
                                    text=True, timeout=timeout_seconds)
            caught = result.returncode != 0
            tail = (result.stdout + result.stderr).strip().splitlines()[-1:] or [""]
            detail = tail[0][:160]
        except subprocess.TimeoutExpired:
            caught, detail = False, f"check timed out after {timeout_seconds} s"
        return caught, detail, time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m mutants", description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[], help="run only this mutant (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the mutants and their checks")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per check")
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
    missed = []
    started = time.monotonic()
    for m in mutants:
        caught, detail, seconds = run_one(m, arguments.timeout)
        verdict = "caught" if caught else "MISSED"
        print(f"{m.name:<32} {verdict:<7} {seconds:7.1f}s  by: {' '.join(m.check)}  | {detail}", flush=True)
        if not caught:
            missed.append(m.name)
    total = time.monotonic() - started
    print(f"mutants: {len(mutants) - len(missed)} of {len(mutants)} caught in {total:.1f}s"
          + (f"; missed: {', '.join(missed)}" if missed else ""))
    return 1 if missed or not mutants else 0


if __name__ == "__main__":
    sys.exit(main())
