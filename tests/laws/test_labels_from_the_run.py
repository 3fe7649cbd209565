"""Strategy: a Bounded label says what the run checked, measured as it ran, and the registry holds
the bound written out; so a law whose domain is narrowed in the code (a shorter sequence, fewer
messages tiled) earns a label below the registry's and fails `make laws`, though every case it
still checks holds.
"""

from laws import confirmed, work_queue
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
