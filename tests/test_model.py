"""Strategy: the model's rules on small chats whose every byte is computed by hand in the comments
(line sizes, dues, which pairs merge), so the expected values do not come from the model."""

from model.line import Outcome, line, merge_input_cut
from model.planner import (
    Built, Config, Failed, Message, Restart, TurnEnd, Wait, run, step, waiting_queue,
)
from model.view import built_line, context, render, view_bytes, waiting_line

LONG = "x" * 600  # "user: " + 600 bytes: over 512, so it needs a call


def names(view):
    return [f"{line.i << line.l}+{1 << line.l}" for line in view]


def test_a_line_costs_its_rendered_head_text_and_newline():
    assert built_line(0, 5, "user: hi").bytes == len("5+1|user: hi\n")  # 13
    assert waiting_line(12, "user: " + LONG).bytes == 35  # "12+1|(not summarized yet: zoom it)\n"
    assert built_line(1, 2, "a\nb").bytes == len("4+2|a b\n")


def test_the_view_renders_ids_placeholders_and_flattened_newlines():
    view = (built_line(1, 0, "user: a\r\nuser: b"), waiting_line(2, "user: " + LONG))
    assert render(view) == "<chat>\n0+2|user: a user: b\n2+1|(not summarized yet: zoom it)\n</chat>"


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


def test_a_failed_call_waits_for_the_next_message_and_the_third_failure_builds_from_the_input():
    state = run((Message("user", LONG),))
    state = step(state, Failed(0, 0))
    assert state.running == ()
    state = step(state, Message("user", "hi"))
    assert state.running == ((0, 0),)
    state = step(state, Failed(0, 0))
    state = step(state, Message("user", "hi"))
    state = step(state, Failed(0, 0))
    assert state.view[0] == built_line(0, 0, ("user: " + LONG)[:512])


def test_a_merge_is_queued_once_both_halves_are_built_and_runs_after_the_messages():
    state = run((Message("user", LONG), Message("user", LONG)))
    state = step(state, Built(0, 0, "a" * 300))
    state = step(state, Built(0, 1, "b" * 300))  # 300 + 1 + 300 > 512: not free
    assert state.ready == ((1, 0),)
    assert state.running == ((1, 0),)
    state = step(state, Message("user", LONG))
    assert state.running == ((1, 0), (0, 2))


def test_a_waiting_turn_stops_other_calls_without_counting_a_failure_and_retries_at_once():
    state = run((Message("user", LONG), Message("user", LONG)))
    state = step(state, Built(0, 0, "a" * 300))
    state = step(state, Built(0, 1, "b" * 300))
    state = step(state, Message("user", LONG))
    assert state.running == ((1, 0), (0, 2))
    assert waiting_queue(state) == ((0, 2),)
    state = step(state, Wait())
    assert state.waiting and state.running == ((0, 2),)
    assert state.failures == ()
    state = step(state, Failed(0, 2))
    assert state.running == ((0, 2),)  # no message comes while the user waits
    state = step(state, Built(0, 2, "c"))
    assert not state.waiting  # the view is settled: the wait ends
    assert state.running == ((1, 0),)  # and the merge starts again


def test_turn_end_ends_the_wait_and_a_restart_forgets_running_calls_and_failures():
    state = run((Message("user", LONG), Wait(), TurnEnd()))
    assert not state.waiting
    state = step(state, Failed(0, 0))
    state = step(state, Restart())
    assert state.failures == () and state.retry_later == ()
    assert state.running == ((0, 0),)  # started again by the new process


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
    assert names(context(cview, 0, 2)) == ["0+2"]  # the lines before message 2
    assert names(context(cview, 1, 0)) == ["0+2"]  # a merge: up to its last message, 1
    assert names(context(cview, 0, 4)) == ["0+2", "2+1"]  # stops at the unbuilt 3+1
    assert names(context(cview, 0, 0)) == []


def test_the_compactor_keeps_the_first_line_that_fits():
    assert line(("short",), "input") == Outcome(1, "short")
    assert line(("x" * 600, "x" * 520, "x" * 500, "y"), "input") == Outcome(3, "x" * 500)


def test_the_compactor_stops_when_a_follow_up_is_not_shorter_and_keeps_the_shortest():
    assert line(("x" * 600, "x" * 600, "x" * 10), "input") == Outcome(2, "x" * 512)
    assert line(("x" * 600, "y" * 700, "x" * 10), "input") == Outcome(2, "x" * 512)


def test_the_compactor_tries_at_most_five_times_and_an_empty_reply_is_the_last_try():
    replies = tuple("x" * (600 - k) for k in range(7))
    assert line(replies, "input").calls == 5
    assert line(("  ", "ok"), "input" * 200) == Outcome(1, ("input" * 200)[:512])
    assert line(("x" * 600, ""), "input") == Outcome(2, "x" * 512)


def test_cuts_never_split_a_character():
    assert line(("é" * 300, "é" * 300), "in").text == "é" * 256  # 512 bytes exactly
    assert line(("a" + "é" * 300, "a" + "é" * 300), "in").text == "a" + "é" * 255  # 511 bytes


def test_a_merges_input_cut_keeps_both_lines():
    assert merge_input_cut("a" * 400, "b" * 400) == "a" * 255 + "\n" + "b" * 256
    assert merge_input_cut("a" * 100, "b" * 600) == "a" * 100 + "\n" + "b" * 411
