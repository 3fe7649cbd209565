"""Strategy: the requests Ever builds, as the real Messages API would take them. The capability table
(harness/calls/models.py) is checked against the documentation sentences it cites; each numbered
item of the issue "Requests the real Messages API accepts" has a test that failed before the fix,
run through the real SDK against the strict local API (harness/localapi), which refuses what the
real one refuses (tests/localapi/test_localapi.py tests each of its rules).
"""

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

import anthropic
import pytest

from harness.calls import models
from harness.calls.approval import Approval
from harness.calls.client import UNUSABLE, Client, ClientSettings, classify
from harness.calls.compactor import Compactor, Compress, Job, MemorySettings
from harness.calls.models import capabilities, setting_problem
from harness.calls.prompt import Prompt
from harness.calls.tools import WorkTools
from harness.calls.turn import Turn, TurnSettings
from harness.calls.usage import read_usage
from harness.chat.config import ConfigError, check_memory_setting, load_settings, set_memory_model
from harness.localapi.server import Reply, stream_error, text, tool_use
from harness.memory.service import JobResult, Memory

NOW = datetime(2026, 11, 30, 9, 15, tzinfo=UTC)


def run(coroutine):
    return asyncio.run(coroutine)


# ---------------------------------------------------------------- the table


def test_the_table_is_dated_and_names_its_documentation():
    assert models.TABLE_DATE == "2026-12-01"
    for topic in ("effort levels", "adaptive and budget thinking", "minimum cacheable prompt",
                  "image limits", "prices"):
        assert models.SOURCES[topic].startswith("https://platform.claude.com/docs/en/")


@pytest.mark.parametrize("model, adaptive, budget, efforts, default_on", [
    # adaptive-thinking: "Older models (Claude Sonnet 4.5, Claude Opus 4.5, etc.) do not support
    # adaptive thinking and require thinking.type: "enabled" with budget_tokens."
    ("claude-sonnet-4-5", False, True, (), False),
    ("claude-opus-4-5", False, True, ("low", "medium", "high"), False),
    # the effort page's model list has no Haiku 4.5
    ("claude-haiku-4-5", False, True, (), False),
    # adaptive-thinking: "thinking.type: "enabled" and budget_tokens are deprecated on Claude Opus
    # 4.6 and Claude Sonnet 4.6" (deprecated, still taken); xhigh first came with Opus 4.7
    ("claude-sonnet-4-6", True, True, ("low", "medium", "high", "max"), False),
    # "Claude Opus 4.7 … only support adaptive thinking. Manual extended thinking … will return a 400"
    ("claude-opus-4-7", True, False, models.EFFORTS, False),
    # whats-new-sonnet-5: "adaptive thinking is on by default, manual extended thinking now
    # returns a 400 error"
    ("claude-sonnet-5", True, False, models.EFFORTS, True),
])
def test_each_models_thinking_is_as_its_documentation_says(model, adaptive, budget, efforts, default_on):
    row = capabilities(model)
    assert (row.adaptive, row.budget, row.efforts, row.thinking_default_on) == (adaptive, budget, efforts,
                                                                                default_on)


def test_retired_and_deprecated_models_are_marked():
    # SDK 2.14's anthropic/_data/deprecated_models.py: "claude-sonnet-4-5": "November 30th, 2026",
    # "claude-opus-4-5": "January 22nd, 2027"; model-deprecations: Haiku 3 retired on 2026-04-20
    assert (capabilities("claude-sonnet-4-5").status, capabilities("claude-sonnet-4-5").retired_on) == (
        models.RETIRED, "2026-11-30")
    assert capabilities("claude-opus-4-5").status == models.DEPRECATED
    assert capabilities("claude-3-haiku-20240307").status == models.RETIRED
    assert "retired on 2026-11-30" in setting_problem("claude-sonnet-4-5", "off", 16000)


def test_a_dated_id_finds_its_row_and_an_unknown_one_none():
    assert capabilities("claude-haiku-4-5-20251001") is capabilities("claude-haiku-4-5")
    assert capabilities("claude-tomorrow-9") is None


# ---------------------------------------------------------------- 1: the default compaction config


def compress_job() -> Job:
    return Job(0, 3, ("0+1|user: a",), Compress("user", "Fix the cache, then tell me."))


def test_1_the_default_compaction_request_passes_the_strict_api(api, tmp_path):
    api.reset()
    api.enqueue("user: asks to fix the cache first.")
    settings = load_settings({"EVER_HOME": str(tmp_path)})
    memory = MemorySettings.from_config({"model": settings.memory_model, "thinking": settings.memory_thinking},
                                        settings.model)

    async def go():
        async with Client(ClientSettings(api_key="k", base_url=api.base_url, attempts_max=1)) as client:
            return await Compactor(client, Prompt.build(""), memory).build(compress_job())

    result = run(go())
    assert result.failure is None and result.text == "user: asks to fix the cache first."
    (request,) = api.requests
    # [H32] Haiku 5.5 thinks unless told not to: the default "off" is sent as `disabled`
    assert request.status == 200 and request.body["model"] == "claude-haiku-5-5"
    assert "output_config" not in request.body and request.body["thinking"] == {"type": "disabled"}


def test_1_the_old_default_haiku_at_xhigh_is_what_the_strict_api_refuses(api):
    # what Ever sent before: adaptive thinking and an effort, on a model that has neither
    api.reset()
    sdk = anthropic.Anthropic(api_key="k", base_url=api.base_url, max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as refused:
        sdk.messages.create(model="claude-haiku-4-5", max_tokens=16000, thinking={"type": "adaptive"},
                            output_config={"effort": "xhigh"}, messages=[{"role": "user", "content": "hi"}])
    assert refused.value.body["error"]["type"] == "invalid_request_error"


def test_1_a_setting_the_model_lacks_is_refused_at_start_in_one_sentence_naming_its_options(tmp_path):
    (tmp_path / "config.toml").write_text('[memory]\nthinking = "xhigh"\n')
    settings = load_settings({"EVER_HOME": str(tmp_path)})
    with pytest.raises(ConfigError) as refused:
        check_memory_setting(settings)
    sentence = str(refused.value)
    assert sentence.count(". ") == 0 and sentence.endswith(".")
    assert "claude-haiku-5-5" in sentence and "takes off or an effort (low, medium, high)" in sentence


def test_1_memory_model_refuses_a_pair_the_model_lacks_and_saves_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("EVER_HOME", str(tmp_path))
    monkeypatch.delenv("EVER_MODEL", raising=False)
    with pytest.raises(ConfigError) as refused:
        set_memory_model("turns", "4096")  # Sonnet 5.5 takes no thinking budget
    assert "claude-sonnet-5-5" in str(refused.value) and "low, medium, high, xhigh, max" in str(refused.value)
    assert not (tmp_path / "config.toml").exists()
    assert "thinking: 4096" in set_memory_model("claude-haiku-4-5", "4096")  # a budget Haiku takes
    assert load_settings().memory_thinking == 4096


def test_1_the_config_can_say_a_thinking_budget_and_max():
    assert setting_problem("claude-haiku-4-5", 4096, 16000) is None
    assert setting_problem("claude-opus-4-8", "max", 16000) is None
    assert "below max_tokens" in setting_problem("claude-haiku-4-5", 16000, 16000)


# ---------------------------------------------------------------- the turn


async def answered(job) -> JobResult:
    return JobResult(f"{job.kind}: summary")


def make_turn(tmp_path: Path, api, model="claude-sonnet-4-6", **settings):
    memory = Memory.open(tmp_path / "home", build=answered)
    client = Client(ClientSettings(api_key="k", base_url=api.base_url, attempts_max=2, backoff_first_seconds=0.01),
                    sleep=lambda seconds: asyncio.sleep(0))
    ran = []

    class Recording(WorkTools):
        def run(self, name, tool_input):
            ran.append(name)
            return super().run(name, tool_input)

    tools = Recording(str(tmp_path), Approval(yes=True), secrets=("k",))
    turn = Turn(memory, client, Prompt.build(), tools,
                TurnSettings(model, 5.0, workdir=str(tmp_path), clock=lambda: NOW, home=tmp_path / "home",
                             **settings))
    return memory, client, turn, ran


def test_2_whitespace_text_before_a_tool_call_does_not_go_back(api, tmp_path):
    api.reset()
    (tmp_path / "a.txt").write_text("alpha\n")
    api.enqueue([text("\n\n"), tool_use("read", {"path": "a.txt"})])
    api.enqueue("It says alpha.")

    async def go():
        memory, client, turn, ran = make_turn(tmp_path, api)
        try:
            return await turn.run("what is in a.txt?")
        finally:
            memory.close()
            await client.aclose()

    result = run(go())
    assert result.error == "" and result.reply == "It says alpha."
    second = api.requests[1]
    assert second.status == 200
    assert [block["type"] for block in second.body["messages"][1]["content"]] == ["tool_use"]


@pytest.mark.parametrize("stop_reason", ["max_tokens", "refusal"])
def test_4_a_cut_or_refused_reply_runs_none_of_its_tool_calls_and_says_so(api, tmp_path, stop_reason):
    api.reset()
    api.enqueue(Reply([text("I will write it."), tool_use("write", {"path": "x.txt", "content": "cut"})],
                      stop_reason=stop_reason))

    async def go():
        memory, client, turn, ran = make_turn(tmp_path, api)
        try:
            return await turn.run("write x"), ran
        finally:
            memory.close()
            await client.aclose()

    result, ran = run(go())
    assert ran == [] and not (tmp_path / "x.txt").exists()
    assert result.error and len(api.requests) == 1
    assert stop_reason.replace("_", "") in result.error.replace("_", "").lower()


def test_4_a_paused_turn_goes_on(api, tmp_path):
    api.reset()
    api.enqueue(Reply([text("Searching.")], stop_reason="pause_turn"))
    api.enqueue("Found it.")

    async def go():
        memory, client, turn, ran = make_turn(tmp_path, api)
        try:
            return await turn.run("find it")
        finally:
            memory.close()
            await client.aclose()

    result = run(go())
    assert result.reply == "Found it." and result.error == ""
    assert api.requests[1].body["messages"][-1]["role"] == "assistant"


# ---------------------------------------------------------------- 5: off on Claude 5


def test_5_off_on_a_model_that_thinks_by_default_sends_thinking_disabled(api, tmp_path):
    api.reset()
    api.enqueue("user: a line.")
    memory = MemorySettings(model="claude-sonnet-5", thinking="off")

    async def go():
        async with Client(ClientSettings(api_key="k", base_url=api.base_url, attempts_max=1)) as client:
            return await Compactor(client, Prompt.build(""), memory).build(compress_job())

    assert run(go()).failure is None
    assert api.requests[0].body["thinking"] == {"type": "disabled"}
    assert "thinking" not in Compactor(None, Prompt.build(""), MemorySettings(model="claude-haiku-4-5")).request(
        compress_job())


# ---------------------------------------------------------------- 6: every attempt's usage


def test_6_a_turn_records_the_usage_of_an_attempt_cut_mid_stream_too(api, tmp_path):
    api.reset()
    api.enqueue(stream_error(after_events=4))  # billed: its response had started
    api.enqueue("Done.")

    async def go():
        memory, client, turn, ran = make_turn(tmp_path, api)
        try:
            return await turn.run("hi")
        finally:
            memory.close()
            await client.aclose()

    assert run(go()).reply == "Done."
    (record,) = read_usage(tmp_path / "home").records
    first, second = (request.cache for request in api.requests)
    assert record.prompt_tokens == first.prompt_tokens + second.prompt_tokens


def test_6_a_spend_limit_429_is_not_retried():
    import httpx2  # the SDK's own error types, as its client raises them
    response = httpx2.Response(429, request=httpx2.Request("POST", "http://x/v1/messages"))
    limit = anthropic.RateLimitError("spend", response=response, body={
        "type": "error", "error": {"type": "billing_error",
                                   "message": "You have reached your specified workspace API usage limits."}})
    rate = anthropic.RateLimitError("rate", response=response, body={
        "type": "error", "error": {"type": "rate_limit_error", "message": "Number of request tokens has exceeded "
                                   "your per-minute rate limit"}})
    assert classify(limit) == UNUSABLE
    assert classify(rate) != UNUSABLE


# ---------------------------------------------------------------- 7: cache.marks = false


def test_7_cache_marks_false_sends_no_mark(api, tmp_path):
    api.reset()
    api.enqueue("user: a line.")
    api.enqueue("Hi.")

    async def go():
        async with Client(ClientSettings(api_key="k", base_url=api.base_url, attempts_max=1)) as client:
            await Compactor(client, Prompt.build(""), MemorySettings(), marks=False).build(compress_job())
        memory, client, turn, ran = make_turn(tmp_path, api, cache_marks=False)
        try:
            return await turn.run("hi")
        finally:
            memory.close()
            await client.aclose()

    assert run(go()).reply == "Hi."
    assert [request.status for request in api.requests] == [200, 200]
    for request in api.requests:
        assert "cache_control" not in json.dumps(request.body)


# ---------------------------------------------------------------- 3: images by pixels


def png(width: int, height: int) -> bytes:
    import struct
    import zlib
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr
            + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr)))


def image_block(width: int, height: int) -> dict:
    import base64
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                        "data": base64.b64encode(png(width, height)).decode("ascii")}}


def test_3_an_image_over_8000_pixels_is_neither_kept_nor_sent(tmp_path):
    from harness.memory.images import ToolResult, kept
    result = kept(ToolResult(({"type": "text", "text": "shot.png"}, image_block(9000, 600)), False), tmp_path)
    assert [block["type"] for block in result.content] == ["text", "text"]
    assert "9000×600 px, over the API's 8,000 pixels a side" in result.content[1]["text"]
    assert not (tmp_path / "images").exists() or not any((tmp_path / "images").iterdir())


def test_3_more_than_20_images_drop_those_over_2000_pixels_and_the_strict_api_takes_the_rest(api):
    from harness.calls.anthropic import finished
    content = [image_block(2500, 100)] + [image_block(10, 10) for _ in range(20)] + [
        {"type": "text", "text": "what are these?"}]
    request = finished({"model": "claude-sonnet-4-6", "max_tokens": 64,
                        "messages": [{"role": "user", "content": content}]})
    assert request["messages"][0]["content"][0]["type"] == "text"
    assert "2,000 pixels a side" in request["messages"][0]["content"][0]["text"]
    assert content[0]["type"] == "image"  # the conversation itself keeps its image
    api.reset()
    api.enqueue("Twenty squares.")
    sdk = anthropic.Anthropic(api_key="k", base_url=api.base_url, max_retries=0)
    assert sdk.messages.create(**request).content[0].text == "Twenty squares."
    with pytest.raises(anthropic.BadRequestError):
        sdk.messages.create(model="claude-sonnet-4-6", max_tokens=64, messages=[{"role": "user", "content": content}])


def test_1_ever_send_with_a_setting_the_model_lacks_says_so_in_one_sentence_and_keeps_nothing(tmp_path, api):
    import os
    import subprocess
    import sys
    (tmp_path / "config.toml").write_text('[memory]\nthinking = "xhigh"\n')
    env = dict(os.environ, EVER_HOME=str(tmp_path), ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL=api.base_url)
    env.pop("EVER_MODEL", None)
    api.reset()
    done = subprocess.run([sys.executable, "-m", "harness", "send", "hello"], env=env, capture_output=True,
                          text=True, timeout=60)
    # a setting to fix first: exit 1, nothing of the message kept (docs/reliability.md's exit codes)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "memory.thinking 'xhigh' does not suit claude-haiku-5-5" in done.stderr
    assert api.requests == []  # refused before any call
    memory = Memory.open(tmp_path)
    try:
        assert memory.store.count == 0
        assert memory.inbox.pending() == []
    finally:
        memory.close()
