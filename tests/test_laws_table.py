"""Strategy: the README's laws table must be the registry's, row for row (the seconds column
aside, which a run writes); and `python -m laws` must fail when a law fails."""

from pathlib import Path

from laws.registry import README_BEGIN, README_END, laws, markdown_table, without_seconds

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_readme_laws_table_is_the_registrys():
    text = README.read_text()
    assert README_BEGIN in text and README_END in text
    table = text.split(README_BEGIN, 1)[1].split(README_END, 1)[0]
    assert without_seconds(table) == without_seconds(markdown_table(laws()))


def test_every_law_has_a_claimed_strength_in_the_projects_words():
    words = ("Proved (Z3)", "Confirmed (CrossHair)", "Bounded", "Searched", "Example")
    for law in laws():
        assert law.strength.startswith(words), law.name
