"""Strategy: what a doc says a `make` target runs is what the Makefile's recipe runs. The Makefile's
help (`make` with no target) is the one place that says it; the README, tests/README.md and docs/
say the same or less. Each recipe is read from the Makefile: its pytest marker (`-m "not slow"`,
`-m slow` or none), its workers (`-n 2`) and its environment (`NAME=value`). Each doc is cut into
claims: the text after a "`make T`" (or a help line's `make T`) up to the next target named or the
end of its sentence or table row. A claim that says which tests (not marked slow, marked slow,
every test), how many cores, or a `NAME=value` must agree with T's recipe; every target a doc names
must exist; and the sentence saying what CI runs names .ci/run's targets. Planted docs and recipes
show each disagreement found.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAKEFILE = ROOT / "Makefile"
DOCS = [ROOT / "README.md", ROOT / "tests" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

NAMED = re.compile(r"`make ([a-z][a-z-]*)`?")
NOT_SLOW = re.compile(r"not marked `?slow`?|but (?:its|the) (?:tests marked )?`?slow`?")
ALL = re.compile(r"every test\b(?! not)|slow ones too")
SLOW = re.compile(r"marked `?slow`?")
CORES = re.compile(r"both cores|2 cores")  # pytest's workers; a command's own processes are its own
SETTING = re.compile(r"\b([A-Z][A-Z_]+)=([\w.-]+)")


def recipes(makefile: str) -> dict[str, str]:
    """Each target's recipe, its lines joined."""
    found: dict[str, list[str]] = {}
    target = None
    for line in makefile.splitlines():
        if line.startswith("\t") and target:
            found[target].append(line.strip())
            continue
        rule = re.match(r"^([a-z][a-z-]*):(?!=)", line)
        target = rule.group(1) if rule else None
        if target:
            found.setdefault(target, [])
    return {target: " ".join(lines) for target, lines in found.items()}


def help_claims(makefile: str) -> dict[str, str]:
    """The help's text for each target, its continuation lines included."""
    said: dict[str, str] = {}
    target = None
    for text in re.findall(r'@echo "(.*)"', makefile):
        line = re.match(r"^  make ([a-z][a-z-]*)\s+(.*)$", text)
        if line:
            target = line.group(1)
            said[target] = line.group(2)
        elif target and text.startswith("   "):
            said[target] += " " + text.strip()
        else:
            target = None
    return said


def facts(recipe: str) -> dict:
    """What a pytest recipe selects: its marker, its workers and its settings."""
    marker = re.search(r'pytest\b.*?\s-m (?:"([^"]+)"|(\S+))', recipe)
    return {"marker": (marker.group(1) or marker.group(2)) if marker else None,
            "cores": "-n 2" in recipe,
            "settings": dict(SETTING.findall(recipe.replace("$(PROFILE)", "PROFILE")))}


def claims(text: str) -> list[tuple[str, str]]:
    """(target, what the text says of it): from each `make T` to the next one, or the end of its
    sentence or table row."""
    found = []
    for part in re.split(r"\n\s*\n|\|\s*\n", text):
        mentions = list(NAMED.finditer(part))
        for k, mention in enumerate(mentions):
            end = mentions[k + 1].start() if k + 1 < len(mentions) else len(part)
            said = re.split(r"\.\s", part[mention.end():end], maxsplit=1)[0]
            found.append((mention.group(1), " ".join(said.split())))
    return found


def knobs(makefile: str) -> set[str]:
    """The Makefile's knobs (`NAME ?= default`): set on make's command line, not in a recipe."""
    return set(re.findall(r"^([A-Z_]+)\s*\?=", makefile, re.M))


def disagreements(target: str, said: str, recipe: str, knobs: frozenset = frozenset()) -> list[str]:
    """How a claim about `target` disagrees with its recipe."""
    if "pytest" not in recipe:
        return []
    known = facts(recipe)
    wrong = []
    selection = "not slow" if NOT_SLOW.search(said) else None if ALL.search(said) else "slow" if SLOW.search(said) else ""
    if selection != "" and selection != known["marker"]:
        wrong.append(f"says it runs {selection or 'every test'!r}, the recipe selects {known['marker'] or 'every test'!r}")
    if CORES.search(said) and not known["cores"]:
        wrong.append("says both cores, the recipe runs one process")
    for name, value in SETTING.findall(said):
        if name not in knobs and known["settings"].get(name) != value:
            wrong.append(f"says {name}={value}, the recipe sets {known['settings'].get(name)!r}")
    return wrong


def every_disagreement(makefile: str, docs: dict[str, str]) -> list[str]:
    made = recipes(makefile)
    settable = frozenset(knobs(makefile))
    said = []
    sources = {"the Makefile's help": [(target, text) for target, text in help_claims(makefile).items()]}
    sources.update({name: claims(text) for name, text in docs.items()})
    for source, found in sources.items():
        for target, claim in found:
            if target not in made:
                said.append(f"{source} names `make {target}`, which the Makefile does not have")
                continue
            said += [f"{source}, `make {target}`: {wrong} ({claim[:80]}…)"
                     for wrong in disagreements(target, claim, made[target], settable)]
    return said


PLANTED_MAKEFILE = """PROFILE ?= ci
help:
\t@echo "  make test        the test suite but the tests marked slow"
\t@echo "  make test-long   every test, with its long runs"

test: venv
\tHYPOTHESIS_PROFILE=$(PROFILE) $(PY) -m pytest -n 2 -m "not slow"

test-long: venv
\tEVER_LONG_TESTS=1 $(PY) -m pytest -n 2
"""


def test_a_recipe_and_the_help_are_read_as_the_makefile_writes_them():
    assert facts(recipes(PLANTED_MAKEFILE)["test"]) == {"marker": "not slow", "cores": True,
                                                       "settings": {"HYPOTHESIS_PROFILE": "PROFILE"}}
    assert help_claims(PLANTED_MAKEFILE) == {"test": "the test suite but the tests marked slow",
                                            "test-long": "every test, with its long runs"}
    assert every_disagreement(PLANTED_MAKEFILE, {}) == []


def test_planted_docs_that_say_another_selection_cores_setting_or_target_are_each_found():
    docs = {"a.md": "| `make test` | every test on both cores: tiny bridge runs |\n",
            "b.md": "`make test-long` runs with `EVER_LONG_TESTS=0`. `make tests` runs them all.\n",
            "d.md": "`make test` with `PROFILE=deep` runs a random search.\n",
            "c.md": "`make test` runs the suite on both cores but its slow tests, which `make test-long` runs.\n"}
    assert every_disagreement(PLANTED_MAKEFILE, docs) == [
        "a.md, `make test`: says it runs 'every test', the recipe selects 'not slow' (| every test on both cores: tiny bridge runs…)",
        "b.md, `make test-long`: says EVER_LONG_TESTS=0, the recipe sets '1' (runs with `EVER_LONG_TESTS=0`…)",
        "b.md names `make tests`, which the Makefile does not have",
    ]


def test_what_the_docs_say_each_target_runs_is_what_its_recipe_runs():
    makefile = MAKEFILE.read_text()
    docs = {str(path.relative_to(ROOT)): path.read_text() for path in DOCS}
    selections = [claim for target, claim in help_claims(makefile).items() if target.startswith("test")]
    assert len(selections) == 3  # test, test-slow and test-long each say which tests they run
    found = every_disagreement(makefile, docs)
    assert not found, "\n".join(found)


def test_the_help_names_every_target():
    makefile = MAKEFILE.read_text()
    phony = set(re.search(r"^\.PHONY: (.*)$", makefile, re.M).group(1).split()) - {"help"}
    assert phony <= set(help_claims(makefile)), sorted(phony - set(help_claims(makefile)))


def test_what_the_docs_say_ci_runs_is_what_ci_runs():
    run = [line.split()[1] for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("make ")]
    assert run == ["laws", "test", "sim", "test-slow"]  # the order CI runs them
    stated = 0
    for path in DOCS:
        for sentence in re.findall(r"CI \(`\.ci/run`\) runs ([^.]*)\.", path.read_text()):
            stated += 1
            assert NAMED.findall(sentence) == run, (path.name, sentence)
    assert stated >= 1
