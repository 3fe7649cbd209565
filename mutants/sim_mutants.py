"""Bugs planted in the chat that `make sim` must catch within its budget: its 200 seeds, each run
stopping at the first seed that fails on the invariant named (`--until-caught`).

Strategy: one mutant for each way the promises "accepted means kept" and "no id given twice" can
break between the examples the tests write out: an fsync or a directory's fsync left out (only a
power loss shows it), a failed write's bytes left, a torn tail glued onto, a torn line's id given
again, an acknowledgement before the inbox's line, an inbox entry done before its turn logged the
message, a long message's key put on its first piece, a retried key logged again,
the inbox's waiting messages forgotten at open, a folder found made taken as it is; then one for
each bug the simulation found and that was fixed (sim/seeds.py): a killed owner's pieces not
counted [S11], a long message cut short not finished first, a refused node line raised [S28], a
node replayed otherwise refused [S29], an empty log file's name not fsync'd [S30], a line a killed
process left in the page cache built on unsynced [S34], a read refused as a call starts taken
for a refused line [S35]; a socket request that is not one closed
unanswered (the hostile clients); and a stopped compaction's line applied, neither cancelled nor
told apart from its node's newer call (sim/calls.py: an import's history gives the compactor
enough calls at once that a waiting turn stops some); a subagent cut off by a kill never reported
at the next start, one whose end line the disk refuses losing its report, and one marked given
though its line never was [A3]; a line still JSON whose kind a changed byte spoiled raised to the
replay [S13]; the terminal attached last never hearing a turn end; the view over MCP dropping its last line;
words told to a subagent left out of its log; a joined sender's approval in place of the turn's
(a question settled by a sender's --yes), a message answered after a restart under the next
owner's approval [S36], and the messages a failed turn logs left unmarked; from world 4, an "always"
given for one terminal's message recorded for every terminal's, the last terminal's question left
waiting when it is killed mid-question, a terminal's refused line answered `took`, MCP's `send`
carrying --yes, an MCP send's error read as its reply, and a line past the socket's limit closed
unanswered. Each is caught by the simulation alone, but the empty log file's name [S30], whose
chain (a directory fsync refused or cut, the next open appending, a power loss before that folder
is fsync'd again) no seed of 0..999 draws any more: its example catches it;
mutants/chat_mutants.py has the example tests' own. Not among them: either guard of a stopped call
left out alone (the other still keeps its line out), and a checkpoint written while a node's line
waits: no seed of the 200 fails on any.
"""

from mutants.base import Mutant

SEEDS = "200"  # `make sim`'s seeds


def sim(*invariants: str) -> tuple:
    return ("python", "-m", "sim", "--seeds", SEEDS, "--until-caught", ",".join(invariants))


def example(test: str) -> tuple:
    """A test that runs the bug's example, or seeds twice, where no seed of `sim` shows it."""
    return ("python", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", test)


REPLAYS_ANYWHERE = ("tests/sim/test_sim.py::"
                    "test_a_seed_replays_to_the_same_bytes_from_a_folder_and_a_tmpdir_of_another_length")
KEPT = "acknowledged means kept"
BACKUP_KEPT = "a killed backup leaves the last one valid"  # [S21]: the backup makes its folders so too

MUTANTS = [
    Mutant(
        name="sim_line_acknowledged_before_fsync",
        path="harness/memory/logfile.py",
        old="            write_all(self.fd, data, self.disk)\n            self.disk.fsync(self.fd)\n",
        new="            write_all(self.fd, data, self.disk)\n",
        check=sim(KEPT),
        note="a line is acknowledged before its fsync: a power loss takes it",
    ),
    Mutant(
        name="sim_failed_write_left_in_the_file",
        path="harness/memory/logfile.py",
        old="            self._cut_pending = True\n            try:\n                self.cut_back()\n",
        new="            self._cut_pending = True\n            try:\n                pass\n",
        check=sim(KEPT, "refused means not kept", "never doubled", "damage is said"),
        note="a failed write's bytes stay in the file for the next line to glue onto, or to be read",
    ),
    Mutant(
        name="sim_torn_tail_not_ended",
        path="harness/memory/logfile.py",
        old="            elif ends_torn(fd, self.size, disk):\n",
        new="            elif False:\n",
        check=sim(KEPT, "a restart's view is the logs' view", "damage is said"),
        note="a torn tail is not ended before the next line: the next line is glued onto it",
    ),
    Mutant(
        name="sim_torn_id_given_again",
        path="harness/memory/index.py",
        old="                    self._torn_given = shown + 1\n",
        new="                    pass\n",
        check=sim("ids never reused"),
        note="an id given again after a torn write of its line [S13]",
    ),
    Mutant(
        name="sim_pieces_before_a_lost_id_logged_again",
        path="harness/memory/service.py",
        old="            if not store.lost(i):\n                record = store.message(i)\n",
        new="            if True:\n                record = store.message(i)\n",
        check=sim("never doubled"),
        note="a long message whose next piece a kill tore logged whole again: the torn id's placeholder taken "
             "for the log's end (seed 1705) [S11] [S13]",
    ),
    Mutant(
        name="sim_renamed_key_field_read_whole",
        path="harness/memory/store.py",
        old="                                                            or not MESSAGE_FIELDS.issuperset(record)):\n",
        new="                                                            or False):\n",
        # seed 2991 found it; the inbox's fsync at open moved its faults, and it no longer flips "key"
        check=example("tests/memory/test_found_by_sim.py::"
                      "test_a_line_still_json_whose_key_field_a_changed_byte_renamed_is_damage_said"),
        note="a message line whose \"key\" a flipped bit renamed read as whole and keyless, nothing said: the "
             "inbox logs its message again (seed 2991) [S13]",
    ),
    Mutant(
        name="sim_close_raises_a_refused_report",
        path="harness/calls/agents.py",
        old="            except (StoreError, OSError) as error:\n                # a full disk cannot fail a close",
        new="            except ZeroDivisionError as error:\n                # a full disk cannot fail a close",
        # seed 3218 found it; the inbox's fsync at open moved its faults, and it no longer closes on a full disk
        check=example("tests/calls/test_agents.py::"
                      "test_a_close_whose_reports_the_full_disk_refuses_ends_and_the_next_start_gives_them"),
        note="a report the full disk refuses at the chat's close raised out of the owner's close (seed 3218) [A3]",
    ),
    Mutant(
        name="sim_inbox_read_unsynced_at_open",
        path="harness/memory/inbox.py",
        old="        if durable and data:\n",
        new="        if False:\n",
        check=sim("the inbox holds only what waits"),
        note="an open reads the inbox's newest `done` from the page cache only: a power loss takes it, and the "
             "message waits with nobody to answer it (seed 2987) [S34]",
    ),
    Mutant(
        name="sim_second_torn_id_given_again",
        path="harness/memory/index.py",
        old="                if shown == after or shown > after and self.record.covers(after, shown - 1):\n",
        new="                if shown == expected:\n",
        check=sim("ids never reused"),
        note="the id of a second torn line in a row given again: its writer, killed, followed one killed before "
             "it (seed 2030) [S13]",
    ),
    Mutant(
        name="sim_acknowledged_before_the_inbox",
        path="harness/owner/owner.py",
        old="        self.memory.inbox.accept(message, yes=(approval or self.approval).yes)\n",
        new="",
        check=sim(KEPT),
        note="a message acknowledged with no inbox line on disk: a kill before its turn logs it loses it [S9]",
    ),
    Mutant(
        name="sim_inbox_done_before_logged",
        path="harness/owner/owner.py",
        old="        self.turn = turn = self.new_turn(current.output, current.approval)\n        self.queue_turn = True\n",
        new=("        self.turn = turn = self.new_turn(current.output, current.approval)\n"
             "        self.memory.inbox.done(current.message.key)\n        self.queue_turn = True\n"),
        check=sim(KEPT),
        note="an inbox entry marked done before its message's line is durable [S9]",
    ),
    Mutant(
        name="sim_key_on_the_first_piece",
        path="harness/memory/service.py",
        old="key=message.key if k == len(pieces) - 1 else None)",
        new="key=message.key if k == start else None)",
        check=sim(KEPT, "never doubled"),
        note="a long message's key on its first piece: a kill after it leaves the rest unlogged for good [S11]",
    ),
    Mutant(
        name="sim_retried_key_logged_again",
        path="harness/owner/owner.py",
        old="        if self.memory.store.key_id(key) is not None:\n",
        new="        if False:\n",
        check=sim("never doubled"),
        note="a sender's retry of a logged message is logged again [S8]",
    ),
    Mutant(
        name="sim_inbox_forgotten_at_resume",
        path="harness/owner/owner.py",
        old="        for key, text in self.memory.inbox.pending():\n",
        new="        for key, text in []:\n",
        check=sim(KEPT, "every sender is answered", "the inbox holds only what waits"),
        note="the messages a killed owner accepted and never logged are not delivered at open [S9]",
    ),
    Mutant(
        name="sim_new_file_name_not_fsynced",
        path="harness/memory/logfile.py",
        old="            if created or self.size == 0:\n",
        new="            if False:\n",
        check=sim(KEPT),
        note="a new day file's name is not fsync'd in its directory: a power loss takes the file",
    ),
    Mutant(
        name="sim_new_directory_not_fsynced",
        path="harness/memory/logfile.py",
        old="    disk.chmod(path, DIRECTORY_MODE)\n    fsync_directory(path.parent, disk)\n",
        new="    disk.chmod(path, DIRECTORY_MODE)\n",
        check=sim(KEPT),
        note="a new directory's name is not fsync'd: a power loss takes the chat's folders",
    ),
    Mutant(
        name="sim_existing_directory_not_fsynced",
        path="harness/memory/logfile.py",
        old="        fsync_directory(path.parent, disk)\n        return False\n",
        new="        return False\n",
        check=sim(KEPT, BACKUP_KEPT),
        note="a folder an open cut short had made is taken as it is, its name never fsync'd (seeds 20, 618)",
    ),
    Mutant(
        name="sim_pieces_count_forgotten",
        path="harness/memory/service.py",
        old="                    self.partly_logged[key] = logged\n",
        new="                    pass\n",
        check=sim(KEPT, "never doubled"),
        note="the pieces a killed owner logged of a long message are not counted at open: logged again [S11]",
    ),
    Mutant(
        name="sim_cut_message_not_finished_first",
        path="harness/memory/service.py",
        old="        if self.unfinished is not None:\n            self._finish(now)\n        return self._log(",
        new="        return self._log(",
        # seed 61 caught it until later fixes (the inbox's fsync at open among them) moved its faults
        check=example("tests/memory/test_found_by_sim.py::"
                      "test_a_long_message_whose_second_piece_is_refused_is_finished_before_any_other_line"),
        note="a long message whose piece the disk refused is not finished before other lines: apart, then doubled [S11]",
    ),
    Mutant(
        name="sim_refused_node_line_raised",
        path="harness/memory/service.py",
        old="                    self.refused = str(error)\n                    self._hold(l, i, text, T)\n",
        new="                    raise\n",
        check=sim("no unhandled exception", "a restart's view is the logs' view"),
        note="a node line the disk refuses raises out of the compaction: a traceback, the node in memory only [S28]",
    ),
    Mutant(
        name="sim_refused_request_unanswered",
        path="harness/owner/socket.py",
        old="            else:\n                answer = answer_memory(owner.memory, request)\n",
        new="            else:\n                return\n",
        check=sim("every client answered in one line"),
        note="a socket request that is not one (a blank line, a line not JSON) is closed unanswered [S26]",
    ),
    Mutant(
        name="sim_node_replayed_otherwise_refused",
        path="harness/memory/service.py",
        old="                    self.store.changed_under(l, i, node_name(l, i))\n",
        new="                    raise RuntimeError(f\"node {node_name(l, i)} was logged with another text\")\n",
        check=sim("a restart's view is the logs' view", "the chat opens after every crash"),
        note="a node replayed with another text than its line, no damage read, keeps the chat from opening [S29]",
    ),
    Mutant(
        name="sim_empty_file_name_not_fsynced",
        path="harness/memory/logfile.py",
        old="            if created or self.size == 0:\n",
        new="            if created:\n",
        # no seed make sim runs draws its chain any more (docs/reliability.md): its example catches it
        check=example("tests/memory/test_found_by_sim.py::"
                      "test_an_empty_log_file_found_has_its_name_fsynced_before_a_line"),
        note="an empty log file found is appended to with its name never fsync'd: a power loss takes it [S30]",
    ),
    Mutant(
        name="sim_newest_line_not_made_durable_at_open",
        path="harness/memory/index.py",
        old="        if not read_only:\n            self._make_durable_what_it_builds_on()\n",
        new="",
        check=sim("the chat reads after every crash", KEPT, "ids never reused"),
        note="an open builds on a line a killed process left in the page cache, its next id in another day's "
             "file, without fsyncing it: a power loss leaves a gap that keeps the chat shut [S34]",
    ),
    Mutant(
        name="sim_stopped_call_applied",
        path="harness/memory/service.py",
        old='                self.tasks.pop(node).cancel()\n        if self.paused:\n            return  # the planner\'s calls start when the compactor resumes\n        for node in self.planner.running:\n            if node not in self.tasks:\n                try:\n                    job = self.job(*node)\n                except OSError as error:\n                    # [S35] the input is read after the line that started the call is logged: a\n                    # read the disk refuses pauses the compactor, as a call that fails alike does,\n                    # and never reaches the caller, which would take its logged line for refused\n                    self._pause(f"the chat\'s log could not be read ({error.strerror or error})")\n                    return\n                self.tasks[node] = asyncio.get_running_loop().create_task(self._run(job))\n\n    def job(self, l: int, i: int) -> Job:\n        planner = self.planner\n        context = tuple(planner.rendered(cl, ci) for cl, ci in planner.context(l, i))\n        if l == 0:\n            record = self.store.message(i)\n            return Job(l, i, context, record["kind"], record["text"], ())\n        halves = (planner.text(l - 1, 2 * i) or "", planner.text(l - 1, 2 * i + 1) or "")\n        return Job(l, i, context, "", "", halves)\n\n    async def _run(self, job: Job) -> None:\n        node = (job.l, job.i)\n        try:\n            result = await self.build(job)\n        except asyncio.CancelledError:\n            raise\n        except Paused as pause:\n            if self.tasks.get(node) is asyncio.current_task():\n                del self.tasks[node]\n                self._pause(str(pause))\n            return\n        except Exception as error:  # a bug or an unexpected answer: a failed try, logged\n            log.exception("compaction of %s raised", job.name)\n            result = JobResult(reason=f"{type(error).__name__}: {error}")\n        if self.tasks.get(node) is not asyncio.current_task():\n            return  # stopped meanwhile: its outcome is not the planner\'s [P7]\n',
        new='                self.tasks.pop(node)\n        if self.paused:\n            return  # the planner\'s calls start when the compactor resumes\n        for node in self.planner.running:\n            if node not in self.tasks:\n                try:\n                    job = self.job(*node)\n                except OSError as error:\n                    # [S35] the input is read after the line that started the call is logged: a\n                    # read the disk refuses pauses the compactor, as a call that fails alike does,\n                    # and never reaches the caller, which would take its logged line for refused\n                    self._pause(f"the chat\'s log could not be read ({error.strerror or error})")\n                    return\n                self.tasks[node] = asyncio.get_running_loop().create_task(self._run(job))\n\n    def job(self, l: int, i: int) -> Job:\n        planner = self.planner\n        context = tuple(planner.rendered(cl, ci) for cl, ci in planner.context(l, i))\n        if l == 0:\n            record = self.store.message(i)\n            return Job(l, i, context, record["kind"], record["text"], ())\n        halves = (planner.text(l - 1, 2 * i) or "", planner.text(l - 1, 2 * i + 1) or "")\n        return Job(l, i, context, "", "", halves)\n\n    async def _run(self, job: Job) -> None:\n        node = (job.l, job.i)\n        try:\n            result = await self.build(job)\n        except asyncio.CancelledError:\n            raise\n        except Paused as pause:\n            if self.tasks.get(node) is asyncio.current_task():\n                del self.tasks[node]\n                self._pause(str(pause))\n            return\n        except Exception as error:  # a bug or an unexpected answer: a failed try, logged\n            log.exception("compaction of %s raised", job.name)\n            result = JobResult(reason=f"{type(error).__name__}: {error}")\n        if node not in self.tasks:\n            return\n',
        check=sim("a line is its node's latest call's"),
        note="a compaction the planner stopped is neither cancelled nor told apart from the node's newer call: "
             "its line, made from the inputs and context as they were, is applied [P7]",
    ),
    Mutant(
        name="sim_report_lost_at_restart",
        path="harness/calls/agents.py",
        old="            if end is None:\n                last = [r for r in records if r.get(\"kind\") == \"ever\"]\n",
        new="            if end is None:\n                continue\n",
        check=sim("every subagent's report arrives"),
        note="a subagent cut off by its owner's kill is never reported at the next start [A3]",
    ),
    Mutant(
        name="sim_refused_end_line_loses_the_report",
        path="harness/calls/agents.py",
        old="        except OSError as error:  # [A3] the report still reaches the chat; a start finds it there\n",
        new="        except ZeroDivisionError as error:\n",
        check=sim("every subagent's report arrives", "no unhandled exception"),
        note="a subagent's end line the disk refuses ends its task on the error: its report never reaches "
             "the chat [A3]",
    ),
    Mutant(
        name="sim_read_refused_raised",
        path="harness/memory/service.py",
        old="""                try:\n                    job = self.job(*node)\n                except OSError as error:\n""",
        new="""                try:\n                    job = self.job(*node)\n                except ZeroDivisionError as error:\n""",
        check=sim("never doubled", KEPT, "no unhandled exception"),
        note="a read refused as a logged line's call reads its input reaches the logging, which takes the "
             "line for refused: a long message's key piece is logged twice [S35]",
    ),
    Mutant(
        name="sim_report_marked_given_unlogged",
        path="harness/owner/owner.py",
        old="            if self.logged_at(report, turn.turn_id):\n                report.logged(turn.turn_id)\n",
        new="            if True:\n                report.logged(turn.turn_id if turn.turn_id >= 0 else None)\n",
        check=sim("every subagent's report arrives"),
        note="a report's turn marks it given though its work line was never logged: the next start skips it [A3]",
    ),
    Mutant(
        name="sim_changed_kind_raised",
        path="harness/memory/store.py",
        old="        if record is not None and record.get(\"i\") == i and (record.get(\"kind\") not in KINDS\n",
        new="        if False and (record.get(\"kind\") not in KINDS\n",
        check=sim("a restart's view is the logs' view", "the chat opens after every crash",
                  "the chat reads after every crash"),
        note="a line still JSON whose kind a changed byte spoiled reaches the replay, which raises: the chat "
             "does not open [S13]",
    ),
    Mutant(
        name="sim_newest_terminal_misses_the_end",
        path="harness/owner/hub.py",
        old="        self._each(protocol.End(status))\n",
        new="        self._each(protocol.End(status), skip=self.clients[-1] if len(self.clients) > 1 else None)\n",
        check=sim("every attached terminal saw every turn"),
        note="the terminal attached last never hears a turn end: its reply runs into the next [R3]",
    ),
    Mutant(
        name="sim_mcp_view_drops_its_last_line",
        path="harness/chat/mcp_server.py",
        old="        return (await answer({\"op\": \"view\"}))[\"view\"]\n",
        new="        return (await answer({\"op\": \"view\"}))[\"view\"].rsplit(\"\\n\", 2)[0]\n",
        check=sim("every MCP call answered in words"),
        note="the view over MCP drops its last line: Claude Code sees another view than the next turn [R2]",
    ),
    Mutant(
        name="sim_told_words_not_logged",
        path="harness/calls/agents.py",
        old="        sub.agent_log.append({\"kind\": \"told\", \"by\": by, \"text\": text})\n",
        new="",
        check=sim("every subagent's report arrives"),
        note="words told to a running subagent are handed over unlogged: a kill loses them, and its log never "
             "shows them [gist §9]",
    ),
    Mutant(
        name="sim_joined_sender_widens_the_turn",
        path="harness/owner/owner.py",
        old="        tools.approval = weakest(tools.approval, delivery.approval or self.approval)\n",
        new="        tools.approval = delivery.approval or self.approval\n",
        check=sim("a tool that asks runs only with its senders' leave"),
        note="a message joined into a running call brings its sender's approval in place of the turn's: a "
             "sender's --yes settles what another's message would be asked for [H4] [S9]",
    ),
    Mutant(
        name="sim_resumed_message_takes_the_owners_leave",
        path="harness/owner/owner.py",
        old="            delivery = Delivery(message, None, leave, asyncio.get_running_loop().create_future(),\n",
        new="            delivery = Delivery(message, None, None, asyncio.get_running_loop().create_future(),\n",
        check=sim("a tool that asks runs only with its senders' leave"),
        note="a message answered after a restart runs under the next owner's approval, not its sender's: a "
             "sender without --yes gets the owner's --yes [S36]",
    ),
    Mutant(
        name="sim_refused_append_leaves_the_queue",
        path="harness/owner/owner.py",
        old=("                    try:\n                        self.memory.append_accepted(unseen.message)\n"
             "                        unseen.logged = True\n                    except (OSError, StoreError):\n"),
        new=("                    if True:\n                        self.memory.append_accepted(unseen.message)\n"
             "                        pass\n                    if False:\n"),
        check=sim("never doubled", KEPT),
        note="a failed turn logs the messages queued behind it unanswered, unmarked, and the first the disk "
             "refuses ends it there: the rest stay queued, and the next turn logs them again [S9]",
    ),
    Mutant(
        name="sim_always_for_every_terminal",
        path="harness/owner/owner.py",
        old="            client.approval = Approval(self.approve, yes=client.yes, ask=self.hub.ask)\n",
        new=("            client.approval = Approval(self.approve, yes=client.yes, ask=self.hub.ask)\n"
             "            client.approval.allowed = self.__dict__.setdefault(\"always\", client.approval.allowed)\n"),
        check=sim("a tool that asks runs only with its senders' leave"),
        note="an \"always\" answered for one terminal's message is recorded for every terminal's: another "
             "terminal's read runs unasked [A8]",
    ),
    Mutant(
        name="sim_question_left_waiting",
        path="harness/owner/hub.py",
        old="        if not self.clients:\n            self.decline_all(Answer.GONE.value)\n",
        new="        if False:\n            self.decline_all(Answer.GONE.value)\n",
        check=sim("a terminal killed mid-question never hangs the chat"),
        note="the last terminal killed mid-question leaves its question pending: the turn waits until the owner "
             "closes [A9]",
    ),
    Mutant(
        name="sim_refused_line_said_taken",
        path="harness/owner/owner.py",
        old="            client.send(protocol.Took(ok=not refused))\n",
        new="            client.send(protocol.Took(ok=True))\n",
        check=sim("a terminal's acknowledged message is logged once and whole"),
        note="a terminal's line the disk refused is answered `took` all the same: the terminal never says it "
             "was not sent [S25]",
    ),
    Mutant(
        name="sim_mcp_send_with_yes",
        path="harness/chat/mcp_server.py",
        old="            reply = await send_once(settings, message, yes=False)\n",
        new="            reply = await send_once(settings, message, yes=True)\n",
        check=sim("a tool that asks runs only with its senders' leave"),
        note="a message sent over MCP carries --yes: the tools that ask run unasked for Claude Code [R2] [H4]",
    ),
    Mutant(
        name="sim_mcp_send_error_as_reply",
        path="harness/chat/mcp_server.py",
        old="        if reply.get(\"error\"):\n",
        new="        if False:\n",
        check=sim(KEPT, "refused means not kept", "every MCP call answered in words"),
        note="an MCP send's error reaches the client as an empty reply: a message refused reads as answered [R2]",
    ),
    Mutant(
        name="sim_long_line_closed_unanswered",
        path="harness/owner/socket.py",
        old=("                writer.write(protocol.answer_line({\"reply\": \"\", \"error\": "
             "too_long_sentence(LINE_BYTES_MAX),\n                                                   "
             "\"logged\": False}))\n                await writer.drain()\n                return\n"),
        new="                return\n",
        check=sim("a line past the socket's limit is refused in one sentence"),
        note="a line past the socket's 64 MB limit is closed unanswered: its sender cannot tell it was refused [S12]",
    ),
    Mutant(
        name="sim_report_started_turns_unretrieved",
        path="harness/owner/owner.py",
        old="            owner.agents.report_turns = owner.report_started_turns\n",
        new="            owner.agents.report_turns = owner.turns\n",
        check=sim("no unhandled exception"),
        note="the scheduler a subagent's report starts ends on a failed turn's error nobody retrieves (seed 54) [A6]",
    ),
    Mutant(
        name="sim_mcp_send_empty_reply",
        path="harness/chat/mcp_server.py",
        old="        return reply[\"reply\"] or EMPTY_REPLY\n",
        new="        return reply[\"reply\"]\n",
        check=sim("every MCP call answered in words"),
        note="an MCP send answered with an empty reply reaches the client as an empty result (seed 131) [S26]",
    ),
    Mutant(
        name="sim_terminal_long_line_answered_per_part",
        path="harness/owner/hub.py",
        old="            await reader.readexactly(overrun.consumed)  # the part read so far, dropped\n"
            "            past = True\n            continue\n",
        new="            await reader.readexactly(overrun.consumed)  # the part read so far, dropped\n"
            "            return None\n",
        check=sim("every attached terminal saw every turn", "refused means not kept",
                  "a terminal's acknowledged message is logged once and whole"),
        note="an attached terminal's line past the socket's limit answered once per part: its tail read as "
             "lines, a second took taken for its next message's [S12] [S25]",
    ),
    Mutant(
        name="sim_repair_keeps_view_json",
        path="harness/memory/damage.py",
        old="    remove(chat / \"view.json\", disk)\n    fsync_directory(chat, disk)\n",
        new="",
        # seed 295 showed it only while a run's bytes depended on the code's folder: its example catches it
        check=example("tests/memory/test_found_by_sim.py::"
                      "test_a_repair_that_sets_a_message_aside_leaves_no_checkpoint_the_logs_would_not_give"),
        note="ever doctor --repair leaves view.json, made over a line it sets aside: the next open's view "
             "is not the logs' [P10] [S10] [S13]",
    ),
    Mutant(
        name="sim_date_of_a_lost_first_message_empty",
        path="harness/memory/service.py",
        old="        if not isinstance(date, str) or not date:\n",
        new="        if not isinstance(date, str):\n",
        check=sim("every MCP call answered in words"),
        note="the date of a lost id with no message before it answered as an empty text (seed 920) [S13] [S26]",
    ),
    Mutant(
        name="sim_damage_record_line_not_made_durable_at_open",
        path="harness/memory/index.py",
        old="        if self.record.lost or self.record.set_aside:\n            # [S13] so may",
        new="        if False:\n            # [S13] so may",
        check=sim("the next backup completes and checks"),
        note="an open builds on the damage record's newest line unsynced: a power loss takes it, keeps the ids "
             "past its gap, and a restored backup's logs do not open (seed 881) [S13] [S34]",
    ),
    Mutant(
        name="sim_turn_view_not_folded_to_the_ceiling",
        path="harness/memory/planner.py",
        old="        if shown_bytes <= ceiling:\n            return view.lines()\n",
        new="        if True:\n            return view.lines()\n",
        check=sim("every request within its ceiling and its model's window"),
        note="a turn sends the view as it stands, not folded to the ceiling while merges wait [P19]",
    ),
    Mutant(
        name="sim_turn_calls_cap_one_past",
        path="harness/calls/turn.py",
        old="        if spent[\"calls\"] >= caps.calls:\n",
        new="        if spent[\"calls\"] > caps.calls:\n",
        check=sim("spend within the turn caps"),
        note="a turn's calls cap lets one call past it",
    ),
    Mutant(
        name="sim_workdir_of_the_process",
        path="sim/world.py",
        old="disk=disk, workdir=WORKDIR, **sizes)",
        new="disk=disk, **sizes)",
        # not a promise of the chat's but of the simulation's: a seed replays the same bytes anywhere
        check=example(f"{REPLAYS_ANYWHERE}[6]"),
        note="the simulated owner's work tools in the process's own folder: a seed's bytes depend on where its code runs",
    ),
    Mutant(
        name="sim_scratch_under_tmpdir",
        path="sim/run.py",
        old="    root = Path(SCRATCH_ROOT) / ",
        new="    root = Path(__import__(\"tempfile\").gettempdir()) / ",
        check=example(f"{REPLAYS_ANYWHERE}[2]"),
        note="the run's scratch folder under TMPDIR: the paths a seed logs, and its bytes, move with it",
    ),
    Mutant(
        name="sim_process_id_of_the_real_process",
        path="sim/disk.py",
        old="    def process_id(self):\n        return self.pid\n",
        new="    def process_id(self):\n        return os.getpid()\n",
        check=example("tests/sim/test_sim.py::test_a_seed_replays_to_the_same_bytes_whatever_the_real_process_id"),
        note="every simulated owner writes the real process's id in the lock: the sentence naming it, and a seed's "
        "bytes, follow the machine's pid",
    ),
]
