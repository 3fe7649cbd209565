"""Strategy: the provider seam holds another provider with no edit to the loop, the compactor or
the tools [H14]. A provider that is not Anthropic's (it keeps each neutral `Call` as its request
and answers from a script, its stop reasons its own words mapped to `Stop`) is handed to a turn,
a subagent and the compactor as the Messages API's client would be; each works, and what reached
the provider holds no cache mark: the places a prefix ends are the call's `marks`, which the
provider may use or ignore.
"""

import asyncio
import json
import re
from datetime import UTC, datetime

from harness.calls.agents import Agents, Subagent
from harness.calls.approval import Approval
from harness.calls.compactor import Compactor, Compress, Job, MemorySettings
from harness.calls.outcomes import Reply, Stop, Usage
from harness.calls.prompt import Prompt
from harness.calls.provider import SYSTEM, Call
from harness.calls.tools import WorkTools
from harness.calls.turn import Turn, TurnSettings
from harness.memory.agentlog import AgentLog
from harness.memory.service import JobResult, Memory

NOW = datetime(2026, 11, 30, 9, 15, tzinfo=UTC)
STOPS = {"stop": Stop.WHOLE, "tool_calls": Stop.TOOLS, "length": Stop.LENGTH}


def answer(stop_reason: str, *blocks: dict) -> Reply:
    return Reply(tuple(blocks), stop_reason, Usage(10, 0, 0, 5), Usage(10, 0, 0, 5), 1)


class Scripted:
    """A provider of its own: the call is its request; replies come from a script."""

    def __init__(self, *replies: Reply):
        self.replies = list(replies)
        self.calls: list[Call] = []

    def request(self, call: Call) -> Call:
        self.calls.append(call)
        return call

    async def stream(self, request: Call, on_event=None) -> Reply:
        reply = self.replies.pop(0)
        return Reply(reply.content, reply.stop_reason, reply.usage, reply.spent, 1, STOPS[reply.stop_reason])

    async def count_tokens(self, request: Call) -> int | None:
        return None

    def capabilities(self, model: str):
        return None

    async def aclose(self) -> None:
        pass


async def summarized(job) -> JobResult:
    return JobResult(f"{job.kind}: summary")


def test_a_turn_and_a_subagent_run_their_tools_through_a_provider_that_is_not_anthropics(tmp_path):
    date_call = {"type": "tool_use", "id": "call_1", "name": "date", "input": {"id": 0}}
    provider = Scripted(answer("tool_calls", date_call), answer("stop", {"type": "text", "text": "It is Monday."}),
                        answer("tool_calls", dict(date_call, id="call_2")),
                        answer("stop", {"type": "text", "text": "Monday, said the subagent."}))

    async def go():
        memory = Memory.open(tmp_path / "home", build=summarized)
        settings = TurnSettings("some-other-model", 5.0, workdir=str(tmp_path), clock=lambda: NOW)
        tools = WorkTools(str(tmp_path), Approval(yes=True))
        try:
            result = await Turn(memory, provider, Prompt.build(), tools, settings).run("what day is it?")
            agents = Agents(memory, provider, Prompt.build(), settings)
            log = AgentLog.create(memory.store.chat, "Scout", {"task": "Say the day.", "turn": 0, "T": 1})
            try:
                ending = await Subagent(agents, "Scout", log, 0, tools).work("Say the day.")
            finally:
                log.close()
        finally:
            memory.close()
        return result, ending

    result, ending = asyncio.run(go())
    assert (result.reply, result.error) == ("It is Monday.", "")
    assert (ending.how, ending.last_text) == ("done", "Monday, said the subagent.")
    assert len(provider.calls) == 4
    for call, call_id in ((provider.calls[1], "call_1"), (provider.calls[3], "call_2")):  # each result went back
        results = [block for block in call.messages[-1]["content"] if block["type"] == "tool_result"]
        assert [block["tool_use_id"] for block in results] == [call_id]
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}", results[0]["content"][0]["text"])
    for call in provider.calls:
        assert "cache_control" not in json.dumps(call.messages) + json.dumps(call.system)
        assert (SYSTEM, len(call.system) - 1) in call.marks  # the system's end, as a place [C2]


def test_the_compactor_builds_a_line_through_a_provider_that_is_not_anthropics():
    provider = Scripted(answer("stop", {"type": "text", "text": "user: asked which day it is."}))
    job = Job(0, 0, (), Compress("user", "what day is it?"))
    result = asyncio.run(Compactor(provider, Prompt.build(), MemorySettings()).build(job))
    assert (result.text, result.failure) == ("user: asked which day it is.", None)
    call = provider.calls[0]
    assert call.tools_off  # [C3] the tools are sent for the shared prefix, never called
    assert "cache_control" not in json.dumps(call.messages)
