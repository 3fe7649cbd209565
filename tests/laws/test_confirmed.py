"""Strategy: a CrossHair law's label is read from CrossHair's printed verdict, never from its exit
status (0 also for "Not confirmed."), and a "Confirmed" counts only when the contract's concrete
witnesses meet its preconditions and reach each claim. These tests feed the reader each kind of
output, plant impossible preconditions and unreachable claims in small contracts, and check that
the line and cut laws' claims fail on broken functions, so the exhaustive runs could catch one.
"""

import pytest

from laws import confirmed, witness
from laws.contracts import twins, views
from model.line import Outcome


def verdict_for(status: int, output: str, name: str = "merge_is_one_pair"):
    confirmed.FINISHED[name] = (status, output, 1.0, 0.9)
    try:
        return confirmed.crosshair_law(name, confirmed.MERGE_DOMAIN)
    finally:
        del confirmed.FINISHED[name]


CONFIRMED = "laws/contracts/views.py:60: info: Confirmed over all paths.\n"


def test_a_counterexample_fails():
    verdict = verdict_for(1, "laws/contracts/views.py:70: error: AssertionError:  when calling merge_is_one_pair((0, 0), 3, 1, 0)\n")
    assert not verdict.passed


def test_no_verdict_fails():
    assert not verdict_for(0, "").passed
    assert not verdict_for(2, "ImportError").passed


def test_confirmed_without_a_witness_fails(monkeypatch):
    monkeypatch.setitem(views.WITNESSES, "merge_is_one_pair", [])
    assert not verdict_for(0, CONFIRMED).passed
    monkeypatch.setitem(views.WITNESSES, "merge_is_one_pair", [((0,), 1, 0, 5)])  # extra out of its domain
    verdict = verdict_for(0, CONFIRMED)
    assert not verdict.passed and "precondition" in verdict.detail


def test_confirmed_with_a_claim_no_witness_reaches_fails(monkeypatch):
    monkeypatch.setitem(views.WITNESSES, "merge_is_one_pair", [((0,), 1, 0, 0)])  # never merges
    verdict = verdict_for(0, CONFIRMED)
    assert not verdict.passed and "reaches the claim" in verdict.detail


def impossible(extra: int) -> None:
    assert 0 <= extra <= 4
    assert extra > 4
    assert extra == extra + 1


def only_odd(n: int) -> None:
    assert 0 <= n <= 9
    if n % 2 == 1:
        assert n != 4
    assert n >= 0


def broken(n: int) -> None:
    assert 0 <= n <= 9
    m = n  # the leading asserts are the preconditions: the claim comes after a statement
    assert m < 5


def no_preconditions(n: int) -> None:
    m = n + 1
    assert m > n


def test_an_impossible_precondition_has_no_witness():
    problem = witness.contract_problem(impossible, [(k,) for k in range(5)])
    assert problem and "precondition at line" in problem


def test_a_claim_no_witness_reaches_is_a_problem_until_one_does():
    problem = witness.contract_problem(only_odd, [(0,), (2,)])
    assert problem and "reaches the claim" in problem
    assert witness.contract_problem(only_odd, [(0,), (3,)]) is None


def test_a_witness_that_breaks_a_claim_is_a_problem():
    problem = witness.contract_problem(broken, [(7,)])
    assert problem and "breaks the claim" in problem


def test_a_contract_without_preconditions_or_witnesses_is_a_problem():
    assert witness.contract_problem(no_preconditions, [(1,)])
    assert witness.contract_problem(broken, [])


def test_every_diffbehavior_pair_has_witnesses_inside_its_guard():
    for key in twins.WITNESSES:
        assert witness.pair_problem(getattr(twins, f"model_{key}"), getattr(twins, f"harness_{key}"),
                                    twins.WITNESSES[key]) is None, key


def shut(n: int) -> int:
    if n >= 0 or n < 0:
        return -1
    return n


def open_a(n: int) -> int:
    if n > 9:
        return -1
    return n


def open_b(n: int) -> int:
    if n > 9:
        return -1
    return n + 1


def test_a_guard_that_lets_nothing_through_is_a_problem():
    problem = witness.pair_problem(shut, shut, [(1,)])
    assert problem and "domain guard" in problem  # both sides agree on everything, vacuously
    assert witness.pair_problem(open_a, open_a, [(1,)]) is None
    assert witness.pair_problem(twins.model_cut, twins.harness_cut, [("x" * 99, 3)])  # outside the guard
    assert witness.pair_problem(open_a, open_b, [(1,)])  # inside, but the answers differ


def test_a_diffbehavior_run_without_a_count_or_with_a_difference_fails():
    for output in ("No differences found.", "Given: (text='\\x80', bytes_max=1),\n  differ"):
        confirmed.FINISHED["cut_matches_production"] = (0, output, 1.0, 1.0)
        try:
            assert not confirmed.diff_law("cut_matches_production", "cut").passed
        finally:
            del confirmed.FINISHED["cut_matches_production"]


def test_a_diffbehavior_run_is_labelled_with_its_own_iterations_and_seconds():
    confirmed.FINISHED["cut_matches_production"] = (0, "No differences found. (attempted 211 iterations)\n", 13.3, 9.0)
    try:
        verdict = confirmed.diff_law("cut_matches_production", "cut")
    finally:
        del confirmed.FINISHED["cut_matches_production"]
    assert verdict.passed and verdict.strength == "Searched (CrossHair diffbehavior): 211 iterations"
    assert verdict.seconds == 13.3 and "13.3 s wall, 9.0 s CPU" in verdict.detail


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


@pytest.mark.parametrize("text, bytes_max, expected", [
    ("", 0, ""), ("a", 0, ""), ("é", 1, ""), ("aé", 2, "a"), ("aé", 3, "aé"), ("€", 2, ""), ("€€", 5, "€"),
    ("😀", 3, ""), ("😀a", 4, "😀"), ("a😀", 4, "a"), ("\U0010ffff", 4, "\U0010ffff"), ("\x80", 1, ""),
])
def test_the_cut_definition_agrees_with_hand_counted_bytes(text, bytes_max, expected):
    assert confirmed.longest_whole_prefix(text, bytes_max) == expected


def test_the_cut_cases_are_counted_as_registered():
    assert sum(1 for _ in confirmed.cut_cases()) == confirmed.CUT_CASES


def test_a_cut_that_splits_a_character_fails_the_cut_law(monkeypatch):
    monkeypatch.setattr(confirmed.production_line, "cut",
                        lambda text, bytes_max: text.encode("utf-8")[:bytes_max].decode("utf-8", "replace"))
    verdict = confirmed.cut_keeps_whole_characters(None)
    assert not verdict.passed and "harness/memory/line.py" in verdict.detail
