"""The laws proved with Z3 for every input, on the model's own code, and the laws of the events
checked on model runs.

Strategy: every claim here is a Z3 formula written from the gist (laws.z3_views), and what Z3 is
asked about is what the model's own functions compute when they run on Z3 terms
(laws.z3_model): `more_due` for the due order; `merge`, `fit`, `most_due`, `context`,
`with_line`, `waiting_line` and `tree_parents` for the views. A claim is proved only on `unsat`
of its negation over unbounded integers and views of any length; `unknown` fails. What is
trusted is named in each label: model/base.py's nine twins (seven sequence operations and two
loop rules), checked against their Python originals by `twins_agree`.

A claim about *every history of events* (view_covers, ...) is an induction: the base case, and a
proof that `model.planner.step`, run on Z3 terms for each kind of event, every branch of it
taken both ways, keeps the invariant (laws.z3_events; docs/history_laws.md). `make laws-deep`
also replays a long run to T ≥ 100,000 as a cross-check; no label rests on it.

Each proof's assumptions are shown satisfiable, so none holds vacuously; tests/laws/test_universal.py
and the mutants show that wrong code fails.
"""

import itertools
from collections.abc import Callable
from functools import cache

import z3

import model.base as base
import model.view as model_view
from laws import z3_ceiling as zc
from laws import z3_events as ze
from laws import z3_model as zm
from laws import z3_views as zv
from laws.core import TRUSTED_ENCODING, TRUSTED_RULES, Budget, Law, Verdict
from laws.z3_core import POW2, RLIMIT, Answer, Sym, failed_answer, formula, obligations, prove, satisfiable, vacuous
from laws.z3_fold import fold_proofs
from laws.z3_push import digits_agree, lemmas, push_runs_as_the_counter
from laws.z3_runs import DEEP, SMALL, Tally, lines_of, replay, transitions
from model.planner import (
    Built,
    Config,
    Failed,
    Message,
    Restart,
    Retry,
    State,
    Wait,
    step,
    tree_parents,
    unbuilt_lines,
    with_line,
)
from model.tree import tree_get
from model.view import (
    LINE_BYTES_MAX,
    Line,
    built_line,
    context,
    fit,
    merge,
    most_due,
    turn_view,
    utf8_bytes,
    view_bytes,
    waiting_line,
)

RUNS = ((300, 11), (300, 12))  # (messages, seed): late compactor, a small config (laws.z3_runs)
# Every part a proof on the model's code rests on (docs/trust.md): the encoding of integers as
# terms (laws/z3_core.py), model/base.py's seven sequence twins (checked by `twins_agree`), the two
# loop rules (Hoare's rule), and the functions the proofs leave unknown (true for any).
TRUSTED = f"trusted: {TRUSTED_ENCODING}, {TRUSTED_RULES}; decimal, utf8_bytes and the tree left unknown"
VIEW_LABEL = f"Proved (Z3): model code, any view; {TRUSTED}"
# the view laws in rendered bytes: the sum lemma is proved by induction on the sum's length
RENDERED_LABEL = (f"Proved (Z3): model code, in rendered bytes, any view whose built lines count what they render "
                  f"(as every history's do: view_counts_rendered); {TRUSTED}, the induction over a sum's length")
DUE_LABEL = f"Proved (Z3): model code, all T, i ≥ 0, all levels; trusted: {TRUSTED_ENCODING}"


def law_proved(name: str, body: Callable[[zm.Proof], None], loops=None) -> tuple[bool, str, list[tuple[str, Answer]]]:
    return zm.run_law(name, loops if loops is not None else zv.loops(), body)


def seconds_of(answers) -> float:
    return sum(answer.seconds for _, answer in answers)


def view_verdict(name: str, body, loops=None, label: str = VIEW_LABEL) -> Verdict:
    ok, problem, answers = law_proved(name, body, loops)
    if not ok:
        return Verdict(False, "none", problem)
    return Verdict(True, label, f"{len(answers)} Z3 queries in {seconds_of(answers):.2f} s")


# ---- the due order ----


def due_terms():
    la, ia, lb, ib, T = z3.Ints("la ia lb ib T")
    domain = [la >= 0, lb >= 0, ia >= 0, ib >= 0, T >= 0, POW2(la) >= 1, POW2(lb) >= 1]
    return la, ia, lb, ib, T, domain


def on_terms(function, *arguments):
    """Run `function` on Z3 terms: its formula and the side conditions Python would check."""
    with obligations() as found:
        result = function(*(Sym(argument) for argument in arguments))
    return formula(result), [condition for condition, _ in found]


def due_proof(name: str, claim, domain, side, witness) -> Verdict:
    answer = prove(z3.And([claim] + side), domain)
    if not answer.proved:
        return Verdict(False, "none", failed_answer(name, answer))
    if not satisfiable(domain + witness):
        return Verdict(False, "none", vacuous(name))
    return Verdict(True, DUE_LABEL, f"{answer.seconds * 1000:.0f} ms")


def on_model_code(law):
    """A due law whose model code does not run on Z3 terms (it branches on a term, say) fails,
    with the reason."""

    def check(budget: Budget) -> Verdict:
        try:
            return law(budget)
        except (TypeError, ValueError) as error:
            return Verdict(False, "none", f"the model's code does not run on Z3 terms: {type(error).__name__}: {error}")

    check.__name__ = law.__name__
    check.__doc__ = law.__doc__
    return check


@on_model_code
def due_cross_is_rational(budget: Budget) -> Verdict:
    """The model's division-free comparison is the rational order (T − last)/2^l, for all
    non-negative T, indices and levels."""
    la, ia, lb, ib, T, domain = due_terms()
    cross, side = on_terms(model_view.more_due, la, ia, lb, ib, T)
    pa, pb = POW2(la), POW2(lb)
    due_a = z3.ToReal(T - ((ia + 2) * pa - 1)) / z3.ToReal(pa)
    due_b = z3.ToReal(T - ((ib + 2) * pb - 1)) / z3.ToReal(pb)
    return due_proof("cross = rational", cross == (due_a > due_b), domain, side, [cross])


@on_model_code
def due_is_transitive(budget: Budget) -> Verdict:
    la, ia, lb, ib, T, domain = due_terms()
    lc, ic = z3.Ints("lc ic")
    domain = domain + [lc >= 0, ic >= 0, POW2(lc) >= 1]
    ab, side_ab = on_terms(model_view.more_due, la, ia, lb, ib, T)
    bc, side_bc = on_terms(model_view.more_due, lb, ib, lc, ic, T)
    ac, side_ac = on_terms(model_view.more_due, la, ia, lc, ic, T)
    aa, side_aa = on_terms(model_view.more_due, la, ia, la, ia, T)
    side = side_ab + side_bc + side_ac + side_aa
    transitive = prove(z3.And([z3.Implies(z3.And(ab, bc), ac)] + side), domain)
    irreflexive = prove(z3.Not(aa), domain)
    if not (transitive.proved and irreflexive.proved):
        return Verdict(False, "none", failed_answer("transitive", transitive) + "; " + failed_answer("irreflexive", irreflexive))
    if not satisfiable(domain + [ab, bc]):
        return Verdict(False, "none", vacuous("transitive"))
    return Verdict(True, DUE_LABEL, f"transitive and irreflexive, {(transitive.seconds + irreflexive.seconds) * 1000:.0f} ms")


# ---- the view steps, on the model's code ----

INVARIANTS = {
    "tiling": lambda view, T: zv.tiles(view, T),
    "summaries": lambda view, T: z3.And(T >= 0, zv.nodes(view), zv.summarized(view)),
}


def a_text(name: str) -> zm.SymText:
    return zm.SymText(z3.Const(name, zm.TEXT))


def grow_step(invariant: str):
    """A message appends its waiting line [gist §3.2]: model/view.py waiting_line, appended."""
    holds = INVARIANTS[invariant]

    def body(proof: zm.Proof) -> None:
        V, T = zv.fresh_view("V"), z3.Int("T")
        proof.assume(holds(V, T), zv.message_fact(T))
        grown = base.appended(V, waiting_line(Sym(T), a_text("source")))
        proof.check(f"appending message T's line keeps the view's {invariant}", holds(grown, T + 1))
        proof.witnessed("append", V.n == 2)
    return body


def mark_step(invariant: str):
    """A message's line gets its summary: model/planner.py with_line of built_line."""
    holds = INVARIANTS[invariant]

    def body(proof: zm.Proof) -> None:
        V, T, i = zv.fresh_view("V"), z3.Int("T"), z3.Int("i")
        proof.assume(holds(V, T))
        marked = with_line(V, built_line(0, Sym(i), a_text("summary")))
        proof.check(f"marking a line built keeps the view's {invariant}", holds(marked, T))
        proof.witnessed("mark", V.n == 2)
    return body


def merge_step(invariant: str):
    """Two sibling lines become their parent's line: model/view.py merge, with the tree's
    parents (model/planner.py tree_parents)."""
    holds = INVARIANTS[invariant]

    def body(proof: zm.Proof) -> None:
        V, T, k = zv.fresh_view("V"), z3.Int("T"), z3.Int("k")
        proof.assume(holds(V, T), zv.nodes(V), zv.siblings(V, k), zv.node_fact(V.arrays["l"][k], V.arrays["i"][k]))
        merged = merge(V, Sym(k), tree_parents(zv.fresh_tree()))
        proof.check(f"merging two siblings keeps the view's {invariant}", holds(merged, T))
        proof.witnessed("merge", V.n == 3)
    return body


def fit_step(invariant: str):
    """A batch: model/view.py fit, with most_due, merge and view_bytes, and the tree's parents."""
    holds = INVARIANTS[invariant]

    def body(proof: zm.Proof) -> None:
        V, T, budget = zv.fresh_view("V"), z3.Int("T"), z3.Int("budget")
        proof.assume(holds(V, T), zv.nodes(V))
        fitted, _ = fit(V, Sym(T), Sym(budget), tree_parents(zv.fresh_tree()))
        proof.check(f"a batch keeps the view's {invariant}", holds(fitted, T))
        proof.witnessed("fit", V.n == 2)
    return body


def fit_keeping(invariant: str):
    holds = INVARIANTS[invariant]
    return zv.loops(lambda env, view, merges: holds(view, Sym.lift(env["T"])))


@cache
def step_proofs(invariant: str) -> tuple[bool, str, int, float]:
    """The node lemmas and each view step: (proved, problem, queries, seconds). Computed once
    per process: the chat's view and the compaction view take the same steps."""
    queries, seconds = 0, 0.0
    if invariant == "tiling":
        for name, answer, witnessed in zv.node_lemmas():
            queries, seconds = queries + 1, seconds + answer.seconds
            if not answer.proved:
                return False, failed_answer(name, answer), queries, seconds
            if not witnessed:
                return False, vacuous(name), queries, seconds
    for step_name, body, loops in (("append", grow_step(invariant), None), ("mark", mark_step(invariant), None),
                                   ("merge", merge_step(invariant), None),
                                   ("fit", fit_step(invariant), fit_keeping(invariant))):
        ok, problem, answers = law_proved(f"{step_name} keeps {invariant}", body, loops)
        queries, seconds = queries + len(answers), seconds + seconds_of(answers)
        if not ok:
            return False, problem, queries, seconds
    return True, "", queries, seconds


# ---- the links: each event is those steps, on model runs ----

# The deep run (`make laws-deep`): a prompt compactor at views of about ten lines, so a long chat
# reaches high levels: 140,000 messages pass T = 100,000 and level 16.
DEEP_RUN = (140_000, 41)
DEEP_LEVEL_MIN = 16
DEEP_T_MIN = 100_000
EVENTS_MIN = 4_000  # the default runs replay at least this many events, or the law fails


@cache
def all_transitions():
    found = []
    for messages, seed in RUNS:
        found.extend(transitions(messages, seed))
    for messages, seed, config in WIDE_RUNS:
        found.extend(transitions(messages, seed, config))
    return tuple(found)


def covers_directly(view, T: int) -> bool:
    """The bounded twin, on the model's own lines: contiguous from 0 to T − 1, each a node."""
    position = 0
    for line in view:
        if line.l < 0 or line.i < 0 or line.i << line.l != position:
            return False
        position = (line.i + 1) << line.l
    return position == T


def summarized_directly(view, T: int) -> bool:
    return all(line.built or line.l == 0 for line in view)


def counts_directly(view, T: int) -> bool:
    """Each built line counts its rendered bytes and newline, measured on the model's lines."""
    return all(not line.built or line.bytes == len(model_view.rendered(line).encode("utf-8")) + 1 for line in view)


DIRECT = {"tiling": covers_directly, "summaries": summarized_directly, "counts": counts_directly}


@cache
def links(deep: bool):
    """One pass over the runs (the deep run when `deep`): each view's replay, and the first state
    where each invariant fails when checked directly. Shared by the four history laws."""
    found = deep_transitions() if deep else all_transitions()
    tallies = {"view": Tally(), "cview": Tally()}
    broken = {}
    for transition in found:
        for which, tally in tallies.items():
            if not tally.problem:
                replay((transition,), tally, which)
        before, event, after = transition
        for which in ("view", "cview"):
            view = after.view if which == "view" else after.cview
            for invariant, direct in DIRECT.items():
                if (which, invariant) not in broken and not direct(view, after.T):
                    broken[(which, invariant)] = f"T={after.T} after {type(event).__name__}: {lines_of(view)}"
    return tallies, broken


def deep_transitions():
    return transitions(DEEP_RUN[0], DEEP_RUN[1], DEEP, prompt=True)


@cache
def history_proofs() -> tuple[bool, str, int, float, int]:
    """The induction over histories, on the model's code (laws.z3_events): the node facts, the
    base case, the build lemma and every event's step. (proved, problem, queries, seconds, paths)."""
    queries, seconds, paths = 0, 0.0, 0
    for name, answer, witnessed in zv.node_lemmas():
        queries, seconds = queries + 1, seconds + answer.seconds
        if not answer.proved:
            return False, failed_answer(name, answer), queries, seconds, paths
        if not witnessed:
            return False, vacuous(name), queries, seconds, paths
    for name, explored in (("the first state", ze.base_case()),) + ze.event_proofs():
        queries, seconds, paths = queries + len(explored.answers), seconds + seconds_of(explored.answers), paths + explored.paths
        if not explored.proved:
            return False, explored.problem, queries, seconds, paths
    if len(ze.event_proofs()) != len(ze.events()) + 1:
        return False, "not every kind of event was proved", queries, seconds, paths
    return True, "", queries, seconds, paths


def history_law(which: str, invariant: str, budget: Budget) -> Verdict:
    ok, problem, queries, seconds, paths = history_proofs()
    if not ok:
        return Verdict(False, "none", problem)
    detail = f"{queries} Z3 queries in {seconds:.2f} s over {paths} paths of the model's code"
    if budget.deep:
        # a cross-check only: the label does not rest on it
        tallies, broken = links(True)
        tally = tallies[which]
        if tally.problem:
            return Verdict(False, "none", tally.problem)
        if (which, invariant) in broken:
            return Verdict(False, "none", broken[(which, invariant)])
        detail += f"; and replayed {tally.events:,} events to T = {tally.T_max:,}, level {tally.level_max}"
    return Verdict(True, HISTORY_LABEL, detail)


def view_covers(budget: Budget) -> Verdict:
    return history_law("view", "tiling", budget)


def cview_covers(budget: Budget) -> Verdict:
    return history_law("cview", "tiling", budget)


def view_summarized(budget: Budget) -> Verdict:
    return history_law("view", "summaries", budget)


def cview_summarized(budget: Budget) -> Verdict:
    return history_law("cview", "summaries", budget)


def view_counts_rendered(budget: Budget) -> Verdict:
    return history_law("view", "counts", budget)


def cview_counts_rendered(budget: Budget) -> Verdict:
    return history_law("cview", "counts", budget)


# ---- merge, fit and context: the model's functions, any view ----


def tree_has_of(tree: zm.SymTree):
    return lambda l, i: tree.has(l, i)


def unchanged(fitted, merges, V):
    return z3.And([merges.n == 0, fitted.n == V.n] + [fitted.arrays[f] == V.arrays[f] for f in V.arrays])


def merge_covers(budget: Budget) -> Verdict:
    """Merging two sibling lines into their parent keeps the coverage: model/view.py merge with
    the tree's parents, any view, any position, any level."""
    ok, problem, queries, seconds = step_proofs_merge()
    if not ok:
        return Verdict(False, "none", problem)
    return Verdict(True, VIEW_LABEL, f"{queries} Z3 queries in {seconds:.2f} s")


@cache
def step_proofs_merge() -> tuple[bool, str, int, float]:
    queries, seconds = 0, 0.0
    for name, answer, witnessed in zv.node_lemmas():
        queries, seconds = queries + 1, seconds + answer.seconds
        if not answer.proved:
            return False, failed_answer(name, answer), queries, seconds
        if not witnessed:
            return False, vacuous(name), queries, seconds
    ok, problem, answers = law_proved("merge_covers", merge_step("tiling"))
    return ok, problem, queries + len(answers), seconds + seconds_of(answers)


def merge_is_one_pair(budget: Budget) -> Verdict:
    """[gist §3.1] The pair most_due picks is two sibling lines whose parent the tree holds, and
    merge replaces them with the parent's line (its node, its text, built), keeping every other
    line; when no pair can merge, fit changes nothing."""

    def body(proof: zm.Proof) -> None:
        V, T, budget_bytes, tree = zv.fresh_view("V"), z3.Int("T"), z3.Int("budget"), zv.fresh_tree()
        proof.assume(zv.nodes(V))
        parents = tree_parents(tree)
        k = most_due(V, Sym(T), parents, False).term
        fitted, merges = fit(V, Sym(T), Sym(budget_bytes), parents)
        proof.check("no pair can merge: fit changes nothing",
                    z3.Implies(z3.And(k == -1), unchanged(fitted, merges, V)))
        with proof.under(k >= 0) as given:
            merged = merge(V, Sym(k), parents)
            l, i = zv.parent_of(V, k)
            j = z3.Int("j")
            given.check("the pair is two siblings whose parent is built", z3.And(zv.siblings(V, k), tree.has(l, i)))
            given.check("the merge replaces them with the parent's line", z3.And(
                merged.n == V.n - 1,
                merged.arrays["l"][k] == l, merged.arrays["i"][k] == i, merged.arrays["built"][k],
                merged.arrays["text"][k] == tree.text(l, i),
                z3.ForAll([j], z3.Implies(z3.And(0 <= j, j < k), zv.same_line(merged, j, V, j))),
                z3.ForAll([j], z3.Implies(z3.And(k < j, j < merged.n), zv.same_line(merged, j, V, j + 1)))))
        proof.witnessed("merge_is_one_pair", V.n == 2, k == 0)
    return view_verdict("merge_is_one_pair", body)


def fit_merges_built(budget: Budget) -> Verdict:
    """[gist §3.2] A batch merges only into parents the tree holds."""

    def merged_built(tree_has, merges):
        j = z3.Int("j")
        return z3.ForAll([j], z3.Implies(z3.And(0 <= j, j < merges.n),
                                         tree_has(merges.arrays["0"][j], merges.arrays["1"][j])))

    def body(proof: zm.Proof) -> None:
        V, T, budget_bytes, tree = zv.fresh_view("V"), z3.Int("T"), z3.Int("budget"), zv.fresh_tree()
        proof.assume(zv.nodes(V))
        _, merges = fit(V, Sym(T), Sym(budget_bytes), tree_parents(tree))
        proof.check("every merge's parent is built", merged_built(tree_has_of(tree), merges))
        proof.witnessed("fit_merges_built", V.n == 2)

    loops = zv.loops(lambda env, view, merges: merged_built(zv.built_by(env["parents"]), merges))
    return view_verdict("fit_merges_built", body, loops)


def fit_reaches_budget(budget: Budget) -> Verdict:
    """[gist §3.2] A batch ends at or under its budget, unless no pair can merge; a view already
    within its budget is left as it is."""

    def body(proof: zm.Proof) -> None:
        V, T, budget_bytes, tree = zv.fresh_view("V"), z3.Int("T"), z3.Int("budget"), zv.fresh_tree()
        proof.assume(zv.nodes(V))
        fitted, merges = fit(V, Sym(T), Sym(budget_bytes), tree_parents(tree))
        within = formula(view_bytes(fitted) <= Sym(budget_bytes))
        proof.check("the batch ends within its budget or with no pair that can merge",
                    z3.Or(within, zv.none_can_merge(fitted, tree_has_of(tree))))
        proof.check("a view within its budget is left as it is",
                    z3.Implies(formula(view_bytes(V) <= Sym(budget_bytes)), unchanged(fitted, merges, V)))
        proof.witnessed("fit_reaches_budget", V.n == 2)
    return view_verdict("fit_reaches_budget", body)


def context_ends_at_node(budget: Budget) -> Verdict:
    """[gist §4] A compaction's context holds only built lines that end by its node's end (the
    message before it, or the merge's last message), and it stops only at a line that is
    unbuilt, ends after that, or would take it past its budget [P19]."""

    def body(proof: zm.Proof) -> None:
        cview, l, i, limit = zv.fresh_view("C"), z3.Int("l"), z3.Int("i"), z3.Int("budget")
        proof.assume(zv.nodes(cview), l >= 0, i >= 0)
        lines = context(cview, Sym(l), Sym(i), Sym(limit))
        end = zv.context_end(l, i)
        L, I, B = lines.arrays["l"], lines.arrays["i"], lines.arrays["built"]
        j = z3.Int("j")
        proof.check("every line is built and ends by the node's end", z3.ForAll([j], z3.Implies(
            z3.And(0 <= j, j < lines.n), z3.And(B[j], zv.last_message(L[j], I[j]) <= end))))
        C = cview.arrays
        proof.assume(zv.BYTES_SUM(C["bytes"], 0) == 0)  # the empty sum: BYTES_SUM's definition
        sofar = zv.BYTES_SUM(C["bytes"], lines.n)  # the context's bytes
        proof.check("it stops only at a line that is unbuilt, ends after the node's end or does not fit", z3.Implies(
            lines.n < cview.n, z3.Not(z3.And(C["built"][lines.n], zv.last_message(C["l"][lines.n], C["i"][lines.n]) <= end,
                                              sofar + C["bytes"][lines.n] <= limit))))
        proof.witnessed("context_ends_at_node", cview.n == 2, limit > 10_000, C["bytes"][0] < 1000, C["bytes"][1] < 1000)
    return view_verdict("context_ends_at_node", body)


def context_is_prefix(budget: Budget) -> Verdict:
    """[gist §4] A compaction's context is the start of the compaction view."""

    def body(proof: zm.Proof) -> None:
        cview, l, i, limit = zv.fresh_view("C"), z3.Int("l"), z3.Int("i"), z3.Int("budget")
        proof.assume(zv.nodes(cview), l >= 0, i >= 0)
        lines = context(cview, Sym(l), Sym(i), Sym(limit))
        j = z3.Int("j")
        proof.check("the context is a prefix of the compaction view", z3.And(
            0 <= lines.n, lines.n <= cview.n,
            z3.ForAll([j], z3.Implies(z3.And(0 <= j, j < lines.n), zv.same_line(lines, j, cview, j)))))
        proof.witnessed("context_is_prefix", cview.n == 2)
    return view_verdict("context_is_prefix", body)


def context_within_budget(budget: Budget) -> Verdict:
    """[P19] A compaction's context is at most its budget (the compaction view's
    ceiling), counted by the model's own view_bytes and in rendered bytes (each line's
    `rendered` and newline), whatever the compaction view's size, for a compaction view whose
    built lines count what they render: so a compaction's `<chat>` never passes 32,000 bytes
    plus the tags, even while its view cannot merge down to its ceiling."""

    def body(proof: zm.Proof) -> None:
        cview, l, i, limit = zv.fresh_view("C"), z3.Int("l"), z3.Int("i"), z3.Int("budget")
        proof.assume(zv.nodes(cview), l >= 0, i >= 0, limit >= 0, zv.counted(cview, built_only=True))
        proof.witnessed("context_within_budget", cview.n == 2, limit == 100, z3.Not(cview.arrays["built"][0]),
                        cview.arrays["bytes"][0] == 60, cview.arrays["bytes"][1] == 60)
        lines = context(cview, Sym(l), Sym(i), Sym(limit))
        proof.check("the context's bytes are at most its budget", formula(view_bytes(lines) <= Sym(limit)))
        proof.check("the context's lines render at most its budget", rendered_within(proof, lines, limit))

    loops = zv.loops()
    loops["view_bytes.<locals>.add"] = zv.summed_view_bytes_loop()
    for name, answer in zv.sum_lemmas():
        if not answer.proved:
            return Verdict(False, "none", failed_answer(name, answer))
    return view_verdict("context_within_budget", body, loops, RENDERED_LABEL)


def every_parent(l, i):
    return z3.BoolVal(True)


def rendered_loops(keep=None):
    """The view laws' loops, with fit keeping every line counted as it renders (and `keep`),
    and view_bytes's sum as BYTES_SUM of the byte counts."""
    def kept(env, view, merges):
        return z3.And(zv.counted(view), keep(env, view, merges)) if keep else zv.counted(view)

    found = zv.loops(kept)
    found["view_bytes.<locals>.add"] = zv.summed_view_bytes_loop()
    return found


def rendered_within(proof: zm.Proof, lines, limit):
    """The bytes `lines` render (each line's `rendered` and newline, summed), with what ties
    them to the model's count: BYTES_SUM's empty sums and the sum lemma's instance."""
    sizes, _ = zv.rendered_sizes(lines)
    counts = lines.arrays["bytes"]
    proof.assume(zv.BYTES_SUM(counts, 0) == 0, zv.BYTES_SUM(sizes, 0) == 0, zv.sums_agree(counts, sizes, lines.n))
    return zv.BYTES_SUM(sizes, lines.n) <= limit


def turn_view_within_ceiling(budget: Budget) -> Verdict:
    return turn_view_proofs()


def turn_view_proofs() -> Verdict:
    """[P19] [P25] The lines of the view a turn sends render (the model's `rendered`, each with its
    newline) at most the view's ceiling, or no two of them are siblings (then it is the chat's
    binary digits: one line per 1-bit of T, at most 64 lines, `sibling_free_view_has_64_lines`).
    For any view whose built lines count what they render (as every history's do,
    `view_counts_rendered`), any T,
    ceiling and tree: the model's turn_view, both its fits run on Z3 terms, each keeping every
    line counted as it renders; so a line of any kind (a built one, a placeholder, a coarse
    placeholder) counted a byte off fails the proof. (A view that shows within the ceiling is
    sent as it is: each fit then leaves it as it is, `fit_reaches_budget`.)"""

    def body(proof: zm.Proof) -> None:
        V, T, ceiling, tree = zv.fresh_view("V"), z3.Int("T"), z3.Int("ceiling"), zv.fresh_tree()
        proof.assume(zv.nodes(V), zv.counted(V, built_only=True))
        # the domain is met, by a view of two lines, one built; asked after the fits, whose
        # results are quantified over rendered sizes, Z3 finds no model in minutes (each fit's
        # result is a state its loop reaches: the invariant holds at its start and the variant
        # drops, so those assumptions add no contradiction)
        proof.witnessed("turn_view_within_ceiling", V.n == 2, V.arrays["built"][0], z3.Not(V.arrays["built"][1]))
        sent = turn_view(V, Sym(T), Sym(ceiling), tree_parents(tree))
        view_bytes(sent)  # the count the fit's guard read, tied to its sum by the loop's invariant
        proof.check("every line of the view a turn sends counts what it renders", zv.counted(sent))
        proof.check("the view a turn sends renders within the ceiling, or no two of its lines are siblings",
                    z3.Or(rendered_within(proof, sent, ceiling), zv.none_can_merge(sent, every_parent)))

    def tiled(proof: zm.Proof) -> None:
        V, T, ceiling, tree = zv.fresh_view("V"), z3.Int("T"), z3.Int("ceiling"), zv.fresh_tree()
        proof.assume(zv.tiles(V, T))
        sent = turn_view(V, Sym(T), Sym(ceiling), tree_parents(tree))
        proof.check("the view a turn sends from a view that tiles 0..T−1 tiles them too", zv.tiles(sent, T))
        proof.witnessed("turn_view_within_ceiling, tiled", V.n == 2)

    answers = zv.sum_lemmas()
    for name, answer in answers:
        if not answer.proved:
            return Verdict(False, "none", failed_answer(name, answer))
    ok, problem, found = law_proved("turn_view_within_ceiling", body, rendered_loops())
    answers += found
    if not ok:
        return Verdict(False, "none", problem)
    # both fits keep the tiling (fit_keeping's invariant), so the sibling-free case is a tiling:
    # sibling_free_view_has_64_lines's premise
    ok, problem, tiled_answers = law_proved("turn_view_within_ceiling, tiled", tiled, fit_keeping("tiling"))
    if not ok:
        return Verdict(False, "none", problem)
    return Verdict(True, RENDERED_LABEL, f"{len(answers) + len(tiled_answers)} Z3 queries in "
                   f"{seconds_of(answers) + seconds_of(tiled_answers):.2f} s, {len(tiled_answers)} of them for the tiling")


# ---- the view's ceiling after any history, in rendered bytes [P19] [P20] ----


def sum_bound_lemma(bound: int) -> list[tuple[str, Answer]]:
    """Entries each at most `bound` sum, to n, to at most bound·n: by induction on n from
    BYTES_SUM's two equations, its base and its step each Z3's `unsat`."""
    a, n = z3.Array("a_bound", z3.IntSort(), z3.IntSort()), z3.Int("n_bound")
    base = prove(zv.BYTES_SUM(a, 0) <= 0, zv.sum_facts(a, 0)[:1])
    step = prove(zv.BYTES_SUM(a, n + 1) <= bound * (n + 1),
                 [n >= 0, a[n] <= bound, zv.BYTES_SUM(a, n) <= bound * n] + zv.sum_facts(a, n))
    return [("a sum of bounded entries, base", base), ("a sum of bounded entries, step", step)]


def sum_bound(sizes, n, bound: int):
    """The instance at (sizes, n) of `sum_bound_lemma`."""
    j = zv.fresh_index("j_bound")
    each = z3.ForAll([j], z3.Implies(z3.And(0 <= j, j < n), sizes[j] <= bound))
    return z3.Implies(z3.And(n >= 0, each), zv.BYTES_SUM(sizes, n) <= bound * n)


def line_bound_as_stated(l, i, T, x, built: bool):
    """line_renders_within_its_bound's statement, in the view's terms, at node (l, i) of a chat
    of T messages and text x: for a node of a chat below 2^64 and a text of at most 512 bytes
    when built, the model's `rendered` of its line is at most 1,578 bytes with its newline (a
    placeholder's, with its text at the most a placeholder may weigh, is less: its 128 bytes are
    under 3·512)."""
    size = zv.built_line_size(l, i, x)
    head = Sym.lift(model_view.utf8_bytes(model_view.name(Sym(l), Sym(i))))
    premise = [l >= 0, i >= 0, (i + 1) * POW2(l) <= T, T < 2 ** zc.T_BITS]
    if built:
        return z3.Implies(z3.And(premise + [zm.UTF8_BYTES(x) <= zc.LINE_BYTES_MAX]), size <= zc.LINE_RENDERED_BYTES_MAX)
    return z3.Implies(z3.And(premise), head + 1 + model_view.PLACEHOLDER_BYTES_MAX + 1 <= zc.LINE_RENDERED_BYTES_MAX)


def sibling_free_as_stated(sent, T):
    """sibling_free_view_has_64_lines's statement, in the view's terms."""
    return z3.Implies(z3.And(zv.tiles(sent, T), zv.none_can_merge(sent, every_parent), T < 2 ** zc.T_BITS),
                      sent.n <= zc.LINE_LINES_MAX)


def ceiling_chain(proof_bound: int, t_bits: int | None = zc.T_BITS, rlimit: int = RLIMIT) -> list[tuple[str, Answer]]:
    """The last links: from what the parts proved of the view a turn sends (it renders within the
    ceiling or no two lines are siblings; it tiles 0..T−1; a sibling-free tiling below 2^64 has
    at most 64 lines; each line renders at most 1,578 bytes; a sum of bounded entries), its lines
    render at most max(ceiling, proof_bound). Two queries: each line's bound, at any line, then
    the sum's. `t_bits` None drops T < 2^64: a canary, asked within `rlimit`."""
    with zm.running(zm.Proof({}, [])):  # the model's `rendered` run on terms
        sent, T, ceiling = zv.fresh_view("sent"), z3.Int("T"), z3.Int("ceiling")
        sizes, needs = zv.rendered_sizes(sent)
        L, I, X, B = (sent.arrays[f] for f in ("l", "i", "text", "built"))
        j = z3.Int("j_chain")
        at_j = [
            zv.END(L[j], I[j]) == (I[j] + 1) * POW2(L[j]),  # the gist's end of a node [gist §2]
            z3.Implies(B[j], zm.UTF8_BYTES(X[j]) <= zc.LINE_BYTES_MAX),  # a built text's 512 bytes [P13]
            line_bound_as_stated(L[j], I[j], T, X[j], True), line_bound_as_stated(L[j], I[j], T, X[j], False),
        ]
    bounded = [zv.tiles(sent, T), zv.in_range(j, sent)] + at_j + needs + ([T < 2 ** t_bits] if t_bits else [])
    each = prove(sizes[j] <= zc.LINE_RENDERED_BYTES_MAX, bounded, rlimit)
    k = zv.fresh_index("j_each")
    rendered = zv.BYTES_SUM(sizes, sent.n)
    facts = [
        z3.Or(rendered <= ceiling, zv.none_can_merge(sent, every_parent)),  # turn_view_within_ceiling
        zv.tiles(sent, T),  # turn_view_within_ceiling, tiled, from the history's tiling (view_covers)
        sibling_free_as_stated(sent, T),
        z3.ForAll([k], z3.Implies(zv.in_range(k, sent), sizes[k] <= zc.LINE_RENDERED_BYTES_MAX)),  # `each`
        sum_bound(sizes, sent.n, zc.LINE_RENDERED_BYTES_MAX),
    ] + ([T < 2 ** t_bits] if t_bits else [])
    total = prove(rendered <= z3.If(ceiling >= proof_bound, ceiling, proof_bound), facts, rlimit)
    return [("each line of the sent view at most 1,578 bytes", each), ("the chain", total)]


CEILING_BOUND = zc.LINE_LINES_MAX * zc.LINE_RENDERED_BYTES_MAX  # 100,992
CANARY_RLIMIT = RLIMIT // 10


@cache
def view_ceiling_parts() -> tuple[bool, str, list[tuple[str, Answer]]]:
    """Each part the view's ceiling rests on, in turn: (proved, problem, the chain's answers)."""
    ok, problem, *_ = history_proofs()
    if not ok:
        return False, problem, []
    # the history's count (rendered_size) is the count turn_view_within_ceiling assumes
    V = zv.fresh_view("V")
    with zm.running(zm.Proof({}, [])):
        counted, given = zv.counted(V, built_only=True), [zv.nodes(V), zv.sized(V), zv.size_definition()]
    answers = [("a sized view counts what it renders", prove(counted, given))]
    for name, verdict in (("turn_view_within_ceiling", turn_view_proofs()),
                          ("sibling_free_view_has_64_lines", zc.sibling_free_view_has_64_lines(Budget())),
                          ("line_renders_within_its_bound", zc.line_renders_within_its_bound(Budget()))):
        if not verdict.passed:
            return False, f"{name}: {verdict.detail}", answers
    answers += sum_bound_lemma(zc.LINE_RENDERED_BYTES_MAX)
    answers += ceiling_chain(CEILING_BOUND)
    for name, answer in answers:
        if not answer.proved:
            return False, failed_answer(name, answer), answers
    return True, "", answers


def view_within_ceiling(budget: Budget) -> Verdict:
    """[P19] [P20] After any history of a chat below 2^64 messages, the lines of the view a turn
    sends render at most max(ceiling, 100,992) bytes (each line's rendered bytes and newline): at
    most the ceiling when the ceiling is at least 100,992 bytes. The parts: the history laws
    (both views tile and count what they render), turn_view_within_ceiling,
    sibling_free_view_has_64_lines, line_renders_within_its_bound, the sum lemma and the chain
    from their statements. The precondition's canaries: the chain must not prove a bound one byte
    lower, nor the bound without T < 2^64."""
    ok, problem, answers = view_ceiling_parts()
    if not ok:
        return Verdict(False, "none", problem)
    # a refusal is Z3's `unknown` at its limit: the canaries ask within a tenth of it, which the
    # true chain needs far less than (mutant ceiling_canary_without_its_cut proves within it)
    for claim, refused in (("a bound of 100,991 bytes", ceiling_chain(CEILING_BOUND - 1, rlimit=CANARY_RLIMIT)),
                           ("the bound without T < 2^64", ceiling_chain(CEILING_BOUND, None, CANARY_RLIMIT))):
        if all(answer.proved for _, answer in refused):
            return Verdict(False, "none", f"the chain proved {claim}: its precondition is not what bounds it")
    return Verdict(True, CEILING_LABEL, f"{len(answers)} Z3 queries in {seconds_of(answers):.2f} s beside its parts; "
                   "the chain refused a bound one byte lower and the bound without T < 2^64")


CEILING_LABEL = ("Proved (Z3): any history of a chat below 2^64, in rendered bytes, by parts: the history laws, "
                 "turn_view_within_ceiling, sibling_free_view_has_64_lines, line_renders_within_its_bound, a sum "
                 "lemma by induction, and the chain (one query) from their statements, the last two restated in "
                 "the view's terms by hand; trusted: what its parts trust")


# ---- the twins of model/base.py, against the originals ----

POOL = (Line(0, 0, "a", False, 3), Line(1, 0, "b", True, 5), Line(0, 3, "c", True, 7))


def concrete_line(line) -> Line:
    """A Line whose fields Z3 simplifies to Python values."""
    values = {}
    for name, sort in zm.LINE_FIELDS:
        term = z3.simplify(zm.LIFT[sort](getattr(line, name)))
        if sort == zm.INT:
            values[name] = term.as_long()
        elif sort == zm.BOOL:
            values[name] = z3.is_true(term)
        else:
            values[name] = next(text for text, constant in zm._LITERALS.items() if constant.eq(term))
    return Line(**values)


def concrete_view(items) -> tuple:
    n = zm.numeral(items.n)
    return tuple(concrete_line(items.at(z3.IntVal(k))) for k in range(n))


def concrete(value):
    """A value computed on terms that Z3 simplifies to Python values, as those values."""
    if isinstance(value, zm.ZSeq):
        return concrete_view(value)
    if isinstance(value, tuple):
        return tuple(concrete(part) for part in value)
    if isinstance(value, Line):
        return concrete_line(value)
    if isinstance(value, Sym):
        return zm.numeral(value.term)
    if isinstance(value, zm.SymBool):
        return zm.truth(value.term)
    return value


def twin_agrees(original, twin, arguments, as_terms) -> str:
    """One case: where the twin's obligations hold, it computes the original's value; where the
    original raises, some obligation fails."""
    try:
        expected = original(*arguments)
        raised = None
    except (IndexError, ValueError) as error:
        expected, raised = None, error
    # mapped's change is model code that calls choose: it runs with the twins swapped in
    with (zm.running if twin is zm.mapped else zm.inside)(zm.Proof({})) as proof:
        got = twin(*as_terms)
        held = all(zm.truth(condition) for condition, _ in proof.found)
    if raised is not None:
        return "" if not held else f"{original.__name__}{arguments}: Python raises, the twin does not"
    if not held:
        return ""
    value = concrete_view(got) if isinstance(got, zm.ZSeq) else got
    if isinstance(value, Line) or isinstance(got, (Sym, zm.SymBool)):
        value = concrete_line(value) if isinstance(value, Line) else z3.simplify(got.term)
        expected_value = expected if isinstance(expected, Line) else z3.simplify(zm.LIFT[zm.term_kind(expected)](expected))
        same = value == expected_value if isinstance(value, Line) else value.eq(expected_value)
    else:
        same = value == expected
    return "" if same else f"{original.__name__}{arguments}: Python gives {expected!r}, the twin {value!r}"


@cache
def twins_check() -> tuple[str, int]:
    """Every tuple of ≤ 3 lines of two kinds, every index −4..4, each sequence twin and choose;
    then the model's view functions on concrete arrays against the same on tuples."""
    cases = 0
    # two kinds of line are enough to tell every position apart from its neighbours' value
    tuples = [items for size in range(4) for items in itertools.product(POOL[1:], repeat=size)]
    for items in tuples:
        seq = zm.ZSeq.of(zm.LINE, items)
        for original, twin, argument_sets in (
            (base.length, zm.length, [((items,), (seq,))]),
            (base.item, zm.item, [((items, k), (seq, Sym(z3.IntVal(k)))) for k in range(-4, 5)]),
            (base.appended, zm.appended, [((items, new), (seq, new)) for new in POOL]),
            (base.pair_replaced, zm.pair_replaced, [((items, k, POOL[1]), (seq, Sym(z3.IntVal(k)), POOL[1])) for k in range(-4, 5)]),
            (base.replaced, zm.replaced, [((items, k, POOL[2]), (seq, Sym(z3.IntVal(k)), POOL[2])) for k in range(-4, 5)]),
            (base.padded, zm.padded, [((items, k, POOL[0]), (seq, Sym(z3.IntVal(k)), POOL[0])) for k in range(-4, 5)]),
            (base.prefix, zm.prefix, [((items, k), (seq, Sym(z3.IntVal(k)))) for k in range(-4, 5)]),
            (base.mapped, zm.mapped, [((items, change), (seq, change)) for change in CHANGES]),
        ):
            for arguments, as_terms in argument_sets:
                cases += 1
                problem = twin_agrees(original, twin, arguments, as_terms)
                if problem:
                    return problem, cases
    condition = z3.Bool("c")
    for truth_value in (True, False):
        for then, otherwise in ((1, 2), (POOL[0], POOL[2]), ((POOL[0],), (POOL[1], POOL[2]))):
            cases += 1
            if isinstance(then, tuple):
                got = zm.merged(condition, zm.ZSeq.of(zm.LINE, then), otherwise)
            else:
                got = zm.merged(condition, then, otherwise)
            expected = base.choose(truth_value, then, otherwise)
            if isinstance(got, Sym):
                ok = z3.simplify(z3.substitute(got.term, (condition, z3.BoolVal(truth_value)))).as_long() == expected
            elif isinstance(got, Line):
                ok = concrete_line(Line(**{f: _substitute(getattr(got, f), condition, truth_value) for f, _ in zm.LINE_FIELDS})) == expected
            else:
                arrays = {f: z3.substitute(a, (condition, z3.BoolVal(truth_value))) for f, a in got.arrays.items()}
                n = z3.substitute(got.n, (condition, z3.BoolVal(truth_value)))
                ok = concrete_view(zm.ZSeq(got.kind, arrays, n)) == expected
            if not ok:
                return f"choose({truth_value}, {then!r}, {otherwise!r}): the twin differs", cases
    # two parents, chosen: each node's answers are the chosen parents' answers
    first = model_view.Parents(lambda l, i: l == i, lambda l, i: built_line(l, i, "a"))
    second = model_view.Parents(lambda l, i: l < i, lambda l, i: built_line(l, i, "b"))
    for truth_value in (True, False):
        got = zm.merged(condition, first, second)
        expected = base.choose(truth_value, first, second)
        for l, i in itertools.product(range(3), repeat=2):
            cases += 1
            built = zm.truth(z3.substitute(zm.SymBool.lift(got.built(l, i)), (condition, z3.BoolVal(truth_value))))
            line = concrete_line(Line(**{f: _substitute(getattr(got.line(l, i), f), condition, truth_value)
                                         for f, _ in zm.LINE_FIELDS}))
            if built != expected.built(l, i) or line != expected.line(l, i):
                return f"choose({truth_value}, parents, parents) at ({l}, {i}): the twin differs", cases
    x = z3.Int("x")
    for value in range(-20, 21):
        for count in range(6):
            for operation, python in ((lambda a: a << count, value << count), (lambda a: a >> count, value >> count),
                                      (lambda a: a << Sym(z3.IntVal(count)), value << count),
                                      (lambda a: a & ((1 << count) - 1), value & ((1 << count) - 1)),
                                      (lambda a: a & ~((1 << count) - 1), value & ~((1 << count) - 1))):
                cases += 1
                term = z3.substitute(operation(Sym(x)).term, (x, z3.IntVal(value)))
                if z3.simplify(term).as_long() != python:
                    return f"an integer operation on {value}, {count}: the term differs from Python", cases
    problem, more = views_on_arrays()
    if problem:
        return problem, cases + more
    from laws.z3_tree import trie_twins_check
    problem, tries = trie_twins_check()
    return problem, cases + more + tries


def _substitute(value, condition, truth_value):
    if isinstance(value, (Sym, zm.SymBool, zm.SymText)):
        return type(value)(z3.simplify(z3.substitute(value.term, (condition, z3.BoolVal(truth_value)))))
    return value


def _swap_to(line: Line):
    return lambda old: base.choose((old.l == line.l) & (old.i == line.i), line, old)


CHANGES = (lambda old: old, _swap_to(POOL[2]), _swap_to(POOL[1]))


def views_on_arrays() -> tuple[str, int]:
    """The model's fit, context and with_line run through the twins on concrete arrays (every
    length a numeral, so each loop is unrolled) give what they give on Python tuples, on views
    from a model run."""
    cases = 0
    found = transitions(60, 5, Config(1_200, 600, 600, 300, 4), prompt=True)
    for number, (before, event, after) in enumerate(found):
        if number % 16 or len(after.view) < 4:
            continue
        view = after.view
        parents = tree_parents(after.tree)
        expected = (fit(view, after.T, 300, parents), context(view, 1, after.T >> 2, 900),
                    with_line(view, built_line(0, after.T - 1, "s")))
        with zm.running(zm.Proof({})):
            seq = zm.ZSeq.of(zm.LINE, view)
            got = concrete((fit(seq, after.T, 300, parents), context(seq, 1, after.T >> 2, 900),
                            with_line(seq, built_line(0, after.T - 1, "s"))))
        cases += 1
        if got != expected:
            return f"T={after.T}: the twins on arrays differ from the model on tuples", cases
    return "", cases


def twins_agree(budget: Budget) -> Verdict:
    problem, cases = twins_check()
    if problem:
        return Verdict(False, "none", problem)
    return Verdict(True, twins_label(f"{cases:,}"), f"{cases:,} cases")


def twins_label(cases: str) -> str:
    return ("Bounded: tuples of ≤ 3 lines, indices −4..4, integers −20..20, views of a model run, 5 tries at "
            f"indices −1..17 (the trie's twins at concrete digits only): {cases} cases")


TWINS_LABEL = twins_label("at least 2,400")


# ---- push_agrees_always ----


PUSH_LABEL = ("Proved (Z3): push is the counter (model code, induction on its list), L0–L5; the fold step is "
              "the carry's merge (model code: fold_step, fit, most_due on any digit view), joined by induction "
              f"over t; trusted: {TRUSTED_ENCODING}, {TRUSTED_RULES}, the case "
              "splits on push's list and on the lowest 0-digit, the inductions over t, push's list and the "
              "view's lines")


def push_agrees_always(budget: Budget) -> Verdict:
    """[gist §3.2] For every t. See docs/push_agrees_always.md."""
    proved = push_runs_as_the_counter() + lemmas()
    for name, claim, answer, witnessed in proved:
        if not answer.proved:
            return Verdict(False, "none", f"{name} ({claim}): Z3 said {answer.status}")
        if not witnessed:
            return Verdict(False, "none", vacuous(name))
    ok, problem, fold_queries, fold_seconds = fold_proofs()
    if not ok:
        return Verdict(False, "none", problem)
    # a cross-check by computation, not a link of the proof
    ok, detail = digits_agree(budget.t)
    if not ok:
        return Verdict(False, "none", detail)
    seconds = sum(answer.seconds for _, _, answer, _ in proved) + fold_seconds
    return Verdict(True, PUSH_LABEL,
                   f"{len(proved) + fold_queries} Z3 queries in {seconds * 1000:.0f} ms; "
                   f"cross-check: digits, push and fold agree for {detail}")


# More late runs, each with its own job count (1 to 8) and sizes, so the work-queue laws see
# narrow and wide windows: (messages, seed, config).
WIDE_RUNS = tuple(
    (200, 30 + jobs, Config(600 * jobs + 1_800, 300 * jobs + 900, 900, 450, jobs))
    for jobs in range(1, 9)
)


# ---- messages ----


def message_law(budget: Budget) -> Verdict:
    """The Message case of the induction (laws.z3_events message_claims) proves these claims on
    every path of `step`'s code."""
    ok, problem, queries, seconds, paths = history_proofs()
    if not ok:
        return Verdict(False, "none", problem)
    message = dict(ze.event_proofs())["Message"]
    return Verdict(True, HISTORY_LABEL, f"{len(message.answers)} Z3 queries over {message.paths} paths of a message "
                   f"({message.refused} refused by the model's own checks)")


def message_appends(budget: Budget) -> Verdict:
    """When no batch runs, a message appends only its own line: the old view is a prefix, then
    message T's line; the same for the compaction view when it merges nothing either."""
    return message_law(budget)


def message_merges_nothing(budget: Budget) -> Verdict:
    """A message merges nothing while the view is not shrinking and at most its ceiling once the
    message's line is in it [gist §3.2]; the compaction view then merges only past its own
    ceiling or while shrinking [P4]."""
    return message_law(budget)


# ---- the work queue ----


def need_first(budget: Budget) -> Verdict:
    """While a turn waits, no call starts but the view's unbuilt lines, and every line of the
    window that is not waiting for a retry runs [gist §6] [P8]."""
    seen = 0
    for before, event, after in all_transitions():
        if not after.waiting:
            continue
        seen += 1
        unbuilt = unbuilt_lines(after.view)
        for node in after.running:
            if node not in before.running and node not in unbuilt:
                return Verdict(False, "none", f"T={after.T}: {node} starts while a turn waits")
        for node in unbuilt[: after.config.jobs_max]:
            if node not in after.running and node not in after.retry_later:
                return Verdict(False, "none", f"T={after.T}: {node} waits for a slot while a turn waits")
    return Verdict(seen > 50, f"Searched: {seen} waiting states of model runs", "")


def outcome_node(event):
    if isinstance(event, (Built, Failed)):
        return (event.l, event.i)
    return None


def need_first_running(budget: Budget) -> Verdict:
    """While a turn waits, running merges stop only when the window's lines need their slots:
    as few as that takes, the youngest first, without counting as failures, back to their queue
    [P8]. Without a wait, nothing stops."""
    seen = 0
    stopped_total = 0
    kept_total = 0
    for before, event, after in all_transitions():
        if isinstance(event, Restart):
            continue
        jobs_max = after.config.jobs_max
        still = tuple(node for node in before.running if node != outcome_node(event))
        stopped = [node for node in still if node not in after.running]
        if not after.waiting:
            if stopped:
                return Verdict(False, "none", f"T={after.T}: {stopped} stopped with no turn waiting")
            continue
        seen += 1
        window = unbuilt_lines(after.view)[:jobs_max]
        wanted = [node for node in window if node not in still and node not in after.retry_later]
        short = max(0, len(wanted) - (jobs_max - len(still)))
        merges = [node for node in still if node[0] > 0]
        expected = merges[::-1][:short]
        if sorted(stopped) != sorted(expected):
            return Verdict(False, "none", f"T={after.T}: stopped {stopped}, the youngest {short} merges are {expected}")
        stopped_total += len(stopped)
        kept_total += len(merges) - len(stopped)
        for node in stopped:
            if node in after.retry_later or dict(after.failures).get(node, 0) != dict(before.failures).get(node, 0):
                return Verdict(False, "none", f"T={after.T}: stopping {node} counted as a failure")
            if node not in after.ready:
                return Verdict(False, "none", f"T={after.T}: stopped merge {node} left its queue")
    return Verdict(seen > 10 and stopped_total > 0 and kept_total > 0,
                   f"Searched: {seen} waiting states of model runs",
                   f"{stopped_total} merges stopped, {kept_total} kept running")


def failed_waits_for_retry(budget: Budget) -> Verdict:
    """A failed node is not tried again before the next message, a Retry (the compactor's
    backoff passed) or a restart, even while a turn waits [gist §4] [P8]."""
    seen = 0
    for before, event, after in all_transitions():
        if isinstance(event, (Message, Retry, Restart)):
            continue
        for node in before.retry_later:
            seen += 1
            if node in after.running:
                return Verdict(False, "none", f"T={after.T}: failed {node} runs again on {event}")
    return Verdict(seen > 100, f"Searched: {seen} failed nodes in model runs", "")


def message_window_holds(budget: Budget) -> Verdict:
    """A message's node runs only when fewer than jobs_max lines before it are unbuilt [gist §4]
    [P6]; at most jobs_max calls run."""
    seen = 0
    for before, event, after in all_transitions():
        unbuilt = unbuilt_lines(after.view)
        if len(after.running) > after.config.jobs_max:
            return Verdict(False, "none", f"T={after.T}: {len(after.running)} calls run")
        for node in after.running:
            if node[0] == 0:
                seen += 1
                if node in unbuilt and unbuilt.index(node) >= after.config.jobs_max:
                    return Verdict(False, "none", f"T={after.T}: {node} runs with {unbuilt.index(node)} unbuilt lines before it")
    return Verdict(seen > 100, f"Searched: {seen} running messages in model runs", "")


CAPPED_MARK = "(not summarized, cut: zoom it) "  # docs/planner.md, [P16]


def third_failure(state: State, l: int, i: int) -> State:
    for _ in range(3):
        assert (l, i) in state.running
        state = step(state, Failed(l, i))
        if (l, i) not in state.running and tree_get(state.tree, l, i) is None:
            state = step(state, Retry())  # the backoff passed
    return state


def capped_problem(text: str | None, halves: tuple[str, ...]) -> str | None:
    """The capped line is the mark, then the node's input cut: a message's source, or both
    halves, each cut, joined by a newline; 512 bytes at most."""
    if text is None:
        return "not built"
    if utf8_bytes(text) > LINE_BYTES_MAX:
        return f"{utf8_bytes(text)} bytes"
    if not text.startswith(CAPPED_MARK):
        return f"no mark: {text[:40]!r}"
    rest = text[len(CAPPED_MARK):]
    if len(halves) == 1:
        source = halves[0]
        ok = source.startswith(rest) and utf8_bytes(rest) > LINE_BYTES_MAX - utf8_bytes(CAPPED_MARK) - 4
        return None if ok else "not the source, cut"
    a, b = halves
    for k in range(len(rest)):
        if rest[k] == "\n" and a.startswith(rest[:k]) and b.startswith(rest[k + 1:]) and k > 0 and k + 1 < len(rest):
            return None
    return "not both halves, cut"


def fail_cap_builds(budget: Budget) -> Verdict:
    """A node's third failed try builds its line from the mark and its input cut, within 512
    bytes [D5] [P16]; no node ever counts three failures; the counts survive
    a restart."""
    seen = 0
    restarts = 0
    for before, event, after in all_transitions():
        for node, count in after.failures:
            if count >= 3:
                return Verdict(False, "none", f"T={after.T}: {node} counts {count} failures")
        if isinstance(event, Restart):
            restarts += 1
            if after.failures != before.failures:
                return Verdict(False, "none", f"T={after.T}: a restart changed the failure counts")
        if isinstance(event, Failed) and (event.l, event.i) in before.running:
            count = dict(before.failures).get((event.l, event.i), 0) + 1
            if count == 3:
                seen += 1
                l, i = event.l, event.i
                if l == 0:
                    halves = tuple(line.text for line in before.view if (line.l, line.i) == (0, i))
                else:
                    halves = (tree_get(before.tree, l - 1, 2 * i), tree_get(before.tree, l - 1, 2 * i + 1))
                problem = capped_problem(tree_get(after.tree, l, i), halves)
                if problem:
                    return Verdict(False, "none", f"T={after.T}: third failure of {(l, i)}: {problem}")
    # A directed case: one over-long message fails three times while its turn waits.
    state = step(State(SMALL), Message("tool", "x" * 3000))
    state = step(state, Wait())
    state = third_failure(state, 0, 0)
    problem = capped_problem(tree_get(state.tree, 0, 0), ("tool: " + "x" * 3000,))
    if problem:
        return Verdict(False, "none", f"the directed case: {problem}")
    return Verdict(seen > 10 and restarts > 0,
                   f"Searched: {seen} third failures in model runs, and a directed case",
                   f"{restarts} restarts kept their counts")


def settle_bound(state: State, outcome_seed: int) -> tuple[bool, str, int]:
    """From `state`, a turn waits; the compactor answers each running call, failing it unless the
    seed says otherwise. The view is settled within 3 outcomes per unbuilt line."""
    state = step(state, Wait())
    if not state.waiting:
        return True, "", 0
    bound = 3 * len(unbuilt_lines(state.view))
    outcomes = 0
    roll = outcome_seed
    while state.waiting:
        if not state.running and state.retry_later:
            state = step(state, Retry())  # the backoff passed: no outcome, no message
            if not state.running:
                return False, f"T={state.T}: a Retry started nothing while a turn waits", outcomes
            continue
        if not state.running:
            return False, f"T={state.T}: a waiting turn with nothing running", outcomes
        if outcomes >= bound:
            return False, f"T={state.T}: not settled after {outcomes} outcomes", outcomes
        l, i = state.running[roll % len(state.running)]
        roll = (roll * 1103515245 + 12345) & 0x7FFFFFFF
        if roll % 4 == 0:
            state = step(state, Built(l, i, "summary"))
        else:
            state = step(state, Failed(l, i))
        # a merge that kept its slot may end meanwhile; only the view's lines count
        outcomes += 1 if l == 0 else 0
    return True, "", outcomes


def settle_reached(budget: Budget) -> Verdict:
    """A waiting turn's view is settled after at most 3 compactor outcomes per unbuilt line, when
    every call fails or answers in any order [gist §6] [D5]."""
    seen = 0
    most = 0
    for number, (before, event, after) in enumerate(all_transitions()):
        if number % 5:
            continue
        for outcome_seed in (0, 3):
            ok, problem, outcomes = settle_bound(after, outcome_seed + number)
            if not ok:
                return Verdict(False, "none", problem)
            seen += 1
            most = max(most, outcomes)
    return Verdict(True, f"Searched: {seen} waits from model states", f"at most {most} outcomes")


HISTORY_LABEL = ("Proved (Z3): model/planner.py step for every event, every branch (a path the model's own assert "
                 "cuts is dropped; one path per event witnessed, cut_paths_prove_nothing), builds by an induction on "
                 f"the recursion; {TRUSTED}, the rule decimal(1) is its digit (line_size_rules_refuse), tree_put as an update of its two functions, proved on model/tree.py "
                 "(tree_lookup_gives_what_was_put); the work queue, capped_text and is_valid_text left unknown "
                 "(the claims hold for any; what they do is checked apart: capped_text_finds_its_source, queue_functions_hold)")

LAWS = [
    Law("due_cross_is_rational", "§3.2", "The model's division-free `more_due` is the rational order (T − last)/2^l, for all T, i ≥ 0 and levels.", "z3", DUE_LABEL, due_cross_is_rational),
    Law("due_is_transitive", "§3.2", "The due order is transitive and irreflexive, so the most due pair is well defined.", "z3", DUE_LABEL, due_is_transitive),
    Law("twins_agree", "—", "The Z3 twins of model/base.py's operations compute what the originals do, and the view functions run on concrete arrays give what they give on tuples.", "exhaustive", TWINS_LABEL, twins_agree),
    Law("view_covers", "§3", "After any history of events, the view covers messages 0..T−1, each once, contiguous, oldest first, each line a tree node.", "z3", HISTORY_LABEL, view_covers),
    Law("cview_covers", "§4", "The same for the compaction view.", "z3", HISTORY_LABEL, cview_covers),
    Law("merge_covers", "§3.1", "Merging two sibling lines into their parent keeps the coverage.", "z3", VIEW_LABEL, merge_covers),
    Law("view_summarized", "§3", "After any history, every merged line of the view is built; only a message's own line can wait for its summary.", "z3", HISTORY_LABEL, view_summarized),
    Law("cview_summarized", "§4", "The same for the compaction view.", "z3", HISTORY_LABEL, cview_summarized),
    Law("view_counts_rendered", "§3 [P19]", "After any history, every built line of the view counts what it renders with its newline (rendered_size, the model's `rendered` of its fields).", "z3", HISTORY_LABEL, view_counts_rendered),
    Law("cview_counts_rendered", "§4 [P19]", "The same for the compaction view.", "z3", HISTORY_LABEL, cview_counts_rendered),
    Law("merge_is_one_pair", "§3.1", "A merge replaces two sibling lines with their built parent, keeping every other line; when no pair can merge, fit changes nothing.", "z3", VIEW_LABEL, merge_is_one_pair),
    Law("fit_merges_built", "§3.2", "A batch merges only into built parents.", "z3", VIEW_LABEL, fit_merges_built),
    Law("fit_reaches_budget", "§3.2", "A batch ends at or under its budget unless no pair can merge; a view within its budget is left as it is.", "z3", VIEW_LABEL, fit_reaches_budget),
    Law("context_ends_at_node", "§4", "A compaction's context ends at its node and holds only built lines; it stops only at a line that is unbuilt, ends after the node, or would pass its budget.", "z3", VIEW_LABEL, context_ends_at_node),
    Law("context_is_prefix", "§4", "A compaction's context is the start of the compaction view.", "z3", VIEW_LABEL, context_is_prefix),
    Law("context_within_budget", "§4 [P19]", "A compaction's context is at most its budget, the compaction view's ceiling, whatever the compaction view's size: counted, and in rendered bytes (each line's rendered bytes and newline) when the compaction view's built lines count what they render.", "z3", RENDERED_LABEL, context_within_budget),
    Law("view_within_ceiling", "§3.2 [P19] [P20]", "After any history of a chat below 2^64 messages, the lines of the view a turn sends render at most the larger of the ceiling and 100,992 bytes (64 lines of at most 1,578), so at most the ceiling when it is at least 100,992 bytes; a bound one byte lower, or the bound without T below 2^64, is refused.", "z3", CEILING_LABEL, view_within_ceiling),
    Law("turn_view_within_ceiling", "§3.2, §6 [P19]", "The lines of the view a turn sends render (each line's rendered bytes and newline) at most the view's ceiling, or no two of them are siblings, each line counting what it renders; from a view that tiles 0..T−1 it tiles them too, so that case is the chat's binary digits (sibling_free_view_has_64_lines).", "z3", RENDERED_LABEL, turn_view_within_ceiling),
    Law("push_agrees_always", "§3.1, §3.2", "With push's length as the budget, the fold makes push's merges at every step of any number of pushes.", "z3", PUSH_LABEL, push_agrees_always),
    Law("message_appends", "§3.2", "When no batch runs, a message appends only its own line; the old view is a prefix of the new one (the compaction view's too, when it merges nothing either).", "z3", HISTORY_LABEL, message_appends),
    Law("message_merges_nothing", "§3.2", "A message merges nothing unless the view is shrinking or passes its ceiling with the new line; the compaction view then merges only while shrinking or past its own ceiling.", "z3", HISTORY_LABEL, message_merges_nothing),
    Law("need_first", "§6", "While a turn waits, only the view's unbuilt lines start, and every window line not waiting for a retry runs.", "runs", "Searched: at least 900 waiting states of model runs", need_first),
    Law("need_first_running", "§6", "While a turn waits, running merges stop only as the window's lines need their slots, the youngest first, without counting as failures.", "runs", "Searched: at least 900 waiting states of model runs", need_first_running),
    Law("failed_waits_for_retry", "§4", "A failed node is tried again only after the next message, a Retry or a restart, even while a turn waits.", "runs", "Searched: at least 600 failed nodes in model runs", failed_waits_for_retry),
    Law("message_window_holds", "§4", "A message's node runs only when fewer than 8 (jobs_max) lines before it are unbuilt; at most 8 calls run.", "runs", "Searched: at least 7,000 running messages in model runs", message_window_holds),
    Law("fail_cap_builds", "§4", "A node's third failed try builds a marked line, the mark then its input cut, within 512 bytes; the counts survive restarts.", "runs", "Searched: at least 40 third failures in model runs, and a directed case", fail_cap_builds),
    Law("settle_reached", "§6", "A waiting turn's view is settled after at most 3 compactor outcomes per unbuilt line.", "runs", "Searched: at least 1,800 waits from model states", settle_reached),
]
