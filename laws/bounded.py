"""The bounded laws: claims checked by computation on the model, each on the runs it names.

Strategy: golden values come from outside the model. Push is Taelin's function, transcribed line
for line from [gist §3.1]; the T = 10 and T = 11 examples and the count 481 are the gist's own
numbers (the tie at T = 11 is a hand computation: pairs 4–7 and 8–9 are both due 2). The fold is
the model's `fit` with every parent built and each line one unit of budget, run on its own history.
"""

import random
from functools import lru_cache

from laws.core import Budget, Law, Verdict
from model.planner import KINDS, Built, Config, Failed, Message, State, TurnEnd, Wait, step, tree_parents
from model.push import EVERY_PARENT, fold_step, format_items, push, push_states, push_view, view_items
from model.tree import tree_has
from model.view import Line, View, fit, most_due, rendered, utf8_bytes, view_bytes


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
    return Verdict(True, f"Bounded: every t from 0 to {budget.t:,}")


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
    return Verdict(True, f"Bounded: every t from 0 to {budget.t:,}")


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
    detail = f"average {average:,} bytes, {average * 100 // config.view_bytes_ceiling}% of the ceiling"
    label = f"Searched: a seeded run of 10,000 messages at a tenth of the gist's sizes, {batches:,} batches"
    return Verdict(batches > 100 and near, label, detail)


TAGS_BYTES = len("<chat>\n") + len("</chat>")
PLACEHOLDER_LINE = "+1|(not summarized yet: zoom it)"  # [gist §5], after the message's id
# [P1] an unbuilt line is counted at its head, 512 bytes and its newline, and shows its
# 29-byte placeholder: 483 bytes more counted than shown, whatever its id
RESERVE_BYTES = 512 - len("(not summarized yet: zoom it)")


def terse_late(config: Config, messages: int, seed: int):
    """`late` with a terse compactor: every line it builds is much smaller than its message's
    reserve, so lines shrink the view between messages, while it is shrinking too."""
    rng = random.Random(seed)
    state = State(config)
    sent = 0
    while sent < messages:
        roll = rng.random()
        if roll < 0.5 or not state.running:
            state = step(state, Message(rng.choice(KINDS), "m" * rng.choice((8, 700, 3000))))
            sent += 1
        elif roll < 0.9:
            l, i = rng.choice(state.running)
            state = step(state, Built(l, i, "t" * rng.randint(1, 40)))
        else:
            l, i = rng.choice(state.running)
            state = step(state, Failed(l, i))
        yield state


@lru_cache(maxsize=1)
def ceiling_states() -> tuple:
    return tuple(ceiling_runs())


def ceiling_runs():
    """A late compactor, a terse one, and one with a single job slot that falls behind for good
    (its view outgrows the ceiling with nothing to merge), at small sizes so batches come often."""
    yield from late(Config(6_000, 3_000, 2_000, 1_000, 4), 1_500, seed=2)
    yield from terse_late(Config(6_000, 3_000, 2_000, 1_000, 2), 1_000, seed=3)
    yield from late(Config(3_000, 1_500, 1_000, 500, 1), 200, seed=4)


def can_merge(view: View, tree_state: State) -> bool:
    """Some two sibling lines of the view have a built parent."""
    for k in range(len(view) - 1):
        a, b = view[k], view[k + 1]
        if a.l == b.l and a.i % 2 == 0 and b.i == a.i + 1 and tree_has(tree_state.tree, a.l + 1, a.i // 2):
            return True
    return False


@lru_cache(maxsize=200_000)
def line_shown(line: Line) -> str:
    return rendered(line)


def shown_bytes(view: View) -> int:
    """The bytes of `render(view)`, which is the tags around each line's `rendered` and its
    newline; a line never changes, so its rendered text is cached across the runs' states."""
    return TAGS_BYTES + sum(utf8_bytes(line_shown(line)) + 1 for line in view)


def view_bytes_rendered(budget: Budget) -> Verdict:
    """[P1] The counted size is the rendered view's bytes less the `<chat>` tags, plus
    483 bytes for each line not summarized yet (its reserve over its placeholder)."""
    placeholders = 0
    for state in ceiling_states():
        for view in (state.view, state.cview):
            unbuilt = sum(1 for line in view if not line.built)
            placeholders += unbuilt
            shown = shown_bytes(view) - TAGS_BYTES
            if view_bytes(view) != shown + RESERVE_BYTES * unbuilt:
                return Verdict(False, "none", f"T={state.T}: counted {view_bytes(view)}, shown {shown}, {unbuilt} unbuilt")
    return Verdict(placeholders > 1000, f"Searched: three seeded late runs of 2,700 messages, {placeholders:,} placeholder lines across their states")


def view_within_ceiling(budget: Budget) -> Verdict:
    """[gist §3.2] "64-128 KB in all": after any event, the view a turn would render is at most
    the ceiling plus the tags, unless the view is shrinking because at the last message no pair
    could merge; the same for the compaction view; and a view never renders more than it
    counts, whenever its lines get built [P1]."""
    checked = 0
    stuck_states = 0
    stuck = {"view": False, "cview": False}
    last_T = -1
    for state in ceiling_states():
        c = state.config
        if state.T != last_T:  # a message's batch ran: is a shrinking view stuck?
            stuck["view"] = state.shrinking and not can_merge(state.view, state)
            stuck["cview"] = state.cshrinking and not can_merge(state.cview, state)
            last_T = state.T
        for which, view, ceiling in (("view", state.view, c.view_bytes_ceiling),
                                     ("cview", state.cview, c.cview_bytes_ceiling)):
            checked += 1
            shown = shown_bytes(view)
            if shown - TAGS_BYTES > view_bytes(view):
                return Verdict(False, "none", f"T={state.T}: the {which} renders {shown} bytes, counted {view_bytes(view)}")
            if shown > ceiling + TAGS_BYTES:
                if not stuck[which]:
                    return Verdict(False, "none", f"T={state.T}: the {which} renders {shown} bytes, over its ceiling")
                stuck_states += 1
    return Verdict(checked > 10_000 and stuck_states > 0,
                   f"Searched: three seeded late runs of 2,700 messages, {checked:,} views, "
                   f"{stuck_states:,} of them over the ceiling with no pair able to merge")


def unsettled_view_shows_placeholders(budget: Budget) -> Verdict:
    """[gist §5, §7.5] A line not summarized yet shows as the placeholder, never the start of
    its message, so a turn that starts before the view is settled never acts on half a message."""
    seen = 0
    for state in ceiling_states():
        if all(line.built for line in state.view):
            continue
        for line in state.view:
            if not line.built:
                seen += 1
                text = line_shown(line)
                if text != str(line.i) + PLACEHOLDER_LINE:
                    return Verdict(False, "none", f"T={state.T}: line {line.i} shows {text[:60]!r}")
    return Verdict(seen > 1000, f"Searched: three seeded late runs of 2,700 messages, {seen:,} unbuilt lines shown")


LAWS = [
    Law("push_agrees", "§3.2", "With push's list length as the budget, the fold makes exactly push's merges at every step.", "exhaustive", "Bounded: every t from 0 to at least 20,000", push_agrees),
    Law("first_agrees_481", "§3.2", "Due from `first` agrees with push at exactly 481 of the 20,001 steps t = 0..20,000, as the gist says.", "exhaustive", "Bounded: t = 0..20,000", first_agrees_481),
    Law("shifted_agrees_with_push", "§3.2", "`(T + 1 − last)/2^l` also agrees with push at every step, so only ties pin the formula.", "exhaustive", "Bounded: every t from 0 to at least 20,000", shifted_agrees_with_push),
    Law("last_merges_8_9", "§3.2", "At T = 10 (view `0+4 4+4 8+1 9+1`, budget 3) due from last merges 8–9, as push does.", "example", "Example: the gist's T = 10", last_merges_8_9),
    Law("first_merges_0_7", "§3.2", "Due from first merges 0–7 there.", "example", "Example: the gist's T = 10", first_merges_0_7),
    Law("first_is_not_last", "§3.2, §7.1", "So first and last are not the same order.", "example", "Example: the gist's T = 10", first_is_not_last),
    Law("first_leaves_push", "§3.2, §7.1", "Due from first leaves push within 11 steps.", "exhaustive", "Bounded: t = 0..10", first_leaves_push),
    Law("tie_at_11", "§3.2", "At T = 11 pairs 4–7 and 8–9 are both due 2 and the older merges; from T + 1, 8–9 would.", "example", "Example: hand computation at T = 11", tie_at_11),
    Law("sawtooth_holds", "§3.2", "After each batch the view is at most the floor unless no pair can merge; after each message it is at most the ceiling unless shrinking; it averages half-way.", "runs", "Searched: a seeded run of 10,000 messages at a tenth of the gist's sizes, at least 250 batches", sawtooth_holds),
    Law("view_bytes_rendered", "§3", "A view's counted size is its rendered bytes less the `<chat>` tags, plus 483 for each placeholder: an unbuilt line counts as its longest built line [P1].", "runs", "Searched: three seeded late runs of 2,700 messages, at least 40,000 placeholder lines across their states", view_bytes_rendered),
    Law("view_within_ceiling", "§3.2", "After any event the view a turn renders is at most the ceiling plus the tags, unless shrinking with no pair able to merge; never more than counted; the same for the compaction view.", "runs", "Searched: three seeded late runs of 2,700 messages, at least 10,000 views, at least 1,000 of them over the ceiling with no pair able to merge", view_within_ceiling),
    Law("unsettled_view_shows_placeholders", "§5, §7.5", "A line not summarized yet shows as the placeholder, never the start of its message.", "runs", "Searched: three seeded late runs of 2,700 messages, at least 20,000 unbuilt lines shown", unsettled_view_shows_placeholders),
]
