"""Strategy: push_agrees_always's fold step is proved on the model's own fold_step (laws/z3_fold.py);
a proof is worth something only if a wrong fold would not prove. So the right code must prove,
each kind of wrong fold is planted here (a budget one too big, due measured from the first
message, a parent line that costs more at high levels, a lemma's fact left out) and must fail,
and the law's label must rank as a proof only because no link of it is bounded.
"""

import pytest
import z3

import model.base as base
from laws import universal
from laws import z3_fold as zf
from laws.core import Budget, kind
from laws.z3_core import prove
from model.push import every_parent_built, fold_step, unit_line
from model.view import Line, Parents, fit, more_due_from_first


@pytest.mark.slow
def test_a_fold_with_a_budget_one_too_big_is_not_proved():
    def one_more(view, T, budget_lines, due_from_first):
        return fold_step(view, T, budget_lines + 1, due_from_first)

    ok, problem, _, _ = zf.fold_proofs(one_more)
    assert not ok
    assert "carry's merge" in problem and "sat" in problem


def test_the_scan_with_due_from_first_is_not_proved():
    ok, problem, _, _ = zf.fold_proofs(more_due_fn=more_due_from_first)
    assert not ok
    assert "L4 due 1 wins" in problem


@pytest.mark.slow
def test_a_parent_line_that_costs_more_at_high_levels_is_not_proved():
    def line(l, i):
        return Line(l, i, "", True, 1 + ((l + 1) >> 4))

    costly = Parents(every_parent_built, line)

    def fold(view, T, budget_lines, due_from_first):
        grown = base.appended(view, unit_line(0, T - 1))
        fitted, _ = fit(grown, T, budget_lines, costly, due_from_first)
        return fitted

    assert fold((), 1, 1, False) == fold_step((), 1, 1, False)  # the same fold on Python values
    ok, _, _, _ = zf.fold_proofs(fold)
    assert not ok


def test_the_digit_view_lemmas_need_the_digit_views_facts():
    # Good's step without the lines being joined: the messages after a line are unknown
    V, m, N, Z, p = zf.zv.fresh_view("D"), z3.Int("m"), z3.Int("N"), z3.Int("Z"), z3.Int("p")
    facts = [part for part in zf.parts(V, m, N, Z)[:10] if part[0] != "each line ends where the next starts"]
    step = z3.Implies(z3.And(0 <= p, p + 1 < m, zf.good_in(V, m, N, Z, p + 1)), zf.good_in(V, m, N, Z, p))
    assert not prove(step, zf.ground(facts, (p, p + 1)) + [V.n == m]).proved
    assert all(answer.proved and witnessed for _, _, answer, witnessed in zf.view_lemmas())


def test_good_needs_pow2_at_zero():
    V, m, N, Z = zf.zv.fresh_view("D"), z3.Int("m"), z3.Int("N"), z3.Int("Z")
    facts = zf.parts(V, m, N, Z)[:10]
    base_case = zf.good_in(V, m, N, Z, m - 1)
    assert prove(base_case, zf.ground(facts, (m - 1,)) + [V.n == m]).proved
    # pow2 an unknown function without pow2(0) = 1: the newest line's bound no longer follows
    without = [part for part in facts if part[0] != "pow2(0) = 1"]
    assert not prove(base_case, zf.ground(without, (m - 1,)) + [V.n == m]).proved


@pytest.mark.slow
def test_push_agrees_always_ranks_as_a_proof_with_no_bounded_link():
    verdict = universal.push_agrees_always(Budget(t=200))
    assert verdict.passed, verdict.detail
    assert int(verdict.detail.split(" Z3 queries")[0]) >= 70  # push's and the fold's, every one unsat
    assert kind(verdict.strength) == "Proved (Z3)"
    # the claim's own links: none bounded or searched (the trusted part names how its tools are checked)
    claim = verdict.strength.split("; trusted: ")[0]
    assert "Bounded" not in claim and "Searched" not in claim
    for trusted in ("the integer encoding", "2 loop rules", "twins_agree", "inductions over t"):
        assert trusted in verdict.strength
