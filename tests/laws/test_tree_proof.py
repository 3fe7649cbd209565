"""Strategy: the tree's law is a proof on model/tree.py's own code (laws/z3_tree.py). Its label
ranks as Proved with every trusted part named; the proof fails on a lookup that goes wrong only
past 2^17, which the exhaustive cross-check (every i < 2^16) passes; and a trie term refuses to be
a Python bool outside the exploration of a law, as every term does."""

import pytest
import z3

import model.tree as tree_module
from laws import z3_model as zm
from laws.core import kind
from laws.registry import laws
from laws.restarts import tree_exhaustive
from laws.z3_tree import tree_proofs


def test_the_tree_law_ranks_as_proved_and_names_what_it_trusts():
    law = next(law for law in laws() if law.name == "tree_lookup_gives_what_was_put")
    assert kind(law.strength) == "Proved (Z3)" and law.engine == "z3"
    for part in ("the integer encoding", "twins_agree", "recursion rules", "induction on i"):
        assert part in law.strength


@pytest.mark.slow
def test_a_lookup_that_wraps_past_2_17_fails_the_proof_and_passes_the_bound(monkeypatch):
    proved, problem, _, _ = tree_proofs()
    assert proved, problem

    def wraps(tree, l, i):
        # the model's own tree_get, but for an index taken modulo 2^17
        if l >= tree_module.length(tree.levels):
            return None
        return tree_module.trie_get(tree_module.item(tree.levels, l), i & 0x1FFFF)

    monkeypatch.setattr(tree_module, "tree_get", wraps)
    import laws.restarts as restarts
    import laws.z3_tree as z3_tree
    monkeypatch.setattr(restarts, "tree_get", wraps)
    monkeypatch.setattr(z3_tree, "tree_get", wraps)
    assert tree_exhaustive()[0]
    proved, problem, _, _ = tree_proofs()
    assert not proved and "Z3 said sat" in problem


def test_a_trie_term_is_no_python_bool_outside_a_laws_exploration():
    trie = zm.SymTrie(z3.Const("t", zm.TRIE))
    with pytest.raises(TypeError):
        bool(trie)
    with pytest.raises(TypeError):
        len(trie)
