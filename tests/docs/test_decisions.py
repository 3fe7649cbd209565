"""Every decision tag cited anywhere (code, tests, docs, the README) is written `[P10]` and has its
line in docs/decisions.md; every line there is cited beyond the place that argues it, or says why
not, and the place it names does argue it. The grammar is at the top of docs/decisions.md.
"""

import re
from pathlib import Path

from tests.support.readme import ROOT

DECISIONS = ROOT / "docs" / "decisions.md"
FAMILIES = "PCSHAIBDFRM"
TAG = re.compile(rf"(?<![\w+\-/.#])([{FAMILIES}]\d{{1,2}})(?!\w)")
UNICODE = re.compile(r"control|DEL|U\+|\\x")  # C0 and C1 are also Unicode's sets of control characters
ROW = re.compile(r"^\| \[([A-Z]\d+)\] \| (\w+) \| (.+) \| (.+) \|$")
SCANNED = ("README.md", "Makefile", "docs", "harness", "model", "laws", "bridge", "mutants", "tests", ".ci")


def sources() -> list[Path]:
    """Every code file, doc and the README, but docs/decisions.md and this file's planted examples."""
    found = []
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found += [file for file in path.rglob("*") if file.is_file() and file.suffix in (".py", ".md", "")
                      and "__pycache__" not in file.parts]
    return [path for path in found if path not in (DECISIONS, Path(__file__).resolve())]


def citations(text: str) -> list[tuple[str, bool]]:
    """Each tag in a text, and whether it is written in the one form `[X9]`."""
    found = []
    for match in TAG.finditer(text):
        tag, start, end = match.group(1), match.start(), match.end()
        if tag in ("C0", "C1") and UNICODE.search(text[max(0, start - 30):end + 30]):
            continue
        found.append((tag, text[start - 1:start] == "[" and text[end:end + 1] == "]"))
    return found


def index() -> dict[str, list[str]]:
    """docs/decisions.md's lines: tag → [family, sentence, argued in]."""
    rows = {}
    for line in DECISIONS.read_text().splitlines():
        match = ROW.match(line)
        if match:
            assert match.group(1) not in rows, f"{match.group(1)} has two lines"
            rows[match.group(1)] = [match.group(2), match.group(3), match.group(4)]
    return rows


def cited_everywhere() -> dict[Path, list[tuple[str, bool]]]:
    return {path: citations(path.read_text(errors="replace")) for path in sources()}


def test_every_line_of_the_index_is_a_tag_a_family_a_sentence_and_a_place():
    rows = index()
    assert len(rows) >= 80
    for tag, (family, sentence, where) in rows.items():
        assert tag[0] in FAMILIES, tag
        assert sentence.endswith(".") and len(sentence) > 20, tag
        assert "](" in where, f"{tag} names no place where it is argued"


def test_every_tag_cited_is_in_the_one_form():
    wrong = [f"{path.relative_to(ROOT)}: {tag}" for path, found in cited_everywhere().items()
             for tag, bracketed in found if not bracketed]
    assert not wrong, f"tags not written [X9]: {wrong[:20]}"


def test_every_tag_cited_has_its_line_in_the_index():
    rows = index()
    unknown = sorted({f"{path.relative_to(ROOT)}: {tag}" for path, found in cited_everywhere().items()
                      for tag, _ in found if tag not in rows})
    assert not unknown, f"tags with no line in docs/decisions.md: {unknown}"


def test_every_line_of_the_index_is_cited_beyond_where_it_is_argued_or_says_why_not():
    counts: dict[str, int] = {}
    for found in cited_everywhere().values():
        for tag, _ in found:
            counts[tag] = counts.get(tag, 0) + 1
    idle = [tag for tag, (_, sentence, _) in index().items() if counts.get(tag, 0) < 2 and "not cited:" not in sentence]
    assert not idle, f"lines of docs/decisions.md that nothing cites but where they are argued: {idle}"


def test_each_tag_is_argued_where_its_line_says():
    wrong = []
    for tag, (_, _, where) in index().items():
        places = [DECISIONS.parent / target.split("#")[0] for target in re.findall(r"\]\(([^)]+)\)", where)]
        if not any(place.is_file() and f"[{tag}]" in place.read_text() for place in places):
            wrong.append(tag)
    assert not wrong, f"tags not found where docs/decisions.md says they are argued: {wrong}"


def test_a_tag_in_another_form_is_found_and_unicode_controls_are_not_tags():
    text = "kept [P10] [P16]; bare " + "P" + "10, " + "(" + "S9), " + "[decision " + "P8], C1 controls, DEL, C1"
    assert citations(text) == [("P10", True), ("P16", True), ("P10", False), ("S9", False), ("P8", False)]
    assert citations("the `id+1|` head, a hash #" + "P1, a path a/" + "B2, U" + "TF8") == []


def test_an_unknown_tag_is_found():
    assert [tag for tag, _ in citations("as argued [" + "P99]") if tag not in index()] == ["P99"]
