"""Strategy: docs/laws.md's laws table must be the registry's, row for row (the seconds column
aside, which a run writes), and the README's counts its counts; every law the README, the gist's rules (docs/gist-rules.md) and the docs cite must exist; a label
is compared with the registry's by the order of strengths (Proved > Confirmed > Bounded > Searched
> Example) and by its minimum counts, and `python -m laws` fails, and refuses to write the table,
when a law passes with less than the registry says.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

import laws.__main__ as runner
from laws.core import STRENGTHS, Budget, Law, Verdict, kind, shortfall, stronger
from laws.registry import TABLE_BEGIN, TABLE_END, laws, markdown_table, strength_counts, without_seconds

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
LAWS_PAGE = ROOT / "docs" / "laws.md"


def test_the_laws_pages_table_is_the_registrys():
    text = LAWS_PAGE.read_text()
    assert TABLE_BEGIN in text and TABLE_END in text
    table = text.split(TABLE_BEGIN, 1)[1].split(TABLE_END, 1)[0]
    assert without_seconds(table) == without_seconds(markdown_table(laws()))


def test_the_readme_counts_the_laws_as_the_registry_ranks_them_and_links_the_table():
    text = " ".join(README.read_text().split())
    assert TABLE_BEGIN not in text  # the table lives in docs/laws.md alone
    assert f"{strength_counts(laws())} ([docs/laws.md](docs/laws.md):" in text


def test_the_counts_rank_each_law_by_its_weakest_part():
    proved = Law("a", "§0", "A.", "z3", "Proved (Z3): any view", lambda budget: None)
    mixed = Law("b", "§0", "B.", "z3", "Proved (Z3): its steps; steps = events: Searched, at least 3 events",
                lambda budget: None)
    example = Law("c", "§0", "C.", "example", "Example: the gist's T = 10", lambda budget: None)
    assert strength_counts([proved, mixed, example, proved]) == "4 laws: 2 Proved (Z3), 1 Searched, 1 Example"


def test_every_law_has_a_claimed_strength_in_the_projects_words():
    for law in laws():
        assert kind(law.strength) in STRENGTHS, law.name


def test_the_strengths_are_ordered_proved_confirmed_bounded_searched_example():
    labels = ["Proved (Z3): all T", "Confirmed (CrossHair): views of ≤ 3 lines", "Bounded: t = 0..10",
              "Searched: 3 runs", "Example: the gist's T = 10"]
    for k in range(len(labels) - 1):
        assert stronger(labels[k], labels[k + 1])
        assert not stronger(labels[k + 1], labels[k])
    assert not stronger(labels[2], labels[2])


def test_a_label_of_no_known_kind_is_refused():
    with pytest.raises(ValueError):
        kind("Proven: by inspection")
    with pytest.raises(ValueError):
        kind("Boundedish: t = 0..10")


def test_a_weaker_kind_falls_short_and_a_stronger_one_does_not():
    registered = "Confirmed (CrossHair): views of ≤ 3 lines"
    assert shortfall(registered, "Searched (CrossHair, 1 iterations / 2 s): views of ≤ 3 lines")
    assert shortfall(registered, "none")
    assert shortfall(registered, "Proved (Z3): any view") is None
    assert shortfall(registered, registered) is None


def test_the_same_kind_must_say_the_same_thing():
    assert shortfall("Confirmed (CrossHair): views of ≤ 3 lines", "Confirmed (CrossHair): views of ≤ 2 lines")
    assert shortfall("Bounded: t = 0..10", "Bounded: t = 0..10, on a smaller config")


def test_a_count_below_its_registered_minimum_falls_short():
    registered = "Searched: at least 1,800 waits from model states"
    assert shortfall(registered, "Searched: 1,799 waits from model states")
    assert shortfall(registered, "Searched: 1799 waits from model states")
    assert shortfall(registered, "Searched: 1,800 waits from model states") is None
    assert shortfall(registered, "Searched: 1994 waits from model states") is None
    two = "Searched (Hypothesis): at least 250 histories, at least 12,000 events"
    assert shortfall(two, "Searched (Hypothesis): 250 histories, 11,999 events")
    assert shortfall(two, "Searched (Hypothesis): 249 histories, 20,000 events")
    assert shortfall(two, "Searched (Hypothesis): 250 histories, 12,000 events") is None


def test_every_run_based_law_registers_a_minimum_count():
    for law in laws():
        if law.engine in ("runs", "hypothesis") or kind(law.strength) == "Searched":
            assert "at least " in law.strength, law.name


def run_laws(monkeypatch, capsys, earned: str, *flags: str):
    registered = Law("claim_holds", "§0", "A claim.", "crosshair", "Confirmed (CrossHair): views of ≤ 3 lines",
                     lambda budget: Verdict(True, earned))
    written = []
    monkeypatch.setattr(runner, "laws", lambda: [registered])
    monkeypatch.setattr(runner, "all_violations", lambda: [])
    monkeypatch.setattr(runner, "write_table", written.append)
    monkeypatch.setattr(sys, "argv", ["python -m laws", *flags])
    status = runner.main()
    return status, capsys.readouterr().out, written


def test_a_law_that_earns_less_than_the_registry_fails_the_run_and_writes_no_table(monkeypatch, capsys):
    status, out, written = run_laws(monkeypatch, capsys, "Searched (CrossHair, 1 iterations / 2 s): views of ≤ 3 lines",
                                    "--write-table")
    assert status == 1
    assert "claim_holds" in out and " FAIL " in out and "weaker kind" in out
    assert written == []


def test_a_law_that_earns_the_registrys_label_passes_and_writes_the_table(monkeypatch, capsys):
    status, out, written = run_laws(monkeypatch, capsys, "Confirmed (CrossHair): views of ≤ 3 lines", "--write-table")
    assert status == 0 and " pass " in out
    assert len(written) == 1 and "claim_holds" in written[0]


def test_a_default_budget_is_the_registrys():
    assert Budget() == Budget(t=20_000, deep=False)


def test_a_missing_law_module_fails_loudly():
    code = "import sys; sys.modules['laws.universal'] = None; import laws.registry"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode != 0
    assert "ModuleNotFoundError" in result.stderr and "laws.universal" in result.stderr


def named_laws(text: str) -> set:
    """Every name a text cites as a law: `law `x``, `laws `x`, `y` and `z``."""
    names = set()
    for match in re.finditer(r"\blaws? ((?:`[a-z0-9_]+`(?:,? (?:and )?)?)+)", text):
        names.update(re.findall(r"`([a-z0-9_]+)`", match.group(1)))
    return names


def test_every_law_the_readme_and_docs_name_exists():
    registered = {law.name for law in laws()}
    for path in (README, ROOT / "docs" / "planner.md", ROOT / "docs" / "gist-rules.md"):
        cited = named_laws(path.read_text())
        assert len(cited) >= 5, f"{path.name} names {len(cited)} laws: the pattern broke"
        unknown = cited - registered
        assert not unknown, f"{path.name} names laws that do not exist: {sorted(unknown)}"


def test_a_misnamed_law_is_found():
    assert named_laws("| 40 | ... | law `need_first_typo` | matched |") == {"need_first_typo"}
    assert named_laws("laws `a_b`, `c` and `d`") == {"a_b", "c", "d"}


def test_a_label_ranks_as_its_weakest_part():
    mixed = "Proved (Z3): each view step, model code; steps = events: Searched, at least 4,800 events"
    assert kind(mixed) == "Searched"
    assert kind("Proved (Z3): push is the counter; the fold's side: Bounded for every t up to 20,000") == "Bounded"
    assert kind("Proved (Z3): model code, any view") == "Proved (Z3)"
    # a mixed label is no stronger than a plain search, and a plain proof is stronger than it
    assert not stronger(mixed, "Searched: 3 runs")
    assert stronger("Proved (Z3): any view", mixed)
    assert shortfall("Proved (Z3): any view", mixed)
    # CrossHair named in a search is not a confirmation
    assert kind("Searched (CrossHair diffbehavior): at least 300 iterations") == "Searched"


def test_a_planted_mixed_label_is_ranked_down_in_the_run_and_the_table(monkeypatch, capsys):
    from laws import registry

    planted = Law("planted_mixed", "§3", "A planted law.", "z3",
                  "Proved (Z3): its steps; steps = events: Searched, at least 10 events",
                  lambda budget: Verdict(True, "Proved (Z3): its steps; steps = events: Searched, 12 events"))
    monkeypatch.setattr(runner, "laws", lambda: [planted])
    monkeypatch.setattr(runner, "all_violations", lambda: [])
    monkeypatch.setattr(runner.confirmed, "start_ahead", lambda names: None)
    monkeypatch.setattr(sys, "argv", ["laws"])
    assert runner.main() == 0
    printed = capsys.readouterr().out
    assert "[ranks Searched] Proved (Z3): its steps" in printed
    assert "ranked by their weakest part: 1 Searched" in printed
    table = registry.markdown_table([planted])
    assert "| **Searched** (its weakest part) |" in table


def test_the_readme_counts_eukhes_laws_by_their_weakest_part():
    from laws.registry import EUKHE_UNIVERSAL, eukhe_count

    assert len(EUKHE_UNIVERSAL) == 13
    assert set(EUKHE_UNIVERSAL) <= {law.name for law in laws()}
    assert eukhe_count(laws()) in " ".join(README.read_text().split())


def test_a_failing_law_counts_as_failed_in_the_closing_counts_not_as_its_registered_label(monkeypatch, capsys):
    proved = "Proved (Z3): any view"
    planted = [Law("planted_proved", "§3", "A planted law.", "z3", proved, lambda budget: Verdict(True, proved)),
               Law("planted_failing", "§3", "A planted law.", "z3", proved, lambda budget: Verdict(False, "none", "Z3 said sat"))]
    monkeypatch.setattr(runner, "laws", lambda: planted)
    monkeypatch.setattr(runner, "all_violations", lambda: [])
    monkeypatch.setattr(runner.confirmed, "start_ahead", lambda names: None)
    monkeypatch.setattr(sys, "argv", ["laws"])
    assert runner.main() == 1
    printed = capsys.readouterr().out
    assert "ranked by their weakest part: 1 Proved (Z3); 1 failed, earning nothing (planted_failing)" in printed
    assert "2 Proved (Z3)" not in printed


def test_what_a_proof_trusts_is_named_in_its_label_and_does_not_rank_it():
    trusted = "Proved (Z3): model code; trusted: 7 sequence twins (twins_agree: Bounded; sequence_twins_refuse)"
    assert kind(trusted) == "Proved (Z3)"
    # a link of the claim itself, before the trusted part, still ranks it
    assert kind("Proved (Z3): its steps; steps = events: Searched, 3 events; trusted: the integer encoding") == "Searched"
    registered = {law.name: law for law in laws()}
    for law in registered.values():
        if "sequence twins" in law.strength and law.strength.startswith("Proved"):
            assert "twins_agree: Bounded" in law.strength, law.name
        if "model/planner.py step for every event" in law.strength:
            for said in ("assert", "witnessed", "capped_text_finds_its_source", "queue_functions_hold"):
                assert said in law.strength, (law.name, said)
        if "loop rules" in law.strength:
            assert "cached" in law.strength, law.name
        # every law a label cites as the check of a part exists
        for cited in re.findall(r"\b[a-z0-9]+(?:_[a-z0-9]+)+_(?:refuses?|agree|nothing|source|hold|rational)\b", law.strength):
            assert cited in registered, (law.name, cited)
