"""Shared Z3 machinery: powers of two over unbounded integers, and the model's own arithmetic run
on Z3 terms.

Strategy: a claim is proved only when Z3 answers `unsat` for its negation over `Int` (never
bit-vectors); `sat` and `unknown` are failures. Powers of two are an uninterpreted `pow2` with the
recursive axioms pow2(0) = 1, pow2(l + 1) = 2·pow2(l) and pow2(l) ≥ 1 for l ≥ 0. The model's
functions compute with `+`, `-`, `<<`, `>>`, `&` and comparisons on ints; `Sym` wraps a Z3 integer
term so the model's own code (e.g. `model.view.more_due`) runs on symbols, with `x << l` read as
x·pow2(l). So the formula Z3 proves is the one the model's source computes, not a transcription.
"""

import time
from dataclasses import dataclass
from typing import Iterable, Optional

import z3

POW2 = z3.Function("pow2", z3.IntSort(), z3.IntSort())


def pow2_axioms() -> list:
    l = z3.Int("l_ax")
    return [
        POW2(0) == 1,
        z3.ForAll([l], z3.Implies(l >= 0, POW2(l + 1) == 2 * POW2(l))),
        z3.ForAll([l], z3.Implies(l >= 0, POW2(l) >= 1)),
    ]


class Sym:
    """A Z3 integer term that the model's integer code can compute with.

    Only the operations the model uses on levels, indices and T are defined; anything else
    raises, so a model change that needs more shows up as a crash, not a silent wrong proof.
    """

    def __init__(self, term):
        self.term = term

    @staticmethod
    def lift(value):
        if isinstance(value, Sym):
            return value.term
        if isinstance(value, int):
            return z3.IntVal(value)
        raise TypeError(f"Sym cannot compute with {type(value).__name__}")

    def __add__(self, other):
        return Sym(self.term + Sym.lift(other))

    def __radd__(self, other):
        return Sym(Sym.lift(other) + self.term)

    def __sub__(self, other):
        return Sym(self.term - Sym.lift(other))

    def __rsub__(self, other):
        return Sym(Sym.lift(other) - self.term)

    def __mul__(self, other):
        return Sym(self.term * Sym.lift(other))

    def __lshift__(self, other):
        # x << l is x·2^l for l ≥ 0 (Python raises for l < 0; the claims assume l ≥ 0)
        return Sym(self.term * POW2(Sym.lift(other)))

    def __rshift__(self, other):
        # x >> s is floor(x / 2^s); Z3's integer division by a positive divisor is the floor
        return Sym(self.term / POW2(Sym.lift(other)))

    def __gt__(self, other):
        return self.term > Sym.lift(other)

    def __lt__(self, other):
        return self.term < Sym.lift(other)

    def __ge__(self, other):
        return self.term >= Sym.lift(other)

    def __le__(self, other):
        return self.term <= Sym.lift(other)


@dataclass(frozen=True)
class Answer:
    status: str  # "unsat", "sat" or "unknown"
    seconds: float
    model: Optional[str] = None

    @property
    def proved(self) -> bool:
        return self.status == "unsat"


def prove(claim, assumptions: Iterable = (), timeout_ms: int = 20_000) -> Answer:
    """Z3's answer for `assumptions ∧ ¬claim`: `unsat` proves the claim under the assumptions."""
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(*assumptions)
    solver.add(z3.Not(claim))
    began = time.monotonic()
    status = solver.check()
    seconds = time.monotonic() - began
    text = str(status)
    found = str(solver.model()) if status == z3.sat else None
    return Answer(text, seconds, found)


def satisfiable(assumptions: Iterable, timeout_ms: int = 20_000) -> bool:
    """A concrete witness exists: the assumptions of a proof are not contradictory."""
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(*assumptions)
    return solver.check() == z3.sat
