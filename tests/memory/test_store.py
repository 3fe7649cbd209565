"""Strategy: drive harness/memory/store.py through its public calls in a temporary home, and read what it
wrote with plain file reads. Expected lines are written out by hand from the format in the gist
[gist §1] and the store's docstring, never produced by the store's own encoder. Clocks are injected
(`now=`), so day splits are exact. Crashes are simulated at the one step that matters (between the
temporary view.json and its rename; an fsync that fails) or made real with a subprocess and SIGKILL
(the owner lock). The kill-at-any-instant run is tests/memory/test_store_crash.py. At the store's
edges [S13]: an id lost to a cut day file, then the index lost too (only the damage record still
says it was given), and a torn tail of every length from 1 byte on a file that held nothing else.
"""

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.memory import store as store_module
from harness.memory.logfile import LogFile
from harness.memory.store import ChatBusy, LogCorrupt, Store, StoreError, message_id, node_ids
from harness.memory.text import valid_text
from tests.support.disk import Fail, FailingDisk, RecordingDisk

PLUS_TWO = timezone(timedelta(hours=2))


def clock(day: int, hour: int, minute: int = 0, second: int = 0, zone=PLUS_TWO) -> datetime:
    return datetime(2026, 10, day, hour, minute, second, tzinfo=zone)


def message_line(i: int, kind: str, text_json: str, size: int, date: str) -> bytes:
    """A message line as the format says, written out field by field (text already JSON-escaped)."""
    return f'{{"i":{i},"kind":"{kind}","text":"{text_json}","size":{size},"date":"{date}"}}\n'.encode()


def node_line(l: int, i: int, text_json: str, size: int, T: int) -> bytes:
    return f'{{"l":{l},"i":{i},"text":"{text_json}","size":{size},"T":{T}}}\n'.encode()


@pytest.fixture
def home(tmp_path) -> Path:
    return tmp_path / "ever"


def main_file(home: Path, day: str) -> Path:
    return home / "chat" / "main" / f"{day}.jsonl"


def tree_file(home: Path, day: str) -> Path:
    return home / "chat" / "tree" / f"{day}.jsonl"


def fill(home: Path, messages: int, day: int = 8) -> None:
    """`messages` messages "m0", "m1", ... on one day, each with its level-0 node, and the level-1
    node of each pair."""
    with Store.open(home) as store:
        for i in range(messages):
            store.append_message("user", f"m{i}", now=clock(day, 10))
            store.append_node(0, i, f"n0.{i}", i + 1, now=clock(day, 10))
            if i % 2:
                store.append_node(1, i // 2, f"n1.{i // 2}", i + 1, now=clock(day, 10))


# ---- formats ----


def test_a_message_line_is_the_gists_fields_byte_for_byte(home):
    with Store.open(home) as store:
        record = store.append_message("user", "Hi, Ever — ça va?\nline two", now=clock(8, 9, 30))
        store.append_message("ever", 'He said "yes" \\ ok', now=clock(8, 9, 30, 59).replace(microsecond=999_999))
    # "Hi, Ever " 9 bytes, "—" 3, " " 1, "ç" 2, "a va?" 5, newline 1, "line two" 8: 29 bytes;
    # He said "yes" \ ok: 2 + 1 + 4 + 1 + 5 + 1 + 1 + 1 + 2 = 18 bytes
    assert record == {
        "i": 0,
        "kind": "user",
        "text": "Hi, Ever — ça va?\nline two",
        "size": 29,
        "date": "2026-10-08T09:30:00+02:00",
    }
    expected = (
        '{"i":0,"kind":"user","text":"Hi, Ever — ça va?\\nline two","size":29,"date":"2026-10-08T09:30:00+02:00"}\n'
        '{"i":1,"kind":"ever","text":"He said \\"yes\\" \\\\ ok","size":18,"date":"2026-10-08T09:30:59+02:00"}\n'
    ).encode()
    assert main_file(home, "2026-10-08").read_bytes() == expected


def test_a_node_line_is_the_gists_fields_and_T_byte_for_byte(home):
    with Store.open(home) as store:
        store.append_message("user", "a", now=clock(8, 9))
        store.append_message("user", "b", now=clock(8, 9))
        store.append_node(0, 1, "user: b", 2, now=clock(8, 9))
        record = store.append_node(1, 0, "user: a\nuser: b", 2, now=clock(8, 9))
    assert record == {"l": 1, "i": 0, "text": "user: a\nuser: b", "size": 15, "T": 2}
    assert tree_file(home, "2026-10-08").read_bytes() == (
        b'{"l":0,"i":1,"text":"user: b","size":7,"T":2}\n'
        b'{"l":1,"i":0,"text":"user: a\\nuser: b","size":15,"T":2}\n'
    )


def test_lone_surrogates_are_replaced_once_at_append(home):
    with Store.open(home) as store:
        record = store.append_message("echo", "a\ud800b\udc00", now=clock(8, 9))
        store.append_node(0, 0, "x\udfffy", 1, now=clock(8, 9))
        assert record["text"] == "a\ufffdb\ufffd"
        assert record["size"] == 8  # a, b and two 3-byte U+FFFD
        assert store.node(0, 0) == "x\ufffdy"
    raw = main_file(home, "2026-10-08").read_bytes()
    assert raw == message_line(0, "echo", "a\ufffdb\ufffd", 8, "2026-10-08T09:00:00+02:00")
    with Store.open(home) as store:
        assert store.message(0)["text"] == "a\ufffdb\ufffd"


def test_bad_input_gets_a_clear_error_and_writes_nothing(home):
    with Store.open(home) as store:
        with pytest.raises(ValueError, match="kind must be one of user, ever, tool, echo, work, note; got 'unii'"):
            store.append_message("unii", "hi", now=clock(8, 9))
        with pytest.raises(ValueError, match="timezone-aware"):
            store.append_message("user", "hi", now=datetime(2026, 10, 8, 9))
        with pytest.raises(TypeError, match="text must be a str"):
            store.append_message("user", b"hi", now=clock(8, 9))
        store.append_message("user", "hi", now=clock(8, 9))
        with pytest.raises(ValueError, match=r"node \(1, 0\) covers messages 0 to 1"):
            store.append_node(1, 0, "too soon", 1, now=clock(8, 9))
        store.append_node(0, 0, "hi", 1, now=clock(8, 9))
        with pytest.raises(ValueError, match=r"node \(0, 0\) is already built"):
            store.append_node(0, 0, "again", 1, now=clock(8, 9))
        assert store.count == 1
    assert len(main_file(home, "2026-10-08").read_bytes().splitlines()) == 1
    assert len(tree_file(home, "2026-10-08").read_bytes().splitlines()) == 1


@settings(max_examples=150, deadline=None)
@given(i=st.integers(0, 10**12), l=st.integers(0, 62), text=st.text(), kind=st.sampled_from(store_module.KINDS))
def test_the_line_reader_reads_every_whole_line_and_no_torn_one(i, l, text, kind):
    """Lines made by the json module (not the store's encoder): a whole line gives its ids, and
    no strict prefix of it is taken for a line: each is a torn write."""
    text = valid_text(text)
    message = json.dumps(
        {"i": i, "kind": kind, "text": text, "size": 0, "date": "2026-10-08T09:30:00+02:00"},
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode()
    node = json.dumps(
        {"l": l, "i": i, "text": text, "size": 0, "T": i}, ensure_ascii=False, separators=(",", ":")
    ).encode()
    assert message_id(message) == i
    assert node_ids(node) == (l, i)
    for cut in range(len(message)):
        assert message_id(message[:cut]) is None
    for cut in range(len(node)):
        assert node_ids(node[:cut]) is None


# ---- days ----


def test_each_line_goes_to_the_file_of_its_local_day(home):
    with Store.open(home) as store:
        store.append_message("user", "late", now=clock(8, 23, 59, 59))
        store.append_message("user", "midnight", now=clock(9, 0, 0, 0))
        store.append_message("user", "next week", now=clock(15, 12))
        store.append_node(0, 0, "late", 1, now=clock(8, 23, 59, 59))
        store.append_node(0, 1, "midnight", 2, now=clock(9, 0))
    assert main_file(home, "2026-10-08").read_bytes() == message_line(0, "user", "late", 4, "2026-10-08T23:59:59+02:00")
    assert main_file(home, "2026-10-09").read_bytes() == message_line(
        1, "user", "midnight", 8, "2026-10-09T00:00:00+02:00"
    )
    assert main_file(home, "2026-10-15").read_bytes() == message_line(
        2, "user", "next week", 9, "2026-10-15T12:00:00+02:00"
    )
    assert sorted(p.name for p in (home / "chat" / "tree").iterdir()) == ["2026-10-08.jsonl", "2026-10-09.jsonl"]


def test_a_clock_gone_back_keeps_writing_the_newest_file(home):
    # 23:30 on the 9th at +02:00, then the same day's 21:00 in UTC is the 9th; then a clock that
    # says the 8th: the line goes to the 9th's file, so the ids still ascend in file order.
    with Store.open(home) as store:
        store.append_message("user", "a", now=clock(9, 23, 30))
        store.append_message("user", "b", now=datetime(2026, 10, 8, 22, 0, 0, tzinfo=UTC))
    assert not main_file(home, "2026-10-08").exists()
    assert main_file(home, "2026-10-09").read_bytes() == message_line(
        0, "user", "a", 1, "2026-10-09T23:30:00+02:00"
    ) + message_line(1, "user", "b", 1, "2026-10-08T22:00:00+00:00")
    with Store.open(home) as store:
        assert [store.message(i)["text"] for i in range(2)] == ["a", "b"]


# ---- the home and its permissions ----


def test_the_chat_is_the_users_alone_whatever_the_umask(home):
    old = os.umask(0)
    try:
        with Store.open(home) as store:
            store.append_message("user", "secret", now=clock(8, 9))
            store.append_node(0, 0, "secret", 1, now=clock(8, 9))
            store.save_view({"T": 1})
            lock = home / "chat" / "lock"
            assert lock.stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(old)
    directories = [home, home / "chat", home / "chat" / "main", home / "chat" / "tree", home / "chat" / "index"]
    for directory in directories:
        assert directory.stat().st_mode & 0o777 == 0o700, directory
    files = [p for p in (home / "chat").rglob("*") if p.is_file()]
    assert {p.relative_to(home / "chat").parts[0] for p in files} == {"main", "tree", "index", "lock", "view.json"}
    for path in files:
        assert path.stat().st_mode & 0o777 == 0o600, path


def test_a_file_opened_to_others_is_closed_again_and_reported(home):
    fill(home, 2)
    path = main_file(home, "2026-10-08")
    path.chmod(0o644)
    with Store.open(home) as store:
        assert any(str(path) in warning and "it is now 600" in warning for warning in store.warnings)
    assert path.stat().st_mode & 0o777 == 0o600


def test_the_home_comes_from_EVER_HOME(home, monkeypatch):
    monkeypatch.setenv("EVER_HOME", str(home))
    with Store.open() as store:
        store.append_message("user", "hi", now=clock(8, 9))
        assert store.socket_path == home / "chat" / "socket"
    assert main_file(home, "2026-10-08").exists()


# ---- torn lines, gaps, repeats ----


def test_a_torn_last_line_is_reported_skipped_its_id_not_given_again_and_the_next_append_starts_a_new_line(home):
    fill(home, 2)
    path = main_file(home, "2026-10-08")
    whole = path.read_bytes()
    torn = b'{"i":2,"kind":"user","text":"half a mess'
    append_bytes(path, torn)
    with Store.open(home) as store:
        assert f"{path} line 3: not JSON (a torn write); skipped" in store.warnings
        assert store.count == 3  # [S13] id 2 was shown on the torn line: it is lost, not given again
        record = store.append_message("user", "m3", now=clock(8, 11))
        assert record["i"] == 3
    assert path.read_bytes() == whole + torn + b"\n" + message_line(3, "user", "m3", 2, "2026-10-08T11:00:00+02:00")
    assert json.loads((home / "chat" / "damage" / "record.jsonl").read_text())["lost"] == [2, 2]
    with Store.open(home) as store:
        assert f"{path} line 3: not JSON (a torn write); skipped" in store.warnings
        assert [store.message(i)["text"] for i in (0, 1, 3)] == ["m0", "m1", "m3"]
        assert store.message(2)["kind"] == "note" and "message 2 was lost" in store.message(2)["text"]


def test_a_writer_killed_twice_in_a_row_leaves_two_torn_lines_and_neither_id_is_given_again(home):
    # found by `make sim` (seed 2030): an `ever import` killed mid-write, the next open ended the
    # torn line and gave the next id, and that writer was killed mid-write too; the open after it
    # compared the second torn line's id with the whole lines' count alone and gave it again [S13]
    fill(home, 2)
    path = main_file(home, "2026-10-08")
    first = b'{"i":2,"kind":"user","text":"half a mess'
    append_bytes(path, first)
    with Store.open(home) as store:
        assert store.count == 3  # id 2 lost
    second = b'{"i":3,"kind":"user","text":"half of the next'
    append_bytes(path, second)
    shutil.rmtree(home / "chat" / "index")  # its writer was killed too: no index saved past the first
    whole = path.read_bytes()
    with Store.open(home) as store:
        assert f"{path} line 4: not JSON (a torn write); skipped" in store.warnings
        assert store.count == 4  # id 3 was shown on the second torn line: lost as well
        assert store.append_message("user", "m4", now=clock(8, 11))["i"] == 4
    assert path.read_bytes() == whole + b"\n" + message_line(4, "user", "m4", 2, "2026-10-08T11:00:00+02:00")
    lost = [json.loads(line)["lost"] for line in (home / "chat" / "damage" / "record.jsonl").read_text().splitlines()]
    assert lost == [[2, 2], [2, 3]]  # from the whole lines on, as the index was rebuilt


def test_a_torn_node_line_is_reported_and_its_node_can_be_built(home):
    fill(home, 3)
    path = tree_file(home, "2026-10-08")
    lines = path.read_bytes().count(b"\n")
    append_bytes(path, b'{"l":1,"i":1,"te')
    with Store.open(home) as store:
        assert f"{path} line {lines + 1}: not JSON (a torn write); skipped" in store.warnings
        assert store.node(1, 1) is None
        store.append_message("user", "m3", now=clock(8, 11))
        store.append_node(1, 1, "rebuilt", 4, now=clock(8, 11))
    with Store.open(home) as store:
        assert store.node(1, 1) == "rebuilt"


def append_bytes(path: Path, data: bytes) -> None:
    """What another writer would add: bytes at a file's end, in a file of the store's mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def write_lines(path: Path, ids) -> None:
    append_bytes(path, b"".join(message_line(i, "user", f"m{i}", len(f"m{i}"), "2026-10-08T10:00:00+02:00") for i in ids))


def test_a_gap_in_message_ids_is_refused_naming_file_and_line(home):
    path = main_file(home, "2026-10-08")
    write_lines(path, [0, 1, 3])
    with pytest.raises(LogCorrupt) as refused:
        Store.open(home)
    assert str(refused.value) == (
        f"{path} line 3 has message id 3 where 2 comes next: a gap; "
        "the chat is not opened, so that no message is lost or renumbered: `ever doctor` says what is "
        "damaged, and `ever doctor --repair` sets it aside"
    )
    # refused without taking the chat: the next open is refused for the same reason, not as busy
    with pytest.raises(LogCorrupt):
        Store.open(home)


def test_a_gap_the_damage_record_names_is_accepted_and_a_line_it_sets_aside_is_skipped_silently(home):
    path = main_file(home, "2026-10-08")
    write_lines(path, [0, 1])
    garbled = b'{"i":2,"kind":"us\x00er","text":"m2"}\n'
    append_bytes(path, garbled)
    write_lines(path, [3])
    with pytest.raises(LogCorrupt, match="a gap after the damaged main/2026-10-08.jsonl line 3"):
        Store.open(home)
    at = path.read_bytes().index(garbled)
    append_bytes(home / "chat" / "damage" / "record.jsonl",
                 json.dumps({"set_aside": "main/2026-10-08.jsonl", "line": 3, "at": at, "bytes": len(garbled) - 1}
                            ).encode() + b"\n" + b'{"lost":[2,2]}\n')
    with Store.open(home) as store:
        assert store.warnings == ["the index was rebuilt from the logs: it was missing"]
        assert store.damage == []
        assert [store.message(i)["text"] for i in (0, 1, 3)] == ["m0", "m1", "m3"]
        assert store.message(2)["kind"] == "note" and "message 2 was lost" in store.message(2)["text"]
        assert store.append_message("user", "m4", now=clock(8, 11))["i"] == 4


def test_a_day_file_cut_at_a_lines_end_leaves_its_ids_given_by_the_saved_index(home):
    fill(home, 4)
    path = main_file(home, "2026-10-08")
    data = path.read_bytes()
    os.truncate(path, data.rstrip(b"\n").rfind(b"\n") + 1)  # message 3 gone whole
    with Store.open(home) as store:
        assert store.count == 4 and len(store.damage) == 1
        for part in ("message 3 was lost", "main/2026-10-08.jsonl", "the next message is 4", "`ever doctor --repair`"):
            assert part in store.damage[0]
        assert store.append_message("user", "m4", now=clock(8, 11))["i"] == 4
    with Store.open(home) as store:  # the gap is recorded: the next open takes it without a word
        assert store.count == 5 and store.damage == []


def test_a_repeated_message_id_is_refused_naming_file_and_line(home):
    write_lines(main_file(home, "2026-10-08"), [0, 1])
    path = main_file(home, "2026-10-09")
    write_lines(path, [2, 3, 2])
    with pytest.raises(LogCorrupt, match=rf"^{path} line 3 has message id 2 again, where 4 comes next: a repeat;"):
        Store.open(home)


def test_a_repeat_past_the_index_is_refused_too(home):
    fill(home, 3)
    path = main_file(home, "2026-10-08")
    lines = path.read_bytes().count(b"\n")
    write_lines(path, [1])
    with pytest.raises(LogCorrupt, match=rf"^{path} line {lines + 1} has message id 1 again"):
        Store.open(home)


def test_a_node_logged_twice_keeps_the_first_and_reports_the_second(home):
    fill(home, 2)
    path = tree_file(home, "2026-10-08")
    # fill wrote (0,0), (0,1), (1,0): lines 1-3
    append_bytes(path, node_line(0, 1, "second", 6, 2))
    with Store.open(home) as store:
        assert store.node(0, 1) == "n0.1"
        assert f"{path} line 4: node (0, 1) again, first logged at tree/2026-10-08.jsonl line 2; the first is kept; skipped" in store.warnings
    with Store.open(home) as store:
        assert store.node(0, 1) == "n0.1"
        assert any("node (0, 1) again" in warning for warning in store.warnings)


def test_the_nodes_after_a_checkpoint_are_read_in_log_order_across_days(home):
    fill(home, 3)  # day 8: (0,0) (0,1) (1,0) (0,2)
    with Store.open(home) as store:
        store.append_message("user", "m3", now=clock(9, 10))
        store.append_node(0, 3, "n0.3", 4, now=clock(9, 10))
        store.append_node(1, 1, "n1.1", 4, now=clock(9, 10))
        assert store.last_node() == (1, 1)
    day_9 = tree_file(home, "2026-10-09")
    append_bytes(day_9, node_line(0, 3, "again", 5, 4))  # a repeat: not a node
    append_bytes(day_9, b'{"l":2,"i":0,"te')  # torn: not a node
    with Store.open(home) as store:
        assert store.last_node() == (1, 1)
        assert store.nodes_after((1, 0)) == [(0, 2, "n0.2", 3), (0, 3, "n0.3", 4), (1, 1, "n1.1", 4)]
        assert store.nodes_after((0, 2)) == [(0, 3, "n0.3", 4), (1, 1, "n1.1", 4)]
        assert store.nodes_after((1, 1)) == []
        assert [node[:2] for node in store.nodes_after(None)] == [(0, 0), (0, 1), (1, 0), (0, 2), (0, 3), (1, 1)]
        with pytest.raises(StoreError, match=r"view.json names node \(2, 0\) as the last logged, but the tree has no such node"):
            store.nodes_after((2, 0))


def test_each_line_is_one_write_fsynced_before_the_append_returns(home):
    disk = RecordingDisk()  # the disk the store is given sees every write and fsync
    store = Store.open(home, disk=disk)
    calls = disk.operations
    try:
        for k in range(3):
            store.append_message("user", f"m{k}", now=clock(8, 10))
            store.append_node(0, k, f"n{k}", k + 1, now=clock(8, 10))
            appended = [call for call in calls if call[0] == "write" and call[2].endswith(b"}\n")]
            # this call's two lines, each written whole by one write and fsync'd on its descriptor
            # before the next line is written and before the call returned
            assert len(appended) == 2 * (k + 1)
            for line in appended[-2:]:
                at = calls.index(line)
                assert ("fsync", line[1]) in calls[at + 1:]
                following = [call for call in calls[at + 1:] if call[0] == "write" and call[2].endswith(b"}\n")]
                if following:
                    assert calls.index(("fsync", line[1]), at) < calls.index(following[0])
    finally:
        store.close()


def test_a_failed_append_leaves_no_part_of_its_line_and_the_next_append_tries_again(home):
    fill(home, 1)
    disk = FailingDisk(Fail("fsync", errno.EIO, on=".jsonl"))  # the disk fails the line's fsync
    store = Store.open(home, disk=disk)
    size = sum(path.stat().st_size for path in (home / "chat" / "main").glob("*.jsonl"))
    disk.arm()
    with pytest.raises(StoreError, match="nothing of it was logged, and the next one tries again") as failed:
        store.append_message("user", "written, not acknowledged", now=clock(8, 11))
    assert disk.failures == 1
    assert "\n" not in str(failed.value) and "Input/output error" in str(failed.value)
    # [S5] the unacknowledged bytes are cut off: the file ends at its last whole line
    assert sum(path.stat().st_size for path in (home / "chat" / "main").glob("*.jsonl")) == size
    assert store.append_message("user", "next", now=clock(8, 11))["i"] == 1
    store.close()
    with Store.open(home) as store:
        assert store.count == 2 and store.message(1)["text"] == "next"
        assert not [w for w in store.warnings if "torn" in w or "newline" in w]


# ---- view.json ----


def test_the_view_is_saved_whole_and_loaded_back(home):
    with Store.open(home) as store:
        assert store.load_view() is None
        store.save_view({"T": 10, "view": [[2, 0], [1, 2], [0, 8], [0, 9]], "shrinking": False})
    with Store.open(home) as store:
        assert store.load_view() == {"T": 10, "view": [[2, 0], [1, 2], [0, 8], [0, 9]], "shrinking": False}
    assert (home / "chat" / "view.json").read_bytes() == b'{"T":10,"view":[[2,0],[1,2],[0,8],[0,9]],"shrinking":false}'


def test_a_crash_between_the_temporary_view_and_its_rename_leaves_the_old_view(home):
    class Crash(BaseException):
        pass

    class CrashAtRename(RecordingDisk):
        crash = False

        def replace(self, source, target):
            if self.crash:
                raise Crash()
            super().replace(source, target)

    disk = CrashAtRename()
    store = Store.open(home, disk=disk)
    store.save_view({"T": 1, "view": [[0, 0]]})
    disk.crash = True
    with pytest.raises(Crash):
        store.save_view({"T": 2, "view": [[1, 0]]})
    disk.crash = False
    temporary = home / "chat" / "view.json.tmp"
    assert json.loads(temporary.read_bytes()) == {"T": 2, "view": [[1, 0]]}  # the crash came after it
    assert store.load_view() == {"T": 1, "view": [[0, 0]]}
    store.close()
    with Store.open(home) as store:
        assert store.load_view() == {"T": 1, "view": [[0, 0]]}
        assert not temporary.exists()


def test_a_view_json_damaged_outside_the_store_is_a_clear_error(home):
    with Store.open(home) as store:
        (home / "chat" / "view.json").write_bytes(b'{"T": 1, "vie')
        with pytest.raises(StoreError, match="view.json is not valid JSON"):
            store.load_view()
        with pytest.raises(TypeError, match="the view must be a dict"):
            store.save_view([[0, 0]])


# ---- one owner ----

OWNER = textwrap.dedent(
    """
    import sys, time
    from harness.memory.store import Store
    store = Store.open(sys.argv[1])
    print("owned", flush=True)
    time.sleep(60)
    """
)


def start_owner(home: Path) -> subprocess.Popen:
    owner = subprocess.Popen([sys.executable, "-c", OWNER, str(home)], stdout=subprocess.PIPE, text=True)
    assert owner.stdout.readline() == "owned\n"
    return owner


def test_a_second_owner_is_refused_in_one_sentence_naming_the_owners_pid(home):
    owner = start_owner(home)
    try:
        with pytest.raises(ChatBusy) as refused:
            Store.open(home)
        message = str(refused.value)
        assert message == (
            f"The chat in {home / 'chat'} is in use by process {owner.pid}, and one chat has one owner."
        )
    finally:
        owner.kill()
        owner.wait()


def test_a_lock_left_by_a_killed_owner_is_taken_over(home):
    owner = start_owner(home)
    owner.send_signal(signal.SIGKILL)
    owner.wait()
    with Store.open(home) as store:
        assert f"process {owner.pid} ended without closing the chat; process {os.getpid()} took it over" in store.warnings
        assert (home / "chat" / "lock").read_text() == f"{os.getpid()}\n"
    # a clean close leaves no pid behind, so the next open reports nothing
    with Store.open(home) as store:
        assert not any("ended without closing" in warning for warning in store.warnings)


def test_the_same_process_cannot_own_the_chat_twice(home):
    with Store.open(home):
        with pytest.raises(ChatBusy, match=f"in use by process {os.getpid()}"):
            Store.open(home)


# ---- the index ----


def expected_nodes(messages: int):
    nodes = {(0, i): f"n0.{i}" for i in range(messages)}
    nodes.update({(1, i): f"n1.{i}" for i in range(messages // 2)})
    return nodes


def assert_lookups(store: Store, messages: int) -> None:
    assert store.count == messages
    assert [store.message(i)["text"] for i in range(messages)] == [f"m{i}" for i in range(messages)]
    for (l, i), text in expected_nodes(messages).items():
        assert store.node(l, i) == text
    assert store.node(1, messages // 2) is None
    assert store.node(5, 0) is None


def index_file(home: Path) -> Path:
    (path,) = (home / "chat" / "index").glob("index-*.bin")
    return path


def test_lookups_after_reopen_across_days(home):
    with Store.open(home) as store:
        for i in range(12):
            store.append_message(("user", "ever", "tool")[i % 3], f"m{i}", now=clock(8 + i // 4, 10, i))
            store.append_node(0, i, f"n0.{i}", i + 1, now=clock(8 + i // 4, 10, i))
            if i % 2:
                store.append_node(1, i // 2, f"n1.{i // 2}", i + 1, now=clock(8 + i // 4, 10, i))
    with Store.open(home) as store:
        assert store.warnings == []
        assert_lookups(store, 12)
        assert store.message(5) == {"i": 5, "kind": "tool", "text": "m5", "size": 2, "date": "2026-10-09T10:05:00+02:00"}
        assert [r["i"] for r in store.messages(3, 9)] == [3, 4, 5, 6, 7, 8]
        assert [r["i"] for r in store.messages(10, 99)] == [10, 11]
        with pytest.raises(IndexError, match="no message 12: the chat has 12"):
            store.message(12)


def test_a_deleted_index_is_rebuilt_with_a_warning(home):
    fill(home, 9)
    for path in (home / "chat" / "index").iterdir():
        path.unlink()
    with Store.open(home) as store:
        assert store.warnings == ["the index was rebuilt from the logs: it was missing"]
        assert_lookups(store, 9)
    with Store.open(home) as store:
        assert store.warnings == []


def test_a_truncated_index_is_rebuilt_with_a_warning(home):
    fill(home, 9)
    path = index_file(home)
    os.truncate(path, path.stat().st_size // 2)
    with Store.open(home) as store:
        assert store.warnings == [f"the index was rebuilt from the logs: its {path.name} was cut short"]
        assert_lookups(store, 9)


def test_a_log_that_grew_behind_the_index_is_read_past_it(home):
    fill(home, 4)
    write_lines(main_file(home, "2026-10-08"), [4])
    write_lines(main_file(home, "2026-10-09"), [5])
    append_bytes(
        tree_file(home, "2026-10-09"),
        node_line(0, 4, "n0.4", 4, 5) + node_line(0, 5, "n0.5", 4, 6) + node_line(1, 2, "n1.2", 4, 6),
    )
    with Store.open(home) as store:
        assert store.warnings == []
        assert_lookups(store, 6)
        assert store.message(5)["date"] == "2026-10-08T10:00:00+02:00"


def test_a_log_shorter_than_the_index_rebuilds_it(home):
    fill(home, 4)
    path = tree_file(home, "2026-10-08")
    lines = path.read_bytes().splitlines(keepends=True)
    assert lines[-1] == node_line(1, 1, "n1.1", 4, 4)
    path.write_bytes(b"".join(lines[:-1]))
    with Store.open(home) as store:
        assert store.warnings == ["the index was rebuilt from the logs: tree/2026-10-08.jsonl is shorter than when it was indexed"]
        assert store.node(1, 1) is None
        assert store.node(1, 0) == "n1.0"


def test_an_index_entry_pointing_at_the_wrong_line_is_caught_at_lookup_and_rebuilt(home):
    fill(home, 5)
    path = index_file(home)
    data = bytearray(path.read_bytes())
    data[8:16], data[16:24] = data[16:24], data[8:16]  # messages 1 and 2 swap places
    path.write_bytes(bytes(data))
    with Store.open(home) as store:
        assert store.warnings == []  # the first and last message read back right
        assert store.message(2)["text"] == "m2"
        assert store.warnings == ["the index was rebuilt from the logs: the index pointed message 2 at another line"]
        assert_lookups(store, 5)


def test_an_index_from_another_chat_is_rebuilt(home, tmp_path):
    fill(home, 5)
    other = tmp_path / "other"
    # another day: the same messages on the same day would be this chat with its last line cut,
    # whose id is never given again [S13]
    fill(other, 6, day=9)
    for name in ("meta.json", index_file(other).name):
        (home / "chat" / "index" / name).write_bytes((other / "chat" / "index" / name).read_bytes())
    for old in (home / "chat" / "index").glob("index-*.bin"):
        if old.name != index_file(other).name:
            old.unlink()
    with Store.open(home) as store:
        assert len(store.warnings) == 1 and store.warnings[0].startswith("the index was rebuilt from the logs:")
        assert_lookups(store, 5)


def test_an_unreadable_or_foreign_meta_json_rebuilds_the_index(home):
    fill(home, 3)
    meta = home / "chat" / "index" / "meta.json"
    for damaged, reason in ((b'{"format": 1, "gen', "its meta.json was unreadable"), (b"[]", "its meta.json was not the index's")):
        meta.write_bytes(damaged)
        with Store.open(home) as store:
            assert store.warnings == [f"the index was rebuilt from the logs: {reason}"]
            assert_lookups(store, 3)


def test_a_stray_file_among_the_logs_is_reported_and_left_alone(home):
    fill(home, 2)
    stray = home / "chat" / "main" / "notes.txt"
    stray.write_text("mine")
    with Store.open(home) as store:
        assert store.warnings == [f"{stray} is not a day file of the log; ignored"]
        assert_lookups(store, 2)
    assert stray.read_text() == "mine"


# ---- the store's edges [S13]: a lost id after a lost index, a torn tail of every length ----


def test_an_id_lost_when_a_day_file_was_cut_is_not_given_again_when_the_index_is_lost_too(home):
    fill(home, 4)
    path = main_file(home, "2026-10-08")
    data = path.read_bytes()
    os.truncate(path, data.rstrip(b"\n").rfind(b"\n") + 1)  # message 3 gone whole
    with Store.open(home) as store:
        assert store.count == 4 and len(store.damage) == 1  # the saved index says 4 were given
    assert json.loads((home / "chat" / "damage" / "record.jsonl").read_text())["lost"] == [3, 3]
    shutil.rmtree(home / "chat" / "index")  # now only the damage record knows id 3 was given
    with Store.open(home) as store:
        assert store.count == 4
        assert store.append_message("user", "m4", now=clock(8, 11))["i"] == 4
    assert path.read_bytes().endswith(message_line(4, "user", "m4", 2, "2026-10-08T11:00:00+02:00"))


def test_two_losses_recorded_then_the_index_lost_give_the_next_id_past_both(home):
    fill(home, 6)
    path = main_file(home, "2026-10-08")
    for kept in (5, 3):  # cut message 5, open; cut message 3 and 4, open
        lines = path.read_bytes().split(b"\n")
        os.truncate(path, sum(len(line) + 1 for line in lines[:kept]))
        with Store.open(home):
            pass
    ranges = [json.loads(line)["lost"] for line in (home / "chat" / "damage" / "record.jsonl").read_text().splitlines()]
    assert ranges[0] == [5, 5]  # the second loss may name 5 again: the ids it covers are what counts
    assert {i for low, high in ranges for i in range(low, high + 1)} == {3, 4, 5}
    shutil.rmtree(home / "chat" / "index")
    with Store.open(home) as store:
        assert store.append_message("user", "m6", now=clock(8, 11))["i"] == 6


def test_a_node_over_an_id_lost_at_the_tail_is_indexed_when_the_logs_are_parsed_again(home):
    # seed 764: an `ever import` killed inside its last note's write left that line torn, its id
    # lost; the owner logged the placeholder's free node; an open that parsed the logs again
    # skipped the node as covering a message never logged, and its view showed a placeholder
    fill(home, 2)
    path = main_file(home, "2026-10-08")
    append_bytes(path, b'{"i":2,"kind":"note","text":"imported note 2: kept wo')
    with Store.open(home) as store:
        assert store.count == 3
        lost = store.message(2)["text"]
        store.append_node(0, 2, lost, 3, now=clock(8, 11))
    shutil.rmtree(home / "chat" / "index")  # the next open parses both logs whole
    with Store.open(home) as store:
        assert not [warning for warning in store.warnings if "covers messages past" in warning]
        assert store.node(0, 2) == lost
        assert store.append_message("user", "m3", now=clock(8, 12))["i"] == 3

TORN_LINE = b'{"i":0,"kind":"user","text":"first words","size":11,"date":"2026-10-08T10:00:00+02:00"}\n'


def test_a_torn_tail_of_every_length_on_an_empty_file_is_ended_and_the_next_line_stands_alone(tmp_path):
    nxt = b'{"i":1}\n'
    for size in range(1, len(TORN_LINE)):
        path = tmp_path / f"torn-{size}.jsonl"
        path.write_bytes(TORN_LINE[:size])  # a first write cut after `size` bytes, before its newline
        log = LogFile(path)
        try:
            assert log.torn, size
            log.append(nxt)
        finally:
            log.close()
        assert path.read_bytes() == TORN_LINE[:size] + b"\n" + nxt, size


def test_a_day_file_holding_only_a_torn_first_line_of_any_length_keeps_the_next_message(home):
    path = main_file(home, "2026-10-08")
    for size in range(1, len(TORN_LINE)):
        shutil.rmtree(home, ignore_errors=True)
        append_bytes(path, TORN_LINE[:size])
        with Store.open(home) as store:
            given = store.append_message("user", "next", now=clock(8, 11))["i"]
        with Store.open(home) as store:
            assert store.message(given)["text"] == "next", size
        # the torn bytes stay where they were, ended by a newline; the message is a line of its own
        assert path.read_bytes() == TORN_LINE[:size] + b"\n" + message_line(
            given, "user", "next", 4, "2026-10-08T11:00:00+02:00"), size
