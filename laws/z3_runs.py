"""Model runs for the laws: every transition (state, event, next state), and the replay that ties
the Z3 view steps to them.

Strategy: the Z3 proofs say "append, mark built and merge each keep the invariant, for any view".
They cover the model only if every event changes the view by exactly those steps, and only if the
Z3 terms compute what the model computes. `replay` checks both on real transitions: starting from
the view before the event it applies, in Python, the append (for a message), the marks (the
message lines the event built) and the batch's merges in the order the model recorded them, and
the result must be the model's next view, line for line; at each step the Z3 term, simplified on the
concrete arrays, must give the same lines. Runs come from the chats of laws.bounded (a compactor
that answers at once and a late one that fails, waits and restarts), at small byte sizes so
batches come often.
"""

import random
from dataclasses import dataclass
from typing import Iterator, List, Tuple

import z3

from laws import z3_view as zv
from model.planner import KINDS, Built, Config, Event, Failed, Message, Restart, Retry, State, TurnEnd, Wait, step

Lines = Tuple[Tuple[int, int, bool], ...]

SMALL = Config(6_000, 3_000, 2_000, 1_000, 4)


def transitions(messages: int, seed: int, config: Config = SMALL, prompt: bool = False) -> Iterator[Tuple[State, Event, State]]:
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
    z3_steps: int = 0
    tied_merges: int = 0
    problem: str = ""


def z3_agrees(before: Lines, term, after: Lines, tally: Tally, use_z3: bool) -> bool:
    """`term` makes the step's Z3 view from the concrete one: built only when it is compared."""
    if not use_z3:
        return True
    tally.z3_steps += 1
    return zv.equals_concrete(term(zv.concrete(before)), after)


def replay_view(before: Lines, after: Lines, T: int, message: bool, merges, tally: Tally, use_z3: bool) -> bool:
    """Append, marks, merges: the model's next view, and the Z3 terms agree at each step."""
    current = before
    if message:
        grown = current + ((0, T, False),)
        if not z3_agrees(current, lambda v: zv.append(v, T, False), grown, tally, use_z3):
            tally.problem = f"append at T={T}: the Z3 term disagrees"
            return False
        current = grown
        tally.appends += 1
    built_now = {(l, i) for l, i, built in after if built and l == 0}
    for position, (l, i, built) in enumerate(current):
        if not built and (l, i) in built_now:
            marked = current[:position] + ((l, i, True),) + current[position + 1 :]
            if not z3_agrees(current, lambda v: zv.mark_built(v, position), marked, tally, use_z3):
                tally.problem = f"mark ({l}, {i}): the Z3 term disagrees"
                return False
            current = marked
            tally.marks += 1
    for parent_l, parent_i in merges:
        k = next((p for p, line in enumerate(current) if line[:2] == (parent_l - 1, parent_i << 1)), -1)
        if k < 0 or k + 1 >= len(current) or current[k + 1][:2] != (parent_l - 1, (parent_i << 1) + 1):
            tally.problem = f"merge ({parent_l}, {parent_i}) is not two sibling lines of the view"
            return False
        merged = current[:k] + ((parent_l, parent_i, True),) + current[k + 2 :]
        if use_z3:
            concrete_before = zv.concrete(current)
            if not z3.is_true(z3.simplify(zv.siblings(concrete_before, k))):
                tally.problem = f"merge ({parent_l}, {parent_i}): Z3's siblings is false"
                return False
        if not z3_agrees(current, lambda v: zv.merge(v, k), merged, tally, use_z3):
            tally.problem = f"merge ({parent_l}, {parent_i}): the Z3 term disagrees"
            return False
        current = merged
        tally.merges += 1
    if current != after:
        tally.problem = f"T={T}: the event is not append + marks + merges"
        return False
    return True


def replay(runs: List[Tuple[int, int]], which: str, z3_every: int = 1, known=None, use_z3: bool = True) -> Tally:
    """Replay the view (`which` = "view") or the compaction view ("cview") of each run's
    transitions (or of the `known` ones); the Z3 terms are evaluated on every `z3_every`-th
    event."""
    tally = Tally()
    for messages, seed in runs:
        found = known if known is not None else transitions(messages, seed)
        for number, (before, event, after) in enumerate(found):
            tally.events += 1
            tie = use_z3 and number % z3_every == 0
            is_message = isinstance(event, Message)
            if which == "view":
                ok = replay_view(lines_of(before.view), lines_of(after.view), before.T, is_message,
                                 after.merges, tally, tie)
            elif after.merges:
                # [decision P4] the compaction view is taken again from the chat's view
                ok = replay_view(lines_of(after.view), lines_of(after.cview), after.T, False,
                                 after.cmerges, tally, tie)
            else:
                ok = replay_view(lines_of(before.cview), lines_of(after.cview), before.T, is_message,
                                 after.cmerges, tally, tie)
            if not ok:
                tally.problem = f"run ({messages}, seed {seed}), event {number} {type(event).__name__}: " + tally.problem
                return tally
        if known is not None:
            break
    return tally
