"""Strategy: the law about the production batch's order (`heap_keys_order_as_more_due`) must be
about the code production runs. So `_View.fit` is seen to make every heap entry by `_View.entry`
(a counting stand-in sees each call of a real batch, and a stand-in that breaks the order changes
the merges), and the law is seen to fail when `_View.entry` gives a tie between pairs of levels
≥ 5 to the newer pair, a bug that passed while the law built its own entries.
"""

import harness.memory.planner as production
from harness.memory.events import Built, Message
from harness.memory.planner import Config, Planner, _View
from laws.choice import heap_keys_order_as_more_due
from laws.core import Budget

ENTRY = _View.entry


def a_batch_of_merges():
    """A planner whose view passes its ceiling many times: every message built at once."""
    planner = Planner(Config(2_000, 1_000, 800, 400, 8, 3))
    for i in range(300):
        planner.apply(Message("user", "x" * 600))
        for l, i2 in list(planner.running):
            planner.apply(Built(l, i2, f"line {l} {i2}"))
    return planner


def test_every_entry_of_the_batch_heap_is_made_by_view_entry(monkeypatch):
    calls = []

    def counted(l, first, T):
        calls.append((l, first, T))
        return ENTRY(l, first, T)

    monkeypatch.setattr(_View, "entry", staticmethod(counted))
    planner = a_batch_of_merges()
    assert len(calls) > 100
    reversed_order = staticmethod(lambda l, first, T: (-ENTRY(l, first, T)[0], first, l))
    monkeypatch.setattr(_View, "entry", reversed_order)
    assert a_batch_of_merges().view.lines() != planner.view.lines()


def test_the_heap_law_fails_on_a_tie_given_to_the_newer_pair_at_levels_5_and_up(monkeypatch):
    def tie_to_newer(l, first, T):
        key, first_again, level = ENTRY(l, first, T)
        return (key + (l if l >= 5 else 0), first_again, level)

    monkeypatch.setattr(production._View, "entry", staticmethod(tie_to_newer))
    verdict = heap_keys_order_as_more_due(Budget())
    assert not verdict.passed
    assert "Z3 said sat" in verdict.detail
