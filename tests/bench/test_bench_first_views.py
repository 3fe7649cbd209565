"""Strategy: how much of the view a turn sends is built after each number of compactions, when
the compactor starts after an import [P26]. The production planner replays a first day: a chat of
1,000 messages whose every call is answered before the next message, then 3,000 short notes (each
its own line, no two joinable [gist §2]) and 300 long ones (each a summary), shuffled, logged while
no call is answered (an import with the compactor not yet started); then the calls are answered one
at a time, the oldest started first, each with a line of 400 to 500 bytes, the first day's sizes
(tests/bench/test_bench_first_day.py). After 0, 256, 512, 1,024, 2,048 and 3,000 compactions the
view a turn would send (`turn_lines`) is counted: its lines and how many are built.

The same replay runs a second time with the ready merges taken by last message alone, [P5]'s order
(`LastMessageFirst` below, which starts them as the heap gives them): what is asserted is the
comparison, never a time: at no count is the order of [P26] behind it, and after 512 compactions
and after 1,024 it is ahead; both end with every line built (the work is the same, only its
order differs). The sizes are full only with `--benchmark-enable` (`make bench`); without it the
test is skipped, since each replay folds a view of thousands of lines at each compaction.
"""

import heapq
import random

import pytest

from harness.memory.events import Built, Message
from harness.memory.planner import Planner
from tests.support.chat_files import words

COUNTS = (0, 256, 512, 1_024, 2_048, 3_000)
AHEAD_AT = (512, 1_024)


class LastMessageFirst(Planner):
    """[P5]'s order alone: ready merges start by last message, whatever the turn's view shows."""

    def _start_shown_first(self, slots: int) -> None:
        ready = self.ready
        while slots > 0 and ready:
            _, l, i = heapq.heappop(ready)
            self.ready_set.discard((l, i))
            self.running.append((l, i))
            slots -= 1


def line(rng: random.Random) -> str:
    size = rng.randint(400, 500)
    return ("summary: " + words(rng, size // 4))[:size].rstrip()


def first_views(planner: Planner, seed: int = 3) -> dict[int, tuple[int, int]]:
    """(lines, built) of the view a turn would send after each count of compactions in COUNTS."""
    rng = random.Random(seed)
    for _ in range(1_000):
        planner.apply(Message(rng.choice(("user", "ever", "tool", "echo")), words(rng, rng.randint(4, 300))))
        while planner.running:
            l, i = planner.running[0]
            planner.apply(Built(l, i, line(rng)))
    # a short note with its kind is at most 512 bytes, two of them more: each its own line, never joined
    notes = ["short"] * 3_000 + ["long"] * 300
    rng.shuffle(notes)
    for kind in notes:
        size = rng.randint(260, 500) if kind == "short" else rng.randint(600, 3_000)
        planner.apply(Message("note", ("x" + words(rng, size))[:size]))
    shares = {}
    done = 0
    while True:
        if done in COUNTS:
            lines = planner.turn_lines()
            shares[done] = (len(lines), sum(1 for l, i in lines if planner.built(l, i)))
        if not planner.running:
            break
        l, i = planner.running[0]
        planner.apply(Built(l, i, line(rng)))
        done += 1
    lines = planner.turn_lines()
    shares[done] = (len(lines), sum(1 for l, i in lines if planner.built(l, i)))
    return shares


def test_the_compactor_builds_first_what_the_first_turns_view_shows(request):
    if not request.config.getoption("benchmark_enable"):
        pytest.skip("two replays of a first day, a view of thousands of lines folded at each compaction: make bench")
    shown_first = first_views(Planner())
    by_last = first_views(LastMessageFirst())
    print("\nthe view a turn would send after n compactions: built lines / lines, [P26] against [P5]'s order alone")
    for count in sorted(shown_first):
        (lines, built), (old_lines, old_built) = shown_first[count], by_last.get(count, (0, 0))
        print(f"  {count:>5,}: {built:,} / {lines:,} ({built * 100 // lines} %) against "
              f"{old_built:,} / {old_lines:,} ({old_built * 100 // max(old_lines, 1)} %)")
    assert sorted(shown_first) == sorted(by_last)  # the same number of compactions in all
    end = max(shown_first)
    assert shown_first[end][0] == shown_first[end][1] and by_last[end][0] == by_last[end][1]
    for count in COUNTS:
        (lines, built), (old_lines, old_built) = shown_first[count], by_last[count]
        assert built * old_lines >= old_built * lines, count
    for count in AHEAD_AT:
        (lines, built), (old_lines, old_built) = shown_first[count], by_last[count]
        assert built * old_lines > old_built * lines, count
