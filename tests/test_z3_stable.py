"""Strategy: a Z3 verdict must not depend on the machine's speed. Every query runs with a fixed
seed and a limit on Z3's own count of work, never a time limit; so a query past its limit says
`unknown` on every run, and the laws' queries stay well inside it."""

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


def test_the_laws_queries_stay_far_inside_the_limit_and_give_the_same_verdicts_twice():
    chosen = [law for law in laws() if law.name in ("fit_reaches_budget", "view_summarized", "most_due_is_the_choice")]
    assert len(chosen) >= 2
    verdicts = []
    for _ in range(2):
        start = len(z3_core.USED)
        verdicts.append([(law.check(Budget()).passed) for law in chosen])
        used = z3_core.USED[start:]
        assert used and max(used) * 4 < z3_core.RLIMIT
    assert verdicts[0] == verdicts[1] == [True] * len(chosen)
