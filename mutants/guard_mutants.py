"""Bugs planted in the chat's guards on spend, approvals, questions and entrances, each of which a
test that `make test` runs must catch.

Strategy: one mutant for each guard a hostile chat must meet: a report's turn that gets a fresh
chain instead of its chain's [H15], a call not counted in the chat's window, a sender that takes
the terminals' "always" and a terminal that forgets its own [A8], told words that lend the
subagent's approval, a question left pending when its terminal goes or not asked in a terminal
that attaches [A9], and the entrances that let an exception through or lose a line.
"""

from mutants.base import Mutant


def test(name: str) -> tuple:
    """One pytest test: the judge needs the test it names."""
    return ("python", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", name)


GUARD = "tests/chat/test_guard.py::"

MUTANTS = [
    Mutant(
        name="report_turn_fresh_chain",
        path="harness/owner/owner.py",
        old="self.turn = turn = self.new_turn(approval=approval, chain=report.chain)",
        new="self.turn = turn = self.new_turn(approval=approval, chain=None)",
        check=test(GUARD + "test_a_message_whose_every_reports_turn_starts_a_subagent_stops_at_the_chains_cap"),
        note="a report's turn gets a fresh budget, so one message's subagents multiply without end [H15]",
    ),
    Mutant(
        name="chat_window_not_counted",
        path="harness/calls/loop.py",
        old="                self.spend.record(self.settings.model, reply.spent)\n",
        new="                pass\n",
        check=test(GUARD + "test_past_the_chats_calls_per_hour_the_work_stops_every_terminal_hears_it_and_the_next_message_resumes"),
        note="a call is not counted in the chat's hourly window, so no chat cap is ever reached [H15]",
    ),
    Mutant(
        name="always_arms_every_sender",
        path="harness/owner/socket.py",
        old="    approval = Approval(owner.approve, request.yes, None)\n",
        new=("    approval = Approval(set(owner.approve).union(*(c.approval.allowed for c in owner.hub.clients\n"
             "                                                   if c.approval is not None)), request.yes, None)\n"),
        check=test(GUARD + "test_always_holds_for_the_terminal_that_gave_it_and_for_no_sender_or_mcp_client"),
        note="a sender's approval takes the \"always\" answered in a terminal [A8]",
    ),
    Mutant(
        name="always_forgotten_by_its_terminal",
        path="harness/owner/owner.py",
        old="        if client.approval is None:\n",
        new="        if True:\n",
        check=test(GUARD + "test_always_holds_for_the_terminal_that_gave_it_and_for_no_sender_or_mcp_client"),
        note="a terminal's \"always\" lasts one message: it is asked again [A8]",
    ),
    Mutant(
        name="tell_lends_its_approval",
        path="harness/calls/agents.py",
        old="            sub.tools.approval = weakest(sub.tools.approval, approval)\n",
        new="            pass\n",
        check=test(GUARD + "test_words_told_by_a_sender_without_yes_carry_its_approval_into_the_subagent"),
        note="words told to a subagent run under the subagent's approval, not the teller's [A8]",
    ),
    Mutant(
        name="question_left_pending",
        path="harness/owner/hub.py",
        old="            self.decline_all(Answer.GONE.value)\n",
        new="            pass\n",
        check=test(GUARD + "test_a_question_whose_only_terminal_leaves_is_declined_and_the_chat_answers_the_next_sender"),
        note="a question whose only terminal left waits for ever, and the chat with it [A9]",
    ),
    Mutant(
        name="question_not_asked_again",
        path="harness/owner/hub.py",
        old="            client.send(protocol.Question(number, text))\n",
        new="            pass\n",
        check=test(GUARD + "test_a_waiting_question_is_asked_in_a_terminal_that_attaches_and_shown_in_the_status"),
        note="a terminal that attaches while a question waits is never asked it [A9]",
    ),
]

ENTRANCES = "tests/chat/test_guard_entrances.py::"
RAISES = ENTRANCES + ("test_search_text_sqlite_cannot_bind_is_answered_and_a_request_that_raises_is_one_sentence_"
                      "logged_once")

MUTANTS += [
    Mutant(
        name="entrance_lets_an_exception_through",
        path="harness/owner/socket.py",
        old="        except Exception as error:  # [S26] whatever a request raises: one sentence, logged once\n",
        new="        except ZeroDivisionError as error:\n",
        check=test(RAISES),
        note="a request whose answer raises closes the connection unanswered: its sender retries it [S26]",
    ),
    Mutant(
        name="entrance_failure_logged_each_time",
        path="harness/owner/socket.py",
        old="        if self.seen[sentence] == 1:\n",
        new="        if True:\n",
        check=test(RAISES),
        note="the same failure is written to the owner's output each time it is sent: a flood [S26]",
    ),
    Mutant(
        name="search_nul_reaches_sqlite",
        path="harness/memory/search.py",
        old='        if "\\0" in query:  # [S27] SQLite cannot bind it: said, not raised\n',
        new="        if False:\n",
        check=test(ENTRANCES + "test_a_nul_in_the_models_search_is_a_tool_error_and_the_turn_goes_on"),
        note="a NUL in the model's search reaches SQLite and ends the turn [S27]",
    ),
    Mutant(
        name="attached_terminals_uncapped",
        path="harness/owner/socket.py",
        old="                if len(owner.hub.clients) >= ATTACHED_MAX:\n",
        new="                if False:\n",
        check=test(ENTRANCES + "test_past_the_most_terminals_and_connections_each_is_refused_in_a_sentence_and_the_"
                               "owner_goes_on"),
        note="terminals attach without end, each holding a descriptor (EMFILE) [S26]",
    ),
    Mutant(
        name="say_never_acknowledged",
        path="harness/owner/owner.py",
        old="            client.send(protocol.Took(ok=not refused))\n",
        new="            pass\n",
        check=test(ENTRANCES + "test_an_attached_terminals_line_is_acknowledged_and_one_never_taken_is_said_not_sent"),
        note="an attached terminal's line is never acknowledged, so one lost to a dying owner is never said [S25]",
    ),
    Mutant(
        name="zoom_past_the_end_answers_a_placeholder",
        path="harness/owner/socket.py",
        old="        if 0 <= first < T and n >= 1 and n & (n - 1) == 0 and first + n > T:\n",
        new="        if False:\n",
        check=test(ENTRANCES + "test_a_zoom_past_the_chats_end_is_no_such_line_over_the_socket_and_through_mcp"),
        note="zoom(0, 2**62) answers a placeholder line instead of no such line",
    ),
]

FILES = "tests/chat/test_guard_files.py::"

MUTANTS += [
    Mutant(
        name="lost_range_unbounded",
        path="harness/memory/damage.py",
        old="        if lost[1] - lost[0] + 1 > LOST_IDS_MAX:\n",
        new="        if False:\n",
        check=test(FILES + "test_a_lost_range_of_six_billion_ids_is_not_believed_said_by_doctor_and_set_aside"),
        note="a damage record line naming six billion lost ids is believed: MemoryError, a lying doctor [S13]",
    ),
    Mutant(
        name="record_checksum_unchecked",
        path="harness/memory/damage.py",
        old='    return "sum" not in entry or entry["sum"] == entry_sum(entry)\n',
        new="    return True\n",
        check=test(FILES + "test_an_ever_written_record_line_whose_fields_changed_fails_its_checksum"),
        note="a damage record line whose fields changed is believed: its checksum is never checked [S13]",
    ),
]

MUTANTS += [
    Mutant(
        name="import_follows_links_out",
        path="harness/imports/rules.py",
        old="    return None if target.is_relative_to(Path(os.path.realpath(folder))) else target\n",
        new="    return None\n",
        check=test(FILES + "test_an_import_refuses_a_link_out_of_its_folder_and_says_how_to_include_it"),
        note="an import follows notes.txt -> ~/.ssh/id_ed25519 out of the folder it was given [H16]",
    ),
    Mutant(
        name="url_userinfo_logged",
        path="harness/chat/mcp_server.py",
        old='        hidden = URL_USERINFO.sub(r"\\1<hidden>@", text)\n',
        new="        hidden = text\n",
        check=test(FILES + "test_a_password_in_the_base_url_and_an_mcp_session_id_reach_no_log_line"),
        note="a log line shows a base URL's password [H16]",
    ),
]

MUTANTS += [
    Mutant(
        name="subagent_cost_outside_its_chain",
        path="harness/calls/agents.py",
        old="self.memory.store.date_now(), chain=self.chain.root)",
        new="self.memory.store.date_now())",
        check=test(GUARD + "test_ever_cost_shows_what_each_chain_spent_its_subagents_and_report_turns_included"),
        note="a subagent's calls are not counted in its chain's cost [H15]",
    ),
]

HOSTILE = FILES + "test_hostile_files_for_simulate_and_bench_recall_are_refused_in_one_sentence"

MUTANTS += [
    Mutant(
        name="recall_file_nested_past_the_parser",
        path="harness/bench/planted.py",
        old="    except RecursionError:  # [H16] nested deeper than the parser goes: no benchmark's file is\n",
        new="    except ZeroDivisionError:\n",
        check=test(HOSTILE),
        note="`ever bench recall --file` on JSON nested past the parser ends in RecursionError [H16]",
    ),
    Mutant(
        name="simulate_naive_date_taken",
        path="harness/bench/simulate_workloads.py",
        old="                    if not isinstance(kind, str) or date.tzinfo is None:\n",
        new="                    if not isinstance(kind, str):\n",
        check=test(HOSTILE),
        note="`ever simulate --from-log` takes a date without its offset, and subtracting it fails [H16]",
    ),
]

INDEX = FILES + "test_the_search_index_forgets_a_message_set_aside_and_a_fifo_in_its_place_hangs_nothing"

MUTANTS += [
    Mutant(
        name="index_keeps_what_is_set_aside",
        path="harness/memory/search.py",
        old='        if meta.get("aside") != self.aside():  # [H17] a message set aside since is found no more\n',
        new="        if False:\n",
        check=test(INDEX),
        note="the search index is not checked against the damage record: a message set aside is still found [H17]",
    ),
    Mutant(
        name="index_trusts_its_ids",
        path="harness/memory/search.py",
        old="        if first is not None and not (0 <= first[0] and last[0] < indexed):\n",
        new="        if False:\n",
        check=test("tests/chat/test_guard_files.py::"
                   "test_a_forged_search_index_is_made_again_and_search_finds_what_the_log_holds"),
        note="a forged index's id past the chat's end is searched, and the search ends in a bug [H17]",
    ),
    Mutant(
        name="index_trusts_its_table",
        path="harness/memory/search.py",
        old="        if schema != (MESSAGES_TABLE,):\n",
        new="        if False:\n",
        check=test("tests/chat/test_guard_files.py::"
                   "test_a_forged_search_index_is_made_again_and_search_finds_what_the_log_holds"),
        note="an index whose table is not the index's is read, and search refuses instead of answering [H17]",
    ),
    Mutant(
        name="index_opens_a_fifo",
        path="harness/memory/search.py",
        old='            if not stat.S_ISREG(os.lstat(path).st_mode):\n                raise OSError(f"{path} is not a regular file")\n        except FileNotFoundError:\n            pass\n        try:  # 0600 from the start, as every file of the chat; never through a link, never waiting\n            os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600))\n',
        new='            pass\n        except FileNotFoundError:\n            pass\n        try:  # 0600 from the start, as every file of the chat; never through a link, never waiting\n            os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_NOFOLLOW, 0o600))\n',
        check=test(INDEX),
        note="a FIFO in the search index's place is opened as the index, waiting for a reader [H17]",
    ),
]

MUTANTS += [
    Mutant(
        name="full_disk_index_ends_the_turn",
        path="harness/memory/search.py",
        old="    except sqlite3.Error as error:\n        raise SearchError(f\"the search index could not be made",
        new="    except ZeroDivisionError as error:\n        raise SearchError(f\"the search index could not be made",
        check=test(ENTRANCES + "test_a_full_disk_when_the_index_is_made_is_a_tool_error_and_the_turn_goes_on"),
        note="an index SQLite cannot make (a full disk) ends the turn that searched [S27]",
    ),
]

MUTANTS += [
    Mutant(
        name="owner_keeps_the_shells_open_files",
        path="harness/owner/socket.py",
        old="    open_files_raised()\n",
        new="",
        check=test("tests/chat/test_serve.py::"
                   "test_eleven_hundred_connections_that_stay_cost_one_line_and_the_chat_answers_through_them"),
        note="the owner keeps a login shell's 1,024 open files: 1,100 connections that stay take them all [S26]",
    ),
    Mutant(
        name="crowd_waits_thirty_seconds",
        path="harness/owner/socket.py",
        old="            waited = CROWDED_FIRST_LINE_SECONDS if len(owner.busy) > CONNECTIONS_MAX else FIRST_LINE_SECONDS\n",
        new="            waited = FIRST_LINE_SECONDS\n",
        check=test(ENTRANCES + "test_past_the_most_terminals_and_connections_each_is_refused_in_a_sentence_and_the_owner_goes_on"),
        note="a silent connection past the most is held for 30 s, so a crowd piles up [S26]",
    ),
]
