"""Planted bugs in the model, each with the law that must catch it: every law seen to fail.

Strategy: each mutant is a plausible one-line mistake in model/ (never in the law that checks it),
applied to a copy of the tree by `python -m mutants`; its check runs one law with
`python -m laws --only NAME`, whose line must say FAIL (mutants/judge.py). The first fifteen are
the classic breaks of the due order, the batch, the context and the line; the rest give each law
a bug of its own, where one is practical. The last group plants holes in the guards themselves
(a vacuous contract, a weaker label, a count below its minimum, a registry that drops a module):
each must be caught by the law or the test that guards it.
"""

from mutants.base import Mutant


def test(*node_ids: str) -> tuple:
    return ("python", "-m", "pytest", "-q", "-p", "no:cacheprovider") + node_ids


def law(*names: str) -> tuple:
    argv = ("python", "-m", "laws")
    for name in names:
        argv = argv + ("--only", name)
    return argv


VIEW = "model/view.py"
PLANNER = "model/planner.py"
PUSH = "model/push.py"
LINE = "model/line.py"
BASE = "model/base.py"
HARNESS_PLANNER = "harness/memory/planner.py"
HARNESS_CHECKPOINT = "harness/memory/checkpoint.py"
# the production batch heap's entry (`_View.entry`): the function `_View.fit` pushes
HEAP_KEY = "        return (-((T + 1 - first) << (LEVELS_MAX - l)), first, l)\n"

MORE_DUE_LASTS = "last_a = ((ia + 2) << la) - 1\n    last_b = ((ib + 2) << lb) - 1"
MORE_DUE_RETURN = "return (T - last_a) << lb > (T - last_b) << la"
FOLD_FIT = "fitted, _ = fit(grown, T, budget_lines, EVERY_PARENT, due_from_first)"
BUILT_CHECK = "is_pair(a, item(view, k + 1)) & parents.built(a.l + 1, a.i >> 1)"

MUTANTS = [
    # ---- the named breaks ----
    Mutant("due_from_first", VIEW, MORE_DUE_LASTS, "last_a = ia << la\n    last_b = ib << lb",
           law("push_agrees_always"), "more_due measures from the pair's first message"),
    Mutant("due_from_first_t10", VIEW, MORE_DUE_LASTS, "last_a = ia << la\n    last_b = ib << lb",
           law("last_merges_8_9"), "the same bug, caught by the gist's T = 10 example"),
    Mutant("due_without_shift", PUSH, FOLD_FIT, FOLD_FIT.replace("grown, T,", "grown, T - 1,"),
           law("push_agrees_always"), "the fold measures due from T − 1 (eukhe's t for T + 1)"),
    Mutant("due_last_plus_one", VIEW, MORE_DUE_LASTS, "last_a = (ia + 2) << la\n    last_b = (ib + 2) << lb",
           law("push_agrees_always"), "last is one past the pair's last message: the order shifts by one"),
    Mutant("levels_swapped", VIEW, MORE_DUE_RETURN, "return (T - last_a) << la > (T - last_b) << lb",
           law("due_cross_is_rational"), "the two levels swapped in the cross comparison"),
    Mutant("levels_swapped_push", VIEW, MORE_DUE_RETURN, "return (T - last_a) << la > (T - last_b) << lb",
           law("push_agrees_always"), "the same bug, caught by push_agrees_always's L4"),
    Mutant("budget_plus_one", PUSH, FOLD_FIT, FOLD_FIT.replace("budget_lines,", "budget_lines + 1,"),
           law("push_agrees_always"), "the fold's budget is push's length + 1"),
    Mutant("merge_unbuilt_parent", VIEW, BUILT_CHECK, "is_pair(a, item(view, k + 1))",
           law("fit_merges_built"), "most_due without the built check"),
    Mutant("batch_to_ceiling", PLANNER, "view, merges = fit(view, state.T, c.view_bytes_floor, parents)",
           "view, merges = fit(view, state.T, c.view_bytes_ceiling, parents)",
           law("sawtooth_holds"), "a batch stops at the ceiling instead of the floor"),
    Mutant("context_from_start", VIEW, "(last(line.l, line.i) <= end)", "(first(line.l, line.i) <= end)",
           law("context_ends_at_node"), "a context takes the lines that start before the node's end"),
    Mutant("window_off_by_one", PLANNER, "window = unbuilt[: c.jobs_max]", "window = unbuilt[: c.jobs_max + 1]",
           law("message_window_holds"), "the level-0 window is one line too wide"),
    Mutant("no_failure_cap", PLANNER, "if count >= state.config.failures_max:", "if False:",
           law("fail_cap_builds"), "no failure cap: a node fails forever"),
    Mutant("six_tries", LINE, "TRIES_MAX = 5", "TRIES_MAX = 6",
           law("line_calls_at_most_tries"), "6 tries instead of 5"),
    Mutant("keep_last_try", LINE,
           "        if best != \"\" and utf8_bytes(text) >= utf8_bytes(best):\n            break",
           "        if best != \"\" and utf8_bytes(text) >= utf8_bytes(best):\n            best = text\n            break",
           law("line_keeps_shortest"), "the last try is kept instead of the shortest"),
    Mutant("placeholder_zero_bytes", VIEW, "return Line(0, i, source, False, utf8_bytes(name(0, i)) + 1 + LINE_BYTES_MAX + 1)",
           "return Line(0, i, source, False, 0)",
           law("view_bytes_rendered"), "an unsummarized line counts 0 bytes"),
    # ---- one per added law ----
    Mutant("message_prepends", PLANNER, "view=appended(state.view, line),", "view=(line,) + state.view,",
           law("view_covers"), "a message's line goes at the start of the view"),
    Mutant("message_prepends_appends", PLANNER, "view=appended(state.view, line),", "view=(line,) + state.view,",
           law("message_appends"), "the same bug, caught by message_appends"),
    Mutant("cview_skips_message", PLANNER, "cview=appended(state.cview, line),", "cview=state.cview,",
           law("cview_covers"), "the compaction view misses the new message"),
    Mutant("merge_keeps_right_half", BASE, "return items[:k] + (new,) + items[k + 2 :]",
           "return items[:k] + (new,) + items[k + 1 :]",
           law("twins_agree"), "replacing a pair keeps its right half: the Z3 twin no longer matches"),
    Mutant("merge_parent_not_halved", VIEW, "return pair_replaced(view, k, parents.line(a.l + 1, a.i >> 1))",
           "return pair_replaced(view, k, parents.line(a.l + 1, a.i))",
           law("merge_covers"), "a merge's parent keeps the left half's index"),
    Mutant("merge_parent_same_level", VIEW, "return pair_replaced(view, k, parents.line(a.l + 1, a.i >> 1))",
           "return pair_replaced(view, k, parents.line(a.l, a.i >> 1))",
           law("merge_is_one_pair"), "a merge's parent line is at its halves' level"),
    Mutant("merged_line_unbuilt", VIEW, "line = Line(l, i, text, True, 0)\n    return Line(l, i, text, True, utf8_bytes(rendered(line)) + 1)",
           "line = Line(l, i, text, True, 0)\n    return Line(l, i, text, l == 0, utf8_bytes(rendered(line)) + 1)",
           law("view_summarized"), "a merged node's line is not marked built"),
    Mutant("merged_line_unbuilt_cview", VIEW, "line = Line(l, i, text, True, 0)\n    return Line(l, i, text, True, utf8_bytes(rendered(line)) + 1)",
           "line = Line(l, i, text, True, 0)\n    return Line(l, i, text, l == 0, utf8_bytes(rendered(line)) + 1)",
           law("cview_summarized"), "the same bug, in the compaction view"),
    Mutant("batch_below_ceiling", PLANNER, "shrinking = state.shrinking | (view_bytes(state.view) > c.view_bytes_ceiling",
           "shrinking = state.shrinking | (view_bytes(state.view) > c.view_bytes_floor",
           law("message_merges_nothing"), "a batch starts past the floor, not the ceiling"),
    Mutant("fit_stops_early", VIEW, "(view_bytes(view) > budget_bytes)", "(view_bytes(view) > budget_bytes + 1)",
           law("fit_reaches_budget"), "fit stops one byte over its budget"),
    Mutant("context_skips_unbuilt", VIEW, "goes_on = (count == k) & ", "goes_on = ",
           law("context_ends_at_node"), "a context skips an unbuilt line instead of stopping"),
    Mutant("context_adds_newest", VIEW, "    return prefix(cview, count)",
           "    return appended(prefix(cview, count), item(cview, length(cview) - 1))",
           law("context_is_prefix"), "a context also carries the compaction view's newest line"),
    Mutant("due_ties_to_newer", VIEW, MORE_DUE_RETURN, "return (T - last_a) << lb >= (T - last_b) << la",
           law("due_is_transitive"), "equal pairs compare as more due: the newer of a tie wins"),
    Mutant("due_ties_to_newer_orders", VIEW, MORE_DUE_RETURN, "return (T - last_a) << lb >= (T - last_b) << la",
           law("heap_keys_order_as_more_due"), "the same bug, against the production heap's order"),
    Mutant("merges_while_waiting", PLANNER, "    elif len(running) + len(candidates) < c.jobs_max:\n        idle = tuple(",
           "    if len(running) + len(candidates) < c.jobs_max:\n        idle = tuple(",
           law("need_first"), "ready merges start while a turn waits"),
    Mutant("others_keep_running", PLANNER, "        short = len(candidates) - (c.jobs_max - len(running))",
           "        short = 0",
           law("need_first"), "a waiting turn lets other calls run on while its lines need their slots"),
    Mutant("retry_ignored", PLANNER, "    elif isinstance(event, Retry):\n        state = replace(state, retry_later=())",
           "    elif isinstance(event, Retry):\n        state = state",
           law("settle_reached"), "a failed line waits for the next message even after the backoff, while a turn waits"),
    Mutant("line_not_cut", LINE, "    return Outcome(calls, cut(best, LINE_BYTES_MAX), follow_ups)",
           "    return Outcome(calls, best, follow_ups)",
           law("line_fits"), "the kept line is not cut to 512 bytes"),
    Mutant("fit_of_512_goes_on", LINE, "        if utf8_bytes(best) <= LINE_BYTES_MAX:\n            break",
           "        if utf8_bytes(best) < LINE_BYTES_MAX:\n            break",
           law("line_takes_first_fit"), "a reply of exactly 512 bytes does not end the tries"),
    Mutant("equal_follow_up_goes_on", LINE, "utf8_bytes(text) >= utf8_bytes(best)", "utf8_bytes(text) > utf8_bytes(best)",
           law("line_stops_when_not_shorter"), "a follow-up of the same length does not end the tries"),
    Mutant("empty_reply_skipped", LINE, "        if text == \"\":\n            break", "        if text == \"\":\n            continue",
           law("line_empty_is_a_try"), "an empty reply is skipped instead of ending the tries"),
]

# ---- the bounded laws and examples of laws/bounded.py, and the lints ----
MUTANTS += [
    Mutant("due_from_first_bounded", VIEW, MORE_DUE_LASTS, "last_a = ia << la\n    last_b = ib << lb",
           law("push_agrees"), "more_due from the first message, caught by the bounded run"),
    Mutant("levels_swapped_shifted", VIEW, MORE_DUE_RETURN, "return (T - last_a) << la > (T - last_b) << lb",
           law("shifted_agrees_with_push"), "levels swapped: the shifted order leaves push too"),
    Mutant("first_from_second_line", VIEW, "    first_a = ia << la\n", "    first_a = (ia + 1) << la\n",
           law("first_agrees_481"), "the first rule measures pair a from its second line: not the gist's 481"),
    Mutant("first_is_last", VIEW, "    first_a = ia << la\n    first_b = ib << lb",
           "    first_a = ((ia + 2) << la) - 1\n    first_b = ((ib + 2) << lb) - 1",
           law("first_merges_0_7"), "the first rule measures from last after all"),
    Mutant("first_is_last_differs", VIEW, "    first_a = ia << la\n    first_b = ib << lb",
           "    first_a = ((ia + 2) << la) - 1\n    first_b = ((ib + 2) << lb) - 1",
           law("first_is_not_last"), "the same: the two orders no longer differ at T = 10"),
    Mutant("first_is_last_stays", VIEW, "    first_a = ia << la\n    first_b = ib << lb",
           "    first_a = ((ia + 2) << la) - 1\n    first_b = ((ib + 2) << lb) - 1",
           law("first_leaves_push"), "the same: first never leaves push"),
    Mutant("due_ties_to_newer_at_11", VIEW, MORE_DUE_RETURN, "return (T - last_a) << lb >= (T - last_b) << la",
           law("tie_at_11"), "the newer of equal pairs merges"),
    Mutant("model_draws_random", VIEW, "from dataclasses import dataclass\n",
           "from dataclasses import dataclass\nimport random\n",
           law("tie_at_11"), "the model imports randomness: the subset lint, run before every law, fails", lint=True),
    Mutant("harness_imports_model", "harness/memory/planner.py", "import heapq\n", "import heapq\nimport model.view\n",
           test("tests/model/test_subset.py::test_the_model_keeps_to_its_subset_and_harness_never_imports_it"),
           "harness/ imports the model: the layering lint fails", lint=True),
    Mutant("memory_imports_calls", "harness/memory/store.py", "from harness.memory.text import utf8_bytes, valid_text\n",
           "from harness.memory.text import utf8_bytes, valid_text\nfrom harness.calls.prompt import Prompt  # noqa: F401\n",
           test("tests/model/test_subset.py::test_the_model_keeps_to_its_subset_and_harness_never_imports_it"),
           "the memory imports the calls: the layering lint fails", lint=True),
    Mutant("calls_import_the_chat_lazily", "harness/calls/tools.py",
           "from harness.memory.images import ToolResult, error_result\n",
           "from harness.memory.images import ToolResult, error_result\n\n\ndef _settings():\n    from harness.chat.config import load_settings\n    return load_settings()\n",
           test("tests/model/test_subset.py::test_the_model_keeps_to_its_subset_and_harness_never_imports_it"),
           "a call imports the chat: the layering lint fails", lint=True),
    Mutant("terminal_imports_the_local_api", "harness/chat/terminal.py", "from harness.memory.text import valid_text\n",
           "from harness.memory.text import valid_text\nfrom harness.localapi.server import LocalAPI  # noqa: F401\n",
           test("tests/model/test_subset.py::test_the_model_keeps_to_its_subset_and_harness_never_imports_it"),
           "the product imports the local API outside the demo: the layering lint fails", lint=True),
    Mutant("browse_imports_a_benchmark", "harness/browse/browsing.py", "from harness.memory.store import ChatBusy\n",
           "from harness.memory.store import ChatBusy\nfrom harness.bench.planted import generate  # noqa: F401\n",
           test("tests/model/test_subset.py::test_the_model_keeps_to_its_subset_and_harness_never_imports_it"),
           "the product imports a benchmark: the layering lint fails", lint=True),
]

# ---- the laws searched by Hypothesis (laws/searched.py) ----
MUTANTS += [
    Mutant("cview_keeps_placeholder", PLANNER, "        cview = with_line(cview, line)\n",
           "        cview = cview\n",
           law("cview_coarsens_view"), "a built message's line is not updated in the compaction view"),
    Mutant("one_call_too_many", PLANNER, "        running = running + candidates[:slots]",
           "        running = running + candidates[: slots + 1]",
           law("queue_is_sound"), "one more call starts than there are slots"),
    Mutant("built_at_level_0", PLANNER, "        tree=tree_put(state.tree, l, i, text),",
           "        tree=tree_put(state.tree, 0 if l > 0 and i == 0 else l, i, text),",
           law("built_once"), "a merge's text is logged under the wrong level, over a message's"),
    Mutant("free_below_512", PLANNER, "    if utf8_bytes(source) <= LINE_BYTES_MAX:",
           "    if utf8_bytes(source) < LINE_BYTES_MAX:",
           law("free_nodes_never_wait"), "a source of exactly 512 bytes waits for a call"),
]

# ---- the production twins, against the model (laws/confirmed.py diffbehavior) ----
MUTANTS += [
    # the production batch orders pairs by its heap's entries (`_View.entry`): its bugs are
    # planted there
    Mutant("planner_due_levels_swapped", "harness/memory/planner.py", HEAP_KEY,
           "        return (-((T + 1 - first) << l), first, l)\n",
           law("due_matches_production"), "the production order multiplies by its own level's power, not the other's"),
    Mutant("planner_due_ties_to_newer", "harness/memory/planner.py", HEAP_KEY,
           "        return (-(((T + 1 - first) << (LEVELS_MAX - l)) + first), first, l)\n",
           law("due_matches_production"), "the production order lets the newer of equal pairs win"),
]
MUTANTS += [
    Mutant("cut_keeps_a_split_character", "harness/memory/line.py",
           "    while end > 0 and data[end] & 0xC0 == 0x80:\n        end -= 1\n    return data[:end].decode(\"utf-8\")",
           "    return data[:end].decode(\"utf-8\", \"replace\")",
           ("python", "-m", "bridge", "--scale", "tiny"),
           "the production cut keeps half a character as U+FFFD: the bridge's line scripts put a multibyte "
           "character at the cut"),
]

# ---- the production cut, and the model's, around multibyte characters ----
SPLIT_CUT = ("    while end > 0 and data[end] & 0xC0 == 0x80:\n        end -= 1\n    return data[:end].decode(\"utf-8\")",
             "    return data[:end].decode(\"utf-8\", \"replace\")")
MUTANTS += [
    Mutant("cut_splits_a_character", "harness/memory/line.py", SPLIT_CUT[0], SPLIT_CUT[1],
           law("cut_keeps_whole_characters"), "the production cut keeps half a character as U+FFFD"),
    Mutant("cut_splits_a_character_diff", "harness/memory/line.py", SPLIT_CUT[0], SPLIT_CUT[1],
           law("cut_matches_production"), "the same bug, found by CrossHair's diffbehavior on short texts"),
    Mutant("cut_one_byte_short", "harness/memory/line.py", "    end = bytes_max\n", "    end = bytes_max - 1\n",
           law("cut_keeps_whole_characters"), "the production cut stops one byte before its budget"),
    Mutant("model_cut_keeps_half_a_character", LINE, 'decode("utf-8", "ignore")', 'decode("utf-8", "replace")',
           law("cut_keeps_whole_characters"), "the model's cut keeps half a character as U+FFFD"),
]

# ---- holes in the guards themselves: each caught by the law or test that guards it ----
CONFIRMED = "laws/confirmed.py"
MUTANTS += [
    Mutant("guard_lets_nothing_through", "laws/contracts/twins.py", "CUT_CHARS_MAX = 8", "CUT_CHARS_MAX = -1",
           law("cut_matches_production"), "the cut twins' guard rejects every text: both sides agree on everything"),
    Mutant("diffbehavior_gives_up_early", CONFIRMED, '"cut": 30,', '"cut": 1,',
           law("cut_matches_production"), "diffbehavior's budget too small: fewer iterations than the registry's minimum"),
    Mutant("fewer_histories", "laws/searched.py", "HISTORIES = 250", "HISTORIES = 100",
           law("queue_is_sound"), "Hypothesis searches 100 histories: below the registry's 250"),
    Mutant("fewer_settle_waits", "laws/universal.py", "        if number % 5:", "        if number % 50:",
           law("settle_reached"), "settle_reached starts from a tenth of the states: below its registered minimum"),
    Mutant("registry_drops_a_module", "laws/registry.py", "MODULES = (bounded, canaries, universal, z3_ceiling, work_queue, choice, restarts, protocol, confirmed, searched)",
           "MODULES = (bounded, canaries, z3_ceiling, work_queue, choice, restarts, protocol, confirmed, searched)",
           test("tests/laws/test_laws_table.py::test_the_laws_pages_table_is_the_registrys"),
           "the registry leaves out laws/universal.py's laws"),
    Mutant("counts_by_opening", "laws/registry.py",
           "    counts = {name: sum(1 for law in rows if kind(law.strength) == name) for name in STRENGTHS}",
           "    counts = {name: sum(1 for law in rows if opening(law.strength) == name) for name in STRENGTHS}",
           test("tests/laws/test_laws_table.py::test_the_counts_rank_each_law_by_its_weakest_part"),
           "the README's counts rank a law by its first part, a proof with a searched link as a proof"),
    Mutant("strengths_out_of_order", "laws/core.py",
           'STRENGTHS = ("Proved (Z3)", "Confirmed (CrossHair)", "Bounded", "Searched", "Example")',
           'STRENGTHS = ("Proved (Z3)", "Confirmed (CrossHair)", "Searched", "Bounded", "Example")',
           test("tests/laws/test_laws_table.py::test_the_strengths_are_ordered_proved_confirmed_bounded_searched_example"),
           "a search ranks above a bound"),
    Mutant("minimum_not_compared", "laws/core.py", "        if number(found) < number(minimum):",
           "        if False:",
           test("tests/laws/test_laws_table.py::test_a_count_below_its_registered_minimum_falls_short"),
           "a count below the registry's minimum is accepted"),
    Mutant("shortfall_only_printed", "laws/__main__.py", "            if short:\n                outcome = \"FAIL\"",
           "            if short:\n                print(f\"note: {short}\")",
           test("tests/laws/test_laws_table.py::test_a_law_that_earns_less_than_the_registry_fails_the_run_and_writes_no_table"),
           "a label below the registry's is only a note, and the table is written"),
    Mutant("witness_not_asked", CONFIRMED,
           "    problem = witness.contract_problem(getattr(views, name), views.WITNESSES.get(name, ()))\n    if problem:",
           "    problem = None\n    if problem:",
           test("tests/laws/test_confirmed.py::test_confirmed_without_a_witness_fails"),
           "CrossHair's Confirmed is taken without the witnesses"),
]

# ---- holes in the mutant runner's judge (mutants/judge.py) ----
JUDGE = "mutants/judge.py"
MUTANTS += [
    Mutant("judge_counts_a_crash", JUDGE,
           '        if verdict == "CRASH":\n            return False, f"{name} crashed, it did not fail: {detail[:140]}"\n'
           '        if verdict != "FAIL":',
           '        if verdict == "pass":',
           test("tests/mutants/test_mutant_runner.py::test_a_crash_or_a_missing_line_read_from_the_laws_output_is_not_a_catch"),
           "a law that raised counts as a catch"),
    Mutant("judge_takes_any_failing_exit", JUDGE,
           '    """(caught, why): caught only when the named check failed for its own reason."""\n',
           '    """(caught, why): caught only when the named check failed for its own reason."""\n'
           '    if status != 0:\n        return True, f"exited {status}"\n',
           test("tests/mutants/test_mutant_runner.py::test_a_pytest_check_counts_only_an_assertion_in_the_named_test"),
           "any non-zero exit counts as a catch"),
    Mutant("judge_trusts_law_names", JUDGE, "        unknown = sorted(set(names) - set(known_laws))",
           "        unknown = []",
           test("tests/mutants/test_mutant_runner.py::test_a_misspelled_or_missing_law_name_is_malformed"),
           "a check against a law that does not exist is run"),
]

# ---- the planner's corrections: each puts an old behaviour back ----
TURN_VIEW_FOLD = ("    summarized, _ = fit(shown, T, ceiling_bytes, parents)\n"
                  "    coarser, _ = fit(summarized, T, ceiling_bytes, coarse(parents))\n"
                  "    return coarser\n")
CONTEXT_FITS = "        fits = total + line.bytes <= budget_bytes\n"
MUTANTS += [
    Mutant("turn_sends_the_view", VIEW, TURN_VIEW_FOLD, "    return shown\n",
           law("view_within_ceiling_on_runs"), "a turn sends the view as it is, past its ceiling when no pair can merge (before [P19])"),
    Mutant("turn_sends_the_view_proved", VIEW, TURN_VIEW_FOLD, "    return shown\n",
           law("turn_view_within_ceiling"), "the same, caught by the proof on the model's code"),
    Mutant("turn_folds_built_parents_only", VIEW, TURN_VIEW_FOLD, "    summarized, _ = fit(shown, T, ceiling_bytes, parents)\n    return summarized\n",
           law("turn_view_within_ceiling"), "a turn merges only pairs whose parent is built: stuck past its ceiling after an import"),
    Mutant("context_without_budget", VIEW, CONTEXT_FITS, "        fits = total + line.bytes >= 0\n",
           law("view_within_ceiling_on_runs"), "a compaction's context stops only at an unbuilt line, past its budget (before [P19])"),
    Mutant("context_without_budget_proved", VIEW, CONTEXT_FITS, "        fits = total + line.bytes >= 0\n",
           law("context_within_budget"), "the same, caught by the proof on the model's code"),
    Mutant("sibling_search_prunes_the_wrong_pairs", "laws/bounded.py",
           "if not (lines and lines[-1] == (l, i - 1) and i % 2 == 1):",
           "if not (lines and lines[-1] == (l, i - 1) and i % 2 == 0):",
           law("sibling_free_view_is_binary"), "the search drops non-siblings side by side instead of siblings"),
    Mutant("context_budget_off_by_one", VIEW, CONTEXT_FITS, "        fits = total + line.bytes <= budget_bytes + 1\n",
           law("context_within_budget"), "a context may pass its budget by one byte"),
    Mutant("reserve_as_placeholder", VIEW,
           "    return Line(0, i, source, False, utf8_bytes(name(0, i)) + 1 + LINE_BYTES_MAX + 1)",
           "    return Line(0, i, source, False, utf8_bytes(name(0, i)) + 1 + utf8_bytes(PLACEHOLDER) + 1)",
           law("view_within_ceiling_on_runs"), "an unbuilt line counts its placeholder, so built lines overshoot the ceiling"),
    Mutant("reserve_as_placeholder_bytes", VIEW,
           "    return Line(0, i, source, False, utf8_bytes(name(0, i)) + 1 + LINE_BYTES_MAX + 1)",
           "    return Line(0, i, source, False, utf8_bytes(name(0, i)) + 1 + utf8_bytes(PLACEHOLDER) + 1)",
           law("view_bytes_rendered"), "the same, caught by the byte count's own law"),
    Mutant("placeholder_shows_source", VIEW,
           "    return name(line.l, line.i) + \"|\" + PLACEHOLDER",
           "    return name(line.l, line.i) + \"|\" + flatten(line.text[:200])",
           law("unsettled_view_shows_placeholders"), "an unsummarized line shows the start of its message [gist §7.5]"),
    Mutant("flatten_newlines_only", VIEW,
           "BREAKS = tuple(chr(code) for code in range(0x2030) if is_break(chr(code)))",
           "BREAKS = (\"\\r\", \"\\n\")",
           law("flatten_breaks_every_line"), "only CR and LF become spaces; U+2028, NEL, VT, FF pass raw"),
    Mutant("escape_keeps_tags", VIEW,
           "ESCAPES = ((\"<\", \"\\u2039\"), (\"|\", \"\\u00a6\"))",
           "ESCAPES = ((\"|\", \"\\u00a6\"),)",
           law("rendered_lines_keep_the_frame"), "a text's \"</chat>\" reaches the view as it is: a tool result closes it early [P18]"),
    Mutant("escape_task_mark_lowercase_only", VIEW,
           "TASK_MARKS = (\"Compaction:\", \"compaction:\", \"COMPACTION:\")",
           "TASK_MARKS = (\"compaction:\", \"COMPACTION:\")",
           law("rendered_lines_keep_the_frame"), "the gist's own \"Compaction:\" is not escaped: it starts a task inside a line [P18]"),
    Mutant("no_line_keeps_input", LINE,
           "    return Outcome(calls, cut(best, LINE_BYTES_MAX), follow_ups)",
           "    return Outcome(calls, cut(best, LINE_BYTES_MAX) or \"(the input)\", follow_ups)",
           law("line_keeps_shortest"), "an empty reply gives a line made of something other than a reply"),
    Mutant("too_long_counts_raw_reply", LINE,
           "            follow_ups = follow_ups + (too_long(best),)",
           "            follow_ups = follow_ups + (too_long(reply),)",
           law("line_follows_up"), "the follow-up reports the raw reply's size, not the trimmed line's"),
    Mutant("cap_without_mark", LINE,
           "    return CAPPED_MARK + cut(node_input, LINE_BYTES_MAX - utf8_bytes(CAPPED_MARK))",
           "    return cut(node_input, LINE_BYTES_MAX)",
           law("fail_cap_builds"), "the failure cap makes a permanent line of the cut input, unmarked"),
    Mutant("failures_forgotten_at_restart", PLANNER,
           "        state = replace(state, running=(), retry_later=(), waiting=False)",
           "        state = replace(state, running=(), failures=(), retry_later=(), waiting=False)",
           law("fail_cap_builds"), "a restart forgets failure counts: the cap bounds nothing"),
    Mutant("retry_at_once_while_waiting", PLANNER,
           "        node for node in window if node not in running and node not in state.retry_later",
           "        node for node in window if node not in running and (waiting or node not in state.retry_later)",
           law("failed_waits_for_retry"), "a waiting turn retries a failed line at once, with no backoff"),
    Mutant("wait_stops_every_merge", PLANNER,
           "        short = len(candidates) - (c.jobs_max - len(running))",
           "        short = len(running)",
           law("need_first_running"), "a wait stops every running merge, even with slots free"),
    Mutant("wait_stops_oldest_merge", PLANNER,
           "        k = len(running) - 1\n        while short > 0 and k >= 0:\n"
           "            if running[k] not in unbuilt:\n"
           "                running = running[:k] + running[k + 1 :]\n"
           "                short = short - 1\n"
           "            k = k - 1",
           "        k = 0\n        while short > 0 and k < len(running):\n"
           "            if running[k] not in unbuilt:\n"
           "                running = running[:k] + running[k + 1 :]\n"
           "                short = short - 1\n"
           "            else:\n"
           "                k = k + 1",
           law("need_first_running"), "a wait stops the oldest merges, not the youngest"),
    Mutant("turn_logs_before_waiting", PLANNER,
           "    state = step(state, Wait())\n    answered = 0",
           "    state = step(step(state, Message(\"user\", text)), Wait())\n    answered = 0",
           law("turn_never_waits_for_its_message"), "the turn logs its message before it waits (the old test order)"),
]

# ---- the proofs on the model's own code (laws.universal, laws.z3_model) ----
MUTANTS += [
    Mutant("parent_index_wraps", PLANNER, "        return built_line(l, i, tree_text(tree, l, i))",
           "        return built_line(l, i & 0x3FF, tree_text(tree, l, i))",
           law("view_covers"), "a parent's line wraps its index past 1023: wrong only once T passes 2048"),
    Mutant("more_due_branches_on_equal_levels", VIEW, "    last_a = ((ia + 2) << la) - 1\n",
           "    if la == lb:\n        return ia > ib\n    last_a = ((ia + 2) << la) - 1\n",
           law("due_cross_is_rational"), "more_due decides equal levels with an `if` on `==`: it cannot run on Z3 terms"),
    Mutant("harness_due_levels_swapped", HARNESS_PLANNER, HEAP_KEY,
           "        return (-((T + 1 - first) << l), first, l)\n",
           law("heap_keys_order_as_more_due"), "the production heap's entries multiply by their own level's power: "
           "caught by Z3 on the function fit pushes with"),
    Mutant("absorb_keeps_new_state", PUSH, "        return States(1, life, state, older)",
           "        return States(1, life, new_state, older)",
           law("push_agrees_always"), "push's absorb keeps the new state: caught by Z3 on push's own code"),
]

# ---- the merge order's choice (laws/choice.py), restarts and the batch's floor ----
MOST_DUE_WINS = "            wins = more_due(a.l, a.i, b.l, b.i, T)\n"
TIE_TO_NEWER_HIGH = ("            wins = more_due(a.l, a.i, b.l, b.i, T) | ((b.l >= 5) & ((T - (((a.i + 2) << a.l) - 1)) << b.l"
                     " == (T - (((b.i + 2) << b.l) - 1)) << a.l))\n")
MUTANTS += [
    Mutant("most_due_tie_to_newer_high", VIEW, MOST_DUE_WINS, TIE_TO_NEWER_HIGH,
           law("most_due_is_the_choice"), "most_due gives a tie with an older pair of level ≥ 5 to the newer pair"),
    Mutant("most_due_keeps_first", VIEW, "        return choose(can_merge & ((best < 0) | wins), k, best)",
           "        return choose(can_merge & (best < 0), k, best)",
           law("most_due_is_the_choice"), "most_due returns the first pair that can merge, not the most due"),
]

# a tie is given to the lower level where both are 5 or more: in a chat's view the newer pair.
# A key's steps are 2^(64 − l) ≥ 2^44 apart, so only exact ties move; (l + 3) >> 3 is 0 below
# level 5
HEAP_TIE_TO_NEWER_HIGH = "        return (-((T + 1 - first) << (LEVELS_MAX - l)) + ((l + 3) >> 3) * l, first, l)\n"
# the same tie, written with an `if` on the level: the bug the heap law once missed, since it built
# its own entries rather than calling the function fit pushes with
HEAP_ENTRY_TIE_HIGH = "        return (-((T + 1 - first) << (LEVELS_MAX - l)) + (l if l >= 5 else 0), first, l)\n"
MUTANTS += [
    Mutant("planner_heap_tie_to_newer_high", HARNESS_PLANNER, HEAP_KEY, HEAP_TIE_TO_NEWER_HIGH,
           test("tests/laws/test_choice_agreement.py::test_the_production_heaps_choose_as_the_model_on_ties_at_high_levels"),
           "the production fit gives a tie between pairs of levels ≥ 5 to the newer pair"),
    Mutant("planner_heap_tie_to_newer_high_law", HARNESS_PLANNER, HEAP_KEY, HEAP_TIE_TO_NEWER_HIGH,
           law("heap_keys_order_as_more_due"), "the same bug, caught by Z3 on the heap's keys"),
    Mutant("heap_key_from_T", HARNESS_PLANNER, HEAP_KEY, "        return (-((T - first) << (LEVELS_MAX - l)), first, l)\n",
           law("heap_keys_order_as_more_due"), "the heap's key measures from T, not T + 1: the order of levels shifts"),
    Mutant("fit_entry_tie_to_newer_high", HARNESS_PLANNER, HEAP_KEY, HEAP_ENTRY_TIE_HIGH,
           law("heap_keys_order_as_more_due"), "fit's heap entries give a tie between pairs of levels ≥ 5 to the newer pair"),
    Mutant("fit_entry_tie_to_newer_high_searched", HARNESS_PLANNER, HEAP_KEY, HEAP_ENTRY_TIE_HIGH,
           law("due_matches_production"), "the same bug, found by CrossHair's diffbehavior on the same function"),
    Mutant("tree_lookup_wraps_past_2_14", "model/tree.py", "    return trie_get(item(tree.levels, l), i)\n",
           "    return trie_get(item(tree.levels, l), i & 0x3FFF)\n",
           test("tests/bridge/test_bridge.py::test_every_tiny_run_agrees"),
           "a tree lookup wraps its index at 16,384: wrong only once T passes 2^14"),
]

RESTART = "        state = replace(state, running=(), retry_later=(), waiting=False)\n"
MUTANTS += [
    Mutant("restart_forgets_shrinking", PLANNER, RESTART,
           "        state = replace(state, running=(), retry_later=(), waiting=False, shrinking=False)\n",
           law("restart_keeps_state"), "a restart forgets that the view was shrinking [F1]"),
    Mutant("restart_forgets_cshrinking", PLANNER, RESTART,
           "        state = replace(state, running=(), retry_later=(), waiting=False, cshrinking=False)\n",
           law("restart_keeps_state"), "a restart forgets that the compaction view was shrinking"),
    Mutant("restart_keeps_retries", PLANNER, RESTART, "        state = replace(state, running=(), waiting=False)\n",
           law("restart_keeps_state"), "a restart keeps the old process's due retries"),
    Mutant("batch_to_floor_plus_one", PLANNER, "view, merges = fit(view, state.T, c.view_bytes_floor, parents)",
           "view, merges = fit(view, state.T, c.view_bytes_floor + 1, parents)",
           law("batch_ends_at_floor"), "a batch fits to the floor plus one byte"),
    Mutant("cbatch_to_floor_plus_one", PLANNER, "cview, cmerges = fit(view, state.T, c.cview_bytes_floor, parents)",
           "cview, cmerges = fit(view, state.T, c.cview_bytes_floor + 300, parents)",
           law("batch_ends_at_floor"), "the compaction view's batch stops 300 bytes over its floor"),
    Mutant("tree_lookup_wraps_law", "model/tree.py", "    return trie_get(item(tree.levels, l), i)\n",
           "    return trie_get(item(tree.levels, l), i & 0x3FFF)\n",
           law("tree_lookup_gives_what_was_put"), "a tree lookup wraps its index at 16,384"),
    # past the 2^16 the exhaustive check reaches: only the proof catches it
    Mutant("tree_lookup_wraps_past_2_17", "model/tree.py", "    return trie_get(item(tree.levels, l), i)\n",
           "    return trie_get(item(tree.levels, l), i & 0x1FFFF)\n",
           law("tree_lookup_gives_what_was_put"), "a tree lookup wraps its index at 131,072"),
    Mutant("tree_put_drops_high_bit", "model/tree.py", "    digit = 1 + (i & (DIGITS - 1))\n",
           "    digit = 1 + (i & (DIGITS - 1))\n    if i == (1 << 15) + 1:\n        digit = 1\n",
           law("tree_lookup_gives_what_was_put"), "a put of node 2^15 + 1 lands on the digit below"),
]

# the same two ties, caught in `make test-slow` by the tiny bridge's high_levels run (T = 3,135)
MUTANTS += [
    Mutant("most_due_tie_to_newer_high_bridge", VIEW, MOST_DUE_WINS, TIE_TO_NEWER_HIGH,
           test("tests/bridge/test_bridge.py::test_every_tiny_run_agrees"),
           "most_due gives a tie with an older pair of level ≥ 5 to the newer pair: the tiny bridge"),
    Mutant("planner_heap_tie_to_newer_high_bridge", HARNESS_PLANNER, HEAP_KEY, HEAP_TIE_TO_NEWER_HIGH,
           test("tests/bridge/test_bridge.py::test_every_tiny_run_agrees"),
           "the production fit gives such a tie to the newer pair: the tiny bridge"),
]

# the production planner's save-then-load (tests/model/test_restart_state.py)
RESTART_TEST = test("tests/model/test_restart_state.py::test_save_then_load_keeps_both_views_both_shrinking_states_and_the_failure_counts")
MUTANTS += [
    Mutant("load_forgets_shrinking", HARNESS_CHECKPOINT, '    planner.shrinking = saved["shrinking"]\n',
           "    planner.shrinking = False\n", RESTART_TEST,
           "a loaded planner forgets that the view was shrinking [F1]"),
    Mutant("load_forgets_failures", HARNESS_CHECKPOINT,
           '    planner.failures = {(l, i): count for l, i, count in saved["failures"]}\n',
           "    planner.failures = {}\n", RESTART_TEST, "a loaded planner forgets the failure counts [P16]"),
]

MUTANTS += [
    Mutant("kind_reads_only_the_opening", "laws/core.py", "    parts = [opening(label)] + NAMED.findall(claim)\n",
           "    parts = [opening(label)]\n",
           test("tests/laws/test_laws_table.py::test_a_label_ranks_as_its_weakest_part"),
           "a label ranks by its first words: a proof with a searched link ranks as a proof"),
    # (the README's count of eukhe's 13 no longer shows this bug: no label of the registry mixes a
    # proof with a weaker link now, so ranking by the opening gives the same count)
]

# ---- the gaps of the laws that rank as Searched or Bounded: each bug passes its law in `make
# laws` (it shows only past T = 5,000, or t = 30,000) and is caught further on ----
BRIDGE_TEST = test("tests/bridge/test_bridge.py::test_every_fast_tiny_run_agrees")  # make test's tiny runs
MUTANTS += [
    Mutant("cview_drops_line_past_5000", PLANNER, "        cview=appended(state.cview, line),\n",
           "        cview=choose(i < 5_000, appended(state.cview, line), state.cview),\n", law("cview_covers"),
           "past T = 5,000 a message's line is not appended to the compaction view: once missed by the laws "
           "(their event link was searched to T = 300), now by the proof of step for any T"),
    Mutant("batch_merges_unbuilt_past_5000", PLANNER, "    parents = tree_parents(state.tree)\n",
           "    parents = choose(state.T < 5_000, tree_parents(state.tree), Parents(lambda l, i: True, tree_parents(state.tree).line))\n",
           law("view_summarized"),
           "past T = 5,000 a batch merges into parents that are not built: once missed by the laws (the link "
           "was searched to T = 300), now by the proof of step for any T"),
    Mutant("batch_past_floor_after_5000", PLANNER,
           "    shrinking = state.shrinking | (view_bytes(state.view) > c.view_bytes_ceiling)\n",
           "    shrinking = state.shrinking | (view_bytes(state.view) > choose(state.T > 5_000, c.view_bytes_floor, c.view_bytes_ceiling))\n",
           law("message_merges_nothing"),
           "past T = 5,000 a batch starts past the floor: once missed (message_merges_nothing was searched to "
           "T = 300), now by the proof of step for any T"),
    Mutant("fold_wrong_past_30000", PUSH, FOLD_FIT, FOLD_FIT.replace("budget_lines,", "budget_lines + (T > 30_000),"),
           law("push_agrees_always"),
           "past t = 30,000 the fold's budget is one more: the cross-check to t = 20,000 passes; the fold step's "
           "proof fails (a condition added to a number has no meaning on Z3 terms)"),
    # ---- push_agrees_always's fold step, on the model's code (laws/z3_fold.py) ----
    Mutant("fold_parent_costs_two_at_level_15", PUSH, '    return Line(l, i, "", True, 1)\n',
           '    return Line(l, i, "", True, 1 + ((l + 1) >> 4))\n', law("push_agrees_always"),
           "a line of level 15 to 30 costs two units in the fold: the first is made at t = 49,150 and the fold "
           "leaves push at t = 49,151, past the cross-check's 20,000; the fold step's proof fails"),
    Mutant("fold_budget_grows_past_32768", PUSH, FOLD_FIT, FOLD_FIT.replace("budget_lines,", "budget_lines + (T >> 15),"),
           law("push_agrees_always"),
           "from T = 32,768 on the fold's budget is push's length + ⌊T / 32,768⌋: the cross-check to "
           "t = 20,000 passes; the fold step's proof fails"),
    # ---- the history laws, on step's own code (laws/z3_events.py) ----
    Mutant("built_parent_in_view", PLANNER,
           "        view = with_line(view, line)\n        cview = with_line(cview, line)\n",
           "        view = with_line(view, line)\n        cview = with_line(cview, line)\n    else:\n"
           "        view = appended(view, line)\n",
           law("view_covers"), "a build at level ≥ 1 (a merge's compaction, or a free parent) appends its line to the view"),
    Mutant("message_line_twice", PLANNER, "        view=appended(state.view, line),\n",
           "        view=appended(appended(state.view, line), line),\n",
           law("message_appends"), "a message appends its line to the view twice"),
    Mutant("batch_cview_merges_unbuilt", PLANNER,
           "        cview, cmerges = fit(view, state.T, c.cview_bytes_floor, parents)\n",
           "        cview, cmerges = fit(view, state.T, c.cview_bytes_floor, Parents(parents.built, lambda l, i: replace(parents.line(l, i), built=False)))\n",
           law("cview_summarized"), "when the view merges, the compaction view is fitted with its merged lines unbuilt"),
    Mutant("cbatch_below_cceiling", PLANNER,
           "        cshrinking = cshrinking | (view_bytes(cview) > c.cview_bytes_ceiling)\n",
           "        cshrinking = cshrinking | (view_bytes(cview) > c.cview_bytes_floor)\n",
           law("message_merges_nothing"), "the compaction view merges at each message past its floor, below its ceiling"),
]

# ---- the prover's trusted rules, each made unsound: its canaries (laws/canaries.py) must fail ----
Z3_MODEL = "laws/z3_model.py"
Z3_CORE = "laws/z3_core.py"
RULE_MUTANTS = [
    Mutant("fold_assumes_invariant_for_any_count", Z3_MODEL,
           "    proof.assume(z3.Implies(n > 0, loop.invariant(env, Sym(n), result)),\n",
           "    proof.assume(loop.invariant(env, Sym(n), result),\n",
           law("fold_rule_refuses"), "the fold rule assumes the invariant's postcondition whatever the count (n > 0 ⇒ dropped)"),
    Mutant("fold_skips_its_start", Z3_MODEL,
           "        base_case.check(f\"{name}: the invariant holds at the start\",\n"
           "                        loop.invariant(env, Sym(z3.IntVal(0)), lifted(shape, start)))\n",
           "        pass\n",
           law("fold_rule_refuses"), "the fold rule never proves its invariant at the start"),
    Mutant("fold_skips_its_step", Z3_MODEL,
           "            step.check(f\"{name}: the body keeps the invariant\", loop.invariant(any_env, Sym(k + 1), after))\n",
           "            step.check(f\"{name}: the body keeps the invariant\", z3.BoolVal(True))\n",
           law("fold_rule_refuses"), "the fold rule never proves that the body keeps its invariant"),
    Mutant("repeat_skips_its_start", Z3_MODEL,
           "        base_case.check(f\"{name}: the invariant holds at the start\", loop.invariant(env, first))\n",
           "        pass\n",
           law("repeat_rule_refuses"), "the repeat rule never proves its invariant at the start"),
    Mutant("repeat_skips_its_step", Z3_MODEL,
           "claim = z3.And(loop.invariant(any_env, after), measure >= 0, loop.variant(any_env, after) < measure)",
           "claim = z3.And(measure >= 0, loop.variant(any_env, after) < measure)",
           law("repeat_rule_refuses"), "the repeat rule never proves that the body keeps its invariant"),
    Mutant("repeat_variant_need_not_drop", Z3_MODEL,
           "claim = z3.And(loop.invariant(any_env, after), measure >= 0, loop.variant(any_env, after) < measure)",
           "claim = z3.And(loop.invariant(any_env, after), measure >= 0)",
           law("repeat_rule_refuses"), "the repeat rule takes a loop to end without its variant dropping"),
    Mutant("item_twin_allows_the_length", Z3_MODEL,
           "oblige(z3.And(-items.n <= index, index < items.n), \"item: an index out of range\")",
           "oblige(z3.And(-items.n <= index, index <= items.n), \"item: an index out of range\")",
           law("sequence_twins_refuse"), "the item twin lets an index equal to the length through"),
    Mutant("pair_replaced_twin_allows_the_last_line", Z3_MODEL,
           "oblige(z3.And(0 <= index, index + 1 < items.n), \"pair_replaced: the pair is not inside the tuple\")",
           "oblige(z3.And(0 <= index, index < items.n), \"pair_replaced: the pair is not inside the tuple\")",
           law("sequence_twins_refuse"), "the pair_replaced twin lets a pair start at the last line"),
    Mutant("prefix_twin_allows_one_more", Z3_MODEL,
           "oblige(z3.And(0 <= size, size <= items.n), \"prefix: a count outside 0..length\")",
           "oblige(z3.And(0 <= size, size <= items.n + 1), \"prefix: a count outside 0..length\")",
           law("sequence_twins_refuse"), "the prefix twin lets a count of length + 1 through"),
    Mutant("trie_child_off_by_one", Z3_MODEL, "            chosen = z3.If(index == d + 1, CHILDREN[d](self.term), chosen)\n",
           "            chosen = z3.If(index == d, CHILDREN[d](self.term), chosen)\n",
           law("sequence_twins_refuse"), "a trie's child at a symbolic digit is the next digit's: twins_agree, at "
           "concrete digits only, passes"),
    Mutant("shift_by_any_count", Z3_CORE, "                oblige(count_term >= 0, \"a shift by a negative count\")\n",
           "", law("integer_encoding_refuses"), "a shift by a symbolic count needs no proof that the count is ≥ 0"),
    Mutant("mask_one_short", Z3_CORE, "            return Sym(self.term % (other + 1))\n",
           "            return Sym(self.term % other)\n",
           law("integer_encoding_refuses"), "x & (2^k − 1) is encoded as x mod (2^k − 1)"),
    Mutant("condition_outside_explore_is_true", Z3_CORE, "        if BRANCHES:\n            return BRANCHES[-1](self.term)\n",
           "        if not BRANCHES:\n            return True\n        return BRANCHES[-1](self.term)\n",
           law("integer_encoding_refuses"), "a condition term asked for a Python bool outside explore answers True"),
    Mutant("explore_needs_no_witness", Z3_MODEL, "    if not result.witnessed:\n        result.problem = vacuous(name)\n        return result\n",
           "", law("cut_paths_prove_nothing"), "a step whose every path the model's assert cut proves its claims"),
    Mutant("fold_cache_ignores_the_count", Z3_MODEL,
           "    key = (\"fold\", fingerprint(body), fingerprint(start), fingerprint(count))",
           "    key = (\"fold\", fingerprint(body), fingerprint(start))",
           law("loop_cache_refuses"), "a fold's cached result is reused for a call with another count"),
    # l1: the loop cache keyed without the fold's start
    Mutant("fold_cache_ignores_the_start", Z3_MODEL,
           "    key = (\"fold\", fingerprint(body), fingerprint(start), fingerprint(count))",
           "    key = (\"fold\", fingerprint(body), fingerprint(count))",
           law("loop_cache_refuses"), "a fold's cached result is reused for a call from another start"),
    Mutant("fold_cache_ignores_the_body", Z3_MODEL,
           "    key = (\"fold\", fingerprint(body), fingerprint(start), fingerprint(count))",
           "    key = (\"fold\", fingerprint(start), fingerprint(count))",
           law("loop_cache_refuses"), "a fold's cached result is reused for a call of another body"),
    Mutant("repeat_cache_ignores_the_guard", Z3_MODEL,
           "    key = (\"repeat\", fingerprint(going_on), fingerprint(body), fingerprint(state))",
           "    key = (\"repeat\", fingerprint(body), fingerprint(state))",
           law("loop_cache_refuses"), "a while's cached result is reused for a call with another guard"),
    Mutant("repeat_cache_ignores_the_body", Z3_MODEL,
           "    key = (\"repeat\", fingerprint(going_on), fingerprint(body), fingerprint(state))",
           "    key = (\"repeat\", fingerprint(going_on), fingerprint(state))",
           law("loop_cache_refuses"), "a while's cached result is reused for a call of another body"),
    Mutant("repeat_cache_ignores_the_state", Z3_MODEL,
           "    key = (\"repeat\", fingerprint(going_on), fingerprint(body), fingerprint(state))",
           "    key = (\"repeat\", fingerprint(going_on), fingerprint(body))",
           law("loop_cache_refuses"), "a while's cached result is reused for a call from another state"),
    # l4: mapped's twin dropping its obligations
    Mutant("mapped_twin_drops_its_obligations", Z3_MODEL,
           "    for condition, why in inner.found:\n"
           "        oblige(z3.ForAll([j], z3.Implies(z3.And(0 <= j, j < items.n), condition)), why)\n",
           "", law("sequence_twins_refuse"), "mapped's twin drops what the change of each line obliges"),
    Mutant("mapped_twin_reads_the_next_line", Z3_MODEL, "        new = change(items.at(j))\n",
           "        new = change(items.at(j + 1))\n",
           law("sequence_twins_refuse"), "mapped's twin changes each line's successor"),
    Mutant("mapped_twin_one_line_more", Z3_MODEL,
           "    arrays = {f: z3.Lambda([j], LIFT[s](parts[f])) for f, s in items.kind.fields}\n    return ZSeq(items.kind, arrays, items.n)\n",
           "    arrays = {f: z3.Lambda([j], LIFT[s](parts[f])) for f, s in items.kind.fields}\n    return ZSeq(items.kind, arrays, items.n + 1)\n",
           law("sequence_twins_refuse"), "mapped's twin gives one line more than it maps"),
    Mutant("appended_twin_keeps_the_length", Z3_MODEL, "        return ZSeq(items.kind, arrays, items.n + 1)\n    return items + (new,)\n",
           "        return ZSeq(items.kind, arrays, items.n)\n    return items + (new,)\n",
           law("sequence_twins_refuse"), "appended's twin stores the line but keeps the old length"),
    Mutant("appended_twin_over_the_last_line", Z3_MODEL,
           "        arrays = {f: z3.Store(items.arrays[f], items.n, LIFT[s](items.kind.parts(new)[f]))",
           "        arrays = {f: z3.Store(items.arrays[f], items.n - 1, LIFT[s](items.kind.parts(new)[f]))",
           law("sequence_twins_refuse"), "appended's twin writes the new line over the last one"),
    Mutant("replaced_twin_allows_the_length", Z3_MODEL,
           "oblige(z3.And(0 <= index, index < items.n), \"replaced: the item is not inside the tuple\")",
           "oblige(z3.And(0 <= index, index <= items.n), \"replaced: the item is not inside the tuple\")",
           law("sequence_twins_refuse"), "replaced's twin lets an index equal to the length through"),
    Mutant("replaced_twin_one_after", Z3_MODEL,
           "    arrays = {f: z3.Store(items.arrays[f], index, LIFT[s](parts[f])) for f, s in items.kind.fields}\n",
           "    arrays = {f: z3.Store(items.arrays[f], index + 1, LIFT[s](parts[f])) for f, s in items.kind.fields}\n",
           law("sequence_twins_refuse"), "replaced's twin writes the item after the one it replaces"),
    Mutant("padded_twin_cuts", Z3_MODEL, "    return ZSeq(items.kind, arrays, z3.If(size > items.n, size, items.n))\n",
           "    return ZSeq(items.kind, arrays, size)\n",
           law("sequence_twins_refuse"), "padded's twin cuts a sequence longer than its count, where Python pads by nothing"),
    Mutant("padded_twin_one_short", Z3_MODEL, "    return ZSeq(items.kind, arrays, z3.If(size > items.n, size, items.n))\n",
           "    return ZSeq(items.kind, arrays, z3.If(size > items.n, size - 1, items.n))\n",
           law("sequence_twins_refuse"), "padded's twin pads one line short"),
    Mutant("length_twin_one_more", Z3_MODEL, "        return count if count is not None else Sym(items.n)\n",
           "        return count if count is not None else Sym(items.n + 1)\n",
           law("sequence_twins_refuse"), "length's twin counts one line more than the sequence holds"),
    Mutant("choose_twin_takes_its_first", Z3_MODEL, "    return merged(condition.term, then, otherwise)\n",
           "    return then\n", law("sequence_twins_refuse"), "choose's twin gives its first value whatever the condition"),
    Mutant("choose_twin_ignores_a_known_condition", Z3_MODEL, "        return then if known else otherwise\n    from laws.z3_core",
           "        return then\n    from laws.z3_core",
           law("sequence_twins_refuse"), "choose's twin gives its first value for a condition known false"),
    Mutant("integer_lift_takes_a_float", Z3_CORE, "        if is_python_int(value):\n            return z3.IntVal(value)\n",
           "        if isinstance(value, (int, float)):\n            return z3.IntVal(int(value))\n",
           law("integer_encoding_refuses"), "an integer term computes with a float, rounded down"),
    Mutant("condition_lift_takes_an_int", Z3_CORE, "        if isinstance(value, bool):\n            return z3.BoolVal(value)\n",
           "        if isinstance(value, (bool, int)):\n            return z3.BoolVal(bool(value))\n",
           law("integer_encoding_refuses"), "a condition term combines with an integer as with its truth"),
]
MUTANTS += RULE_MUTANTS

# ---- what a run says: its closing counts are what it earned ----
MUTANTS += [
    Mutant("kind_reads_the_trusted_part", "laws/core.py", "    parts = [opening(label)] + NAMED.findall(claim)\n",
           "    parts = [opening(label)] + NAMED.findall(label)\n",
           test("tests/laws/test_laws_table.py::test_what_a_proof_trusts_is_named_in_its_label_and_does_not_rank_it"),
           "a kind named in the trusted part (twins_agree: Bounded) ranks the law, as if a link of its claim"),
    Mutant("closing_counts_from_the_registry", "laws/__main__.py",
           "    counts = {name: sum(1 for law in selected if earned[law.name] != \"none\" and kind(earned[law.name]) == name)\n",
           "    counts = {name: sum(1 for law in selected if kind(law.strength) == name)\n",
           test("tests/laws/test_laws_table.py::test_a_failing_law_counts_as_failed_in_the_closing_counts_not_as_its_registered_label"),
           "the closing count is the registry's: a law that failed still counts as Proved"),
]
MUTANTS += [
    Mutant("unknown_counts_as_a_counterexample", JUDGE,
           "    for how, said in ((\"unknown\", \"Z3 said unknown\"), (\"shortfall\", \"below the registry\"),\n",
           "    for how, said in ((\"shortfall\", \"below the registry\"),\n",
           test("tests/mutants/test_mutant_runner.py::test_a_catch_by_z3s_unknown_is_told_apart_from_a_counterexample"),
           "make mutants counts a catch by Z3's unknown as one by a counterexample"),
]

# ---- what the history laws leave unknown (laws/work_queue.py): capped_text and the work queue ----
CAPPED_SOURCE = "            if (line.l, line.i) == (0, i):\n"
CAPPED_BY_INDEX = "            if line.i == i:\n"
MUTANTS += [
    Mutant("capped_text_matches_index_alone", PLANNER, CAPPED_SOURCE, CAPPED_BY_INDEX,
           law("capped_text_finds_its_source"),
           "a third failure's source is found by matching a view line on its index alone, at any level: a merged "
           "line of the same index after it gives its text"),
    Mutant("capped_text_matches_index_alone_bridge", PLANNER, CAPPED_SOURCE, CAPPED_BY_INDEX,
           ("python", "-m", "bridge", "--scale", "tiny", "--scenario", "failing_behind"),
           "the same bug, found by the bridge's failing_behind runs: old messages fail for good while the view merges past them"),
    Mutant("capped_text_matches_index_alone_tiny", PLANNER, CAPPED_SOURCE, CAPPED_BY_INDEX, BRIDGE_TEST,
           "the same bug, found by make test's tiny bridge runs"),
    Mutant("ready_queue_by_index", PLANNER, "    while k < len(queue) and last_message(queue[k]) < last_message(node):\n",
           "    while k < len(queue) and queue[k][1] < node[1]:\n",
           law("queue_functions_hold"), "ready merges are queued by their index, not their last message [P5]"),
    Mutant("ready_merges_newest_first", PLANNER, "            node for node in state.ready if node not in running",
           "            node for node in state.ready[::-1] if node not in running",
           law("queue_functions_hold"), "schedule starts the ready merges newest first [P5]"),
    Mutant("shown_not_first", PLANNER, "    levels = tuple(placeholder_level(shown, top, node) for node in ready)\n",
           "    levels = tuple(-1 for node in ready)\n",
           law("shown_merges_first"), "ready merges start by last message alone while a turn's view folds [P26]"),
    Mutant("shown_lines_only", PLANNER, "    while l <= top:\n",
           "    while l <= min(top, node[0]):\n",
           law("shown_merges_first"), "only a ready merge that is itself a placeholder goes first, none under one [P26]"),
    Mutant("restart_keeps_the_look", PLANNER, "        state = replace(state, shown=frozenset(), shown_starts=-1)\n", "",
           ("python", "-m", "bridge", "--scale", "tiny", "--scenario", "stale_outcomes"),
           "a restart keeps the old process's look at the turn's view [P26]: the production planner looks afresh"),
    Mutant("shown_looked_at_once", PLANNER, "                if shown_starts < 0 or shown_starts >= SHOWN_STARTS_MAX:\n",
           "                if shown_starts < 0:\n",
           law("shown_merges_first"), "the turn's view is looked at once when it begins to fold, never again [P26]"),
    Mutant("shown_highest_first", PLANNER, "    for level in range(top + 1):\n",
           "    for level in range(top, -1, -1):\n",
           law("shown_merges_first"), "the highest placeholder's merges first, not the lowest [P26]"),
    Mutant("window_off_by_one_bounded", PLANNER, "window = unbuilt[: c.jobs_max]", "window = unbuilt[: c.jobs_max + 1]",
           law("queue_functions_hold"), "the level-0 window is one line too wide [gist §4]: the bounded check"),
]
