"""Strategy: the production planner's choice of pair (its per-level heaps, harness/memory/planner.py
`_View.fit`) must be the model's (`model.view.fit`, whose `most_due` scan is proved in
laws/choice.py) where it is hardest to get right: ties between pairs of different levels, at
levels 5 and above, in views of long chats (T up to 2^17). Views are drawn as a chat's are: levels
that never rise from the oldest line to the newest, so each line starts on a multiple of its
size; every parent is built and every line costs 100 bytes, so a budget of 100·(n − m) bytes makes
exactly m merges. Both sides merge the same views; their merge lists must be equal, and the draws
must reach enough ties at high levels for the comparison to mean something.
"""

import random

from harness.memory.planner import _View
from harness.memory.texts import BuiltNodes
from model.view import Line, Parents, fit

LINE_BYTES = 100


class _Planner:
    """What `_View.fit` asks of the planner: a parent's line size (its cache of entries first,
    here empty) and the built nodes."""

    def __init__(self) -> None:
        self._recent = {}
        self.built_nodes = BuiltNodes()
        self.built_nodes.watermarks = [1 << 40] * 40  # every node of every level is built
        self.built_nodes.beyond = [set() for _ in range(40)]

    def line_bytes(self, l: int, i: int) -> int:
        return LINE_BYTES


def a_view(rng: random.Random):
    """Levels non-increasing, each repeated 1 to 3 times, from 16 down to 5: pairs at many
    levels at once. Then, often, a tail of lines of levels ≤ 4 chosen so that the chat's T makes
    two pairs of different high levels equally due (as T grows, each such tie comes once)."""
    levels = []
    level = rng.randint(8, 16)
    while level >= 5 and len(levels) < 24:
        levels += [level] * rng.choice((1, 2, 2, 3))
        level -= rng.choice((1, 1, 2))
    lines, position = [], 0
    for l in levels:
        lines.append((l, position >> l))
        position += 1 << l
    T = position + rng.randint(0, 40)
    pairs = [(l, i) for (l, i), (m, j) in zip(lines, lines[1:]) if l == m and i % 2 == 0 and j == i + 1]
    tie_Ts = []
    for la, ia in pairs:
        for lb, ib in pairs:
            if la > lb:
                last_a, last_b = ((ia + 2) << la) - 1, ((ib + 2) << lb) - 1
                top = (last_b << la) - (last_a << lb)
                bottom = (1 << la) - (1 << lb)
                if top % bottom == 0 and 0 <= top // bottom - position <= 160:
                    tie_Ts.append(top // bottom)
    if tie_Ts and rng.random() < 0.8:
        T = rng.choice(tie_Ts)
    tail = T - position
    for l in range(4, -1, -1):  # the tail's lines: level-4 lines, then the rest in binary
        while tail >= 1 << l and (l == 4 or tail & (1 << l)):
            lines.append((l, position >> l))
            position += 1 << l
            tail -= 1 << l
    assert position == T
    return lines, T


def ties_at_high_levels(lines, T) -> int:
    """Pairs of lines of different levels, both ≥ 5, that can merge and are equally due."""
    pairs = [(l, i) for (l, i), (m, j) in zip(lines, lines[1:]) if l == m and i % 2 == 0 and j == i + 1]
    found = 0
    for a in range(len(pairs)):
        for b in range(a + 1, len(pairs)):
            (la, ia), (lb, ib) = pairs[a], pairs[b]
            if la >= 5 and lb >= 5 and la != lb:
                last_a, last_b = ((ia + 2) << la) - 1, ((ib + 2) << lb) - 1
                found += (T - last_a) << lb == (T - last_b) << la
    return found


def test_the_production_heaps_choose_as_the_model_on_ties_at_high_levels():
    rng = random.Random("ties at high levels")
    parents = Parents(lambda l, i: True, lambda l, i: Line(l, i, "x", True, LINE_BYTES))
    ties = compared = 0
    for _ in range(1500):
        lines, T = a_view(rng)
        tied = ties_at_high_levels(lines, T)
        if not tied and rng.random() < 0.7:
            continue
        ties += tied
        merges = rng.randint(1, len(lines))
        budget = LINE_BYTES * (len(lines) - merges)
        view = _View()
        planner = _Planner()
        for l, i in lines:
            view.add(l, i, LINE_BYTES, planner.built_nodes)
        produced = view.fit(T, budget, planner)
        _, modelled = fit(tuple(Line(l, i, "x", True, LINE_BYTES) for l, i in lines), T, budget, parents)
        assert produced == list(modelled), (lines, T, budget)
        compared += 1
    assert ties >= 1_000 and compared >= 500, (ties, compared)
