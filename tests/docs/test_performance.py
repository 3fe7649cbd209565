"""docs/performance.md is one table, and each of its figures names what measures it: a test or a
bench as `tests/ROOM/test_x.py::test_name`, defined in that file, or a target of the Makefile as
`make target`. A figure whose measurer is renamed or removed fails here, not in a reader's hands.
"""

import ast
import re

from tests.support.readme import ROOT

PAGE = ROOT / "docs" / "performance.md"
TEST_REFERENCE = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")
MAKE_REFERENCE = re.compile(r"`make ([\w-]+)`")


def table_rows(text: str) -> list[list[str]]:
    """The rows of the page's tables, header and rule left out, split into cells."""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows
            if not row.startswith("|---") and not row.startswith("| Figure |")]


def defined(path: str, name: str) -> bool:
    """Whether `name` is a function of the test file at `path` (at its top or in a class)."""
    file = ROOT / path
    if not file.is_file():
        return False
    tree = ast.parse(file.read_text())
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name for node in ast.walk(tree))


def make_targets() -> set[str]:
    return set(re.findall(r"(?m)^([\w-]+):", (ROOT / "Makefile").read_text()))


def unmeasured(text: str) -> list[str]:
    """Each figure naming no measurer, or a measurer that does not exist."""
    wrong = []
    targets = make_targets()
    for cells in table_rows(text):
        measured_by = cells[-1]
        tests = TEST_REFERENCE.findall(measured_by)
        makes = MAKE_REFERENCE.findall(measured_by)
        if not tests and not makes:
            wrong.append(f"{cells[0][:60]}: names no test, bench or make target")
        wrong += [f"{path}::{name} is not defined" for path, name in tests if not defined(path, name)]
        wrong += [f"make {target} is not a target" for target in makes if target not in targets]
    return wrong


def test_the_page_is_one_table_of_figures_with_four_columns():
    text = PAGE.read_text()
    assert text.count("| Figure | Floor | Measured | Measured by |") == 1
    rows = table_rows(text)
    assert len(rows) >= 15
    assert all(len(cells) == 4 for cells in rows), [cells[0] for cells in rows if len(cells) != 4]


def test_every_figure_names_a_test_bench_or_make_target_that_exists():
    assert unmeasured(PAGE.read_text()) == []


def test_a_figure_measured_by_a_renamed_test_is_found():
    page = ("| Figure | Floor | Measured | Measured by |\n|---|---|---|---|\n"
            "| A | < 1 s | 0.5 s | `tests/bench/test_bench.py::test_production_planner_against_the_modle` |\n"
            "| B | report | 2 s | `make brigde` |\n"
            "| C | report | 3 s | by hand |\n"
            "| D | ≥ 50x | 55x | `tests/bench/test_bench.py::test_production_planner_against_the_model` |\n")
    assert unmeasured(page) == [
        "tests/bench/test_bench.py::test_production_planner_against_the_modle is not defined",
        "make brigde is not a target",
        "C: names no test, bench or make target",
    ]


def test_no_figure_narrates_its_history():
    for cells in table_rows(PAGE.read_text()):
        measured = cells[2].lower()
        for phrase in ("before that", "before:", " it was ", " now "):
            assert phrase not in measured, f"{cells[0][:60]}: {phrase!r} (git keeps the history)"
