"""Whether a check caught a mutant: it ran and failed for its own reason, not by crashing.

Strategy: any non-zero exit is not enough. A SyntaxError or an import error in the mutated tree,
a misspelled law name, a law that raises, a test that cannot be collected, or a bridge side that
crashes all exit non-zero and would each count as a catch. So each kind of check has its own
reading of "failed for its own reason":

- `python -m laws --only LAW…`: every named law is in the registry, its line is printed, and its
  verdict column says FAIL (not CRASH: a law that raised is a crash, not a catch); the subset
  lint's line says pass, unless the mutant is a lint mutant, whose catch is the lint's FAIL.
- `python -m pytest … FILE::TEST…`: pytest exits 1 and each named test failed in its call with
  an AssertionError (not in collection, not in a fixture, not with another exception), read from
  the report mutants/pytest_plugin.py writes.
- `python -m bridge …`: the bridge exits 1 and reports a DIFFERENCE whose first differing lines
  are trace records on both sides, not a side's `error` record (a crash).

Every mutant must also pass the subset lint unless it is a lint mutant: a catch that a
forbidden import made would say nothing about the law.
"""

import re
from collections.abc import Iterable

from mutants.base import Mutant

# A law's line (laws/__main__.py `line`): name, label, verdict, seconds, detail.
LAW_LINE = re.compile(r"^(\S+) +(.*?) +(pass|FAIL|CRASH) +\d+\.\d+s(?:  (.*))?$")
LINT = "subset_lint"


def kind_of(mutant: Mutant) -> str:
    head = tuple(mutant.check[:3])
    if head == ("python", "-m", "laws"):
        return "laws"
    if head == ("python", "-m", "pytest"):
        return "pytest"
    if head == ("python", "-m", "bridge"):
        return "bridge"
    if head == ("python", "-m", "sim"):
        return "sim"
    raise ValueError(f"mutant {mutant.name}: no judge for the check {' '.join(mutant.check)}")


def named_laws(mutant: Mutant) -> list[str]:
    check = list(mutant.check)
    return [check[k + 1] for k in range(len(check) - 1) if check[k] == "--only"]


def named_tests(mutant: Mutant) -> list[str]:
    return [part for part in mutant.check if "::" in part]


def malformed(mutant: Mutant, known_laws: Iterable[str]) -> str | None:
    """Why the mutant cannot be judged at all, before anything runs; None when it can."""
    if mutant.old == mutant.new:
        return "its replacement changes nothing"
    kind = kind_of(mutant)
    if kind == "laws":
        names = named_laws(mutant)
        if not names:
            return "its check names no law (--only LAW)"
        unknown = sorted(set(names) - set(known_laws))
        if unknown:
            return f"no such law: {', '.join(unknown)}"
    if kind == "pytest" and not named_tests(mutant):
        return "its check names no test (FILE::TEST)"
    return None


def law_verdicts(output: str) -> dict:
    found = {}
    for text in output.splitlines():
        match = LAW_LINE.match(text)
        if match:
            found[match.group(1)] = (match.group(3), match.group(4) or "")
    return found


def judge_laws(mutant: Mutant, status: int, output: str) -> tuple[bool, str]:
    verdicts = law_verdicts(output)
    if LINT not in verdicts:
        tail = output.strip().splitlines()[-1:] or ["no output"]
        return False, f"the laws did not run: {tail[0][:160]}"
    lint = verdicts[LINT][0]
    if mutant.lint:
        return (lint == "FAIL", "the subset lint failed" if lint == "FAIL" else "the subset lint passed")
    if lint != "pass":
        return False, "the subset lint failed: the mutant is not a lint mutant, so this says nothing of its law"
    for name in named_laws(mutant):
        if name not in verdicts:
            return False, f"{name} printed no line"
        verdict, detail = verdicts[name]
        if verdict == "CRASH":
            return False, f"{name} crashed, it did not fail: {detail[:140]}"
        if verdict != "FAIL":
            return False, f"{name} passed"
    if status == 0:
        return False, "the laws exited 0"
    return True, "; ".join(f"{name}: {verdicts[name][1][:140]}" for name in named_laws(mutant))


def judge_pytest(mutant: Mutant, status: int, output: str, report: str) -> tuple[bool, str]:
    failures = {}
    for row in report.splitlines():
        nodeid, when, exception = row.split("\t")
        failures.setdefault(nodeid, []).append((when, exception))
    if status != 1:
        return False, f"pytest exited {status} (1 is failed tests; 2 to 5 are errors, interruptions, no tests)"
    for nodeid in named_tests(mutant):
        seen = failures.get(nodeid, [])
        if ("call", "AssertionError") not in seen:
            how = ", ".join(f"{exception} in {when}" for when, exception in seen) or "no failure"
            return False, f"{nodeid} did not fail by an assertion ({how})"
    return True, "failed by an assertion: " + ", ".join(named_tests(mutant))


def judge_bridge(mutant: Mutant, status: int, output: str) -> tuple[bool, str]:
    if status != 1 or "DIFFERENCE in scenario" not in output:
        tail = output.strip().splitlines()[-1:] or ["no output"]
        return False, f"the bridge exited {status} without a difference: {tail[0][:160]}"
    sides = {}
    for text in output.splitlines():
        for side in ("model", "harness"):
            prefix = f"  {side}:"
            if text.startswith(prefix) and side not in sides:
                sides[side] = text[len(prefix):].strip()
    for side, record in sides.items():
        if record.startswith("error\t") or record.startswith("error "):
            return False, f"the {side} side crashed: {record[:140]}"
    first = next(text for text in output.splitlines() if text.startswith("DIFFERENCE in scenario"))
    return True, first[:160]


# How a caught mutant was caught, as `make mutants` prints it. A counterexample (Z3's `sat`, a
# case a bounded or searched check found, a canary proved) refutes the planted code; Z3 giving up
# (`unknown`, at its resource limit) only says the proof no longer goes through, as a harder query
# of right code could; a count below the registry's minimum or code that no longer runs on terms
# is a catch of its own kind.
HOW = ("counterexample", "unknown", "shortfall", "not on terms", "test", "difference", "simulation", "lint")


def how_caught(mutant: Mutant, output: str) -> str:
    """One of HOW, for a mutant `judge` counted as caught."""
    kind = kind_of(mutant)
    if mutant.lint:
        return "lint"
    if kind == "pytest":
        return "test"
    if kind == "bridge":
        return "difference"
    if kind == "sim":
        return "simulation"
    details = [law_verdicts(output).get(name, ("", ""))[1] for name in named_laws(mutant)]
    for how, said in (("unknown", "Z3 said unknown"), ("shortfall", "below the registry"),
                      ("not on terms", "does not run on Z3 terms")):
        if any(said in detail for detail in details):
            return how
    return "counterexample"


def named_invariants(mutant: Mutant) -> list[str]:
    check = list(mutant.check)
    return [name for k in range(len(check) - 1) if check[k] == "--until-caught" for name in check[k + 1].split(",")]


def judge_sim(mutant: Mutant, status: int, output: str) -> tuple[bool, str]:
    """`python -m sim … --until-caught INVARIANT`: exit 1 and a seed FAILED on a named invariant
    (the simulation's own crash, `the simulation runs`, is never one)."""
    named = named_invariants(mutant)
    for text in output.splitlines():
        if text.startswith("FAILED seed=") and status == 1:
            invariant = text.split(": ", 2)[1] if text.count(": ") >= 2 else ""
            if invariant in named:
                return True, text[:160]
    tail = output.strip().splitlines()[-1:] or ["no output"]
    return False, f"the simulation exited {status} without failing on {', '.join(named)}: {tail[0][:160]}"


def judge(mutant: Mutant, status: int, output: str, report: str = "") -> tuple[bool, str]:
    """(caught, why): caught only when the named check failed for its own reason."""
    kind = kind_of(mutant)
    if kind == "laws":
        return judge_laws(mutant, status, output)
    if kind == "pytest":
        return judge_pytest(mutant, status, output, report)
    if kind == "sim":
        return judge_sim(mutant, status, output)
    return judge_bridge(mutant, status, output)
