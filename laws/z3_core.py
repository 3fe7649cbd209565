"""Shared Z3 machinery: powers of two over unbounded integers, and Python integers and conditions
as Z3 terms, so the model's own code can run on them.

Strategy: a claim is proved only when Z3 answers `unsat` for its negation over `Int` (never
bit-vectors); `sat` and `unknown` are failures. Powers of two are an uninterpreted `pow2` with the
recursive axioms pow2(0) = 1, pow2(l + 1) = 2·pow2(l) and pow2(l) ≥ 1 for l ≥ 0.

`Sym` wraps a Z3 integer term and `SymBool` a Z3 formula, so that the model's integer code (e.g.
`model.view.more_due`) runs on them and computes the very formula Z3 is then asked about. Each
Python operation either has an exact Z3 meaning or raises:

- `+ − ·`, `<<` and `>>` (x·2^l and ⌊x / 2^l⌋), `&` with a mask 2^k − 1 or its complement;
- `== != < <= > >=` give a `SymBool`, and `&` `|` combine `SymBool`s and Python bools;
- asking a `SymBool` or a `Sym` for a Python value raises: `if`, `and`, `or`, `not`, `bool()`,
  `int()`, indexing, `len()`, `str()`, hashing. So `if a == b:` in the model cannot silently
  become a Python bool: it stops the proof with a TypeError.

Where Python would raise and Z3 would not (a negative shift count), the operation records an
*obligation*; a proof collects them (`obligations()`) and proves them with its claim, so a proof
covers only runs that Python would finish.
"""

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Optional

import z3

POW2 = z3.Function("pow2", z3.IntSort(), z3.IntSort())


def pow2_axioms() -> list:
    l = z3.Int("l_ax")
    return [
        POW2(0) == 1,
        z3.ForAll([l], z3.Implies(l >= 0, POW2(l + 1) == 2 * POW2(l))),
        z3.ForAll([l], z3.Implies(l >= 0, POW2(l) >= 1)),
    ]


# ---- obligations: what Python checks at run time that a Z3 term does not ----

_COLLECTORS: list[list] = []


def oblige(condition, why: str) -> None:
    """Python would raise unless `condition` holds: the proof must show it does."""
    if isinstance(condition, bool):
        if not condition:
            raise ValueError(f"the model's code would raise: {why}")
        return
    if not _COLLECTORS:
        raise RuntimeError(f"a side condition ({why}) arose outside obligations(): it would be lost")
    _COLLECTORS[-1].append((condition, why))


@contextmanager
def obligations() -> Iterator[list]:
    """Collect the side conditions of the terms computed in the block, as (formula, why)."""
    found: list = []
    _COLLECTORS.append(found)
    try:
        yield found
    finally:
        _COLLECTORS.pop()


def no_python_value(kind: str):
    def refuse(self, *args):
        raise TypeError(f"a {kind} has no Python value here: the model must not branch on it, "
                        f"index with it or print it (use model.base's choose, item, ...)")
    return refuse


# The path chooser of a law that explores the model's branches (laws.z3_model.explore); empty
# everywhere else, so a branch on a term raises.
BRANCHES: list = []


def is_python_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Sym:
    """A Z3 integer term that the model's integer code computes with."""

    __slots__ = ("term",)

    def __init__(self, term):
        assert z3.is_int(term), term
        self.term = term

    @staticmethod
    def lift(value):
        if isinstance(value, Sym):
            return value.term
        if is_python_int(value):
            return z3.IntVal(value)
        raise TypeError(f"an integer term cannot compute with {type(value).__name__}")

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

    def __rmul__(self, other):
        return Sym(Sym.lift(other) * self.term)

    def __neg__(self):
        return Sym(-self.term)

    @staticmethod
    def shifted(x, count, left: bool):
        """x << count (x·2^count) or x >> count (⌊x / 2^count⌋); Python raises for count < 0."""
        if is_python_int(count):
            if count < 0:
                raise ValueError("negative shift count")
            factor = z3.IntVal(1 << count)
        else:
            count_term = Sym.lift(count)
            simple = z3.simplify(count_term)
            if z3.is_int_value(simple) and simple.as_long() >= 0:
                factor = z3.IntVal(1 << simple.as_long())  # a known count: the power itself
            else:
                oblige(count_term >= 0, "a shift by a negative count")
                factor = POW2(count_term)
        # Z3's integer division by a positive divisor is the floor, as Python's >> is
        return Sym(x * factor if left else x / factor)

    def __lshift__(self, other):
        return Sym.shifted(self.term, other, True)

    def __rlshift__(self, other):
        return Sym.shifted(Sym.lift(other), Sym(self.term), True)

    def __rshift__(self, other):
        return Sym.shifted(self.term, other, False)

    def __rrshift__(self, other):
        return Sym.shifted(Sym.lift(other), Sym(self.term), False)

    def __and__(self, other):
        """x & mask, for a constant mask 2^k − 1 (x mod 2^k) or ~(2^k − 1) (x − x mod 2^k): on
        Python's unbounded two's complement both are exact for every x, negative too."""
        if not is_python_int(other):
            raise TypeError("& is defined on integer terms only with a constant mask")
        if other >= 0 and (other + 1) & other == 0:
            return Sym(self.term % (other + 1))
        low = ~other
        if other < 0 and (low + 1) & low == 0:
            return Sym(self.term - self.term % (low + 1))
        raise TypeError(f"& with the mask {other} has no exact integer meaning here")

    __rand__ = __and__

    def __eq__(self, other):
        return SymBool(self.term == Sym.lift(other))

    def __ne__(self, other):
        return SymBool(self.term != Sym.lift(other))

    def __lt__(self, other):
        return SymBool(self.term < Sym.lift(other))

    def __le__(self, other):
        return SymBool(self.term <= Sym.lift(other))

    def __gt__(self, other):
        return SymBool(self.term > Sym.lift(other))

    def __ge__(self, other):
        return SymBool(self.term >= Sym.lift(other))

    __bool__ = no_python_value("integer term")
    __index__ = no_python_value("integer term")
    __int__ = no_python_value("integer term")
    __float__ = no_python_value("integer term")
    __str__ = no_python_value("integer term")
    __format__ = no_python_value("integer term")
    __len__ = no_python_value("integer term")
    __iter__ = no_python_value("integer term")
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Sym({self.term})"


class SymBool:
    """A Z3 formula that the model's conditions compute; `&` and `|` combine them."""

    __slots__ = ("term",)

    def __init__(self, term):
        assert z3.is_bool(term), term
        self.term = term

    @staticmethod
    def lift(value):
        if isinstance(value, SymBool):
            return value.term
        if isinstance(value, bool):
            return z3.BoolVal(value)
        raise TypeError(f"a condition term cannot combine with {type(value).__name__}")

    def __and__(self, other):
        return SymBool(z3.And(self.term, SymBool.lift(other)))

    def __rand__(self, other):
        return SymBool(z3.And(SymBool.lift(other), self.term))

    def __or__(self, other):
        return SymBool(z3.Or(self.term, SymBool.lift(other)))

    def __ror__(self, other):
        return SymBool(z3.Or(SymBool.lift(other), self.term))

    def __eq__(self, other):
        return SymBool(self.term == SymBool.lift(other))

    def __ne__(self, other):
        return SymBool(self.term != SymBool.lift(other))

    def __bool__(self):
        """Refused, unless a law explores both ways of the model's `if` (laws.z3_model.explore):
        then the branch taken is the one the current path chose, and assumed."""
        if BRANCHES:
            return BRANCHES[-1](self.term)
        raise TypeError("a condition term has no Python value here: the model must not branch on it, "
                        "index with it or print it (use model.base's choose, item, ...)")

    __index__ = no_python_value("condition term")
    __int__ = no_python_value("condition term")
    __str__ = no_python_value("condition term")
    __format__ = no_python_value("condition term")
    __invert__ = no_python_value("condition term")  # ~True is −2 in Python: never a negation
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SymBool({self.term})"


def formula(value):
    """The Z3 formula of a condition the model computed: a SymBool, or a Python bool."""
    return SymBool.lift(value)


def integer(value):
    return Sym.lift(value)


# Every query runs with the same seed and a limit on Z3's own count of work (its resource
# limit, "rlimit"), never a time limit: a time limit gives `unknown` on a loaded machine and
# `unsat` on an idle one, a resource count gives the same verdict on every run of the same Z3.
SEED = 0
RLIMIT = 20_000_000  # per query: over ten times the most any query of the laws or tests used (about 1.8 million)
USED: list[int] = []  # each query's resource count, in order, for the tests that measure them


@dataclass(frozen=True)
class Answer:
    status: str  # "unsat", "sat" or "unknown"
    seconds: float
    model: str | None = None
    used: int = 0  # Z3's resource count for this query

    @property
    def proved(self) -> bool:
        return self.status == "unsat"


def solver(rlimit: int, context: Optional["z3.Context"] = None) -> "z3.Solver":
    """A solver with the fixed seed and the per-query resource limit."""
    found = z3.Solver(ctx=context)
    found.set("random_seed", SEED)
    found.set("rlimit", rlimit)
    return found


def in_fresh_context(terms: Iterable) -> tuple["z3.Context", list]:
    """The terms copied into a context of their own. Z3's work on a query depends on what its
    context saw before (the queries of the laws that ran first, in the order they ran): in a
    context of its own a query's verdict is a function of the query alone."""
    context = z3.Context()
    copied = [z3.BoolVal(term, context) if isinstance(term, bool) else term.translate(context) for term in terms]
    return context, copied


def resources(found: "z3.Solver") -> int:
    """Z3's count of work in the query's own context: the query's alone."""
    statistics = found.statistics()
    if "rlimit count" not in statistics.keys():
        return 0
    return int(statistics.get_key_value("rlimit count"))


def prove(claim, assumptions: Iterable = (), rlimit: int = RLIMIT, shown: bool = True) -> Answer:
    """Z3's answer for `assumptions ∧ ¬claim`: `unsat` proves the claim under the assumptions.
    With `shown`, a `sat` answer carries its counterexample as text (printing a model of arrays
    and functions costs more than many a query: a question whose `sat` is no failure skips it)."""
    context, terms = in_fresh_context(list(assumptions) + [z3.Not(claim)])
    found = solver(rlimit, context)
    found.add(*terms)
    began = time.monotonic()
    status = found.check()
    seconds = time.monotonic() - began
    used = resources(found)
    USED.append(used)
    model = str(found.model()) if status == z3.sat and shown else None
    return Answer(str(status), seconds, model, used)


def satisfiable(assumptions: Iterable, rlimit: int = RLIMIT) -> bool:
    """A concrete witness exists: the assumptions of a proof are not contradictory."""
    context, terms = in_fresh_context(assumptions)
    found = solver(rlimit, context)
    found.add(*terms)
    status = found.check()
    USED.append(resources(found))
    return status == z3.sat


def failed_answer(name: str, answer: Answer) -> str:
    limit = " (its resource limit reached)" if answer.status == "unknown" and answer.used >= RLIMIT else ""
    return f"{name}: Z3 said {answer.status}{limit}" + (f" ({answer.model[:200]})" if answer.model else "")


def vacuous(name: str) -> str:
    """A proof whose assumptions no values meet proves nothing: said so, not as Z3's answer."""
    return f"{name}: no values meet its assumptions, so the proof would be vacuous"
