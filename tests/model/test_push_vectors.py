"""Strategy: golden values come from the gist. Its table of the first ten pushes [gist §3.1] is
copied here as text; the test reads it by the gist's rule (each state starts a line up to the next
newer state, the newest up to now) and compares push's list and the printed conformance vectors."""

import subprocess
import sys

from model.push import States, push

GIST_TABLE = """
t=0  -0            t=5  +4, +0
t=1  +0            t=6  -6, -4, -0
t=2  -2, -0        t=7  +6, -4, -0
t=3  +2, -0        t=8  -8, +4, -0
t=4  -4, +0        t=9  +8, +4, -0
"""


def gist_lists() -> dict[int, list[tuple[int, int]]]:
    """t -> [(keep, state), ...] newest first, as the gist prints it."""
    lists = {}
    for row in GIST_TABLE.strip().splitlines():
        for cell in row.split("t=")[1:]:
            t, entries = cell.split(maxsplit=1)
            lists[int(t)] = [(1 if e.strip()[0] == "+" else 0, int(e.strip()[1:]))
                             for e in entries.split(",") if e.strip()]
    return lists


def newest_first(states: States | None) -> list[tuple[int, int]]:
    entries = []
    while states is not None:
        entries.append((states.keep, states.state))
        states = states.older
    return entries


def as_view(entries: list[tuple[int, int]], T: int) -> str:
    starts = [state for _, state in reversed(entries)]
    ends = starts[1:] + [T]
    return " ".join(f"{start}+{end - start}" for start, end in zip(starts, ends))


def test_push_makes_the_gists_first_ten_lists():
    lists = gist_lists()
    assert sorted(lists) == list(range(10))
    states = None
    for t in range(10):
        states = push(t, states)
        assert newest_first(states) == lists[t]


def test_push_prints_the_gists_views_and_t9_reads_0_4_4_4_8_2():
    printed = subprocess.run([sys.executable, "-m", "model", "push", "9"], check=True,
                             capture_output=True, text=True).stdout.splitlines()
    lists = gist_lists()
    assert printed == [f"{t}\t{as_view(lists[t], t + 1)}" for t in range(10)]
    assert printed[9] == "9\t0+4 4+4 8+2"


def test_fold_from_last_prints_pushs_views_and_from_first_leaves_them_at_t9():
    push_lines = subprocess.run([sys.executable, "-m", "model", "push", "300"], check=True,
                                capture_output=True, text=True).stdout
    last_lines = subprocess.run([sys.executable, "-m", "model", "fold", "300", "--due", "last"],
                                check=True, capture_output=True, text=True).stdout
    first_lines = subprocess.run([sys.executable, "-m", "model", "fold", "300", "--due", "first"],
                                 check=True, capture_output=True, text=True).stdout
    assert last_lines == push_lines
    # [gist §3.2] at T = 10 first merges 0-7 where push merges 8-9 (t = 9 after the push of 9)
    assert first_lines.splitlines()[9] == "9\t0+8 8+1 9+1"


def test_a_negative_count_is_a_clear_error():
    done = subprocess.run([sys.executable, "-m", "model", "push", "-1"], capture_output=True, text=True)
    assert done.returncode == 2
    assert "N must be at least 0" in done.stderr
