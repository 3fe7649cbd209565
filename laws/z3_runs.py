"""Model runs for the laws: every transition (state, event, next state), and the replay that ties
each event to the view steps the Z3 proofs are about.

Strategy: laws.universal proves, on the model's own code, that each view step keeps the views'
invariants: appending a message's waiting line (`waiting_line`), marking a message's line built
(`with_line` of `built_line`), and merging two sibling lines into their parent (`merge` with
`tree_parents`). That covers "after any history" only if every event changes each view by exactly
those steps, which the Z3 proofs do not see: `replay` checks it on real transitions, by applying
those very functions to the view before the event (the message's line, the marks, then the
event's recorded merges, each at a sibling pair whose parent the tree holds) and requiring the
model's next view, line for line. Runs come from a late compactor (calls end, fail, turns wait
and end, the process restarts) at small byte sizes so batches come often; the deep runs
(`make laws-deep`) go past 100,000 messages and level 16.
"""

import random
from collections.abc import Iterator
from dataclasses import dataclass

from model.base import appended
from model.planner import (
    KINDS,
    Built,
    Config,
    Event,
    Failed,
    Message,
    Restart,
    Retry,
    State,
    TurnEnd,
    Wait,
    step,
    tree_parents,
    with_line,
)
from model.tree import tree_get, tree_has
from model.view import Line, View, built_line, is_pair, merge, waiting_line

Lines = tuple[tuple[int, int, bool], ...]

SMALL = Config(6_000, 3_000, 2_000, 1_000, 4)
# The deep run: views of about ten lines, so a long chat reaches high levels.
DEEP = Config(1_600, 800, 800, 400, 4)


def transitions(messages: int, seed: int, config: Config = SMALL, prompt: bool = False) -> Iterator[tuple[State, Event, State]]:
    """A late compactor: calls end, fail, turns wait and end, the process restarts. With
    `prompt`, the compactor answers every call before the next message instead."""
    rng = random.Random(seed)
    state = State(config)
    sent = 0
    events = 0
    while sent < messages:
        events += 1
        if events > 40 * messages:
            raise RuntimeError(f"no progress: {events} events for {sent} messages (a call that never ends?)")
        roll = rng.random()
        event: Event
        if prompt and state.running:
            l, i = state.running[0]
            event = Built(l, i, "s" * rng.randint(20, 200))
        elif roll < 0.42 or not state.running:
            size = rng.choice((8, 60, 300, 700, 3000))
            event = Message(rng.choice(KINDS), "m" * size)
            sent += 1
        elif roll < 0.74:
            l, i = rng.choice(state.running)
            event = Built(l, i, "s\n" * rng.randint(20, 250))
        elif roll < 0.9:
            l, i = rng.choice(state.running)
            event = Failed(l, i)
        elif roll < 0.92:
            event = Retry()
        elif roll < 0.95:
            event = Wait()
        elif roll < 0.98:
            event = TurnEnd()
        else:
            event = Restart()
        after = step(state, event)
        yield state, event, after
        state = after


def lines_of(view) -> Lines:
    return tuple((line.l, line.i, line.built) for line in view)


@dataclass
class Tally:
    events: int = 0
    appends: int = 0
    marks: int = 0
    merges: int = 0
    level_max: int = 0
    T_max: int = 0
    problem: str = ""


def replay_view(before: View, after: State, which_after: View, message: Line | None, merges, tally: Tally) -> bool:
    """The message's line appended, the message lines built by this event marked, then the
    recorded merges: the model's next view."""
    current = before
    if message is not None:
        current = appended(current, message)
        tally.appends += 1
    built_now = {(line.l, line.i) for line in which_after if line.built and line.l == 0}
    for line in current:
        if not line.built and (line.l, line.i) in built_now:
            text = tree_get(after.tree, 0, line.i)
            if text is None:
                tally.problem = f"({line.l}, {line.i}) is built in the view but not in the tree"
                return False
            current = with_line(current, built_line(0, line.i, text))
            tally.marks += 1
    parents = tree_parents(after.tree)
    for parent_l, parent_i in merges:
        k = next((p for p, line in enumerate(current) if (line.l, line.i) == (parent_l - 1, parent_i << 1)), -1)
        if k < 0 or k + 1 >= len(current) or not is_pair(current[k], current[k + 1]):
            tally.problem = f"merge ({parent_l}, {parent_i}) is not two sibling lines of the view"
            return False
        if not tree_has(after.tree, parent_l, parent_i):
            tally.problem = f"merge ({parent_l}, {parent_i}) into a parent the tree does not hold"
            return False
        current = merge(current, k, parents)
        tally.merges += 1
        tally.level_max = max(tally.level_max, parent_l)
    if current != which_after:
        tally.problem = f"T={after.T}: the event is not append + marks + merges"
        return False
    return True


def message_line(before: State, event: Event) -> Line | None:
    """The line a message appends: its waiting line [gist §3.2]; the planner's source is
    "kind: text" [gist §4]."""
    if not isinstance(event, Message):
        return None
    return waiting_line(before.T, event.kind + ": " + event.text)


def replay(found, tally: Tally | None = None, which: str = "view") -> Tally:
    """Replay the view (`which` = "view") or the compaction view ("cview") of each transition."""
    tally = tally or Tally()
    for number, (before, event, after) in enumerate(found):
        tally.events += 1
        tally.T_max = max(tally.T_max, after.T)
        line = message_line(before, event)
        if which == "view":
            ok = replay_view(before.view, after, after.view, line, after.merges, tally)
        elif after.merges:
            # [P4] the compaction view is taken again from the chat's view
            ok = replay_view(after.view, after, after.cview, None, after.cmerges, tally)
        else:
            ok = replay_view(before.cview, after, after.cview, line, after.cmerges, tally)
        if not ok:
            tally.problem = f"event {number} {type(event).__name__}: " + tally.problem
            return tally
    return tally
