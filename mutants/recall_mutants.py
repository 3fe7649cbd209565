"""Bugs planted in `ever bench recall` (the generator, the scoring, the arms), each of which a test
that `make test` runs must catch.

Strategy: one mutant for each promise docs/recall.md makes: the latest word on an instruction is
the one planted last [M1], an old value is scored as such and a number needs its unit [M2], the
zoom arm has no search and no answer reaches the built chat [M3]; each call goes on its model's
provider's wire, and the baseline is sized from the window the server lists [H35].
"""

from mutants.base import Mutant


def test(name: str) -> tuple:
    """One pytest test: the judge needs the test it names."""
    return ("python", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", name)


PLANTED = "tests/memory/test_planted.py::"
SCORING = PLANTED + "test_scoring_is_exact_on_hand_written_answers"
END_TO_END = "tests/chat/test_recall.py::test_the_three_arms_run_end_to_end_and_say_the_figure_measures_nothing"
PROVIDERS = "tests/chat/test_recall_providers.py::"

MUTANTS = [
    Mutant(
        name="instruction_changes_out_of_order",
        path="harness/bench/planted.py",
        old="        later = sorted(r.randint(first + 1, max(first + 1, messages - 1)) for _ in runs[1:])\n",
        new="        later = [r.randint(first + 1, max(first + 1, messages - 1)) for _ in runs[1:]]\n",
        check=test(PLANTED + "test_an_instructions_latest_value_is_the_last_said_and_the_older_come_before"),
        note="an instruction's changes are planted in any order, so the expected value is not the latest word [M1]",
    ),
    Mutant(
        name="superseded_scored_right",
        path="harness/bench/planted.py",
        old="    if any(holds(answer, old, fact.case) for old in fact.superseded):\n",
        new="    if False:\n",
        check=test(SCORING + "[instruction: 'French']"),
        note="an answer naming an instruction's old value is not scored superseded [M2]",
    ),
    Mutant(
        name="number_without_its_unit",
        path="harness/bench/planted.py",
        old="        right = bool(wanted) and wanted[0] in measures(answer)\n",
        new="        right = bool(wanted) and wanted[0][0] in [number for number, _ in measures(answer)]\n",
        check=test(SCORING + "[number: '347 s']"),
        note="347 s is scored right for 347 ms [M2]",
    ),
    Mutant(
        name="zoom_arm_keeps_search",
        path="harness/bench/recall.py",
        old='    drop = {"agent", "tell"} | ({"search"} if arm == "zoom" else set())\n',
        new='    drop = {"agent", "tell"}\n',
        check=test(END_TO_END),
        note="the zoom arm is offered search, so it measures zoom and search twice [M3]",
    ),
    Mutant(
        name="answers_in_the_built_chat",
        path="harness/bench/recall.py",
        old="            memory = Memory.open(scratch)  # no compactor: nothing in the copy outlives the answer\n",
        new="            memory = Memory.open(s.home)\n",
        check=test(END_TO_END),
        note="each answer is asked in the built chat itself, so later questions see earlier answers [M3]",
    ),
    Mutant(
        name="bench_always_on_the_messages_api",
        path="harness/bench/recall.py",
        old="        settings = ClientSettings(api_key=s.api_key, base_url=s.base_url, route=route(model, s.providers))\n",
        new="        settings = ClientSettings(api_key=s.api_key, base_url=s.base_url, route=route(\"\", s.providers))\n",
        check=test(PROVIDERS + "test_the_recall_bench_goes_through_each_providers_wire[mixed]"),
        note="the bench calls every model through the Messages API, so a local compactor is never called [H35]",
    ),
    Mutant(
        name="baseline_window_from_the_table",
        path="harness/bench/recall.py",
        old="        budget = baseline_budget(self.window(metered, s.memory_model))\n",
        new="        budget = baseline_budget(lookup(s.memory_model).window)\n",
        check=test(PROVIDERS + "test_the_baselines_chunks_are_sized_from_the_window_the_server_lists"),
        note="the baseline's chunks sized from the table's window when the server listed a smaller one [H35]",
    ),
]
