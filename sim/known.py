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
    Known("compaction line on a failing disk", "no unhandled exception",
          "Task exception was never retrieved: StoreError('the line could not be written to", 30,
          "A compaction whose node line the disk refuses (ENOSPC, EIO on the tree's day file) ends its "
          "task with an exception nobody retrieves: asyncio prints its traceback. The memory service "
          "(harness/memory/service.py `_run`, through the planner's record_nodes) should say it in one "
          "row and retry the line."),
    Known("a disk error read inside a compaction", "no unhandled exception",
          "ever.memory: compaction of", 5,
          "A disk error (EIO) met while a compaction runs is logged with its traceback "
          "(harness/memory/service.py `_run`'s log.exception) instead of one row and a retry."),
    Known("a long message's pieces doubled after a failed append", "never doubled",
          "belongs to no message sent", 154,
          "A long message whose second piece the disk refuses (EIO) leaves its first piece logged; "
          "other messages are logged after it, so the next open's [S11] count (pieces at the log's "
          "end only) finds none, and the message is logged whole again: its first piece twice "
          "(harness/memory/service.py `append_accepted`, `pieces_logged`)."),
    Known("a placeholder where the rebuilt view shows the line", "a restart's view is the logs' view",
          "(not summarized yet: zoom it)", 15,
          "After a restart the view opened from view.json and the replay shows a placeholder where "
          "the view rebuilt from the logs alone shows the message; not yet told apart whether the "
          "product or this check is wrong (the rebuilt side runs without a compactor)."),
    Known("a node replayed with another text", "a restart's view is the logs' view",
          "was logged with another text", 133,
          "With view.json set aside (as [S10] does when it is damaged), replaying the logs alone "
          "builds a node with another text than the one logged, and Memory.open raises RuntimeError: "
          "the chat would not open (harness/memory/service.py `record_nodes`, checkpoint replay)."),
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
