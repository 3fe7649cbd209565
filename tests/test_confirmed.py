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
    too_many = Outcome(6, "x", ())
    assert confirmed.calls_at_most_tries(("a" * 600,) * 6, too_many)
    assert confirmed.kept_fits(("a" * 600,), Outcome(1, "", ()))  # a try gave a line: "" is wrong
    assert not confirmed.kept_fits(("",), Outcome(1, "", ()))  # no line at all: a failed try
    last_kept = Outcome(2, "b" * 700, ())
    assert confirmed.keeps_shortest(("c" * 600, "b" * 700), last_kept)
    # the old rule: no line at all kept the node's input as its line
    assert confirmed.keeps_shortest(("  ",), Outcome(1, "the input", ()))
    assert confirmed.takes_first_fit(("short", "x"), Outcome(2, "x", ()))
    assert confirmed.empty_is_a_try(("", "x"), Outcome(2, "x", ()))
    assert confirmed.stops_when_not_shorter(("a" * 600, "b" * 600, "c"), Outcome(3, "c", ()))
    # the follow-up must carry the trimmed size: 600, not the raw reply's 602
    raw = "a" * 600
    wrong = Outcome(2, "b", ("Too long: your line is 602 bytes" + confirmed.gist_too_long(raw)[31:],))
    assert confirmed.follows_up_too_long((" " + raw + " ", "b"), wrong)
    assert not confirmed.follows_up_too_long((" " + raw + " ", "b"), Outcome(2, "b", (confirmed.gist_too_long(raw),)))