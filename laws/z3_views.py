"""What the view laws claim, written by hand from the gist, and the invariants of the model's
loops that their proofs use.

Strategy: a view is a `ZSeq` (laws.z3_model): arrays of levels, indices, texts, built flags and
byte counts, of any length n. The claims below are Z3 formulas over those arrays, written from
the gist's definitions, never from the model's code: node (l, i) covers messages i·2^l ..
(i+1)·2^l − 1 [gist §2]; a view tiles messages 0..T−1 [gist §3]; two lines are siblings when they
are the halves of one node. The model's code is what runs (laws.z3_model); these formulas are
what Z3 must prove of its results.

The tiling speaks of a node's first message and one past its last through two uninterpreted
functions FIRST and END, so the quantified proofs stay linear; the only facts used of them are
the node facts (`node_fact`, `message_fact`), each proved once of i·2^l and (i+1)·2^l by
`node_lemmas`. An invariant is only a hint: Z3 must prove it holds at a loop's start and is kept
by the model's own loop body, so a wrong one fails a law, never passes it.
"""


import z3

import model.view
from laws.z3_core import POW2, Answer, Sym, formula, obligations, prove, satisfiable
from laws.z3_model import LINE, NODE, TEXT, Loop, Shape, SymText, SymTree, ZSeq

FIRST = z3.Function("first", z3.IntSort(), z3.IntSort(), z3.IntSort())
END = z3.Function("end", z3.IntSort(), z3.IntSort(), z3.IntSort())


def in_range(j, v: ZSeq, less: int = 0):
    return z3.And(0 <= j, j < v.n - less)


def fresh_index(tag: str):
    """A bound variable. The same name each time, so equal claims are the same Z3 term (Z3 shares
    a quantifier only when its variables' names agree too)."""
    return z3.Int(tag)


def nodes(v: ZSeq):
    """Each line is a tree node: level ≥ 0 and index ≥ 0."""
    j = fresh_index("j_node")
    return z3.And(v.n >= 0, z3.ForAll([j], z3.Implies(in_range(j, v), z3.And(v.arrays["l"][j] >= 0, v.arrays["i"][j] >= 0))))


def tiles(v: ZSeq, T):
    """[gist §3] The view covers messages 0..T−1, each once, contiguous, oldest first, each line a
    tree node."""
    L, I = v.arrays["l"], v.arrays["i"]
    j = fresh_index("j_tile")
    contiguous = z3.ForAll([j], z3.Implies(in_range(j, v, 1), END(L[j], I[j]) == FIRST(L[j + 1], I[j + 1])))
    # implied by the rest for real nodes, but only by induction along the view: stated, so
    # that "no line is message T's" needs no induction
    within = z3.ForAll([j], z3.Implies(in_range(j, v), END(L[j], I[j]) <= T))
    empty = z3.And(v.n == 0, T == 0)
    some = z3.And(v.n > 0, FIRST(L[0], I[0]) == 0, END(L[v.n - 1], I[v.n - 1]) == T)
    return z3.And(T >= 0, nodes(v), contiguous, within, z3.Or(empty, some))


def summarized(v: ZSeq):
    """[gist §3] Every merged line (level > 0) is built: only a message's own line can wait."""
    j = fresh_index("j_sum")
    return z3.ForAll([j], z3.Implies(z3.And(in_range(j, v), v.arrays["l"][j] > 0), v.arrays["built"][j]))


def siblings(v: ZSeq, k):
    """Lines k and k + 1 are the two halves of one node: same level, indices 2q and 2q + 1."""
    L, I = v.arrays["l"], v.arrays["i"]
    return z3.And(0 <= k, k + 1 < v.n, L[k] == L[k + 1], I[k] % 2 == 0, I[k + 1] == I[k] + 1)


def parent_of(v: ZSeq, k) -> tuple:
    return v.arrays["l"][k] + 1, v.arrays["i"][k] / 2


def can_merge(v: ZSeq, k, built):
    """[gist §3.2] Lines k, k + 1 are siblings whose parent is built (`built(l, i)`: a formula)."""
    l, i = parent_of(v, k)
    return z3.And(siblings(v, k), built(l, i))


def none_can_merge(v: ZSeq, built):
    j = fresh_index("j_none")
    return z3.ForAll([j], z3.Implies(in_range(j, v, 1), z3.Not(can_merge(v, j, built))))


def last_message(l, i):
    """[gist §2] The last message node (l, i) covers: (i + 1)·2^l − 1."""
    return (i + 1) * POW2(l) - 1


def context_end(l, i):
    """[gist §4] A message's context holds the lines before it; a merge's, the lines up to its
    last message."""
    return z3.If(l == 0, i - 1, last_message(l, i))


def same_line(a: ZSeq, j, b: ZSeq, m):
    return z3.And([a.arrays[f][j] == b.arrays[f][m] for f, _ in LINE.fields])


# ---- the node facts ----


def node_fact(l, i):
    """For even i ≥ 0 and l ≥ 0, node (l + 1, i / 2) starts where (l, i) starts and ends where
    (l, i + 1) ends."""
    even = z3.And(l >= 0, i >= 0, i % 2 == 0)
    return z3.Implies(even, z3.And(FIRST(l + 1, i / 2) == FIRST(l, i), END(l + 1, i / 2) == END(l, i + 1)))


def message_fact(i):
    """Node (0, i) is message i alone."""
    return z3.And(FIRST(0, i) == i, END(0, i) == i + 1)


def node_lemmas() -> list[tuple[str, Answer, bool]]:
    """The node facts, proved of the gist's first = i·2^l and end = (i + 1)·2^l [gist §2]."""
    l, q, i = z3.Ints("l q i")
    p, p1 = POW2(l), POW2(l + 1)
    facts = [l >= 0, q >= 0, p >= 1, p1 == 2 * p]
    parent_first, parent_end = q * p1, (q + 1) * p1
    starts = parent_first == (2 * q) * p
    ends = parent_end == (2 * q + 1 + 1) * p
    message = z3.And(i * POW2(0) == i, (i + 1) * POW2(0) == i + 1)
    return [
        ("a parent starts with its left half", prove(starts, facts), satisfiable(facts)),
        ("a parent ends with its right half", prove(ends, facts), satisfiable(facts)),
        ("node (0, i) is message i", prove(message, [POW2(0) == 1]), True),
    ]


# ---- the invariants of the model's loops ----


def built_by(parents):
    """The model's own `parents.built`, as a formula of (l, i)."""
    return lambda l, i: formula(parents.built(Sym(l), Sym(i)))


def scanned(view: ZSeq, count, best, built):
    """After pairs 0 .. count − 1 of the view: best is −1 and none of them can merge, or best is
    one of them that can."""
    j = fresh_index("j_scan")
    none = z3.ForAll([j], z3.Implies(z3.And(0 <= j, j < count), z3.Not(can_merge(view, j, built))))
    return z3.Or(z3.And(best == -1, none), z3.And(0 <= best, best < count, can_merge(view, best, built)))


def most_due_loop() -> Loop:
    """model.view.most_due's scan keeps `scanned`."""

    def invariant(env, k, best):
        return scanned(env["view"], k.term, best.term, built_by(env["parents"]))

    def requires(env, count):
        return z3.And(nodes(env["view"]), count.term == env["view"].n - 1)

    return Loop(invariant, requires=requires)


def most_due_result(view: ZSeq, k, built):
    """What most_due returns: −1 when no pair can merge, else a pair that can."""
    return scanned(view, view.n - 1, k, built)


def view_bytes_loop() -> Loop:
    """model.view.view_bytes's sum: no law needs more of it than that it is a function of the
    view (the laws compare it with the budget only through the model's own code)."""
    return Loop(lambda env, k, total: z3.BoolVal(True),
                requires=lambda env, count: count.term == env["view"].n)


FITTING = Shape((Shape(LINE), Shape(NODE), Shape("int")))


def fit_loop(keep=lambda env, view, merges: z3.BoolVal(True)) -> Loop:
    """model.view.fit's batch: the view is made of nodes, k is what most_due says of it, and
    `keep(env, view, merges)` (the law's own claim) holds. The variant is the view's length."""

    def invariant(env, state):
        view, merges, k = state
        built = built_by(env["parents"])
        return z3.And(nodes(view), merges.n >= 0, most_due_result(view, Sym.lift(k), built),
                      keep(env, view, merges))

    def variant(env, state):
        return state[0].n

    def facts(env, state):
        view, _, k = state
        l, i = view.arrays["l"][Sym.lift(k)], view.arrays["i"][Sym.lift(k)]
        return [node_fact(l, i)]

    return Loop(invariant, variant, FITTING, facts)


# The sum of a byte array's first n entries: an unknown function of which a loop's step assumes only
# the two equations that define it, at its own index (`sum_facts`).
BYTES_SUM = z3.Function("bytes_sum", z3.ArraySort(z3.IntSort(), z3.IntSort()), z3.IntSort(), z3.IntSort())


def sum_facts(sizes, k):
    """The definition of BYTES_SUM, at index k: the empty sum is 0, and one more entry adds it."""
    return [BYTES_SUM(sizes, 0) == 0, BYTES_SUM(sizes, k + 1) == BYTES_SUM(sizes, k) + sizes[k]]


def context_loop() -> Loop:
    """model.view.context's scan: after lines 0..k−1, the first `count` lines are built, end by
    the node's end and sum to `total`, at most the budget; if count < k, line `count` is not
    built, ends after the node's end, or would pass the budget [P19]."""

    def invariant(env, k, sofar):
        cview, end, budget = env["cview"], Sym.lift(env["end"]), Sym.lift(env["budget_bytes"])
        L, I, B, S = cview.arrays["l"], cview.arrays["i"], cview.arrays["built"], cview.arrays["bytes"]
        c, t, k_t = Sym.lift(sofar[0]), Sym.lift(sofar[1]), k.term
        j = fresh_index("j_ctx")
        kept = z3.ForAll([j], z3.Implies(z3.And(0 <= j, j < c), z3.And(B[j], last_message(L[j], I[j]) <= end)))
        summed = z3.Or(z3.And(c == 0, t == 0), t == BYTES_SUM(S, c))
        within = z3.Or(c == 0, t <= budget)
        stopped = z3.Implies(c < k_t, z3.Not(z3.And(B[c], last_message(L[c], I[c]) <= end, t + S[c] <= budget)))
        return z3.And(0 <= c, c <= k_t, kept, summed, within, stopped)

    def requires(env, count):
        return z3.And(nodes(env["cview"]), count.term == env["cview"].n)

    def index_facts(env, k, sofar):
        return sum_facts(env["cview"].arrays["bytes"], k.term)

    return Loop(invariant, requires=requires, index_facts=index_facts)


def summed_view_bytes_loop() -> Loop:
    """model.view.view_bytes's sum is BYTES_SUM of the view's byte counts, for the laws that
    speak of a view's size."""

    def invariant(env, k, total):
        t = Sym.lift(total)
        return z3.Or(z3.And(k.term == 0, t == 0), t == BYTES_SUM(env["view"].arrays["bytes"], k.term))

    def index_facts(env, k, total):
        return sum_facts(env["view"].arrays["bytes"], k.term)

    return Loop(invariant, requires=lambda env, count: count.term == env["view"].n, index_facts=index_facts)


# ---- a view's rendered bytes [P19] ----


def rendered_sizes(v: ZSeq, built_only: bool = False):
    """The most each line renders with its newline, an array over the view's positions: for a
    built line what the model's own `rendered` and `utf8_bytes` compute, run on line j's fields
    (its text escaped after its head); for an unbuilt one, its placeholder at the most a
    placeholder's text may weigh [P22]; when `built_only`, every line as built. Returns the array and what its code needs (each line's level ≥ 0, which `nodes`
    gives)."""
    L, I, X, B = v.arrays["l"], v.arrays["i"], v.arrays["text"], v.arrays["built"]
    j = fresh_index("j_rendered")

    def built_size():
        return built_line_size(L[j], I[j], X[j])

    def placeholder_size():
        # the most a placeholder line renders [P22]: its head, "|", the bytes its text may
        # weigh (the harness writes what the line covers before the model's words) and "\n"
        head = model.view.utf8_bytes(model.view.name(Sym(L[j]), Sym(I[j])))
        return Sym.lift(head + len("|") + model.view.PLACEHOLDER_BYTES_MAX + len("\n"))

    with obligations() as found:
        sizes = built_size() if built_only else z3.If(B[j], built_size(), placeholder_size())
    needs = [z3.ForAll([j], z3.Implies(in_range(j, v), condition)) for condition, _ in found]
    return z3.Lambda([j], sizes), needs


def built_line_size(l, i, x):
    """What the model's `rendered` of a built line of node (l, i) with text x (terms) and its
    newline weigh, as the term its code builds."""
    line = model.view.Line(Sym(l), Sym(i), SymText(x), True, 0)
    return Sym.lift(model.view.utf8_bytes(model.view.rendered(line)) + 1)


def counted(v: ZSeq, built_only: bool = False):
    """Each line (each built line, when `built_only`) counts in `bytes` what it renders with its
    newline, as the model's `rendered` makes it [P19]."""
    sizes, needs = rendered_sizes(v, built_only)
    S, B = v.arrays["bytes"], v.arrays["built"]
    j = fresh_index("j_counted")
    same = S[j] == sizes[j]
    # instantiated at each line's count: the pattern Z3 would pick may sit inside the rendered term
    claim = z3.Implies(in_range(j, v), z3.Implies(B[j], same) if built_only else same)
    patterns = [S[j]] if z3.is_const(S) else []  # a pattern must be an uninterpreted array's entry
    return z3.And(needs + [z3.ForAll([j], claim, patterns=patterns)])


# What a built line of node (l, i) with text x renders with its newline, as a function of its
# own: defined by one equation, `size_definition`, to be the model's `rendered` on those fields.
# A definition adds no fact (any claim without the name proved with it is proved without it); it
# keeps the history's invariant small, a name applied to a line's fields rather than the term
# its rendering builds, on which Z3's instantiations stay within their limit.
RENDERED_SIZE = z3.Function("rendered_size", z3.IntSort(), z3.IntSort(), TEXT, z3.IntSort())


def size_definition():
    """rendered_size(l, i, x) is `utf8_bytes(rendered(Line(l, i, x, built)))` + 1 for l ≥ 0."""
    l, i, x = z3.Int("l_size"), z3.Int("i_size"), z3.Const("x_size", TEXT)
    with obligations() as found:
        size = built_line_size(l, i, x)
    # the one obligation is the shift's: a level is not negative
    given = z3.And([l >= 0] + [condition for condition, _ in found])
    return z3.ForAll([l, i, x], z3.Implies(given, RENDERED_SIZE(l, i, x) == size), patterns=[RENDERED_SIZE(l, i, x)])


def sized(v: ZSeq):
    """Each built line counts `rendered_size` of its fields: with `size_definition`, what it
    renders with its newline (`counted(v, built_only=True)`)."""
    L, I, X, B, S = (v.arrays[f] for f in ("l", "i", "text", "built", "bytes"))
    j = fresh_index("j_sized")
    claim = z3.Implies(z3.And(in_range(j, v), B[j]), z3.And(L[j] >= 0, S[j] == RENDERED_SIZE(L[j], I[j], X[j])))
    patterns = [S[j]] if z3.is_const(S) else []
    return z3.ForAll([j], claim, patterns=patterns)


def rendered_total(v: ZSeq):
    """The bytes the view's lines render, each with its newline: the sum of `rendered_sizes`."""
    sizes, _ = rendered_sizes(v)
    return BYTES_SUM(sizes, v.n)


def agree_below(a, b, n):
    j = fresh_index("j_agree")
    return z3.ForAll([j], z3.Implies(z3.And(0 <= j, j < n), a[j] == b[j]))


def sums_agree(a, b, n):
    """The instance at (a, b, n) of `sum_lemmas`: two arrays equal below n have equal sums."""
    return z3.Implies(z3.And(n >= 0, agree_below(a, b, n)), BYTES_SUM(a, n) == BYTES_SUM(b, n))


def sum_lemmas() -> list[tuple[str, Answer]]:
    """Two arrays equal below n have the same BYTES_SUM to n, by induction on n from
    BYTES_SUM's two equations: its base and its step, each Z3's `unsat`."""
    a, b = z3.Array("a_sum", z3.IntSort(), z3.IntSort()), z3.Array("b_sum", z3.IntSort(), z3.IntSort())
    n = z3.Int("n_sum")
    base = prove(BYTES_SUM(a, 0) == BYTES_SUM(b, 0), sum_facts(a, 0)[:1] + sum_facts(b, 0)[:1])
    step = prove(z3.Implies(agree_below(a, b, n + 1), BYTES_SUM(a, n + 1) == BYTES_SUM(b, n + 1)),
                 [n >= 0, sums_agree(a, b, n)] + sum_facts(a, n) + sum_facts(b, n))
    return [("equal arrays' sums, base", base), ("equal arrays' sums, step", step)]


def loops(fit_keep=None) -> dict[str, Loop]:
    found = {
        "most_due.<locals>.better": most_due_loop(),
        "view_bytes.<locals>.add": view_bytes_loop(),
        "context.<locals>.kept": context_loop(),
    }
    found["fit.<locals>.merge_most_due"] = fit_loop(fit_keep) if fit_keep else fit_loop()
    return found


def fresh_view(tag: str) -> ZSeq:
    return ZSeq.fresh(LINE, tag)


def fresh_tree(tag: str = "tree") -> SymTree:
    return SymTree(tag)
