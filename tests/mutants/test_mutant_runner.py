"""Strategy: the mutant runner may count a mutant as caught only when its check failed for its own
reason. Each wrong "catch" is planted for real in a copy of the tree and must be rejected: a
mutant that makes a SyntaxError, one that makes an import error, an unchanged check against a
misspelled law name, a law that crashes; and a real bug caught by its law is accepted. The
readings of pytest's and the bridge's outputs are checked on the outputs they print.
"""

from pathlib import Path

import pytest

from laws.registry import laws
from mutants import __main__ as runner
from mutants.base import Mutant
from mutants.judge import how_caught, judge, malformed

VIEW = "model/view.py"
TIE = ("python", "-m", "laws", "--only", "tie_at_11")
TIE_RETURN = "return (T - last_a) << lb > (T - last_b) << la"
KNOWN = [law.name for law in laws()]


def run(mutant: Mutant):
    caught, why, _ = runner.run_one(mutant, 120, KNOWN)
    return caught, why


def test_a_real_bug_caught_by_its_law_counts():
    caught, why = run(Mutant("ties_to_newer", VIEW, TIE_RETURN, TIE_RETURN.replace(" > ", " >= "), TIE, "newer wins"))
    assert caught, why


def test_a_syntax_error_is_not_a_catch():
    caught, why = run(Mutant("syntax", VIEW, TIE_RETURN, TIE_RETURN + " +", TIE, "a syntax error"))
    assert not caught and "did not run" in why and "SyntaxError" in why


def test_a_mutant_whose_text_is_gone_is_not_run_and_not_a_catch():
    caught, why = run(Mutant("gone", VIEW, "no line of the model reads like this", "", TIE, "an anchor moved away"))
    assert not caught and why == f"not run: its text occurs 0 times in {VIEW}, not once"


def test_an_import_error_is_not_a_catch():
    mutant = Mutant("imports", VIEW, "from dataclasses import dataclass\n",
                    "from dataclasses import dataclass\nimport no_such_module_anywhere\n", TIE, "an import error")
    caught, why = run(mutant)
    assert not caught and "did not run" in why and "ModuleNotFoundError" in why


def test_an_unchanged_tree_checked_against_a_misspelled_law_is_not_a_catch():
    mutant = Mutant("misspelled", VIEW, TIE_RETURN, TIE_RETURN + "  # unchanged",
                    ("python", "-m", "laws", "--only", "tie_at_1l"), "a misspelled law name")
    caught, why = run(mutant)
    assert not caught and "no such law: tie_at_1l" in why
    unchanged = Mutant("unchanged", VIEW, TIE_RETURN, TIE_RETURN, TIE, "no change")
    assert malformed(unchanged, KNOWN) == "its replacement changes nothing"


def test_a_law_that_crashes_is_not_a_catch():
    mutant = Mutant("crash", VIEW, TIE_RETURN, "return undefined_name", TIE, "the model raises NameError")
    caught, why = run(mutant)
    assert not caught and "crashed" in why and "NameError" in why


LINT_PASS = "subset_lint                  Exact: an AST walk of model/ and harness/                  pass     0.04s\n"
LINT_FAIL = LINT_PASS.replace(" pass ", " FAIL ")
TIE_FAIL = "tie_at_11                    none                                                       FAIL     0.00s\n"


def test_a_crash_or_a_missing_line_read_from_the_laws_output_is_not_a_catch():
    mutant = Mutant("crash", VIEW, "x", "y", TIE, "the model raises")
    crash = TIE_FAIL.replace(" FAIL ", " CRASH").rstrip("\n") + "  crashed: NameError: name 'x' is not defined\n"
    assert not judge(mutant, 1, LINT_PASS + crash)[0]
    assert not judge(mutant, 1, LINT_PASS)[0]
    assert not judge(mutant, 1, "Traceback (most recent call last):\nSyntaxError: invalid syntax\n")[0]


def test_a_catch_by_z3s_unknown_is_told_apart_from_a_counterexample():
    mutant = Mutant("m", VIEW, "x", "y", TIE, "a bug")
    unknown = TIE_FAIL.rstrip("\n") + "  tie_at_11: Z3 said unknown (its resource limit reached)\n"
    sat = TIE_FAIL.rstrip("\n") + "  tie_at_11: Z3 said sat ([T = 11])\n"
    short = TIE_FAIL.rstrip("\n") + "  below the registry: 9 is below the registry's minimum 10\n"
    assert judge(mutant, 1, LINT_PASS + unknown)[0] and how_caught(mutant, LINT_PASS + unknown) == "unknown"
    assert judge(mutant, 1, LINT_PASS + sat)[0] and how_caught(mutant, LINT_PASS + sat) == "counterexample"
    assert how_caught(mutant, LINT_PASS + short) == "shortfall"
    case = TIE_FAIL.rstrip("\n") + "  T=11: the newer pair merged\n"
    assert how_caught(mutant, LINT_PASS + case) == "counterexample"
    assert how_caught(Mutant("m", VIEW, "x", "y", PYTEST, "a bug"), "") == "test"


def test_a_misspelled_or_missing_law_name_is_malformed():
    assert malformed(Mutant("m", VIEW, "x", "y", ("python", "-m", "laws", "--only", "tie_at_1l"), ""), KNOWN)
    assert malformed(Mutant("m", VIEW, "x", "y", ("python", "-m", "laws"), ""), KNOWN)
    assert malformed(Mutant("m", VIEW, "x", "y", TIE, ""), KNOWN) is None


def test_a_law_that_fails_after_a_failed_lint_is_not_a_catch_unless_the_lint_is_the_check():
    mutant = Mutant("random", VIEW, "x", "y", TIE, "imports random")
    assert not judge(mutant, 1, LINT_FAIL + TIE_FAIL)[0]
    assert judge(mutant, 1, LINT_PASS + TIE_FAIL)[0]
    lint_mutant = Mutant("random", VIEW, "x", "y", TIE, "imports random", lint=True)
    assert judge(lint_mutant, 1, LINT_FAIL)[0]
    assert not judge(lint_mutant, 0, LINT_PASS)[0]


PYTEST = ("python", "-m", "pytest", "-q", "tests/model/test_subset.py::test_x")


def test_a_pytest_check_counts_only_an_assertion_in_the_named_test():
    mutant = Mutant("layering", VIEW, "x", "y", PYTEST, "imports the model")
    assert judge(mutant, 1, "", "tests/model/test_subset.py::test_x\tcall\tAssertionError\n")[0]
    assert not judge(mutant, 1, "", "tests/model/test_subset.py::test_x\tcall\tNameError\n")[0]
    assert not judge(mutant, 1, "", "tests/model/test_subset.py::test_x\tsetup\tAssertionError\n")[0]
    assert not judge(mutant, 1, "", "tests/model/test_subset.py::test_y\tcall\tAssertionError\n")[0]
    assert not judge(mutant, 2, "ERROR collecting tests/model/test_subset.py", "")[0]
    assert not judge(mutant, 4, "ERROR: not found: tests/model/test_subset.py::test_x", "")[0]


BRIDGE = ("python", "-m", "bridge", "--scale", "tiny")
DIFFERENCE = ("DIFFERENCE in scenario late, seed 3, scale tiny, at event 12\n"
              "    e\t11\tmessage\n"
              "  model:   v\t12\t0+8 8+4\n"
              "  harness: {}\n"
              "bridge tiny: 9 runs, 900 events compared, largest T 120, 1.0s: DIFFER in 1 runs\n")


def test_a_bridge_check_counts_a_trace_difference_but_not_a_crash():
    mutant = Mutant("planner", VIEW, "x", "y", BRIDGE, "a planner bug")
    assert judge(mutant, 1, DIFFERENCE.format("v\t12\t0+8 8+2 10+2"))[0]
    assert not judge(mutant, 1, DIFFERENCE.format("error\tNameError: name 'x' is not defined"))[0]
    assert not judge(mutant, 1, "Traceback (most recent call last):\nSyntaxError: invalid syntax\n")[0]
    assert not judge(mutant, 0, "bridge tiny: 9 runs, 900 events compared, largest T 120, 1.0s: agree\n")[0]


def test_every_mutant_names_a_check_that_exists():
    for mutant in runner.all_mutants():
        assert malformed(mutant, KNOWN) is None, mutant.name


def test_every_mutant_plants_its_text_exactly_once_in_the_tree_as_it_is():
    """A mutant whose text moved with its code is "not run" in `make mutants`, an hour later:
    each commit's `make test` says so at once instead."""
    root = Path(__file__).resolve().parents[2]
    astray = []
    for mutant in runner.all_mutants():
        count = (root / mutant.path).read_text().count(mutant.old)
        if count != 1:
            astray.append(f"{mutant.name}: {count} times in {mutant.path}")
    assert not astray, astray


def test_a_missing_mutant_module_fails_loudly():
    import subprocess
    import sys

    code = "import sys; sys.modules['mutants.bridge_mutants'] = None; import mutants.__main__"
    result = subprocess.run([sys.executable, "-c", code], cwd=runner.ROOT, capture_output=True, text=True)
    assert result.returncode != 0 and "mutants.bridge_mutants" in result.stderr


@pytest.mark.parametrize("flag", ["--help"])
def test_the_help_ends_its_sentence(flag, capsys, monkeypatch):
    import sys

    monkeypatch.setattr(sys, "argv", ["python -m mutants", flag])
    with pytest.raises(SystemExit):
        runner.main()
    description = capsys.readouterr().out.split("\n\n")[1]
    assert description.rstrip().endswith(".")
