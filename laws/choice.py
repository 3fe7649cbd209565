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

`due_orders_agree` (laws.universal) compares harness/memory/planner.py's `more_due` with this
scan: the model's own `most_due`, run on a view of two pairs of any levels and indices. The
production batch does not call `more_due` pair by pair: it keeps each level's best pair in a heap
whose entries are (−due_key, first, level), so `heap_keys_order_as_more_due` proves that Python's
order of those entries is `more_due`'s, on the production code itself.
"""

from typing import List

import z3

import harness.memory.planner as production
import model.view as model_view
from laws import z3_model as zm
from laws import z3_views as zv
from laws.core import Budget, Law, Verdict
from laws.z3_core import POW2, Sym, failed_answer, formula, obligations, prove, satisfiable, vacuous
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

    def index_facts(env, k, best) -> List:
        view, T, b, a = env["view"], Sym.lift(env["T"]), best.term, k.term
        L, I = view.arrays["l"], view.arrays["i"]
        domain = z3.And(T >= 0, b >= 0, b < view.n, a >= 0, a < view.n, L[a] >= 0, I[a] >= 0, L[b] >= 0, I[b] >= 0)
        return [z3.Implies(domain, cross(T, L[a], I[a], L[b], I[b]) == (due(T, view, a) > due(T, view, b)))]

    return zm.Loop(invariant, requires=requires, index_facts=index_facts)


CHOICE_LABEL = ("Proved (Z3): model code, any view, T and built set; the due order by due_cross_is_rational; "
                "trusted: the integer encoding, 7 sequence twins (twins_agree), 2 loop rules; the tree left unknown")


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


def scan_of_two_pairs(proof: zm.Proof, la, ia, lb, ib, T):
    """The model's own most_due on a view of two pairs, a older than b, both parents built: the
    index it returns (0 for a, 2 for b)."""
    tree = zv.fresh_tree("two")
    proof.assume(tree.has(la + 1, ia / 2), tree.has(lb + 1, ib / 2))
    text = zm.SymText(z3.Const("two_text", zm.TEXT))
    lines = tuple(model_view.Line(Sym(l), Sym(i), text, True, 1)
                  for l, i in ((la, ia), (la, ia + 1), (lb, ib), (lb, ib + 1)))
    return most_due(zm.ZSeq.of(zm.LINE, lines), Sym(T), tree_parents(tree), False).term


HEAP_LABEL = ("Proved (Z3): production code, every level below 64 (a query per level of the first "
              "pair), all T and first messages up to T; trusted: the integer encoding, Python's tuple order "
              "written as a formula")


def heap_keys_order_as_more_due(budget: Budget) -> Verdict:
    """harness/memory/planner.py's batch pops the least heap entry (−due_key(l, first, T), first,
    l): Python orders tuples element by element, so entry a comes before entry b exactly when
    −key_a < −key_b, or the keys are equal and first_a < first_b, or both are equal and l_a < l_b.
    Claimed: that order is production's `more_due(a, b)`, and two entries never tie on key and
    first (so the level never decides), for every pair of levels below LEVELS_MAX, T and first
    messages with first ≤ T. `due_key` shifts by LEVELS_MAX − l, a count Z3 knows only as the
    unknown pow2: so l_a is fixed in each query (64 queries) and l_b left free, with pow2's
    values at 0..64 given."""
    la, lb, first_a, first_b, T = z3.Ints("la lb first_a first_b T")
    levels = production.LEVELS_MAX
    with obligations() as found:
        key_a = production.due_key(Sym(la), Sym(first_a), Sym(T)).term
        key_b = production.due_key(Sym(lb), Sym(first_b), Sym(T)).term
        more = formula(production.more_due(Sym(la), Sym(first_a), Sym(lb), Sym(first_b), Sym(T)))
    side = [condition for condition, _ in found]
    heap_first = z3.Or(-key_a < -key_b, z3.And(-key_a == -key_b, first_a < first_b))
    claim = z3.And([heap_first == more,
                    z3.Implies(z3.And(key_a == key_b, first_a == first_b), la == lb)] + side)
    domain = ([0 <= lb, lb < levels, 0 <= first_a, first_a <= T, 0 <= first_b, first_b <= T,
               z3.Or([lb == level for level in range(levels)])]
              + [POW2(k) == 2 ** k for k in range(levels + 1)])
    seconds = 0.0
    for level in range(levels):
        answer = prove(claim, domain + [la == level])
        seconds += answer.seconds
        if not answer.proved:
            return Verdict(False, "none", failed_answer(f"heap_keys_order_as_more_due at level {level}", answer))
    # the claim means something: a tie of keys at different levels, broken by the first message
    if not satisfiable(domain + [la == 1, lb == 0, key_a == key_b, first_a < first_b]):
        return Verdict(False, "none", vacuous("heap_keys_order_as_more_due"))
    return Verdict(True, HEAP_LABEL, f"{levels} Z3 queries in {seconds:.2f} s")


LAWS = [
    Law("heap_keys_order_as_more_due", "§3.2", "harness/memory/planner.py's batch heap orders its entries (−due_key(l, first, T), first, l) exactly as its `more_due`, and no two entries tie on key and first; for every level below 64, T and first message.", "z3", HEAP_LABEL, heap_keys_order_as_more_due),
    Law("most_due_is_the_choice", "§3.2, §4", "`most_due` returns a pair that can merge that no pair that can merge is more due than and no older one equals, or −1 exactly when none can merge; for any view (the chat's or the compaction view), T and built set.", "z3", CHOICE_LABEL, most_due_is_the_choice),
]
