"""Strategy: the README's laws table must be the registry's, row for row (the seconds column
aside, which a run writes); every law the README's rules and the docs cite must exist; and
`python -m laws` must fail when a law fails."""

import re
from pathlib import Path

from laws.registry import README_BEGIN, README_END, laws, markdown_table, without_seconds

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def test_the_readme_laws_table_is_the_registrys():
    text = README.read_text()
    assert README_BEGIN in text and README_END in text
    table = text.split(README_BEGIN, 1)[1].split(README_END, 1)[0]
    assert without_seconds(table) == without_seconds(markdown_table(laws()))


def test_every_law_has_a_claimed_strength_in_the_projects_words():
    words = ("Proved (Z3)", "Confirmed (CrossHair)", "Bounded", "Searched", "Example")
    for law in laws():
        assert law.strength.startswith(words), law.name


def named_laws(text: str) -> set:
    """Every name a text cites as a law: `law `x``, `laws `x`, `y` and `z``."""
    names = set()
    for match in re.finditer(r"\blaws? ((?:`[a-z0-9_]+`(?:,? (?:and )?)?)+)", text):
        names.update(re.findall(r"`([a-z0-9_]+)`", match.group(1)))
    return names


def test_every_law_the_readme_and_docs_name_exists():
    registered = {law.name for law in laws()}
    for path in (README, ROOT / "docs" / "planner.md"):
        cited = named_laws(path.read_text())
        assert len(cited) >= 5, f"{path.name} names {len(cited)} laws: the pattern broke"
        unknown = cited - registered
        assert not unknown, f"{path.name} names laws that do not exist: {sorted(unknown)}"


def test_a_misnamed_law_is_found():
    assert named_laws("| 40 | ... | law `need_first_typo` | matched |") == {"need_first_typo"}
    assert named_laws("laws `a_b`, `c` and `d`") == {"a_b", "c", "d"}
