"""What the history laws leave unknown, checked on its own: `capped_text` and the work queue's
functions (`queue_by_last`, `without`, `failures_without`, `failure_count`, `schedule`).

Strategy: the history laws (laws/z3_events.py) prove their claims about the views for *any*
results of these functions, so those proofs say nothing about what they compute. Their loops run
over Python tuples (`for line in state.view`, `while k < len(queue)`), which do not run on Z3
terms; so each is checked exhaustively on a stated bound (Bounded), against expectations written
here from the gist and docs/planner.md, never from the code under test:

- the capped line's source [D5] [P16]: a message's third failed try gives
  the mark, then that message's own source cut; a merge's, the mark, then its two halves from the
  tree joined by a newline. Checked on every view that tiles messages 0..T−1 by tree nodes, for
  every T up to TILED_MAX, with every level-0 line waiting for its summary (its text is its
  source) and every merged line built with a text of its own, so a source found by the index
  alone, or at another level, is a different text;
- the order of ready merges [P5]: `queue_by_last` keeps the queue ordered by last
  message, the new node among the others, none lost or added;
- the window [gist §4] and [P5]'s order in `schedule`: with no turn waiting, the calls that start
  are the view's unbuilt lines among its first jobs_max (oldest first, not running, not waiting
  for a retry), then the ready merges in queue order, up to jobs_max calls, the running calls
  kept; with a turn waiting, no merge starts;
- `without`, `failures_without` and `failure_count` on every tuple from a small pool.
"""

import itertools
from collections.abc import Iterator
from dataclasses import replace

from laws.core import Budget, Law, Verdict
from model.line import LINE_BYTES_MAX
from model.planner import (
    SHOWN_STARTS_MAX,
    Config,
    State,
    capped_text,
    failure_count,
    failures_without,
    last_message,
    queue_by_last,
    schedule,
    sent_view,
    without,
)
from model.tree import Tree, tree_put
from model.view import Line, built_line, waiting_line

CAPPED_MARK = "(not summarized, cut: zoom it) "  # docs/planner.md, [P16]
TILED_MAX = 16  # every T up to this
Node = tuple[int, int]


def tilings(start: int, end: int) -> Iterator[tuple[Node, ...]]:
    """Every way to cover messages start..end−1 with tree nodes (l, i), oldest first: node (l, i)
    covers i·2^l .. (i + 1)·2^l − 1 [gist §3]."""
    if start == end:
        yield ()
        return
    l = 0
    while start % (1 << (l + 1)) == 0 and start + (1 << (l + 1)) <= end:
        l += 1
    for level in range(l + 1):
        size = 1 << level
        for rest in tilings(start + size, end):
            yield ((level, start >> level),) + rest


def source(i: int) -> str:
    return f"user: message {i}"


def summary(l: int, i: int) -> str:
    return f"summary of ({l}, {i})"


def long_summary(l: int, i: int) -> str:
    """A summary of 200, 300 or 400 bytes: two halves of these pass a capped merge's room, or fit."""
    head = f"summary of ({l}, {i}) "
    return head + "x" * (200 + 100 * ((l + i) % 3) - len(head))


def capped_merge_expected(a: str, b: str) -> str:
    """[P9] A merge's input within the room the mark leaves: both halves joined by a newline,
    whole when they fit; else the first keeps at least half the room (or all but what the second
    needs), the second the rest. ASCII only: a byte is a character."""
    room = LINE_BYTES_MAX - len(CAPPED_MARK) - 1  # the mark, and the newline between the halves
    if len(a) + len(b) <= room:
        return CAPPED_MARK + a + "\n" + b
    a_kept = a[: max(room // 2, room - len(b))]
    return CAPPED_MARK + a_kept + "\n" + b[: room - len(a_kept)]


def tiled_state(nodes: tuple[Node, ...], summary=summary) -> State:
    """A state whose view is `nodes`: every level-0 line waits for its summary, every merged line
    is built; the tree holds every merged line and its halves, all the way down."""
    tree = Tree()
    view: list[Line] = []
    for l, i in nodes:
        if l == 0:
            view.append(waiting_line(i, source(i)))
            continue
        view.append(built_line(l, i, summary(l, i)))
        for level in range(l + 1):
            for k in range(i << (l - level), (i + 1) << (l - level)):
                tree = tree_put(tree, level, k, summary(level, k))
    T = sum(1 << l for l, _ in nodes)
    return State(Config(), T=T, view=tuple(view), cview=tuple(view), tree=tree)


def capped_source_problem() -> tuple[str | None, int, int, int]:
    """(problem, cases, the largest T checked, the merges whose halves were cut)."""
    cases = T_checked = cut_merges = 0
    for T in range(1, TILED_MAX + 1):
        for nodes in tilings(0, T):
            for texts in (summary, long_summary):
                state = tiled_state(nodes, texts)
                for l, i in nodes:
                    cases += 1
                    if l == 0:
                        expected = CAPPED_MARK + source(i)
                        got = capped_text(state, 0, i)
                        if got != expected:
                            return f"T={T}, view {nodes}: message {i}'s capped line is {got!r}, not {expected!r}", cases, T, cut_merges
                        continue
                    # a merged line's node, read as the merge one level up would read it: its halves
                    a, b = texts(l - 1, 2 * i), texts(l - 1, 2 * i + 1)
                    expected = capped_merge_expected(a, b)
                    cut_merges += len(expected) < len(CAPPED_MARK) + len(a) + 1 + len(b)
                    got = capped_text(state, l, i)
                    if got != expected:
                        return f"T={T}, view {nodes}: merge ({l}, {i})'s capped line is {got!r}, not {expected!r}", cases, T, cut_merges
        T_checked = T
    # a source past the line's 512 bytes: the mark, then the source's first bytes (ASCII: one
    # byte a character), 512 in all
    long_source = "user: " + "x" * 700
    state = State(Config(), T=1, view=(waiting_line(0, long_source),))
    cases += 1
    expected = CAPPED_MARK + long_source[: LINE_BYTES_MAX - len(CAPPED_MARK)]
    if capped_text(state, 0, 0) != expected:
        return "a 706-byte source: the capped line is not the mark and its first bytes", cases, T_checked, cut_merges
    return None, cases, T_checked, cut_merges


def capped_text_finds_its_source(budget: Budget) -> Verdict:
    """[D5] [P16] A node's third failed try builds the mark, then its own
    input: a message's source, however the lines after it have merged; a merge's two halves,
    cut when together they pass the room the mark leaves [P9]. The label is the run's: the
    largest T it tiled and the cases it checked."""
    problem, cases, T_checked, cut_merges = capped_source_problem()
    if problem:
        return Verdict(False, "none", problem)
    return Verdict(True, capped_label(T_checked, cases, cut_merges), f"{cases:,} cases")


def counted(value) -> str:
    return f"{value:,}" if isinstance(value, int) else value


def capped_label(T_checked, cases, cut_merges) -> str:
    cases, cut_merges = counted(cases), counted(cut_merges)
    return (f"Bounded: every view tiling each T from 1 to {T_checked} messages by tree nodes (every level-0 line "
            f"waiting, every merged line built, with short summaries and with summaries of 200 to 400 bytes), "
            f"each of its lines as the node that failed, and a 706-byte source: {cases} cases, "
            f"{cut_merges} merges whose halves were cut")


CAPPED_LABEL = capped_label(16, "at least 30,000", "at least 5,000")


# ---- the work queue ----

MERGES = tuple((l, i) for l in (1, 2, 3) for i in range(16 >> l))  # 14 merges over messages 0..15


def queue_problem() -> tuple[str | None, int]:
    cases = 0
    # [P5] every queue ordered by last message, of ≤ 4 merges, and every merge not in it
    for size in range(5):
        for chosen in itertools.combinations(MERGES, size):
            queue = tuple(sorted(chosen, key=lambda node: (last_message(node), node)))
            for node in MERGES:
                if node in queue:
                    continue
                cases += 1
                got = queue_by_last(queue, node)
                lasts = [last_message(n) for n in got]
                if sorted(got) != sorted(queue + (node,)) or lasts != sorted(lasts):
                    return f"queue_by_last({queue}, {node}) = {got}: not the queue with the node, by last message", cases
                if tuple(n for n in got if n != node) != queue:
                    return f"queue_by_last({queue}, {node}) = {got}: the others moved", cases
    # without, failures_without, failure_count on every tuple of ≤ 4 from three nodes
    pool = ((0, 1), (1, 0), (0, 2))
    for size in range(5):
        for nodes in itertools.product(pool, repeat=size):
            for node in pool:
                cases += 1
                if without(nodes, node) != tuple(n for n in nodes if n != node):
                    return f"without({nodes}, {node}) = {without(nodes, node)}", cases
                failures = tuple((n, k + 1) for k, n in enumerate(nodes))
                counts = [k + 1 for k, n in enumerate(nodes) if n == node]
                if failure_count(failures, node) != (counts[-1] if counts else 0):
                    return f"failure_count({failures}, {node}) = {failure_count(failures, node)}", cases
                if failures_without(failures, node) != tuple(e for e in failures if e[0] != node):
                    return f"failures_without({failures}, {node})", cases
    return None, cases


def expected_start(view, running, ready, retry_later, jobs_max: int, waiting: bool) -> tuple[Node, ...]:
    """The calls that start, by the gist and [P5]/P6, with no running call stopped: the first
    jobs_max lines of the view that wait for a summary [gist §4], oldest first, then (with no turn
    waiting) the ready merges in queue order [P5]; none running, none failed since the
    last message; as many as the free slots allow."""
    unbuilt = [(0, line.i) for line in view if not line.built][:jobs_max]
    wanted = [node for node in unbuilt if node not in running and node not in retry_later]
    if not waiting:
        wanted += [node for node in ready if node not in running and node not in retry_later]
    return tuple(wanted[: max(0, jobs_max - len(running))])


SCHEDULED = {"waiting retries": 0}  # the cases of the last schedule_problem with a turn waiting and a window line to retry


def schedule_problem() -> tuple[str | None, int]:
    cases = 0
    SCHEDULED["waiting retries"] = 0
    pool = ((1, 0), (1, 2), (2, 1))  # ready merges, by last message: 1, 5, 7
    for T in range(1, 6):
        for pattern in range(1 << T):
            view = tuple(built_line(0, i, "s") if pattern >> i & 1 else waiting_line(i, source(i)) for i in range(T))
            unbuilt = [(0, line.i) for line in view if not line.built]
            for jobs_max in (1, 2, 3):
                config = Config(jobs_max=jobs_max)
                for ready_size in range(len(pool) + 1):
                    ready = pool[:ready_size]
                    candidates = tuple(unbuilt[:3]) + ready
                    for run_size in range(jobs_max + 1):
                        for running in itertools.combinations(candidates, run_size):
                            for retry in ((),) + tuple((node,) for node in candidates if node not in running):
                                for waiting in (False, True):
                                    cases += 1
                                    SCHEDULED["waiting retries"] += waiting and bool(retry) and retry[0] in unbuilt[:jobs_max]
                                    state = State(config, T=T, view=view, cview=view, ready=ready,
                                                  running=running, retry_later=retry, waiting=waiting)
                                    still_waiting, after, _, _ = schedule(state)
                                    problem = schedule_case(state, still_waiting, after)
                                    if problem:
                                        return (f"T={T}, unbuilt {unbuilt}, jobs_max {jobs_max}, ready {ready}, running "
                                                f"{running}, retry {retry}, waiting {waiting}: {problem}"), cases
    return None, cases


def schedule_case(state: State, still_waiting: bool, after: tuple[Node, ...]) -> str | None:
    if len(after) > state.config.jobs_max:
        return f"{len(after)} calls run"
    kept = tuple(node for node in after if node in state.running)
    started = tuple(node for node in after if node not in state.running)
    if after[: len(kept)] != kept:
        return f"the running calls are not kept first: {after}"
    waiting = state.waiting and any(not line.built for line in state.view)
    if still_waiting != waiting:
        return f"waiting is {still_waiting}"
    if not waiting and kept != state.running:
        return f"a call stopped with no turn waiting: {after}"
    if waiting:
        # a waiting turn may stop merges for its lines (need_first_running); what starts are
        # window lines in view order, never a merge, and never one that failed since the last
        # message [gist §4]: a waiting turn does not make a failed line retry at once
        window = [(0, line.i) for line in state.view if not line.built][: state.config.jobs_max]
        if any(node not in window for node in started):
            return f"a call outside the window started while a turn waits: {started}"
        if any(node in state.retry_later for node in started):
            return f"a line waiting for its retry started while a turn waits: {started}"
        if any(node in window for node in state.running if node not in kept):
            return f"a window line's running call stopped while a turn waits: {after}"
        wanted = [node for node in window if node not in state.running and node not in state.retry_later]
        if list(started) != wanted[: state.config.jobs_max - len(kept)]:
            return f"started {started}, not the window's free lines {wanted} in order"
        return None
    expected = expected_start(state.view, state.running, state.ready, state.retry_later, state.config.jobs_max, False)
    if started != expected:
        return f"started {started}, not {expected}"
    return None


def queue_functions_hold(budget: Budget) -> Verdict:
    """[gist §4] [P5] [P6] The ready queue runs oldest last message first; the window;
    the queue's helpers remove and count exactly their node."""
    problem, cases = queue_problem()
    if problem:
        return Verdict(False, "none", problem)
    problem, more = schedule_problem()
    if problem:
        return Verdict(False, "none", problem)
    return Verdict(True, queue_label(cases, more, SCHEDULED["waiting retries"]), f"{cases + more:,} cases")


def queue_label(queue_cases, schedule_cases, retries) -> str:
    return ("Bounded: queue_by_last on every ordered queue of ≤ 4 of 14 merges and every other merge; "
            "schedule on every view of ≤ 5 messages built or not, 1 to 3 jobs, ≤ 3 ready merges, every "
            "running set, one or no retry, waiting or not; without, failures_without and failure_count "
            f"on every tuple of ≤ 4 from 3 nodes: {counted(queue_cases)} queue cases, {counted(schedule_cases)} "
            f"schedule cases, {counted(retries)} with a turn waiting and a window line waiting for its retry")


QUEUE_LABEL = queue_label("at least 15,000", "at least 50,000", "at least 4,000")

LAWS = [
    Law("capped_text_finds_its_source", "§4", "A node's third failed try builds the mark, then its own input: a message's source however the lines after it merged, a merge's two halves from the tree.", "exhaustive", CAPPED_LABEL, capped_text_finds_its_source),
    Law("queue_functions_hold", "§4", "Ready merges run oldest last message first; with no turn waiting, the calls that start are the window's unbuilt lines then the ready merges in order, up to jobs_max, the running kept; with a turn waiting no merge starts.", "exhaustive", QUEUE_LABEL, queue_functions_hold),
]


# ---- the order while a turn's view folds [P26] ----

NOTE_BYTES = 300  # a note's own line: two of them joined pass 512 bytes, so no parent is free [gist §2]
SHOWN_T_MAX = 16
SHOWN_CEILINGS = (1_000, 2_000, 3_000)  # below, at and above what 4 to 16 such lines weigh


def note(i: int) -> str:
    head = f"note: {i} "
    return head + "x" * (NOTE_BYTES - len(head))


def closed_trees(l: int, i: int) -> Iterator[tuple[Node, ...]]:
    """Every set of built merges under node (l, i) that holds each merge's halves: a merge is built
    only after both of them [gist §4]."""
    if l == 0:
        yield ()
        return
    for left in closed_trees(l - 1, 2 * i):
        for right in closed_trees(l - 1, 2 * i + 1):
            yield left + right
            if all((l - 1, k) in left + right for k in (2 * i, 2 * i + 1) if l > 1):
                yield left + right + ((l, i),)


def shown_state(T: int, built: tuple[Node, ...], ceiling: int, jobs_max: int) -> State:
    """After an import of T notes, each its own line and none joinable: the view is their T lines
    (no batch merged them), the tree holds them and the merges `built`; every merge whose halves
    are built and is not itself built is ready, by last message."""
    tree = Tree()
    for i in range(T):
        tree = tree_put(tree, 0, i, note(i))
    for l, i in built:
        tree = tree_put(tree, l, i, summary(l, i))
    have = set(built) | {(0, i) for i in range(T)}
    ready = sorted(((l, i) for l in range(1, 5) for i in range(T >> l)
                    if (l, i) not in have and (l - 1, 2 * i) in have and (l - 1, 2 * i + 1) in have),
                   key=last_message)
    view = tuple(built_line(0, i, note(i)) for i in range(T))
    config = Config(view_bytes_ceiling=ceiling, view_bytes_floor=ceiling // 2, jobs_max=jobs_max)
    return State(config, T=T, view=view, cview=view, tree=tree, ready=tuple(ready))


def expected_order(state: State) -> tuple[Node, ...]:
    """[P26] from docs/planner.md: the ready merges that are a placeholder of the view a turn would
    send, or a node under one, the lowest such placeholder first; then the others; each group by
    last message. The placeholder over a node is found by climbing its ancestors."""
    placeholders = {(line.l, line.i) for line in sent_view(state) if not line.built}

    def over(node: Node) -> int | None:
        l, i = node
        for k in range(64 - l):
            if (l + k, i >> k) in placeholders:
                return l + k
        return None

    ranked = sorted((node for node in state.ready if over(node) is not None), key=lambda n: (over(n), last_message(n)))
    rest = [node for node in state.ready if over(node) is None]
    return tuple(ranked) + tuple(rest)


SHOWN = {"reordered": 0, "unfolded": 0}


def shown_first_problem() -> tuple[str | None, int]:
    cases = 0
    SHOWN["reordered"] = SHOWN["unfolded"] = 0
    for T in range(2, SHOWN_T_MAX + 1):
        top = max(l for l in range(5) if (1 << l) <= T)
        for built in closed_forest(T, top):
            for ceiling in SHOWN_CEILINGS:
                jobs_max = 3
                state = shown_state(T, built, ceiling, jobs_max)
                cases += 1
                expected = expected_order(state)
                SHOWN["reordered"] += expected != state.ready
                if sent_view(state) == state.view:
                    SHOWN["unfolded"] += 1
                    # the turn's view is the view: [P5]'s order, the queue's own
                    if expected != state.ready:
                        return f"T={T}, built {built}, ceiling {ceiling}: the view unfolded but the order is not the queue's", cases
                _, running, shown, starts = schedule(state)
                if running != expected[:jobs_max]:
                    return (f"T={T}, built {built}, ceiling {ceiling}, {jobs_max} jobs: started {running}, "
                            f"not {expected[:jobs_max]}"), cases
                folded = sent_view(state) != state.view
                if folded and state.ready and starts != min(jobs_max, len(state.ready)):
                    return f"T={T}, built {built}, ceiling {ceiling}: {starts} merges counted, {len(running)} started", cases
                if not folded and state.ready and (shown, starts) != (frozenset(), -1):
                    return f"T={T}, built {built}, ceiling {ceiling}: the view unfolded but the look is kept", cases
                # a look taken before, fewer than SHOWN_STARTS_MAX merges ago, is kept: with none of
                # its placeholders left, the queue's own order; that many merges ago, it is taken again
                _, running, _, _ = schedule(replace(state, shown=frozenset(), shown_starts=SHOWN_STARTS_MAX - 1))
                if folded and running != state.ready[:jobs_max]:
                    return f"T={T}, built {built}, ceiling {ceiling}: a look kept, started {running}", cases
                _, running, _, _ = schedule(replace(state, shown=frozenset(), shown_starts=SHOWN_STARTS_MAX))
                if running != expected[:jobs_max]:
                    return f"T={T}, built {built}, ceiling {ceiling}: a look not taken again, started {running}", cases
    return None, cases


def closed_forest(T: int, top: int) -> Iterator[tuple[Node, ...]]:
    """Every closed set of built merges over messages 0..T−1, tree by tree of the largest nodes
    that fit, each tree up to level `top`."""
    roots = []
    start = 0
    for l in range(top, -1, -1):
        while start + (1 << l) <= T:
            roots.append((l, start >> l))
            start += 1 << l
    sets: list[tuple[Node, ...]] = [()]
    for l, i in roots:
        sets = [done + more for done in sets for more in closed_trees(l, i)]
    return iter(sets)


def shown_merges_first(budget: Budget) -> Verdict:
    """[P26] While a turn's view folds [P19], the ready merges that build a placeholder it shows,
    or a node under one, start first, the lowest placeholder first, then the rest, each group by
    last message; when it does not fold, the queue's own order [P5]. The view is looked at
    when it begins to fold and again after SHOWN_STARTS_MAX merges, the look kept between."""
    problem, cases = shown_first_problem()
    if problem:
        return Verdict(False, "none", problem)
    return Verdict(True, shown_label(cases, SHOWN["reordered"], SHOWN["unfolded"]), f"{cases:,} cases")


def shown_label(cases, reordered, unfolded) -> str:
    return ("Bounded: schedule after an import of 2 to 16 notes of 300 bytes (the view their lines, none joinable), "
            "every set of built merges that holds each merge's halves, turn ceilings of 1,000, 2,000 and 3,000 "
            f"bytes, 3 jobs, the look fresh, kept and taken again: {counted(cases)} cases, {counted(reordered)} whose order is not the queue's, "
            f"{counted(unfolded)} whose turn view is the view")


SHOWN_LABEL = shown_label("at least 4,000", "at least 900", "at least 100")

LAWS.append(Law("shown_merges_first", "§4", "While a turn's view folds, the ready merges at or under a placeholder it shows (looked at when it begins to fold and after every 256 merges) start first, the lowest placeholder first, then the rest, each by last message; when it does not fold, the queue's own order.", "exhaustive", SHOWN_LABEL, shown_merges_first))
