"""Strategy: the model's subset and the layering are lints; run them on the real tree (no
violation) and on planted violations (each one said), so the lint is seen to fail."""

from pathlib import Path

from laws.subset import all_violations, subset_violations


def test_the_model_keeps_to_its_subset_and_harness_never_imports_it():
    assert all_violations() == []


def test_each_kind_of_violation_is_said_once(tmp_path: Path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import os\n"
        "from random import choice\n"
        "x = [1]\n"
        "y = 1.5\n"
        "z = a / b\n"
        "w = 2 ** 3\n"
        "s.a = 1\n"
        "t[0] = 1\n"
        "u.append(1)\n"
        "print(1)\n"
        "def f():\n    global q\n"
        "v = {k: 1 for k in r}\n"
        "n = time.time()\n"
    )
    said = subset_violations(probe)
    lines = sorted(int(sentence.split(":")[1]) for sentence in said)
    assert lines == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14]


def test_a_type_spelled_with_brackets_is_not_a_list(tmp_path: Path):
    probe = tmp_path / "probe.py"
    probe.write_text("from typing import Callable\nF = Callable[[int, int], int]\n")
    assert subset_violations(probe) == []
