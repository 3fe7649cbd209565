"""Strategy: what the history laws leave unknown is checked on its own (laws/work_queue.py): the
failure cap's source, the ready queue's order and the window, each law passing on the model and
failing on a planted bug of the kind it is there for: a source found by its index alone (a merged
line of the same index after the message gives its text), merges queued by index, a window one
line too wide. The expected texts are written from docs/planner.md [P16], not read from the model.
"""

import model.planner as planner
from laws import work_queue
from laws.core import Budget, shortfall
from model.view import built_line, waiting_line


def test_the_capped_text_and_queue_laws_hold_on_the_model():
    for law in work_queue.LAWS:
        verdict = law.check(Budget())
        assert verdict.passed, (law.name, verdict.detail)
        assert shortfall(law.strength, verdict.strength) is None, verdict.strength


def test_the_capped_text_law_narrowed_to_eight_messages_falls_short_of_the_registry(monkeypatch):
    monkeypatch.setattr(work_queue, "TILED_MAX", 8)
    verdict = work_queue.capped_text_finds_its_source(Budget())
    assert verdict.passed  # what it checked holds; its label says how little that was
    assert "from 1 to 8 messages" in verdict.strength
    assert "not the registry's" in shortfall(work_queue.CAPPED_LABEL, verdict.strength)


def test_the_capped_merge_of_long_halves_is_cut_as_p9_says():
    # by hand: the mark is 31 bytes, so the room is 512 − 31 − 1 = 480 bytes; halves of 400 and 300
    # bytes keep 240 + 240; of 100 and 400, the first whole and the second 380
    mark = "(not summarized, cut: zoom it) "
    assert len(mark) == 31
    assert work_queue.capped_merge_expected("a" * 400, "b" * 300) == mark + "a" * 240 + "\n" + "b" * 240
    assert work_queue.capped_merge_expected("a" * 100, "b" * 400) == mark + "a" * 100 + "\n" + "b" * 380
    assert planner.capped_merge("a" * 400, "b" * 300) == mark + "a" * 240 + "\n" + "b" * 240


def test_every_tiling_of_four_messages_is_found():
    # by hand: 0+1 1+1 2+1 3+1; 0+2 2+1 3+1; 0+1 1+1 2+2; 0+2 2+2; 0+4
    assert sorted(work_queue.tilings(0, 4)) == sorted([
        ((0, 0), (0, 1), (0, 2), (0, 3)), ((1, 0), (0, 2), (0, 3)), ((0, 0), (0, 1), (1, 1)),
        ((1, 0), (1, 1)), ((2, 0),)])


def capped_by_index_alone(state, l, i):
    if l == 0:
        source = ""
        for line in state.view:
            if line.i == i:
                source = line.text
        return "(not summarized, cut: zoom it) " + source
    return planner.capped_text(state, l, i)


def test_a_source_found_by_its_index_alone_fails_the_law(monkeypatch):
    state = planner.State(planner.Config(), T=4, view=(waiting_line(0, "user: zero"), waiting_line(1, "user: one"),
                                                       built_line(1, 1, "two and three")))
    assert planner.capped_text(state, 0, 1) == "(not summarized, cut: zoom it) user: one"
    assert capped_by_index_alone(state, 0, 1) == "(not summarized, cut: zoom it) two and three"
    monkeypatch.setattr(work_queue, "capped_text", capped_by_index_alone)
    verdict = work_queue.capped_text_finds_its_source(Budget())
    assert not verdict.passed
    assert "message 1's capped line" in verdict.detail


def test_merges_queued_by_index_or_a_wide_window_fail_the_law(monkeypatch):
    def by_index(queue, node):
        k = 0
        while k < len(queue) and queue[k][1] < node[1]:
            k = k + 1
        return queue[:k] + (node,) + queue[k:]

    monkeypatch.setattr(work_queue, "queue_by_last", by_index)
    verdict = work_queue.queue_functions_hold(Budget())
    assert not verdict.passed and "by last message" in verdict.detail
    monkeypatch.undo()

    def wide_window(state):
        waiting, running, shown, starts = planner.schedule(state)
        unbuilt = [(0, line.i) for line in state.view if not line.built]
        extra = [node for node in unbuilt[state.config.jobs_max: state.config.jobs_max + 1]
                 if node not in running and node not in state.retry_later]
        wider = running + tuple(extra) if len(running) < state.config.jobs_max else running
        return waiting, wider, shown, starts

    monkeypatch.setattr(work_queue, "schedule", wide_window)
    verdict = work_queue.queue_functions_hold(Budget())
    assert not verdict.passed and "started" in verdict.detail


def test_while_the_turns_view_folds_the_merges_under_its_lowest_placeholder_start_first():
    # by hand [P26]: 8 notes of 300 bytes, each line 305 bytes with its head and newline: 2,440
    # against a turn's ceiling of 1,000, nothing merged built. The turn's fold merges the most due
    # pairs, (T − last)/2^l at T = 8, into placeholders of 133 bytes (head, 128, newline): 0-1 (due
    # 7), 2-3 (5), 4-5 (3) to 1,009 bytes; then the pair 0+2, 2+2 (due 2.5, above 6-7's 1) to 876.
    # The turn would send 0+4 and 4+2 as placeholders, 6+1 and 7+1 built. Ready: 0+2, 2+2, 4+2, 6+2
    # by last message; 4+2 is a placeholder of level 1, 0+2 and 2+2 lie under one of level 2, and
    # 6+2 is above built lines.
    state = work_queue.shown_state(8, (), 1_000, 1)
    assert [(line.l, line.i, line.built) for line in planner.sent_view(state)] == [
        (2, 0, False), (1, 2, False), (0, 6, True), (0, 7, True)]
    assert state.ready == ((1, 0), (1, 1), (1, 2), (1, 3))
    assert planner.schedule(state) == (False, ((1, 2),), frozenset({(2, 0), (1, 2)}), 1)
    state = work_queue.shown_state(8, (), 1_000, 4)
    assert planner.schedule(state)[1] == ((1, 2), (1, 0), (1, 1), (1, 3))
    # within a ceiling of 3,000 the turn's view is the view: the queue's own order [P5]
    assert planner.schedule(work_queue.shown_state(8, (), 3_000, 4)) == (False, state.ready, frozenset(), -1)
