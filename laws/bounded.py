"""The bounded laws: claims checked by computation on the model, each on the runs it names.

Strategy: golden values come from outside the model. Push is Taelin's function, transcribed line
for line from [gist §3.1]; the T = 10 and T = 11 examples and the count 481 are the gist's own
numbers (the tie at T = 11 is a hand computation: pairs 4–7 and 8–9 are both due 2). The fold is
the model's `fit` with every parent built and each line one unit of budget, run on its own history.
"""

import random

from laws.registry import Budget, Law, Verdict
from model.planner import KINDS, Built, Config, Failed, Message, State, TurnEnd, Wait, step, tree_parents
from model.push import EVERY_PARENT, fold_step, format_items, push, push_states, push_view, view_items
from model.view import Line, View, fit, most_due, render, utf8_bytes, view_bytes


def push_and_fold(t_max: int, due_from_first: bool):
    """Yield (t, push's view, the fold's view) for t = 0..t_max, the fold on its own history."""
    states = None
    view: View = ()
    for t in range(t_max + 1):
        states = push(t, states)
        budget_lines = len(push_states(states))
        view = fold_step(view, t + 1, budget_lines, due_from_first)
        yield t, push_view(states, t + 1), view_items(view)


def push_agrees(budget: Budget) -> Verdict:
    for t, pushed, folded in push_and_fold(budget.t, False):
        if pushed != folded:
            return Verdict(False, "none", f"t={t}: push {format_items(pushed)}, fold {format_items(folded)}")
    return Verdict(True, f"Bounded: t = 0..{budget.t:,}")


def first_agrees_481(budget: Budget) -> Verdict:
    """[gist §3.2] "It matches push at only 481 of 20,001 steps." Counted, not assumed."""
    agreeing = sum(1 for _, pushed, folded in push_and_fold(20_000, True) if pushed == folded)
    return Verdict(agreeing == 481, "Bounded: t = 0..20,000", f"{agreeing} of 20,001 steps")


def shifted_agrees_with_push(budget: Budget) -> Verdict:
    """(T + 1 − last)/2^l also makes push's merges at every step: so agreement with push alone
    cannot pin the formula, and only the tie examples do."""
    states = None
    view: View = ()
    for t in range(budget.t + 1):
        states = push(t, states)
        grown = view + (Line(0, t, "", True, 1),)
        view, _ = fit(grown, t + 2, len(push_states(states)), EVERY_PARENT)
        if view_items(view) != push_view(states, t + 1):
            return Verdict(False, "none", f"t={t}")
    return Verdict(True, f"Bounded: t = 0..{budget.t:,}")


def unit_view(items: tuple) -> View:
    """A view from `id+n` items, every line one unit of budget."""
    lines: View = ()
    for start, n in items:
        l = n.bit_length() - 1
        lines = lines + (Line(l, start >> l, "", True, 1),)
    return lines


GIST_T10 = unit_view(((0, 4), (4, 4), (8, 1), (9, 1)))


def merged_at_t10(due_from_first: bool) -> tuple:
    fitted, merges = fit(GIST_T10, 10, 3, EVERY_PARENT, due_from_first)
    return view_items(fitted), merges


def last_merges_8_9(budget: Budget) -> Verdict:
    items, merges = merged_at_t10(False)
    return Verdict(merges == ((1, 4),), "Example: the gist's T = 10", format_items(items))


def first_merges_0_7(budget: Budget) -> Verdict:
    items, merges = merged_at_t10(True)
    return Verdict(merges == ((3, 0),), "Example: the gist's T = 10", format_items(items))


def first_is_not_last(budget: Budget) -> Verdict:
    return Verdict(merged_at_t10(False) != merged_at_t10(True), "Example: the gist's T = 10")


def first_leaves_push(budget: Budget) -> Verdict:
    for t, pushed, folded in push_and_fold(10, True):
        if pushed != folded:
            return Verdict(True, "Bounded: t = 0..10", f"first differs at t = {t}")
    return Verdict(False, "none", "first agrees with push for 11 steps")


def tie_at_11(budget: Budget) -> Verdict:
    """At T = 11, pairs 4–7 (level 1, last 7) and 8–9 (level 0, last 9) are both due 2: the
    older merges. Measured from T + 1 they are due 2.5 and 3, and 8–9 would merge."""
    view = unit_view(((0, 4), (4, 2), (6, 2), (8, 1), (9, 1), (10, 1)))
    _, merges = fit(view, 11, 5, EVERY_PARENT)
    _, shifted = fit(view, 12, 5, EVERY_PARENT)
    return Verdict(merges == ((2, 1),) and shifted == ((1, 4),), "Example: hand computation at T = 11")


def never_late(config: Config, messages: int, seed: int):
    """A chat whose compactor answers every call before the next message: yields each state
    right after a message's batch, and the states after each Built."""
    rng = random.Random(seed)
    state = State(config)
    for _ in range(messages):
        size = rng.choice((8, 60, 300, 700, 3000))
        state = step(state, Message(rng.choice(KINDS), "m" * size))
        yield "message", state
        while state.running:
            l, i = state.running[0]
            state = step(state, Built(l, i, "s" * rng.randint(80, 512)))
            yield "built", state


def late(config: Config, messages: int, seed: int):
    """A chat whose compactor is late: calls end and fail in any order, turns wait."""
    rng = random.Random(seed)
    state = State(config)
    sent = 0
    while sent < messages:
        roll = rng.random()
        if roll < 0.45 or not state.running:
            size = rng.choice((8, 60, 300, 700, 3000))
            state = step(state, Message(rng.choice(KINDS), "m" * size))
            sent += 1
        elif roll < 0.85:
            l, i = rng.choice(state.running)
            state = step(state, Built(l, i, "s\n" * rng.randint(20, 250)))
        elif roll < 0.93:
            l, i = rng.choice(state.running)
            state = step(state, Failed(l, i))
        elif roll < 0.97:
            state = step(state, Wait())
        else:
            state = step(state, TurnEnd())
        yield state


TENTH = Config(12_800, 6_400, 3_200, 1_600)


def sawtooth_holds(budget: Budget) -> Verdict:
    """[gist §3.2] After each batch the view is at most the floor unless no pair can merge; it
    never stays above the ceiling unless shrinking; and it averages half-way between the two."""
    config = TENTH
    total = 0
    counted = 0
    batches = 0
    started = False
    for kind, state in never_late(config, 10_000, seed=1):
        size = view_bytes(state.view)
        # Between messages a summary may replace a placeholder and grow the view: batches run
        # only at messages [gist §3.2], so the ceiling is a claim about the state after one.
        if kind == "message" and size > config.view_bytes_ceiling and not state.shrinking:
            return Verdict(False, "none", f"T={state.T}: {size} bytes, above the ceiling")
        if kind == "message" and state.merges:
            batches += 1
            started = True
            tree = state.tree
            can_merge = most_due(state.view, state.T, tree_parents(tree), False) >= 0
            if size > config.view_bytes_floor and can_merge:
                return Verdict(False, "none", f"T={state.T}: batch stopped at {size} bytes")
        if kind == "message" and started:
            total += size
            counted += 1
    middle = (config.view_bytes_floor + config.view_bytes_ceiling) >> 1
    average = total // max(counted, 1)
    near = abs(average - middle) * 20 <= middle
    detail = f"{batches} batches; average {average:,} bytes, {average * 100 // config.view_bytes_ceiling}% of the ceiling"
    return Verdict(batches > 100 and near, "Searched: a seeded run of 10,000 messages at a tenth of the gist's sizes", detail)


def view_bytes_rendered(budget: Budget) -> Verdict:
    """[decision P1] The counted size is the rendered view's, tags aside, placeholders included."""
    tags = utf8_bytes("<chat>\n") + utf8_bytes("</chat>")
    placeholders = 0
    for state in late(Config(6_000, 3_000, 2_000, 1_000, 4), 3_000, seed=2):
        placeholders += sum(1 for line in state.view if not line.built)
        for view in (state.view, state.cview):
            if view_bytes(view) != utf8_bytes(render(view)) - tags:
                return Verdict(False, "none", f"T={state.T}: counted {view_bytes(view)}")
    return Verdict(placeholders > 0, "Searched: a seeded late run of 3,000 messages", f"{placeholders} placeholder lines seen")


LAWS = [
    Law("push_agrees", "§3.2", "With push's list length as the budget, the fold makes exactly push's merges at every step.", "exhaustive", "Bounded: t = 0..20,000", push_agrees),
    Law("first_agrees_481", "§3.2", "Due from `first` agrees with push at exactly 481 of the 20,001 steps t = 0..20,000, as the gist says.", "exhaustive", "Bounded: t = 0..20,000", first_agrees_481),
    Law("shifted_agrees_with_push", "§3.2", "`(T + 1 − last)/2^l` also agrees with push at every step, so only ties pin the formula.", "exhaustive", "Bounded: t = 0..20,000", shifted_agrees_with_push),
    Law("last_merges_8_9", "§3.2", "At T = 10 (view `0+4 4+4 8+1 9+1`, budget 3) due from last merges 8–9, as push does.", "example", "Example: the gist's T = 10", last_merges_8_9),
    Law("first_merges_0_7", "§3.2", "Due from first merges 0–7 there.", "example", "Example: the gist's T = 10", first_merges_0_7),
    Law("first_is_not_last", "§3.2, §7.1", "So first and last are not the same order.", "example", "Example: the gist's T = 10", first_is_not_last),
    Law("first_leaves_push", "§3.2, §7.1", "Due from first leaves push within 11 steps.", "exhaustive", "Bounded: t = 0..10", first_leaves_push),
    Law("tie_at_11", "§3.2", "At T = 11 pairs 4–7 and 8–9 are both due 2 and the older merges; from T + 1, 8–9 would.", "example", "Example: hand computation at T = 11", tie_at_11),
    Law("sawtooth_holds", "§3.2", "After each batch the view is at most the floor unless no pair can merge; after each message it is at most the ceiling unless shrinking; it averages half-way.", "runs", "Searched: a seeded run of 10,000 messages at a tenth of the gist's sizes", sawtooth_holds),
    Law("view_bytes_rendered", "§3", "The view's counted size is its rendered size, placeholders included (P1).", "runs", "Searched: a seeded late run of 3,000 messages", view_bytes_rendered),
]
