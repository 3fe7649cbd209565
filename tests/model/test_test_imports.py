"""Strategy: no test file imports another test file; what tests share lives in tests/support/
(tests/README.md). An AST walk of every Python file under tests/ finds `import tests.ROOM.test_x`,
`from tests.ROOM.test_x import …`, `from tests.ROOM import test_x` and relative imports of a
`test_` module, and code handed to a child process as a string (`python -c "from tests.…"`).
Each violation is one sentence naming the file, the line and the module. The rule is run on
planted sources first, so a clean tree is a tree the walk could have faulted.
"""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"

TEST_MODULE = re.compile(r"^tests\.\w+\.test_\w+$|^tests\.test_\w+$")
IN_A_STRING = re.compile(r"\b(?:from|import)\s+(tests(?:\.\w+)*\.test_\w+)")


def string_text(node: ast.expr) -> str:
    """A string's text; an f-string's with each replacement field read as 0."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else ""
    return "".join(part.value if isinstance(part, ast.Constant) else "0" for part in node.values)


def imported_test_modules(source: str) -> list[tuple[int, str]]:
    """(line, module) for each test module the source imports, or hands a child to import."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if TEST_MODULE.match(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:  # a relative import reaches a neighbour by its file name
                named = [module] if module.split(".")[-1].startswith("test_") else []
                named += [alias.name for alias in node.names if not module and alias.name.startswith("test_")]
                found += [(node.lineno, "." * node.level + name) for name in named]
            elif TEST_MODULE.match(module):
                found.append((node.lineno, module))
            elif module.startswith("tests"):
                found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names
                          if TEST_MODULE.match(f"{module}.{alias.name}")]
        elif isinstance(node, ast.Constant | ast.JoinedStr):
            code = string_text(node)
            if IN_A_STRING.search(code):
                try:  # code a child runs; prose that names an import does not parse
                    found += [(node.lineno, name) for _, name in imported_test_modules(code)]
                except SyntaxError:
                    pass
    return sorted(found)


def violations() -> list[str]:
    said = []
    for path in sorted(TESTS.rglob("*.py")):
        where = path.relative_to(ROOT)
        for line, module in imported_test_modules(path.read_text()):
            said.append(f"{where}:{line} imports the test file {module}: move what it needs to tests/support/.")
    return said


def test_a_planted_import_of_a_test_file_is_found_in_each_of_its_shapes():
    # written with TEST for test, so this file imports nothing it plants
    planted = "\n".join([
        "import tests.chat.TEST_cli",
        "from tests.calls.TEST_agents import until",
        "from tests.chat import TEST_cli",
        "from .TEST_turn import make_turn",
        "from . import TEST_turn",
        "code = 'from tests.bench.TEST_bench import million_report'",
        "code = f'import json; from tests.bench.TEST_bench import report; print(report({n}))'",
        "from tests.support.chat import ever",
        "from tests.support import chat",
        "import tests.support.terminal",
        "from harness.calls.turn import test_mode",
        "text = 'a docstring that says: from tests.chat.TEST_cli import ever, as prose'",
    ]).replace("TEST", "test")
    assert imported_test_modules(planted) == [
        (1, "tests.chat.test_cli"), (2, "tests.calls.test_agents"), (3, "tests.chat.test_cli"),
        (4, ".test_turn"), (5, ".test_turn"), (6, "tests.bench.test_bench"), (7, "tests.bench.test_bench")]


def test_no_test_file_imports_another():
    assert len(list(TESTS.rglob("test_*.py"))) > 50  # the walk found the suite
    found = violations()
    assert not found, "\n".join(found)
