"""The merge order's choice, proved on the model's code: which pair `most_due` returns, and that
the production order picks as the model's own scan does.

Strategy: `most_due` runs on Z3 terms (laws.z3_model) over a view of any length, any T and any
set of built nodes (an unknown function), with a loop invariant stronger than the one the
batch laws use: after pairs 0 .. k − 1, the best so far can merge, no pair scanned that can merge
is more due, and none older is as due. "More due" is the gist's (T − last)/2^l [gist §3.2],
written DUE(T, l, i): an unknown function of which the proof assumes only, at each step, that the
model's cross-multiplied comparison of the pair at k with the best so far is DUE's order. That is
an instance of `due_cross_is_rational` (proved for all T, i ≥ 0 and levels), so with DUE read as
the rational due every step is true, and the claim is the gist's.

The production batch does not compare pairs one by one: it keeps each level's best pair in a heap
whose entries `_View.entry` makes (−due·2^64, first, level), so `heap_keys_order_as_more_due`
proves, on that function itself, that Python's order of those entries is the model's `more_due`
with this scan's tie-break (the oldest of equal pairs first).
"""


import z3

import harness.memory.planner as production
import model.view as model_view
from laws import z3_model as zm
from laws import z3_views as zv
from laws.core import TRUSTED_ENCODING, TRUSTED_RULES, Budget, Law, Verdict
from laws.z3_core import BRANCHES, POW2, Sym, failed_answer, formula, obligations, prove, satisfiable, vacuous
from model.planner import tree_parents
from model.view import most_due

DUE = z3.Function("due", z3.IntSort(), z3.IntSort(), z3.IntSort(), z3.RealSort())  # (T, l, i)


def due(T, view: zm.ZSeq, j):
    return DUE(T, view.arrays["l"][j], view.arrays["i"][j])


def chosen(view: zm.ZSeq, count, best, built, T):
    """After pairs 0 .. count − 1: best is −1 and none of them can merge, or best is one that can,
    no pair among them that can merge is more due, and none older is as due."""
    j = zv.fresh_index("j_choice")
    none = z3.ForAll([j], z3.Implies(z3.And(0 <= j, j < count), z3.Not(zv.can_merge(view, j, built))))
    beaten = z3.ForAll([j], z3.Implies(
        z3.And(0 <= j, j < count, zv.can_merge(view, j, built)),
        z3.And(due(T, view, j) <= due(T, view, best), z3.Implies(j < best, due(T, view, j) < due(T, view, best)))))
    return z3.Or(z3.And(best == -1, none),
                 z3.And(0 <= best, best < count, zv.can_merge(view, best, built), beaten))


def cross(T, la, ia, lb, ib):
    """The gist's comparison cross-multiplied: (T − last_a)·2^lb > (T − last_b)·2^la."""
    last_a = (ia + 2) * POW2(la) - 1
    last_b = (ib + 2) * POW2(lb) - 1
    return (T - last_a) * POW2(lb) > (T - last_b) * POW2(la)


def choice_loop() -> zm.Loop:
    """most_due's scan keeps `chosen`; at step k, the model's comparison of pair k with the best
    so far is DUE's order (an instance of due_cross_is_rational)."""

    def invariant(env, k, best):
        return chosen(env["view"], k.term, best.term, zv.built_by(env["parents"]), Sym.lift(env["T"]))

    def requires(env, count):
        return z3.And(zv.nodes(env["view"]), count.term == env["view"].n - 1, Sym.lift(env["T"]) >= 0)

    def index_facts(env, k, best) -> list:
        view, T, b, a = env["view"], Sym.lift(env["T"]), best.term, k.term
        L, I = view.arrays["l"], view.arrays["i"]
        domain = z3.And(T >= 0, b >= 0, b < view.n, a >= 0, a < view.n, L[a] >= 0, I[a] >= 0, L[b] >= 0, I[b] >= 0)
        return [z3.Implies(domain, cross(T, L[a], I[a], L[b], I[b]) == (due(T, view, a) > due(T, view, b)))]

    return zm.Loop(invariant, requires=requires, index_facts=index_facts)


CHOICE_LABEL = ("Proved (Z3): model code, any view, T and built set; the due order by due_cross_is_rational; "
                f"trusted: {TRUSTED_ENCODING}, {TRUSTED_RULES}; the tree left unknown")


def most_due_is_the_choice(budget: Budget) -> Verdict:
    """[gist §3.2] most_due returns a pair that can merge, that no pair that can merge is more due
    than and no older one is as due as; or −1 exactly when no pair can merge. batch runs the same
    fit, and so the same most_due, on the compaction view [gist §4]."""

    def body(proof: zm.Proof) -> None:
        V, T, tree = zv.fresh_view("V"), z3.Int("T"), zv.fresh_tree()
        proof.assume(zv.nodes(V), T >= 0)
        built = lambda l, i: tree.has(l, i)  # noqa: E731
        k = most_due(V, Sym(T), tree_parents(tree), False).term
        proof.check("−1 exactly when no pair can merge", (k == -1) == zv.none_can_merge(V, built))
        with proof.under(k >= 0) as given:
            j = zv.fresh_index("j_claim")
            given.check("the pair can merge", zv.can_merge(V, k, built))
            given.check("no pair that can merge is more due, and none older as due", z3.ForAll([j], z3.Implies(
                z3.And(0 <= j, j < V.n - 1, zv.can_merge(V, j, built)),
                z3.And(z3.Not(due(T, V, j) > due(T, V, k)), z3.Implies(j < k, due(T, V, j) < due(T, V, k))))))
        proof.witnessed("a later pair chosen", V.n == 4, k == 2, zv.can_merge(V, 0, built))
        proof.witnessed("no pair", V.n == 3, k == -1)

    loops = zv.loops()
    loops["most_due.<locals>.better"] = choice_loop()
    ok, problem, answers = zm.run_law("most_due_is_the_choice", loops, body)
    if not ok:
        return Verdict(False, "none", problem)
    seconds = sum(answer.seconds for _, answer in answers)
    return Verdict(True, CHOICE_LABEL, f"{len(answers)} Z3 queries in {seconds:.2f} s")


HEAP_LABEL = ("Proved (Z3): production code (_View.entry, the entries _View.fit pushes), every pair of levels "
              "below 64 (a query per level of the first pair and per path of the code), all T and pairs that "
              f"end before T; trusted: {TRUSTED_ENCODING}, Python's tuple order written as a formula")


def tuple_before(a, b):
    """Python's a < b on two tuples of integers (terms or Python ints), element by element."""
    a, b = [Sym.lift(part) for part in a], [Sym.lift(part) for part in b]
    earlier = z3.BoolVal(False)
    for x, y in reversed(list(zip(a, b))):
        earlier = z3.Or(x < y, z3.And(x == y, earlier))
    return earlier


def on_every_path(function) -> list[tuple[list, object]]:
    """(conditions, result) for each path of `function()`: each condition a term is asked for as
    a Python bool (an `if` on the level, say) is answered True on one path and False on another,
    so the paths together are every run."""
    found = []
    pending: list[tuple[bool, ...]] = [()]
    while pending:
        forced = pending.pop()
        chosen: list[tuple[object, bool]] = []

        def branch(term, forced=forced, chosen=chosen) -> bool:
            known = zm.truth(term)
            if known is not None:
                return known
            k = len(chosen)
            value = forced[k] if k < len(forced) else True
            if k >= len(forced):
                pending.append(tuple(v for _, v in chosen) + (False,))
            chosen.append((term, value))
            return value

        BRANCHES.append(branch)
        try:
            result = function()
        finally:
            BRANCHES.pop()
        found.append(([term if value else z3.Not(term) for term, value in chosen], result))
    return found


def heap_keys_order_as_more_due(budget: Budget) -> Verdict:
    """harness/memory/planner.py's `_View.fit` pushes only `_View.entry(l, first, T)` for each
    level's best pair, pops the least by Python's tuple order, and reads the pair back from the
    entry's second and third fields. Claimed, on that very function: entry a comes before entry b
    exactly when the model's `more_due(a, b)` holds, or neither is more due and a is the older
    (the model's scan keeps the oldest of equal pairs: most_due_is_the_choice); two entries of
    different levels never tie; and an entry carries its pair's first message and level. For
    every two levels below LEVELS_MAX, all T and pairs of lines i, i + 1 (i ≥ 0) that end before T.
    The first pair's level is a Python int in each query (64 queries); the second's is a term,
    and `entry`'s shift by LEVELS_MAX − l is then the unknown pow2, whose values at 0..64 the
    query is given. Each path of `entry` is a query of its own (an `if` on a level runs both
    ways)."""
    levels = production.LEVELS_MAX
    ia, ib, lb, T = z3.Ints("ia ib lb T")
    domain = ([ia >= 0, ib >= 0, 0 <= lb, lb < levels, z3.Or([lb == level for level in range(levels)])]
              + [POW2(k) == 2 ** k for k in range(levels + 1)])
    seconds = 0.0
    queries = 0
    for la in range(levels):
        with obligations() as found:
            first_a, first_b = Sym(ia) << la, Sym(ib) << Sym(lb)
            more_ab = formula(model_view.more_due(la, Sym(ia), Sym(lb), Sym(ib), Sym(T)))
            more_ba = formula(model_view.more_due(Sym(lb), Sym(ib), la, Sym(ia), Sym(T)))
            paths_a = on_every_path(lambda: production._View.entry(la, first_a, Sym(T)))
            paths_b = on_every_path(lambda: production._View.entry(Sym(lb), first_b, Sym(T)))
        side = [condition for condition, _ in found]
        expected = z3.Or(more_ab, z3.And(z3.Not(more_ba), Sym.lift(first_a) < Sym.lift(first_b)))
        ends = [(ia + 2) * 2 ** la <= T, (ib + 2) * POW2(lb) <= T]
        for path_a, entry_a in paths_a:
            for path_b, entry_b in paths_b:
                claim = z3.And([
                    tuple_before(entry_a, entry_b) == expected,
                    Sym.lift(entry_a[1]) == Sym.lift(first_a), Sym.lift(entry_a[2]) == la,
                    Sym.lift(entry_b[1]) == Sym.lift(first_b), Sym.lift(entry_b[2]) == lb,
                    z3.Implies(lb != la, z3.Not(z3.And(Sym.lift(entry_a[0]) == Sym.lift(entry_b[0]),
                                                       Sym.lift(entry_a[1]) == Sym.lift(entry_b[1]))))] + side)
                answer = prove(claim, domain + ends + path_a + path_b)
                seconds += answer.seconds
                queries += 1
                if not answer.proved:
                    return Verdict(False, "none", failed_answer(f"heap_keys_order_as_more_due at level {la}", answer))
    # the claim means something: pairs of levels 1 and 0 equally due, the older first
    tie = [ia >= 0, ib >= 0, (ia + 2) * 2 <= T, ib + 2 <= T,
           Sym.lift(production._View.entry(1, Sym(ia) << 1, Sym(T))[0]) == Sym.lift(production._View.entry(0, Sym(ib), Sym(T))[0])]
    if not satisfiable(tie):
        return Verdict(False, "none", vacuous("heap_keys_order_as_more_due"))
    return Verdict(True, HEAP_LABEL, f"{queries} Z3 queries in {seconds:.2f} s")


LAWS = [
    Law("heap_keys_order_as_more_due", "§3.2", "harness/memory/planner.py's `_View.entry`, the entries its batch heap `_View.fit` pushes and pops, orders two pairs as the model's `more_due`, the oldest of equal pairs first (the model's scan), and no two entries of different levels tie; for every two levels below 64, T and pairs that end before T.", "z3", HEAP_LABEL, heap_keys_order_as_more_due),
    Law("most_due_is_the_choice", "§3.2, §4", "`most_due` returns a pair that can merge that no pair that can merge is more due than and no older one equals, or −1 exactly when none can merge; for any view (the chat's or the compaction view), T and built set.", "z3", CHOICE_LABEL, most_due_is_the_choice),
]
