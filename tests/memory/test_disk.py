"""Strategy: the memory is given a disk (harness/memory/disk.py) that notes or fails operations, as
a simulation's disk will, and a real sequence of the chat goes through it: messages accepted in the
inbox and logged, a long one summarized by the compactor into a built node, the view saved, the
index saved at close. Every file the chat leaves in its home is one the disk opened or renamed
into place, and each line is one write then an fsync of its file, before the next line.

Then the disk fails: the Nth write with ENOSPC (taking half the line first, as a filling disk
does), the line's fsync with EIO and the cut that takes it back, the inbox's write, the index's
save. Expected values are harness/memory/logfile.py's and the store's documented rules [S5] [S7]
[S9]: a failed line leaves no byte (the file ends at its last whole line), the error is one
sentence and the next append tries again; while a failed line's bytes cannot be cut, appends are
refused; a message the inbox could not write is not accepted; an index that cannot be saved is a
warning, the logs whole.
"""

import asyncio
import errno
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from harness.memory.accepted import Accepted
from harness.memory.service import Job, JobResult, Memory
from harness.memory.store import Store, StoreError
from tests.support.disk import Fail, FailingDisk, RecordingDisk, files_under

NOW = datetime(2026, 10, 8, 9, 30, tzinfo=timezone(timedelta(hours=2)))
DAY = "2026-10-08.jsonl"
LONG = "x" * 600  # over a line's 512 bytes: the compactor summarizes it


async def answer(job: Job) -> JobResult:
    return JobResult(f"{job.kind}: {len(job.text)} chars")


def lines_written(disk: RecordingDisk, path: Path) -> list[bytes]:
    return [operation[2] for operation in disk.operations if operation[0] == "write" and operation[1] == str(path)]


def each_line_fsynced_before_the_next(disk: RecordingDisk, path: Path) -> bool:
    """Every write to `path` is followed by an fsync of `path` before its next write."""
    pending = False
    for operation in disk.operations:
        if operation[1:2] != (str(path),):
            continue
        if operation[0] == "write":
            if pending:
                return False
            pending = True
        elif operation[0] == "fsync":
            pending = False
    return not pending


def test_a_chats_messages_inbox_node_view_and_index_all_go_through_the_disk_it_was_given(tmp_path):
    disk = RecordingDisk()
    chat = tmp_path / "chat"

    async def run():
        memory = Memory.open(tmp_path, build=answer, disk=disk)
        try:
            accepted = Accepted("hello", "k1", "send")
            memory.inbox.accept(accepted)
            memory.append_accepted(accepted, NOW)
            memory.append("tool", LONG, NOW)
            memory.inbox.done("k1")
            await memory.idle()
        finally:
            memory.close()

    asyncio.run(run())
    inbox = lines_written(disk, chat / "inbox.jsonl")
    assert [json.loads(line) for line in inbox] == [{"key": "k1", "text": "hello"}, {"done": "k1"}]
    main = [json.loads(line) for line in lines_written(disk, chat / "main" / DAY)]
    assert [(m["i"], m["kind"], m["text"]) for m in main] == [(0, "user", "hello"), (1, "tool", LONG)]
    assert main[0]["key"] == "k1"  # [S8] the key ends the accepted message's line
    # a node's day file is the day it was built on: the compactor's clock
    tree_files = [Path(path) for path in disk.names("write") if path.startswith(str(chat / "tree"))]
    tree = [json.loads(line) for path in tree_files for line in lines_written(disk, path)]
    assert {"l": 0, "i": 1, "text": "tool: 600 chars", "size": 15, "T": 2} in tree
    for path in (chat / "inbox.jsonl", chat / "main" / DAY, *tree_files):
        assert each_line_fsynced_before_the_next(disk, path)
        assert all(line.endswith(b"\n") for line in lines_written(disk, path))
    # files replaced whole: written beside, fsync'd, renamed over the old
    for name in ("view.json", "index/meta.json"):
        temporary = str(chat / (name + ".tmp"))
        assert ("replace", temporary, str(chat / name)) in disk.operations
        assert disk.operations.index(("fsync", temporary)) < disk.operations.index(("replace", temporary,
                                                                                      str(chat / name)))
    # nothing of the chat reached the machine's disk but through the one it was given
    assert files_under(tmp_path) <= set(disk.names("open", "replace"))
    assert str(chat / "lock") in files_under(tmp_path)  # the lock too: taken on the disk's descriptor


def test_a_write_the_disk_fills_halfway_leaves_the_file_at_its_last_whole_line_and_the_next_tries_again(tmp_path):
    disk = FailingDisk(Fail("write", errno.ENOSPC, on=DAY, nth=2, half=True))
    day_file = tmp_path / "chat" / "main" / DAY
    with Store.open(tmp_path, disk=disk) as store:
        disk.arm()
        store.append_message("user", "first", now=NOW)
        before = day_file.read_bytes()
        with pytest.raises(StoreError) as failed:
            store.append_message("user", "second, half written", now=NOW)
        assert disk.failures == 1
        assert str(failed.value) == (f"the line could not be written to {day_file} (No space left on device); "
                                     "nothing of it was logged, and the next one tries again")
        assert day_file.read_bytes() == before  # [S5] no byte of the unacknowledged line stays
        assert store.append_message("user", "third", now=NOW)["i"] == 1
    with Store.open(tmp_path) as store:
        assert [store.message(i)["text"] for i in range(store.count)] == ["first", "third"]
        assert not [w for w in store.warnings if "skipped" in w or "newline" in w]


def test_while_a_failed_lines_bytes_cannot_be_cut_appends_are_refused_and_each_retries_the_cut(tmp_path):
    # the line's fsync fails, then the first two cuts that would take its bytes back
    disk = FailingDisk(Fail("fsync", errno.EIO, on=DAY), Fail("ftruncate", errno.EIO, on=DAY, times=2))
    day_file = tmp_path / "chat" / "main" / DAY
    with Store.open(tmp_path, disk=disk) as store:
        store.append_message("user", "first", now=NOW)
        before = day_file.read_bytes()
        disk.arm()
        with pytest.raises(StoreError, match="nothing of it was logged, and the next one tries again"):
            store.append_message("user", "written, never cut back", now=NOW)  # its cut fails: the 1st
        assert not store.writable
        with pytest.raises(StoreError) as refused:
            store.append_message("user", "refused", now=NOW)  # it retries the cut, which fails: the 2nd
        assert str(refused.value) == (f"an earlier append failed and {day_file} could not be cut back to its "
                                      "last whole line (Input/output error); nothing was logged: try again")
        assert disk.failures == 3
        assert store.append_message("user", "after the cut", now=NOW)["i"] == 1  # the 3rd cut succeeds
        assert day_file.read_bytes().startswith(before) and store.writable
    with Store.open(tmp_path) as store:
        assert [store.message(i)["text"] for i in range(store.count)] == ["first", "after the cut"]
        assert not [w for w in store.warnings if "skipped" in w or "newline" in w]


def test_a_message_the_inbox_could_not_write_is_not_accepted(tmp_path):
    disk = FailingDisk(Fail("write", errno.ENOSPC, on="inbox.jsonl"))
    memory = Memory.open(tmp_path, disk=disk)
    try:
        memory.inbox.accept(Accepted("kept", "k1", "send"))
        disk.arm()
        with pytest.raises(OSError, match="No space left on device"):
            memory.inbox.accept(Accepted("never accepted", "k2", "send"))
        assert memory.inbox.pending() == [("k1", "kept")]
    finally:
        memory.close()
    memory = Memory.open(tmp_path)
    try:
        assert memory.inbox.pending() == [("k1", "kept")]  # [S9] what the inbox promised, and only that
    finally:
        memory.close()


@pytest.mark.parametrize("operation", ["write", "fsync"])
def test_an_index_the_disk_cannot_save_is_a_warning_and_the_logs_stay_whole(tmp_path, operation):
    disk = FailingDisk(Fail(operation, errno.ENOSPC if operation == "write" else errno.EIO, on=".bin"))
    store = Store.open(tmp_path, disk=disk)
    store.append_message("user", "logged", now=NOW)
    disk.arm()
    store.close()  # the index is saved at close [S7]
    assert disk.failures == 1
    why = "No space left on device" if operation == "write" else "Input/output error"
    assert f"the index was not saved ({why}); the logs are whole" in store.warnings
    with Store.open(tmp_path) as store:
        assert store.count == 1 and store.message(0)["text"] == "logged"
