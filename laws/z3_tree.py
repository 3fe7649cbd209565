"""tree_lookup_gives_what_was_put, proved on model/tree.py's own code run on Z3 terms: for any
tree, any nodes (l, i), (l', j) with l, i, l', j ≥ 0 and any text x,

    tree_get(tree_put(tree, l, i, x), l', j) = x if (l', j) = (l, i), else tree_get(tree, l', j)

(and tree_has, tree_text with it), and tree_get(Tree(), l', j) is None, so tree_has is False and
tree_text is "". This is what the history laws take the tree to be: two functions of (l, i), and
tree_put their update at (l, i) (laws.z3_model `SymTree`).

Strategy: a trie is a value of the Z3 datatype TRIE, a text-or-None one of MAYBE, a tree's levels
a sequence of tries of any length (laws.z3_model `SymTrie`, `SymMaybe`, `LEVEL`). The model's
functions run as written, every `if` on a term taken both ways (laws.z3_model `explore`):

- `trie_get` recurses once per digit of i. Its recursive call is `trie_get` itself, an
  uninterpreted function G of (trie, i): whatever the lookup is, it is some function, and the one
  call's code (empty? i = 0? the digit's child) is what runs on terms. That the empty trie holds
  nothing is proved first on the code (G(empty, j) = None), and used as a fact about G.
- `trie_put` recurses once per digit of i. Its recursive call is the induction hypothesis: on
  the child and i >> 4 (which must be ≥ 0 and below i: an obligation, so the induction is on i),
  its result P satisfies the lemma, trie_get(P, j') = x if j' = i >> 4, else trie_get(child, j'),
  at the one j' the claim's lookup reads (j >> 4). So, for any trie, i ≥ 0, j ≥ 0 and text x:
  trie_get(trie_put(trie, i, x), j) = x if j = i, else trie_get(trie, j): the trie lemma.
- `tree_get` and `tree_put` then run on a tree of any levels, with trie_get and trie_put as
  uninterpreted functions that meet the trie lemma and the empty trie's fact at the lookup's j.

Trusted: the integer encoding, model/base.py's `length`, `item`, `replaced` and `padded` on a
tree's levels and on tries (twins_agree checks them against Python), and the two recursion rules
(the recursive lookup as the function itself, the recursive put by induction on i). The earlier
exhaustive check (every i < 2^16 at three levels) runs as a cross-check, not a link.
"""

from collections.abc import Iterator
from contextlib import contextmanager

import z3

import model.tree as tree_module
from laws import z3_model as zm
from laws.z3_core import Answer, Sym, SymBool, oblige
from model.tree import Tree, tree_get, tree_has, tree_put, tree_text

LOOKUP = z3.Function("trie_get", zm.TRIE, z3.IntSort(), zm.MAYBE)
PUT = z3.Function("trie_put", zm.TRIE, z3.IntSort(), zm.TEXT, zm.TRIE)
TRIE_GET, TRIE_PUT = tree_module.trie_get, tree_module.trie_put


def maybe(value):
    """A lookup's result as a MAYBE term: None, or some text."""
    return zm.SymMaybe.lift(value)


def text_of(value):
    """tree_text's result as a text term: "" or the text found."""
    if isinstance(value, zm.SymMaybe):
        return zm.MAYBE.value(value.term)
    return zm.SymText.lift(value)


def a_text(name: str) -> zm.SymText:
    return zm.SymText(z3.Const(name, zm.TEXT))


def digits_down(j):
    """j >> DIGIT_BITS as a term: the index the recursive lookup reads."""
    return Sym.lift(Sym(j) >> tree_module.DIGIT_BITS)


@contextmanager
def tries_as(trie_get, trie_put) -> Iterator[None]:
    """Inside: model/tree.py calls these for trie_get and trie_put (its recursive calls too),
    and its node constant is its term."""
    saved = tree_module.trie_get, tree_module.trie_put, tree_module.NODE
    tree_module.trie_get, tree_module.trie_put = trie_get, trie_put
    tree_module.NODE = zm.SymTrie(zm.SymTrie.lift(saved[2]))
    try:
        yield
    finally:
        tree_module.trie_get, tree_module.trie_put, tree_module.NODE = saved


def lookup_by_function(trie, k):
    return zm.SymMaybe(LOOKUP(zm.SymTrie.lift(trie), Sym.lift(k)))


def first_call_runs(original, inner):
    """The outermost call runs the model's code; the calls it makes itself are `inner`."""
    depth = [0]

    def call(*arguments):
        if depth[0]:
            return inner(*arguments)
        depth[0] += 1
        try:
            return original(*arguments)
        finally:
            depth[0] -= 1
    return call


def empty_trie_body(path: zm.Proof) -> None:
    j = z3.Int("E.j")
    path.assume(j >= 0)
    with tries_as(first_call_runs(TRIE_GET, lookup_by_function), TRIE_PUT):
        found = tree_module.trie_get(zm.SymTrie(zm.TRIE.empty), Sym(j))
    path.check("the empty trie holds nothing", maybe(found) == zm.MAYBE.none)


def trie_lemma_body(path: zm.Proof) -> None:
    trie, x = zm.SymTrie(z3.Const("P.trie", zm.TRIE)), a_text("P.x")
    i, j = z3.Ints("P.i P.j")
    path.assume(i >= 0, j >= 0, LOOKUP(zm.TRIE.empty, digits_down(j)) == zm.MAYBE.none)
    path.hints = []

    def by_hypothesis(child, k, text):
        # the induction on i: the recursive call's i is ≥ 0 and below the caller's
        index = Sym.lift(k)
        oblige(z3.And(0 <= index, index < i), "trie_put's recursive call: its i is not in 0..i − 1")
        put = z3.Const(zm.fresh_name("put"), zm.TRIE)
        j_down = digits_down(j)
        path.assume(LOOKUP(put, j_down) == z3.If(j_down == index, zm.MAYBE.some(zm.SymText.lift(text)),
                                                 LOOKUP(zm.SymTrie.lift(child), j_down)))
        return zm.SymTrie(put)

    with tries_as(first_call_runs(TRIE_GET, lookup_by_function), first_call_runs(TRIE_PUT, by_hypothesis)):
        after = tree_module.trie_put(trie, Sym(i), x)
        now = tree_module.trie_get(after, Sym(j))
        before = tree_module.trie_get(trie, Sym(j))
    path.check("trie_get(trie_put(trie, i, x), j) is x at j = i, else trie_get(trie, j)",
               maybe(now) == z3.If(i == j, zm.MAYBE.some(x.term), maybe(before)))


def tree_body(path: zm.Proof) -> None:
    tree = Tree(zm.ZSeq.fresh(zm.LEVEL, "T.levels"))
    l, i, l2, j = z3.Ints("T.l T.i T.l2 T.j")
    x = a_text("T.x")
    path.assume(l >= 0, i >= 0, l2 >= 0, j >= 0, LOOKUP(zm.TRIE.empty, j) == zm.MAYBE.none)
    path.hints = [tree.levels.n == 1]

    def put_by_lemma(trie, k, text):
        index = Sym.lift(k)
        oblige(index >= 0, "trie_put: a negative index")
        before = zm.SymTrie.lift(trie)
        put = PUT(before, index, zm.SymText.lift(text))
        path.assume(LOOKUP(put, j) == z3.If(j == index, zm.MAYBE.some(zm.SymText.lift(text)), LOOKUP(before, j)))
        return zm.SymTrie(put)

    with tries_as(lookup_by_function, put_by_lemma):
        after = tree_put(tree, Sym(l), Sym(i), x)
        at = z3.And(l2 == l, j == i)
        node = (Sym(l2), Sym(j))
        path.check("a lookup gives the text put at that node, and what it gave before at any other",
                   maybe(tree_get(after, *node)) == z3.If(at, zm.MAYBE.some(x.term), maybe(tree_get(tree, *node))))
        path.check("tree_has: the node put, and every node held before",
                   SymBool.lift(tree_has(after, *node)) == z3.Or(at, SymBool.lift(tree_has(tree, *node))))
        path.check("tree_text: the text put at that node, the text before at any other",
                   text_of(tree_text(after, *node)) == z3.If(at, x.term, text_of(tree_text(tree, *node))))


def empty_tree_body(path: zm.Proof) -> None:
    l2, j = z3.Ints("N.l2 N.j")
    path.assume(l2 >= 0, j >= 0, LOOKUP(zm.TRIE.empty, j) == zm.MAYBE.none)
    empty = Tree(zm.ZSeq.of(zm.LEVEL, Tree().levels))  # Tree(), its levels () as a sequence term
    node = (Sym(l2), Sym(j))
    with tries_as(lookup_by_function, TRIE_PUT):
        path.check("Tree() holds nothing", z3.And(maybe(tree_get(empty, *node)) == zm.MAYBE.none,
                                                  z3.Not(SymBool.lift(tree_has(empty, *node))),
                                                  text_of(tree_text(empty, *node)) == zm.literal("")))


PARTS = (("the empty trie", empty_trie_body), ("the trie lemma", trie_lemma_body), ("the tree", tree_body),
         ("the empty tree", empty_tree_body))


def tree_proofs() -> tuple[bool, str, list[tuple[str, Answer]], int]:
    """(proved, problem, answers, paths) of the three parts, in order."""
    answers: list[tuple[str, Answer]] = []
    paths = 0
    for name, body in PARTS:
        found = zm.explore(f"tree_lookup_gives_what_was_put: {name}", {}, body, lemma=False)
        answers += found.answers
        paths += found.paths
        if not found.proved:
            return False, found.problem, answers, paths
    return True, "", answers, paths


# ---- the trie twins against Python (a part of twins_agree) ----


def trie_pool() -> tuple:
    """Tries that tell every slot apart: empty, a bare node, nodes with texts and children."""
    node = tree_module.NODE
    leaf = ("a",) + node[1:]
    mixed = ("b", leaf) + node[2:-1] + (node,)
    return ((), node, leaf, mixed, tree_module.replaced(mixed, 5, leaf))


def same_value(got, expected) -> bool:
    if isinstance(expected, tuple):
        return z3.simplify(zm.SymTrie.lift(got)).eq(z3.simplify(zm.SymTrie.lift(expected)))
    return z3.simplify(zm.SymMaybe.lift(got)).eq(z3.simplify(zm.SymMaybe.lift(expected)))


def trie_twins_check() -> tuple[str, int]:
    """`item` and `replaced` on a trie term, its emptiness and a text's `== None`, each against
    Python on every trie of the pool and every index −1..DIGITS + 1, given as a term: where the
    twin's conditions hold, Python gives the same value; where Python raises, they fail."""
    cases = 0
    pool = trie_pool()
    for trie in pool:
        term = zm.SymTrie(zm.SymTrie.lift(trie))
        cases += 1
        if zm.truth(zm.TRIE.is_node(term.term)) != bool(trie):
            return f"the trie {trie!r}: its emptiness differs", cases
        for k in range(-1, tree_module.DIGITS + 2):
            for operation, arguments in (("item", ()), *(("replaced", (new,)) for new in pool[:3] + ("c",))):
                if operation == "replaced" and (k == 0) != isinstance(arguments[0], str):
                    continue  # slot 0 holds a text, the others a trie
                cases += 1
                original = getattr(tree_module, operation)
                try:
                    expected, raised = original(trie, k, *arguments), False
                except IndexError:
                    expected, raised = None, True
                if operation == "replaced" and len(trie) != 1 + tree_module.DIGITS:
                    raised = True  # Python's slices make a tuple that is no trie: the twin refuses
                with zm.inside(zm.Proof({})) as proof:
                    got = getattr(zm, operation)(term, Sym(z3.IntVal(k)), *arguments)
                    held = all(zm.truth(condition) for condition, _ in proof.found)
                if raised and held:  # the twin may refuse more (a negative index), never less
                    return f"{operation}({trie!r}, {k}): Python raises, the twin's conditions hold", cases
                if held and not same_value(got, expected):
                    return f"{operation}({trie!r}, {k}): the twin differs from Python", cases
    for value in (None, "a"):
        cases += 1
        if zm.truth((zm.SymMaybe(zm.SymMaybe.lift(value)) == None).term) != (value is None):  # noqa: E711
            return f"{value!r} == None: the twin differs", cases
    # a tree's levels: padded and replaced on sequences of tries
    for levels in ((), pool[:1], pool[1:3], pool[2:5]):
        seq = zm.ZSeq.of(zm.LEVEL, levels)
        for count in range(-1, 6):
            cases += 1
            got = zm.padded(seq, Sym(z3.IntVal(count)), tree_module.EMPTY)
            expected = tree_module.padded(levels, count, tree_module.EMPTY)
            if zm.numeral(got.n) != len(expected) or not all(same_value(got.at(z3.IntVal(k)), part) for k, part in enumerate(expected)):
                return f"padded({levels!r}, {count}): the twin differs from Python", cases
            for new in pool[2:4]:
                cases += 1
                with zm.inside(zm.Proof({})) as proof:
                    put = zm.replaced(seq, Sym(z3.IntVal(count)), new)
                    held = all(zm.truth(condition) for condition, _ in proof.found)
                if held != (0 <= count < len(levels)):
                    return f"replaced({levels!r}, {count}): the twin's conditions differ from the item being inside", cases
                if held:
                    expected = tree_module.replaced(levels, count, new)
                    if not all(same_value(put.at(z3.IntVal(k)), part) for k, part in enumerate(expected)):
                        return f"replaced({levels!r}, {count}): the twin differs from Python", cases
    return "", cases
