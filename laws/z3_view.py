"""The view as Z3 arrays, and the steps that change it: append a line, merge two siblings, mark a
message's line built.

Strategy: a view of n lines is three arrays over the positions 0..n−1 — level L, index I and
built B — with `pow2` from laws.z3_core. `tiles(view, T)` says the lines cover messages 0..T−1,
each once, contiguous, oldest first, each a tree node (l ≥ 0, i ≥ 0: node (l, i) covers
i·2^l .. (i+1)·2^l − 1). Each step is a term over the arrays (`Store` and `Lambda`), so one proof
covers every length, every position and every level. The same step functions also run on concrete
views taken from model runs (`concrete_agrees`): Z3 simplifies the step's terms on the concrete
arrays, and the result must be the model's own next view, which ties the encoding to the model.
"""

from dataclasses import dataclass
from typing import Tuple

Lines = Tuple[Tuple[int, int, bool], ...]

import z3



@dataclass(frozen=True)
class ZView:
    L: object  # Array Int Int: levels
    I: object  # Array Int Int: indices
    B: object  # Array Int Bool: built
    n: object  # Int: the number of lines


def fresh(tag: str) -> ZView:
    return ZView(
        z3.Array("L" + tag, z3.IntSort(), z3.IntSort()),
        z3.Array("I" + tag, z3.IntSort(), z3.IntSort()),
        z3.Array("B" + tag, z3.IntSort(), z3.BoolSort()),
        z3.Int("n" + tag),
    )


# A node's first message and one past its last, as uninterpreted functions: the step proofs use
# only the facts `node_facts` names, each proved about the model's `first` and `last` by
# `laws.universal` (lemma nodes_halve), so the quantified proofs stay linear.
FIRST = z3.Function("first", z3.IntSort(), z3.IntSort(), z3.IntSort())
END = z3.Function("end", z3.IntSort(), z3.IntSort(), z3.IntSort())


def first_of(v: ZView, k):
    return FIRST(v.L[k], v.I[k])


def end_of(v: ZView, k):
    """One past the line's last message."""
    return END(v.L[k], v.I[k])


def halves_facts(l, i):
    """For even i ≥ 0 and l ≥ 0, node (l + 1, i / 2) starts where its left half (l, i) starts and
    ends where its right half (l, i + 1) ends: only for even i, as the lemma is proved."""
    even = z3.And(l >= 0, i >= 0, i % 2 == 0)
    return [z3.Implies(even, z3.And(FIRST(l + 1, i / 2) == FIRST(l, i), END(l + 1, i / 2) == END(l, i + 1)))]


def message_facts(i):
    """Node (0, i) is message i alone."""
    return [FIRST(0, i) == i, END(0, i) == i + 1]


def tiles(v: ZView, T, broken: str = ""):
    """The view covers messages 0..T−1, each once, contiguous, oldest first, each line a node."""
    k = z3.Int("k_tile")
    nodes = z3.ForAll([k], z3.Implies(z3.And(0 <= k, k < v.n), z3.And(v.L[k] >= 0, v.I[k] >= 0)))
    gap = 1 if broken == "gap" else 0
    contiguous = z3.ForAll(
        [k], z3.Implies(z3.And(0 <= k, k + 1 < v.n), end_of(v, k) + gap == first_of(v, k + 1))
    )
    empty = z3.And(v.n == 0, T == 0)
    some = z3.And(v.n > 0, first_of(v, 0) == 0, end_of(v, v.n - 1) == T)
    return z3.And(T >= 0, nodes, contiguous, z3.Or(empty, some))


def summarized(v: ZView):
    """Every merged line (level > 0) is built: only a message's own line can wait."""
    k = z3.Int("k_sum")
    return z3.ForAll([k], z3.Implies(z3.And(0 <= k, k < v.n, v.L[k] > 0), v.B[k]))


def append(v: ZView, T, built) -> ZView:
    """Message T's own line (0, T) goes at the end [gist §3.2]."""
    return ZView(z3.Store(v.L, v.n, 0), z3.Store(v.I, v.n, T), z3.Store(v.B, v.n, built), v.n + 1)


def merge(v: ZView, k, broken: str = "") -> ZView:
    """Lines k and k+1 are replaced by their parent (L[k] + 1, I[k] / 2), which is built."""
    j = z3.Int("j_merge")
    parent_i = v.I[k] / 2 if broken != "index" else v.I[k]
    L2 = z3.Lambda([j], z3.If(j < k, v.L[j], z3.If(j == k, v.L[k] + 1, v.L[j + 1])))
    I2 = z3.Lambda([j], z3.If(j < k, v.I[j], z3.If(j == k, parent_i, v.I[j + 1])))
    B2 = z3.Lambda([j], z3.If(j < k, v.B[j], z3.If(j == k, z3.BoolVal(broken != "unbuilt"), v.B[j + 1])))
    return ZView(L2, I2, B2, v.n - 1)


def siblings(v: ZView, k, broken: str = ""):
    """Lines k and k+1 are the two halves of one node [model/view.py is_pair]."""
    base = [0 <= k, k + 1 < v.n, v.L[k] == v.L[k + 1], v.I[k + 1] == v.I[k] + 1]
    if broken != "odd":
        base.append(v.I[k] % 2 == 0)
    return z3.And(base)


def mark_built(v: ZView, k) -> ZView:
    """A message's line gets its summary: the same node, now built [model/planner.py with_line]."""
    return ZView(v.L, v.I, z3.Store(v.B, k, True), v.n)


# ---- concrete views ----


def concrete(lines: Tuple[Tuple[int, int, bool], ...]) -> ZView:
    L = z3.K(z3.IntSort(), z3.IntVal(-1))
    I = z3.K(z3.IntSort(), z3.IntVal(-1))
    B = z3.K(z3.IntSort(), z3.BoolVal(False))
    for position, (l, i, built) in enumerate(lines):
        L = z3.Store(L, position, l)
        I = z3.Store(I, position, i)
        B = z3.Store(B, position, built)
    return ZView(L, I, B, z3.IntVal(len(lines)))


def equals_concrete(v: ZView, lines: Tuple[Tuple[int, int, bool], ...]) -> bool:
    """Z3 simplifies the view's terms to exactly these lines."""
    facts = [v.n == len(lines)]
    for position, (l, i, built) in enumerate(lines):
        facts.append(v.L[position] == l)
        facts.append(v.I[position] == i)
        facts.append(v.B[position] == built)
    return z3.is_true(z3.simplify(z3.And(facts)))


# ---- the bounded twins: the same steps on concrete views, every small view enumerated ----


def all_tilings(T: int, level_max: int) -> Tuple[Lines, ...]:
    """Every view of messages 0..T−1 whose lines are nodes of level ≤ level_max, built or not."""
    if T == 0:
        return ((),)
    found = []
    for rest in all_tilings_from(0, T, level_max):
        found.append(rest)
    return tuple(found)


def all_tilings_from(start: int, T: int, level_max: int):
    if start == T:
        yield ()
        return
    for l in range(level_max + 1):
        size = 1 << l
        if start % size or start + size > T:
            continue
        for built in (False, True) if l == 0 else (True,):
            for rest in all_tilings_from(start + size, T, level_max):
                yield ((l, start >> l, built),) + rest


def twin_tiles(lines: Lines, T: int, broken: str = "") -> bool:
    gap = 1 if broken == "gap" else 0
    position = 0
    for l, i, _ in lines:
        if l < 0 or i < 0 or i << l != position:
            return False
        position = ((i + 1) << l) + gap
    return position - gap == T if lines else T == 0


def twin_siblings(lines: Lines, k: int, broken: str = "") -> bool:
    if not (0 <= k and k + 1 < len(lines)):
        return False
    (la, ia, _), (lb, ib, _) = lines[k], lines[k + 1]
    return la == lb and ib == ia + 1 and (broken == "odd" or ia % 2 == 0)


def twin_merge(lines: Lines, k: int, broken: str = "") -> Lines:
    l, i, _ = lines[k]
    parent_i = i if broken == "index" else i // 2
    return lines[:k] + ((l + 1, parent_i, broken != "unbuilt"),) + lines[k + 2 :]


def twin_counterexample(T_max: int, level_max: int, broken: str = ""):
    """The first small view where a merge of siblings breaks the tiling or the summaries, or
    None: the bounded twin of the Z3 merge proofs."""
    for T in range(T_max + 1):
        for lines in all_tilings(T, level_max):
            for k in range(len(lines) - 1):
                if not twin_siblings(lines, k, broken):
                    continue
                merged = twin_merge(lines, k, broken)
                if not twin_tiles(merged, T, broken if broken == "gap" else ""):
                    return lines, k, merged
                if not all(built or l == 0 for l, _, built in merged):
                    return lines, k, merged
    return None
