"""The README is a front door: at most 200 lines, its room map the rooms' own docstrings, each room's
docstring naming every module in it, and every link of the README and docs/ reaching a file.

The map is rendered by tests/support/readme.py (`python -m tests.support.readme --write`).
"""

import re

from tests.support.readme import (
    INDEXED_ROOMS,
    MAP_ROOMS,
    README,
    ROOM_MAP_BEGIN,
    ROOM_MAP_END,
    ROOT,
    modules,
    names,
    readme_map,
    room_map,
    unnamed,
)

DOCS = sorted((ROOT / "docs").glob("*.md"))


def test_the_readme_is_at_most_200_lines():
    assert len(README.read_text().splitlines()) <= 200


def test_the_readme_room_map_is_the_rooms_docstrings():
    text = README.read_text()
    assert ROOM_MAP_BEGIN in text and ROOM_MAP_END in text
    assert readme_map(text) == room_map(), "the room map is stale: run `python -m tests.support.readme --write`"


def test_the_room_map_has_a_row_per_room_with_what_it_holds():
    rows = room_map().splitlines()[2:]
    assert len(rows) == len(MAP_ROOMS)
    for room, row in zip(MAP_ROOMS, rows):
        cells = row.split(" | ")
        assert cells[0] == f"| [`{room}/`]({room}/__init__.py)"
        assert len(cells[1]) > 20, f"{room}/__init__.py has no summary line"


def test_every_module_of_a_room_is_named_in_its_docstring():
    missing = {room: unnamed(room) for room in INDEXED_ROOMS if unnamed(room)}
    assert not missing, f"modules their room's __init__ docstring does not name: {missing}"


def test_every_package_of_the_code_is_a_room_that_is_checked():
    packages = {str(path.parent.relative_to(ROOT)) for top in ("harness", "model", "laws", "bridge", "mutants")
                for path in (ROOT / top).rglob("__init__.py")}
    assert packages <= set(INDEXED_ROOMS), sorted(packages - set(INDEXED_ROOMS))


def test_a_module_is_named_in_backticks_or_at_the_head_of_an_index_line():
    index = "What is kept.\n\n    store       the logs\n    imports/    the parsers\n- `base`: the operations\n"
    assert names(index, "store") and names(index, "imports/") and names(index, "base")
    assert names("the chat's `inbox.py` keeps it", "inbox")


def test_a_module_only_mentioned_in_passing_is_not_named():
    index = "What is kept: the store and its inbox, in the text below.\n\n    storehouse  not the store\n"
    assert not names(index, "store")
    assert not names(index, "inbox")
    assert not names("`planner_text` rules", "planner")


def test_a_rooms_modules_are_its_files_and_its_packages():
    assert "store" in modules("harness/memory") and "contracts/" in modules("laws")
    assert "__init__" not in modules("harness/memory")


def links(text: str) -> list[str]:
    """Every relative target of a Markdown link or image, without its anchor."""
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    return [target.split("#", 1)[0] for target in targets if not re.match(r"[a-z]+:", target) and not target.startswith("#")]


def test_every_link_of_the_readme_and_docs_reaches_a_file():
    broken = []
    for page in [README, *DOCS]:
        for target in links(page.read_text()):
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, broken


def test_a_link_to_a_missing_file_is_found():
    assert links("see [x](docs/nowhere.md#part) and [y](https://example.com) and [z](#here)") == ["docs/nowhere.md"]
