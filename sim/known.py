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


# none open: seed 121's sibling read refused as a compaction is applied, kept here for a while,
# is fixed by [S37] and is a regression run in sim/seeds.py
KNOWN: tuple[Known, ...] = ()


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
