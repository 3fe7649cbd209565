"""A planted bug: one textual replacement in one file, and the check that must catch it."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    name: str  # a noun: `due_from_first`
    path: str  # the file, relative to the repository's root
    old: str  # occurs exactly once in the file
    new: str
    # argv, run from the mutated copy's root; `python` is the venv's. One of: `python -m laws
    # --only LAW…`, `python -m pytest … FILE::TEST…`, `python -m bridge …` (mutants/judge.py).
    check: tuple[str, ...]
    note: str  # what the bug is, in a few words
    lint: bool = False  # a bug the subset lint must catch: the lint fails, not a law
