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
