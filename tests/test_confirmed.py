"""Strategy: a CrossHair law's label is read from CrossHair's printed verdict, never from its exit
status (0 also for "Not confirmed."). These tests feed the reader each kind of output and check
the label it earns; and they check that the line laws' claims fail on a broken line function, so
the exhaustive runs could catch one.
"""

from laws import confirmed
from model.line import Outcome


def verdict_for(status: int, output: str):
    confirmed.FINISHED["merge_is_one_pair"] = (status, output, 1.0)
    try:
        return confirmed.crosshair_law("merge_is_one_pair")
    finally:
        del confirmed.FINISHED["merge_is_one_pair"]


def test_all_paths_confirmed_earns_confirmed():
    verdict = verdict_for(0, "laws/contracts/views.py:60: info: Confirmed over all paths.\n")
    assert verdict.passed and verdict.strength.startswith("Confirmed (CrossHair): views of")


def test_not_confirmed_earns_only_searched():
    verdict = verdict_for(0, "laws/contracts/views.py:60: info: Not confirmed.\n")
    assert verdict.passed and verdict.strength.startswith("Searched (CrossHair, 300 iterations")


def test_a_counterexample_fails():
    verdict = verdict_for(1, "laws/contracts/views.py:70: error: AssertionError:  when calling merge_is_one_pair((0, 0), 3, 1, 0)\n")
    assert not verdict.passed


def test_no_verdict_fails():
    assert not verdict_for(0, "").passed
    assert not verdict_for(2, "ImportError").passed


def test_the_line_claims_fail_on_broken_outcomes():
    too_many = Outcome(6, "x")
    assert confirmed.calls_at_most_tries(("a" * 600,) * 6, "f", too_many)
    assert confirmed.kept_fits((), "", Outcome(0, ""))
    last_kept = Outcome(2, "b" * 700)
    assert confirmed.keeps_shortest(("c" * 600, "b" * 700), "f", last_kept)
    assert confirmed.takes_first_fit(("short", "x"), "f", Outcome(2, "x"))
    assert confirmed.empty_is_a_try(("", "x"), "f", Outcome(2, "x"))
    assert confirmed.stops_when_not_shorter(("a" * 600, "b" * 600, "c"), "f", Outcome(3, "c"))
