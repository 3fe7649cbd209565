"""The bounded laws: claims checked by computation on the model, each on the runs it names.

Strategy: golden values come from outside the model. Push is Taelin's function, transcribed line
for line from [gist §3.1]; the T = 10 and T = 11 examples and the count 481 are the gist's own
numbers (the tie at T = 11 is a hand computation: pairs 4–7 and 8–9 are both due 2). The fold is
the model's `fit` with every parent built and each line one unit of budget, run on its own history.
"""

import random
from functools import lru_cache

from laws.core import Budget, Law, Verdict
from model.planner import KINDS, Built, Config, Failed, Message, State, TurnEnd, Wait, sent_view, step, tree_parents
from model.push import EVERY_PARENT, fold_step, format_items, push, push_states, push_view, view_items
from model.tree import tree_has
from model.view import Line, View, context, fit, most_due, rendered, utf8_bytes, view_bytes


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
    t = -1
    for t, pushed, folded in push_and_fold(budget.t, False):
        if pushed != folded:
            return Verdict(False, "none", f"t={t}: push {format_items(pushed)}, fold {format_items(folded)}")
    # the last t that ran, not the budget's: a loop cut short earns less than the registry
    return Verdict(True, f"Bounded: every t from 0 to {t:,}")


def first_agrees_481(budget: Budget) -> Verdict:
    """[gist §3.2] "It matches push at only 481 of 20,001 steps." Counted, not assumed."""
    steps = agreeing = 0
    for _, pushed, folded in push_and_fold(20_000, True):
        steps += 1
        agreeing += pushed == folded
    return Verdict(agreeing == 481, f"Bounded: t = 0..{steps - 1:,}", f"{agreeing} of {steps:,} steps")


def shifted_agrees_with_push(budget: Budget) -> Verdict:
    """(T + 1 − last)/2^l also makes push's merges at every step: so agreement with push alone
    cannot pin the formula, and only the tie examples do."""
    states = None
    view: View = ()
    t = -1
    for t in range(budget.t + 1):
        states = push(t, states)
        grown = view + (Line(0, t, "", True, 1),)
        view, _ = fit(grown, t + 2, len(push_states(states)), EVERY_PARENT)
        if view_items(view) != push_view(states, t + 1):
            return Verdict(False, "none", f"t={t}")
    return Verdict(True, f"Bounded: every t from 0 to {t:,}")


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
    """An existence claim: its bound is every step up to the first that differs, as the run
    found it, so the registry holds that step and a run that finds another earns another label."""
    for t, pushed, folded in push_and_fold(10, True):
        if pushed != folded:
            return Verdict(True, f"Bounded: t = 0..{t}, every step to the first that differs", f"first differs at t = {t}")
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
    messages = 0
    started = False
    for kind, state in never_late(config, 10_000, seed=1):
        messages += kind == "message"
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
    label = f"Searched: a seeded run of {messages:,} messages at a tenth of the gist's sizes, {batches:,} batches"
    return Verdict(batches > 100 and near, label, detail)


TAGS_BYTES = len("<chat>\n") + len("</chat>")
PLACEHOLDER_LINE = "+1|not summarized yet: search or zoom it"  # [gist §5] [P22], after the message's id
# [P1] an unbuilt line is counted at its head, 512 bytes and its newline, and shows its
# 37-byte placeholder: 475 bytes more counted than shown, whatever its id
RESERVE_BYTES = 512 - len("not summarized yet: search or zoom it")


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


def runs_and_messages(states) -> tuple:
    """How many runs a sequence of their states holds and how many messages they sent, read from
    T alone: a message raises T by one, and a run starts again below where the last one ended."""
    runs = messages = 0
    before = None
    for state in states:
        if before is None or state.T < before:
            runs += 1
            messages += state.T
        else:
            messages += state.T - before
        before = state.T
    return runs, messages


def late_runs_said(states) -> str:
    """The late runs' part of a label, as measured."""
    runs, messages = runs_and_messages(states)
    return f"{runs} seeded late runs of {messages:,} messages"


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
    475 bytes for each line not summarized yet (its reserve over its placeholder)."""
    placeholders = 0
    for state in ceiling_states():
        for view in (state.view, state.cview):
            unbuilt = sum(1 for line in view if not line.built)
            placeholders += unbuilt
            shown = shown_bytes(view) - TAGS_BYTES
            if view_bytes(view) != shown + RESERVE_BYTES * unbuilt:
                return Verdict(False, "none", f"T={state.T}: counted {view_bytes(view)}, shown {shown}, {unbuilt} unbuilt")
    return Verdict(True, f"Searched: {late_runs_said(ceiling_states())}, {placeholders:,} placeholder lines across their states")


def first_day(config: Config, chat_messages: int, short_notes: int, long_notes: int, seed: int):
    """A chat, then an import of notes while the compactor is paused (its calls run, none
    answers), then turns while it catches up: each short note is its own line but too long to
    join its neighbour [gist §2], so no pair can merge until the compactor builds their parents;
    each long one waits for its own line. Yields every state, and whether a turn renders there."""
    rng = random.Random(seed)
    state = State(config)
    for _ in range(chat_messages):
        state = step(state, Message(rng.choice(KINDS), "m" * rng.choice((8, 300, 700))))
        yield state, False
        while state.running:
            l, i = state.running[0]
            state = step(state, Built(l, i, "s" * rng.randint(80, 512)))
            yield state, False
    notes = ["short"] * short_notes + ["long"] * long_notes
    rng.shuffle(notes)
    for note in notes:
        size = rng.randint(260, 500) if note == "short" else rng.randint(600, 3000)
        state = step(state, Message("note", "n" * size))
        yield state, False
    outcomes = 0
    while True:
        state = step(state, Wait())
        yield state, True
        for _ in range(10):
            if not state.waiting or not state.running:
                break
            l, i = state.running[rng.randrange(len(state.running))]
            state = step(state, Built(l, i, "s" * rng.randint(80, 512)))
            yield state, False
        if state.waiting:
            state = step(state, TurnEnd())
            yield state, True
        state = step(state, Message("user", "m" * 8))
        yield state, False
        if not state.running:
            return
        for _ in range(60):
            if not state.running:
                break
            l, i = state.running[rng.randrange(len(state.running))]
            state = step(state, Built(l, i, "s" * rng.randint(80, 512)))
            outcomes += 1
            yield state, outcomes % 7 == 0


@lru_cache(maxsize=1)
def first_day_states() -> tuple:
    return tuple(first_day(TENTH, 60, 200, 20, seed=5))


# [P19] A view with no two siblings side by side is T's binary digits (sibling_free_view_is_binary),
# at most 64 lines below 2^64; a line renders at most LINE_RENDERED_BYTES_MAX with its newline
# (line_renders_within_its_bound): so the turn's fold ends within 64 such lines whatever the
# ceiling, and within the ceiling itself only when the ceiling is at least that.
LINE_RENDERED_BYTES_MAX = 20 + 1 + 19 + 1 + 3 * 512 + 1  # id, +, n, |, 512 bytes at 3 each, \n
CEILING_BYTES_MIN = 64 * LINE_RENDERED_BYTES_MAX  # 100,992: the precondition on the ceiling


def binary_view_bytes_max(T: int) -> int:
    """The most T's binary digits can render, less the tags: one line per 1-bit, each its head
    `id+n|`, at most 512 bytes shown at 3 bytes each ([P18]'s `‹`) and its newline. Written
    from the digits, not from the model."""
    total, start = 0, 0
    for l in range(T.bit_length() - 1, -1, -1):
        if T >> l & 1:
            total += len(str(start)) + 1 + len(str(1 << l)) + 1 + 3 * 512 + 1
            start += 1 << l
    return total


def turn_bytes_max(config: Config, T: int) -> int:
    """What a turn's view may render, less the tags [P20]: its ceiling when the ceiling meets the
    precondition (at least CEILING_BYTES_MIN, T below 2^64), else the larger of the ceiling and
    T's binary digits' most."""
    assert T < 1 << 64
    if config.view_bytes_ceiling >= CEILING_BYTES_MIN:
        return config.view_bytes_ceiling
    return max(config.view_bytes_ceiling, binary_view_bytes_max(T))


# A ceiling of 101,000 bytes, just past the precondition, at sizes where the fold is cheap.
PRECONDITION_MET = Config(101_000, 50_500, 25_000, 12_500)
# Past the precondition (the law's own third late run's configuration): every line built to 512
# bytes leaves the turn's fold at T's binary digits, over the ceiling.
PRECONDITION_UNMET = Config(3_000, 1_500, 1_000, 500, 1)


@lru_cache(maxsize=1)
def precondition_met_states() -> tuple:
    return tuple(first_day(PRECONDITION_MET, 40, 300, 20, seed=6))


def full_lines_view(config: Config, messages: int, text_bytes: int) -> State:
    """`messages` messages of 600 bytes, every call answered by a line of `text_bytes` bytes
    before the next message: the view ends as T's binary digits, each line that long."""
    state = State(config)
    for _ in range(messages):
        state = step(state, Message("user", "m" * 594))
        while state.running:
            l, i = state.running[0]
            state = step(state, Built(l, i, "s" * text_bytes))
    return state


def view_within_ceiling(budget: Budget) -> Verdict:
    """[gist §3.2] "64-128 KB in all", in every state [P19]: the view a turn would send
    renders at most its ceiling plus the tags when the ceiling is at least 100,992 bytes (64 lines
    of 1,578, the bound of the hand proof) and T is below 2^64, and at most the larger of the
    ceiling and T's binary digits' most below that; every running compaction's context at most
    the compaction view's ceiling plus the tags, with no exception for a view that cannot merge
    (a compactor behind, paused, or an import's notes waiting for their parents); and a view whose
    texts show one byte for one never renders more than it counts, whenever its lines get built [P1].

    The precondition is seen to be needed: at Config(3000, 1500, 1000, 500, 1), 127 messages
    whose every call is answered by a 512-byte line leave T's 7 binary digits, which render
    3,646 bytes against 3,014, within the digits' bound; and a text of `<` renders more than its
    line was counted [P18].

    The view a turn sends is computed at every turn of the first days, and at every third state
    whose view shows over the ceiling (there it is folded; the model's fold is quadratic in the
    view's lines, so not at every one); a view within it is sent as it is
    (each fit leaves it as it is: `fit_reaches_budget`, proved)."""
    past = full_lines_view(PRECONDITION_UNMET, 127, 512)
    past_sent = shown_bytes(sent_view(past))
    if past_sent <= PRECONDITION_UNMET.view_bytes_ceiling + TAGS_BYTES:
        return Verdict(False, "none", f"past the precondition the turn's view renders {past_sent} bytes, "
                                      "within its ceiling: the precondition is not seen to be needed")
    if past_sent > turn_bytes_max(PRECONDITION_UNMET, past.T) + TAGS_BYTES:
        return Verdict(False, "none", f"past the precondition the turn's view renders {past_sent} bytes, over T's digits' bound")
    escaped_line = Line(0, 0, "<" * 512, True, 0)
    if utf8_bytes(rendered(escaped_line)) + 1 <= utf8_bytes("0+1|") + 512 + 1:
        return Verdict(False, "none", "a text of < renders within its reserve: the one-byte-for-one condition is not seen to be needed")
    turns = folded = contexts = placeholders = met = 0
    biggest = 0
    states = ([(state, False) for state in ceiling_states()] + list(first_day_states())
              + list(precondition_met_states()))
    over = 0
    for state, turn_renders in states:
        c = state.config
        shown = shown_bytes(state.view)
        if shown - TAGS_BYTES > view_bytes(state.view):
            return Verdict(False, "none", f"T={state.T}: the view renders {shown} bytes, counted {view_bytes(state.view)}")
        if not state.shrinking and shown > c.view_bytes_ceiling + TAGS_BYTES:
            # counted within the ceiling at the last message, its lines built since [P1]
            return Verdict(False, "none", f"T={state.T}: the view renders {shown} bytes, over its ceiling while not shrinking")
        if shown > c.view_bytes_ceiling + TAGS_BYTES:
            over += 1
        if (shown > c.view_bytes_ceiling + TAGS_BYTES and over % 3 == 1) or turn_renders:
            sent = sent_view(state)
            sent_bytes = shown_bytes(sent)
            turns += 1
            met += c.view_bytes_ceiling >= CEILING_BYTES_MIN and len(sent) < len(state.view)
            folded += len(sent) < len(state.view)
            placeholders += sum(1 for line in sent if not line.built and line.l > 0)
            biggest = max(biggest, sent_bytes)
            if sent_bytes > turn_bytes_max(c, state.T) + TAGS_BYTES:
                return Verdict(False, "none", f"T={state.T}: a turn's view renders {sent_bytes} bytes, over its bound")
        for l, i in state.running:
            lines = context(state.cview, l, i, c.cview_bytes_ceiling)
            contexts += 1
            if shown_bytes(lines) > c.cview_bytes_ceiling + TAGS_BYTES:
                return Verdict(False, "none", f"T={state.T}: node ({l}, {i})'s context renders {shown_bytes(lines)} bytes")
    # a first day's messages and notes: T at its first turn, which waits for the notes' lines
    before_turns = [next(state.T for state, turn_renders in day if turn_renders)
                    for day in (first_day_states(), precondition_met_states())]
    label = (f"Searched: {late_runs_said(ceiling_states())} and first days of {before_turns[0]:,} and "
             f"{before_turns[1]:,} messages and notes, "
             f"{turns:,} turn views ({folded:,} folded, {met:,} of them at a ceiling past the precondition, "
             f"{placeholders:,} coarse placeholders), {contexts:,} contexts; one configuration short of the "
             f"precondition seen to pass its ceiling")
    return Verdict(folded > 0 and placeholders > 0 and met > 0, label,
                   f"largest turn view {biggest:,} bytes with its tags; past the precondition {past_sent:,} bytes")


SIBLING_FREE_T_MAX = 1_024  # every T up to this


def sibling_free_tilings(T: int, placed: list | None = None) -> list:
    """Every tiling of messages 0..T−1 by tree nodes, oldest first, in which no two lines side by
    side are siblings [gist §2]: each line (l, i) starts at a multiple of 2^l. Each line the
    search places is appended to `placed`, when given (the run's count for its label)."""
    found = []
    lines: list = []

    def go(start: int) -> None:
        if start == T:
            found.append(tuple(lines))
            return
        l = 0
        while start + (1 << l) <= T and start % (1 << l) == 0:
            i = start >> l
            if not (lines and lines[-1] == (l, i - 1) and i % 2 == 1):
                lines.append((l, i))
                if placed is not None:
                    placed.append((l, i))
                go(start + (1 << l))
                lines.pop()
            l += 1

    go(0)
    return found


def sibling_free_view_is_binary(budget: Budget) -> Verdict:
    """[P19] A view in which no two lines side by side are siblings, where the turn's
    fold can go no further, is the chat's binary digits: exactly one such tiling of 0..T−1, with
    one line per 1-bit of T (so at most 64 lines below 2^64), its levels falling. The golden value
    is T's binary digits, not the model. Checked on every tiling by a search that prunes only
    siblings side by side."""
    placed: list = []
    for T in range(SIBLING_FREE_T_MAX + 1):
        found = sibling_free_tilings(T, placed)
        digits = tuple((l, T >> (l + 1) << 1) for l in range(T.bit_length() - 1, -1, -1) if T >> l & 1)
        if found != [digits]:
            return Verdict(False, "none", f"T={T}: {found[:2]} against the binary digits {digits}")
    # built from the run: the largest T searched and the lines the search placed
    return Verdict(True, f"Bounded: every tiling of every T from 0 to {T:,}, {len(placed):,} lines placed")


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
    return Verdict(True, f"Searched: {late_runs_said(ceiling_states())}, {seen:,} unbuilt lines shown")


LAWS = [
    Law("push_agrees", "§3.2", "With push's list length as the budget, the fold makes exactly push's merges at every step.", "exhaustive", "Bounded: every t from 0 to at least 20,000", push_agrees),
    Law("first_agrees_481", "§3.2", "Due from `first` agrees with push at exactly 481 of the 20,001 steps t = 0..20,000, as the gist says.", "exhaustive", "Bounded: t = 0..20,000", first_agrees_481),
    Law("shifted_agrees_with_push", "§3.2", "`(T + 1 − last)/2^l` also agrees with push at every step, so only ties pin the formula.", "exhaustive", "Bounded: every t from 0 to at least 20,000", shifted_agrees_with_push),
    Law("last_merges_8_9", "§3.2", "At T = 10 (view `0+4 4+4 8+1 9+1`, budget 3) due from last merges 8–9, as push does.", "example", "Example: the gist's T = 10", last_merges_8_9),
    Law("first_merges_0_7", "§3.2", "Due from first merges 0–7 there.", "example", "Example: the gist's T = 10", first_merges_0_7),
    Law("first_is_not_last", "§3.2, §7.1", "So first and last are not the same order.", "example", "Example: the gist's T = 10", first_is_not_last),
    Law("first_leaves_push", "§3.2, §7.1", "Due from first leaves push within 11 steps.", "exhaustive", "Bounded: t = 0..9, every step to the first that differs", first_leaves_push),
    Law("tie_at_11", "§3.2", "At T = 11 pairs 4–7 and 8–9 are both due 2 and the older merges; from T + 1, 8–9 would.", "example", "Example: hand computation at T = 11", tie_at_11),
    Law("sawtooth_holds", "§3.2", "After each batch the view is at most the floor unless no pair can merge; after each message it is at most the ceiling unless shrinking; it averages half-way.", "runs", "Searched: a seeded run of at least 10,000 messages at a tenth of the gist's sizes, at least 250 batches", sawtooth_holds),
    Law("view_bytes_rendered", "§3", "A view's counted size is its rendered bytes less the `<chat>` tags, plus 475 for each placeholder: an unbuilt line counts as its longest built line [P1].", "runs", "Searched: 3 seeded late runs of at least 2,700 messages, at least 40,000 placeholder lines across their states", view_bytes_rendered),
    Law("view_within_ceiling_on_runs", "§3.2 [P19]", "After any event the view a turn sends renders at most the ceiling plus the tags when the ceiling is at least 100,992 bytes and T below 2^64 (at most the larger of the ceiling and T's binary digits' most below that), and every compaction's context its ceiling plus the tags; a view whose texts show one byte for one never renders more than it counts.", "runs", "Searched: 3 seeded late runs of at least 2,700 messages and first days of 280 and 360 messages and notes, at least 700 turn views (at least 700 folded, at least 10 of them at a ceiling past the precondition, at least 5,000 coarse placeholders), at least 15,000 contexts; one configuration short of the precondition seen to pass its ceiling", view_within_ceiling),
    Law("sibling_free_view_is_binary", "§2 [P19]", "A view with no two sibling lines side by side is T's binary digits: one line per 1-bit (its count and its lines' sizes: sibling_free_view_has_64_lines, line_renders_within_its_bound).", "exhaustive", "Bounded: every tiling of every T from 0 to at least 1,024, at least 520,000 lines placed", sibling_free_view_is_binary),
    Law("unsettled_view_shows_placeholders", "§5, §7.5", "A line not summarized yet shows as the placeholder, never the start of its message.", "runs", "Searched: 3 seeded late runs of at least 2,700 messages, at least 20,000 unbuilt lines shown", unsettled_view_shows_placeholders),
]
