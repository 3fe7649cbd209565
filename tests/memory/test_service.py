"""Strategy: the memory service on a real store in a temporary EVER_HOME, with a compactor that
answers at once from the job (no API): every expected view is either computed by hand from the
sizes, or is the view of a live service that never restarted (a restart must give exactly it).
"""

import asyncio
import json
import os
from datetime import UTC, datetime, timedelta

import pytest

from harness.memory.planner import Config
from harness.memory.service import Job, JobResult, Memory

LONG = "x" * 600  # "user: " + 600 bytes: over 512, so it needs a compaction
# a day for the messages whose placeholder is read: it says their kind, ids and day [P22]
MAY_4 = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)


def summary(job: Job) -> str:
    """A compactor stand-in: the line names what it summarizes."""
    if job.l == 0:
        return f"{job.kind}: {len(job.text)} chars"
    return f"merged {job.name}"


async def answer(job: Job) -> JobResult:
    return JobResult(summary(job))


def run(coroutine):
    return asyncio.run(coroutine)


def test_a_long_message_is_summarized_and_the_view_is_saved_at_close(tmp_path):
    async def chat():
        memory = Memory.open(tmp_path, build=answer)
        try:
            memory.append("user", "hi")
            memory.append("tool", LONG, now=MAY_4)
            assert memory.render() == ("<chat>\n0+1|user: hi\n"
                                       "1+1|tool message 1, 2026-05-04, not summarized yet: search or zoom it\n</chat>")
            await memory.idle()
            assert memory.render() == "<chat>\n0+1|user: hi\n1+1|tool: 600 chars\n</chat>"
            # [P10] a checkpoint is written at open, then every SAVE_LINES lines
            saved = json.loads((tmp_path / "chat" / "view.json").read_text())
            assert saved["T"] == 0 and saved["view"] == [] and saved["last_node"] is None
        finally:
            memory.close()
    run(chat())
    saved = json.loads((tmp_path / "chat" / "view.json").read_text())
    # logged last: node 0+2, free once 1+1 was built ("user: hi\ntool: 600 chars" fits a line)
    assert saved["T"] == 2 and saved["view"] == [[0, 0], [0, 1]] and saved["last_node"] == [1, 0]


def test_a_checkpoint_is_written_every_128_lines_and_when_a_failure_is_counted(tmp_path):
    path = tmp_path / "chat" / "view.json"
    memory = Memory.open(tmp_path)  # no compactor: each message is one line, and no node
    try:
        for k in range(127):
            memory.append("tool", LONG)
        assert json.loads(path.read_text())["T"] == 0
        memory.append("tool", LONG)
        assert json.loads(path.read_text())["T"] == 128
    finally:
        memory.close()

    replies = iter(["", "tool: read at last"])

    async def flaky(job: Job) -> JobResult:
        text = next(replies)
        return JobResult(text, "" if text else "an empty reply")

    async def chat():
        memory = Memory.open(tmp_path / "failing", Config(jobs_max=1), build=flaky)
        path = tmp_path / "failing" / "chat" / "view.json"
        try:
            memory.append("tool", LONG)
            await memory.idle()
            saved = json.loads(path.read_text())
            assert (saved["T"], saved["failures"]) == (1, [[0, 0, 1]])
            memory.append("user", "again")  # the failed line is tried again at a message
            await memory.idle()
            assert json.loads(path.read_text())["failures"] == []  # built: its count is gone
        finally:
            memory.close()
    run(chat())


def test_a_restart_gives_the_live_view_byte_for_byte(tmp_path):
    config = Config(3_000, 1_500, 1_000, 500, 4)

    async def live():
        memory = Memory.open(tmp_path, config, build=answer)
        for k in range(120):
            memory.append("user" if k % 3 else "echo", ("m" * (k % 7) * 150) or "ok")
            if k % 5 == 0:
                await memory.idle()
        await memory.idle()
        views = (memory.render(), memory.planner.render(memory.planner.cview.lines()))
        memory.close()
        return views

    views = run(live())
    memory = Memory.open(tmp_path, config)
    try:
        assert (memory.render(), memory.planner.render(memory.planner.cview.lines())) == views
        assert memory.planner.shrinking in (True, False) and memory.planner.T == 120
    finally:
        memory.close()


def test_a_message_logged_before_a_crash_is_applied_at_start(tmp_path):
    config = Config(2_000, 1_000, 800, 400, 2)

    async def live(home, crash):
        memory = Memory.open(home, config, build=answer)
        for k in range(40):
            memory.append("user", "m" * (200 + 37 * k % 700))
            await memory.idle()
        if crash:
            # the message reaches the log, then the process dies before the planner sees it
            memory.store.append_message("user", "the last words")
            memory.tasks.clear()
            memory.store.close()
            return None
        memory.append("user", "the last words")
        view = memory.render()
        memory.close()
        return view

    expected = run(live(tmp_path / "live", crash=False))
    run(live(tmp_path / "crashed", crash=True))
    memory = Memory.open(tmp_path / "crashed", config)
    try:
        assert memory.render() == expected
    finally:
        memory.close()


def test_a_turn_waits_for_the_view_then_a_timeout_shows_placeholders(tmp_path):
    gate = asyncio.Event()

    async def slow(job: Job) -> JobResult:
        await gate.wait()
        return JobResult(summary(job))

    async def chat():
        memory = Memory.open(tmp_path, build=slow)
        try:
            memory.append("tool", LONG, now=MAY_4)
            view = await memory.settle(0.05)  # nothing answers: the turn gives up
            assert view == "<chat>\n0+1|tool message 0, 2026-05-04, not summarized yet: search or zoom it\n</chat>"
            assert not memory.planner.waiting
            waiting = asyncio.create_task(memory.settle(5))
            await asyncio.sleep(0.01)
            gate.set()
            assert await waiting == "<chat>\n0+1|tool: 600 chars\n</chat>"
        finally:
            memory.close()
    run(chat())


def test_a_content_failure_while_a_turn_waits_is_retried_after_the_backoff(tmp_path, monkeypatch):
    monkeypatch.setattr("harness.memory.service.RETRY_BACKOFF_SECONDS", (0.02,))
    replies = ["", "tool: read it"]  # an empty reply is a failed try [P16]

    async def flaky(job: Job) -> JobResult:
        text = replies.pop(0)
        return JobResult(text, "" if text else "an empty reply")

    async def chat():
        memory = Memory.open(tmp_path, build=flaky)
        try:
            memory.append("tool", LONG)
            view = await memory.settle(5)
            assert view == "<chat>\n0+1|tool: read it\n</chat>"
            assert memory.planner.failures == {}
        finally:
            memory.close()
    run(chat())


def test_zoom_and_date_answer_and_refuse_clearly(tmp_path):
    async def chat():
        memory = Memory.open(tmp_path, build=answer)
        try:
            for k in range(4):
                memory.append("user", f"message {k}")
            await memory.idle()
            assert memory.zoom(0, 1) == "user: message 0"
            # 0+4 opens into 0+2 and 2+2, each two short lines joined by a newline, flattened
            assert memory.zoom(0, 4) == "0+2|user: message 0 user: message 1\n2+2|user: message 2 user: message 3"
            assert memory.zoom(0, 3) == "zoom: n must be a power of 2 (1, 2, 4, …), not 3"
            assert memory.zoom(2, 4) == "zoom: id must be a multiple of n = 4, not 2"
            assert memory.zoom(8, 1) == "zoom: the chat has messages 0 to 3; there is no message 8"
            assert memory.date(9).startswith("date: the chat has messages 0 to 3")
            assert memory.date(1)[:2] == "20"
        finally:
            memory.close()
    run(chat())


def test_a_long_message_comes_in_pages(tmp_path, monkeypatch):
    monkeypatch.setattr("harness.memory.service.PAGE_CHARS", 10)
    memory = Memory.open(tmp_path)
    try:
        memory.append("echo", "abcdefghijklmnopqrstu")  # "echo: " and 21 characters: 27
        assert memory.zoom(0, 1) == "[message 0, page 1 of 3]\necho: abcd"
        assert memory.zoom(0, 1, page=3) == "[message 0, page 3 of 3]\nopqrstu"  # characters 20 to 26
        assert memory.zoom(0, 1, page=4) == "zoom: message 0 has 3 pages, not page 4"
    finally:
        memory.close()


def test_a_second_owner_is_refused(tmp_path):
    memory = Memory.open(tmp_path)
    try:
        with pytest.raises(Exception) as refused:
            Memory.open(tmp_path)
        assert str(os.getpid()) in str(refused.value)
    finally:
        memory.close()


def test_each_compactor_change_is_a_memory_row(tmp_path):
    async def compactor(job: Job) -> JobResult:
        if (job.l, job.i) == (0, 1):  # the second message fails every try: three, the cap
            return JobResult("", "a refusal")
        return JobResult(summary(job))

    rows = []

    async def chat():
        memory = Memory.open(tmp_path, Config(2_000, 1_000, 800, 400, 2), build=compactor, on_change=rows.append)
        try:
            memory.append("tool", LONG)
            memory.append("echo", LONG)
            await memory.idle()
            for _ in range(2):  # a failed line is tried again at the next message
                memory.append("user", "go on")
                await memory.idle()
            for _ in range(70):  # each adds "i+1|tool: 1500 chars\n", 21 bytes, built
                memory.append("tool", "y" * 1_500)
                await memory.idle()
        finally:
            memory.close()
    run(chat())
    # a built line costs "i+1|" + its text + a newline; an unbuilt one 4 + 512 + 1 [P1]
    assert rows[:6] == [
        "memory: message 0 summarized as 0+1 · view 537 bytes",  # 20 + 517 for message 1
        "memory: 1+1 failed (a refusal), try 1 of 3 · view 537 bytes",
        "memory: 1+1 failed (a refusal), try 2 of 3 · view 553 bytes",  # + "2+1|user: go on\n"
        # + "3+1|user: go on\n"; the capped line is 512 bytes: 517 as before
        "memory: 1+1 failed (a refusal); its input kept cut and marked: zoom it · view 569 bytes",
        "memory: lines 0+1 and 1+1 merged into 0+2 · view 569 bytes",
        "memory: message 4 summarized as 4+1 · view 590 bytes",
    ]
    assert any(row.startswith("memory: the view merged ") for row in rows)


def test_a_paused_compactors_view_is_sent_within_its_ceiling_and_zoom_opens_each_coarse_line(tmp_path):
    # No compactor: four long messages are four placeholders, each counted at "0+1|", the 128 bytes
    # a placeholder's text may weigh and its newline (133 bytes, 532 in all) [P22], and no pair can
    # merge. At a ceiling of 300 the turn's view merges the most due pair, 0-1 (due (4 - 1)/1 = 3,
    # over 2-3's 1), into the placeholder 0+2: 133 + 266 = 399, still over; then the only pair,
    # 2-3, into 2+2: 266 bytes [P19]. Each placeholder says what it covers, a day apart.
    config = Config(300, 150, 1000, 500)
    memory = Memory.open(tmp_path, config)
    try:
        for k in range(4):
            memory.append("tool", LONG, now=MAY_4 + timedelta(days=k))
        placeholder = "not summarized yet: search or zoom it"
        assert memory.render() == (f"<chat>\n0+2|tool messages 0–1, 2026-05-04 to 05-05, {placeholder}\n"
                                   f"2+2|tool messages 2–3, 2026-05-06 to 05-07, {placeholder}\n</chat>")
        assert memory.zoom(0, 2) == (f"0+1|tool message 0, 2026-05-04, {placeholder}\n"
                                     f"1+1|tool message 1, 2026-05-05, {placeholder}")
        assert memory.zoom(2, 1) == "tool: " + LONG
    finally:
        memory.close()
