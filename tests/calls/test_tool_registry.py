"""Strategy: a tool is one value (harness/calls/tool.py) [H13], so what the model is told and what
the checks hold a call to cannot drift. A turn and a subagent run through the real SDK against the
strict local API; the schemas in the requests that reached it are compared with the registry's,
and a call outside the schema the model was told (read from the request, not from the code) comes
back as an error result of one sentence, the tool never run.
"""

import asyncio
import re
from datetime import UTC, datetime

import pytest

from harness.calls.agents import Agents, Subagent
from harness.calls.approval import ASKING_TOOLS, Approval, approval_summary
from harness.calls.client import Client, ClientSettings
from harness.calls.prompt import Prompt
from harness.calls.tool import MCP, SUBAGENT, TOOLS, TURN, offered
from harness.calls.tools import WorkTools
from harness.calls.turn import Turn, TurnSettings
from harness.localapi.server import Reply, tool_use
from harness.memory.agentlog import AgentLog
from harness.memory.service import JobResult, Memory

NOW = datetime(2026, 11, 30, 9, 15, tzinfo=UTC)
ONE_SENTENCE = re.compile(r"^[^.]+(\.\d+[^.]*)*\.$")  # one full stop, at the end (a number's may be inside)


async def summarized(job) -> JobResult:
    return JobResult(f"{job.kind}: summary")


class Recording(WorkTools):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.ran: list[str] = []

    def run_shell(self, tool_input):
        self.ran.append(tool_input["command"])
        return super().run_shell(tool_input)


def turn_then_subagent(tmp_path, api) -> Recording:
    async def go():
        memory = Memory.open(tmp_path / "home", build=summarized)
        client = Client(ClientSettings(api_key="k", base_url=api.base_url, attempts_max=1))
        settings = TurnSettings("claude-sonnet-4-6", 5.0, workdir=str(tmp_path), clock=lambda: NOW)
        tools = Recording(str(tmp_path), Approval(yes=True), secrets=("k",))
        try:
            await Turn(memory, client, Prompt.build(), tools, settings).run("hello")
            agents = Agents(memory, client, Prompt.build(), settings)
            log = AgentLog.create(memory.store.chat, "Scout", {"task": "Look.", "turn": 0, "T": 1})
            try:
                await Subagent(agents, "Scout", log, 0, tools).work("Look.")
            finally:
                log.close()
        finally:
            memory.close()
            await client.aclose()
        return tools

    return asyncio.run(go())


def test_each_offered_tools_schema_in_the_request_is_the_registrys(tmp_path, api):
    api.reset()
    api.enqueue("Hello.")
    api.enqueue("Looked.")
    turn_then_subagent(tmp_path, api)
    turn, subagent = (request.body["tools"] for request in api.requests)
    for sent, who in ((turn, TURN), (subagent, SUBAGENT)):
        assert [tool["name"] for tool in sent] == [tool.name for tool in offered(who)]
        for tool, registered in zip(sent, offered(who)):
            assert tool["input_schema"] == registered.input_schema, tool["name"]
            assert tool["description"] == registered.description, tool["name"]
    assert [tool["name"] for tool in subagent] == [t["name"] for t in turn if t["name"] not in ("agent", "tell")]


def outside(schema: dict) -> list[tuple[str, object]]:
    """For each whole-number property with bounds, a value past each bound, read from the schema."""
    found = []
    for key, rule in schema["properties"].items():
        if "maximum" in rule:
            found.append((key, rule["maximum"] + 1))
        if "minimum" in rule:
            found.append((key, rule["minimum"] - 1))
    return found


def test_a_shell_timeout_above_the_maximum_the_model_was_told_is_refused_in_one_sentence(tmp_path, api):
    api.reset()
    api.enqueue("Hello.")
    api.enqueue("Looked.")
    turn_then_subagent(tmp_path / "first", api)
    shell = next(tool for tool in api.requests[0].body["tools"] if tool["name"] == "shell")
    maximum = shell["input_schema"]["properties"]["timeout_seconds"].get("maximum")
    assert maximum is not None  # the model is told the bound the check holds it to
    api.reset()
    api.enqueue(Reply([tool_use("shell", {"command": "echo hi", "timeout_seconds": maximum + 1}, id="s1")]))
    api.enqueue("Refused, then.")
    api.enqueue(Reply([tool_use("shell", {"command": "echo hi", "timeout_seconds": maximum + 1}, id="s2")]))
    api.enqueue("Refused, then.")
    tools = turn_then_subagent(tmp_path / "second", api)
    assert tools.ran == []
    for request in (api.requests[1], api.requests[3]):  # the turn's, then the subagent's
        result = request.body["messages"][-1]["content"][0]
        assert result["is_error"] is True
        said = result["content"][0]["text"]
        assert ONE_SENTENCE.match(said), said
        assert said == f"shell: timeout_seconds must be at most {maximum}; got {maximum + 1}."


@pytest.mark.parametrize("tool", [tool for tool in offered(TURN) if tool.checked], ids=lambda tool: tool.name)
def test_every_bound_and_every_unknown_input_of_a_work_tool_is_refused_in_one_sentence(tool):
    base = {key: "x" for key in tool.input_schema["required"]}
    cases = [dict(base, **{key: value}) for key, value in outside(tool.input_schema)]
    cases.append(dict(base, not_an_input=1))
    for tool_input in cases:
        said = tool.check(tool_input)
        assert said is not None and ONE_SENTENCE.match(said), (tool_input, said)
    assert tool.check(base) is None


def test_the_approval_question_and_the_mcp_tools_are_the_registrys():
    assert set(ASKING_TOOLS) == {"shell", "write", "edit"}  # [H4]
    assert approval_summary("shell", {"command": "make test"}) == "shell: make test"
    assert approval_summary("search", {"query": "x"}) == "search"
    assert [tool.name for tool in offered(MCP)] == ["zoom", "date", "search", "view", "send"]
    assert all(tool.mcp_description for tool in offered(MCP))
    assert {tool.name for tool in TOOLS} == {"zoom", "date", "search", "shell", "read", "write", "edit", "agent",
                                             "tell", "view", "send"}
