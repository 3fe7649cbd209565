"""The planner: which lines merge and when, the compaction view, and the work queue.

`step(state, event)` is the whole planner. Time, compactions and their failures arrive as events;
the planner reads no clock, no file and no randomness. Decisions the gist leaves open are tagged
`[P1]`, `[P2]`, … and argued in docs/planner.md (indexed in docs/decisions.md).
"""

from dataclasses import dataclass, replace
from typing import Callable, FrozenSet, Tuple, Union

from model.base import appended, choose, length, mapped
from model.line import capped_line, capped_merge
from model.tree import Tree, tree_get, tree_has, tree_put, tree_text
from model.view import (
    LINE_BYTES_MAX,
    PLACEHOLDER_BYTES_MAX,
    Line,
    Parents,
    View,
    built_line,
    fit,
    is_valid_text,
    turn_view,
    utf8_bytes,
    view_bytes,
    waiting_line,
)

Node = Tuple[int, int]
KINDS = ("user", "ever", "tool", "echo", "work", "note")  # [gist §1], unii renamed [P12]
# [P26] the turn's view is looked at again once this many merges have started: folding it is
# linear in the view's lines in production and quadratic in the model, too much at every start
SHOWN_STARTS_MAX = 256


@dataclass(frozen=True)
class Config:
    view_bytes_ceiling: int = 128_000  # [gist §3.2]
    view_bytes_floor: int = 64_000
    cview_bytes_ceiling: int = 32_000  # [gist §4]
    cview_bytes_floor: int = 16_000
    jobs_max: int = 8  # [gist §4] calls at once, and the level-0 window [P6]
    failures_max: int = 3  # [D5] the third failed try builds a marked line [P16]


@dataclass(frozen=True)
class Message:
    kind: str
    text: str


@dataclass(frozen=True)
class Built:
    l: int
    i: int
    text: str


@dataclass(frozen=True)
class Failed:
    """A content failure: the model answered but gave no usable line (an empty reply, a
    refusal), or the API refused this request in a way retrying cannot fix [P16].
    Transient trouble (429, 5xx, 529, a timeout, a broken stream) never comes here: the compactor
    retries it with backoff while the call stays running."""

    l: int
    i: int


@dataclass(frozen=True)
class Retry:
    """The compactor's backoff after a failure has passed: failed nodes are candidates again
    [P8]. The service sends it only while a turn waits; otherwise the next message does
    the same [gist §4]."""


@dataclass(frozen=True)
class Wait:
    """A user message arrived and its turn waits until the view is summarized [gist §6]."""


@dataclass(frozen=True)
class TurnEnd:
    """The waiting turn gave up or ended [P8]."""


@dataclass(frozen=True)
class Restart:
    """The process restarts from what was saved: the log, the tree and view.json [F1]."""


Event = Union[Message, Built, Failed, Retry, Wait, TurnEnd, Restart]


@dataclass(frozen=True)
class State:
    config: Config = Config()
    T: int = 0  # messages in the chat
    view: View = ()
    shrinking: bool = False  # the view passed its ceiling and has not yet reached its floor
    cview: View = ()  # the compaction view [gist §4]
    cshrinking: bool = False
    tree: Tree = Tree()  # every built node's text
    ready: Tuple[Node, ...] = ()  # merges whose halves are built, by last message
    running: Tuple[Node, ...] = ()  # calls running, in the order they started
    failures: Tuple[Tuple[Node, int], ...] = ()  # failed tries per unbuilt node, saved [P16]
    retry_later: Tuple[Node, ...] = ()  # failed since the last message or Retry [gist §4]
    waiting: bool = False  # a turn waits for the view [gist §6]
    shown: FrozenSet[Node] = frozenset()  # the placeholders of the turn's view when last looked at [P26]
    shown_starts: int = -1  # merges started since then; −1: not looked at while it folds
    merges: Tuple[Node, ...] = ()  # this event's batch: the parents merged into the view
    cmerges: Tuple[Node, ...] = ()  # the parents merged into the compaction view


# ---- the tree ----


def tree_parents(tree: Tree) -> Parents:
    """The parents a batch can merge into: the nodes the tree holds [gist §3.2]. The laws run
    this on Z3 terms (model/base.py)."""

    def built(l: int, i: int) -> bool:
        return tree_has(tree, l, i)

    def line(l: int, i: int) -> Line:
        return built_line(l, i, tree_text(tree, l, i))

    return Parents(built, line)


def last_message(node: Node) -> int:
    return ((node[1] + 1) << node[0]) - 1


def queue_by_last(queue: Tuple[Node, ...], node: Node) -> Tuple[Node, ...]:
    """Insert a ready merge; the queue runs oldest last message first [P5]."""
    k = 0
    while k < len(queue) and last_message(queue[k]) < last_message(node):
        k = k + 1
    return queue[:k] + (node,) + queue[k:]


def without(nodes: Tuple[Node, ...], node: Node) -> Tuple[Node, ...]:
    return tuple(n for n in nodes if n != node)


Failures = Tuple[Tuple[Node, int], ...]


def failures_without(failures: Failures, node: Node) -> Failures:
    return tuple(entry for entry in failures if entry[0] != node)


def failure_count(failures: Failures, node: Node) -> int:
    """The failed tries of `node` so far."""
    count = 0
    for entry in failures:
        if entry[0] == node:
            count = entry[1]
    return count


def with_line(view: View, line: Line) -> View:
    """The view with node (line.l, line.i)'s line, if it has one, replaced by `line`. The laws
    run this on Z3 terms (model/base.py)."""

    def swap(old: Line) -> Line:
        return choose((old.l == line.l) & (old.i == line.i), line, old)

    return mapped(view, swap)


def build(state: State, l: int, i: int, text: str) -> State:
    """Node (l, i) is built: log it in the tree, show it in the views, leave the queues, and
    make its parent ready, or build the parent at once when it is free [gist §2]."""
    node = (l, i)
    line = built_line(l, i, text)
    view = state.view
    cview = state.cview
    if l == 0:
        view = with_line(view, line)
        cview = with_line(cview, line)
    state = replace(
        state,
        tree=tree_put(state.tree, l, i, text),
        view=view,
        cview=cview,
        ready=without(state.ready, node),
        running=without(state.running, node),
        failures=failures_without(state.failures, node),
        retry_later=without(state.retry_later, node),
    )
    return ready_parent(state, l, i)


def ready_parent(state: State, l: int, i: int) -> State:
    tree = state.tree
    left = i & ~1
    if not (tree_has(tree, l, left) and tree_has(tree, l, left + 1)):
        return state
    joined = tree_text(tree, l, left) + "\n" + tree_text(tree, l, left + 1)
    # [gist §2] two short lines are joined by a newline: a free node, with no model call
    if utf8_bytes(joined) <= LINE_BYTES_MAX:
        return build(state, l + 1, i >> 1, joined)
    return replace(state, ready=queue_by_last(state.ready, (l + 1, i >> 1)))


def capped_text(state: State, l: int, i: int) -> str:
    """The node's text after its last allowed failure: the mark, then its input cut, within 512
    bytes [D5] [P16]."""
    if l == 0:
        source = ""
        for line in state.view:
            if (line.l, line.i) == (0, i):
                source = line.text
        return capped_line(source)
    a = tree_get(state.tree, l - 1, i << 1)
    b = tree_get(state.tree, l - 1, (i << 1) + 1)
    assert a is not None
    assert b is not None
    return capped_merge(a, b)


# ---- the sawtooth ----


def batch(state: State) -> State:
    """After a message: past the ceiling, merge down to the floor; while the view is above its
    floor, go on at each message [gist §3.2] [F1]. The compaction view is merged again when
    the chat's view merges, or past its own ceiling [gist §4] [P4]."""
    c = state.config
    parents = tree_parents(state.tree)
    # `|`, not `or`: one condition, which the laws take both ways once (docs/history_laws.md)
    shrinking = state.shrinking | (view_bytes(state.view) > c.view_bytes_ceiling)
    view = state.view
    merges: Tuple[Node, ...] = ()
    if shrinking:
        view, merges = fit(view, state.T, c.view_bytes_floor, parents)
        shrinking = view_bytes(view) > c.view_bytes_floor
    cview = state.cview
    cmerges: Tuple[Node, ...] = ()
    cshrinking = state.cshrinking
    if length(merges) > 0:
        cview, cmerges = fit(view, state.T, c.cview_bytes_floor, parents)
        cshrinking = view_bytes(cview) > c.cview_bytes_floor
    else:
        cshrinking = cshrinking | (view_bytes(cview) > c.cview_bytes_ceiling)
        if cshrinking:
            cview, cmerges = fit(cview, state.T, c.cview_bytes_floor, parents)
            cshrinking = view_bytes(cview) > c.cview_bytes_floor
    return replace(
        state,
        view=view,
        shrinking=shrinking,
        cview=cview,
        cshrinking=cshrinking,
        merges=merges,
        cmerges=cmerges,
    )


# ---- the work queue ----


def settled(view: View) -> bool:
    """Every line of the view is summarized: a waiting turn may go [gist §6]."""
    for line in view:
        if not line.built:
            return False
    return True


def unbuilt_lines(view: View) -> Tuple[Node, ...]:
    return tuple((0, line.i) for line in view if not line.built)


def placeholder_level(shown: FrozenSet[Node], top: int, node: Node) -> int:
    """The level of the placeholder in `shown` that is `node` or lies above it, or −1; `top` is
    the highest level in `shown` [P26]."""
    l = node[0]
    i = node[1]
    while l <= top:
        if (l, i) in shown:
            return l
        l = l + 1
        i = i >> 1
    return -1


def merge_order(ready: Tuple[Node, ...], shown: FrozenSet[Node]) -> Tuple[Node, ...]:
    """The ready merges in the order they start [P26]: first those that build a placeholder in
    `shown` or a node under one, the lowest placeholder first (a placeholder of level l is a
    summary after at most 2^l − 1 calls); then the rest; each group in the queue's order, oldest
    last message first [P5]."""
    top = -1
    for node in shown:
        top = max(top, node[0])
    levels = tuple(placeholder_level(shown, top, node) for node in ready)
    order: Tuple[Node, ...] = ()
    for level in range(top + 1):
        if level in levels:
            order = order + tuple(node for node, at in zip(ready, levels) if at == level)
    return order + tuple(node for node, at in zip(ready, levels) if at < 0)


def folds(state: State) -> bool:
    """The view a turn sends is not the view: its lines as they render pass the ceiling [P19],
    each unbuilt line at its placeholder, PLACEHOLDER_BYTES_MAX against the reserve of
    LINE_BYTES_MAX it counts in the view [P1] [P22]."""
    unbuilt = 0
    for line in state.view:
        if not line.built:
            unbuilt = unbuilt + 1
    shown_bytes = view_bytes(state.view) - (LINE_BYTES_MAX - PLACEHOLDER_BYTES_MAX) * unbuilt
    return shown_bytes > state.config.view_bytes_ceiling


def placeholders(view: View) -> FrozenSet[Node]:
    return frozenset((line.l, line.i) for line in view if not line.built)


def schedule(state: State) -> Tuple[bool, Tuple[Node, ...], FrozenSet[Node], int]:
    """Start calls up to jobs_max [gist §4]: whether a turn still waits, the calls running, and
    the turn's view's placeholders as last looked at, with the merges started since [P26].

    Candidates, in order: the messages whose line has fewer than jobs_max unbuilt lines before
    it, oldest first; then the ready merges, by last message while the turn's view is the view
    [P5], and while it folds first those at or under its placeholders, the lowest first [P26].
    The turn's view is looked at when a merge is to start and it was not looked at since it
    began to fold, or SHOWN_STARTS_MAX merges have started since. A node that failed waits
    for the next message or a Retry. While a turn waits, only the view's unbuilt lines start, and
    other calls stop only when those lines need their slots: as few as that takes, the youngest
    first, without counting as failures [D5] [P8].
    """
    c = state.config
    waiting = state.waiting and not settled(state.view)
    unbuilt = unbuilt_lines(state.view)
    running = state.running
    shown = state.shown
    shown_starts = state.shown_starts
    window = unbuilt[: c.jobs_max]
    candidates = tuple(
        node for node in window if node not in running and node not in state.retry_later
    )
    if waiting:
        short = len(candidates) - (c.jobs_max - len(running))
        k = len(running) - 1
        while short > 0 and k >= 0:
            if running[k] not in unbuilt:
                running = running[:k] + running[k + 1 :]
                short = short - 1
            k = k - 1
    elif len(running) + len(candidates) < c.jobs_max:
        idle = tuple(
            node for node in state.ready if node not in running and node not in state.retry_later
        )
        if len(idle) > 0:
            slots = c.jobs_max - len(running) - len(candidates)
            if not folds(state):
                shown = frozenset()
                shown_starts = -1
            else:
                if shown_starts < 0 or shown_starts >= SHOWN_STARTS_MAX:
                    shown = placeholders(sent_view(state))
                    shown_starts = 0
                idle = merge_order(idle, shown)
                shown_starts = shown_starts + min(slots, len(idle))
            candidates = candidates + idle
    slots = c.jobs_max - len(running)
    if slots > 0:
        running = running + candidates[:slots]
    return waiting, running, shown, shown_starts


def sent_view(state: State) -> View:
    """The view a turn sends now: within the view's ceiling in every state [P19]."""
    return turn_view(state.view, state.T, state.config.view_bytes_ceiling, tree_parents(state.tree))


def waiting_queue(state: State) -> Tuple[Node, ...]:
    """The calls that would run if a turn started waiting now."""
    _, running, _, _ = schedule(replace(state, waiting=True))
    return running


# ---- the events ----


def message(state: State, kind: str, text: str) -> State:
    """Each new message appends its line; nothing else changes, unless a batch runs
    [gist §3.2]. A source that fits in 512 bytes is its own node [gist §2]."""
    assert kind in KINDS
    assert is_valid_text(text)
    i = state.T
    source = kind + ": " + text
    line = waiting_line(i, source)
    state = replace(
        state,
        T=i + 1,
        view=appended(state.view, line),
        cview=appended(state.cview, line),
    )
    # [P3] free nodes made by this message count before the ceiling test
    if utf8_bytes(source) <= LINE_BYTES_MAX:
        state = build(state, 0, i, source)
    state = batch(state)
    return replace(state, retry_later=())


def failed(state: State, l: int, i: int) -> State:
    node = (l, i)
    count = failure_count(state.failures, node) + 1
    if count >= state.config.failures_max:
        return build(state, l, i, capped_text(state, l, i))
    return replace(
        state,
        running=without(state.running, node),
        failures=failures_without(state.failures, node) + ((node, count),),
        retry_later=state.retry_later + (node,),
    )


def step(state: State, event: Event) -> State:
    """The planner's whole transition: apply the event, then start calls [gist §3, §4, §6]."""
    state = replace(state, merges=(), cmerges=())
    if isinstance(event, Message):
        state = message(state, event.kind, event.text)
    elif isinstance(event, Built):
        # [P7] an outcome for a call that is not running (stopped, or never started)
        # is ignored: each node is built once, by a call the planner started
        # a line is 1 to 512 bytes of valid text [gist §2] [P1] [P14]
        assert is_valid_text(event.text)
        assert 0 < utf8_bytes(event.text) <= LINE_BYTES_MAX
        assert event.l >= 0 and event.i >= 0  # a node [gist §2]
        if (event.l, event.i) in state.running:
            state = build(state, event.l, event.i, event.text)
    elif isinstance(event, Failed):
        assert event.l >= 0 and event.i >= 0
        if (event.l, event.i) in state.running:
            state = failed(state, event.l, event.i)
    elif isinstance(event, Retry):
        state = replace(state, retry_later=())
    elif isinstance(event, Wait):
        state = replace(state, waiting=True)
    elif isinstance(event, TurnEnd):
        state = replace(state, waiting=False)
    elif isinstance(event, Restart):
        # [F1] the views, both shrinking states and the failure counts were saved
        # [P10] [P16]; running calls and a waiting turn die with the process, and a
        # failed node is tried again by the new one
        state = replace(state, running=(), retry_later=(), waiting=False)
        # [P26] the new process looks at the turn's view afresh
        state = replace(state, shown=frozenset(), shown_starts=-1)
    waiting, running, shown, shown_starts = schedule(state)
    return replace(state, waiting=waiting, running=running, shown=shown, shown_starts=shown_starts)


def turn(
    state: State, text: str, compactor: Callable[[State], Event], outcomes_max: int
) -> Tuple[State, View]:
    """One user turn, its events in the protocol's order [gist §6] [P17].

    The turn waits (`Wait`) while the compactor answers: `compactor` gives each next event
    (`Built`, `Failed` or `Retry`), at most `outcomes_max` of them (the settle timeout), then
    `TurnEnd` if the view is still not settled. The view is rendered, within its ceiling
    [P19]; only then is the user's message logged. Returns the state after the message
    and the view the turn sent.
    """
    state = step(state, Wait())
    answered = 0
    while state.waiting and answered < outcomes_max:
        state = step(state, compactor(state))
        answered = answered + 1
    if state.waiting:
        state = step(state, TurnEnd())
    sent = sent_view(state)
    state = step(state, Message("user", text))
    return state, sent


def run(events: Tuple[Event, ...], config: Config = Config()) -> State:
    state = State(config)
    for event in events:
        state = step(state, event)
    return state
