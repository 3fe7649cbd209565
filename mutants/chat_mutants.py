"""Bugs planted in the chat itself (store, service, turn, tools), each of which a test that
`make test` runs must catch.

Strategy: one mutant for each promise the README makes about the log, the memory and the tools
that no law or bridge run covers: a line fsync'd before its append returns, a checkpoint written
when due, a turn's message logged after its view, the key kept out of the shell, a zoom that gives
an image back, a script's message joined to the running call.
"""

from mutants.base import Mutant


def test(name: str) -> tuple:
    """One pytest test: the judge needs the test it names."""
    return ("python", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", name)


MUTANTS = [
    Mutant(
        name="inbox_forgotten_at_open",
        path="harness/owner/owner.py",
        old="        owner.resume()\n",
        new="",
        check=test("tests/chat/test_send_reliability.py::"
                   "test_a_message_typed_during_a_call_survives_a_kill_of_the_chat_and_is_answered_once"),
        note="a message accepted before a kill is never answered [S9]",
    ),
    Mutant(
        name="view_json_trusted",
        path="harness/memory/service.py",
        old='        problem = "" if saved is None else saved_view_problem(saved, store)\n',
        new='        problem = ""\n',
        check=test("tests/chat/test_send_reliability.py::"
                   "test_a_damaged_view_json_is_set_aside_and_the_view_rebuilt_from_the_logs[message 0 left out]"),
        note="a view.json that leaves message 0 out is taken, and message 0 is gone from every view [S10]",
    ),
    Mutant(
        name="failed_append_left_in_the_file",
        path="harness/memory/logfile.py",
        old="            self._cut_pending = True\n            try:\n                self.cut_back()\n",
        new="            self._cut_pending = True\n            try:\n                pass\n",
        check=test("tests/memory/test_store.py::"
                   "test_a_failed_append_leaves_no_part_of_its_line_and_the_next_append_tries_again"),
        note="a failed append leaves its bytes: an unterminated line the next one glues onto [S5]",
    ),
    Mutant(
        name="store_append_without_fsync",
        path="harness/memory/logfile.py",
        old="            write_all(self.fd, data, self.disk)\n            self.disk.fsync(self.fd)\n",
        new="            write_all(self.fd, data, self.disk)\n",
        check=test("tests/memory/test_store.py::test_each_line_is_one_write_fsynced_before_the_append_returns"),
        note="a line is acknowledged before it is on disk [gist §1]",
    ),
    Mutant(
        name="log_torn_tail_glued_onto",
        path="harness/memory/logfile.py",
        old="            elif ends_torn(fd, self.size, disk):\n",
        new="            elif False:\n",
        check=test("tests/memory/test_logfile.py::"
                   "test_a_torn_last_line_is_skipped_and_the_next_line_stands_alone[agent]"),
        note="a log's torn tail is not ended: the next line glues onto it and is lost [S2]",
    ),
    Mutant(
        name="usage_log_failed_write_left",
        path="harness/calls/usage.py",
        old="            file.append(encode_line(record.to_json()))\n",
        new="            from harness.memory.logfile import write_all\n"
            "            write_all(file.fd, encode_line(record.to_json()), disk)\n",
        check=test("tests/memory/test_logfile.py::"
                   "test_a_write_the_disk_fails_halfway_leaves_the_file_as_it_was[usage]"),
        note="the usage log writes past the shared rule: a full disk leaves half a line [S5]",
    ),
    Mutant(
        name="service_never_checkpoints",
        path="harness/memory/service.py",
        old="        if self.planner.save_due():\n            self._checkpoint()\n        if self.planner.merges:\n",
        new="        if self.planner.merges:\n",
        check=test("tests/memory/test_service.py::test_a_checkpoint_is_written_every_128_lines_and_when_a_failure_is_counted"),
        note="view.json is written at open and close only: a crash replays the whole chat [P10]",
    ),
    Mutant(
        name="turn_logs_its_message_before_the_view",
        path="harness/calls/turn.py",
        old="        try:\n            view_text = await memory.settle(",
        new="        log_it()\n        try:\n            view_text = await memory.settle(",
        check=test("tests/calls/test_turn.py::test_a_turn_sends_tools_system_the_view_in_blocks_the_state_and_the_message"),
        note="the message is in the view and again after it [P17]",
    ),
    Mutant(
        name="shell_keeps_the_key",
        path="harness/calls/shell.py",
        old="            if name not in KEY_VARIABLES and not any(secret in value for secret in secrets)}\n",
        new="            if not any(secret in value for secret in secrets) or name in KEY_VARIABLES}\n",
        check=test("tests/calls/test_tools.py::test_the_shell_environment_holds_no_key"),
        note="the shell tool is handed ANTHROPIC_API_KEY",
    ),
    Mutant(
        name="zoom_gives_text_only",
        path="harness/memory/images.py",
        old="        if image.data is None:\n            blocks.append(text_block(image.note(image.name)))\n        else:\n",
        new="        if image.data is None:\n            blocks.append(text_block(image.note(image.name)))\n        elif False:\n",
        check=test("tests/memory/test_images.py::test_a_read_image_is_kept_and_a_later_zoom_gives_the_same_bytes_to_the_model"),
        note="zoom(id, 1) leaves the message's images out [gist §6]",
    ),
    Mutant(
        name="accepted_message_loses_its_key",
        path="harness/memory/service.py",
        old="                self._log(\"user\", pieces[k], now, key=message.key if k == len(pieces) - 1 else None)\n",
        new="                self._log(\"user\", pieces[k], now)\n",
        check=test("tests/chat/test_message_value.py::"
                   "test_a_sent_message_that_holds_the_api_key_keeps_its_idempotency_key_and_a_retry_logs_it_not_again"),
        note="a message's key never reaches its log line: a retry with --key is logged and answered twice [S8] [S9]",
    ),
    Mutant(
        name="message_enters_with_the_api_key",
        path="harness/memory/accepted.py",
        old="    return Accepted(hide(valid), key, source)\n",
        new="    return Accepted(valid, key, source)\n",
        check=test("tests/chat/test_message_value.py::"
                   "test_a_message_holding_the_api_key_handed_to_a_running_chat_keeps_its_key_and_its_inbox_line_hides_it"),
        note="a message's text enters with the API key in it: the inbox, the log and the request hold the key [H3]",
    ),
    Mutant(
        name="history_keeps_the_line_as_typed",
        path="harness/chat/terminal.py",
        old="            pass  # the line editor's own, with the line as typed\n",
        new="            super().append_string(string)\n",
        check=test("tests/chat/test_message_value.py::"
                   "test_the_line_editors_history_holds_a_typed_message_with_the_api_key_hidden"),
        note="the line editor's history file keeps a typed message before its API key is hidden [H3]",
    ),
    Mutant(
        name="ever_send_starts_its_own_turn",
        path="harness/owner/owner.py",
        old="        if self.joinable() and not delivery.logged:\n            self.add_to_turn(delivery)\n",
        new="        if False:\n            self.add_to_turn(delivery)\n",
        check=test("tests/chat/test_cli.py::test_ever_send_joins_the_running_call_and_gets_the_reply_that_took_it"),
        note="a script's message waits for the running call to end instead of joining it [gist §6]",
    ),
    Mutant(
        name="memory_commands_load_the_sdk",
        path="harness/chat/cli.py",
        old="from harness.chat.config import ConfigError, load_settings\n",
        new="from harness.chat.config import ConfigError, load_settings\nimport harness.calls.client  # noqa: F401\n",
        check=test("tests/chat/test_fast_start.py::test_a_command_that_needs_no_model_imports_no_sdk[memory status]"),
        note="`ever memory status` and the other commands that need no model import the SDK",
    ),
    Mutant(
        name="whitespace_text_goes_back",
        path="harness/calls/requests.py",
        old='        if block.get("type") == "text" and not str(block.get("text", "")).strip():\n',
        new="        if False:\n",
        check=test("tests/calls/test_requests_accepted.py::test_2_whitespace_text_before_a_tool_call_does_not_go_back"),
        note="a reply's whitespace-only text block goes back in the tool loop, which the API refuses",
    ),
    Mutant(
        name="local_api_takes_whitespace_text",
        path="harness/localapi/validation.py",
        old='        if not block["text"].strip():\n',
        new="        if False:\n",
        check=test("tests/localapi/test_localapi.py::test_strict_whitespace_only_text"),
        note="the local API accepts what the real one refuses: the suite cannot see the bug above",
    ),
    Mutant(
        name="report_logged_as_a_user_message",
        path="harness/calls/agents.py",
        old="            turn.log(\"work\", report.text)\n",
        new="            turn.log(\"user\", report.text)\n",
        check=test("tests/calls/test_agents.py::test_a_report_mid_turn_joins_between_the_masters_tool_calls[send]"),
        note="a subagent's report joins the running call as the user's words, not one `work` message [gist §6]",
    ),
    Mutant(
        name="subagent_steps_in_the_chats_log",
        path="harness/calls/agents.py",
        old="        self.agent_log.append({\"kind\": kind, \"text\": text})  # never the chat's log [gist §6]\n",
        new="        self.memory.append(kind, text)\n",
        check=test("tests/calls/test_agents.py::test_two_subagents_run_at_once_and_each_reports_once_and_names_are_unique"),
        note="a subagent's steps go into the chat's log instead of its own [gist §6]",
    ),
    Mutant(
        name="restart_forgets_a_cut_off_subagent",
        path="harness/calls/agents.py",
        old="            if end is None:\n                last = ",
        new="            if end is None:\n                continue\n                last = ",
        check=test("tests/calls/test_agents.py::test_sigkill_of_the_owner_then_a_restart_reports_the_subagent_cut_off"),
        note="a subagent running when its owner was killed never reports [A3]",
    ),
    Mutant(
        name="restart_reports_again",
        path="harness/calls/agents.py",
        old="                logged = self._logged_since(name, int(end.get(\"T\", 0)))\n",
        new="                logged = None\n",
        check=test("tests/calls/test_agents.py::test_a_kill_between_the_end_and_the_report_neither_loses_nor_doubles_it"),
        note="a report already logged before a kill is logged again at the next start [A3]",
    ),
    Mutant(
        name="tool_call_cap_one_late",
        path="harness/calls/agents.py",
        old="        if self.tool_calls + len(uses) <= caps.tool_calls:\n",
        new="        if self.tool_calls + len(uses) <= caps.tool_calls + 1:\n",
        check=test("tests/calls/test_agents.py::test_a_subagent_ending_on_its_caps_and_on_an_error_still_reports"),
        note="a subagent runs one tool call past its cap [A1]",
    ),
    Mutant(
        name="a_pause_counts_a_try",
        path="harness/memory/service.py",
        old="                self._pause(str(pause))\n",
        new="                self._apply(Failed(job.l, job.i))\n",
        check=test("tests/chat/test_reliability.py::test_a_wrong_key_pauses_the_compactor_counts_no_try_and_the_line_is_built_once_fixed"),
        note="a wrong key spends a node's tries and cuts its line for good [C11]",
    ),
    Mutant(
        name="home_trusted_whoever_may_write_it",
        path="harness/chat/config.py",
        old="    if status.st_mode & 0o022:\n",
        new="    if False:\n",
        check=test("tests/chat/test_reliability.py::test_a_home_config_instructions_or_key_another_user_can_change_is_refused[-mode 0777]"),
        note="a home others may write is trusted: they choose where the key is sent [H12]",
    ),
    Mutant(
        name="redact_exact_matches_only",
        path="harness/calls/redaction.py",
        old="        if len(secret) < REDACT_RUN_CHARS:\n            continue\n",
        new="        continue\n",
        check=test("tests/chat/test_reliability.py::test_a_401_that_echoes_the_key_and_a_reply_that_repeats_it_show_and_log_only_its_mark"),
        note="an error that echoes the key cut short shows it [H3]",
    ),
    Mutant(
        name="read_takes_any_file",
        path="harness/calls/files.py",
        old="            for test, kind in FILE_KINDS:\n",
        new="            for test, kind in ():\n",
        check=test("tests/chat/test_reliability.py::test_read_refuses_a_fifo_a_device_and_a_file_over_the_cap_and_the_model_is_told_the_cap"),
        note="read opens a FIFO or a device as if it were a file [H7]",
    ),
    Mutant(
        name="a_dotfile_of_the_home_is_no_secret",
        path="harness/calls/files.py",
        old='                if first.startswith("."):\n',
        new='                if first.startswith("\\0"):\n',
        check=test("tests/chat/test_secrets_and_links.py::test_a_chat_run_in_the_home_asks_before_reading_keys_dotfiles_and_evers_own_home"),
        note="read takes ~/.bashrc without asking when the chat runs in the home [H4]",
    ),
    Mutant(
        name="a_question_names_the_link",
        path="harness/calls/tools.py",
        old='            question["resolved"] = resolved\n',
        new='            pass\n',
        check=test("tests/chat/test_secrets_and_links.py::test_a_write_through_a_link_names_its_target_and_asks_outside_even_with_write_approved"),
        note="the question names the link, not the file a write through it changes [H4]",
    ),
    Mutant(
        name="bidi_controls_pass_through",
        path="harness/chat/terminal.py",
        old="        if code in INVISIBLE:\n",
        new="        if False:\n",
        check=test("tests/chat/test_secrets_and_links.py::test_a_question_shows_every_line_of_a_long_command_and_its_invisible_characters"),
        note="a bidi control in a command reaches the terminal and reorders what the question shows [H4]",
    ),
    Mutant(
        name="served_to_any_host",
        path="harness/browse/browsing.py",
        old='            if self.headers.get("Host", "") not in hosts:\n',
        new="            if False:\n",
        check=test("tests/chat/test_browse.py::test_the_served_page_needs_its_secret_and_a_loopback_host_answers_head_and_shows_new_messages"),
        note="ever browse --serve answers a rebound name: a web page could read the chat [B4]",
    ),
    Mutant(
        name="a_config_error_is_a_bug",
        path="harness/chat/cli.py",
        old="        except (ConfigError, StoreError, SettingsError, ConnectionError) as error:\n",
        new="        except (StoreError, SettingsError, ConnectionError) as error:\n",
        check=test("tests/chat/test_no_traceback.py::test_every_command_on_a_damaged_home_answers_or_says_why_in_one_sentence[config not TOML]"),
        note="a config.toml that is not TOML ends in the catch-all's 'a bug in Ever', not its sentence",
    ),
    Mutant(
        name="simulate_tokens_without_escapes",
        path="harness/bench/simulate_meter.py",
        old="""    return ('{"text":' + encode_basestring(text) + ',"type":"text"}').encode("utf-8")\n""",
        new="""    return ('{"text":"' + text + '","type":"text"}').encode("utf-8")\n""",
        check=test("tests/chat/test_simulate.py::test_the_meter_answers_as_the_local_apis_own_cache"),
        note="ever simulate counts a newline as one byte where the token rule counts its JSON escape",
    ),
    Mutant(
        name="simulate_entries_never_expire",
        path="harness/bench/simulate_meter.py",
        old="            if entry is not None and now >= entry.expires_at_seconds:\n",
        new="            if False:\n",
        check=test("tests/chat/test_simulate.py::test_pauses_past_the_cache_life_leave_a_turn_nothing_to_read"),
        note="ever simulate keeps cache entries past their 5 minutes [gist §3.3]",
    ),
    Mutant(
        name="simulate_growth_counted_as_rewrite",
        path="harness/bench/simulate.py",
        old="    if len(new) >= len(old) and new[:len(old)] == old:\n        return len(old)\n",
        new="    if len(new) >= len(old) and new[:len(old)] == old:\n        return 0\n",
        check=test("tests/chat/test_simulate.py::test_ever_as_its_view_grows_caches_every_line_but_the_new_one"),
        note="the gist's unit counts a view that only grew as rewritten whole [gist §3.3]",
    ),
    Mutant(
        name="carried_summary_drops_the_new_message",
        path="harness/bench/simulate_designs.py",
        old="            kept = history[-1:] if first else []\n",
        new="            kept = []\n",
        check=test("tests/chat/test_simulate.py::"
                   "test_a_carried_conversation_past_its_limit_is_summarized_before_the_new_message"),
        note="the carried conversation's summary swallows the user's new message",
    ),
    Mutant(
        name="a_turn_streams_past_its_output_cap",
        path="harness/calls/turn.py",
        old="        if self.spent[\"output_bytes\"] > caps.output_bytes:\n",
        new="        if False:\n",
        check=test("tests/chat/test_turn_caps.py::test_a_reply_that_streams_past_the_output_cap_is_cut_there_and_what_came_is_kept"),
        note="a reply that streams without end is never cut: a turn's output has no cap",
    ),
    Mutant(
        name="a_joined_message_keeps_the_calls_approval",
        path="harness/owner/owner.py",
        old="        tools.approval = weakest(tools.approval, delivery.approval or self.approval)\n",
        new="        tools.approval = tools.approval\n",
        check=test("tests/chat/test_approval_carried.py::test_a_message_without_yes_that_joins_a_call_started_with_yes_runs_no_shell"),
        note="a sender without --yes whose message joins a call started with --yes runs shell",
    ),
    Mutant(
        name="import_opens_any_kind_of_file",
        path="harness/memory/logfile.py",
        old="    if not stat.S_ISREG(status.st_mode):\n",
        new="    if False:\n",
        check=test("tests/chat/test_no_traceback.py::test_hostile_files_in_an_import_are_each_passed_over_in_one_sentence_and_the_rest_imported"),
        note="ever import reads a FIFO or /dev/zero as if it were a session file",
    ),
    Mutant(
        name="tools_run_on_any_stop",
        path="harness/calls/loop.py",
        old="            runs = reply.stop is Stop.TOOLS and bool(uses)\n",
        new="            runs = bool(uses)\n",
        check=test("tests/calls/test_stop_policy.py::"
                   "test_a_turn_and_a_subagent_end_the_same_way_on_each_stop_reason[end_turn-with_a_tool_call]"),
        note="a reply cut at max_tokens, refused or ended still runs its tool calls [A7]",
    ),
    Mutant(
        name="pause_taken_for_the_end",
        path="harness/calls/anthropic.py",
        old="    \"pause_turn\": Stop.PAUSED,\n",
        new="    \"pause_turn\": Stop.WHOLE,\n",
        check=test("tests/calls/test_stop_policy.py::"
                   "test_a_turn_and_a_subagent_end_the_same_way_on_each_stop_reason[pause_turn-words_alone]"),
        note="a paused reply ends the turn and the subagent as if it were whole [A7]",
    ),
    Mutant(
        name="shell_maximum_untold",
        path="harness/calls/tool.py",
        old="            \"timeout_seconds\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": SHELL_TIMEOUT_SECONDS_MAX,\n",
        new="            \"timeout_seconds\": {\"type\": \"integer\", \"minimum\": 1,\n",
        check=test("tests/calls/test_tool_registry.py::"
                   "test_a_shell_timeout_above_the_maximum_the_model_was_told_is_refused_in_one_sentence"),
        note="the model is not told the shell timeout's maximum the check holds it to [H13]",
    ),
    Mutant(
        name="tell_never_read",
        path="harness/calls/agents.py",
        old="    def joined(self) -> list[JSON]:\n        return self.read_told()\n",
        new="    def joined(self) -> list[JSON]:\n        return []\n",
        check=test("tests/calls/test_tell.py::"
                   "test_tell_reaches_a_running_subagent_between_its_tool_calls_and_is_in_its_log"),
        note="tell() answers \"told\", and the running subagent never reads it [gist §9]",
    ),
    Mutant(
        name="send_json_without_the_id",
        path="harness/owner/socket.py",
        old="    message_id = owner.memory.store.key_id(key) if key is not None else None\n",
        new="    message_id = None\n",
        check=test("tests/chat/test_words.py::"
                   "test_ever_send_json_gives_the_reply_the_id_and_the_turns_usage_and_cost"),
        note="ever send --json gives no message id, and so no usage",
    ),
    Mutant(
        name="quiet_ignored",
        path="harness/chat/terminal.py",
        old="        if self.quiet:\n            return\n",
        new="",
        check=test("tests/chat/test_words.py::"
                   "test_memory_rows_stay_quiet_by_the_setting_and_slash_quiet_shows_them_again[owner]"),
        note="memory.quiet = true and the memory: rows still show",
    ),
    Mutant(
        name="browse_opens_at_the_top",
        path="harness/browse/page.js",
        old="  if (!location.hash && main.lastElementChild) main.lastElementChild.scrollIntoView({block: \"end\"});\n",
        new="",
        check=test("tests/chat/test_browse.py::test_the_page_opens_at_the_newest_line_and_an_anchor_still_wins"),
        note="ever browse opens at the oldest line, far from where the chat is",
    ),
    Mutant(
        name="cooked_while_printing",
        path="harness/chat/terminal.py",
        old="        terminal_input.cooked_mode = contextlib.nullcontext\n",
        new="",
        check=test("tests/chat/test_chat_terminal.py::"
                   "test_the_terminal_stays_raw_while_a_reply_prints_so_a_ctrl_d_typed_then_leaves"),
        note="the terminal goes cooked for each printed line: a Ctrl-D typed then is lost",
    ),
    Mutant(
        name="paste_past_the_limit_uncaught",
        path="harness/chat/terminal.py",
        old="                    if size > MESSAGE_BYTES_MAX:  # [S12] one sentence; the prompt is free for the next\n",
        new="                    if False:\n",
        check=test("tests/chat/test_attached_terminal.py::"
                   "test_a_line_past_the_limit_typed_in_an_attached_terminal_is_one_sentence_and_it_stays_attached"),
        note="a paste past the message limit is sent, and kept in the history file whole [S12]",
    ),
    Mutant(
        name="socket_line_past_its_limit_unanswered",
        path="harness/owner/socket.py",
        old="            except ValueError:  # a line past LINE_BYTES_MAX: one sentence, and nothing kept [S12]\n",
        new="            except ZeroDivisionError:\n",
        check=test("tests/chat/test_chat_terminal.py::"
                   "test_a_paste_or_a_hand_over_past_the_message_limit_is_one_sentence_and_the_next_line_gets_through"),
        note="a line past what the chat's socket reads gets no answer, only an error in the chat [S12]",
    ),
    Mutant(
        name="id_high_water_ignored",
        path="harness/memory/index.py",
        old="        given = max(count, len(saved) if agrees else 0, self.record.given, self._torn_given)\n",
        new="        given = count\n",
        check=test("tests/chat/test_damage.py::"
                   "test_a_day_file_cut_gives_the_next_message_an_id_past_every_id_ever_given[mid-message]"),
        note="after a day file cut mid-message, the next message gets a lost id again [S13]",
    ),
    Mutant(
        name="damage_record_ignored",
        path="harness/memory/index.py",
        old="        self.record = read_record(self.chat, self.disk)  # [S13] lines set aside, ids lost\n",
        new="        self.record = read_record(self.chat / \"nowhere\", self.disk)\n",
        check=test("tests/chat/test_damage.py::"
                   "test_a_damaged_line_in_the_middle_is_said_by_every_command_and_doctor_repair_sets_it_aside"),
        note="the lines set aside and the ids recorded lost are not read: a repaired chat stays locked [S13]",
    ),
    Mutant(
        name="home_mode_unchecked",
        path="harness/memory/home.py",
        old="        if mode & ~place.mode:\n",
        new="        if False:\n",
        check=test("tests/memory/test_home.py::"
                   "test_a_file_nobody_declared_is_found_and_a_file_open_to_others_is_said_by_doctor"),
        note="ever doctor says nothing of a day file others may read",
    ),
    Mutant(
        name="home_search_undeclared",
        path="harness/memory/home.py",
        old='    Place("search", "chat/search.sqlite",',
        new='    Place("search", "chat/search.sqlite.old",',
        check=test("tests/memory/test_home.py::"
                   "test_every_path_a_chat_writes_is_a_row_at_its_mode_and_ever_files_lists_the_rows_there"),
        note="the search index is a file the home's table does not declare",
    ),
    Mutant(
        name="doctor_repair_edits_the_day_file",
        path="harness/memory/damage.py",
        old="    append_record(chat, entries, disk)\n    remove(chat / \"index\" / \"meta.json\", disk)\n",
        new=("    append_record(chat, entries, disk)\n    remove(chat / \"index\" / \"meta.json\", disk)\n"
             "    for d in reversed(found.damaged):\n        data = (chat / d.file).read_bytes()\n"
             "        (chat / d.file).write_bytes(data[:d.at] + data[d.at + len(d.data) + 1:])\n"),
        check=test("tests/chat/test_damage.py::"
                   "test_a_damaged_line_in_the_middle_is_said_by_every_command_and_doctor_repair_sets_it_aside"),
        note="ever doctor --repair cuts the damaged lines out of the day file: the log edited [S13]",
    ),
    Mutant(
        name="inbox_read_past_the_disk",
        path="harness/memory/inbox.py",
        old="            data = read_file(self.path, disk)\n",
        new="            data = self.path.read_bytes()\n",
        check=test("tests/memory/test_disk_seam.py::"
                   "test_every_file_of_the_chat_is_reached_through_the_disk_it_was_given"),
        note="the inbox is read past the disk it was given: a simulated disk's losses never reach it",
    ),
    Mutant(
        name="log_fsync_past_the_disk",
        path="harness/memory/logfile.py",
        old="            write_all(self.fd, data, self.disk)\n            self.disk.fsync(self.fd)\n",
        new="            write_all(self.fd, data, self.disk)\n            os.fsync(self.fd)\n",
        check=test("tests/memory/test_disk.py::"
                   "test_a_chats_messages_inbox_node_view_and_index_all_go_through_the_disk_it_was_given"),
        note="a line's fsync goes to the machine, not to the disk the log was given: a disk that holds "
             "unsynced writes sees a line acknowledged that it never synced",
    ),
    Mutant(
        name="memory_opens_the_machines_disk",
        path="harness/memory/service.py",
        old="        store = Store.open(home, read_only=read_only, disk=disk, lock=lock)\n",
        new="        store = Store.open(home, read_only=read_only, lock=lock)\n",
        check=test("tests/memory/test_disk.py::"
                   "test_a_chats_messages_inbox_node_view_and_index_all_go_through_the_disk_it_was_given"),
        note="Memory.open drops the disk it was given: the chat's files go to the machine's disk",
    ),
    Mutant(
        name="search_ranks_every_match",
        path="harness/memory/search.py",
        old='"limit ? offset ?", (expression, newest, per_page, (page - 1) * per_page)).fetchall()',
        new='"limit ? offset ?", (expression, 0, per_page, (page - 1) * per_page)).fetchall()',
        check=test("tests/memory/test_search.py::"
                   "test_a_word_held_by_more_messages_than_are_ranked_ranks_the_newest_and_says_there_are_more"),
        note="a common word is ranked over every match, seconds on a long chat, and an older hit shown "
             "as one of the newest [R4]",
    ),
    Mutant(
        name="attached_say_past_the_limit_uncaught",
        path="harness/owner/owner.py",
        old="        except TooLong as error:\n            refused = f\"{error}.\"\n",
        new="        except ZeroDivisionError as error:\n            refused = f\"{error}.\"\n",
        check=test("tests/chat/test_attached_terminal.py::"
                   "test_a_say_past_the_limit_on_the_socket_is_one_sentence_and_the_connection_stays"),
        note="a message past the limit from an attached terminal drops its connection [S12]",
    ),
    Mutant(
        name="attached_history_forgotten",
        path="harness/chat/terminal.py",
        old="                    history.keep(redact(valid_text(text), terminal.secrets))  # the key hidden [H3]\n",
        new="                    pass\n",
        check=test("tests/chat/test_attached_terminal.py::"
                   "test_an_attached_terminals_line_comes_back_with_up_and_is_in_the_history_file"),
        note="a terminal's messages never reach its history: Up recalls nothing",
    ),
]

MUTANTS += [
    Mutant(
        name="thin_view_unsaid",
        path="harness/calls/turn.py",
        old="    if not lines or unbuilt * 4 < len(lines):\n",
        new="    if True:\n",
        check=test("tests/calls/test_turn.py::"
                   "test_a_view_a_quarter_placeholders_or_more_is_said_to_the_model_and_the_person[1]"),
        note="a view mostly placeholders goes to the model unsaid, and the person is not told [H34]",
    ),
]
