"""The model's restricted subset, as a lint (model/__init__.py defines it), and the layering rules
(harness/__init__.py states them).

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


def parsed(path: Path) -> ast.AST:
    """The file's syntax tree. CPython 3.11 can refuse to build one ("AST constructor recursion
    depth mismatch", a SystemError) in a process whose recursion count an earlier RecursionError
    or tracer left uneven: then a fresh interpreter parses it, so the lint's verdict never
    depends on what the process ran before."""
    try:
        return ast.parse(path.read_text(), filename=str(path))
    except SystemError:
        import pickle
        import subprocess
        import sys

        child = subprocess.run([sys.executable, "-c", "import ast, pickle, sys; sys.stdout.buffer.write("
                                "pickle.dumps(ast.parse(open(sys.argv[1]).read(), sys.argv[1])))", str(path)],
                               capture_output=True, check=True)
        return pickle.loads(child.stdout)


def subset_violations(path: Path) -> list[str]:
    tree = parsed(path)
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


# harness/'s rooms and what each may import of harness (harness/__init__.py says why). A room
# imports itself and the rooms before it; localapi is test equipment beside the product.
ROOMS = {
    "memory": ("memory",),
    "calls": ("memory", "calls"),
    "owner": ("memory", "calls", "owner"),
    "imports": ("memory", "calls", "imports"),
    "browse": ("memory", "browse"),
    "chat": ("memory", "calls", "owner", "imports", "browse", "bench", "chat"),
    "localapi": ("memory", "calls", "localapi"),
    # the benchmarks cost and replay their calls on the local API, the tests' own cache model,
    # rather than on a copy of it that could drift
    "bench": ("memory", "calls", "owner", "localapi", "bench"),
}
# What a room beside the chat reads of harness/chat/: the settings, parsed where they enter, and
# for the owner the subagents' listing its /agents answers with; nothing else.
READS_OF_THE_CHAT = {"owner": ("harness.chat.config", "harness.chat.agentlist"),
                     "imports": ("harness.chat.config",), "browse": ("harness.chat.config",)}
# The product's one way into localapi, test equipment a person runs: the no-key demo.
LOCALAPI_USERS = ("harness/chat/demo.py",)
# The one module that imports a benchmark, inside the commands that run one (`ever simulate`,
# `ever bench recall`); the product never does.
BENCH_USER = "harness/chat/cli.py"
# Rooms the CLI imports only inside the command that uses them, so that no other command (`ever
# send` above all) pays for loading them.
LAZY_IN_CLI = ("imports", "browse", "bench")
# Third-party packages a room never imports, and the one module that talks to the SDK.
KEPT_OUT = {"memory": ("anthropic", "httpx", "httpx2", "click", "prompt_toolkit")}
SDK_MODULE = "harness/calls/client.py"
OUTSIDE_HARNESS = ("model", "laws", "bridge", "mutants", "sim")
# sim/ (`make sim`) runs the product under a simulated World: it imports harness/ (the local
# API's rules among it) and never the model, the laws, the bridge or the mutants, whose checks it
# must not lean on; harness/ never imports it (OUTSIDE_HARNESS).
SIM_KEPT_OUT = ("model", "laws", "bridge", "mutants")


def imported_names(tree: ast.AST, package: str) -> list[tuple[int, str]]:
    """Every module an import statement names, anywhere in the file (a function's own import
    too), with `from a import b` also naming `a.b`, so a submodule imported by name counts."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            found.append((node.lineno, base))
            found.extend((node.lineno, f"{base}.{alias.name}") for alias in node.names)
    return found


def file_imports(path: Path, package: str) -> tuple[frozenset[int], tuple[tuple[int, str], ...]]:
    """The lines of the file's top-level imports and every module it imports (imported_names)."""
    # keyed by the text and not the path, so a file changed since (a test's planted copy) is
    # parsed again and the same text in another tree, as most of a planted copy is, is not
    key = (path.read_text(), package)
    if key not in _IMPORTS:
        tree = parsed(path)
        at_top = frozenset(node.lineno for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom))
        _IMPORTS[key] = at_top, tuple(imported_names(tree, package))
    return _IMPORTS[key]


_IMPORTS: dict[tuple[str, str], tuple[frozenset[int], tuple[tuple[int, str], ...]]] = {}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layering_violations(root: Path = ROOT) -> list[str]:
    """harness/ never imports model/ (nor laws/, bridge/, mutants/ or sim/); sim/ never imports
    model/, laws/, bridge/ or mutants/; each room
    imports only the rooms it may; only the SDK module imports the SDK; only the tests, the demo
    and the benchmarks import localapi; only the CLI imports the benchmarks, and it imports them,
    import and browse inside their commands; and no two modules of harness/ import each other,
    however indirectly."""
    found: list[str] = []
    seen: set[tuple[str, int, str]] = set()

    def say(where: str, lineno: int, rule: str, sentence: str) -> None:
        # `from a import b` names a and a.b: one sentence per statement and rule
        if (where, lineno, rule) not in seen:
            seen.add((where, lineno, rule))
            found.append(sentence)

    modules = {module_name(path, root): path for path in sorted((root / "harness").rglob("*.py"))}
    edges: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        where = path.relative_to(root).as_posix()
        parts = name.split(".")
        room = parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in ROOMS) else None
        package = name if path.name == "__init__.py" else ".".join(parts[:-1])
        at_top, imports = file_imports(path, package)
        for lineno, imported in imports:
            top = module_root(imported)
            if top in OUTSIDE_HARNESS:
                say(where, lineno, "model", f"{where}:{lineno}: imports {imported}; harness/ never imports the model.")
            if top == "anthropic" and where != SDK_MODULE:
                say(where, lineno, "sdk", f"{where}:{lineno}: imports {imported}; only {SDK_MODULE} imports the SDK.")
            if room and top in KEPT_OUT.get(room, ()):
                say(where, lineno, top, f"{where}:{lineno}: imports {imported}; harness/{room}/ never imports {top}.")
            if top != "harness":
                continue
            if imported in modules and imported != name:
                edges[name].add(imported)
            target = imported.split(".")[1] if imported.count(".") >= 1 else None
            if target not in ROOMS:
                continue
            if target == "bench" and room != "bench":
                if where != BENCH_USER:
                    say(where, lineno, "bench", f"{where}:{lineno}: imports {imported}; only {BENCH_USER} imports "
                                 "harness.bench, inside `ever simulate` and `ever bench recall`: the product never "
                                 "imports a benchmark.")
                    continue
            if where == BENCH_USER and target in LAZY_IN_CLI and lineno in at_top:
                say(where, lineno, "lazy", f"{where}:{lineno}: imports {imported} at its top; the CLI imports "
                             f"harness.{target} inside the command that uses it, so no other command loads it.")
            if room is None:
                allowed = ("chat",)  # harness/__main__.py is `ever`
            else:
                allowed = ROOMS[room]
            if target == "localapi" and where in LOCALAPI_USERS:
                continue
            if imported.startswith(READS_OF_THE_CHAT.get(room, ())):
                continue
            if target not in allowed:
                say(where, lineno, "room", f"{where}:{lineno}: imports {imported}; harness/{room or ''}"
                             f"{'/' if room else ''} may import only "
                             f"{', '.join('harness.' + r for r in allowed)}.")
    found.extend(import_cycles(edges))
    for outside in ("bridge", "laws", "mutants", "model"):
        for path in sorted((root / outside).rglob("*.py")):
            where = path.relative_to(root).as_posix()
            for lineno, imported in file_imports(path, "")[1]:
                if imported.startswith("harness.localapi"):
                    say(where, lineno, "localapi", f"{where}:{lineno}: imports {imported}; only harness/localapi/, "
                                 "the demo and the tests import the local API.")
    for path in sorted((root / "sim").rglob("*.py")):
        where = path.relative_to(root).as_posix()
        for lineno, imported in file_imports(path, "sim")[1]:
            if module_root(imported) in SIM_KEPT_OUT:
                say(where, lineno, "sim", f"{where}:{lineno}: imports {imported}; sim/ runs the product, and never "
                             f"imports {', '.join(name + '/' for name in SIM_KEPT_OUT)}.")
    return found


def import_cycles(edges: dict[str, set[str]]) -> list[str]:
    """One sentence per group of harness modules that import each other (Tarjan's components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        on_stack.add(name)
        for other in sorted(edges[name]):
            if other not in index:
                visit(other)
                low[name] = min(low[name], low[other])
            elif other in on_stack:
                low[name] = min(low[name], index[other])
        if low[name] == index[name]:
            group = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                group.append(other)
                if other == name:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for name in sorted(edges):
        if name not in index:
            visit(name)
    return [f"{', '.join(group)}: import each other; harness/'s imports go one way." for group in groups]


def all_violations() -> list[str]:
    found: list[str] = []
    for path in model_files():
        found.extend(subset_violations(path))
    return found + layering_violations()
