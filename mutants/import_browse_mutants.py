"""Bugs planted in `ever import` and `ever browse`, each of which a test that `make test` runs
must catch.

Strategy: one mutant for each promise the README makes about them that a person would notice
broken: a message shown as markup, an import that logs again what it logged before, repeated
history logged twice, a thought imported, a path in every header, a split whose last page is a
scrap, an estimate that leaves the cache out or the chat before the notes, a note's provenance lost from its line.
"""

from mutants.base import Mutant


def test(name: str) -> tuple:
    return ("python", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", name)


MUTANTS = [
    Mutant(
        name="browse_message_as_markup",
        path="harness/browse/page.js",
        old='  box.append(meta, el("pre", "", text));\n',
        new='  const pre = el("pre"); pre.innerHTML = text; box.append(meta, pre);\n',
        check=test("tests/chat/test_browse.py::test_a_planted_script_is_shown_as_text_and_never_runs"),
        note="a message's HTML is parsed into the page [B2]",
    ),
    Mutant(
        name="browse_json_unescaped",
        path="harness/browse/page.py",
        old='    return text.replace("&", "\\\\u0026").replace("<", "\\\\u003c").replace(">", "\\\\u003e")\n',
        new="    return text\n",
        check=test("tests/chat/test_browse.py::test_a_planted_script_in_a_line_of_the_view_stays_text"),
        note="a line's `</script>` ends the first screen's JSON block [B2]",
    ),
    Mutant(
        name="import_key_of_the_run",
        path="harness/imports/rules.py",
        old="    return f\"import:{hashlib.sha256(identity.encode('utf-8')).hexdigest()[:40]}.{part}\"\n",
        new="    return f\"import:{hashlib.sha256((identity + str(os.getpid())).encode('utf-8')).hexdigest()[:40]}.{part}\"\n",
        check=test("tests/chat/test_import.py::test_importing_the_same_files_again_adds_nothing"),
        note="a note's key changes from run to run, so a second import logs everything again [I4]",
    ),
    Mutant(
        name="import_repeats_history",
        path="harness/imports/rules.py",
        old="            continue  # [I3] repeated history\n",
        new="            pass\n",
        check=test("tests/chat/test_import.py::test_claude_code_sessions_become_notes_oldest_first_with_each_trap_met"),
        note="a resumed session's repeated history is logged again [I3]",
    ),
    Mutant(
        name="import_keeps_thoughts",
        path="harness/imports/claude_code.py",
        old='        if kind == "text":\n',
        new='        if kind == "thinking":\n            parts.append(str(block.get("thinking", "")))\n        elif kind == "text":\n',
        check=test("tests/chat/test_import.py::test_claude_code_sessions_become_notes_oldest_first_with_each_trap_met"),
        note="a thought is imported, which the chat never logs [gist §1]",
    ),
    Mutant(
        name="import_header_with_path",
        path="harness/imports/rules.py",
        old='    pieces = [f"imported: {NAMED[note.source].source_name}", *note.marks, note.role,\n',
        new='    pieces = [f"imported: {NAMED[note.source].source_name}", f"{note.file} {note.position}", *note.marks, '
            'note.role,\n',
        check=test("tests/chat/test_import.py::test_claude_code_sessions_become_notes_oldest_first_with_each_trap_met"),
        note="every note's header carries the file's absolute path into every view [I1]",
    ),
    Mutant(
        name="import_split_by_the_chats_rule",
        path="harness/imports/rules.py",
        old="        return ZOOM_CHARS - len(\"note: \") - len(header_of(k, parts)) - len(\"\\n\")\n",
        new="        return ZOOM_CHARS\n",
        check=test("tests/chat/test_import.py::test_a_long_text_splits_into_notes_that_each_fill_one_page_of_zoom_but_the_last"),
        note="a note of 30,000 characters plus its header: page 1 of 2 in zoom, with a scrap on page 2 [I2]",
    ),
    Mutant(
        name="import_estimate_without_cache_reads",
        path="harness/imports/rules.py",
        old="    read = calls * (prefix + tokens(context))\n",
        new="    read = 0\n",
        check=test("tests/chat/test_import.py::test_the_cost_of_two_long_notes_is_the_documented_rule_computed_by_hand"),
        note="the estimate leaves out what every compaction reads from the cache",
    ),
    Mutant(
        name="import_estimate_from_an_empty_chat",
        path="harness/imports/rules.py",
        old="    level: dict[int, int] = {}  # the import's nodes of one level, by their index\n",
        new="    level: dict[int, int] = {}  # the import's nodes of one level, by their index\n    first = 0\n",
        check=test("tests/chat/test_import.py::test_after_a_chat_of_1000_messages_the_estimate_still_counts_what_a_planner_asks_for[300]"),
        note="the estimate counts the notes' tree as if the chat were empty: the merges that join them to the "
             "chat's lines are left out, and the figure is no longer an upper bound",
    ),
    Mutant(
        name="import_provenance_dropped",
        path="harness/imports/rules.py",
        old="                          origin=message.origin or None)\n",
        new="                          origin=None)\n",
        check=test("tests/chat/test_import.py::test_claude_code_sessions_become_notes_oldest_first_with_each_trap_met"),
        note="where a note was read is lost: the log line has no `from` [I1]",
    ),
]

WEIGHT = "tests/chat/test_import_weight.py::"

MUTANTS += [
    Mutant(
        name="import_weighs_a_byte_a_token",
        path="harness/imports/rules.py",
        old="            return round(nbytes / weight.bytes_per_token)\n",
        new="            return nbytes\n",
        check=test(WEIGHT + "test_ever_import_says_the_likely_cost_first_and_the_bound_beside_it"),
        note="the likely cost counts a byte a token: the 4x of the bound, said as likely [I6]",
    ),
    Mutant(
        name="import_weight_never_kept",
        path="harness/imports/tokens.py",
        old='        if isinstance(entry, dict) and entry.get("key") == key:\n',
        new="        if False:\n",
        check=test(WEIGHT + "test_the_notes_are_weighed_by_the_apis_count_of_a_sample_and_the_count_is_kept"),
        note="every import asks the API to count its sample again, the kept count never read [I6]",
    ),
]
