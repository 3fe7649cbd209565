"""Strategy: a Z3 proof is worth something only if a wrong encoding would not prove. So each step
proof of laws/universal.py is asked again with a planted break (the parent's index not halved, an
odd pair taken for siblings, the parent unbuilt, a gap in the tiling, the due measured from the
first message) and must come back not-`unsat`; each bounded twin (the same steps on every small
concrete view) must find the break's counterexample and none without it; and the Z3 terms must
compute the model's own next view on the transitions of a real run.
"""

import pytest
import z3

from laws import z3_view as zv
from laws.universal import RUNS, TINY, node_lemmas, step_proofs
from laws.z3_core import POW2, Sym, prove
from laws.z3_push import bijective_digits, digit_view, digits_agree, lemmas
from laws.z3_runs import replay, transitions
from model.view import more_due, more_due_from_first


def merge_answer(broken_step: str = "", broken_claim: str = "", broken_siblings: str = ""):
    v = zv.fresh("")
    T, k = z3.Int("T"), z3.Int("k")
    assumed = [zv.tiles(v, T), zv.siblings(v, k, broken_siblings)] + zv.halves_facts(v.L[k], v.I[k])
    return prove(zv.tiles(zv.merge(v, k, broken_step), T, broken_claim), assumed, timeout_ms=5_000)


def test_the_merge_step_proves():
    assert merge_answer().proved


@pytest.mark.parametrize("broken", [
    {"broken_step": "index"},
    {"broken_siblings": "odd"},
    {"broken_claim": "gap"},
])
def test_a_broken_merge_encoding_does_not_prove(broken):
    assert not merge_answer(**broken).proved


def test_a_merge_into_an_unbuilt_parent_does_not_keep_the_summaries():
    v = zv.fresh("")
    k = z3.Int("k")
    answer = prove(zv.summarized(zv.merge(v, k, "unbuilt")), [zv.summarized(v), zv.siblings(v, k)], 5_000)
    assert not answer.proved


def test_every_step_and_node_lemma_proves():
    for name, answer, witnessed in node_lemmas() + step_proofs("tiles") + step_proofs("summarized"):
        assert answer.proved, name
        assert witnessed, name


@pytest.mark.parametrize("broken", ["index", "odd", "unbuilt", "gap"])
def test_the_bounded_twin_finds_each_break(broken):
    assert zv.twin_counterexample(8, 3, broken) is not None


def test_the_bounded_twin_finds_nothing_without_a_break():
    assert zv.twin_counterexample(8, 3) is None


def test_the_due_from_first_is_not_the_rational_order():
    la, ia, lb, ib, T = z3.Ints("la ia lb ib T")
    domain = [la >= 0, lb >= 0, ia >= 0, ib >= 0, T >= 0, POW2(la) >= 1, POW2(lb) >= 1]
    pa, pb = POW2(la), POW2(lb)
    rational = (z3.ToReal(T - ((ia + 2) * pa - 1)) / z3.ToReal(pa)
                > z3.ToReal(T - ((ib + 2) * pb - 1)) / z3.ToReal(pb))
    right = more_due(Sym(la), Sym(ia), Sym(lb), Sym(ib), Sym(T))
    wrong = more_due_from_first(Sym(la), Sym(ia), Sym(lb), Sym(ib), Sym(T))
    assert prove(right == rational, domain).proved
    assert not prove(wrong == rational, domain, timeout_ms=5_000).proved


def test_push_lemma_l4_fails_for_due_from_first():
    found = {name: answer for name, _, answer, _ in lemmas(more_due_from_first)}
    assert not found["L4"].proved
    assert all(answer.proved for name, _, answer, _ in lemmas())


def test_the_digit_view_matches_the_gist_at_t9():
    # [gist §3.1] t = 9: states 8, 4, 0 are the lines 8+2, 4+4, 0+4
    assert digit_view(bijective_digits(10)) == ((0, 4), (4, 4), (8, 2))


def test_the_digits_agree_with_push_and_the_fold():
    ok, detail = digits_agree(2_000)
    assert ok, detail


def test_the_z3_terms_compute_the_models_next_view():
    known = tuple(transitions(80, 5, TINY, prompt=True))
    for which in ("view", "cview"):
        tally = replay([(80, 5)], which, 1, known)
        assert tally.problem == ""
        assert tally.merges > 20
        assert tally.z3_steps > 100


def test_the_replay_notices_a_wrong_next_view():
    before, event, after = next((b, e, a) for b, e, a in transitions(*RUNS[0]) if a.merges)
    tally = replay([(1, 0)], "view", 1, ((before, event, after),))
    assert tally.problem == ""
    from dataclasses import replace
    wrong = replace(after, view=after.view[1:])
    tally = replay([(1, 0)], "view", 1, ((before, event, wrong),))
    assert tally.problem != ""


def test_sym_refuses_what_the_encoding_does_not_define():
    with pytest.raises(TypeError):
        Sym(z3.Int("x")) + 1.5
