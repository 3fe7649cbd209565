"""Planted bugs of the laws' own claims and of the planner's edges, each with the check named for it.

Strategy: each is one textual edit of a bug that once escaped every check: the turn's fold and
its placeholders (their newline, their digits), the coarse fit, the context's budget per line and
at its exact budget, a restart's discard, a waiting turn's retries, capped merges, a canary that
cannot fail, a narrowed bound, the damage record, the torn first byte. The prover's two unsound
rules (the loop cache keyed without the fold's start, `mapped`'s twin dropping its obligations)
are in mutants/law_mutants.py's RULE_MUTANTS, where tests/laws/test_canaries.py also applies
each in-process. Every planner bug here is caught by `make test` alone: the tiny bridge's
selection in tests/bridge/test_bridge.py (docs/trust.md, "What make test's tiny runs reach").
"""

from mutants.base import Mutant
from mutants.law_mutants import law, test

DAMAGE = "harness/memory/damage.py"
LOGFILE = "harness/memory/logfile.py"
EDGES = "tests/memory/test_store.py"
PLANNER = "harness/memory/planner.py"
CHECKPOINT = "harness/memory/checkpoint.py"
FAST_TINY = test("tests/bridge/test_bridge.py::test_every_fast_tiny_run_agrees")  # make test's tiny runs

MUTANTS = [
    # the planner's bugs (h1–h3, m2 and the rest): each caught by make test's tiny runs (which, measured)
    Mutant('fold_placeholders_at_reserve', PLANNER, '            if l == 0 and i in self.unbuilt_set:\n                line_bytes = placeholder_line_bytes(0, i)\n',
           '            if False:\n                line_bytes = placeholder_line_bytes(0, i)\n',
           FAST_TINY, "the turn's fold counts unbuilt lines at their 512-byte reserve, not their placeholder: it folds more than the model"),  # 16 of make test's 39 tiny runs
    Mutant('placeholder_without_newline', PLANNER, '    return len(str(i << l)) + HEAD_TAIL_BYTES[l] + PLACEHOLDER_BYTES_MAX\n',
           '    return len(str(i << l)) + HEAD_TAIL_BYTES[l] + PLACEHOLDER_BYTES_MAX - 1\n',
           FAST_TINY, "a placeholder line is counted without its newline: the turn's view passes the ceiling by a byte a line"),  # behind/1 to 4, outages/1, stale_outcomes/1, terse_compactor/4
    Mutant('placeholder_digits_of_its_index', PLANNER, '    return len(str(i << l)) + HEAD_TAIL_BYTES[l] + PLACEHOLDER_BYTES_MAX\n',
           '    return len(str(i)) + HEAD_TAIL_BYTES[l] + PLACEHOLDER_BYTES_MAX\n',
           FAST_TINY, "a placeholder's head is counted with the digits of its index, not of its first message"),  # behind/1, 3, 4, stale_outcomes/1, terse_compactor/4
    Mutant('coarse_placeholder_of_a_message', PLANNER, '        return placeholder_line_bytes(l, i)\n\n\nclass Planner',
           '        return placeholder_line_bytes(0, i)\n\n\nclass Planner',
           FAST_TINY, "the coarse fit counts an unbuilt parent's placeholder with a message's head"),  # behind/1 to 4, stale_outcomes/1, terse_compactor/4
    Mutant('context_budget_per_line', PLANNER, '            total += line_bytes[line_i << line_l]\n',
           '            total = line_bytes[line_i << line_l]\n',
           FAST_TINY, "a compaction's context holds each line to the budget, not their sum"),  # 27 of the 39 runs
    Mutant('context_short_of_its_exact_budget', PLANNER, '            if total > budget:\n                break\n            lines.append((line_l, line_i))\n',
           '            if total >= budget:\n                break\n            lines.append((line_l, line_i))\n',
           FAST_TINY, "a compaction's context stops one line short when it reaches its budget exactly"),  # long_100000/1, 2 and 5
    Mutant('restart_keeps_the_tail_built', CHECKPOINT, '    for l, i, _, _ in tail:\n        built.discard(l, i)\n',
           '',
           FAST_TINY, 'a restart keeps the nodes logged after the checkpoint built before replaying them'),  # restarts/1, 2, random/3, 8, stale_outcomes/1 to 4, outages/1
    # m4: a capped merge cut as one text, which loses its second half when the first is long
    Mutant("capped_merge_cut_as_one", "model/line.py",
           "    return CAPPED_MARK + merge_input_cut(a, b, LINE_BYTES_MAX - utf8_bytes(CAPPED_MARK))\n",
           "    return CAPPED_MARK + cut(a + \"\\n\" + b, LINE_BYTES_MAX - utf8_bytes(CAPPED_MARK))\n",
           law("capped_text_finds_its_source"), "a failed merge's capped line cuts its halves as one text: a long first half "
           "leaves the second a few bytes [P9]"),
    # m5: a waiting turn retries a failed line at once
    Mutant("waiting_turn_retries_at_once", "model/planner.py", "    if waiting:\n        short = len(candidates)",
           "    if waiting:\n        candidates = tuple(node for node in window if node not in running)\n"
           "        short = len(candidates)",
           law("queue_functions_hold"), "while a turn waits, a window line that failed since the last message starts again"),
    # l3: the capped-text law narrowed from T ≤ 16 to T ≤ 8, its label kept
    Mutant("capped_tilings_narrowed", "laws/work_queue.py", "TILED_MAX = 16  # every T up to this\n",
           "TILED_MAX = 8  # every T up to this\n",
           law("capped_text_finds_its_source"), "the capped-text law tiles only T ≤ 8: its label, built from the run, says so"),
    # l2: a canary that cannot fail
    Mutant("canary_cannot_fail", "laws/canaries.py", "    if proved:\n        return False, f\"{name}: PROVED, a known-false claim\"\n",
           "", test("tests/laws/test_canaries.py::test_each_rule_made_unsound_lets_a_canary_through[fold_cache_ignores_the_start]"),
           "a canary the prover proves still counts as refused"),
    # o2: after a cut day file and a lost index, a lost id is given again
    Mutant("record_given_one_short", DAMAGE, "        return max((high + 1 for _, high in self.lost), default=0)\n",
           "        return max((high for _, high in self.lost), default=0)\n",
           test(f"{EDGES}::test_an_id_lost_when_a_day_file_was_cut_is_not_given_again_when_the_index_is_lost_too"),
           "the damage record's highest id given is one short: with the index lost, the lost id is given again"),
    # o3: a file torn after its first byte is never ended, and the next acknowledged line is lost
    Mutant("torn_first_byte_not_ended", LOGFILE, "    return size > 0 and disk.pread(fd, 1, size - 1) != b\"\\n\"\n",
           "    return size > 1 and disk.pread(fd, 1, size - 1) != b\"\\n\"\n",
           test(f"{EDGES}::test_a_torn_tail_of_every_length_on_an_empty_file_is_ended_and_the_next_line_stands_alone"),
           "a file torn after its first byte is not ended: the next line is glued to the torn byte"),
    Mutant("torn_first_byte_not_ended_store", LOGFILE, "    return size > 0 and disk.pread(fd, 1, size - 1) != b\"\\n\"\n",
           "    return size > 1 and disk.pread(fd, 1, size - 1) != b\"\\n\"\n",
           test(f"{EDGES}::test_a_day_file_holding_only_a_torn_first_line_of_any_length_keeps_the_next_message"),
           "the same bug, through the store: the next message after a 1-byte torn first line is lost"),
    # a placeholder names a source read from a message's own text: shown raw, it closes the view
    Mutant("placeholder_source_shown_raw", "harness/memory/covers.py",
           '        text = shown(", ".join([part for part in parts if part] + [PLACEHOLDER]))\n',
           '        text = ", ".join([part for part in parts if part] + [PLACEHOLDER])\n',
           test("tests/memory/test_covers.py::test_a_message_that_imitates_an_import_header_never_closes_the_view"),
           "a placeholder shows the source a message's \"[imported: …]\" names as it is: \"</chat>\" closes the view [P18]"),
    # verdicts that depend on order: a query named by the terms made before it, or near its limit
    Mutant("literal_named_by_count", "laws/z3_model.py", '        _LITERALS[text] = z3.Const(f"text {text!r}", TEXT)\n',
           '        _LITERALS[text] = z3.Const(f"text{len(_LITERALS)}", TEXT)\n',
           test("tests/laws/test_z3_stable.py::test_a_text_literal_is_the_same_term_whatever_literals_were_made_before"),
           "a text literal named by the count of literals before it: a canary's literal renames every later law's"),
    Mutant("fold_case_given_every_fact", "laws/z3_fold.py", "            if number != 0:\n                return carry_facts(p)\n",
           "            if True:\n                return carry_facts(p)\n",
           law("push_agrees_always"), "the fold step's case p < Z − 1 given every fact: Z3 runs past its limit"),
    Mutant("carry_witness_left_to_search", "laws/z3_fold.py",
           '            given.witnessed("a carry", m == 3, Z == 1, *concrete_carry(V, T))\n',
           '            given.witnessed("a carry", m == 3, Z == 1)\n',
           test("tests/laws/test_z3_stable.py::test_the_fold_steps_queries_stay_far_inside_the_limit_whatever_ran_before[0-0]"),
           "the carry's witness left for Z3 to find: millions of units, past the limit in some orders"),
    # the turn's view tiles as the view does: the sibling-free case is sibling_free_view_has_64_lines's tiling
    Mutant("model_coarse_placeholder_of_a_message", "model/view.py",
           "        return choose(parents.built(l, i), parents.line(l, i), placeholder_line(l, i))\n",
           "        return choose(parents.built(l, i), parents.line(l, i), placeholder_line(0, i))\n",
           law("turn_view_within_ceiling"), "the model's coarse fit shows an unbuilt parent as a message's placeholder: "
           "the turn's view no longer tiles"),
    # the turn's view in rendered bytes: a placeholder or a built line counted a byte short fails the proof
    Mutant("model_placeholder_without_newline", "model/view.py",
           "    return Line(l, i, \"\", False, utf8_bytes(name(l, i)) + 1 + PLACEHOLDER_BYTES_MAX + 1)\n",
           "    return Line(l, i, \"\", False, utf8_bytes(name(l, i)) + 1 + PLACEHOLDER_BYTES_MAX)\n",
           law("turn_view_within_ceiling"), "the model counts a placeholder line without its newline: the turn's view "
           "renders past its ceiling by a byte a placeholder"),
    Mutant("model_built_line_without_newline", "model/view.py",
           "    return Line(l, i, text, True, utf8_bytes(rendered(line)) + 1)\n",
           "    return Line(l, i, text, True, utf8_bytes(rendered(line)))\n",
           law("turn_view_within_ceiling"), "the model counts a built line without its newline: a merged line renders a "
           "byte past its count"),
    # the history carries each built line's count: the premise of the turn's ceiling in rendered bytes
    Mutant("model_built_line_without_newline_in_the_history", "model/view.py",
           "    return Line(l, i, text, True, utf8_bytes(rendered(line)) + 1)\n",
           "    return Line(l, i, text, True, utf8_bytes(rendered(line)))\n",
           law("view_counts_rendered"), "the model counts a built line without its newline: after a message or a "
           "merge the view holds a line that renders a byte past its count"),
    # the view's ceiling after any history: the chain's bound is the precondition's, no less
    Mutant("ceiling_bound_a_byte_short", "laws/universal.py",
           "CEILING_BOUND = zc.LINE_LINES_MAX * zc.LINE_RENDERED_BYTES_MAX  # 100,992\n",
           "CEILING_BOUND = zc.LINE_LINES_MAX * zc.LINE_RENDERED_BYTES_MAX - 1\n",
           law("view_within_ceiling"), "the view's ceiling claimed for a bound one byte under 64 lines of 1,578 bytes: "
           "the chain refuses it"),
    Mutant("ceiling_canary_without_its_cut", "laws/universal.py",
           '("the bound without T < 2^64", ceiling_chain(CEILING_BOUND, None, CANARY_RLIMIT))',
           '("the bound without T < 2^64", ceiling_chain(CEILING_BOUND, rlimit=CANARY_RLIMIT))',
           law("view_within_ceiling"), "the precondition's canary asks with T < 2^64 kept: it proves, so the law fails "
           "(a canary must be able to fail)"),
    Mutant("decimal_rule_of_every_number", "laws/z3_events.py",
           '    return zm.DECIMAL(1) == zm.literal("1")\n',
           '    n = z3.Int("n_decimal")\n    return z3.ForAll([n], zm.DECIMAL(n) == zm.literal("1"))\n',
           law("line_size_rules_refuse"), "the history's rule on decimal(1) said of every number: its canary, "
           "decimal(2) is \"1\", is proved"),
    # a bound narrowed in the code earns less than the registry
    Mutant("sibling_free_tilings_narrowed", "laws/bounded.py", "SIBLING_FREE_T_MAX = 1_024  # every T up to this\n",
           "SIBLING_FREE_T_MAX = 512  # every T up to this\n",
           law("sibling_free_view_is_binary"), "the sibling-free tilings searched only to T = 512: its label, built from the run, says so"),
    Mutant("frame_scalars_narrowed", "laws/protocol.py",
           "    codes = [code for code in range(sys.maxunicode + 1) if not 0xD800 <= code <= 0xDFFF]\n    every = ",
           "    codes = [code for code in range(0x10000) if not 0xD800 <= code <= 0xDFFF]\n    every = ",
           law("rendered_lines_keep_the_frame"), "the frame law renders only the Basic Multilingual Plane: its label says "
           "63,488 scalar values, not the registry's 1,112,064"),
    Mutant("shifted_steps_narrowed", "laws/bounded.py",
           "    for t in range(budget.t + 1):\n        states = push(t, states)\n        grown = ",
           "    for t in range(budget.t // 2 + 1):\n        states = push(t, states)\n        grown = ",
           law("shifted_agrees_with_push"), "the shifted rule checked only to t = 10,000: its label gives the last t that ran"),
    Mutant("ceiling_runs_narrowed", "laws/bounded.py",
           "    yield from late(Config(6_000, 3_000, 2_000, 1_000, 4), 1_500, seed=2)\n",
           "    yield from late(Config(6_000, 3_000, 2_000, 1_000, 4), 1_000, seed=2)\n",
           law("view_bytes_rendered"), "the first late run cut to 1,000 messages: the label counts 2,200 messages"),
]
