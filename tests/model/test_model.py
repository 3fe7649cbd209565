"""Strategy: the model's rules on small chats whose every byte is computed by hand in the comments
(line sizes, dues, which pairs merge), so the expected values do not come from the model."""

from dataclasses import replace

from model.line import Outcome, line, merge_input_cut
from model.planner import (
    Built,
    Config,
    Failed,
    Message,
    Restart,
    Retry,
    State,
    TurnEnd,
    Wait,
    run,
    sent_view,
    step,
    turn,
    waiting_queue,
)
from model.view import built_line, context, flatten, render, rendered, view_bytes, waiting_line

LONG = "x" * 600  # "user: " + 600 bytes: over 512, so it needs a call


def names(view):
    return [f"{line.i << line.l}+{1 << line.l}" for line in view]


def test_a_line_costs_its_rendered_head_text_and_newline():
    assert built_line(0, 5, "user: hi").bytes == len("5+1|user: hi\n")  # 13
    # shown as "12+1|not summarized yet: search or zoom it", counted as its longest built line:
    # "12+1|" (5), 512 bytes and the newline
    assert waiting_line(12, "user: " + LONG).bytes == 5 + 512 + 1
    assert built_line(1, 2, "a\nb").bytes == len("4+2|a b\n")


def test_the_view_renders_ids_placeholders_and_flattened_newlines():
    view = (built_line(1, 0, "user: a\r\nuser: b"), waiting_line(2, "user: " + LONG))
    assert render(view) == "<chat>\n0+2|user: a user: b\n2+1|not summarized yet: search or zoom it\n</chat>"


def test_a_short_message_is_its_own_node_and_two_short_lines_join_with_a_newline():
    state = run((Message("user", "a"), Message("ever", "b")))
    assert state.running == ()
    assert [line.text for line in state.view] == ["user: a", "ever: b"]
    parent = built_line(1, 0, "user: a\never: b")
    assert state.ready == ()
    # the parent is built (free), so it is there for a batch
    from model.planner import tree_parents
    assert tree_parents(state.tree).built(1, 0)
    assert tree_parents(state.tree).line(1, 0) == parent


def test_a_long_message_waits_for_its_call_and_its_summary_replaces_the_placeholder():
    state = run((Message("tool", LONG),))
    assert state.running == ((0, 0),)
    assert not state.view[0].built
    state = step(state, Built(0, 0, "tool: ran it"))
    assert state.view == (built_line(0, 0, "tool: ran it"),)
    assert state.running == ()


def test_messages_start_only_inside_the_window_of_jobs_max_unbuilt_lines():
    config = Config(jobs_max=2)
    state = run(tuple(Message("echo", LONG) for _ in range(3)), config)
    assert state.running == ((0, 0), (0, 1))
    state = step(state, Built(0, 1, "echo: one"))
    # message 2 now has one unbuilt line before it (0), fewer than 2
    assert state.running == ((0, 0), (0, 2))


def test_a_failed_call_waits_for_the_next_message_and_the_third_failure_builds_a_marked_line():
    state = run((Message("user", LONG),))
    state = step(state, Failed(0, 0))
    assert state.running == ()
    state = step(state, Message("user", "hi"))
    assert state.running == ((0, 0),)
    state = step(state, Failed(0, 0))
    state = step(state, Message("user", "hi"))
    state = step(state, Failed(0, 0))
    # the mark (31 bytes, docs/planner.md [P16]), then the source cut to the 481 bytes left
    mark = "(not summarized, cut: zoom it) "
    assert state.view[0] == built_line(0, 0, mark + ("user: " + LONG)[: 512 - 31])


def test_failure_counts_survive_a_restart():
    state = run((Message("user", LONG), Failed(0, 0), Message("user", "hi"), Failed(0, 0)))
    assert state.failures == (((0, 0), 2),)
    state = step(state, Restart())
    assert state.failures == (((0, 0), 2),) and state.running == ((0, 0),)
    state = step(state, Failed(0, 0))  # the third try in all, across the restart
    assert state.view[0].built and state.view[0].text.startswith("(not summarized, cut: zoom it) ")


def test_an_empty_reply_is_a_failed_try_never_a_line_of_the_input():
    assert line(("",)) == Outcome(1, "", ())
    assert line((" \n\t ",)) == Outcome(1, "", ())


def test_a_merge_is_queued_once_both_halves_are_built_and_runs_after_the_messages():
    state = run((Message("user", LONG), Message("user", LONG)))
    state = step(state, Built(0, 0, "a" * 300))
    state = step(state, Built(0, 1, "b" * 300))  # 300 + 1 + 300 > 512: not free
    assert state.ready == ((1, 0),)
    assert state.running == ((1, 0),)
    state = step(state, Message("user", LONG))
    assert state.running == ((1, 0), (0, 2))


def test_a_waiting_turn_with_free_slots_stops_nothing():
    state = run((Message("user", LONG), Message("user", LONG)))
    state = step(state, Built(0, 0, "a" * 300))
    state = step(state, Built(0, 1, "b" * 300))
    state = step(state, Message("user", LONG))
    assert state.running == ((1, 0), (0, 2))  # 2 of 8 slots
    assert waiting_queue(state) == ((1, 0), (0, 2))
    state = step(state, Wait())
    assert state.waiting and state.running == ((1, 0), (0, 2))  # the merge keeps its paid call


def test_a_waiting_turn_stops_only_the_merges_whose_slots_it_needs_the_youngest_first():
    # 2 jobs: merges (1, 0) then (1, 1) run; then two long messages wait for slots
    config = Config(jobs_max=2)
    events = tuple(Message("user", LONG) for _ in range(4))
    events += (Built(0, 0, "a" * 300), Built(0, 1, "b" * 300))
    state = run(events, config)
    assert state.running == ((0, 2), (0, 3))
    state = step(state, Built(0, 2, "c" * 300))
    state = step(state, Built(0, 3, "d" * 300))
    assert state.running == ((1, 0), (1, 1))
    state = step(state, Message("user", LONG))  # message 4: no slot free
    assert state.running == ((1, 0), (1, 1))
    state = step(state, Wait())
    # one line needs one slot: only the youngest merge, (1, 1), stops, and goes back to its queue
    assert state.running == ((1, 0), (0, 4))
    assert state.failures == () and (1, 1) in state.ready


def test_a_failed_line_waits_for_the_backoff_even_while_a_turn_waits():
    state = run((Message("user", LONG), Wait()))
    state = step(state, Failed(0, 0))
    assert state.waiting and state.running == ()  # not retried at once
    state = step(state, Retry())  # the compactor's backoff passed
    assert state.running == ((0, 0),)
    state = step(state, Built(0, 0, "c"))
    assert not state.waiting  # the view is settled: the wait ends


def test_turn_end_ends_the_wait_and_a_restart_forgets_running_calls_but_not_failures():
    state = run((Message("user", LONG), Wait(), TurnEnd()))
    assert not state.waiting
    state = step(state, Failed(0, 0))
    state = step(state, Restart())
    assert state.failures == (((0, 0), 1),) and state.retry_later == ()
    assert state.running == ((0, 0),)  # started again by the new process


def test_a_turn_waits_then_renders_then_logs_its_message():
    state = run((Message("tool", LONG),))
    answers = iter((Built(0, 0, "tool: read it"),))
    state, sent = turn(state, "what now?", lambda s: next(answers), 5)
    # the turn waited for message 0 only, sent the settled view, then logged its own as message 1
    assert render(sent) == "<chat>\n0+1|tool: read it\n</chat>"
    assert state.T == 2 and state.view[-1].text == "user: what now?"


def test_a_turn_that_times_out_sends_placeholders_never_the_message():
    state = run((Message("tool", LONG),))
    state, sent = turn(state, "go", lambda s: Failed(0, 0), 1)
    assert render(sent) == "<chat>\n0+1|not summarized yet: search or zoom it\n</chat>"
    assert not state.waiting and state.T == 2


def test_a_batch_merges_the_most_due_pairs_to_the_floor_and_goes_on_at_the_next_message():
    # Free messages "user: x": 12-byte lines ("0+1|user: x\n"); their parents are free too.
    config = Config(50, 30, 1000, 500)
    state = run(tuple(Message("user", "x") for _ in range(4)), config)
    assert view_bytes(state.view) == 48 and not state.shrinking
    state = step(state, Message("user", "x"))  # 60 > 50: a batch, at T = 5
    # dues: 0-1 (5-1)/1 = 4, then 2-3 (5-3)/1 = 2, then 0-3 (5-3)/2 = 1; 0+4 4+1 is 36 + 12 = 48
    assert state.merges == ((1, 0), (1, 1), (2, 0))
    assert names(state.view) == ["0+4", "4+1"]
    assert view_bytes(state.view) == 48 and state.shrinking
    state = step(state, Message("user", "x"))  # still shrinking: 4-5 due 1 merges
    assert state.merges == ((1, 2),)
    assert names(state.view) == ["0+4", "4+2"] and state.shrinking
    assert state.cview == state.view  # taken again from the view, which is under 500


def test_a_compactions_context_ends_at_the_node_and_stops_at_the_first_unbuilt_line():
    cview = (built_line(1, 0, "a"), built_line(0, 2, "b"), waiting_line(3, "c"), built_line(0, 4, "d"))
    assert names(context(cview, 0, 2, 32_000)) == ["0+2"]  # the lines before message 2
    assert names(context(cview, 1, 0, 32_000)) == ["0+2"]  # a merge: up to its last message, 1
    assert names(context(cview, 0, 4, 32_000)) == ["0+2", "2+1"]  # stops at the unbuilt 3+1
    assert names(context(cview, 0, 0, 32_000)) == []


def test_a_compactions_context_stops_at_its_budget():
    # "0+2|a\n" is 6 bytes and "2+1|b\n" 6: a budget of 11 keeps the first line only
    cview = (built_line(1, 0, "a"), built_line(0, 2, "b"), built_line(0, 3, "c"))
    assert names(context(cview, 0, 4, 12)) == ["0+2", "2+1"]
    assert names(context(cview, 0, 4, 11)) == ["0+2"]
    assert names(context(cview, 0, 4, 5)) == []


def test_a_turn_sends_coarse_placeholders_when_no_pair_of_the_view_can_merge():
    # Four unbuilt messages and two built ones: a placeholder shows "0+1|not summarized yet: search
    # or zoom it" and counts its head, the 128 bytes a placeholder's text may weigh and its newline
    # [P22], 4 + 128 + 1 = 133 bytes; "4+1|user: x\n" is 12: 4·133 + 2·12 = 556 bytes. No parent
    # is built.
    view = tuple(waiting_line(i, "tool: " + LONG) for i in range(4)) + (built_line(0, 4, "user: x"), built_line(0, 5, "user: y"))
    state = State(Config(50, 30, 1000, 500), T=6, view=view)
    assert render(sent_view(replace(state, config=Config(556, 30, 1000, 500)))) == render(view)
    # at 555 the most due pair, 0-1 (due (6-1)/1 = 5), becomes the placeholder 0+2 (133 bytes)
    sent = sent_view(replace(state, config=Config(555, 30, 1000, 500)))
    assert names(sent) == ["0+2", "2+1", "3+1", "4+1", "5+1"]
    assert [line.bytes for line in sent] == [133, 133, 133, 12, 12]
    # at 300, 2-3 (due 3) too: 133 + 133 + 12 + 12 = 290
    assert names(sent_view(replace(state, config=Config(300, 30, 1000, 500)))) == ["0+2", "2+2", "4+1", "5+1"]
    # at 160, then 0-3 (due (6-3)/2 = 1.5, more than 4-5's 1): 133 + 12 + 12 = 157
    sent = sent_view(replace(state, config=Config(160, 30, 1000, 500)))
    assert render(sent) == "<chat>\n0+4|not summarized yet: search or zoom it\n4+1|user: x\n5+1|user: y\n</chat>"


def too_long_600(letter):
    """[gist §4]'s follow-up for a 600-byte line of one letter, written out by hand."""
    return ("Too long: your line is 600 bytes, over the 512-byte limit. Write\n"
            "the whole line again for the same <input>, cutting just enough of the\n"
            "least valuable items to fit before this cut:\n" + letter * 512 + "| ← LIMIT")


def test_the_compactor_keeps_the_first_line_that_fits():
    assert line(("short",)) == Outcome(1, "short", ())
    outcome = line(("x" * 600, "x" * 520, "x" * 500, "y"))
    assert (outcome.calls, outcome.text, len(outcome.follow_ups)) == (3, "x" * 500, 2)
    assert outcome.follow_ups[0] == too_long_600("x")


def test_the_compactor_stops_when_a_follow_up_is_not_shorter_and_keeps_the_shortest():
    assert line(("x" * 600, "x" * 600, "x" * 10)) == Outcome(2, "x" * 512, (too_long_600("x"),))
    assert line(("x" * 600, "y" * 700, "x" * 10)) == Outcome(2, "x" * 512, (too_long_600("x"),))


def test_the_compactor_tries_at_most_five_times_and_an_empty_reply_is_the_last_try():
    replies = tuple("x" * (600 - k) for k in range(7))
    assert line(replies).calls == 5 and len(line(replies).follow_ups) == 4
    assert line(("  ", "ok")) == Outcome(1, "", ())
    assert line(("x" * 600, "")) == Outcome(2, "x" * 512, (too_long_600("x"),))


def test_cuts_never_split_a_character():
    assert line(("é" * 300, "é" * 300)).text == "é" * 256  # 512 bytes exactly
    assert line(("a" + "é" * 300, "a" + "é" * 300)).text == "a" + "é" * 255  # 511 bytes


def test_a_merges_input_cut_keeps_both_lines():
    assert merge_input_cut("a" * 400, "b" * 400, 512) == "a" * 255 + "\n" + "b" * 256
    assert merge_input_cut("a" * 100, "b" * 600, 512) == "a" * 100 + "\n" + "b" * 411


def test_every_line_break_and_control_character_is_one_space():
    text = "a\r\nb\rc\nd\u2028e\u2029f\x85g\vh\fi\x00j\x7fk\x9fl\tm\x1bn"
    assert flatten(text) == "a b c d e f g h i j k l m n"
    assert built_line(0, 0, text).bytes == len("0+1|a b c d e f g h i j k l m n\n")


def test_a_waiting_line_renders_within_its_reserve_and_escaping_shows_only_once_it_is_built():
    """[P1] [P18] A waiting line renders its placeholder, under its reserve; its built line
    is counted as it renders, so a text of `<` (each shown as the 3-byte `‹`) weighs up to
    2 · 512 bytes more than the reserve counted at its message. The stored view passes its
    ceiling between messages by at most that per line built since; the turn's view never."""
    # "0+1|" (4), the reserve's 512 bytes and the newline; built: 4, 512 · 3 and the newline
    assert waiting_line(0, "user: " + LONG).bytes == 517
    assert built_line(0, 0, "<" * 512).bytes == 1_541
    # a ceiling whose batches leave the view within 1,024 bytes of it at some messages (at 12,800 none do)
    config = Config(12_000, 6_000, 3_200, 1_600)
    state = State(config)
    passed_between_messages = 0
    for _ in range(100):
        state = step(state, Message("user", LONG))  # 606 bytes: each waits for its call
        shrinking = state.shrinking
        built_since = 0
        while True:
            for waiting in state.view:
                if not waiting.built:  # "n+1|not summarized yet: search or zoom it" and the newline
                    assert len(rendered(waiting).encode("utf-8")) + 1 == len(str(waiting.i)) + 3 + 37 + 1 < waiting.bytes
            if not shrinking:
                assert view_bytes(state.view) <= config.view_bytes_ceiling + 1_024 * built_since
                passed_between_messages += view_bytes(state.view) > config.view_bytes_ceiling
            sent = render(sent_view(state))
            assert len(sent.encode("utf-8")) <= config.view_bytes_ceiling + len("<chat>\n</chat>")
            if not state.running:
                break
            l, i = state.running[0]
            built_since += l == 0
            state = step(state, Built(l, i, "<" * 512))
    assert passed_between_messages > 0  # the bound is reached, not only stated
