"""Strategy: each trusted part of the prover refuses its canaries (known-false claims, laws/canaries.py);
the same machinery proves a true claim of the same shape, so a refusal is the claim's falsity and
not a broken harness; and each rule of laws/z3_model.py made unsound as its mutant makes it
(mutants/law_mutants.py RULE_MUTANTS, applied here to the one function it edits) lets a canary
through, so the canaries are seen to fail.
"""

import inspect

import pytest
import z3

from laws import canaries
from laws import z3_model as zm
from laws.core import Budget
from laws.z3_core import Sym, SymBool
from mutants.law_mutants import RULE_MUTANTS


@pytest.mark.parametrize("law", canaries.LAWS, ids=lambda law: law.name)
def test_every_trusted_part_refuses_its_canaries(law):
    verdict = law.check(Budget())
    assert verdict.passed, verdict.detail
    assert verdict.strength == law.strength
    assert verdict.detail.startswith("refused as it must be: ")
    assert "PROVED" not in verdict.detail


def test_the_same_rules_prove_true_claims_of_the_canaries_shapes():
    def proved(run):
        ok, problem = run()
        assert ok, problem

    # fold(n, 0, +1) is n for n ≥ 1
    proved(lambda: canaries.fold_with(0, canaries._plus_one, lambda n: n >= 1))
    # repeat(v < n, +1) from 0 ends at n for n ≥ 0
    proved(lambda: canaries.repeat_with(1, lambda n, v: v <= n, lambda n, v: v == n))
    # the last line, a pair ending at it and the whole are inside the sequence
    def last_line(proof):
        view = zm.ZSeq.fresh(zm.LINE, "true")
        proof.assume(view.n >= 2)
        zm.item(view, Sym(view.n) - 1)
        zm.pair_replaced(view, Sym(view.n) - 2, canaries.LINE)
        zm.prefix(view, Sym(view.n))

    proved(lambda: canaries.law_run("true", {}, last_line))
    proved(lambda: canaries.integer_claim(lambda proof, x, c: proof.check("x & 3 ≤ 3", SymBool.lift((x & 3) <= 3))))

    def shift(proof):
        x, c = Sym(z3.Int("x")), z3.Int("c")
        proof.assume(c >= 0)
        proof.check("x << c runs", SymBool.lift((x << Sym(c)) == (x << Sym(c))))

    proved(lambda: canaries.law_run("true", {}, shift))

    def same_count(proof):
        n = z3.Int("n")
        proof.assume(n >= 1)
        first = zm.fold(Sym(n), 0, canaries._plus_one)
        second = zm.fold(Sym(n), 0, canaries._plus_one)
        proof.check("equal", Sym.lift(first) == Sym.lift(second))

    proved(lambda: canaries.law_run("true", {canaries._plus_one.__qualname__: zm.Loop(canaries.counted)}, same_count))


def mutated_function(mutant):
    """The one function of laws/z3_model.py the mutant edits, with its edit, in a copy of the
    module's namespace; None when the edit is elsewhere."""
    for name, function in vars(zm).items():
        if inspect.isfunction(function) and function.__module__ == zm.__name__:
            source = inspect.getsource(function)
            if source.count(mutant.old) == 1:
                namespace = dict(vars(zm))
                exec(compile(source.replace(mutant.old, mutant.new), zm.__file__, "exec"), namespace)  # noqa: S102
                return name, namespace[name]
    return None


# the rule mutants that edit one module-level function of laws/z3_model.py (the others edit a
# method or laws/z3_core.py: `make mutants` runs those)
RULES = [mutant for mutant in RULE_MUTANTS if mutant.path == "laws/z3_model.py" and mutated_function(mutant)]


def test_the_fold_and_repeat_rules_twins_explore_and_cache_are_each_made_unsound_here():
    assert {"fold_assumes_invariant_for_any_count", "fold_skips_its_start", "fold_skips_its_step",
            "repeat_skips_its_start", "repeat_skips_its_step", "repeat_variant_need_not_drop",
            "item_twin_allows_the_length", "explore_needs_no_witness",
            "fold_cache_ignores_the_count", "fold_cache_ignores_the_start", "fold_cache_ignores_the_body",
            "mapped_twin_drops_its_obligations"} <= {mutant.name for mutant in RULES}


def aims():
    return {part: claim for _, _, found in canaries.PARTS for claim, _, parts in found for part in parts}


def test_every_trusted_part_listed_from_the_prover_s_code_has_a_canary():
    parts = canaries.trusted_parts()
    # the list is read from the code: every twin swapped in, both loop rules and each input of their
    # cache keys, the encoding's own meanings (a hand list would miss a part added later)
    assert {"twin mapped", "twin appended", "twin replaced", "twin padded", "twin choose", "twin length",
            "fold's cache: start", "fold's cache: body", "fold's cache: count", "rule fold", "rule repeat",
            "encoding Sym.shifted", "explore's paths"} <= set(parts)
    missing = [part for part in parts if part not in aims()]
    assert not missing, f"trusted parts with no canary in laws/canaries.py: {missing}"
    stale = [part for part in aims() if part not in parts]
    assert not stale, f"canaries aimed at no trusted part: {stale}"


def test_a_trusted_part_added_to_the_code_without_a_canary_is_listed_as_missing(monkeypatch):
    monkeypatch.setattr(zm, "TRUSTED_FACTS", zm.TRUSTED_FACTS + ("a_line_is_at_most_512_bytes",))
    monkeypatch.setattr(zm, "TWINS", {**zm.TWINS, "reversed": lambda items: items})
    missing = [part for part in canaries.trusted_parts() if part not in aims()]
    assert missing == ["twin reversed", "rule a_line_is_at_most_512_bytes"]


def test_each_part_s_twin_made_unsound_lets_one_of_its_own_canaries_through():
    # every trusted part of laws/z3_model.py has a mutant here, and the canary proved is one aimed at it
    edited = {mutant.name for mutant in RULES}
    for name in ("mapped_twin_drops_its_obligations", "appended_twin_keeps_the_length", "replaced_twin_one_after",
                 "padded_twin_cuts", "length_twin_one_more", "choose_twin_takes_its_first",
                 "repeat_cache_ignores_the_guard", "repeat_cache_ignores_the_body", "repeat_cache_ignores_the_state"):
        assert name in edited


@pytest.mark.parametrize("mutant", RULES, ids=lambda mutant: mutant.name)
def test_each_rule_made_unsound_lets_a_canary_through(monkeypatch, mutant):
    name, function = mutated_function(mutant)
    monkeypatch.setattr(zm, name, function)
    law = next(law for law in canaries.LAWS if law.name == mutant.check[-1])
    verdict = law.check(Budget())
    assert not verdict.passed
    assert "PROVED, a known-false claim" in verdict.detail
