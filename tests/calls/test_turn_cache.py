"""Strategy: a scripted chat of whole turns — the real `Turn` with its tool loop, the real
compactor, the memory service on a real store — against the local Messages API and its model of
Anthropic's prompt cache, through the real SDK. The model's answers are scripted: a compaction
gets a line of 380–512 bytes, a turn first zooms into the oldest message, then replies with text of
the gist's sizes. The compactor is never late (the test waits for it between turns), and the
server's clock moves 30 s between turns. The figure is the part of each turn request's prompt read
from the cache, for the first request of each turn and for all of them, beside the gist's 98.6 %.

The default run is 20 turns; EVER_LONG_TESTS=1 runs 300 (the chat's view passes its ceiling and
batches several times), prints the figures and holds them to the floor of 96 %.
"""

import asyncio
import hashlib
import os
import random

import pytest

from harness.calls.approval import Approval
from harness.calls.client import Client, ClientSettings
from harness.calls.compactor import Compactor, Compress, MemorySettings, Merge
from harness.calls.compactor import Job as CompactorJob
from harness.calls.prompt import Prompt
from harness.calls.tools import WorkTools
from harness.calls.turn import Turn, TurnSettings
from harness.localapi.server import LocalAPI, Reply, text, tool_use
from harness.memory.service import Job, JobResult, Memory

LONG = os.environ.get("EVER_LONG_TESTS") == "1"
TURNS = 300 if LONG else 20
MODEL = "claude-opus-4-8"  # a model the strict local API knows; minimum cacheable 1,024


def respond(body: dict) -> Reply:
    last = body["messages"][-1]["content"]
    said = last[-1].get("text", "") if isinstance(last, list) else last
    digest = hashlib.sha256(repr(body["messages"][-1]).encode()).hexdigest()
    if said.startswith("Compaction:"):
        size = 380 + int(digest[:8], 16) % 133
        return Reply(("line " + digest * 12)[:size])
    if len(body["messages"]) == 1:
        return Reply([text("Let me look."), tool_use("zoom", {"id": 0, "n": 1}, id="z" + digest[:8])])
    rng = random.Random(digest)
    return Reply("Reply " + " ".join(rng.choice(("view", "cache", "node", "fix", "path")) for _ in range(rng.randint(20, 300))))


def share(usages) -> float:
    read = sum(u["cache_read_input_tokens"] for u in usages)
    prompt = sum(u["input_tokens"] + u["cache_creation_input_tokens"] + u["cache_read_input_tokens"] for u in usages)
    return read / prompt if prompt else 0.0


@pytest.mark.slow
def test_turns_read_their_prefix_from_the_cache(tmp_path):
    rng = random.Random(5)

    async def chat(api: LocalAPI):
        client = Client(ClientSettings(api_key="test-key", base_url=api.base_url))
        prompt = Prompt.build()
        compactor = Compactor(client, prompt, MemorySettings(model=MODEL))

        async def build(job: Job) -> JobResult:
            task = Compress(job.kind, job.text) if job.l == 0 else Merge(*job.halves)
            result = await compactor.build(CompactorJob(job.l, job.i, job.context, task))
            return JobResult(result.text, result.failure or "")

        memory = Memory.open(tmp_path, build=build)
        tools = WorkTools(str(tmp_path), Approval(yes=True))
        try:
            for k in range(TURNS):
                turn = Turn(memory, client, prompt, tools, TurnSettings(MODEL, 20.0, workdir="/w"))
                await turn.run("Please " + " ".join(rng.choice(("do", "check", "the", "file", "now")) for _ in range(rng.randint(10, 250))))
                await memory.idle()
                api.clock.advance(30)
            return memory.planner.T, memory.planner.view.bytes
        finally:
            memory.close()
            await client.aclose()

    with LocalAPI(responder=respond) as api:
        T, view_bytes = asyncio.run(chat(api))
        requests = api.requests
        turn_requests = [(k, r) for k, r in enumerate(requests) if r.body and not _is_compaction(r.body)]
    all_turns = [_usage(r) for _, r in turn_requests]
    # a turn's first request carries one message: [view, state, words]; the tool loop adds more
    first_of_turn = [_usage(r) for _, r in turn_requests if len(r.body["messages"]) == 1]
    compactions = [_usage(r) for r in requests if r.body and _is_compaction(r.body)]
    figures = (f"{TURNS} turns, {T} messages, view {view_bytes:,} bytes: turns read "
               f"{share(all_turns):.1%} of their prompt from the cache (first request of each turn "
               f"{share(first_of_turn):.1%}; gist 98.6 %), compactions {share(compactions):.1%} (gist 96.2 %)")
    print(figures)
    assert len(first_of_turn) == TURNS and len(all_turns) == 2 * TURNS
    assert share(all_turns) > 0.5  # the cache is used at all; the floor below needs a long chat
    if LONG:
        assert share(all_turns) >= 0.96, figures


def _is_compaction(body: dict) -> bool:
    last = body["messages"][-1]["content"]
    said = last[-1].get("text", "") if isinstance(last, list) else last
    return said.startswith("Compaction:") or said.startswith("Too long:")


def _usage(request) -> dict:
    cache = request.cache
    return {"input_tokens": cache.input_tokens, "cache_creation_input_tokens": cache.cache_creation_input_tokens,
            "cache_read_input_tokens": cache.cache_read_input_tokens}


# ---------------------------------------------------------------- where the end mark goes [H11]


def placement_cost(tmp_path, end_mark_first_call: bool, tools: bool, turns: int = 12) -> float:
    """The turns' input cost, in input-token units (a write 1.25, a read 0.1, the rest 1), over
    `turns` turns that each zoom once (`tools`) or answer at once, on the local API's cache model."""

    def reply(body: dict) -> Reply:
        if not tools and len(body["messages"]) == 1 and not _is_compaction(body):
            return Reply("Reply " + "words " * 40)
        return respond(body)

    async def chat(api: LocalAPI):
        client = Client(ClientSettings(api_key="test-key", base_url=api.base_url))
        prompt = Prompt.build()

        async def build(job: Job) -> JobResult:
            return JobResult(f"{job.kind}: " + "s" * 400 if job.l == 0 else "merged " + "m" * 400)

        memory = Memory.open(tmp_path / f"{end_mark_first_call}-{tools}", build=build)
        try:
            rng = random.Random(7)
            for _ in range(turns):
                settings = TurnSettings(MODEL, 20.0, workdir="/w", end_mark_first_call=end_mark_first_call)
                turn = Turn(memory, client, prompt, WorkTools(str(tmp_path), Approval(yes=True)), settings)
                await turn.run("Please " + " ".join(rng.choice(("do", "check", "the", "file")) for _ in range(120)))
                await memory.idle()
                api.clock.advance(30)
        finally:
            memory.close()
            await client.aclose()

    with LocalAPI(responder=reply) as api:
        asyncio.run(chat(api))
        usages = [_usage(r) for r in api.requests if r.body and not _is_compaction(r.body)]
    return sum(u["input_tokens"] + 1.25 * u["cache_creation_input_tokens"] + 0.1 * u["cache_read_input_tokens"]
               for u in usages)


def test_the_end_mark_on_the_first_call_pays_when_turns_call_tools(tmp_path):
    """[H11], measured: with a tool call in every turn the end mark saves the second call writing the
    view's tail, the state and the message again; with none it only pays 0.25x more for them."""
    with_tools = {mark: placement_cost(tmp_path, mark, tools=True) for mark in (True, False)}
    without = {mark: placement_cost(tmp_path, mark, tools=False) for mark in (True, False)}
    print(f"input cost, marked vs not: every turn zooms {with_tools[True]:,.0f} vs {with_tools[False]:,.0f}; "
          f"no turn does {without[True]:,.0f} vs {without[False]:,.0f}")
    assert with_tools[True] < with_tools[False]
    assert without[True] > without[False]
