"""Strategy: every request kind the chat makes, on every provider [H14] [H26]: a turn that runs a
tool, a compaction, a subagent, retries through a rate limit and a cut stream, the errors that
stop, and the stop reasons, each through the real SDK of its API (`anthropic`, `openai`) against
that API's strict local stand-in (harness/localapi/). The same scripts run on all three; what each
test checks on the wire is that wire's own shape.
"""

import asyncio
import json

import pytest

from harness.calls.agents import Agents, Subagent
from harness.calls.approval import Approval
from harness.calls.compactor import Compactor, Compress, Job, MemorySettings
from harness.calls.outcomes import Refused, Stop, Unusable
from harness.calls.prompt import Prompt
from harness.calls.provider import Call
from harness.calls.tools import WorkTools
from harness.calls.turn import Turn, TurnSettings
from harness.localapi.faults import overloaded, rate_limited, server_error, status_error, stream_cut, stream_error
from harness.localapi.replies import Reply, tool_use
from harness.memory.agentlog import AgentLog
from harness.memory.service import Memory
from tests.support.providers import PROVIDERS, Wire, is_compaction, server_for, tool_results
from tests.support.turns import NOW, answer


@pytest.fixture(scope="module", params=PROVIDERS)
def shared_wire(request):
    with server_for(request.param) as server:
        yield Wire(request.param, server)


@pytest.fixture
def wire(shared_wire):
    shared_wire.api.reset()
    yield shared_wire
    assert shared_wire.api.failures == [] or all("Broken pipe" in f or "reset" in f.lower()
                                                 for f in shared_wire.api.failures)


def run_turn(tmp_path, wire, message, **client_settings):
    async def go():
        memory = Memory.open(tmp_path / "home", build=answer)
        client = wire.client(**client_settings)
        tools = WorkTools(str(tmp_path), Approval(yes=True), secrets=("test-key",))
        settings = TurnSettings(wire.model, 120.0, workdir=str(tmp_path), clock=lambda: NOW)
        try:
            return await Turn(memory, client, Prompt.build(), tools, settings).run(message)
        finally:
            memory.close()
            await client.aclose()

    return asyncio.run(go())


def test_a_turn_runs_a_tool_and_sends_its_result_back_in_the_wires_own_shape(tmp_path, wire):
    (tmp_path / "notes.txt").write_text("the key is under the mat\n")
    wire.api.enqueue([tool_use("read", {"path": "notes.txt"}, id="call_read_1")])
    wire.api.enqueue("It is under the mat.")
    result = run_turn(tmp_path, wire, "where is the key?")
    assert (result.reply, result.error) == ("It is under the mat.", "")
    first, second = [request.body for request in wire.api.requests]
    results = tool_results(second, wire.kind)
    assert [call_id for call_id, _ in results] == ["call_read_1"]
    assert "the key is under the mat" in results[0][1]
    assert tool_results(first, wire.kind) == []
    if wire.kind != "anthropic":  # [H27] no mark on an OpenAI wire: its cache is automatic
        assert "cache_control" not in json.dumps(first) + json.dumps(second)


def test_the_view_and_the_message_are_the_same_bytes_on_every_wire(tmp_path, wire):
    wire.api.enqueue("Fine.")
    run_turn(tmp_path, wire, "the words of the message, exactly")
    body = wire.api.requests[0].body
    if wire.kind == "anthropic":
        texts = [block["text"] for block in body["messages"][0]["content"]]
    elif wire.kind == "openai-chat":
        texts = [part["text"] for part in body["messages"][1]["content"]]
    else:
        texts = [part["text"] for part in body["input"][1]["content"]]
    assert texts[-1].endswith("the words of the message, exactly")
    system = body.get("system") or (body.get("messages") or body.get("input"))[0]["content"]
    assert [block["text"] for block in system] == list(Prompt.build().system)


def test_a_compaction_builds_its_line_and_calls_no_tool(wire):
    wire.api.enqueue("user: asked which day it is.")
    client = wire.client()
    job = Job(0, 0, (), Compress("user", "what day is it?"))

    async def go():
        try:
            return await Compactor(client, Prompt.build(), MemorySettings(model=wire.model)).build(job)
        finally:
            await client.aclose()

    result = asyncio.run(go())
    assert (result.text, result.failure) == ("user: asked which day it is.", None)
    body = wire.api.requests[0].body
    assert is_compaction(body)  # [C3] the tools go for the shared prefix, none may be called
    assert result.usage.prompt_tokens > 0


def test_a_subagent_runs_its_tool_and_reports(tmp_path, wire):
    wire.api.enqueue([tool_use("date", {}, id="call_date_1")])
    wire.api.enqueue("Monday, said the subagent.")
    client = wire.client()

    async def go():
        memory = Memory.open(tmp_path / "home", build=answer)
        settings = TurnSettings(wire.model, 5.0, workdir=str(tmp_path), clock=lambda: NOW)
        tools = WorkTools(str(tmp_path), Approval(yes=True))
        agents = Agents(memory, client, Prompt.build(), settings)
        log = AgentLog.create(memory.store.chat, "Scout", {"task": "Say the day.", "turn": 0, "T": 1})
        try:
            return await Subagent(agents, "Scout", log, 0, tools).work("Say the day.")
        finally:
            log.close()
            memory.close()
            await client.aclose()

    ending = asyncio.run(go())
    assert (ending.how, ending.last_text) == ("done", "Monday, said the subagent.")
    assert [call_id for call_id, _ in tool_results(wire.api.requests[1].body, wire.kind)] == ["call_date_1"]


def test_a_rate_limit_and_a_cut_stream_are_retried_and_the_reply_comes(tmp_path, wire):
    wire.api.enqueue(rate_limited(0.01))
    wire.api.enqueue(stream_cut(after_events=2))
    wire.api.enqueue("Through at last.")
    result = run_turn(tmp_path, wire, "hello", attempts_max=4)
    assert (result.reply, result.error) == ("Through at last.", "")
    assert [request.answer for request in wire.api.requests] == ["status", "stream_cut", "reply"]


def test_every_wire_waits_as_the_one_retry_policy_says_through_429_529_500_and_an_error_mid_stream(tmp_path, wire):
    """[C13] The server's retry-after (7 s) where it asks, else the backoff: first·2^(n−1) with
    the jitter at its top (random 1.0), so 0.02 s after the 2nd failure, 0.04 s, 0.08 s."""
    wire.api.enqueue(rate_limited(7.0))
    wire.api.enqueue(overloaded())
    wire.api.enqueue(server_error())
    wire.api.enqueue(stream_error(after_events=2))
    wire.api.enqueue("Through all four.")
    waits = []

    async def sleep(seconds):
        waits.append(seconds)

    result = run_turn(tmp_path, wire, "hello", attempts_max=5, sleep=sleep, random=lambda: 1.0)
    assert (result.reply, result.error) == ("Through all four.", "")
    assert waits == [7.0, 0.02, 0.04, 0.08]
    assert [request.answer for request in wire.api.requests] == ["status", "status", "status", "stream_error", "reply"]


def test_every_wire_gives_up_after_its_attempts_in_one_sentence(tmp_path, wire):
    for _ in range(3):
        wire.api.enqueue(overloaded())
    waits = []

    async def sleep(seconds):
        waits.append(seconds)

    result = run_turn(tmp_path, wire, "hello", attempts_max=3, sleep=sleep, random=lambda: 0.0)
    assert "(3 tries)" in result.error and "529" in result.error
    assert waits == [0.005, 0.01]  # half the backoff at the jitter's bottom
    assert len(wire.api.requests) == 3


@pytest.mark.parametrize("status, outcome", [(401, Unusable), (404, Unusable), (400, Refused)])
def test_an_error_that_retrying_cannot_cure_stops_at_once_with_one_sentence(wire, status, outcome):
    wire.api.enqueue(status_error(status, "invalid_request_error" if status == 400 else "authentication_error",
                                  "no, and the key test-key is wrong"))
    client = wire.client(attempts_max=5)
    job = Job(0, 0, (), Compress("user", "hi"))

    async def go():
        provider = Compactor(client, Prompt.build(), MemorySettings(model=wire.model)).provider
        try:
            said = {"role": "user", "content": [{"type": "text", "text": job.task()}]}
            return await provider.stream(provider.request(Call(wire.model, 100, ("s",), (), (said,))))
        finally:
            await client.aclose()

    with pytest.raises(outcome) as raised:
        asyncio.run(go())
    assert len(wire.api.requests) == 1  # never retried
    sentence = str(raised.value)
    assert "test-key" not in sentence and wire.api.base_url.split("//")[1].split("/")[0] in sentence
    assert sentence.count(". ") == 0


@pytest.mark.parametrize("script, stop", [("max_tokens", Stop.LENGTH), ("refusal", Stop.REFUSED),
                                          ("end_turn", Stop.WHOLE)])
def test_each_wires_stop_reasons_come_back_as_the_same_outcomes(wire, script, stop):
    wire.api.enqueue(Reply("Cut here", stop_reason=script))
    client = wire.client()
    provider = Compactor(client, Prompt.build(), MemorySettings(model=wire.model)).provider

    async def go():
        try:
            return await provider.stream(provider.request(
                Call(wire.model, 100, ("s",), (), ({"role": "user", "content": [{"type": "text", "text": "hi"}]},))))
        finally:
            await client.aclose()

    reply = asyncio.run(go())
    assert reply.stop is stop
    assert reply.text == "Cut here"


def test_a_second_call_on_the_same_prefix_reads_it_from_the_cache_as_each_wire_reports_it(tmp_path, wire):
    """Anthropic's cache at the marks Ever places; OpenAI's by itself on the repeated prefix, in
    steps of 128 tokens, both read back from the wire's own usage fields."""
    (tmp_path / "notes.txt").write_text("x\n")
    wire.api.enqueue([tool_use("read", {"path": "notes.txt"}, id="call_read_1")])
    wire.api.enqueue("Done.")
    client = wire.client()
    usages = []

    async def go():
        memory = Memory.open(tmp_path / "home", build=answer)
        tools = WorkTools(str(tmp_path), Approval(yes=True))
        settings = TurnSettings(wire.model, 120.0, workdir=str(tmp_path), clock=lambda: NOW)
        turn = Turn(memory, client, Prompt.build(), tools, settings)
        stream = turn.provider.stream

        async def kept(request, on_event=None):
            reply = await stream(request, on_event)
            usages.append(reply.usage)
            return reply

        turn.provider.stream = kept
        try:
            return await turn.run("read the notes")
        finally:
            memory.close()
            await client.aclose()

    assert asyncio.run(go()).reply == "Done."
    served = [request.cache for request in wire.api.requests]
    assert [usage.cache_read_input_tokens for usage in usages] == [c.cache_read_input_tokens for c in served]
    assert usages[0].prompt_tokens == served[0].prompt_tokens and usages[1].cache_read_input_tokens > 1024
    if wire.kind != "anthropic":
        assert usages[1].cache_read_input_tokens % 128 == 0 and usages[1].cache_creation_input_tokens == 0
    if wire.kind == "openai-responses":  # [H27] one key for the chat's prefix, on every call
        keys = {request.body["prompt_cache_key"] for request in wire.api.requests}
        assert len(keys) == 1 and keys.pop().startswith("ever-")
