"""`python -m laws`: the subset lint, then every law, one line each, and a closing summary.

Each line gives the law, the label this run earned, the verdict and the seconds. A law passes only
when its check passes and the label it earned is at least the registry's (laws/core.py: of a
stronger kind, or the same label with every "at least N" count reached); a law that raises is a
CRASH. The exit status is 1 if the lint or any law fails.
"""

import argparse
import random
import resource
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from laws import confirmed
from laws.core import ENGINES, STRENGTHS, Budget, Verdict, kind, opening, shortfall, stronger
from laws.registry import (
    DEEP_LAWS,
    EUKHE_UNIVERSAL,
    TABLE_BEGIN,
    TABLE_END,
    eukhe_count,
    laws,
    markdown_table,
    ranked,
)
from laws.subset import all_violations
from laws.z3_model import reset_names

# The columns of a law's line; the mutant runner reads the verdict column (mutants/__main__.py).
VERDICTS = ("pass", "FAIL", "CRASH")


def line(name: str, label: str, verdict: str, seconds: float, detail: str) -> str:
    return f"{name:<28} {label:<58} {verdict:<5} {seconds:7.2f}s" + (f"  {detail}" if detail else "")


def shown(label: str) -> str:
    """The label as a law's line prints it: with the kind it ranks as, when that is not the kind
    it opens with (a proof with a searched link ranks as the search)."""
    if label == "none" or kind(label) == opening(label):
        return label
    return f"[ranks {kind(label)}] {label}"


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m laws", description=__doc__.split("\n\n")[0])
    parser.add_argument("--t", type=int, default=20_000, help="the bound of push_agrees (default 20,000)")
    parser.add_argument("--deep", action="store_true",
                        help="run only push_agrees, to --t, and the history laws with a replay of a chat past T = 100,000 as a cross-check")
    parser.add_argument("--only", action="append", default=[], help="run only this law (repeatable)")
    parser.add_argument("--shuffle", type=int, metavar="SEED",
                        help="run the laws in an order shuffled by SEED: a verdict must not depend on the laws before it")
    parser.add_argument("--apart", action="store_true",
                        help="run each law in a fresh process of its own (`--only NAME`): its verdict alone")
    parser.add_argument("--engine", choices=ENGINES, help="run only the laws this engine checks")
    parser.add_argument("--markdown", action="store_true", help="print docs/laws.md's laws table and stop")
    parser.add_argument("--write-table", action="store_true",
                        help="run every law and, if every one passes, write the table, with this run's seconds, into docs/laws.md")
    arguments = parser.parse_args()
    registered = laws()
    if arguments.markdown:
        print(markdown_table(registered))
        return 0
    selected = registered
    if arguments.deep:
        selected = [law for law in registered if law.name in DEEP_LAWS]
    if arguments.only:
        unknown = set(arguments.only) - {law.name for law in registered}
        if unknown:
            parser.error(f"no such law: {', '.join(sorted(unknown))}")
        selected = [law for law in registered if law.name in arguments.only]
    if arguments.engine:
        selected = [law for law in selected if law.engine == arguments.engine]
    if arguments.shuffle is not None:
        selected = random.Random(arguments.shuffle).sample(selected, len(selected))
        print(f"laws in an order shuffled by seed {arguments.shuffle}: " + " ".join(law.name for law in selected))
    if arguments.apart:
        return apart(selected, arguments.t)
    budget = Budget(t=arguments.t, deep=arguments.deep)
    started = time.monotonic()
    confirmed.start_ahead([law.name for law in selected])  # CrossHair's jobs run beside the others
    violations = all_violations()
    for violation in violations:
        print(violation)
    print(line("subset_lint", "Exact: an AST walk of model/ and harness/", "FAIL" if violations else "pass",
               time.monotonic() - started, ""), flush=True)
    failed = 1 if violations else 0
    seconds_by_law: dict[str, float] = {}
    earned: dict[str, str] = {}  # each law's label as this run earned it; "none" when it failed
    understated: list[str] = []
    for law in selected:
        began = time.monotonic()
        reset_names()  # its queries then the same whatever ran before it
        try:
            verdict = law.check(budget)
        except Exception as error:  # a crashing law is a failing law, said plainly
            verdict = Verdict(False, "none", f"crashed: {type(error).__name__}: {error}")
            outcome = "CRASH"
        else:
            outcome = "pass" if verdict.passed else "FAIL"
        seconds = time.monotonic() - began if verdict.seconds is None else verdict.seconds
        seconds_by_law[law.name] = seconds
        detail = verdict.detail
        if outcome == "pass":
            short = shortfall(law.strength, verdict.strength)
            if short:
                outcome = "FAIL"
                detail = f"below the registry: {short}" + (f"; {detail}" if detail else "")
            elif stronger(verdict.strength, law.strength):
                understated.append(f"{law.name}: earned \"{verdict.strength}\", the registry says only \"{law.strength}\"")
        failed += 0 if outcome == "pass" else 1
        earned[law.name] = verdict.strength if outcome == "pass" else "none"
        print(line(law.name, shown(verdict.strength), outcome, seconds, detail), flush=True)
    total = time.monotonic() - started
    own, jobs = cpu_seconds()
    # the CPU seconds are the run's cost whatever the load; the wall seconds grow with the work
    # that shares the cores (docs/trust.md, "make laws on a busy machine")
    print(f"laws: {len(selected) + 1 - failed} of {len(selected) + 1} passed in {total:.1f}s"
          + (f"; {failed} FAILED" if failed else "")
          + f" (CPU: {own + jobs:.1f} s, {own:.1f} s here and {jobs:.1f} s in CrossHair's jobs)")
    for text in closing_counts(selected, earned, selected == registered):
        print(text)
    for note in understated:
        print(f"note: {note}")
    if arguments.write_table:
        if failed or selected != registered:
            print("docs/laws.md not written: it takes a full run where every law passes at the registry's strength")
            return 1
        write_table(markdown_table(registered, seconds_by_law))
    return 1 if failed else 0


def apart(selected, t: int) -> int:
    """Each law in a fresh process of its own, one after another: the verdict of the law alone,
    with nothing run before it in its process. Each process prints the lint's line and the law's."""
    failed = []
    started = time.monotonic()
    for law in selected:
        found = subprocess.run([sys.executable, "-m", "laws", "--only", law.name, "--t", str(t)],
                               capture_output=True, text=True)
        lines = [row for row in found.stdout.splitlines() if row.startswith(law.name + " ")]
        print(lines[0] if lines else f"{law.name}: no line printed; {found.stderr.strip()[-300:]}", flush=True)
        if found.returncode != 0:
            failed.append(law.name)
    print(f"laws apart: {len(selected) - len(failed)} of {len(selected)} passed, each in its own process, "
          f"in {time.monotonic() - started:.1f}s" + (f"; FAILED: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


def cpu_seconds() -> tuple[float, float]:
    """(this process's CPU seconds, its finished children's: CrossHair's jobs)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def closing_counts(selected, earned: dict[str, str], full: bool) -> list[str]:
    """The run's closing counts, from the labels this run earned, never the registry's: a law
    that failed counts as failed, whatever the registry says it should earn."""
    lost = [law.name for law in selected if earned[law.name] == "none"]
    counts = {name: sum(1 for law in selected if earned[law.name] != "none" and kind(earned[law.name]) == name)
              for name in STRENGTHS}
    parts = [", ".join(f"{count} {name}" for name, count in counts.items() if count) or "none passed"]
    if lost:
        parts.append(f"{len(lost)} failed, earning nothing ({', '.join(lost)})")
    found = ["ranked by their weakest part: " + "; ".join(parts)]
    if full and set(EUKHE_UNIVERSAL) <= {law.name for law in selected}:
        passed = [replace(law, strength=earned[law.name]) for law in selected if earned[law.name] != "none"]
        missing = [name for name in EUKHE_UNIVERSAL if earned[name] == "none"]
        if missing:
            groups = ranked([name for name in EUKHE_UNIVERSAL if name not in missing], passed)
            parts = [f"{len(names)} {name}" for name, names in groups.items()]
            found.append(f"Of eukhe's {len(EUKHE_UNIVERSAL)} Universal laws, as this run earned them: "
                         + "; ".join(parts + [f"{len(missing)} failed ({', '.join(missing)})"]) + ".")
        else:
            found.append(eukhe_count(passed))
    return found


def write_table(table: str) -> None:
    page = Path(__file__).resolve().parent.parent / "docs" / "laws.md"
    text = page.read_text()
    head, rest = text.split(TABLE_BEGIN, 1)
    _, tail = rest.split(TABLE_END, 1)
    page.write_text(head + TABLE_BEGIN + "\n" + table + "\n" + TABLE_END + tail)


if __name__ == "__main__":
    sys.exit(main())
