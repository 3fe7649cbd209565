"""Strategy: a Z3 verdict must not depend on the machine's speed. Every query runs with a fixed
seed and a limit on Z3's own count of work, never a time limit; so a query past its limit says
`unknown` on every run, and the laws' queries stay well inside it."""

import subprocess
import sys
from pathlib import Path

import pytest
import z3

from laws import z3_core
from laws.core import Budget
from laws.registry import laws


def test_a_query_past_its_resource_limit_is_unknown_every_time():
    x, y, z = z3.Ints("x y z")
    # Fermat for cubes over small positive integers: hard for Z3's nonlinear arithmetic
    claim = z3.Not(z3.And(x > 0, y > 0, z > 0, x * x * x + y * y * y == z * z * z))
    answers = [z3_core.prove(claim, [], rlimit=20_000).status for _ in range(3)]
    assert answers == ["unknown"] * 3


def test_a_solver_is_seeded_and_has_no_time_limit():
    import inspect

    source = inspect.getsource(z3_core.solver)
    assert '"random_seed", SEED' in source and '"rlimit", rlimit' in source and "timeout" not in source
    answer = z3_core.prove(z3.Int("a") + 1 > z3.Int("a"))
    assert answer.proved and 0 < answer.used < z3_core.RLIMIT


@pytest.mark.slow
def test_the_laws_queries_stay_far_inside_the_limit_and_give_the_same_verdicts_twice():
    chosen = [law for law in laws() if law.name in ("fit_reaches_budget", "due_is_transitive", "most_due_is_the_choice")]
    assert len(chosen) >= 2
    verdicts = []
    for _ in range(2):
        start = len(z3_core.USED)
        verdicts.append([(law.check(Budget()).passed) for law in chosen])
        used = z3_core.USED[start:]
        assert used and max(used) * 4 < z3_core.RLIMIT
    assert verdicts[0] == verdicts[1] == [True] * len(chosen)


def test_a_querys_verdict_and_work_are_its_own_whatever_ran_before():
    """Each query runs in a context of its own (z3_core.in_fresh_context): in one shared context
    Z3's work on a query depends on the queries before it, so a verdict near a hard spot could
    change with the laws that ran first. Here the same query, first and after others, costs the
    same work to the unit."""
    a, b, c = z3.Ints("a b c")
    claim = z3.Implies(z3.And(a > 0, b > a, c > b, a * b * c < 1000), a * a < 1000)
    first = z3_core.prove(claim)
    for k in range(6):
        z3_core.prove(z3.Implies(a * a + b * b == c * c + k, a + b + c != -k - 1))
        z3_core.satisfiable([a * b == c + k, a > k])
    again = z3_core.prove(claim)
    assert first.proved and again.proved
    assert first.used == again.used > 0



ROOT = Path(__file__).resolve().parents[2]


def in_a_fresh_process(code: str) -> str:
    """What `code` prints, run in a Python of its own: the counts of names made so far start at 0."""
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_a_text_literal_is_the_same_term_whatever_literals_were_made_before():
    """A query's terms are named by what they stand for, not by how many were made before: one
    literal more made by an earlier law (a canary's, say) must not rename a later law's texts."""
    shown = ("from laws import z3_model as zm; import model.view as v; "
             "print(zm.literal(v.PLACEHOLDER).sexpr(), zm.literal('').sexpr())")
    alone = in_a_fresh_process(shown)
    after_others = in_a_fresh_process("from laws import z3_model as zm; "
                                      "[zm.literal(f'another text {k}') for k in range(3)]; " + shown)
    assert alone == after_others and alone.strip()


FOLD_STEP_WORK = """
from laws import z3_core, z3_model as zm, z3_fold
for k in range({literals}):
    zm.literal(f"another text {{k}}")
for _ in range({names}):
    zm.fresh_name("before")
start = len(z3_core.USED)
ok, problem, queries, _ = z3_fold.fold_proofs()
print(ok, max(z3_core.USED[start:]), queries, problem)
"""


@pytest.mark.slow
@pytest.mark.parametrize("literals, names", [(0, 0), (3, 100)])
def test_the_fold_steps_queries_stay_far_inside_the_limit_whatever_ran_before(literals, names):
    """push_agrees_always's fold step, alone in a process and after other literals and fresh
    names: every query and witness passes with at most a fifth of the limit. Its case p < Z − 1
    given every fact, and its carry's witness left for Z3 to find, each took from 2.5 million
    units to past the limit as the names changed (docs/trust.md, "Stable verdicts")."""
    ok, used, queries, *problem = in_a_fresh_process(FOLD_STEP_WORK.format(literals=literals, names=names)).split()
    assert ok == "True", " ".join(problem)
    assert int(queries) >= 60
    assert int(used) * 5 < z3_core.RLIMIT, f"a query used {int(used):,} units of {z3_core.RLIMIT:,}"
