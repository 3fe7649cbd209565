"""Strategy: a turn as it runs, through the real SDK over real HTTP against the local Messages API
(harness/localapi/server.py), on a real store in a temporary EVER_HOME; the compactor is a stand-in that
answers at once (tests/calls/test_compactor.py tests the real one). Each expected request is written out
here from the gist's layout — `[tools] [system] [view] [state] [message]`, the view in blocks of 4
lines with a mark on the last whole block, one mark on the end — never read back from the turn;
each expected log is the kinds a person would see, in order.
"""

import asyncio
import json
from datetime import UTC, datetime

import pytest

from harness.calls.approval import Answer
from harness.calls.prompt import SYSTEM_PROMPT, TOOLS
from harness.calls.turn import Quiet
from harness.localapi.server import Reply, status_error, text, thinking, tool_use
from harness.memory.accepted import Accepted
from harness.memory.service import Job, JobResult
from tests.support.agents import until
from tests.support.chat import logged
from tests.support.turns import make_turn
from tests.support.wire import tools_sent

MARK = {"type": "ephemeral"}
def marks(body) -> int:
    found = sum(1 for block in body["system"] if "cache_control" in block)
    for message in body["messages"]:
        found += sum(1 for block in message["content"] if "cache_control" in block)
    return found


def run(coroutine):
    return asyncio.run(coroutine)


def test_a_turn_sends_tools_system_the_view_in_blocks_the_state_and_the_message(tmp_path, api):
    api.reset()
    api.enqueue("Done.")

    async def go():
        memory, client, turn = await make_turn(tmp_path, api)
        for k in range(6):
            memory.append("user", f"note {k}")
        result = await turn.run("what next?")
        await client.aclose()
        return memory, result

    memory, result = run(go())
    try:
        body = api.requests[-1].body
        assert body["tools"] == tools_sent(TOOLS)
        assert body["system"] == [{"type": "text", "text": SYSTEM_PROMPT, "cache_control": MARK}]
        lines = [f"{k}+1|user: note {k}" for k in range(6)]
        assert body["messages"] == [{"role": "user", "content": [
            {"type": "text", "text": "<chat>\n" + "".join(line + "\n" for line in lines[:4]), "cache_control": MARK},
            {"type": "text", "text": "".join(line + "\n" for line in lines[4:]) + "</chat>"},
            {"type": "text", "text": f"[2026-11-30 09:15 UTC; working directory: {tmp_path}]"},
            {"type": "text", "text": "what next?", "cache_control": MARK},
        ]}]
        assert marks(body) == 3
        assert result.reply == "Done." and result.error == ""
        assert logged(memory)[-2:] == [("user", "what next?"), ("ever", "Done.")]
    finally:
        memory.close()


def test_tool_calls_are_run_logged_and_answered_in_the_same_call(tmp_path, api):
    api.reset()
    api.enqueue(Reply([text("Looking."), tool_use("zoom", {"id": 0, "n": 1}, id="t1")]))
    api.enqueue(Reply([tool_use("shell", {"command": "echo hi > made.txt; cat made.txt"}, id="t2")]))
    api.enqueue(Reply([tool_use("edit", {"path": "made.txt", "old_text": "hi", "new_text": "ho"}, id="t3"),
                       tool_use("date", {"id": 0}, id="t4")]))
    api.enqueue(Reply([tool_use("read", {"path": "made.txt"}, id="t5")]))
    api.enqueue("All done.")

    async def go():
        memory, client, turn = await make_turn(tmp_path, api)
        memory.append("user", "remember the word pelican")
        result = await turn.run("do it")
        await client.aclose()
        return memory, result

    memory, result = run(go())
    try:
        kinds = [kind for kind, _ in logged(memory)]
        assert kinds == ["user", "user", "ever"] + ["tool", "echo"] * 5 + ["ever"]
        log = logged(memory)
        assert log[3] == ("tool", 'zoom {"id": 0, "n": 1}')
        assert log[4] == ("echo", "user: remember the word pelican")
        assert (tmp_path / "made.txt").read_text() == "ho\n"
        assert "ho" in log[-2][1] and log[-3] == ("tool", 'read {"path": "made.txt"}')  # read after the edit
        second = api.requests[1].body["messages"]
        assert second[1]["role"] == "assistant" and second[1]["content"][1]["name"] == "zoom"
        tool_result = second[2]["content"][0]
        assert tool_result["type"] == "tool_result" and tool_result["tool_use_id"] == "t1"
        for request in api.requests:
            assert marks(request.body) <= 4
            # the end mark moved with the conversation: only the last message's last block has it
            ends = [m for m in request.body["messages"][1:] if "cache_control" in m["content"][-1]]
            assert ends in ([], [request.body["messages"][-1]])
        assert result.reply == "All done." and result.calls == 5
    finally:
        memory.close()


def test_the_model_reads_a_long_message_page_by_page(tmp_path, api):
    api.reset()
    api.enqueue(Reply([tool_use("zoom", {"id": 0, "n": 1, "page": 2}, id="p2"),
                       tool_use("zoom", {"id": 0, "n": 1, "page": 3}, id="p3"),
                       tool_use("zoom", {"id": 0, "n": 2, "page": 2}, id="n2")]))
    api.enqueue("Read it all.")

    async def go():
        memory, client, turn = await make_turn(tmp_path, api)
        memory.append("user", "a" * 29_994 + "b" * 10_006)  # "user: " and it: 40,006 characters
        await turn.run("read message 0")
        await client.aclose()
        return memory

    memory = run(go())
    try:
        results = api.requests[1].body["messages"][-1]["content"]
        # page 1 is the first 30,000 characters ("user: " and 29,994 a's); page 2 the rest
        assert results[0]["content"] == [{"type": "text", "text": "[message 0, page 2 of 2]\n" + "b" * 10_006}]
        assert not results[0].get("is_error")
        assert results[1]["is_error"] and results[1]["content"][0]["text"] == "zoom: message 0 has 2 pages, not page 3"
        assert results[2]["is_error"] and results[2]["content"][0]["text"] == (
            "zoom: only a message (n = 1) comes in pages; line id+2 is two lines.")
    finally:
        memory.close()


def test_a_message_typed_during_the_call_joins_it_between_tool_calls(tmp_path, api):
    api.reset()
    api.enqueue(Reply([tool_use("shell", {"command": "sleep 0.3; echo slept"}, id="s1")]))
    api.enqueue("Noted both.")

    async def go():
        memory, client, turn = await make_turn(tmp_path, api)
        typed = Accepted("and also this", "typed-1", "terminal")
        asyncio.get_running_loop().call_later(0.1, turn.add_message, typed)
        result = await turn.run("start")
        await client.aclose()
        return memory, result

    memory, result = run(go())
    try:
        second = api.requests[1].body["messages"][-1]["content"]
        assert second[0]["type"] == "tool_result"
        assert second[1]["type"] == "text" and second[1]["text"] == "and also this"
        assert [k for k, _ in logged(memory)] == ["user", "tool", "echo", "user", "ever"]
        assert memory.store.key_id("typed-1") == 3  # the joined message's key ends its own line
    finally:
        memory.close()


def test_a_tool_that_changes_things_is_declined_when_nobody_can_be_asked(tmp_path, api):
    api.reset()
    api.enqueue(Reply([tool_use("write", {"path": "x.txt", "content": "data"}, id="w1")]))
    api.enqueue("I could not write it.")

    async def go():
        memory, client, turn = await make_turn(tmp_path, api, yes=False, ask=None)
        result = await turn.run("write x")
        await client.aclose()
        return memory, result

    memory, result = run(go())
    try:
        assert not (tmp_path / "x.txt").exists()
        tool_result = api.requests[1].body["messages"][-1]["content"][0]
        assert tool_result["is_error"] is True and "Not run" in json.dumps(tool_result)
    finally:
        memory.close()


def test_asked_and_declined_then_always_allowed(tmp_path, api):
    api.reset()
    answers = iter((Answer.NO, Answer.ALWAYS))
    asked = []

    def ask(name, tool_input):
        asked.append(name)
        return next(answers)

    for k in range(3):
        api.enqueue(Reply([tool_use("shell", {"command": f"echo {k}"}, id=f"c{k}")]))
    api.enqueue("ok")

    async def go():
        memory, client, turn = await make_turn(tmp_path, api, yes=False, ask=ask)
        await turn.run("run three")
        await client.aclose()
        return memory

    memory = run(go())
    try:
        assert asked == ["shell", "shell"]  # the third ran without asking: "always"
        echoes = [t for k, t in logged(memory) if k == "echo"]
        assert "declined" in echoes[0] and "1" in echoes[1] and "2" in echoes[2]
    finally:
        memory.close()


def test_a_refused_call_keeps_the_message_and_says_so(tmp_path, api):
    api.reset()
    api.enqueue(status_error(400, "invalid_request_error", "prompt is too long"))

    async def go():
        memory, client, turn = await make_turn(tmp_path, api)
        result = await turn.run("hello")
        await client.aclose()
        return memory, result

    memory, result = run(go())
    try:
        assert logged(memory) == [("user", "hello")]
        assert result.reply == "" and "prompt is too long" in result.error
        assert "in the log" in result.error
    finally:
        memory.close()


async def stuck(job: Job) -> JobResult:
    """A compactor that never answers."""
    await asyncio.Event().wait()
    return JobResult("never")


def test_after_the_settle_timeout_the_view_shows_placeholders(tmp_path, api):
    api.reset()
    api.enqueue("ok")
    async def go():
        memory, client, turn = await make_turn(tmp_path, api, build=stuck, timeout=0.05)
        memory.append("tool", "y" * 900, now=datetime(2026, 5, 4, 12, 0, tzinfo=UTC))
        await turn.run("and?")
        await client.aclose()
        return memory

    memory = run(go())
    try:
        first = api.requests[0].body["messages"][0]["content"][0]["text"]
        assert first == "<chat>\n0+1|tool message 0, 2026-05-04, not summarized yet: search or zoom it\n</chat>"
    finally:
        memory.close()


@pytest.mark.parametrize("short", [1, 7])
def test_a_view_a_quarter_placeholders_or_more_is_said_to_the_model_and_the_person(tmp_path, api, short):
    """[H34] Two long messages no compactor summarizes, after 1 short one (2 of 3 lines are
    placeholders) or 7 (2 of 9, under a quarter): the turn's state block and a notice say it in
    the first case only."""
    api.reset()
    api.enqueue("ok")
    notices = []

    class Seen(Quiet):
        def notice(self, sentence):
            notices.append(sentence)

    async def go():
        memory, client, turn = await make_turn(tmp_path, api, build=stuck, timeout=0.05)
        turn.output = Seen()
        for k in range(short):
            memory.append("user", f"short {k}")
        memory.append("tool", "y" * 900)
        memory.append("tool", "z" * 900)
        await turn.run("what is in there?")
        await client.aclose()
        return memory

    memory = run(go())
    try:
        blocks = api.requests[0].body["messages"][0]["content"]
        state = next(b["text"] for b in blocks if b["text"].startswith("[") and "working directory" in b["text"])
        said = ("2 of the view's 3 lines are not summarized yet, the compactor at work on them; "
                "search finds any word of the whole chat now")
        if short == 1:
            assert state.endswith(f"; working directory: {tmp_path}; {said}]"), state
            assert notices == [f"(memory: {said}.)"]
        else:
            assert state.endswith(f"; working directory: {tmp_path}]"), state
            assert notices == []
    finally:
        memory.close()


def test_a_turn_stopped_while_it_waits_keeps_its_message_and_ends_the_wait(tmp_path, api):
    api.reset()
    async def go():
        memory, client, turn = await make_turn(tmp_path, api, build=stuck, timeout=30.0)
        memory.append("tool", "y" * 900)
        running = asyncio.create_task(turn.run("are you there?"))
        await until(lambda: memory.planner.waiting)  # the turn waits for the view: Ctrl-C lands in the wait
        running.cancel()  # Ctrl-C while the turn waits for the view
        with pytest.raises(asyncio.CancelledError):
            await running
        waiting = memory.planner.waiting
        await client.aclose()
        return memory, waiting

    memory, waiting = run(go())
    try:
        assert not waiting
        assert logged(memory) == [("tool", "y" * 900), ("user", "are you there?")]
        assert api.requests == []  # nothing was sent
    finally:
        memory.close()


def test_thoughts_are_shown_and_never_logged(tmp_path, api):
    api.reset()
    api.enqueue(Reply([thinking("I should zoom first.", "sig-1"), tool_use("date", {"id": 0}, id="d1")]))
    api.enqueue(Reply([thinking("Now answer.", "sig-2"), text("It was today.")]))
    shown = []

    class Seen:
        def text(self, delta): shown.append(("text", delta))
        def thinking(self, delta): shown.append(("thinking", delta))
        def tool(self, name, tool_input): shown.append(("tool", name))
        def result(self, text, is_error): shown.append(("result", text))
        def notice(self, sentence): shown.append(("notice", sentence))

    async def go():
        memory, client, turn = await make_turn(tmp_path, api)
        turn.output = Seen()
        await turn.run("when?")
        await client.aclose()
        return memory

    memory = run(go())
    try:
        assert "".join(d for k, d in shown if k == "thinking") == "I should zoom first.Now answer."
        assert all("zoom first" not in t and "Now answer" not in t for _, t in logged(memory))
        # the thinking goes back, with its signature, inside the tool loop only [gist §1]
        back = api.requests[1].body["messages"][1]["content"][0]
        assert back == {"type": "thinking", "thinking": "I should zoom first.", "signature": "sig-1"}
    finally:
        memory.close()


def test_the_model_searches_the_memory_and_gets_each_hit_with_its_covering_line(tmp_path, api):
    api.reset()
    api.enqueue(Reply([tool_use("search", {"query": "PANGOLIN-73"}, id="s1"),
                       tool_use("search", {"query": "   "}, id="s2"),
                       tool_use("search", {"query": "pelican", "page": 0}, id="s3")]))
    api.enqueue("Found it.")

    async def go():
        memory, client, turn = await make_turn(tmp_path, api)
        for k in range(6):
            memory.append("user", "the code is PANGOLIN-73" if k == 4 else f"note {k}")
        await turn.run("what was the code?")
        await client.aclose()
        return memory

    memory = run(go())
    try:
        results = api.requests[1].body["messages"][-1]["content"]
        first = results[0]["content"][0]["text"].splitlines()
        # six short messages: each its own line of the view, so message 4 is in line 4+1
        assert first[0] == "1 message match; page 1 of 1"
        assert first[1].startswith("4 (in 4+1) ") and first[1].endswith(" user: the code is PANGOLIN-73")
        assert not results[0].get("is_error")
        assert results[1]["is_error"] and results[1]["content"][0]["text"] == "search: search for at least one word."
        assert results[2]["is_error"] and results[2]["content"][0]["text"] == (
            "search: page must be a whole number, 1 or more; got 0.")
        assert logged(memory)[7] == ("tool", 'search {"query": "PANGOLIN-73"}')
    finally:
        memory.close()
