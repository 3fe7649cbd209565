"""Strategy: fixed, hand-made histories that reach, every time, each path a production planner bug
could hide on (stale outcomes of every kind, lines built smaller than they were counted while a
view shrinks, small job counts with a failure in the window, the five-try limit, a wait with free
slots and a turn that gives up, every kind of line break). Each history goes to the model and to
the production planner through the bridge's `Sides`, and every record (bridge/FORMAT.md) must
agree. Each case also checks that its path was reached (with the bridge's own path counter, so a
change of the rules that bypasses the path fails here instead of testing nothing), and, where
the rule is written down, what the rule says, computed by hand: a stale outcome changes nothing
[P7]; a view built down to its floor stops shrinking [gist §3.2]; the window is
`jobs_max` lines [P6]; at most 5 tries [gist §4]; a turn that gives up ends the wait
[P8].

The histories read the planners' running lists as they go, like the bridge's scenarios, so they
stay valid when the rules change.
"""

import pytest

from bridge import model_trace
from bridge.__main__ import PATHS, Paths, Sides
from harness.memory import line as harness_line
from harness.memory import trace as harness_trace
from model import line as model_line

LONG = "x" * 600  # never its own node: its line waits for a call [gist §2]
HALF = "h" * 300  # two of these do not fit in one free node
# Column indices of the `e` record (FORMAT.md numbers them from 1).
K, EVENT, VIEW, SHRINKING, CSHRINKING, MERGES, RUNNING, WAITING, FAILURES = 1, 3, 4, 6, 9, 10, 12, 15, 17
LARGE = 1_000_000  # a view size no history here reaches: no batch


class Play:
    """Both planners, one history; every record compared as it is printed."""

    def __init__(self, config):
        self.sides = Sides(config)
        self.paths = Paths()
        self.paths.start(config)
        self.records = []  # the model's `e` record of each event, as columns

    def send(self, *event):
        k = len(self.records)
        model_lines = self.sides.model_step(k, event)
        harness_lines = self.sides.harness_step(k, event)
        assert model_lines == harness_lines, (k, event)
        self.paths.observe(event, model_lines)
        self.records.append(model_lines[0].split("\t"))
        return self.records[-1]

    def running(self):
        return self.sides.state.running

    def finish(self):
        k = len(self.records)
        assert model_trace.end_records(k, self.sides.state) == harness_trace.final_records(k, self.sides.planner)


def unchanged(before, after):
    """Two `e` records equal but for the event's index and the event [P7]."""
    keep = [n for n in range(len(before)) if n not in (K, EVENT)]
    return [before[n] for n in keep] == [after[n] for n in keep]


def a_merge_runs(play):
    """Messages 0 and 1 built with 300 bytes each: their merge (1, 0) is not free and runs."""
    play.send("message", "user", LONG)
    play.send("built", 0, 0, HALF)
    play.send("message", "tool", LONG)
    play.send("built", 0, 1, HALF)
    assert (1, 0) in play.running()


def send_stale(play, node):
    """A Built and a Failed for a node that is not running: each changes nothing [P7]."""
    assert node not in play.running()
    for event in (("built", node[0], node[1], "late"), ("failed", node[0], node[1])):
        before = play.records[-1]
        after = play.send(*event)
        assert unchanged(before, after), event


def test_outcomes_for_a_merge_a_waiting_turn_stopped_change_nothing():
    play = Play((LARGE, LARGE, LARGE, LARGE, 1, 3))
    a_merge_runs(play)
    play.send("message", "echo", LONG)  # its line waits: the one slot is the merge's
    running = play.running()
    play.send("wait")
    stopped = [node for node in running if node not in play.running()]
    # the waiting turn needs the slot for message 2's line, so the merge stops [gist §6]
    assert stopped == [(1, 0)]
    send_stale(play, (1, 0))
    assert play.paths.counts["stale outcome, stopped by a waiting turn"] == 2
    assert play.paths.counts["stale built, merge"] == 1
    assert play.paths.counts["stale failed, merge"] == 1
    play.finish()


def test_outcomes_for_a_merge_a_restart_forgot_change_nothing():
    play = Play((LARGE, LARGE, LARGE, LARGE, 1, 3))
    a_merge_runs(play)
    play.send("message", "echo", LONG)
    running = play.running()
    play.send("restart")
    forgotten = [node for node in running if node not in play.running()]
    # after the restart the window's message takes the one slot first [P5]
    assert forgotten == [(1, 0)]
    send_stale(play, (1, 0))
    assert play.paths.counts["stale outcome, forgotten at a restart"] == 2
    play.finish()


def test_outcomes_for_built_nodes_change_nothing():
    play = Play((LARGE, LARGE, LARGE, LARGE, 8, 3))
    a_merge_runs(play)
    play.send("built", 1, 0, "merged")
    send_stale(play, (0, 1))
    send_stale(play, (1, 0))
    assert play.paths.counts["stale outcome, already built"] == 4
    assert play.paths.counts["stale built, message"] == 1
    assert play.paths.counts["stale failed, message"] == 1
    play.finish()


def test_outcomes_after_a_failure_and_for_calls_never_started_change_nothing():
    play = Play((LARGE, LARGE, LARGE, LARGE, 1, 3))
    for kind in ("user", "ever", "tool"):
        play.send("message", kind, LONG)
    assert play.running() == ((0, 0),)
    send_stale(play, (0, 2))  # outside the one-line window: never started
    play.send("failed", 0, 0)
    assert play.records[-1][FAILURES] == "0+1:1"
    send_stale(play, (0, 0))  # the failed call's late reply
    assert play.paths.counts["stale outcome, never started"] == 2
    assert play.paths.counts["stale outcome, after a failure"] == 2
    play.finish()


def test_a_node_that_always_fails_is_built_at_the_failure_cap():
    # [D5] the cap bounds the retries of a message the model always refuses
    play = Play((LARGE, LARGE, LARGE, LARGE, 1, 2))
    play.send("message", "tool", LONG)
    play.send("failed", 0, 0)
    assert play.records[-1][RUNNING] == "-"
    play.send("message", "user", "again")  # [gist §4] tried again at the next message
    assert play.running()[0] == (0, 0)
    after = play.send("failed", 0, 0)
    assert after[VIEW].split(" ")[0] == "0+1"  # built, no longer `0+1*`
    assert after[FAILURES] == "-"
    assert play.paths.counts["failure cap reached"] == 1
    play.finish()


def test_lines_built_smaller_than_counted_end_the_shrinking_with_no_merge():
    # Six unbuilt lines pass both ceilings, and no pair can merge (no parent is built). Built as
    # one-byte lines, they take both views under their floors between two messages: the next
    # message merges nothing and ends both shrinkings [gist §3.2, §4].
    play = Play((200, 190, 100, 90, 8, 3))
    for _ in range(6):
        play.send("message", "tool", LONG)
    assert play.records[-1][SHRINKING] == "1"
    assert play.records[-1][CSHRINKING] == "1"
    for i in range(6):
        play.send("built", 0, i, "a")
    assert play.records[-1][SHRINKING] == "1"  # batches run only at messages [gist §3.2]
    last = play.send("message", "user", "hi")
    assert (last[MERGES], last[SHRINKING], last[CSHRINKING]) == ("-", "0", "0")
    assert play.paths.counts["built smaller than counted, shrinking"] == 6
    assert play.paths.counts["built smaller than counted, compaction view shrinking"] == 6
    assert play.paths.counts["shrinking ended with no merge"] == 1
    assert play.paths.counts["compaction view shrinking ended with no merge"] == 1
    play.finish()


@pytest.mark.parametrize("jobs", (1, 2, 3))
def test_a_failed_line_keeps_its_place_in_a_window_of_jobs_max_lines(jobs):
    play = Play((LARGE, LARGE, LARGE, LARGE, jobs, 3))
    for _ in range(6):
        play.send("message", "echo", LONG)
    window = [f"{i}+1" for i in range(jobs)]
    assert play.records[-1][RUNNING] == " ".join(window)
    after = play.send("failed", 0, 0)
    # [P6] the window is still the first jobs_max unbuilt lines, the failed one among
    # them; it waits for the next message [gist §4], and no line beyond the window starts
    assert after[RUNNING] == (" ".join(window[1:]) or "-")
    assert play.paths.counts[f"failed message, {jobs} job" + ("s" if jobs > 1 else "")] == 1
    after = play.send("message", "user", "next")
    assert after[RUNNING].split(" ")[-1] == "0+1"  # tried again at the next message
    play.finish()


def test_a_wait_with_free_slots_and_a_turn_that_gives_up():
    play = Play((LARGE, LARGE, LARGE, LARGE, 8, 3))
    a_merge_runs(play)
    play.send("message", "echo", LONG)
    assert set(play.running()) == {(1, 0), (0, 2)}  # 2 of 8 slots busy
    play.send("wait")
    assert play.paths.counts["wait with free slots and a merge running"] == 1
    assert play.records[-1][WAITING] == "1"
    after = play.send("turn_end")
    assert after[WAITING] == "0"  # [P8] the turn gave up: the wait ends
    assert play.paths.counts["turn gave up"] == 1
    for node in play.running():
        play.send("built", node[0], node[1], "done")
    play.finish()


def test_a_wait_with_too_few_free_slots_stops_only_the_youngest_merge():
    # 3 jobs; merges (1, 0) and (1, 1) run and one slot is free, while messages 4 and 5 have each
    # failed once. A turn waits; the compactor's backoff passes (Retry): the two lines need two
    # slots and one is free, so one merge stops, the younger (1, 1), and the older keeps its paid
    # call [P8].
    play = Play((LARGE, LARGE, LARGE, LARGE, 3, 3))
    for k in range(4):
        play.send("message", "user", LONG)
    for k in range(4):
        play.send("built", 0, k, HALF)
    assert play.running() == ((1, 0), (1, 1))
    play.send("message", "user", LONG)
    play.send("message", "user", LONG)
    assert play.running() == ((1, 0), (1, 1), (0, 4))
    play.send("failed", 0, 4)
    assert play.running() == ((1, 0), (1, 1), (0, 5))
    play.send("failed", 0, 5)
    assert play.running() == ((1, 0), (1, 1))  # one slot free; both lines wait for the backoff
    play.send("wait")
    assert play.running() == ((1, 0), (1, 1))
    play.send("retry")
    assert play.running() == ((1, 0), (0, 4), (0, 5))
    play.finish()


BREAKS = (
    "\r\n", "\r", "\n", "\u2028", "\u2029", "\x85", "\v", "\f", "\x00", "\x1b", "\x1f", "\t", "\x7f",
    "\x80", "\x9f", "é", "日本", "😀",
)


def test_every_kind_of_line_break_renders_alike_on_both_sides():
    # One free message per break, a long one with all of them, and built lines with them; a small
    # view so batches print the rendered view (FORMAT.md `r` records) as well as the end.
    play = Play((300, 150, 200, 100, 2, 3))
    for piece in BREAKS:
        play.send("message", "user", "a" + piece + "b")
    play.send("message", "echo", "".join(BREAKS) * 40)
    while play.running():
        l, i = play.running()[0]
        play.send("built", l, i, "c".join(BREAKS))
    play.send("message", "user", "end")
    for path in PATHS:
        if path.startswith("message with"):
            assert play.paths.counts[path] >= 1, path
    play.finish()
    rendered = model_trace.end_records(len(play.records), play.sides.state)
    # \r\n, \r and \n are one space each in the view: the `z` record has one line per view line
    lines = play.sides.state.view
    assert rendered[0].split("\t")[3] == str(len(lines) + 2)
    assert len(rendered) == len(lines) + 3


def test_the_line_algorithm_stops_after_five_tries():
    # Each reply over 512 bytes and shorter than the last: the fifth is the last asked for, and
    # the kept line is the shortest (the fifth), cut to 512 bytes [gist §4] [P13].
    replies = tuple("r" * size for size in (900, 800, 700, 600, 550)) + ("fits",)
    for algorithm in (model_line.line, harness_line.line):
        outcome = algorithm(replies)
        assert (outcome.calls, outcome.text) == (5, "r" * 512)


def test_the_path_counter_reads_the_format_example():
    # FORMAT.md's example: at event 6 the merge 0+2 fails; at event 7 it is reported built,
    # though it no longer runs (stale, after a failure).
    text = open("bridge/FORMAT.md", encoding="utf-8").read().split("## Example", 1)[1]
    scenario = text.split("```")[1].strip("\n").split("\n")
    from bridge.scenarios import parse_event

    config = tuple(int(n) for n in scenario[1].split()[1:])
    play = Play(config)
    for line in scenario[2:]:
        line = line.replace('"tool: read x…"', '"tool: read ' + "x" * 500 + '"').replace('"x…"', '"' + "x" * 600 + '"')
        play.send(*parse_event(line))
    stale = {path: count for path, count in play.paths.counts.items() if path.startswith("stale") and count}
    assert stale == {"stale built, merge": 1, "stale outcome, after a failure": 1}
