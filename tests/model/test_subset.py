"""Strategy: the model's subset and the layering are lints; run them on the real tree (no
violation) and on planted violations (each one said), so the lint is seen to fail."""

import ast
from pathlib import Path

from laws.subset import all_violations, subset_violations

ROOT = Path(__file__).resolve().parents[2]


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


def planted(tmp_path: Path, where: str, line: str) -> list[str]:
    """The layering lint on a copy of the real tree with `line` added to the file `where`."""
    import shutil

    from laws.subset import ROOT, layering_violations

    for folder in ("harness", "bridge", "laws", "mutants", "model"):
        shutil.copytree(ROOT / folder, tmp_path / folder,
                        ignore=shutil.ignore_patterns("__pycache__"))
    path = tmp_path / where
    path.write_text(path.read_text() + "\n" + line + "\n")
    return layering_violations(tmp_path)


def test_the_rooms_as_they_are_break_no_rule(tmp_path: Path):
    assert planted(tmp_path, "harness/memory/store.py", "# nothing planted") == []


def test_the_memory_importing_the_calls_is_said(tmp_path: Path):
    said = planted(tmp_path, "harness/memory/store.py", "from harness.calls import prompt")
    assert len(said) == 1
    assert said[0].startswith("harness/memory/store.py:")
    assert "may import only harness.memory" in said[0]


def test_the_memory_importing_the_sdk_or_the_terminal_library_is_said(tmp_path: Path):
    said = planted(tmp_path, "harness/memory/planner.py", "def f():\n    import anthropic, click")
    assert any("only harness/calls/client.py imports the SDK" in sentence for sentence in said)
    assert any("never imports click" in sentence for sentence in said)


def test_the_calls_importing_the_chat_is_said(tmp_path: Path):
    said = planted(tmp_path, "harness/calls/turn.py", "def f():\n    from harness.chat.config import load_settings")
    assert any(sentence.startswith("harness/calls/turn.py:") and "harness.chat" not in
               sentence.split("may import only")[1] for sentence in said)


def test_the_product_importing_the_local_api_is_said_but_the_demo_may(tmp_path: Path):
    said = planted(tmp_path, "harness/chat/terminal.py", "from harness.localapi.server import LocalAPI")
    assert [sentence.split(":")[0] for sentence in said] == ["harness/chat/terminal.py"]
    assert planted(tmp_path / "again", "harness/chat/demo.py", "from harness.localapi import faults") == []


def test_the_benchmarks_may_import_the_local_api(tmp_path: Path):
    assert planted(tmp_path, "harness/bench/simulate.py", "from harness.localapi.cache import PromptCache") == []


def test_the_product_importing_a_benchmark_is_said_in_one_sentence(tmp_path: Path):
    said = planted(tmp_path, "harness/owner/owner.py", "def f():\n    from harness.bench.planted import generate")
    assert len(said) == 1
    assert said[0].startswith("harness/owner/owner.py:")
    assert "only harness/chat/cli.py imports harness.bench" in said[0]
    said = planted(tmp_path / "again", "harness/chat/terminal.py", "def f():\n    import harness.bench.simulate")
    assert [sentence.split(":")[0] for sentence in said] == ["harness/chat/terminal.py"]


def test_the_cli_importing_a_benchmark_at_its_top_is_said(tmp_path: Path):
    assert planted(tmp_path, "harness/chat/cli.py", "def f():\n    from harness.bench import recall") == []
    said = planted(tmp_path / "again", "harness/chat/cli.py", "from harness.imports.rules import ImportFailed")
    assert len(said) == 1
    assert "imports harness.imports.rules at its top" in said[0]


def test_import_and_browse_read_the_chats_settings_and_nothing_else_of_it(tmp_path: Path):
    assert planted(tmp_path, "harness/browse/page.py", "from harness.chat.config import Settings") == []
    said = planted(tmp_path / "again", "harness/imports/rules.py", "from harness.chat.terminal import visible")
    assert len(said) == 1
    assert "harness/imports/ may import only harness.memory, harness.calls, harness.imports" in said[0]
    said = planted(tmp_path / "third", "harness/browse/page.py", "from harness.calls import prompt")
    assert len(said) == 1
    assert "harness/browse/ may import only harness.memory, harness.browse" in said[0]


def test_the_bridge_importing_the_local_api_is_said(tmp_path: Path):
    said = planted(tmp_path, "bridge/scenarios.py", "from harness.localapi.replies import text")
    assert len(said) == 1
    assert "only harness/localapi/, the demo and the tests" in said[0]


def test_two_modules_that_import_each_other_lazily_are_said(tmp_path: Path):
    said = planted(tmp_path, "harness/chat/config.py", "def f():\n    from harness.chat.cli import main")
    cycles = [sentence for sentence in said if "import each other" in sentence]
    assert len(cycles) == 1
    assert "harness.chat.cli" in cycles[0]
    assert "harness.chat.config" in cycles[0]


def test_harness_importing_the_model_is_said(tmp_path: Path):
    said = planted(tmp_path, "harness/calls/prompt.py", "import model.view")
    assert any("harness/ never imports the model" in sentence for sentence in said)


def unnamed_modules(room: Path) -> list:
    """The modules of `room` (each .py but __init__ and __main__, each package as `name/`) that its
    __init__ docstring's index does not name at the start of a line."""
    index = ast.get_docstring(ast.parse((room / "__init__.py").read_text()), clean=False)
    named = {line.split()[0] for line in index.splitlines() if line.startswith("    ") and line.split()}
    modules = [path.stem for path in room.glob("*.py") if path.stem not in ("__init__", "__main__")]
    modules += [f"{path.name}/" for path in room.iterdir() if (path / "__init__.py").is_file()]
    return sorted(module for module in modules if module not in named)


def test_every_module_of_a_room_is_named_in_its_index():
    rooms = [path for path in (ROOT / "harness").iterdir() if (path / "__init__.py").is_file()]
    assert sorted(room.name for room in rooms) == ["bench", "browse", "calls", "chat", "imports", "localapi",
                                                   "memory", "owner"]
    assert {room.name: unnamed_modules(room) for room in rooms} == {room.name: [] for room in rooms}


def test_a_module_missing_from_its_rooms_index_is_found(tmp_path: Path):
    (tmp_path / "__init__.py").write_text('"""A room.\n\n    named   a module\n"""\n')
    (tmp_path / "named.py").write_text("")
    (tmp_path / "forgotten.py").write_text("")
    (tmp_path / "parsers").mkdir()
    (tmp_path / "parsers" / "__init__.py").write_text("")
    assert unnamed_modules(tmp_path) == ["forgotten", "parsers/"]
