"""Strategy: run the tiny bridge in-process and require the model's and the production planner's
traces to agree byte for byte. `make test` runs every tiny run but `high_levels` (FAST: about 5 s
of CPU; high_levels alone takes 7 s): a selection chosen by what it catches, since each planted
planner bug of mutants/claims_mutants.py (the turn's fold, the placeholder's newline and digits,
the coarse fit, the context's budget per line and at its exact budget, the restart's discard) is
caught by at least one of these runs, and the test names the runs that catch each. `make
test-slow` adds high_levels (past 2^14 messages) and requires the runs together to reach every
path a planner bug can hide on (bridge/__main__.py `PATHS`, counted from the model's records).
Also: scenarios are deterministic and their text format round-trips; a planted printing
difference is reported with the command that replays it, and exits 1.
"""

import pytest

import harness.memory.trace
from bridge.__main__ import PATHS, execute, main
from bridge.scenarios import SCENARIOS, format_event, parse_event, runs

SLOW_RUNS = ("high_levels",)  # past 2^14 messages: 7 s alone, in make test-slow only


def fast_runs():
    return [run for run in runs("tiny") if run.name not in SLOW_RUNS]


@pytest.fixture(scope="module")
def fast_results():
    return [execute(run) for run in fast_runs()]


@pytest.fixture(scope="module")
def tiny_results(fast_results):
    return fast_results + [execute(run) for run in runs("tiny") if run.name in SLOW_RUNS]


def test_every_fast_tiny_run_agrees(fast_results):
    # make test's view of the planner: every scenario but high_levels, at its tiny size
    assert len(fast_results) >= len(SCENARIOS) - len(SLOW_RUNS)
    for result in fast_results:
        assert result.mismatch is None, (result.name, result.seed, result.mismatch)
    assert sum(result.events for result in fast_results) > 5000


@pytest.mark.slow
def test_every_tiny_run_agrees(tiny_results):
    assert len(tiny_results) >= len(SCENARIOS)
    for result in tiny_results:
        assert result.mismatch is None, (result.name, result.seed, result.mismatch)
    assert sum(result.events for result in tiny_results) > 5000
    assert max(result.T_max for result in tiny_results) > 1 << 14  # high_levels: past 2^14


@pytest.mark.slow
def test_the_tiny_runs_reach_every_path(tiny_results):
    # A path no tiny run reaches is a place where `make test` cannot see a planner bug; when a
    # change of the rules makes a scenario miss one, the scenario needs changing, not this list.
    reached = {path: sum(result.paths[path] for result in tiny_results) for path in PATHS}
    assert [path for path, count in reached.items() if count == 0] == []


def _events(name, seed):
    # a generator reads a driving side's running list; drive it from the model as the bridge does
    from bridge.__main__ import Sides

    run = runs("tiny", name, seed)[0]
    sides = Sides(run.config)
    out = []
    for k, event in enumerate(run.events(sides.probe)):
        if run.kind == "planner":
            sides.model_step(k, event)
        out.append(format_event(event))
    return out


def test_a_scenario_is_the_same_for_the_same_name_and_seed():
    assert _events("late_1500", 1) == _events("late_1500", 1)
    assert _events("late_1500", 1) != _events("late_1500", 2)


def test_the_scenario_format_round_trips():
    for name in ("late_1500", "restarts", "line_scripts", "line_tries", "breaks", "stale_outcomes"):
        for text in _events(name, 1):
            assert "\n" not in text and "\r" not in text and "\u2028" not in text
            assert format_event(parse_event(text)) == text


def test_a_difference_is_reported_with_its_replay_command(monkeypatch, capsys, tmp_path):
    # The production printer shows contexts at another period: a trace difference, not a
    # planner difference, but the runner must report it the same way.
    monkeypatch.setattr(harness.memory.trace, "CONTEXT_EVERY", 32)
    code = main(["--scale", "tiny", "--scenario", "deep_4000", "--seed", "1", "--jobs", "1"])
    printed = capsys.readouterr().out
    assert code == 1
    head = "DIFFERENCE in scenario deep_4000, seed 1, scale tiny, at event "
    assert head in printed
    k = int(printed.split(head)[1].split()[0])
    assert (k + 1) % 32 == 0 and (k + 1) % 64 != 0
    assert "replay: python -m bridge --scenario deep_4000 --seed 1 --scale tiny" in printed
    assert printed.strip().splitlines()[-1].endswith("DIFFER in 1 runs")


def test_the_summary_line_gives_runs_events_and_largest_T(capsys):
    code = main(["--scale", "tiny", "--scenario", "late_2500", "--jobs", "1"])
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert code == 0
    assert last.startswith("bridge tiny: 1 runs, ")
    assert "largest T 200" in last
    assert last.endswith(": agree")


def _example_blocks():
    text = open("bridge/FORMAT.md", encoding="utf-8").read().split("## Example", 1)[1]
    blocks = text.split("```")[1::2]
    return blocks[0].strip("\n").split("\n"), blocks[1].strip("\n").split("\n")


def test_the_format_example_is_what_both_printers_print():
    from bridge import model_trace
    from bridge.__main__ import Sides
    from harness.memory import trace as harness_trace

    scenario, expected = _example_blocks()
    assert scenario[1].startswith("config ")
    config = tuple(int(n) for n in scenario[1].split()[1:])
    # FORMAT.md elides the 600-byte message and the 500 x's of node 1+1's text as "x…"
    lines = [
        line.replace('"tool: read x…"', '"tool: read ' + "x" * 500 + '"').replace('"x…"', '"' + "x" * 600 + '"')
        for line in scenario[2:]
    ]
    events = [parse_event(line) for line in lines]
    sides = Sides(config)
    model_lines, harness_lines = [], []
    for k, event in enumerate(events):
        model_lines += sides.model_step(k, event)
        harness_lines += sides.harness_step(k, event)
    model_lines += model_trace.end_records(len(events), sides.state)
    harness_lines += harness_trace.final_records(len(events), sides.planner)
    wanted = [line.replace("→", "\t").replace("x…", "x" * 500) for line in expected]
    assert model_lines == wanted
    assert harness_lines == wanted
