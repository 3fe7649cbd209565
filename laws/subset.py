"""The model's restricted subset, as a lint (model/__init__.py defines it), and the layering rules.

Strategy: walk the AST of each file and say one sentence per violation, with its place. A
violation is a fact about the source, so this is exact, not a search.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ALLOWED_IMPORTS = ("typing", "dataclasses", "model")
MUTATING_METHODS = frozenset(
    "append extend insert pop remove clear update add discard sort setdefault popitem".split()
)
FORBIDDEN_NAMES = frozenset("open print input eval exec compile __import__ globals vars".split())
FORBIDDEN_MODULES = frozenset("os sys time random datetime io pathlib subprocess socket".split())
# __main__.py only parses arguments and prints: the one file of model/ outside the subset.
OUTSIDE_THE_SUBSET = ("__main__.py",)


def module_root(name: str) -> str:
    return name.split(".")[0]


def subset_violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    found: list[str] = []

    def say(node: ast.AST, sentence: str) -> None:
        found.append(f"{where}:{getattr(node, 'lineno', 0)}: {sentence}")

    # `Callable[[int, int], Line]` spells its parameters as a list: a type, not a value.
    in_types = {
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript)
        for part in ast.walk(node.slice)
        if isinstance(part, ast.List)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if module_root(alias.name) not in ALLOWED_IMPORTS:
                    say(node, f"imports {alias.name}, outside typing, dataclasses and model.")
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and module_root(node.module or "") not in ALLOWED_IMPORTS:
                say(node, f"imports from {node.module}, outside typing, dataclasses and model.")
        elif isinstance(node, ast.Constant) and isinstance(node.value, (float, complex)):
            say(node, f"uses the float {node.value!r}; the model counts in integers.")
        elif isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, (ast.Div, ast.Pow)):
            sign = "/" if isinstance(node.op, ast.Div) else "**"
            say(node, f"uses {sign}; compare by cross-multiplication, and shift for powers of two.")
        elif isinstance(node, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)) \
                and id(node) not in in_types:
            say(node, f"builds a mutable {type(node).__name__}; state is tuples and frozen dataclasses.")
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            say(node, "rebinds a shared name; a step returns a new state instead.")
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for part in ast.walk(target):
                    if isinstance(part, (ast.Attribute, ast.Subscript)):
                        say(node, "assigns into an attribute or a subscript; state is immutable.")
        elif isinstance(node, ast.Delete):
            say(node, "deletes; state is immutable.")
        elif isinstance(node, ast.Call):
            function = node.func
            if isinstance(function, ast.Attribute) and function.attr in MUTATING_METHODS:
                say(node, f"calls .{function.attr}(), which mutates in place.")
            if isinstance(function, ast.Name) and function.id in FORBIDDEN_NAMES:
                say(node, f"calls {function.id}(): no I/O, clock or randomness in the model.")
        elif isinstance(node, ast.Name) and node.id in FORBIDDEN_MODULES:
            say(node, f"names {node.id}: no I/O, clock or randomness in the model.")
    return found


def model_files() -> list[Path]:
    return sorted(
        path for path in (ROOT / "model").glob("*.py") if path.name not in OUTSIDE_THE_SUBSET
    )


def layering_violations() -> list[str]:
    """harness/ never imports model/ (nor laws/ or bridge/, which import model/)."""
    found: list[str] = []
    for path in sorted((ROOT / "harness").rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            for name in names:
                if module_root(name) in ("model", "laws", "bridge", "mutants"):
                    found.append(
                        f"{path.relative_to(ROOT)}:{node.lineno}: imports {name}; "
                        "harness/ never imports the model."
                    )
    return found


def all_violations() -> list[str]:
    found: list[str] = []
    for path in model_files():
        found.extend(subset_violations(path))
    return found + layering_violations()
