"""Strategy: a Bounded label says what the run checked, measured as it ran, and the registry holds
the bound written out; so a law whose domain is narrowed in the code (a shorter sequence, fewer
messages tiled) earns a label below the registry's and fails `make laws`, though every case it
still checks holds.
"""

from laws import bounded, confirmed, work_queue
from laws.core import Budget, shortfall
from laws.registry import laws


def law(name):
    return next(found for found in laws() if found.name == name)


def test_the_line_laws_narrowed_to_sequences_of_five_fall_short(monkeypatch):
    monkeypatch.setattr(confirmed, "REPLIES_MAX", 5)
    confirmed.sequences.cache_clear()
    try:
        verdict = law("line_fits").check(Budget())
    finally:
        monkeypatch.undo()
        confirmed.sequences.cache_clear()
    assert verdict.passed
    assert verdict.strength == "Bounded: all 66,430 reply sequences of ≤ 5 from 9 shapes"  # 1 + 9 + … + 9^5
    assert shortfall(law("line_fits").strength, verdict.strength) is not None


def test_the_line_laws_with_a_shape_dropped_fall_short(monkeypatch):
    monkeypatch.setattr(confirmed, "SHAPES", confirmed.SHAPES[:-1])
    confirmed.sequences.cache_clear()
    try:
        verdict = law("line_keeps_shortest").check(Budget())
    finally:
        monkeypatch.undo()
        confirmed.sequences.cache_clear()
    assert verdict.strength == "Bounded: all 299,593 reply sequences of ≤ 6 from 8 shapes"  # (8^7 − 1) / 7
    assert shortfall(law("line_keeps_shortest").strength, verdict.strength) is not None


def test_the_capped_text_and_queue_laws_narrowed_fall_short(monkeypatch):
    monkeypatch.setattr(work_queue, "TILED_MAX", 12)
    verdict = work_queue.capped_text_finds_its_source(Budget())
    assert shortfall(work_queue.CAPPED_LABEL, verdict.strength) is not None
    monkeypatch.setattr(work_queue, "MERGES", work_queue.MERGES[:10])
    verdict = work_queue.queue_functions_hold(Budget())
    assert verdict.passed and shortfall(work_queue.QUEUE_LABEL, verdict.strength) is not None


def test_first_leaves_push_states_the_step_its_run_found(monkeypatch):
    agreeing = ((0, "a", "a"), (1, "b", "b"), (2, "c", "d"))  # a fold that leaves push at t = 2
    monkeypatch.setattr(bounded, "push_and_fold", lambda t_max, due_from_first: iter(agreeing))
    verdict = bounded.first_leaves_push(Budget())
    assert verdict.strength == "Bounded: t = 0..2, every step to the first that differs"
    assert shortfall(law("first_leaves_push").strength, verdict.strength) is not None


def test_push_agrees_states_the_last_t_that_ran(monkeypatch):
    ran = ((t, (), ()) for t in range(5_001))  # a loop that stops at t = 5,000 whatever the budget
    monkeypatch.setattr(bounded, "push_and_fold", lambda t_max, due_from_first: ran)
    verdict = bounded.push_agrees(Budget())
    assert verdict.strength == "Bounded: every t from 0 to 5,000"
    assert shortfall(law("push_agrees").strength, verdict.strength) is not None


def test_runs_and_messages_are_read_from_t():
    class At:
        def __init__(self, T):
            self.T = T

    # a run of 3 messages with an event between, then a run of 2: T 1 1 2 3, then 1 2
    states = [At(T) for T in (1, 1, 2, 3, 1, 2)]
    assert bounded.runs_and_messages(states) == (2, 5)
    assert bounded.late_runs_said(states) == "2 seeded late runs of 5 messages"
