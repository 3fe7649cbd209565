"""Laws searched by Hypothesis: random configs and random histories of every event kind.

Strategy: the seeded runs of the other laws use a few fixed configs. Here Hypothesis draws the
config (ceilings from 300 bytes, 1 to 8 jobs, 1 to 4 failures) and a history of 30 to 120 events
(messages of any kind and size, builds and failures of running calls, waits, turn ends,
restarts), runs the model, and checks every state against claims stated directly from the gist,
independently of how the model computes them. A failure shrinks to a short history. The label
gives the number of histories and events checked.
"""

import random
from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from laws.core import Budget, Law, Verdict
from model.planner import (
    KINDS,
    Built,
    Config,
    Failed,
    Message,
    Restart,
    State,
    TurnEnd,
    Wait,
    step,
)
from model.tree import tree_get
from model.view import LINE_BYTES_MAX, View, utf8_bytes

HISTORIES = 250
EVENTS_MIN = 30
EVENTS_MAX = 120


@st.composite
def configs(draw) -> Config:
    floor = draw(st.integers(300, 3_000))
    cfloor = draw(st.integers(100, floor))
    return Config(
        floor * 2, floor, cfloor * 2, cfloor,
        draw(st.integers(1, 8)), draw(st.integers(1, 4)),
    )


@dataclass(frozen=True)
class Choice:
    """One drawn event: what kind, and numbers that pick among the running calls and sizes."""

    kind: str
    pick: int
    size: int
    message_kind: str


choices = st.builds(
    Choice,
    st.sampled_from(("message", "message", "message", "built", "built", "failed", "wait", "turn_end", "restart")),
    st.integers(0, 7),
    st.sampled_from((1, 20, 200, 505, 506, 600, 2_000)),
    st.sampled_from(KINDS),
)


def event_of(state: State, choice: Choice):
    if choice.kind in ("built", "failed") and state.running:
        l, i = state.running[choice.pick % len(state.running)]
        if choice.kind == "built":
            return Built(l, i, ("é" if choice.pick & 1 else "s\n") * (choice.size % 250 + 1))
        return Failed(l, i)
    if choice.kind == "wait":
        return Wait()
    if choice.kind == "turn_end":
        return TurnEnd()
    if choice.kind == "restart":
        return Restart()
    return Message(choice.message_kind, "m" * choice.size)


def covers(view: View, T: int) -> str | None:
    """[gist §3] lines of tree nodes, oldest first, covering 0..T−1 each once."""
    at = 0
    for line in view:
        if line.l < 0 or line.i < 0:
            return f"line ({line.l}, {line.i}) is no node"
        if line.i << line.l != at:
            return f"line {line.i << line.l}+{1 << line.l} does not start at {at}"
        at = (line.i + 1) << line.l
    return None if at == T else f"covers 0..{at - 1}, not 0..{T - 1}"


def within(line_l: int, line_i: int, view: View) -> bool:
    """Node (l, i) is a line of the view or an ancestor of view lines: it starts and ends on the
    view's line boundaries."""
    start = line_i << line_l
    end = (line_i + 1) << line_l
    starts = {line.i << line.l for line in view}
    ends = {(line.i + 1) << line.l for line in view}
    return start in starts and end in ends


def cview_coarsens_view(before: State, after: State) -> str | None:
    shown = {(line.l, line.i): line for line in after.view}
    for line in after.cview:
        if not within(line.l, line.i, after.view):
            return f"compaction line {line.i << line.l}+{1 << line.l} is finer than the view"
        if (line.l, line.i) in shown and shown[(line.l, line.i)] != line:
            return f"line {line.i << line.l}+{1 << line.l} differs between the two views"
    return covers(after.cview, after.T)


def queue_is_sound(before: State, after: State) -> str | None:
    jobs = after.config.jobs_max
    if len(after.running) > jobs:
        return f"{len(after.running)} calls run, over {jobs}"
    if len(set(after.running)) != len(after.running):
        return "a node runs twice"
    for l, i in after.running + after.ready:
        if tree_get(after.tree, l, i) is not None:
            return f"built node ({l}, {i}) is queued"
    for l, i in after.ready:
        if tree_get(after.tree, l - 1, 2 * i) is None or tree_get(after.tree, l - 1, 2 * i + 1) is None:
            return f"merge ({l}, {i}) is ready before its halves"
    return None


def built_once(before: State, after: State) -> str | None:
    """[gist §2] each node is built once and never built again: a text, once there, stays."""
    for line in before.view:
        if line.built and tree_get(after.tree, line.l, line.i) != line.text:
            return f"node ({line.l}, {line.i}) changed"
    return None


def free_nodes_never_wait(before: State, after: State) -> str | None:
    """[gist §2] a source of at most 512 bytes is its own node, with no call."""
    for line in after.view:
        if not line.built and utf8_bytes(line.text) <= LINE_BYTES_MAX:
            return f"message {line.i} fits in 512 bytes and waits for a call"
    for l, i in after.running:
        if l == 0:
            continue
        joined = utf8_bytes(tree_get(after.tree, l - 1, 2 * i) or "") + 1 + utf8_bytes(tree_get(after.tree, l - 1, 2 * i + 1) or "")
        if joined <= LINE_BYTES_MAX:
            return f"merge ({l}, {i}) of two short lines takes a call"
    return None


def search(claim: Callable[[State, State], str | None], seed: int, shrink: bool = True) -> Verdict:
    counted = {"histories": 0, "events": 0, "batches": 0}
    found: list[str] = []
    phases = tuple(Phase) if shrink else (Phase.explicit, Phase.reuse, Phase.generate)

    @settings(max_examples=HISTORIES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck), phases=phases)
    @given(config=configs(), drawn=st.lists(choices, min_size=EVENTS_MIN, max_size=EVENTS_MAX))
    def history(config: Config, drawn: list[Choice]) -> None:
        counted["histories"] += 1
        state = State(config)
        for k, choice in enumerate(drawn):
            event = event_of(state, choice)
            after = step(state, event)
            counted["events"] += 1
            counted["batches"] += 1 if after.merges else 0
            problem = claim(state, after)
            if problem:
                found.append(f"event {k} {event}: {problem}")
                raise AssertionError(problem)
            state = after

    random.seed(seed)
    try:
        history()
    except AssertionError:
        return Verdict(False, "none", found[-1] if found else "a history failed")
    label = (f"Searched (Hypothesis): {counted['histories']:,} histories of {EVENTS_MIN} to {EVENTS_MAX} events, "
             f"{counted['events']:,} events, {counted['batches']:,} batches in all")
    return Verdict(True, label)


_all_at_once: dict = {}
LABEL = (f"Searched (Hypothesis): at least {HISTORIES} histories of {EVENTS_MIN} to {EVENTS_MAX} events, "
         "at least 12,000 events, at least 800 batches in all")


def every_claim(before: State, after: State) -> str | None:
    for claim in CLAIMS.values():
        problem = claim(before, after)
        if problem:
            return problem
    return None


def law(name: str, gist: str, says: str, claim: Callable[[State, State], str | None]) -> Law:
    def check(budget: Budget) -> Verdict:
        # One search checks every claim at each step; only when it fails does each law search
        # on its own, so a law's verdict is never read off another law's partial search.
        if "verdict" not in _all_at_once:
            # no shrinking here: a failure is searched again, and shrunk, by each law on its own
            _all_at_once["verdict"] = search(every_claim, seed=0, shrink=False)
            _all_at_once["by"] = name
        verdict = _all_at_once["verdict"]
        if not verdict.passed:
            return search(claim, seed=0)
        if _all_at_once["by"] == name:
            return Verdict(True, verdict.strength, "one search checks the four claims")
        # the search ran in another law's turn: this law's own work was reading its verdict
        return Verdict(True, verdict.strength, f"the search of {_all_at_once['by']}, which checked this claim too")

    return Law(name, gist, says, "hypothesis", LABEL, check)


CLAIMS = {
    "cview_coarsens_view": cview_coarsens_view,
    "queue_is_sound": queue_is_sound,
    "built_once": built_once,
    "free_nodes_never_wait": free_nodes_never_wait,
}

LAWS = [
    law("cview_coarsens_view", "§4", "The compaction view is the chat's view merged further: each of its lines is the same line of the view or an ancestor of view lines [P4].", cview_coarsens_view),
    law("queue_is_sound", "§4", "At most jobs_max calls run, none twice, none for a built node; a ready merge has both halves built.", queue_is_sound),
    law("built_once", "§2", "A node's text, once built, never changes.", built_once),
    law("free_nodes_never_wait", "§2", "A source of at most 512 bytes is never waiting for a call: a message or a merge of two short lines.", free_nodes_never_wait),
]
