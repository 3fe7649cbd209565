"""Bugs planted in what a person meets in a first week: the import's estimate, `ever memory
status`, the service unit, each caught by the test named for it.

Strategy: one mutant for each edge a review found escaping (the estimate leaving out the `note: `
the planner adds, o1) and for each promise of the status and the unit that a byte or a word
breaks.
"""

from mutants.base import Mutant


def test(name: str) -> tuple:
    return ("python", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", name)


MUTANTS = [
    Mutant(
        name="estimate_without_note_prefix",
        path="harness/imports/rules.py",
        old='        source = size + len("note: ")\n',
        new="        source = size\n",
        check=test("tests/chat/test_import_estimate_edges.py::"
                   "test_the_estimate_bounds_the_compactions_at_every_note_size_from_1_to_1100"),
        note="o1: the estimate leaves out the `note: ` the planner adds (200 notes of 250 bytes: 97 calls "
             "estimated, 197 asked)",
    ),
    Mutant(
        name="status_counted_view",
        path="harness/memory/service.py",
        old='            "view_bytes": len(sent.encode("utf-8")),\n',
        new='            "view_bytes": planner.view.bytes,\n',
        check=test("tests/chat/test_words.py::test_memory_status_speaks_in_sentences_and_json_gives_the_figures"),
        note="status gives the planner's counted view (a placeholder at its 512-byte reserve), not the bytes the "
             "next turn sends",
    ),
    Mutant(
        name="unit_percent_unescaped",
        path="harness/chat/serve.py",
        old='.replace("%", "%%")',
        new="",
        check=test("tests/chat/test_service_unit.py::"
                   "test_the_unit_starts_an_owner_with_the_key_file_and_the_base_url_it_carries"),
        note="a `%` in a path is left a systemd specifier: the unit names another program",
    ),
    Mutant(
        name="unit_key_from_the_environment",
        path="harness/chat/serve.py",
        old="        load_key(settings.home, {})\n",
        new="        load_key(settings.home, environ)\n",
        check=test("tests/chat/test_service_unit.py::"
                   "test_install_refuses_a_key_only_in_the_environment_in_one_sentence_with_the_fix"),
        note="a key only in the shell's environment passes, and the unit starts with no key",
    ),
    Mutant(
        name="browse_hits_not_shown",
        path="harness/browse/page.js",
        old="  if (found.length) await showHit(0);\n",
        new="",
        check=test("tests/chat/test_browse.py::test_search_on_5000_messages_scrolls_to_each_hit_and_marks_it"),
        note="search lists its hits above the window, where the page that opens at its newest line never is",
    ),
    Mutant(
        name="import_counts_per_file_notes_only",
        path="harness/imports/importing.py",
        old="            if added != notes:",
        new="            if False:",
        check=test("tests/chat/test_import.py::"
                   "test_the_per_file_counts_add_up_to_the_total_and_say_the_pages_of_long_notes"),
        note="each file says its notes, not the messages it adds: the counts do not add up to the total",
    ),
    Mutant(
        name="covers_past_their_bytes",
        path="harness/memory/covers.py",
        old="        if len(text.encode(\"utf-8\")) <= PLACEHOLDER_BYTES_MAX:\n",
        new="        if True:\n",
        check=test("tests/memory/test_covers.py::test_a_text_past_the_bytes_drops_its_source_then_its_days"),
        note="[P22] a placeholder keeps its tool past the 128 bytes its line is counted at: the view sent "
             "passes the ceiling the planner proved",
    ),
    Mutant(
        name="covers_from_the_first_message_only",
        path="harness/memory/covers.py",
        old="[self.facts(j) for j in range(first, last + 1)]",
        new="[self.facts(first)] * (last - first + 1)",
        check=test("tests/memory/test_covers.py::test_a_line_over_more_than_two_sources_names_their_count"),
        note="[P22] a line's placeholder says its first message's tool and day for the whole range: untrue of the rest",
    ),
    Mutant(
        name="turn_sends_the_bare_placeholder",
        path="harness/memory/service.py",
        old="        return self.planner.render(lines, self.placeholder)\n",
        new="        return self.planner.render(lines)\n",
        check=test("tests/calls/test_turn.py::test_after_the_settle_timeout_the_view_shows_placeholders"),
        note="[P22] the turn's view says only \"not summarized yet\", never which messages, tools and days a line holds",
    ),
]
