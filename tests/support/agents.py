"""Subagents as the chat runs them, for tests/calls/test_agents.py and the tests that drive the
same chat: request predicates that read what each request is (a subagent's carries SUBAGENT_ROLE
and "you are the subagent NAME"; a compaction starts "Compaction:"; anything else is the
master's), the local API's responder for compactions, an `Owner` opened on a temporary home, and
`until`, the one way these tests wait.
"""

import asyncio
import dataclasses
import re
import time
from pathlib import Path

from harness.calls.agents import SUBAGENT_ROLE
from harness.chat.config import load_settings
from harness.localapi.server import LocalAPI, Reply
from harness.memory import agentlog
from harness.memory.agentlog import AgentCaps
from harness.owner.owner import Owner


def first_texts(body):
    return [block.get("text", "") for block in body["messages"][0]["content"]]


def is_sub(name):
    def test(body):
        system = body["system"]
        return (system[-1]["text"] == SUBAGENT_ROLE
                and any(f"you are the subagent {name}]" in t for t in first_texts(body)))
    return test


def is_master(body):
    texts = [t for m in body["messages"] for b in m["content"] if isinstance(b, dict)
             for t in [b.get("text", "")]]
    return body["system"][-1]["text"] != SUBAGENT_ROLE and not any(t.startswith("Compaction:") for t in texts)


def compactions(body):
    last = body["messages"][-1]["content"]
    task = last[-1].get("text", "") if isinstance(last, list) else ""
    found = re.search(r"Compaction: compress message (\d+) ", task)
    if found:
        return Reply(f"summary of message {found.group(1)}, as the compactor wrote it.")
    if "Compaction:" in task:
        return Reply("two lines merged, as the compactor wrote it.")
    return Reply("Noted.")  # the master's reply to anything not scripted


# Opus 4.8's minimum cacheable prompt is 1,024 tokens: the tools and system alone cache
def settings_for(home: Path, api: LocalAPI, caps: AgentCaps = AgentCaps(), model: str = "claude-opus-4-8"):
    env = {"EVER_HOME": str(home), "ANTHROPIC_BASE_URL": api.base_url, "EVER_MODEL": model}
    # a hang guard: settle returns once the view is summarized
    return dataclasses.replace(load_settings(env), agent_caps=caps, settle_timeout_seconds=120)


async def chat_for(home, api, caps=AgentCaps(), report_turns=True):
    return await Owner.open(settings_for(home, api, caps), yes=True, api_key="test-key",
                           report_turns=report_turns)


async def until(condition, seconds=120.0):
    """The test waits (the product never does): poll a condition the test observes."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.01)


async def closed(chat):
    await chat.close()


def agent_records(home: Path, name: str):
    return agentlog.read_log(home / "chat" / "agents" / f"{name}.jsonl")


def run(coroutine):
    return asyncio.run(coroutine)
