"""The model's own code, run on Z3 terms.

Strategy: inside `running(proof)`, every function of model/base.py (and the tree's two lookups)
is swapped, in the model's modules, for a twin that computes on Z3 terms; every other line of the
model runs as written, on `Sym`, `SymBool` and `SymText` values (laws.z3_core). So a law calls,
say, `model.view.fit` on a view of unknown length and gets back Z3 terms that are what the model's
source computes, with no hand copy of its logic. What has to be trusted is this file:

- the sequence twins (`length`, `item`, `appended`, `pair_replaced`, `prefix`, `mapped`) and
  `choose`: each is checked against its Python original on every small case
  (`twins_agree`, laws.universal), and each records as an obligation where Python would raise or
  where the twin is defined (an index in range), so a proof covers only runs Python would finish;
- the two loop rules, `fold` (a `for` over range(n)) and `repeat` (a `while`): a loop whose count
  or guard is symbolic is replaced by Hoare's rule. The law names an invariant for the loop's
  body; Z3 must prove it holds at the start and that the model's body, run on a fresh state that
  meets it, gives a state that meets it again (and, for `repeat`, that a variant ≥ 0 drops, so
  the loop ends); then the loop's result is a fresh value assumed to meet the invariant (and, for
  `repeat`, the guard's negation). A loop with a concrete count is unrolled instead;
- the functions the proofs know nothing about (`decimal`, `utf8_bytes`, text `+` and `replace`,
  the tree's `tree_has` and `tree_text`) are uninterpreted: a proof holds for every function in
  their place, so nothing about them is trusted but that they are functions; `tree_put` is their
  update at one node, which laws.z3_tree proves of model/tree.py's own code;
- the tree's tries as Z3 datatypes (`SymTrie`, `SymMaybe`) and the twins of `replaced` and
  `padded`, checked against Python by `twins_agree` too.

Two things stop a proof from silently being about something else: `Sym` and `SymBool` raise when
asked for a Python value (laws.z3_core), and `running` records every model function that ran on
Z3 terms so that `identity_tests` can reject any that tests `is`, `is not` or `isinstance`
(Python answers those without asking the terms).
"""

import ast
import inspect
import itertools
import sys
import textwrap
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from dataclasses import replace as dataclass_replace
from typing import Any, Optional

import z3

import model.base as base
import model.line
import model.planner
import model.push
import model.tree as tree_module
import model.view
from laws.z3_core import (
    RLIMIT,
    Answer,
    Sym,
    SymBool,
    failed_answer,
    is_python_int,
    no_python_value,
    obligations,
    oblige,
    prove,
    satisfiable,
    vacuous,
)
from model.view import Line

# ---- texts: an uninterpreted sort ----

TEXT = z3.DeclareSort("Text")
CONCAT = z3.Function("concat", TEXT, TEXT, TEXT)
REPLACE = z3.Function("replace", TEXT, TEXT, TEXT, TEXT)
DECIMAL = z3.Function("decimal", z3.IntSort(), TEXT)
UTF8_BYTES = z3.Function("utf8_bytes", TEXT, z3.IntSort())
_LITERALS: dict[str, Any] = {}


def literal(text: str):
    """A Python string as a Text constant: equal strings give the same constant, named by the
    text itself (its repr, so two texts never share a name). So a law's query is the same
    whatever literals the laws before it made [P21] (docs/trust.md, "Stable verdicts")."""
    if text not in _LITERALS:
        _LITERALS[text] = z3.Const(f"text {text!r}", TEXT)
    return _LITERALS[text]


class SymText:
    """A text the proofs know nothing about but where it came from."""

    __slots__ = ("term",)

    def __init__(self, term):
        self.term = term

    @staticmethod
    def lift(value):
        if isinstance(value, SymText):
            return value.term
        if isinstance(value, str):
            return literal(value)
        raise TypeError(f"a text term cannot combine with {type(value).__name__}")

    def __add__(self, other):
        return SymText(CONCAT(self.term, SymText.lift(other)))

    def __radd__(self, other):
        return SymText(CONCAT(SymText.lift(other), self.term))

    def replace(self, old: str, new: str) -> "SymText":
        return SymText(REPLACE(self.term, SymText.lift(old), SymText.lift(new)))

    def __eq__(self, other):
        return SymBool(self.term == SymText.lift(other))

    def __ne__(self, other):
        return SymBool(self.term != SymText.lift(other))

    __bool__ = no_python_value("text term")
    __len__ = no_python_value("text term")
    __iter__ = no_python_value("text term")
    __str__ = no_python_value("text term")
    __format__ = no_python_value("text term")
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SymText({self.term})"


# ---- the tree's tries: Z3 datatypes ----
#
# A trie of model/tree.py is a tuple (text or None, child for digit 0, …, child for the last
# digit), or () when empty; as a term it is a value of the datatype TRIE, and a text or None one
# of MAYBE. Each operation below is exact for the tuple it stands for, or records as an
# obligation where Python would raise (an index into (), or out of range).

_MAYBE = z3.Datatype("Maybe")
_MAYBE.declare("none")
_MAYBE.declare("some", ("value", TEXT))
MAYBE = _MAYBE.create()
_TRIE = z3.Datatype("Trie")
_TRIE.declare("empty")
_TRIE.declare("node", ("text", MAYBE), *[(f"child{d}", _TRIE) for d in range(tree_module.DIGITS)])
TRIE = _TRIE.create()
CHILDREN = tuple(getattr(TRIE, f"child{d}") for d in range(tree_module.DIGITS))


class SymMaybe:
    """A node's text or None, as a term: it answers `== None` and `!= None`."""

    __slots__ = ("term",)

    def __init__(self, term):
        self.term = term

    @staticmethod
    def lift(value):
        if isinstance(value, SymMaybe):
            return value.term
        if value is None:
            return MAYBE.none
        return MAYBE.some(SymText.lift(value))

    def __eq__(self, other):
        if other is None:
            return SymBool(MAYBE.is_none(self.term))
        return SymBool(self.term == SymMaybe.lift(other))

    def __ne__(self, other):
        return SymBool(z3.Not((self == other).term))

    __bool__ = no_python_value("text-or-None term")
    __str__ = no_python_value("text-or-None term")
    __format__ = no_python_value("text-or-None term")
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SymMaybe({self.term})"


class SymTrie:
    """A trie as a term. `not trie` is the condition that it is empty (a branch, inside
    `explore`); `trie[k]` is its text (k = 0) or a child (k = 1 … DIGITS)."""

    __slots__ = ("term",)

    def __init__(self, term):
        self.term = term

    @staticmethod
    def lift(value):
        if isinstance(value, SymTrie):
            return value.term
        if value == ():
            return TRIE.empty
        if isinstance(value, tuple) and len(value) == 1 + tree_module.DIGITS:
            return TRIE.node(SymMaybe.lift(value[0]), *[SymTrie.lift(child) for child in value[1:]])
        raise TypeError(f"a trie term cannot be made of {type(value).__name__}")

    def __bool__(self):
        return bool(SymBool(TRIE.is_node(self.term)))

    def __len__(self):
        raise TypeError("a trie term has no Python length: test it with `not`")

    def at(self, k):
        """Python's trie[k]: () has no items, and a node none past its last child."""
        oblige(TRIE.is_node(self.term), "a trie's item: the trie is empty")
        position = python_int(k)
        if position == 0:
            return SymMaybe(TRIE.text(self.term))
        index = Sym.lift(k)
        oblige(z3.And(1 <= index, index <= len(CHILDREN)), "a trie's child: a digit out of range")
        if position is not None and 1 <= position <= len(CHILDREN):
            return SymTrie(CHILDREN[position - 1](self.term))
        chosen = CHILDREN[-1](self.term)
        for d in range(len(CHILDREN) - 2, -1, -1):
            chosen = z3.If(index == d + 1, CHILDREN[d](self.term), chosen)
        return SymTrie(chosen)

    __getitem__ = at

    def replaced(self, k, new):
        """Python's trie[:k] + (new,) + trie[k + 1:], for a node and 0 ≤ k ≤ DIGITS."""
        oblige(TRIE.is_node(self.term), "a trie's item replaced: the trie is empty")
        if python_int(k) == 0:
            return SymTrie(TRIE.node(SymMaybe.lift(new), *[child(self.term) for child in CHILDREN]))
        index = Sym.lift(k)
        oblige(z3.And(1 <= index, index <= len(CHILDREN)), "a trie's child replaced: a digit out of range")
        value = SymTrie.lift(new)
        children = [z3.If(index == d + 1, value, child(self.term)) for d, child in enumerate(CHILDREN)]
        return SymTrie(TRIE.node(TRIE.text(self.term), *children))

    __str__ = no_python_value("trie term")
    __format__ = no_python_value("trie term")
    __iter__ = no_python_value("trie term")
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SymTrie({self.term})"


# ---- values and their shapes ----

INT, BOOL, STR, TRIES = "int", "bool", "text", "trie"
SORTS = {INT: z3.IntSort(), BOOL: z3.BoolSort(), STR: TEXT, TRIES: TRIE}
WRAP = {INT: Sym, BOOL: SymBool, STR: SymText, TRIES: SymTrie}
LIFT = {INT: Sym.lift, BOOL: SymBool.lift, STR: SymText.lift, TRIES: SymTrie.lift}
LINE_FIELDS = (("l", INT), ("i", INT), ("text", STR), ("built", BOOL), ("bytes", INT))


@dataclass(frozen=True)
class Kind:
    """The items of a sequence: a Line, or a node (l, i)."""

    name: str
    fields: tuple[tuple[str, str], ...]

    def parts(self, value) -> dict[str, Any]:
        if self.name == "line":
            return {name: getattr(value, name) for name, _ in self.fields}
        if self.name == "trie":
            return {"trie": value}
        return {name: value[int(name)] for name, _ in self.fields}

    def build(self, parts: dict[str, Any]):
        if self.name == "line":
            return Line(**parts)
        if self.name == "trie":
            return parts["trie"]
        return tuple(parts[name] for name, _ in self.fields)


LINE = Kind("line", LINE_FIELDS)
NODE = Kind("node", (("0", INT), ("1", INT)))
LEVEL = Kind("trie", (("trie", TRIES),))  # a tree's levels: a sequence of tries
_FRESH = itertools.count()


def fresh_name(tag: str) -> str:
    return f"{tag}!{next(_FRESH)}"


def reset_names() -> None:
    """Fresh names counted from 0 again: each law's terms, and so its queries, are then the same
    whatever laws ran before it (Z3's search depends on the names; docs/trust.md, "Stable
    verdicts"). Called before each law; a law's terms never meet another law's."""
    global _FRESH
    _FRESH = itertools.count()


class ZSeq:
    """A tuple of unknown length n: one Z3 array per field of its items."""

    def __init__(self, kind: Kind, arrays: dict[str, Any], n):
        self.kind = kind
        self.arrays = arrays
        self.n = n

    @staticmethod
    def fresh(kind: Kind, tag: str) -> "ZSeq":
        name = fresh_name(tag)
        arrays = {f: z3.Array(f"{name}.{f}", z3.IntSort(), SORTS[s]) for f, s in kind.fields}
        return ZSeq(kind, arrays, z3.Int(f"{name}.n"))

    @staticmethod
    def of(kind: Kind, items) -> "ZSeq":
        """A Python tuple of items (Python or term fields) as arrays."""
        arrays = {}
        for f, s in kind.fields:
            array = z3.K(z3.IntSort(), z3.Const(fresh_name("unused"), SORTS[s]))
            for position, value in enumerate(items):
                array = z3.Store(array, position, LIFT[s](kind.parts(value)[f]))
            arrays[f] = array
        return ZSeq(kind, arrays, z3.IntVal(len(items)))

    def at(self, k) -> Any:
        """Item k for 0 ≤ k < n (the caller has the bound)."""
        return self.kind.build({f: WRAP[s](self.arrays[f][k]) for f, s in self.kind.fields})

    def field(self, name: str, k):
        return self.arrays[name][k]

    def __repr__(self) -> str:
        return f"ZSeq({self.kind.name}, n={self.n})"

    __bool__ = no_python_value("sequence term")
    __len__ = no_python_value("sequence term")
    __iter__ = no_python_value("sequence term")
    __hash__ = None  # type: ignore[assignment]


class SymTree:
    """A tree the proofs know nothing about: which nodes it holds and their texts are two
    uninterpreted functions of (l, i)."""

    def __init__(self, tag: str = "tree"):
        self.has = z3.Function(f"{tag}.has", z3.IntSort(), z3.IntSort(), z3.BoolSort())
        self.text = z3.Function(f"{tag}.text", z3.IntSort(), z3.IntSort(), TEXT)
        self.plain = True  # its functions are uninterpreted, not made from another tree's

    @staticmethod
    def put(old: "SymTree", l, i, text) -> "SymTree":
        """`old` with node (l, i) holding `text`: what model/tree.py tree_put gives (its own law,
        tree_lookup_gives_what_was_put, proves that on the trie's code, laws.z3_tree)."""
        new = SymTree.__new__(SymTree)
        new.has = lambda a, b: z3.Or(z3.And(a == l, b == i), old.has(a, b))
        new.text = lambda a, b: z3.If(z3.And(a == l, b == i), text, old.text(a, b))
        new.plain = False
        return new

    def within(self, other: "SymTree"):
        """Every node this tree holds, `other` holds too."""
        a, b = z3.Ints("a_tree b_tree")
        return z3.ForAll([a, b], z3.Implies(self.has(a, b), other.has(a, b)))


@dataclass(frozen=True)
class Shape:
    """How to make a fresh value like a loop's state: "int", "bool", "text", a Kind (a sequence
    of it), or a tuple of shapes."""

    of: Any


def shape_of(value) -> Shape:
    if isinstance(value, (Sym,)) or is_python_int(value):
        return Shape(INT)
    if isinstance(value, (SymBool, bool)):
        return Shape(BOOL)
    if isinstance(value, (SymText, str)):
        return Shape(STR)
    if isinstance(value, ZSeq):
        return Shape(value.kind)
    if isinstance(value, tuple) and value:
        return Shape(tuple(shape_of(part) for part in value))
    raise TypeError(f"the loop's state {value!r} needs a shape from its law")


def fresh(shape: Shape, tag: str):
    kind = shape.of
    if isinstance(kind, str):
        return WRAP[kind](z3.Const(fresh_name(tag), SORTS[kind]))
    if isinstance(kind, Kind):
        return ZSeq.fresh(kind, tag)
    return tuple(fresh(part, f"{tag}{position}") for position, part in enumerate(kind))


def lifted(shape: Shape, value):
    """`value` in the form `fresh(shape)` has: Python numbers as terms, tuples as arrays."""
    kind = shape.of
    if isinstance(kind, str):
        return WRAP[kind](LIFT[kind](value))
    if isinstance(kind, Kind):
        return value if isinstance(value, ZSeq) else ZSeq.of(kind, value)
    return tuple(lifted(part, item) for part, item in zip(kind, value))


def same(shape: Shape, a, b):
    """a and b (both in the form of `shape`) are the same value."""
    kind = shape.of
    if isinstance(kind, str):
        return LIFT[kind](a) == LIFT[kind](b)
    if isinstance(kind, Kind):
        return z3.And([a.n == b.n] + [a.arrays[f] == b.arrays[f] for f, _ in kind.fields])
    return z3.And([same(part, x, y) for part, x, y in zip(kind, a, b)])


def term_kind(value) -> str | None:
    if isinstance(value, Sym) or is_python_int(value):
        return INT
    if isinstance(value, (SymBool, bool)):
        return BOOL
    if isinstance(value, (SymText, str)):
        return STR
    return None


def merged(condition, then, otherwise):
    """`choose` on terms: If(condition, then, otherwise), part by part."""
    if then is otherwise:
        return then
    kind = term_kind(then)
    if kind is not None and kind == term_kind(otherwise):
        plain = not isinstance(then, (Sym, SymBool, SymText)) and not isinstance(otherwise, (Sym, SymBool, SymText))
        if plain and type(then) is type(otherwise) and then == otherwise:
            return then
        return WRAP[kind](z3.If(condition, LIFT[kind](then), LIFT[kind](otherwise)))
    if isinstance(then, Line) and isinstance(otherwise, Line):
        return Line(**{f: merged(condition, getattr(then, f), getattr(otherwise, f)) for f, _ in LINE_FIELDS})
    if isinstance(then, ZSeq) or isinstance(otherwise, ZSeq):
        kind_seq = then.kind if isinstance(then, ZSeq) else otherwise.kind
        a = lifted(Shape(kind_seq), then)
        b = lifted(Shape(kind_seq), otherwise)
        arrays = {f: z3.If(condition, a.arrays[f], b.arrays[f]) for f, _ in kind_seq.fields}
        return ZSeq(kind_seq, arrays, z3.If(condition, a.n, b.n))
    if isinstance(then, tuple) and isinstance(otherwise, tuple) and len(then) == len(otherwise):
        return tuple(merged(condition, x, y) for x, y in zip(then, otherwise))
    if isinstance(then, model.view.Parents) and isinstance(otherwise, model.view.Parents):
        # the chosen parents, asked of any node: each answer chosen as the parents are
        return model.view.Parents(lambda l, i: merged(condition, then.built(l, i), otherwise.built(l, i)),
                                  lambda l, i: merged(condition, then.line(l, i), otherwise.line(l, i)))
    raise TypeError(f"choose cannot join {type(then).__name__} and {type(otherwise).__name__}")


def conjuncts(claim) -> list[Any]:
    """The parts of a conjunction, each on its own; a part already true is left out."""
    if z3.is_and(claim):
        return [part for child in claim.children() for part in conjuncts(child)]
    if z3.is_true(claim):
        return []
    return [claim]


def numeral(term) -> int | None:
    simple = z3.simplify(term)
    return simple.as_long() if z3.is_int_value(simple) else None


def truth(term) -> bool | None:
    simple = z3.simplify(term)
    if z3.is_true(simple):
        return True
    if z3.is_false(simple):
        return False
    return None


# ---- the fingerprint of a call: the same inputs give the same loop result ----


def fingerprint(value, seen=None, trees_alike: bool = False):
    """A key equal for two values that are the same terms (Z3 shares equal terms) or objects.
    With `trees_alike`, every tree whose functions are uninterpreted gives the same key: a loop's
    step proved apart for one of them holds for any functions in their place (nothing is assumed
    of them there but what the step's own hypotheses say), so for any tree."""
    seen = set() if seen is None else seen
    if trees_alike and isinstance(value, SymTree) and value.plain:
        return ("tree",)
    if isinstance(value, (Sym, SymBool, SymText)):
        return ("t", value.term.get_id())
    if isinstance(value, (int, str, bool, type(None))):
        return ("v", type(value).__name__, value)
    if isinstance(value, ZSeq):
        return ("s", value.kind.name, value.n.get_id()) + tuple(a.get_id() for a in value.arrays.values())
    if isinstance(value, tuple):
        return ("tuple",) + tuple(fingerprint(part, seen, trees_alike) for part in value)
    if isinstance(value, Line):
        return ("line",) + tuple(fingerprint(getattr(value, f), seen, trees_alike) for f, _ in LINE_FIELDS)
    if isinstance(value, model.view.Parents):
        return ("parents", fingerprint(value.built, seen, trees_alike), fingerprint(value.line, seen, trees_alike))
    if inspect.isfunction(value):
        if id(value) in seen:
            return ("recursive", value.__code__)
        seen.add(id(value))
        cells = tuple(fingerprint(cell.cell_contents, seen, trees_alike) for cell in (value.__closure__ or ()))
        return ("function", value.__code__, cells)
    return ("object", id(value))


def closure(function) -> dict[str, Any]:
    """The values a nested function sees from its enclosing function, by name."""
    names = function.__code__.co_freevars
    return {name: cell.cell_contents for name, cell in zip(names, function.__closure__ or ())}


def holds_terms(key) -> bool:
    if isinstance(key, tuple):
        if key and key[0] in ("t", "s"):
            return True
        return any(holds_terms(part) for part in key)
    return False


def loop_inputs(body, caller) -> dict[str, Any]:
    """What a loop's invariant may speak of: the values its body sees, and the arguments and
    locals of the model function that runs the loop (so an invariant can name an input the body
    no longer reads). A local that is not a term itself but holds terms (a tuple, a nested
    function) is left out: a step proved for one of them would not be for another."""
    found = {}
    for name, value in caller.f_locals.items():
        if isinstance(value, (Sym, SymBool, SymText, ZSeq)) or not holds_terms(fingerprint(value)):
            found[name] = value
    found.update(closure(body))
    return found


# ---- proofs ----


@dataclass
class Loop:
    """A law's annotation of one loop of the model: its invariant (and for `repeat`, a variant
    and the state's shape when its start cannot tell it)."""

    invariant: Callable[..., Any]  # fold: (env, k, value) → formula; repeat: (env, value) → formula
    variant: Callable[..., Any] | None = None  # repeat: (env, value) → Int term, ≥ 0, drops
    shape: Shape | None = None
    # (env, value) → formulas assumed in the body's step: only instances of facts a law proved
    facts: Callable[..., list[Any]] | None = None
    # what the loop needs of its inputs: fold (env, count) → formula, repeat (env) → formula;
    # each call must meet it (an obligation), and the body's step is proved for any inputs that do
    requires: Callable[..., Any] | None = None
    # fold only: (env, k, value) → formulas assumed in the step at index k: only instances of
    # facts a law proved (the due order's meaning, say)
    index_facts: Callable[..., list[Any]] | None = None

    def step_facts(self, env, value) -> list[Any]:
        return self.facts(env, value) if self.facts else []


class Unproved(Exception):
    pass


@dataclass
class Proof:
    """One law's proof: its assumptions (the claim's domain, facts about loop results), the
    obligations of the code run so far, the loop annotations, and each query's answer."""

    loops: dict[str, Loop]
    assumptions: list[Any] = field(default_factory=list)
    parent: Optional["Proof"] = None
    found: list[tuple[Any, str]] = field(default_factory=list)
    cache: dict[Any, Any] = field(default_factory=dict)
    answers: list[tuple[str, Answer]] = field(default_factory=list)
    rlimit: int = RLIMIT
    law: Optional["Proof"] = None  # the law's proof, for a step proved apart from it
    proven: dict[Any, bool] = field(default_factory=dict)  # loop steps proved, at the law's proof
    checked: int = 0  # the obligations in `found` already proved
    proved: dict[int, list[Any]] = field(default_factory=dict)  # the parts proved here, by term id

    def all_assumptions(self) -> list[Any]:
        above = self.parent.all_assumptions() if self.parent else []
        return above + self.assumptions

    def assume(self, *facts) -> None:
        self.assumptions.extend(facts)

    def cached(self, key):
        proof: Proof | None = self
        while proof is not None:
            if key in proof.cache:
                return proof.cache[key]
            proof = proof.parent
        return None

    def root(self) -> "Proof":
        if self.parent:
            return self.parent.root()
        return self.law.root() if self.law else self

    def record(self, name: str, answer: Answer) -> None:
        self.root().answers.append((name, answer))

    def check(self, name: str, claim) -> None:
        """Prove `claim` and every obligation so far under the assumptions, or raise Unproved.
        Each conjunct is its own query: Z3 is much faster on several small ones than on one."""
        assumptions = self.all_assumptions()
        parts = [(part, name) for part in conjuncts(claim)]
        parts += [(part, f"{name}: the model's code may fail: {why}") for condition, why in self.found[self.checked:]
                  for part in conjuncts(condition)]
        self.checked = len(self.found)
        seconds = 0.0
        for part, said in parts:
            if truth(part) is True or any(part.eq(known) for known in assumptions) or self.already_proved(part):
                continue
            answer = prove(part, assumptions, self.rlimit)
            seconds += answer.seconds
            if not answer.proved:
                self.record(name, answer)
                raise Unproved(failed_answer(said, answer))
            self.proved.setdefault(part.get_id(), []).append(part)
        self.record(name, Answer("unsat", seconds))

    def already_proved(self, part) -> bool:
        """`part` was proved here or above: assumptions only grow (a proof's own, and each
        above it), so what held under fewer holds under these. Every query costs a context of its
        own (laws.z3_core), and the same obligation recurs with each call of the same code."""
        proof: Proof | None = self
        while proof is not None:
            if any(known.eq(part) for known in proof.proved.get(part.get_id(), ())):
                return True
            proof = proof.parent
        return False

    @contextmanager
    def under(self, *hypotheses) -> Iterator["Proof"]:
        """A part of the proof that may also assume `hypotheses` (a case of the claim)."""
        with inside(Proof(self.loops, list(hypotheses), self, rlimit=self.rlimit)) as given:
            yield given
            given.check("the code's side conditions", z3.BoolVal(True))

    def witnessed(self, name: str, *extra) -> None:
        if not satisfiable(self.all_assumptions() + list(extra), self.rlimit):
            raise Unproved(vacuous(name))


_PROOFS: list[Proof] = []


def current() -> Proof:
    if not _PROOFS:
        raise RuntimeError("the model ran on Z3 terms outside a proof")
    return _PROOFS[-1]


@contextmanager
def inside(proof: Proof) -> Iterator[Proof]:
    _PROOFS.append(proof)
    try:
        with obligations() as found:
            proof.found = found
            yield proof
    finally:
        _PROOFS.pop()


def child(hypotheses) -> Proof:
    parent = current()
    return Proof(parent.loops, list(hypotheses), parent, rlimit=parent.rlimit)


def apart(hypotheses) -> Proof:
    """A proof that shares none of the current assumptions: a loop's step, for any inputs."""
    law = current().root()
    return Proof(law.loops, list(hypotheses), None, rlimit=law.rlimit, law=law)


def generalized(env: dict[str, Any]) -> dict[str, Any]:
    """The loop's inputs with every term replaced by a fresh one of its kind; functions and Python
    values stay (a function's own inputs are terms the law chose, or Python values)."""
    found = {}
    for name, value in env.items():
        if isinstance(value, (Sym, SymBool, SymText, ZSeq)):
            found[name] = fresh(shape_of(value), f"any_{name}")
        else:
            found[name] = value
    return found


def rebound(function, env: dict[str, Any]):
    """The same nested function, seeing `env` instead of its enclosing function's values."""
    cells = tuple(types.CellType(env[name]) for name in function.__code__.co_freevars)
    copy = types.FunctionType(function.__code__, function.__globals__, function.__name__,
                              function.__defaults__, cells)
    copy.__qualname__ = function.__qualname__
    return copy


def kept_inputs(env: dict[str, Any]):
    """The inputs a step proved apart still depends on: all but the terms it generalized."""
    return fingerprint(tuple((name, value) for name, value in sorted(env.items())
                             if not isinstance(value, (Sym, SymBool, SymText, ZSeq))), trees_alike=True)


def step_once(name: str, loop: "Loop", env: dict[str, Any], prove_step: Callable[[dict[str, Any]], None]) -> None:
    """Prove the loop's step once per law and per kind of input, apart from the call's context."""
    law = current().root()
    key = (name, id(loop), kept_inputs(env))
    if key in law.proven:
        return
    prove_step(generalized(env))
    law.proven[key] = True


def loop_for(body) -> Loop:
    name = body.__qualname__
    loops = current().loops
    if name not in loops:
        raise Unproved(f"the loop {name} ran on Z3 terms, but the law gives it no invariant")
    return loops[name]


# ---- the twins of model/base.py ----


def length(items):
    if isinstance(items, ZSeq):
        count = numeral(items.n)
        return count if count is not None else Sym(items.n)
    return len(items)


def item(items, k):
    if isinstance(items, SymTrie):
        return items.at(k)
    if isinstance(items, ZSeq):
        index = Sym.lift(k)
        oblige(z3.And(-items.n <= index, index < items.n), "item: an index out of range")
        position = numeral(index)
        if position is not None and position >= 0:
            return items.at(index)
        return items.at(z3.If(index >= 0, index, items.n + index))
    if is_python_int(k):
        return items[k]
    raise TypeError("item: a symbolic index into a Python tuple")


def appended(items, new):
    if isinstance(items, ZSeq):
        arrays = {f: z3.Store(items.arrays[f], items.n, LIFT[s](items.kind.parts(new)[f]))
                  for f, s in items.kind.fields}
        return ZSeq(items.kind, arrays, items.n + 1)
    return items + (new,)


def pair_replaced(items, k, new):
    if not isinstance(items, ZSeq):
        if is_python_int(k):
            return items[:k] + (new,) + items[k + 2 :]
        raise TypeError("pair_replaced: a symbolic index into a Python tuple")
    index = Sym.lift(k)
    # Python's slices never raise; the twin is the same only for a pair inside the tuple
    oblige(z3.And(0 <= index, index + 1 < items.n), "pair_replaced: the pair is not inside the tuple")
    j = z3.Int(fresh_name("j"))
    parts = items.kind.parts(new)
    arrays = {}
    for f, s in items.kind.fields:
        a = items.arrays[f]
        arrays[f] = z3.Lambda([j], z3.If(j < index, a[j], z3.If(j == index, LIFT[s](parts[f]), a[j + 1])))
    return ZSeq(items.kind, arrays, items.n - 1)


def replaced(items, k, new):
    if isinstance(items, SymTrie):
        return items.replaced(k, new)
    if not isinstance(items, ZSeq):
        if is_python_int(k):
            return items[:k] + (new,) + items[k + 1 :]
        raise TypeError("replaced: a symbolic index into a Python tuple")
    index = Sym.lift(k)
    # Python's slices never raise; the twin is the same only for an item inside the tuple
    oblige(z3.And(0 <= index, index < items.n), "replaced: the item is not inside the tuple")
    parts = items.kind.parts(new)
    arrays = {f: z3.Store(items.arrays[f], index, LIFT[s](parts[f])) for f, s in items.kind.fields}
    return ZSeq(items.kind, arrays, items.n)


def padded(items, count, filler):
    if not isinstance(items, ZSeq):
        if is_python_int(count):
            return items + (filler,) * (count - len(items))
        raise TypeError("padded: a symbolic count of a Python tuple")
    size = Sym.lift(count)
    j = z3.Int(fresh_name("j"))
    parts = items.kind.parts(filler)
    arrays = {f: z3.Lambda([j], z3.If(j < items.n, items.arrays[f][j], LIFT[s](parts[f]))) for f, s in items.kind.fields}
    return ZSeq(items.kind, arrays, z3.If(size > items.n, size, items.n))


def prefix(items, count):
    if not isinstance(items, ZSeq):
        if is_python_int(count):
            return items[:count]
        raise TypeError("prefix: a symbolic count of a Python tuple")
    size = Sym.lift(count)
    oblige(z3.And(0 <= size, size <= items.n), "prefix: a count outside 0..length")
    return ZSeq(items.kind, dict(items.arrays), size)


def mapped(items, change):
    if not isinstance(items, ZSeq):
        return tuple(change(old) for old in items)
    # one name for every map's bound index: the same map of the same items is then the same term,
    # so a loop over it is recognised as the same call (the change never maps again, see below)
    j = z3.Int("j_mapped")
    proof = current()
    inner = Proof(proof.loops, [0 <= j, j < items.n], proof, rlimit=proof.rlimit)
    with inside(inner):
        new = change(items.at(j))
    if inner.assumptions[2:]:
        raise Unproved("mapped: a loop inside the change of each item is not supported")
    for condition, why in inner.found:
        oblige(z3.ForAll([j], z3.Implies(z3.And(0 <= j, j < items.n), condition)), why)
    parts = items.kind.parts(new)
    arrays = {f: z3.Lambda([j], LIFT[s](parts[f])) for f, s in items.kind.fields}
    return ZSeq(items.kind, arrays, items.n)


def choose(condition, then, otherwise):
    if isinstance(condition, bool):
        return then if condition else otherwise
    if not isinstance(condition, SymBool):
        raise TypeError(f"choose: the condition is a {type(condition).__name__}")
    known = truth(condition.term)
    if known is not None:
        return then if known else otherwise
    from laws.z3_core import BRANCHES
    if BRANCHES and getattr(BRANCHES[-1], "path", None) is current():
        # exploring a path of `step`: a choice there is a branch, taken both ways like an `if`
        return then if BRANCHES[-1](condition.term) else otherwise
    return merged(condition.term, then, otherwise)


def fold(count, start, body):
    if is_python_int(count):
        value = start
        for k in range(count):
            value = body(value, k)
        return value
    proof = current()
    key = ("fold", fingerprint(body), fingerprint(start), fingerprint(count))
    known = proof.cached(key)
    if known is not None:
        return known
    loop = loop_for(body)
    env = loop_inputs(body, sys._getframe(1))
    shape = loop.shape or shape_of(start)
    name = body.__qualname__
    n = Sym.lift(count)
    requires = loop.requires or (lambda env, count: z3.BoolVal(True))
    oblige(requires(env, Sym(n)), f"{name}: the loop's precondition")
    with inside(child([])) as base_case:
        base_case.check(f"{name}: the invariant holds at the start",
                        loop.invariant(env, Sym(z3.IntVal(0)), lifted(shape, start)))

    def prove_step(any_env):
        any_body = rebound(body, any_env)
        k, any_n = z3.Int(fresh_name("k")), z3.Int(fresh_name("n"))
        value = fresh(shape, "acc")
        hypotheses = [requires(any_env, Sym(any_n)), 0 <= k, k < any_n, loop.invariant(any_env, Sym(k), value)]
        if loop.index_facts:
            hypotheses += loop.index_facts(any_env, Sym(k), value)
        with inside(apart(hypotheses + loop.step_facts(any_env, value))) as step:
            after = lifted(shape, any_body(value, Sym(k)))
            step.check(f"{name}: the body keeps the invariant", loop.invariant(any_env, Sym(k + 1), after))

    step_once(name, loop, env, prove_step)
    result = fresh(shape, "folded")
    proof.assume(z3.Implies(n > 0, loop.invariant(env, Sym(n), result)),
                 z3.Implies(n <= 0, same(shape, result, lifted(shape, start))))
    proof.cache[key] = result
    return result


def repeat(going_on, body, start):
    state = start
    while True:
        guard = going_on(state)
        if not isinstance(guard, bool):
            known = truth(guard.term)
            if known is None:
                break
            guard = known
        if not guard:
            return state
        state = body(state)
    proof = current()
    key = ("repeat", fingerprint(going_on), fingerprint(body), fingerprint(state))
    known_result = proof.cached(key)
    if known_result is not None:
        return known_result
    loop = loop_for(body)
    env = {**loop_inputs(body, sys._getframe(1)), **closure(going_on)}
    shape = loop.shape or shape_of(state)
    name = body.__qualname__
    first = lifted(shape, state)
    if loop.variant is None:
        raise Unproved(f"{name}: a `repeat` needs a variant, or its end is not proved")
    requires = loop.requires or (lambda env: z3.BoolVal(True))
    oblige(requires(env), f"{name}: the loop's precondition")
    with inside(child([])) as base_case:
        base_case.check(f"{name}: the invariant holds at the start", loop.invariant(env, first))

    def prove_step(any_env):
        any_going_on, any_body = rebound(going_on, any_env), rebound(body, any_env)
        value = fresh(shape, "state")
        hypotheses = [requires(any_env), loop.invariant(any_env, value)] + loop.step_facts(any_env, value)
        with inside(apart(hypotheses)) as step:
            goes_on = SymBool.lift(any_going_on(value))
            step.check(f"{name}: its guard can be evaluated", z3.BoolVal(True))
            with inside(child([goes_on])) as inner:
                after = lifted(shape, any_body(value))
                measure = loop.variant(any_env, value)
                claim = z3.And(loop.invariant(any_env, after), measure >= 0, loop.variant(any_env, after) < measure)
                inner.check(f"{name}: the body keeps the invariant and the variant drops", claim)

    step_once(name, loop, env, prove_step)
    result = fresh(shape, "repeated")
    proof.assume(loop.invariant(env, result))
    proof.assume(z3.Not(SymBool.lift(going_on(result))))
    proof.assume(z3.Implies(z3.Not(SymBool.lift(going_on(first))), same(shape, result, first)))
    proof.cache[key] = result
    return result


def python_int(value) -> int | None:
    """A Python int, or a term Z3 simplifies to one (then the twin can compute exactly)."""
    if is_python_int(value):
        return value
    return numeral(value.term) if isinstance(value, Sym) else None


def decimal(n):
    known = python_int(n)
    if known is not None:
        return str(known)
    return SymText(DECIMAL(Sym.lift(n)))


def utf8_bytes(text):
    if isinstance(text, SymText):
        return Sym(UTF8_BYTES(text.term))
    return len(text.encode("utf-8"))


def on_tree(name: str, tree, l, i):
    if isinstance(tree, SymTree):
        function = tree.has if name == "tree_has" else tree.text
        return (SymBool if name == "tree_has" else SymText)(function(Sym.lift(l), Sym.lift(i)))
    # any other tree is the model's own: its code runs (on terms, in laws.z3_tree)
    l_known, i_known = python_int(l), python_int(i)
    if l_known is None or i_known is None:
        return ORIGINALS[name](tree, l, i)
    return ORIGINALS[name](tree, l_known, i_known)


def tree_has(tree, l, i):
    return on_tree("tree_has", tree, l, i)


def tree_text(tree, l, i):
    return on_tree("tree_text", tree, l, i)


def tree_put(tree, l, i, text):
    """On a tree the proofs know nothing about, the same tree but for node (l, i), which now
    holds `text`."""
    if isinstance(tree, SymTree):
        return SymTree.put(tree, Sym.lift(l), Sym.lift(i), SymText.lift(text))
    return ORIGINALS["tree_put"](tree, l, i, text)


ORIGINALS = {
    "length": base.length, "item": base.item, "appended": base.appended,
    "pair_replaced": base.pair_replaced, "replaced": base.replaced, "padded": base.padded,
    "prefix": base.prefix, "mapped": base.mapped,
    "choose": base.choose, "fold": base.fold, "repeat": base.repeat, "decimal": base.decimal,
    "utf8_bytes": base.utf8_bytes, "tree_has": tree_module.tree_has, "tree_text": tree_module.tree_text,
    "tree_put": tree_module.tree_put,
}
TWINS = {
    "length": length, "item": item, "appended": appended, "pair_replaced": pair_replaced,
    "replaced": replaced, "padded": padded, "prefix": prefix, "mapped": mapped, "choose": choose, "fold": fold, "repeat": repeat,
    "decimal": decimal, "utf8_bytes": utf8_bytes, "tree_has": tree_has, "tree_text": tree_text,
    "tree_put": tree_put,
}
SEQUENCE_TWINS = ("length", "item", "appended", "pair_replaced", "prefix", "mapped", "choose")
TREE_TWINS = ("length", "item", "replaced", "padded")  # model/tree.py's, on levels and on tries
LOOP_RULES = ("fold", "repeat")
UNKNOWN_FUNCTIONS = ("decimal", "utf8_bytes", "tree_has", "tree_text", "tree_put")
# Named facts a proof assumes as rules (not proved by it): each must have a canary in
# laws/canaries.py, aimed at "rule NAME" (tests/laws/test_canaries.py lists them from here).
# laws/z3_ceiling.py's rules on text sizes (its line_size_rules)
TRUSTED_FACTS: tuple[str, ...] = ("utf8_bytes adds over concatenation", "a decimal below 10^k has k digits",
                                  "escaping at most triples", "a literal's bytes", "a built text's 512 bytes",
                                  "decimal(1) is its digit")  # the last: laws/z3_events.py's, as the twin computes
MODULES = (base, tree_module, model.view, model.planner, model.push, model.line)
RAN: dict[Any, None] = {}  # the model's code objects that ran on Z3 terms, in order
RECORDED = {"complete": True}


def record_call(frame, event, arg) -> None:
    """The global trace function: Python calls it at each Python function's call only (not at C
    calls and returns, as a profile function), and its None leaves the frame untraced."""
    code = frame.f_code
    if code.co_filename.startswith(MODEL_FOLDER):
        RAN.setdefault(code, None)


MODEL_FOLDER = str(__import__("pathlib").Path(model.view.__file__).resolve().parent)


@contextmanager
def running(proof: Proof) -> Iterator[Proof]:
    """Inside: the model's modules use the twins, and `proof` collects what the code needs."""
    by_identity = {id(function): TWINS[name] for name, function in ORIGINALS.items()}
    swapped = []
    for module in MODULES:
        for attribute, value in list(vars(module).items()):
            twin = by_identity.get(id(value))
            if twin is not None:
                swapped.append((module, attribute, value))
                setattr(module, attribute, twin)
    # the trace function, not a profile function: a profile function is also called at every C
    # call and return (each of Z3's ctypes calls), which took a third of the history proofs' time
    previous = sys.gettrace()
    if previous is None:
        sys.settrace(record_call)
    else:
        RECORDED["complete"] = False  # another tracer runs (a coverage tool, a debugger): it is not replaced
    try:
        with inside(proof):
            yield proof
    finally:
        if previous is None:
            sys.settrace(None)
        for module, attribute, value in swapped:
            setattr(module, attribute, value)


def identity_tests(allowed: tuple[str, ...] = ()) -> list[str]:
    """Each model function that ran on Z3 terms and tests identity or type, which no term can
    answer for itself: `x is None` on a term is always False, silently."""
    if not RECORDED["complete"]:
        return ["the functions that ran on Z3 terms could not be recorded (another tracer ran)"]
    found = []
    for code in RAN:
        try:
            source = textwrap.dedent(inspect.getsource(code))
        except (OSError, TypeError):
            continue
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
                found.append(f"{code.co_qualname} tests `is` at line {code.co_firstlineno + node.lineno - 1}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("isinstance", "type", "id"):
                if (code.co_qualname, node.func.id) in allowed:
                    continue
                found.append(f"{code.co_qualname} calls {node.func.id}() at line {code.co_firstlineno + node.lineno - 1}")
    return sorted(set(found))


def run_law(name: str, loops: dict[str, Loop], body: Callable[[Proof], None], assumptions=()) -> tuple[bool, str, list[tuple[str, Answer]]]:
    """Run `body` (which calls the model and `proof.check`s claims) inside a proof. Returns
    (proved, problem, answers)."""
    if not _PROOFS:
        reset_names()  # a law's queries the same whatever ran before it, in a test as in `make laws`
    proof = Proof(loops, list(assumptions))
    RAN.clear()
    RECORDED["complete"] = True
    try:
        with running(proof):
            body(proof)
            proof.check(f"{name}: the code's side conditions", z3.BoolVal(True))
    except Unproved as error:
        return False, str(error), proof.answers
    except (TypeError, ValueError, AttributeError, IndexError) as error:
        return False, f"{name}: the model's code does not run on Z3 terms: {type(error).__name__}: {error}", proof.answers
    problems = identity_tests()
    if problems:
        return False, f"{name}: " + "; ".join(problems), proof.answers
    return True, "", proof.answers


# ---- the planner's events: both ways of each branch, the work queue left unknown ----
#
# `step` branches with `if` on what the event and the state hold. `explore` runs a law's body
# once per path: each condition Python asks of a term (an `if`, `and`, `or`, `not`, `in`,
# `assert`) is answered True on one path and False on another, and the path assumes what it
# chose, so the paths together cover every run. A path on which the model's own `assert`
# refuses the event ends there: no state follows it.

BUILD = model.planner.build


class Unknown:
    """A value of the work queue (ready, running, failures, retry_later) the proofs know nothing
    about: whether it holds a node is a condition of its own, and what is added to it gives
    another value the proofs know nothing about."""

    __slots__ = ()

    def __contains__(self, node):
        return SymBool(z3.Bool(fresh_name("holds")))

    def __add__(self, other):
        return Unknown()

    __radd__ = __add__
    __len__ = no_python_value("work-queue value")
    __iter__ = no_python_value("work-queue value")

    def __repr__(self) -> str:
        return "Unknown()"


VALID_TEXT = z3.Function("is_valid_text", TEXT, z3.BoolSort())


def unknown_queue(*arguments):
    return Unknown()


def unknown_count(failures, node):
    return Sym(z3.Int(fresh_name("failures")))


def unknown_schedule(state):
    return SymBool(z3.Bool(fresh_name("waiting"))), Unknown(), Unknown(), Unknown()


def unknown_text(state, l, i):
    return SymText(z3.Const(fresh_name("capped"), TEXT))


def unknown_valid(text):
    return SymBool(VALID_TEXT(SymText.lift(text)))


# The planner's functions a proof about the views leaves unknown: each computes a value of the
# work queue, a condition the paths take both ways, or a capped line's text, from its arguments
# alone (the model's dataclasses are frozen), so a claim about the views proved for any results
# holds for theirs.
QUEUE_UNKNOWN = {
    "without": unknown_queue, "failures_without": unknown_queue, "queue_by_last": unknown_queue,
    "failure_count": unknown_count, "schedule": unknown_schedule, "capped_text": unknown_text,
    "is_valid_text": unknown_valid,
}
HYPOTHESES = {"build": 0}  # how many calls the build lemma stood for, in the last explore


def proves(condition) -> bool:
    if isinstance(condition, bool):
        return condition
    known = truth(condition.term)
    if known is not None:
        return known
    # a question, not a claim: `sat` only means the build runs as the model's code
    answer = prove(condition.term, current().all_assumptions(), current().rlimit, shown=False)
    current().record("build at level ≥ 1", answer)
    return answer.proved


def build_by_lemma(state, l, i, text):
    """A build at a level proved ≥ 1 is the build lemma (laws.z3_events, proved by induction on
    the depth of the recursion, this being the hypothesis): its state has every field as before
    but the tree and the work queue, which are any, the tree holding every node it held. A
    build at level 0 is the level-0 lemma
    (proved on the model's code with the first as its inner build): the views' line (0, i) is
    built with the text, and the rest as for the first. Else the model's own code runs."""
    above = proves(l >= 1)
    zero = not above and is_python_int(l) and l == 0 and LEMMAS["level 0"]
    if not (above or zero):
        return BUILD(state, l, i, text)
    HYPOTHESES["build"] += 1
    grown = SymTree(fresh_name("tree"))
    current().assume(state.tree.within(grown))
    forgotten = dict(tree=grown, ready=Unknown(), running=Unknown(), failures=Unknown(), retry_later=Unknown())
    if above:
        return dataclass_replace(state, **forgotten)
    line = model.view.built_line(0, i, text)
    return dataclass_replace(state, view=model.planner.with_line(state.view, line),
                             cview=model.planner.with_line(state.cview, line), **forgotten)


LEMMAS = {"level 0": True}  # off while the level-0 lemma itself is proved


@contextmanager
def planner_unknown(lemma: bool) -> Iterator[None]:
    """Inside: model/planner.py's work-queue functions are left unknown, and, when `lemma`, each
    build at level ≥ 1 is the build lemma."""
    swapped = {**QUEUE_UNKNOWN, **({"build": build_by_lemma} if lemma else {})}
    saved = {name: getattr(model.planner, name) for name in swapped}
    for name, function in swapped.items():
        setattr(model.planner, name, function)
    try:
        yield
    finally:
        for name, function in saved.items():
            setattr(model.planner, name, function)


def refused_by_model(error: AssertionError) -> bool:
    """The model's own `assert` refused the event (not an assertion of these laws' machinery)."""
    frames = __import__("traceback").extract_tb(error.__traceback__)
    return bool(frames) and str(__import__("pathlib").Path(frames[-1].filename).resolve()).startswith(MODEL_FOLDER)


PATHS_MAX = 400


@dataclass
class Explored:
    proved: bool
    problem: str
    answers: list[tuple[str, Answer]]
    paths: int = 0
    refused: int = 0
    witnessed: int = 0


def explore(name: str, loops: dict[str, Loop], body: Callable[[Proof], None], lemma: bool = True,
            allowed: tuple[tuple[str, str], ...] = ()) -> Explored:
    """Run `body` on every path of the model's branches (see above). A path the model finishes
    must prove each claim `body` checks; one path at least must be witnessed: its assumptions,
    with the hints `body` leaves in `path.hints` (a small view, say), met by some values, so the
    proof is not vacuous."""
    from laws.z3_core import BRANCHES
    if not _PROOFS:
        reset_names()  # as in run_law
    root = Proof(loops)
    RAN.clear()
    RECORDED["complete"] = True
    HYPOTHESES["build"] = 0
    pending: list[tuple[bool, ...]] = [()]
    result = Explored(False, "", root.answers)
    try:
        with running(root), planner_unknown(lemma):
            while pending:
                forced = pending.pop()
                path = Proof(loops, [], root, rlimit=root.rlimit)
                chosen: list[tuple[Any, bool]] = []

                def branch(term, path=path, chosen=chosen, forced=forced) -> bool:
                    if current() is not path:
                        raise TypeError("a branch on a term inside a loop's body or a map: not explored")
                    known = truth(term)
                    if known is not None:
                        return known
                    for earlier, value in chosen:
                        if earlier.eq(term):
                            return value
                    k = len(chosen)
                    value = forced[k] if k < len(forced) else True
                    if k >= len(forced):
                        pending.append(tuple(v for _, v in chosen) + (False,))
                    chosen.append((term, value))
                    path.assume(term if value else z3.Not(term))
                    return value

                branch.path = path  # type: ignore[attr-defined]
                BRANCHES.append(branch)
                try:
                    with inside(path):
                        try:
                            body(path)
                        except AssertionError as error:
                            if not refused_by_model(error):
                                raise
                            result.refused += 1
                        else:
                            if not result.witnessed and satisfiable(path.all_assumptions() + getattr(path, "hints", []), RLIMIT // 10):
                                result.witnessed += 1
                        path.check(f"{name}: the code's side conditions", z3.BoolVal(True))
                finally:
                    BRANCHES.pop()
                result.paths += 1
                if result.paths > PATHS_MAX:
                    raise Unproved(f"{name}: more than {PATHS_MAX} paths")
    except Unproved as error:
        result.problem = str(error)
        return result
    except (TypeError, ValueError, AttributeError, IndexError) as error:
        result.problem = f"{name}: the model's code does not run on Z3 terms: {type(error).__name__}: {error}"
        return result
    problems = identity_tests(allowed)
    if problems:
        result.problem = f"{name}: " + "; ".join(problems)
        return result
    if not result.witnessed:
        result.problem = vacuous(name)
        return result
    result.proved = True
    return result
