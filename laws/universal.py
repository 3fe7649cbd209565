"""The laws proved with Z3 for every input, and the laws of the events checked on model runs.

Strategy: arithmetic claims (the due order) are proved outright: Z3 answers `unsat` for the
negation over unbounded `Int`, on the formula the model's own `more_due` computes (it runs on Z3
terms, laws.z3_core.Sym). A structural claim "after any history of events" is an induction: the
base case, and a Z3 proof, for any view length, position and level, that each step an event is
made of (append a line, mark a message's line built, merge two siblings) keeps the invariant
(laws.z3_view). The two links Z3 cannot see are checked by computation on model runs
(laws.z3_runs): that every event is exactly those steps, and that the Z3 terms compute the model's
own next view. Each proof's assumptions are shown satisfiable, so no proof is vacuous; the bounded
twins (laws.z3_view's Python steps on every small view) and the broken encodings of
tests/test_universal.py show the encodings can fail. The label a law earns says all of this: what
Z3 proved and over how many model events the links were checked.

The laws of the work queue and of messages are checked on the same runs (Bounded, with the count).
"""

from functools import lru_cache
from typing import List, Optional, Tuple

import z3

from laws import z3_view as zv
from laws.core import Budget, Law, Verdict
from laws.z3_core import POW2, Answer, Sym, prove, satisfiable
from laws.z3_push import digits_agree, lemmas
from laws.z3_runs import SMALL, Tally, lines_of, replay, transitions
from model.planner import (Built, Config, Failed, Message, Restart, Retry, State, Wait,
                           step, unbuilt_lines)
from model.tree import tree_get
from model.view import (LINE_BYTES_MAX, built_line, first, last, more_due, utf8_bytes,
                        view_bytes, waiting_line)

RUNS = ((300, 11), (300, 12))  # (messages, seed): late compactor, a small config (laws.z3_runs)
# The Z3 terms are evaluated on every event of a run at a tiny config with a prompt compactor:
# views of a few lines, so each concrete array is cheap to build, and a batch at most messages.
TINY = Config(1_200, 600, 600, 300, 4)
TIE_RUN = (600, 21)


def failed_answer(name: str, answer: Answer) -> str:
    return f"{name}: Z3 said {answer.status}" + (f" ({answer.model[:200]})" if answer.model else "")


# ---- the due order ----


def due_terms():
    la, ia, lb, ib, T = z3.Ints("la ia lb ib T")
    domain = [la >= 0, lb >= 0, ia >= 0, ib >= 0, T >= 0, POW2(la) >= 1, POW2(lb) >= 1]
    return la, ia, lb, ib, T, domain


def due_cross_is_rational(budget: Budget) -> Verdict:
    """The model's division-free comparison is the rational order (T − last)/2^l, for all
    non-negative T, indices and levels."""
    la, ia, lb, ib, T, domain = due_terms()
    cross = more_due(Sym(la), Sym(ia), Sym(lb), Sym(ib), Sym(T))
    pa, pb = POW2(la), POW2(lb)
    due_a = z3.ToReal(T - ((ia + 2) * pa - 1)) / z3.ToReal(pa)
    due_b = z3.ToReal(T - ((ib + 2) * pb - 1)) / z3.ToReal(pb)
    answer = prove(cross == (due_a > due_b), domain)
    if not answer.proved or not satisfiable(domain + [cross]):
        return Verdict(False, "none", failed_answer("cross = rational", answer))
    return Verdict(True, "Proved (Z3): all T, i ≥ 0, all levels", f"{answer.seconds * 1000:.0f} ms")


def production_more_due(la, ia, lb, ib, T):
    """The production form (T + 1 − first)/2^l, cross-multiplied [gist §3.2]."""
    return (T + 1 - (ia << la)) << lb > (T + 1 - (ib << lb)) << la


def due_orders_agree(budget: Budget) -> Verdict:
    """The model's order (from last) and the production form (T + 1 − first)/2^l are one order."""
    la, ia, lb, ib, T, domain = due_terms()
    model_order = more_due(Sym(la), Sym(ia), Sym(lb), Sym(ib), Sym(T))
    production = production_more_due(Sym(la), Sym(ia), Sym(lb), Sym(ib), Sym(T))
    answer = prove(model_order == production, domain)
    if not answer.proved or not satisfiable(domain + [model_order]):
        return Verdict(False, "none", failed_answer("orders agree", answer))
    return Verdict(True, "Proved (Z3): all T, i ≥ 0, all levels", f"{answer.seconds * 1000:.0f} ms")


def due_is_transitive(budget: Budget) -> Verdict:
    la, ia, lb, ib, T, domain = due_terms()
    lc, ic = z3.Ints("lc ic")
    domain = domain + [lc >= 0, ic >= 0, POW2(lc) >= 1]
    a, b, c = (Sym(la), Sym(ia)), (Sym(lb), Sym(ib)), (Sym(lc), Sym(ic))
    ab = more_due(a[0], a[1], b[0], b[1], Sym(T))
    bc = more_due(b[0], b[1], c[0], c[1], Sym(T))
    ac = more_due(a[0], a[1], c[0], c[1], Sym(T))
    answer = prove(z3.Implies(z3.And(ab, bc), ac), domain)
    irreflexive = prove(z3.Not(more_due(a[0], a[1], a[0], a[1], Sym(T))), domain)
    if not (answer.proved and irreflexive.proved and satisfiable(domain + [ab, bc])):
        return Verdict(False, "none", failed_answer("transitive", answer) + "; " + failed_answer("irreflexive", irreflexive))
    return Verdict(True, "Proved (Z3): all T, i ≥ 0, all levels",
                   f"transitive and irreflexive, {(answer.seconds + irreflexive.seconds) * 1000:.0f} ms")


# ---- the nodes: lemmas the view's steps rest on ----


def node_lemmas() -> List[Tuple[str, Answer, bool]]:
    """By the model's own `first` and `last`: node (l + 1, i >> 1) starts where (l, i) starts and
    ends where (l, i + 1) ends, for even i; node (0, i) is message i."""
    l, q = z3.Ints("l q")
    i = 2 * q
    facts = [l >= 0, q >= 0, POW2(0) == 1, POW2(1) == 2, POW2(l) >= 1, POW2(l + 1) == 2 * POW2(l)]
    parent_l, parent_i = Sym(l) + 1, Sym(i) >> 1
    starts = first(parent_l, parent_i).term == first(Sym(l), Sym(i)).term
    ends = last(parent_l, parent_i).term == last(Sym(l), Sym(i) + 1).term
    message_i = z3.Int("i")
    message = z3.And(first(Sym(z3.IntVal(0)), Sym(message_i)).term == message_i,
                     last(Sym(z3.IntVal(0)), Sym(message_i)).term == message_i)
    return [
        ("parent starts with its left half", prove(starts, facts), satisfiable(facts)),
        ("parent ends with its right half", prove(ends, facts), satisfiable(facts)),
        ("node (0, i) is message i", prove(message, [POW2(0) == 1, message_i >= 0]), True),
    ]


def step_proofs(invariant: str) -> List[Tuple[str, Answer, bool]]:
    """Each step keeps the invariant ("tiles" or "summarized"), for any view; with the base case."""
    v = zv.fresh("")
    T, k = z3.Int("T"), z3.Int("k")
    built = z3.Bool("built")
    found = []
    if invariant == "tiles":
        empty = zv.ZView(v.L, v.I, v.B, z3.IntVal(0))
        found.append(("base: the empty view tiles 0 messages", prove(zv.tiles(empty, z3.IntVal(0))), True))
        hold = [zv.tiles(v, T)]
        append_assumed = hold + zv.message_facts(T)
        found.append(("append keeps the tiling", prove(zv.tiles(zv.append(v, T, built), T + 1), append_assumed),
                      satisfiable(append_assumed + [v.n == 2])))
        merge_assumed = hold + [zv.siblings(v, k)] + zv.halves_facts(v.L[k], v.I[k])
        found.append(("merge keeps the tiling", prove(zv.tiles(zv.merge(v, k), T), merge_assumed),
                      satisfiable(merge_assumed + [v.n == 3])))
        found.append(("mark keeps the tiling", prove(zv.tiles(zv.mark_built(v, k), T), hold),
                      satisfiable(hold + [v.n == 1])))
    else:
        empty = zv.ZView(v.L, v.I, v.B, z3.IntVal(0))
        found.append(("base: the empty view", prove(zv.summarized(empty)), True))
        hold = [zv.summarized(v)]
        found.append(("append keeps it", prove(zv.summarized(zv.append(v, T, built)), hold),
                      satisfiable(hold + [v.n == 2, v.L[0] == 1])))
        merge_assumed = hold + [zv.siblings(v, k)]
        found.append(("merge keeps it", prove(zv.summarized(zv.merge(v, k)), merge_assumed),
                      satisfiable(merge_assumed + [v.n == 3])))
        found.append(("mark keeps it", prove(zv.summarized(zv.mark_built(v, k)), hold),
                      satisfiable(hold + [v.n == 1])))
    return found


@lru_cache(maxsize=None)
def run_replay(which: str) -> Tally:
    """Computed once per process: view_covers and view_summarized share one replay. Every event
    of the runs is replayed; the Z3 terms are compared on every event of the tiny run."""
    tied = replay([TIE_RUN], which, 1, tuple(transitions(TIE_RUN[0], TIE_RUN[1], TINY, prompt=True)))
    if tied.problem:
        return tied
    untied = replay(list(RUNS), which, 1, all_transitions(), use_z3=False)
    untied.z3_steps = tied.z3_steps
    untied.tied_merges = tied.merges
    untied.events += tied.events
    untied.appends += tied.appends
    untied.marks += tied.marks
    untied.merges += tied.merges
    return untied


def covers_directly(view_lines, T: int) -> bool:
    """The bounded twin, on the model's own lines: contiguous from 0 to T − 1, each a node."""
    position = 0
    for l, i, _ in view_lines:
        if l < 0 or i < 0 or first(l, i) != position:
            return False
        position = last(l, i) + 1
    return position == T


def summarized_directly(view_lines) -> bool:
    return all(built or l == 0 for l, i, built in view_lines)


@lru_cache(maxsize=None)
def run_direct(which: str, claim: str) -> Tuple[int, str]:
    """The claim checked on each state as the runs go, so the first broken state is reported
    even when a broken model would later stop making progress."""
    seen = 0
    for messages, seed in RUNS:
        for before, event, after in transitions(messages, seed):
            seen += 1
            lines = lines_of(after.view if which == "view" else after.cview)
            ok = covers_directly(lines, after.T) if claim == "tiles" else summarized_directly(lines)
            if not ok:
                return -1, f"T={after.T} after {type(event).__name__}: {lines}"
    return seen, ""


# More late runs, each with its own job count (1 to 8) and sizes, so the work-queue laws see
# narrow and wide windows: (messages, seed, config).
WIDE_RUNS = tuple(
    (200, 30 + jobs, Config(600 * jobs + 1_800, 300 * jobs + 900, 900, 450, jobs))
    for jobs in range(1, 9)
)


@lru_cache(maxsize=None)
def all_transitions():
    found = []
    for messages, seed in RUNS:
        found.extend(transitions(messages, seed))
    for messages, seed, config in WIDE_RUNS:
        found.extend(transitions(messages, seed, config))
    return tuple(found)


def induction(which: str, invariant: str) -> Verdict:
    proofs = node_lemmas() + step_proofs(invariant) if invariant == "tiles" else step_proofs(invariant)
    for name, answer, witnessed in proofs:
        if not answer.proved:
            return Verdict(False, "none", failed_answer(name, answer))
        if not witnessed:
            return Verdict(False, "none", f"{name}: its assumptions are unsatisfiable (vacuous)")
    seen, problem = run_direct(which, invariant)
    if seen < 0:
        return Verdict(False, "none", problem)
    tally = run_replay(which)
    if tally.problem:
        return Verdict(False, "none", tally.problem)
    seconds = sum(answer.seconds for _, answer, _ in proofs)
    return Verdict(
        True,
        f"Proved (Z3): each step, any length; steps = events on {tally.events:,} model events, "
        f"Z3 terms = model on {tally.z3_steps:,} steps and {tally.tied_merges:,} merges",
        f"{len(proofs)} Z3 proofs in {seconds:.2f} s; replayed {tally.appends} appends, {tally.marks} marks, "
        f"{tally.merges} merges; Z3 terms = model on {tally.z3_steps} steps ({tally.tied_merges} merges); direct check on {seen} states",
    )


def view_covers(budget: Budget) -> Verdict:
    return induction("view", "tiles")


def cview_covers(budget: Budget) -> Verdict:
    return induction("cview", "tiles")


def view_summarized(budget: Budget) -> Verdict:
    return induction("view", "summarized")


def cview_summarized(budget: Budget) -> Verdict:
    return induction("cview", "summarized")


def merge_covers(budget: Budget) -> Verdict:
    """A merge of two siblings keeps the coverage: the merge step and the node lemmas, for any
    view; the Z3 merge term is the model's on every merge of the runs."""
    proofs = node_lemmas() + [p for p in step_proofs("tiles") if p[0].startswith("merge")]
    for name, answer, witnessed in proofs:
        if not answer.proved or not witnessed:
            return Verdict(False, "none", failed_answer(name, answer))
    tally = run_replay("view")
    if tally.problem:
        return Verdict(False, "none", tally.problem)
    return Verdict(True, f"Proved (Z3): any view, position and level; Z3 merge = model's on {tally.tied_merges:,} merges",
                   f"{len(proofs)} proofs; the Z3 merge is the model's on {tally.tied_merges} merges")


# ---- push_agrees_always ----


def push_agrees_always(budget: Budget) -> Verdict:
    """[gist §3.2] For every t. See docs/push_agrees_always.md."""
    proved = lemmas()
    for name, claim, answer, witnessed in proved:
        if not answer.proved:
            return Verdict(False, "none", f"{name} ({claim}): Z3 said {answer.status}")
        if not witnessed:
            return Verdict(False, "none", f"{name}: its assumptions are unsatisfiable (vacuous)")
    ok, detail = digits_agree(budget.t)
    if not ok:
        return Verdict(False, "none", detail)
    seconds = sum(answer.seconds for _, _, answer, _ in proved)
    return Verdict(True, f"Proved (Z3): L0–L5 (push = increment on values); states and glue: by hand, Bounded for every t from 0 to {budget.t:,}",
                   f"{len(proved)} Z3 queries in {seconds * 1000:.0f} ms; digits, push and fold agree for {detail}")


# ---- messages ----


def grown_bytes(before: State, event: Message) -> int:
    """The view's bytes once the message's line is in it, before any batch [decision P2, P3]."""
    source = event.kind + ": " + event.text
    if utf8_bytes(source) <= LINE_BYTES_MAX:
        line = built_line(0, before.T, source)
    else:
        line = waiting_line(before.T, source)
    return view_bytes(before.view) + line.bytes


def message_transitions():
    return [(b, e, a) for b, e, a in all_transitions() if isinstance(e, Message)]


def message_appends(budget: Budget) -> Verdict:
    """When no batch runs, a message appends only its own line: the old view is a prefix."""
    seen = 0
    for before, event, after in message_transitions():
        if after.merges:
            continue
        seen += 1
        grown = len(before.view) + 1
        if len(after.view) != grown or after.view[: len(before.view)] != before.view:
            return Verdict(False, "none", f"T={before.T}: the old view is not a prefix of the new")
        new = after.view[-1]
        if (new.l, new.i) != (0, before.T):
            return Verdict(False, "none", f"T={before.T}: the new line is ({new.l}, {new.i})")
        if not after.cmerges and after.cview[: len(before.cview)] != before.cview:
            return Verdict(False, "none", f"T={before.T}: the old compaction view is not a prefix")
    return Verdict(seen > 100, f"Searched: {seen} messages of model runs", "")


def message_merges_nothing(budget: Budget) -> Verdict:
    """A message merges nothing while the view is not shrinking and at most its ceiling once the
    message's line is in it [gist §3.2]; the compaction view then merges only past its own
    ceiling or while shrinking [decision P4]."""
    seen = 0
    for before, event, after in message_transitions():
        c = before.config
        if before.shrinking or grown_bytes(before, event) > c.view_bytes_ceiling:
            continue
        seen += 1
        if after.merges:
            return Verdict(False, "none", f"T={before.T}: merged {after.merges} with no batch due")
        if after.cmerges and not before.cshrinking:
            cview_grown = view_bytes(before.cview) + (grown_bytes(before, event) - view_bytes(before.view))
            if cview_grown <= c.cview_bytes_ceiling:
                return Verdict(False, "none", f"T={before.T}: the compaction view merged below its ceiling")
    return Verdict(seen > 100, f"Searched: {seen} messages of model runs", "")


# ---- the work queue ----


def need_first(budget: Budget) -> Verdict:
    """While a turn waits, no call starts but the view's unbuilt lines, and every line of the
    window that is not waiting for a retry runs [gist §6] [decision P8]."""
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
    [decision P8]. Without a wait, nothing stops."""
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
    backoff passed) or a restart, even while a turn waits [gist §4] [decision P8]."""
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
    [decision P6]; at most jobs_max calls run."""
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


CAPPED_MARK = "(not summarized, cut: zoom it) "  # docs/planner.md, P16


def third_failure(state: State, l: int, i: int) -> State:
    for _ in range(3):
        assert (l, i) in state.running
        state = step(state, Failed(l, i))
        if (l, i) not in state.running and tree_get(state.tree, l, i) is None:
            state = step(state, Retry())  # the backoff passed
    return state


def capped_problem(text: Optional[str], halves: Tuple[str, ...]) -> Optional[str]:
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
    bytes [deliberate D5] [decision P16]; no node ever counts three failures; the counts survive
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


def settle_bound(state: State, outcome_seed: int) -> Tuple[bool, str, int]:
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
    every call fails or answers in any order [gist §6] [deliberate D5]."""
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


LAWS = [
    Law("due_cross_is_rational", "§3.2", "The model's division-free `more_due` is the rational order (T − last)/2^l, for all T, i ≥ 0 and levels.", "z3", "Proved (Z3): all T, i ≥ 0, all levels", due_cross_is_rational),
    Law("due_orders_agree", "§3.2", "The model's order and the production form (T + 1 − first)/2^l are the same order.", "z3", "Proved (Z3): all T, i ≥ 0, all levels", due_orders_agree),
    Law("due_is_transitive", "§3.2", "The due order is transitive and irreflexive, so the most due pair is well defined.", "z3", "Proved (Z3): all T, i ≥ 0, all levels", due_is_transitive),
    Law("view_covers", "§3", "After any history of events, the view covers messages 0..T−1, each once, contiguous, oldest first, each line a tree node.", "z3", "Proved (Z3): each step, any length; steps = events on at least 5,800 model events, Z3 terms = model on at least 1,500 steps and at least 550 merges", view_covers),
    Law("cview_covers", "§4", "The same for the compaction view.", "z3", "Proved (Z3): each step, any length; steps = events on at least 5,800 model events, Z3 terms = model on at least 600 steps and at least 50 merges", cview_covers),
    Law("merge_covers", "§3.1", "Merging two sibling lines into their parent keeps the coverage.", "z3", "Proved (Z3): any view, position and level; Z3 merge = model's on at least 550 merges", merge_covers),
    Law("view_summarized", "§3", "After any history, every merged line of the view is built; only a message's own line can wait for its summary.", "z3", "Proved (Z3): each step, any length; steps = events on at least 5,800 model events, Z3 terms = model on at least 1,500 steps and at least 550 merges", view_summarized),
    Law("cview_summarized", "§4", "The same for the compaction view.", "z3", "Proved (Z3): each step, any length; steps = events on at least 5,800 model events, Z3 terms = model on at least 600 steps and at least 50 merges", cview_summarized),
    Law("push_agrees_always", "§3.1, §3.2", "With push's length as the budget, the fold makes push's merges at every step of any number of pushes.", "z3", "Proved (Z3): L0–L5 (push = increment on values); states and glue: by hand, Bounded for every t from 0 to at least 20,000", push_agrees_always),
    Law("message_appends", "§3.2", "When no batch runs, a message appends only its own line; the old view is a prefix of the new one.", "runs", "Searched: at least 1,300 messages of model runs", message_appends),
    Law("message_merges_nothing", "§3.2", "A message merges nothing unless the view is shrinking or passes its ceiling with the new line.", "runs", "Searched: at least 450 messages of model runs", message_merges_nothing),
    Law("need_first", "§6", "While a turn waits, only the view's unbuilt lines start, and every window line not waiting for a retry runs.", "runs", "Searched: at least 900 waiting states of model runs", need_first),
    Law("need_first_running", "§6", "While a turn waits, running merges stop only as the window's lines need their slots, the youngest first, without counting as failures.", "runs", "Searched: at least 900 waiting states of model runs", need_first_running),
    Law("failed_waits_for_retry", "§4", "A failed node is tried again only after the next message, a Retry or a restart, even while a turn waits.", "runs", "Searched: at least 600 failed nodes in model runs", failed_waits_for_retry),
    Law("message_window_holds", "§4", "A message's node runs only when fewer than 8 (jobs_max) lines before it are unbuilt; at most 8 calls run.", "runs", "Searched: at least 7,000 running messages in model runs", message_window_holds),
    Law("fail_cap_builds", "§4", "A node's third failed try builds a marked line, the mark then its input cut, within 512 bytes; the counts survive restarts.", "runs", "Searched: at least 40 third failures in model runs, and a directed case", fail_cap_builds),
    Law("settle_reached", "§6", "A waiting turn's view is settled after at most 3 compactor outcomes per unbuilt line.", "runs", "Searched: at least 1,800 waits from model states", settle_reached),
]
