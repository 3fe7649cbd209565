"""Findings of the simulation not fixed yet, each with a seed kept that must still fail on it.

A seed whose every failure matches a known finding (its invariant, and a text in its detail) is
counted as known, never as a pass; a kept seed that stops failing on its finding fails the run
(fixed: move it to sim/seeds.py as a regression run, and remove it here), as a strict xfail does.
`python -m sim --strict` fails on every known finding.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Known:
    name: str
    invariant: str
    detail: str  # a text the failure's detail holds
    seed: int  # a seed kept: it must still fail on this finding
    note: str


KNOWN: tuple[Known, ...] = (
    Known(
        name="a sibling's read refused as a compaction is applied",
        invariant="no unhandled exception",
        detail="Task exception was never retrieved (watch.<locals>._run): OSError(5",
        seed=121,
        note="a compaction's outcome is applied (harness/memory/service.py Memory._run, _apply); the planner "
             "builds the parent and reads the sibling node's line from the tree's day file, the disk refuses "
             "the read (EIO), and the OSError ends the compaction's task, nobody taking it. Seen since the run "
             "notes every task's exception nobody took at each life's end (sim/run.py unretrieved), not only "
             "those asyncio happened to collect in the life. Not fixed yet: whether such a read pauses the "
             "compactor, as a refused input read does [S35], is the memory's to decide.",
    ),
)


def kept_seeds() -> list[int]:
    from sim.seeds import KEPT

    return sorted({known.seed for known in KNOWN} | {seed for seed, _ in KEPT})


def matches(known: Known, failure: tuple[str, str]) -> bool:
    invariant, detail = failure
    return invariant == known.invariant and known.detail in detail


def classify(seed: int, failures: list[tuple[str, str]]) -> str:
    """"pass", "known: NAME[, NAME]" or "fail"; a kept seed of a known finding must fail on it."""
    owed = [known for known in KNOWN if known.seed == seed]
    if not failures:
        return f"fail: the kept seed of the known finding {owed[0].name!r} passes (fixed?)" if owed else "pass"
    names = []
    for failure in failures:
        found = [known for known in KNOWN if matches(known, failure)]
        if not found:
            return "fail"
        names += [known.name for known in found if known.name not in names]
    missing = [known.name for known in owed if known.name not in names]
    if missing:
        return f"fail: the kept seed of {missing[0]!r} no longer fails on it"
    return "known: " + ", ".join(names)
