"""Each event of the planner, on the model's own `step`, run on Z3 terms: what it does to the
views. The history laws' induction step (docs/history_laws.md).

Strategy: a state of the planner whose views are views of any length that meet the invariant
(both the chat's view and the compaction view tile messages 0..T−1, and each merged line is
built, its node in the tree), whose T, shrinking states, waiting flag, batches and configuration
are any terms, whose tree is two functions the proofs know nothing about, and whose work queue
(ready, running, failures, retry_later) is left unknown (laws.z3_model `Unknown`). `model.planner.step` runs on it for each kind of event — the
event's class is concrete, its fields are terms — and every branch of its code is taken both
ways (laws.z3_model `explore`); on every path the state it returns must meet the invariant again.

A build recurses: building (l, i) may build its parent (l + 1, i / 2) at once. The build lemma
says that a build at level ≥ 1 leaves every field but the tree and the work queue as it was,
and the tree holding every node it held; it is proved on `build`'s own code with the recursive call replaced by the lemma itself, an
induction on the depth of the recursion (a call that returns has a finite one). A second lemma,
on the same code with its inner build by the first, is a build at level 0: line (0, i) of both
views built with its text. Every other build is the model's code, run.

What this rests on, besides the trusted parts every proof on the model's code names: `tree_put`
as an update of the tree's two functions (laws.z3_model `SymTree.put`; proved of model/tree.py's
trie by tree_lookup_gives_what_was_put, laws.z3_tree), and the work
queue's functions (`without`, `failures_without`, `queue_by_last`, `failure_count`, `schedule`),
`capped_text` and `is_valid_text` left unknown — each returns a queue value, a condition or a
text from its own arguments, so a claim about the views proved for any result holds for theirs.
"""

from collections.abc import Callable
from dataclasses import replace
from functools import cache

import z3

import model.base as base
import model.view as model_view
from laws import z3_model as zm
from laws import z3_views as zv
from laws.z3_core import POW2, Sym, SymBool
from model.planner import Built, Config, Failed, Message, Restart, Retry, State, TurnEnd, Wait, step, with_line
from model.view import LINE_BYTES_MAX, built_line, view_bytes, waiting_line

ALLOWED = (("step", "isinstance"),)  # step tests the event's class, which each case fixes


def a_text(name: str) -> zm.SymText:
    return zm.SymText(z3.Const(name, zm.TEXT))


def size(items):
    """A tuple's or a sequence term's length, as a term."""
    return items.n if isinstance(items, zm.ZSeq) else z3.IntVal(len(items))


def any_state(tag: str) -> State:
    """A planner state of any views, T, flags, batches, configuration and tree; its work queue
    left unknown."""
    ints = lambda *names: [Sym(z3.Int(f"{tag}.{name}")) for name in names]
    config = Config(*ints("ceiling", "floor", "cceiling", "cfloor", "jobs_max", "failures_max"))
    flags = [SymBool(z3.Bool(f"{tag}.{name}")) for name in ("shrinking", "cshrinking", "waiting")]
    return State(
        config=config, T=Sym(z3.Int(f"{tag}.T")), view=zv.fresh_view(f"{tag}.view"), shrinking=flags[0],
        cview=zv.fresh_view(f"{tag}.cview"), cshrinking=flags[1], tree=zv.fresh_tree(f"{tag}.tree"),
        ready=zm.Unknown(), running=zm.Unknown(), failures=zm.Unknown(), retry_later=zm.Unknown(),
        waiting=flags[2], merges=zm.ZSeq.fresh(zm.NODE, f"{tag}.merges"), cmerges=zm.ZSeq.fresh(zm.NODE, f"{tag}.cmerges"))


def in_tree(view, built):
    """Each merged line's node is one the tree holds (`built(l, i)`: a formula): its summary
    exists [gist §2]."""
    j = zv.fresh_index("j_tree")
    L, I = view.arrays["l"], view.arrays["i"]
    return z3.ForAll([j], z3.Implies(z3.And(zv.in_range(j, view), L[j] > 0), built(L[j], I[j])))


def kept_invariant(view, T, tree):
    """The invariant but for the counts, checked apart from them (`invariant`)."""
    return z3.And(zv.tiles(view, T), zv.summarized(view), in_tree(view, tree.has))


def invariant(view, T, tree):
    """What every history keeps of a view: it tiles messages 0..T−1 with tree nodes, each
    merged line is built: marked so, and its node in the tree [gist §3], and each built line
    counts what it renders with its newline [P19]."""
    return z3.And(kept_invariant(view, T, tree), zv.sized(view))


def same_view(a, b):
    return zm.same(zm.Shape(zm.LINE), zm.lifted(zm.Shape(zm.LINE), a), zm.lifted(zm.Shape(zm.LINE), b))


def batch_loops():
    """fit's loop keeps the invariant, and while it has merged nothing the view is fit's input."""
    def keep(env, view, merges):
        start = env["view"]
        return z3.And(zv.tiles(view, Sym.lift(env["T"])), zv.summarized(view), in_tree(view, zv.built_by(env["parents"])),
                      zv.sized(view), z3.Implies(merges.n == 0, same_view(view, start)))
    found = zv.loops(keep)
    fit = found["fit.<locals>.merge_most_due"]
    # the step, proved apart from any path, is given `rendered_size`'s definition: a merged
    # line is its parent's built line, counted as it renders
    found["fit.<locals>.merge_most_due"] = replace(
        fit, facts=lambda env, state: fit.step_facts(env, state) + [zv.size_definition()])
    return found


# ---- the build lemma ----


KEPT = ("view", "cview", "T", "shrinking", "cshrinking", "waiting", "merges", "cmerges")


def kept_fields(before: State, after: State):
    claims = [before.tree.within(after.tree)]
    for name in KEPT:
        a, b = getattr(after, name), getattr(before, name)
        if isinstance(b, zm.ZSeq):
            claims.append(zm.same(zm.Shape(b.kind), zm.lifted(zm.Shape(b.kind), a), b))
        elif isinstance(b, Sym):
            claims.append(Sym.lift(a) == b.term)
        else:
            claims.append(SymBool.lift(a) == b.term)
    return z3.And(claims)


def build_lemma_body(path: zm.Proof) -> None:
    state, l, i = any_state("B"), z3.Int("B.l"), z3.Int("B.i")
    path.assume(l >= 1)
    path.hints = [l == 1, state.view.n == 1]
    after = zm.BUILD(state, Sym(l), Sym(i), a_text("B.text"))
    if after.config is not state.config:
        raise zm.Unproved("a build at level ≥ 1 changed the configuration")
    path.check("a build at level ≥ 1 keeps all but the tree and the work queue, and the tree only grows",
               kept_fields(state, after))


def build_zero_body(path: zm.Proof) -> None:
    state, i, text = any_state("Z"), z3.Int("Z.i"), a_text("Z.text")
    path.hints = [i == 0, state.view.n == 1]
    after = zm.BUILD(state, 0, Sym(i), text)
    line = built_line(0, Sym(i), text)
    marked = replace(state, view=with_line(state.view, line), cview=with_line(state.cview, line))
    if after.config is not state.config:
        raise zm.Unproved("a build at level 0 changed the configuration")
    path.check("a build at level 0 marks line (0, i) in both views and keeps all but the tree and the work queue, "
               "and the tree only grows",
               kept_fields(marked, after))


@cache
def build_lemma() -> zm.Explored:
    """model/planner.py build and ready_parent, for any l ≥ 1: the views and every other field
    but the tree and the work queue are as they were. Then, for l = 0 (its inner build by the
    first): line (0, i) of both views is built with the text, and the rest as for l ≥ 1."""
    above = zm.explore("the build lemma, l ≥ 1", zv.loops(), build_lemma_body)
    if not above.proved:
        return above
    zm.LEMMAS["level 0"] = False
    try:
        zero = zm.explore("the build lemma, l = 0", zv.loops(), build_zero_body)
    finally:
        zm.LEMMAS["level 0"] = True
    zero.answers[:0] = above.answers
    zero.paths += above.paths
    return zero


# ---- the events ----


def events() -> list[tuple[str, Callable[[], object]]]:
    """Each kind of event, its fields terms: a message's kind is a constant text, and the proof
    holds for any value of it (it is one more unknown text)."""
    return [
        ("Message", lambda: Message("user", a_text("E.text"))),
        ("Built", lambda: Built(Sym(z3.Int("E.l")), Sym(z3.Int("E.i")), a_text("E.summary"))),
        ("Failed", lambda: Failed(Sym(z3.Int("E.l")), Sym(z3.Int("E.i")))),
        ("Retry", Retry), ("Wait", Wait), ("TurnEnd", TurnEnd), ("Restart", Restart),
    ]


def grown(view, T, source):
    """[P2] [P3] The view with message T's line, before any batch: its waiting line, built
    when its source fits in a line (the gist's free node). A branch of the path, as in the model.
    model.base and model.view are read at the call: inside a proof they hold the twins."""
    line = waiting_line(T, source)
    view = base.appended(view, line)
    if model_view.utf8_bytes(source) <= LINE_BYTES_MAX:
        view = with_line(view, built_line(0, T, source))
    return view


def message_claims(path: zm.Proof, before: State, after: State, source) -> None:
    """message_appends and message_merges_nothing, on this path."""
    T, j = before.T.term, z3.Int("j_grow")

    def appends(new, old):
        return z3.And(new.n == old.n + 1,
                      z3.ForAll([j], z3.Implies(z3.And(0 <= j, j < old.n), zv.same_line(new, j, old, j))),
                      new.arrays["l"][old.n] == 0, new.arrays["i"][old.n] == T)

    view, cview = zm.lifted(zm.Shape(zm.LINE), after.view), zm.lifted(zm.Shape(zm.LINE), after.cview)
    merged, cmerged = size(after.merges), size(after.cmerges)
    path.check("message_appends: no merge, the view is the old one and message T's line",
               z3.Implies(merged == 0, appends(view, before.view)))
    path.check("message_appends: no merge in either view, the compaction view is the old one and message T's line",
               z3.Implies(z3.And(merged == 0, cmerged == 0), appends(cview, before.cview)))
    c = before.config
    calm = z3.And(z3.Not(before.shrinking.term),
                  Sym.lift(view_bytes(grown(before.view, before.T, source))) <= c.view_bytes_ceiling.term)
    ccalm = z3.And(z3.Not(before.cshrinking.term),
                   Sym.lift(view_bytes(grown(before.cview, before.T, source))) <= c.cview_bytes_ceiling.term)
    path.check("message_merges_nothing: not shrinking and within the ceiling with the new line, no merge",
               z3.Implies(calm, merged == 0))
    path.check("message_merges_nothing: and the compaction view merges only while shrinking or past its ceiling",
               z3.Implies(z3.And(calm, ccalm), cmerged == 0))


def decimal_of_one():
    """The rule "decimal(1) is its digit": what the twin of `decimal` computes of the number 1
    (Python's `str`), said of the function's term (laws/z3_ceiling.py's canary refuses a rule
    saying more: decimal(2) is "1")."""
    return zm.DECIMAL(1) == zm.literal("1")


def event_body(name: str, make_event):
    def body(path: zm.Proof) -> None:
        state = any_state("S")
        T = state.T.term
        path.assume(invariant(state.view, T, state.tree), invariant(state.cview, T, state.tree))
        # a message's line, written at level 0, shows "1" where a line of a level term l shows
        # decimal(2^l): pow2's first equation (the integer encoding) and what the twin of decimal
        # computes of 1 (Python's str) make them the same head at l = 0
        path.assume(POW2(0) == 1, decimal_of_one(), zv.size_definition())
        path.hints = [state.view.n == 2]
        event = make_event()
        if name == "Message":
            path.assume(zv.message_fact(T))
        after = step(state, event)
        for which in ("view", "cview"):
            view = getattr(after, which)
            if view is getattr(state, which) and after.tree is state.tree:
                continue  # the very same terms: the invariant is the assumption
            lifted = zm.lifted(zm.Shape(zm.LINE), view)
            path.check(f"{name} keeps the {which}'s tiling and summaries",
                       kept_invariant(lifted, Sym.lift(after.T), after.tree))
            path.check(f"{name} keeps each built line of the {which} counting what it renders",
                       zv.sized(lifted))
        if name == "Message":
            message_claims(path, state, after, "user: " + event.text)
    return body


@cache
def event_proofs() -> tuple[tuple[str, zm.Explored], ...]:
    """The induction step for each kind of event, and the base case, on the model's code."""
    found = []
    lemma = build_lemma()
    found.append(("the build lemma", lemma))
    if not lemma.proved:
        return tuple(found)
    for name, make_event in events():
        explored = zm.explore(f"{name} keeps the views", batch_loops(), event_body(name, make_event),
                              allowed=ALLOWED)
        found.append((name, explored))
        if not explored.proved:
            break
    return tuple(found)


def base_case() -> zm.Explored:
    """The first state's views: empty, at T = 0."""
    def body(path: zm.Proof) -> None:
        first = State()
        for which in ("view", "cview"):
            path.check(f"the first {which} meets the invariant",
                       invariant(zm.ZSeq.of(zm.LINE, getattr(first, which)), z3.IntVal(first.T), zv.fresh_tree("first")))
    return zm.explore("the first state", {}, body)
