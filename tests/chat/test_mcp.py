"""Strategy: `ever mcp` is driven by the official MCP SDK's own client, as Claude Code or Codex
would drive it: over stdio (the client starts the server) and over streamable HTTP (the server
prints its URL with the secret). The chat is written with planted words at known ids, so each
expected id comes from where the word was planted; the view is compared with `ever memory view`
(what the next turn sends), a separate path through the same owner socket or opened chat."""

import asyncio
import os
import re
import signal
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from harness.memory.store import Store
from tests.support.chat import EVER, ever

NOW = datetime(2026, 10, 8, 9, 30, tzinfo=UTC)


def planted_chat(home: Path) -> None:
    with Store.open(home) as store:
        for i in range(40):
            text = "the code word is PANGOLIN-73" if i == 23 else f"message {i}: garden, kettle and lamp"
            store.append_message("user" if i % 2 == 0 else "ever", text, NOW)


def plain_environment(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVER_"))}
    env.update(EVER_HOME=str(home), EVER_MODEL="claude-sonnet-4-6")
    return env


def text_of(result) -> str:
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def exercise(session: ClientSession) -> dict:
    await session.initialize()
    tools = (await session.list_tools()).tools
    found = {
        "tools": sorted(tool.name for tool in tools),
        "descriptions": {tool.name: tool.description for tool in tools},
        "view": text_of(await session.call_tool("view", {})),
        "zoom": text_of(await session.call_tool("zoom", {"id": 23, "n": 1})),
        "search": text_of(await session.call_tool("search", {"query": "PANGOLIN-73"})),
        "date": text_of(await session.call_tool("date", {"id": 23})),
        "bad_zoom": text_of(await session.call_tool("zoom", {"id": 3, "n": 2})),
    }
    return found


def check(found: dict, home: Path) -> None:
    assert found["tools"] == ["date", "search", "view", "zoom"]  # no `send` unless allowed
    assert "binary tree" in found["descriptions"]["view"] or "id+n" in found["descriptions"]["view"]
    expected_view = ever(["memory", "view"], plain_environment(home)).stdout.rstrip("\n")
    assert found["view"] == expected_view and found["view"].startswith("<chat>")
    assert found["zoom"] == "ever: the code word is PANGOLIN-73"  # message 23 is odd: Ever's
    head, hit = found["search"].splitlines()
    assert head.startswith("1 message match")
    assert re.match(r"23 \(in \d+\+\d+\) 2026-10-08T09:30:00\+00:00 ever: the code word is PANGOLIN-73$", hit)
    assert found["date"] == "2026-10-08T09:30:00+00:00"
    assert "multiple of n" in found["bad_zoom"]


def test_the_sdks_client_over_stdio_lists_the_tools_zooms_and_finds_a_planted_word(tmp_path):
    planted_chat(tmp_path)
    parameters = StdioServerParameters(command=EVER, args=["mcp"], env=plain_environment(tmp_path))

    async def run():
        async with stdio_client(parameters) as (read, write):
            async with ClientSession(read, write) as session:
                return await exercise(session)

    check(asyncio.run(asyncio.wait_for(run(), 60)), tmp_path)


@pytest.fixture
def http_server(tmp_path):
    planted_chat(tmp_path)
    process = subprocess.Popen([EVER, "mcp", "--http"], env=plain_environment(tmp_path), text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        line = process.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/\S+/mcp", line)
        assert url, (line, process.stderr.read() if process.poll() is not None else "")
        yield url.group(0), tmp_path
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def test_the_sdks_client_over_http_with_the_secret_reads_the_memory(http_server):
    url, home = http_server

    async def run():
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write) as session:
                return await exercise(session)

    check(asyncio.run(asyncio.wait_for(run(), 60)), home)


def test_a_request_without_the_secret_or_from_another_host_name_is_refused(http_server):
    url, _ = http_server
    base = url.rsplit("/", 2)[0]
    secret = url.rsplit("/", 2)[1]
    assert len(secret) >= 32
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "t", "version": "1"}}}
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    for wrong in (f"{base}/mcp", f"{base}/{secret[:-1]}x/mcp", f"{base}/"):
        response = httpx2.post(wrong, json=initialize, headers=headers)
        assert response.status_code == 404, wrong
        assert "PANGOLIN" not in response.text
    # A web page that rebinds its own name to 127.0.0.1 sends its own Host: refused.
    rebound = httpx2.post(url, json=initialize, headers={**headers, "host": "attacker.example:80"})
    assert rebound.status_code in (400, 403, 421)
    right = httpx2.post(url, json=initialize, headers=headers)
    assert right.status_code == 200


def test_send_is_offered_only_when_allowed(tmp_path):
    planted_chat(tmp_path)
    parameters = StdioServerParameters(command=EVER, args=["mcp", "--allow-send"], env=plain_environment(tmp_path))

    async def run():
        async with stdio_client(parameters) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return sorted(tool.name for tool in (await session.list_tools()).tools)

    assert asyncio.run(asyncio.wait_for(run(), 60)) == ["date", "search", "send", "view", "zoom"]


def test_a_send_answered_with_an_empty_reply_says_so_in_words(tmp_path, monkeypatch):
    """Found by `make sim` (seed 131): a turn whose reply was empty (the model's hostile empty
    reply) reached the MCP client as an empty result. The owner's answer is stood in for as the
    socket gives it for such a turn: logged, no error, an empty reply."""
    from harness.chat.config import load_settings
    from harness.chat.mcp_server import build_server
    from harness.owner import sender

    async def answered(settings, text, yes=False, key=None, say=None):
        return {"reply": "", "error": "", "logged": True, "id": 7}

    monkeypatch.setattr(sender, "send_once", answered)
    server = build_server(load_settings(plain_environment(tmp_path)), allow_send=True)
    result = asyncio.run(server.call_tool("send", {"message": "anything to add?"}))
    assert text_of(result) == ("[answered with an empty reply: the message is logged, and Ever said nothing "
                               "to it]")
