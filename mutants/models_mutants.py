"""Bugs planted in what Ever knows of each model (harness/calls/models.py, harness/calls/capabilities.py),
in the strict local API's rules for the newer models (harness/localapi/), and in the recall bench's
model-free parts, each of which a test that `make test` runs must catch.

Strategy: one mutant for each rule that matters: a window taken from the table when the Models API
said otherwise; a model only the API lists refused as if unknown; Sonnet 5.5's "off" sent as
`disabled`; the text between tool calls not asked for on the models that hide it; forced tool use
let through; the stand-in accepting a thinking block from another model or a forced tool choice;
the baseline's chunk sized past the summarizer's window; search alone counting a hit past the top 10.
"""

from mutants.base import Mutant


def test(name: str) -> tuple:
    """One pytest test: the judge needs the test it names."""
    return ("python", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", name)


API = "tests/calls/test_models_api.py::"
CAPS = "tests/calls/test_capabilities.py::"
LOCAL = "tests/localapi/test_newer_models.py::"
ALONE = "tests/bench/test_recall_search_alone.py::"

MUTANTS = [
    Mutant(
        name="window_from_the_table",
        path="harness/calls/capabilities.py",
        old='        fields["context_window"] = window\n',
        new="        pass\n",
        check=test(API + "test_a_window_the_models_api_gives_is_the_one_checked_not_the_tables"),
        note="a window taken from the table when the Models API said otherwise",
    ),
    Mutant(
        name="listed_model_unknown",
        path="harness/calls/models.py",
        old="    return listed if listed is not None else table_row(model_id)\n",
        new="    return table_row(model_id)\n",
        check=test(API + "test_a_model_only_the_models_api_knows_is_answered_within_its_own_window"),
        note="a model only the Models API lists is checked against the smallest window, as if unknown",
    ),
    Mutant(
        name="off_sent_as_disabled",
        path="harness/calls/models.py",
        old="            if self.can_disable:\n                return {\"thinking\": {\"type\": \"disabled\"}}\n",
        new="            if True:\n                return {\"thinking\": {\"type\": \"disabled\"}}\n",
        check=test(API + "test_off_on_sonnet_5_5_is_between_tools_and_a_turn_with_tools_runs"),
        note="thinking off is sent as disabled to Sonnet 5.5, which answers a 400",
    ),
    Mutant(
        name="display_not_asked",
        path="harness/calls/models.py",
        old='        return {**thinking, "display": "summarized"} if self.display_omitted else thinking\n',
        new="        return thinking\n",
        check=test(API + "test_the_text_between_tool_calls_is_asked_for_and_shown[claude-sonnet-5-5]"),
        note="the text between tool calls comes back empty on the newer models and is never shown",
    ),
    Mutant(
        name="forced_tool_use_let_through",
        path="harness/calls/models.py",
        old='    if isinstance(choice, dict) and choice.get("type") in ("any", "tool") and not model.forced_tool_choice:\n',
        new="    if False:\n",
        check=test(API + "test_forced_tool_use_on_the_newer_models_is_refused_before_a_call"),
        note="forced tool use is sent to a model that refuses it",
    ),
    Mutant(
        name="standin_takes_forced_tool_use",
        path="harness/localapi/validation.py",
        old='    if not model.forced_tool_choice and is_json_object(choice) and choice.get("type") in ("any", "tool"):\n',
        new="    if False:\n",
        check=test(LOCAL + "test_sonnet_5_5_refuses_forced_tool_use_prefill_disabled_and_between_tools_at_max"),
        note="the local API accepts the forced tool use the newer models refuse",
    ),
    Mutant(
        name="standin_takes_another_models_thinking",
        path="harness/localapi/validation.py",
        old="                    and signature != signed_by(model_id):\n",
        new="                    and False:\n",
        check=test(LOCAL + "test_a_thinking_block_from_another_model_is_refused_by_the_newer_models"),
        note="the local API accepts a thinking block another model wrote",
    ),
    Mutant(
        name="standin_lists_one_page",
        path="harness/localapi/catalogue.py",
        old="            has_more = limit < len(ids)\n",
        new="            has_more = False\n",
        check=test(API + "test_the_sdk_reads_every_page_of_the_local_models_list"),
        note="the local Models API says there is no more after its first page",
    ),
    Mutant(
        name="baseline_chunk_past_the_window",
        path="harness/bench/recall.py",
        old="    return BaselineBudget(min(BASELINE_CHUNK_BYTES, room), summary_bytes, max_tokens)\n",
        new="    return BaselineBudget(BASELINE_CHUNK_BYTES, summary_bytes, max_tokens)\n",
        check=test(ALONE + "test_every_baseline_call_stays_within_the_summarizers_window_at_the_default_size[200000-anthropic]"),
        note="the baseline's chunk is 400 KB whatever the summarizer's window, past Haiku 4.5's",
    ),
    Mutant(
        name="search_alone_past_the_top",
        path="harness/bench/recall.py",
        old="                hits = run_search(memory.store, lines, fact.question, per_page=SEARCH_ALONE_TOP)\n",
        new="                hits = run_search(memory.store, lines, fact.question, per_page=1000)\n",
        check=test(ALONE + "test_the_search_alone_figure_on_the_default_synthetic_chat_is_the_one_docs_recall_states"),
        note="search alone counts a planted message found anywhere, not in the top 10",
    ),
    Mutant(
        name="default_models_legacy",
        path="harness/chat/config.py",
        old='    "memory.model": "claude-haiku-5-5",\n',
        new='    "memory.model": "claude-haiku-4-5",\n',
        check=test("tests/chat/test_config.py::test_the_default_models_are_current_and_their_requests_are_ones_the_api_takes"),
        note="the compactor left on a legacy model, ten times the price of the current Haiku [H32]",
    ),
]
