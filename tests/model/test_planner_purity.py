"""Strategy: the production planner reads no clock, no file and no randomness (docs/planner.md):
a lint over the AST of harness/memory/planner.py and of every module of harness.memory it imports,
however indirectly; run on the real tree (nothing found) and on a copy with a clock read planted
where the planner restarts (found, and said once)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# What a clock, a file or randomness is reached through; the planner's modules import none of them.
IMPURE_MODULES = frozenset("os sys time random datetime io pathlib subprocess socket threading asyncio shutil "
                           "tempfile sqlite3 secrets uuid".split())


def planner_impurities(root: Path) -> list[str]:
    """What the production planner, and every module of harness.memory it imports however
    indirectly, imports or calls that could read a clock, a file or randomness."""
    from laws.subset import imported_names, parsed

    found: list[str] = []
    todo, seen = ["harness.memory.planner"], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        path = root / (name.replace(".", "/") + ".py")
        tree = parsed(path)
        for lineno, imported in imported_names(tree, "harness.memory"):
            if imported.split(".")[0] in IMPURE_MODULES:
                found.append(f"{name}:{lineno}: imports {imported}")
            if imported.startswith("harness.memory.") and (root / (imported.replace(".", "/") + ".py")).is_file():
                todo.append(imported)
        found.extend(f"{name}:{node.lineno}: calls {node.func.id}()" for node in ast.walk(tree)
                     if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                     and node.func.id in ("open", "input", "print"))
    return sorted(found)


def test_the_production_planner_and_what_it_imports_read_no_clock_no_file_and_no_randomness():
    assert planner_impurities(ROOT) == []


def test_a_clock_read_where_the_planner_restarts_is_found(tmp_path: Path):
    import shutil

    shutil.copytree(ROOT / "harness", tmp_path / "harness", ignore=shutil.ignore_patterns("__pycache__"))
    checkpoint = tmp_path / "harness" / "memory" / "checkpoint.py"
    checkpoint.write_text(checkpoint.read_text() + "\nimport time\n")
    assert [said.split(":")[0] + ": " + said.split(": ")[1] for said in planner_impurities(tmp_path)] == [
        "harness.memory.checkpoint: imports time"]
