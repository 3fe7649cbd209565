"""Bugs planted in the production planner, each of which the tiny bridge must catch.

Strategy: each mutant changes one line of harness/planner.py into a mistake the gist names or a
plausible misreading of docs/planner.md; the check is the tiny bridge (`python -m bridge --scale
tiny`), which exits 1 on the first trace difference from the model.
"""

from mutants.base import Mutant

BRIDGE_TINY = ("python", "-m", "bridge", "--scale", "tiny")

MUTANTS = [
    Mutant(
        name="planner_due_from_first",
        path="harness/planner.py",
        old="    left = (T + 1 - first_a) << l_b\n    right = (T + 1 - first_b) << l_a\n",
        new="    left = (T - first_a) << l_b\n    right = (T - first_b) << l_a\n",
        check=BRIDGE_TINY,
        note="due measured from the pair's first message, (T - first)/2^l [gist §3.2, §7.1]",
    ),
    Mutant(
        name="planner_batch_to_ceiling",
        path="harness/planner.py",
        old="            merges = view.fit(T, c.view_bytes_floor, self.texts)\n",
        new="            merges = view.fit(T, c.view_bytes_ceiling, self.texts)\n",
        check=BRIDGE_TINY,
        note="a batch merges down to the ceiling, not the floor [gist §3.2]",
    ),
    Mutant(
        name="planner_ready_by_level",
        path="harness/planner.py",
        old="        heapq.heappush(self.ready, (last_message(l + 1, parent), l + 1, parent))\n",
        new="        heapq.heappush(self.ready, (l + 1, l + 1, parent))\n",
        check=BRIDGE_TINY,
        note="ready merges start lowest level first, not by last message [decision P5]",
    ),
    Mutant(
        name="planner_merges_before_messages",
        path="harness/planner.py",
        old="        for i in islice(unbuilt, jobs_max):\n            node = (0, i)\n            if node in running:\n",
        new=(
            "        ready = self.ready\n"
            "        while not waiting and slots > 1 and ready:\n"
            "            _, l, i = heapq.heappop(ready)\n"
            "            running.append((l, i))\n"
            "            slots -= 1\n"
            "        for i in islice(unbuilt, jobs_max):\n            node = (0, i)\n            if node in running:\n"
        ),
        check=BRIDGE_TINY,
        note="ready merges take the free slots before the window's messages [decision P5]",
    ),
    Mutant(
        name="planner_restart_refolds_view",
        path="harness/planner.py",
        old='        planner.view = planner._loaded_view(data["view"])\n',
        new=(
            "        planner.view = _View()\n"
            "        for t in range(planner.T):\n"
            "            text = planner.text(0, t)\n"
            "            size = waiting_line_bytes(t) if text is None else built_line_bytes(0, t, text)\n"
            "            planner.view.add(0, t, size, planner.texts)\n"
            "            if planner.view.bytes > planner.config.view_bytes_ceiling:\n"
            "                planner.view.fit(t + 1, planner.config.view_bytes_floor, planner.texts)\n"
        ),
        check=BRIDGE_TINY,
        note="a restart folds the view again from the messages instead of loading it [gist §3.2, §7.3]",
    ),
]

# ---- the planner's corrections, in the production planner ----
MUTANTS += [
    Mutant("planner_reserve_as_placeholder", "harness/planner.py",
           "    return len(str(i)) + 3 + LINE_BYTES_MAX + 1\n",
           "    return len(str(i)) + 3 + len(PLACEHOLDER) + 1\n",
           BRIDGE_TINY, "an unbuilt line counts its placeholder [decision P1]"),
    Mutant("planner_flatten_newlines_only", "harness/planner.py",
           "_BREAKS = {code: \" \" for code in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)}",
           "_BREAKS = {10: \" \", 13: \" \"}",
           BRIDGE_TINY, "only CR and LF become spaces [decision P15]"),
    Mutant("planner_failures_forgotten_at_load", "harness/planner.py",
           "        planner.failures = {(l, i): count for l, i, count in data[\"failures\"]}",
           "        planner.failures = {}",
           BRIDGE_TINY, "a restart forgets failure counts [decision P16]"),
    Mutant("planner_retry_ignored", "harness/planner.py",
           "        elif kind is Retry:\n            self._retry()",
           "        elif kind is Retry:\n            pass",
           BRIDGE_TINY, "a Retry does not make failed nodes candidates again [decision P8]"),
    Mutant("planner_retry_at_once_while_waiting", "harness/planner.py",
           "            if (0, i) not in running and (0, i) not in retry_later",
           "            if (0, i) not in running and (self.waiting or (0, i) not in retry_later)",
           BRIDGE_TINY, "a waiting turn retries a failed line at once [decision P8]"),
    Mutant("planner_wait_stops_every_merge", "harness/planner.py",
           "        short = len(candidates) - (self.config.jobs_max - len(running))",
           "        short = len(running)",
           BRIDGE_TINY, "a wait stops every running merge [decision P8]"),
    Mutant("planner_cap_without_mark", "harness/line.py",
           "    return CAPPED_MARK + cut(source, LINE_BYTES_MAX - utf8_bytes(CAPPED_MARK))",
           "    return cut(source, LINE_BYTES_MAX)",
           BRIDGE_TINY, "the failure cap's line has no mark [decision P16]"),
    Mutant("planner_too_long_counts_raw_reply", "harness/line.py",
           "        follow_up = too_long(text)",
           "        follow_up = too_long(reply)",
           BRIDGE_TINY, "the follow-up reports the raw reply's size [gist §4]"),
]
