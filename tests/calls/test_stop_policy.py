"""Strategy: one stop policy for every tool loop [A7]. A turn and a subagent each get the same
scripted first reply (a few words, with a `date` call or without) with each stop reason the
Messages API documents, and one no API sends yet, through the real SDK over HTTP to the strict local API; a
second reply ("All done.") waits in case the loop goes on. What each does is read from outside:
how many requests reached the API, whether the date call's result went back, whether it ended
whole (a turn with no error sentence, a subagent whose report says "done"). Both must do the same,
and what they do is the table below, written from docs/decisions.md's [A7]: tool calls run only on
tool_use, pause_turn goes on without running any, end_turn and stop_sequence end whole, and every
other reason stops the loop with a sentence, running nothing.
"""

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest

from harness.calls.agents import Agents, Subagent
from harness.calls.approval import Approval
from harness.calls.client import Client, ClientSettings
from harness.calls.prompt import Prompt
from harness.calls.tools import WorkTools
from harness.calls.turn import Turn, TurnSettings
from harness.localapi.server import Reply, text, tool_use
from harness.memory.agentlog import AgentLog
from harness.memory.service import JobResult, Memory

NOW = datetime(2026, 11, 30, 9, 15, tzinfo=UTC)
MODEL = "claude-sonnet-4-6"

# stop reason -> (requests sent, the tool call ran, ended whole), for a reply with a tool call
POLICY = {
    "end_turn": (1, False, True),
    "stop_sequence": (1, False, True),
    "tool_use": (2, True, True),
    "pause_turn": (2, False, True),
    "max_tokens": (1, False, False),
    "refusal": (1, False, False),
    "model_context_window_exceeded": (1, False, False),
    "a_reason_not_yet_named": (1, False, False),
}
# and for a reply of words alone: the same, but a tool_use reply with no call to run is whole
WORDS_ALONE = dict(POLICY, tool_use=(1, False, True))


async def summarized(job) -> JobResult:
    return JobResult(f"{job.kind}: summary")


def script(api, stop_reason: str, with_call: bool) -> None:
    api.reset()
    call = [tool_use("date", {"id": 0}, id="toolu_date")] if with_call else []
    api.enqueue(Reply([text("Checking the date.")] + call, stop_reason=stop_reason))
    api.enqueue("All done.")


def seen(api) -> tuple[int, bool]:
    """The requests that reached the API, and whether the date call's result went back."""
    results = [block for request in api.requests for message in request.body["messages"]
               if isinstance(message["content"], list) for block in message["content"]
               if block.get("type") == "tool_result" and block.get("tool_use_id") == "toolu_date"]
    return len(api.requests), bool(results)


def opened(tmp_path: Path, api):
    memory = Memory.open(tmp_path / "home", build=summarized)
    client = Client(ClientSettings(api_key="k", base_url=api.base_url, attempts_max=1))
    settings = TurnSettings(MODEL, 5.0, workdir=str(tmp_path), clock=lambda: NOW)
    tools = WorkTools(str(tmp_path), Approval(yes=True), secrets=("k",))
    return memory, client, settings, tools


def a_turn(tmp_path: Path, api) -> tuple[int, bool, bool]:
    async def go():
        memory, client, settings, tools = opened(tmp_path, api)
        try:
            result = await Turn(memory, client, Prompt.build(), tools, settings).run("what day is it?")
        finally:
            memory.close()
            await client.aclose()
        return result.error == ""

    whole = asyncio.run(go())
    return (*seen(api), whole)


def a_subagent(tmp_path: Path, api) -> tuple[int, bool, bool]:
    async def go():
        memory, client, settings, tools = opened(tmp_path, api)
        try:
            memory.append("user", "start a subagent Scout")
            agents = Agents(memory, client, Prompt.build(), settings)
            log = AgentLog.create(memory.store.chat, "Scout", {"task": "Say the date.", "turn": 0, "T": 1})
            try:
                ending = await Subagent(agents, "Scout", log, 0, tools).work("Say the date.")
            finally:
                log.close()
        finally:
            memory.close()
            await client.aclose()
        return ending.how == "done"

    whole = asyncio.run(go())
    return (*seen(api), whole)


@pytest.mark.parametrize("with_call", [True, False], ids=["with_a_tool_call", "words_alone"])
@pytest.mark.parametrize("stop_reason", list(POLICY))
def test_a_turn_and_a_subagent_end_the_same_way_on_each_stop_reason(tmp_path, api, stop_reason, with_call):
    script(api, stop_reason, with_call)
    turn = a_turn(tmp_path / "turn", api)
    script(api, stop_reason, with_call)
    subagent = a_subagent(tmp_path / "subagent", api)
    assert turn == subagent
    assert turn == (POLICY if with_call else WORDS_ALONE)[stop_reason]
