"""Bugs planted in the production planner, each caught by a fast check of the planner.

Strategy: each mutant changes one line of harness/memory/planner.py (or harness/memory/view_text.py, harness/memory/line.py) into a mistake
the gist names or a plausible misreading of docs/planner.md. Its check is one of the fast checks:
the tiny bridge (`python -m bridge --scale tiny`, which exits 1 on the first trace difference
from the model; `make test` runs all its runs but high_levels, in
tests/bridge/test_bridge.py::test_every_fast_tiny_run_agrees, and `make test-slow` the rest), the fixed histories of tests/bridge/test_bridge_paths.py, or the
planner state machine of tests/bridge/test_planner_agreement.py (its `ci` examples, unshrunk). Where a
bug hides on a path the seeded scenarios once missed (stale outcomes, lines built smaller than
counted while shrinking, small job counts, the five-try limit, a wait with free slots, line
breaks), one mutant per check shows that each of them reaches it.
"""

from mutants.base import Mutant

BRIDGE_TINY = ("python", "-m", "bridge", "--scale", "tiny")
def fixed(test: str) -> tuple:
    """One fixed history of tests/bridge/test_bridge_paths.py: the judge needs the test it names."""
    return ("python", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", f"tests/bridge/test_bridge_paths.py::{test}")


TINY_PATHS = (
    "python", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
    "tests/bridge/test_bridge.py::test_the_tiny_runs_reach_every_path",
)

COUNTS_STALE_FAILED = (
    "        elif kind is Failed:\n"
    "            if (event.l, event.i) in self.running:\n"
    "                self._failed(event.l, event.i)\n",
    "        elif kind is Failed:\n"
    "            if (event.l, event.i) in self.running:\n"
    "                self._failed(event.l, event.i)\n"
    "            elif not self.built(event.l, event.i):\n"
    "                self.failures[(event.l, event.i)] = self.failures.get((event.l, event.i), 0) + 1\n",
)
TAKES_STALE_MERGE = (
    "            if node in self.running:\n"
    "                self._leave_queues(node)\n",
    "            if node in self.running or (l > 0 and not self.built(l, i)):\n"
    "                self._leave_queues(node)\n",
)
SHRINKING_KEPT = (
    "            shrinking = view.bytes > c.view_bytes_floor\n",
    "            shrinking = view.bytes > c.view_bytes_floor if merges else shrinking\n",
)
WINDOW_OF_8 = (
    "islice(self.unbuilt, self.config.jobs_max) if i not in busy]",
    "islice(self.unbuilt, 8) if i not in busy]",
)
SIX_TRIES = (
    'TRIES_MAX = 5  # [gist §4] "Try at most 5 times"\n',
    'TRIES_MAX = 6  # [gist §4] "Try at most 5 times"\n',
)
WAIT_ONLY_WHEN_FULL = (
    "        if waiting:\n            for node in self._free_slots_for(running, candidates):\n",
    "        if waiting and len(running) >= jobs_max:\n            for node in self._free_slots_for(running, candidates):\n",
)
KEEPS_LONE_CR = (
    '_BREAKS = {code: " " for code in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)}\n',
    '_BREAKS = {code: " " for code in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029) if code != 13}\n',
)

MUTANTS = [
    Mutant(
        name="planner_due_from_first",
        path="harness/memory/planner.py",
        old="        return (-((T + 1 - first) << (LEVELS_MAX - l)), first, l)\n",
        new="        return (-((T - first) << (LEVELS_MAX - l)), first, l)\n",
        check=BRIDGE_TINY,
        note="due measured from the pair's first message, (T - first)/2^l [gist §3.2, §7.1]",
    ),
    Mutant(
        name="planner_batch_to_ceiling",
        path="harness/memory/planner.py",
        old="            merges = view.fit(T, c.view_bytes_floor, self)\n",
        new="            merges = view.fit(T, c.view_bytes_ceiling, self)\n",
        check=BRIDGE_TINY,
        note="a batch merges down to the ceiling, not the floor [gist §3.2]",
    ),
    Mutant(
        name="planner_ready_by_level",
        path="harness/memory/planner.py",
        old="        heapq.heappush(self.ready, (last_message(l, i), l, i))\n",
        new="        heapq.heappush(self.ready, (l, l, i))\n",
        check=BRIDGE_TINY,
        note="ready merges start lowest level first, not by last message [P5]",
    ),
    Mutant(
        name="planner_shown_not_first",
        path="harness/memory/planner.py",
        old="        if ready and self.view.bytes - RESERVE_OVER_PLACEHOLDER * len(unbuilt) > self.config.view_bytes_ceiling:\n",
        new="        if False:\n",
        check=BRIDGE_TINY,
        note="while a turn's view folds, ready merges start by last message alone, the placeholders it shows waiting behind the oldest subtrees [P26]",
    ),
    Mutant(
        name="planner_restart_keeps_the_look",
        path="harness/memory/checkpoint.py",
        old="    planner.shown, planner.shown_starts = set(), -1\n",
        new="",
        check=BRIDGE_TINY,
        note="a restart keeps the look at the turn's view its replay took, not a fresh one [P26]",
    ),
    Mutant(
        name="planner_looks_at_once",
        path="harness/memory/planner.py",
        old="        if self.shown_starts < 0 or self.shown_starts >= SHOWN_STARTS_MAX:\n",
        new="        if self.shown_starts < 0:\n",
        # the tiny runs start fewer than 256 merges while a turn's view folds; the first day does
        check=("python", "-m", "bridge", "--scale", "full", "--scenario", "bulk_import"),
        note="the turn's view is looked at once when it begins to fold, never again [P26]",
    ),
    Mutant(
        name="planner_merges_before_messages",
        path="harness/memory/planner.py",
        old="        for node in candidates:\n            running.append(node)\n",
        new=(
            "        ready = self.ready\n"
            "        while not waiting and slots > 1 and ready:\n"
            "            _, l, i = heapq.heappop(ready)\n"
            "            self.ready_set.discard((l, i))\n"
            "            running.append((l, i))\n"
            "            slots -= 1\n"
            "        for node in candidates:\n            running.append(node)\n"
        ),
        check=BRIDGE_TINY,
        note="ready merges take the free slots before the window's messages [P5]",
    ),
    Mutant(
        name="planner_restart_refolds_view",
        path="harness/memory/checkpoint.py",
        old='    planner.view = planner._loaded_view(saved["view"])\n',
        new=(
            "    from harness.memory.view_text import waiting_line_bytes\n"
            "    planner.view = type(planner.view)()\n"
            "    for t in range(planner.T):\n"
            "        size = planner.line_bytes(0, t) if planner.built(0, t) else waiting_line_bytes(t)\n"
            "        planner.view.add(0, t, size, planner.built_nodes)\n"
            "        if planner.view.bytes > planner.config.view_bytes_ceiling:\n"
            "            planner.view.fit(t + 1, planner.config.view_bytes_floor, planner)\n"
        ),
        check=BRIDGE_TINY,
        note="a restart folds the view again from the messages instead of loading it [gist §3.2, §7.3]",
    ),
]

# ---- the planner's corrections, in the production planner ----
MUTANTS += [
    Mutant("planner_reserve_as_placeholder", "harness/memory/view_text.py",
           "    return len(str(i)) + 3 + LINE_BYTES_MAX + 1\n",
           "    return len(str(i)) + 3 + len(PLACEHOLDER) + 1\n",
           BRIDGE_TINY, "an unbuilt line counts its placeholder [P1]"),
    Mutant("planner_flatten_newlines_only", "harness/memory/view_text.py",
           "_BREAKS = {code: \" \" for code in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)}",
           "_BREAKS = {10: \" \", 13: \" \"}",
           BRIDGE_TINY, "only CR and LF become spaces [P15]"),
    Mutant("planner_failures_forgotten_at_load", "harness/memory/checkpoint.py",
           "    planner.failures = {(l, i): count for l, i, count in saved[\"failures\"]}",
           "    planner.failures = {}",
           BRIDGE_TINY, "a restart forgets failure counts [P16]"),
    Mutant("planner_retry_ignored", "harness/memory/planner.py",
           "        elif kind is Retry:\n            self._retry()",
           "        elif kind is Retry:\n            pass",
           BRIDGE_TINY, "a Retry does not make failed nodes candidates again [P8]"),
    Mutant("planner_retry_at_once_while_waiting", "harness/memory/planner.py",
           "        if retry_later:\n            busy.update(",
           "        if retry_later and not self.waiting:\n            busy.update(",
           BRIDGE_TINY, "a waiting turn retries a failed line at once [P8]"),
    Mutant("planner_wait_stops_every_merge", "harness/memory/planner.py",
           "        short = len(candidates) - (self.config.jobs_max - len(running))",
           "        short = len(running)",
           BRIDGE_TINY, "a wait stops every running merge [P8]"),
    Mutant("planner_cap_without_mark", "harness/memory/line.py",
           "    return CAPPED_MARK + cut(source, LINE_BYTES_MAX - utf8_bytes(CAPPED_MARK))",
           "    return cut(source, LINE_BYTES_MAX)",
           BRIDGE_TINY, "the failure cap's line has no mark [P16]"),
    Mutant("planner_too_long_counts_raw_reply", "harness/memory/line.py",
           "        follow_up = too_long(text)",
           "        follow_up = too_long(reply)",
           BRIDGE_TINY, "the follow-up reports the raw reply's size [gist §4]"),
]

# The paths the seeded scenarios once missed, each bug caught by the tiny bridge and again by
# the fixed histories or the state machine.
MUTANTS += [
    Mutant(
        name="planner_counts_stale_failed",
        path="harness/memory/planner.py",
        old=COUNTS_STALE_FAILED[0],
        new=COUNTS_STALE_FAILED[1],
        check=BRIDGE_TINY,
        note="a failure reported for a call that is not running still counts [P7]",
    ),
    Mutant(
        name="planner_counts_stale_failed_fixed",
        path="harness/memory/planner.py",
        old=COUNTS_STALE_FAILED[0],
        new=COUNTS_STALE_FAILED[1],
        check=fixed("test_outcomes_after_a_failure_and_for_calls_never_started_change_nothing"),
        note="the same bug, caught by the fixed histories",
    ),
    Mutant(
        name="planner_takes_stale_merge",
        path="harness/memory/planner.py",
        old=TAKES_STALE_MERGE[0],
        new=TAKES_STALE_MERGE[1],
        check=BRIDGE_TINY,
        note="a merge reported built after its call stopped is taken [P7]",
    ),
    Mutant(
        name="planner_takes_stale_message",
        path="harness/memory/planner.py",
        old=TAKES_STALE_MERGE[0],
        new=(
            "            if node in self.running or (l == 0 and i in self.unbuilt_set):\n"
            "                self._leave_queues(node)\n"
        ),
        check=BRIDGE_TINY,
        note="a message's line reported built while its call does not run is taken [P7]",
    ),
    Mutant(
        name="planner_shrinking_kept_without_merge",
        path="harness/memory/planner.py",
        old=SHRINKING_KEPT[0],
        new=SHRINKING_KEPT[1],
        check=BRIDGE_TINY,
        note="a batch that merges nothing keeps the view shrinking, though lines built smaller took it to its floor [gist §3.2]",
    ),
    Mutant(
        name="planner_shrinking_kept_without_merge_fixed",
        path="harness/memory/planner.py",
        old=SHRINKING_KEPT[0],
        new=SHRINKING_KEPT[1],
        check=fixed("test_lines_built_smaller_than_counted_end_the_shrinking_with_no_merge"),
        note="the same bug, caught by the fixed histories",
    ),
    Mutant(
        name="planner_cshrinking_kept_without_merge",
        path="harness/memory/planner.py",
        old="            cshrinking = cview.bytes > c.cview_bytes_floor\n",
        new="            cshrinking = cview.bytes > c.cview_bytes_floor if self.cmerges else cshrinking\n",
        check=BRIDGE_TINY,
        note="the same for the compaction view's own sawtooth [gist §4] [P4]",
    ),
    Mutant(
        name="planner_window_of_8",
        path="harness/memory/planner.py",
        old=WINDOW_OF_8[0],
        new=WINDOW_OF_8[1],
        check=BRIDGE_TINY,
        note="the message window is the gist's 8 lines whatever the job count [P6]",
    ),
    Mutant(
        name="planner_cap_one_late",
        path="harness/memory/planner.py",
        old="        if count >= self.config.failures_max:\n",
        new="        if count > self.config.failures_max:\n",
        check=BRIDGE_TINY,
        note="the failure cap builds a node one failure late [D5]",
    ),
    Mutant(
        name="line_six_tries",
        path="harness/memory/line.py",
        old=SIX_TRIES[0],
        new=SIX_TRIES[1],
        check=BRIDGE_TINY,
        note="the production line algorithm asks a sixth time [gist §4]",
    ),
    Mutant(
        name="line_six_tries_fixed",
        path="harness/memory/line.py",
        old=SIX_TRIES[0],
        new=SIX_TRIES[1],
        check=fixed("test_the_line_algorithm_stops_after_five_tries"),
        note="the same bug, caught by the fixed histories",
    ),
    Mutant(
        name="planner_wait_stops_only_when_full",
        path="harness/memory/planner.py",
        old=WAIT_ONLY_WHEN_FULL[0],
        new=WAIT_ONLY_WHEN_FULL[1],
        check=("python", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "tests/bridge/test_bridge_paths.py::test_a_wait_with_too_few_free_slots_stops_only_the_youngest_merge"),
        note="a waiting turn stops other calls only when no slot is free [P8]",
    ),
    Mutant(
        name="planner_wait_stops_only_when_full_fixed",
        path="harness/memory/planner.py",
        old=WAIT_ONLY_WHEN_FULL[0],
        new=WAIT_ONLY_WHEN_FULL[1],
        check=fixed("test_a_wait_with_too_few_free_slots_stops_only_the_youngest_merge"),
        note="the same bug, caught by the fixed histories",
    ),
    Mutant(
        name="planner_stopped_merge_deferred",
        path="harness/memory/planner.py",
        old=(
            "                # a stopped call is no failure: back to its queue\n"
            "                self._push_ready(node[0], node[1])\n"
        ),
        new=(
            "                # a stopped call is no failure: back to its queue\n"
            "                self.deferred.append(node)\n"
        ),
        check=BRIDGE_TINY,
        note="a merge a waiting turn stopped waits for the next message, like a failed one [P8]",
    ),
    Mutant(
        name="planner_turn_end_ignored",
        path="harness/memory/planner.py",
        old="        elif kind is TurnEnd:\n            self.waiting = False\n",
        new="        elif kind is TurnEnd:\n            pass\n",
        check=BRIDGE_TINY,
        note="a turn that gives up keeps waiting until the view is settled [P8]",
    ),
    Mutant(
        name="planner_flatten_keeps_lone_cr",
        path="harness/memory/view_text.py",
        old=KEEPS_LONE_CR[0],
        new=KEEPS_LONE_CR[1],
        check=BRIDGE_TINY,
        note="a lone carriage return stays in the rendered line [gist §3]",
    ),
    Mutant(
        name="planner_flatten_keeps_lone_cr_fixed",
        path="harness/memory/view_text.py",
        old=KEEPS_LONE_CR[0],
        new=KEEPS_LONE_CR[1],
        check=fixed("test_every_kind_of_line_break_renders_alike_on_both_sides"),
        note="the same bug, caught by the fixed histories",
    ),
    Mutant(
        name="planner_escape_keeps_tags",
        path="harness/memory/view_text.py",
        old='_ESCAPES = {ord("<"): "\\u2039", ord("|"): "\\u00a6"}  # ‹ ¦\n',
        new='_ESCAPES = {ord("|"): "\\u00a6"}  # ‹ ¦\n',
        check=BRIDGE_TINY,
        note="the production view shows a text's \"</chat>\" as it is [P18]",
    ),
    Mutant(
        name="planner_counts_bars_unescaped",
        path="harness/memory/view_text.py",
        old='        shown_size += text.count("|")\n',
        new='        shown_size += 0\n',
        check=BRIDGE_TINY,
        note="a line's count leaves out the byte its escaped bars add: counted is not shown [P18]",
    ),
    Mutant(
        name="planner_counts_bars_unescaped_test",
        path="harness/memory/view_text.py",
        old='        shown_size += text.count("|")\n',
        new='        shown_size += 0\n',
        check=("python", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
               "tests/memory/test_planner_text.py::test_the_framing_texts_are_shown_as_the_model_shows_them_and_counted_so"),
        note="the same, caught by the count's own test",
    ),
    Mutant(
        name="scenarios_without_stale_outcomes",
        path="bridge/scenarios.py",
        old="            if w.stale_p and rng.random() < w.stale_p:\n",
        new="            if False:\n",
        check=TINY_PATHS,
        note="the scenarios send no stale outcome but for calls just stopped: the tiny runs miss a path",
    ),
    Mutant(
        name="planner_replay_adopts_a_node_after_its_message",
        path="harness/memory/checkpoint.py",
        old="        while k < len(tail) and tail[k][3] <= t:\n",
        new="        while k < len(tail) and tail[k][3] < t:\n",
        check=BRIDGE_TINY,
        note="a restart adopts a node logged at T after message T, not before it [P10]",
    ),
    Mutant(
        name="planner_restart_takes_every_logged_node_as_built",
        path="harness/memory/checkpoint.py",
        old="        built.discard(l, i)\n",
        new="        pass\n",
        check=BRIDGE_TINY,
        note="a restart sees the nodes logged past its checkpoint as built from the start [P10]",
    ),
    Mutant(
        name="planner_failure_counts_wait_for_the_next_checkpoint",
        path="harness/memory/checkpoint.py",
        old="    return planner.lines_since_save >= SAVE_LINES or planner.failures != planner.failures_saved\n",
        new="    return planner.lines_since_save >= SAVE_LINES\n",
        check=BRIDGE_TINY,
        note="a failure count is saved only with the next 128 lines: a restart forgets it [P10] [P16]",
    ),
    Mutant(
        name="store_tail_starts_at_the_checkpoints_node",
        path="harness/memory/store.py",
        old="                offset += len(self._read_line(self.tree, number, offset, None)) + 1\n",
        new="",
        check=("python", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
               "tests/memory/test_store.py::test_the_nodes_after_a_checkpoint_are_read_in_log_order_across_days"),
        note="the nodes past a checkpoint include the checkpoint's own last node [P10]",
    ),
    Mutant(
        name="planner_turn_sends_the_view",
        path="harness/memory/planner.py",
        old="        if shown_bytes <= ceiling:\n            return view.lines()\n",
        new="        if True:\n            return view.lines()\n",
        check=("python", "-m", "bridge", "--scale", "tiny", "--scenario", "bulk_import"),
        note="a turn sends the view as it is, past its ceiling after an import (before [P19])",
    ),
    Mutant(
        name="planner_turn_folds_built_parents_only",
        path="harness/memory/planner.py",
        old="        if summarized.bytes <= ceiling:\n            return summarized.lines()\n",
        new="        if True:\n            return summarized.lines()\n",
        check=("python", "-m", "bridge", "--scale", "tiny", "--scenario", "behind"),
        note="a turn merges only pairs whose parent is built: past its ceiling while the compactor is behind",
    ),
    Mutant(
        name="planner_context_without_budget",
        path="harness/memory/planner.py",
        old="            if total > budget:\n                break\n",
        new="",
        check=BRIDGE_TINY,
        note="a compaction's context stops only at an unbuilt line, past its budget (before [P19])",
    ),
    Mutant(
        name="bridge_checkpoints_every_event",
        path="bridge/__main__.py",
        old="            if self.planner.save_due():\n                self._checkpoint()\n",
        new="            self._checkpoint()\n",
        check=TINY_PATHS,
        note="the bridge saves at every event, so no restart replays the logs past a checkpoint",
    ),
]
