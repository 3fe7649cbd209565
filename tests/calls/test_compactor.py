"""Strategy: the compactor is tested as it runs, through the real SDK over real HTTP against the
local Messages API (harness/localapi/server.py), which records every request and keeps Anthropic's prompt
cache. Expected requests are written out here from the gist's layout (blocks of 4 lines, the marks,
the task texts), never read back from the compactor; expected token counts come from the local
API's documented rule, ceil(bytes of a block's canonical JSON / 4), written out again here. Each
fault the API can throw is queued before a good reply: the call must stay running (one `build`,
no failure), retry with the expected wait (the sleep is injected and recorded, so nothing sleeps
for real), and then give the line; a refused request or an empty reply must come back as a content
failure. The prefix gate is shown to matter: with it eight compactions on one prefix write it
once, without it all eight pay. One module-wide server, event loop and client serve every test
(a client costs a few hundred milliseconds to make); each test starts them afresh.

The replay of 3,000 messages at the gist's sizes runs only with EVER_LONG_TESTS=1 (`make check`);
the default run replays a short chat at small sizes.
"""

import asyncio
import dataclasses
import json
import os
import threading

import httpx2
import pytest

from harness.bench.replay import replay, share
from harness.calls.client import (
    Client,
    ClientSettings,
    PrefixGate,
    SettingsError,
    Usage,
)
from harness.calls.compactor import Compactor, Compress, Job, MemorySettings, Merge, job_for
from harness.calls.prompt import SYSTEM_PROMPT, TOOLS, Prompt
from harness.localapi.server import (
    LocalAPI,
    Reply,
    connection_reset,
    malformed_event,
    overloaded,
    rate_limited,
    server_error,
    status_error,
    stream_cut,
    stream_error,
    text,
    thinking,
    timeout,
)
from harness.memory.events import Built, Failed, Message
from harness.memory.planner import Config, Planner
from harness.memory.service import Paused
from tests.support.wire import system_sent, tools_sent

pytestmark = pytest.mark.local_api(every_reply_used=True)

MODEL = "claude-opus-4-8"  # minimum cacheable 1,024 tokens, so tools and system alone cache
EPHEMERAL = {"type": "ephemeral"}
RULER = "-" * 512
GOOD = "user: asked to fix the cache; ever: fixed it in src/cache.py."
LONG_TESTS = os.environ.get("EVER_LONG_TESTS") == "1"


def rule_tokens(block: dict) -> int:
    """The local API's token rule, written out again: ceil(bytes of the canonical JSON / 4)."""
    bare = {name: value for name, value in block.items() if name != "cache_control"}
    size = len(json.dumps(bare, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode())
    return -(-size // 4)


def context_lines(count: int, first: int = 0) -> tuple:
    """`count` rendered lines of 400 bytes each (`n+1|` then letters)."""
    return tuple(f"{n}+1|" + (chr(97 + n % 26) * (400 - len(f"{n}+1|"))) for n in range(first, first + count))


def marks(body: dict) -> int:
    count = sum("cache_control" in block for block in body["system"])
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, list):
            count += sum("cache_control" in block for block in content)
    return count


class Recorder:
    def __init__(self) -> None:
        self.sleeps = []
        self.retries = []

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def runner():
    with asyncio.Runner() as runner:
        yield runner


def base_settings(api: LocalAPI) -> ClientSettings:
    # attempts_max bounds a test that goes wrong; every test here needs far fewer attempts
    return ClientSettings(api_key="sk-test-secret-key", base_url=api.base_url, attempts_max=6,
                          read_seconds=10.0, attempt_seconds=30.0)


@pytest.fixture(scope="module")
def shared_client(shared_api, runner):
    client = Client(base_settings(shared_api))
    yield client
    runner.run(client.aclose())


@pytest.fixture
def recorder():
    return Recorder()


@pytest.fixture
def client(shared_client, api, recorder):
    """The module's client as new: its own gate, the recorded sleep, jitter off (random = 1)."""
    shared_client.settings = base_settings(api)
    shared_client.gate = PrefixGate()
    shared_client.sleep = recorder.sleep
    shared_client.random = lambda: 1.0
    shared_client.on_retry = recorder.retries.append
    sdk = shared_client.sdk
    yield shared_client
    shared_client.sdk = sdk


def compactor_for(client: Client, **memory) -> Compactor:
    memory.setdefault("model", MODEL)
    return Compactor(client, Prompt.build(""), MemorySettings(**memory))


def compress_job(i: int = 9, context: tuple = None, said: str = "Fix the cache, then tell me.") -> Job:
    return Job(0, i, context_lines(9) if context is None else context, Compress("user", said))


# ---------------------------------------------------------------- the request


def test_a_compaction_request_is_the_prefix_then_its_context_in_blocks_of_4_then_its_task(api, client, runner):
    api.enqueue(GOOD)
    lines = context_lines(9)
    result = runner.run(compactor_for(client).build(compress_job(9, lines)))
    assert result.event() == Built(0, 9, GOOD)
    body = api.requests[0].body
    task = ("Compaction: compress message 9 into one line of at most 512 bytes\n"
            "(about 70 words), the length of this ruler:\n" + RULER + "\n"
            "<input>\nuser: Fix the cache, then tell me.\n</input>")
    assert body == {
        "model": MODEL,
        "max_tokens": 16000,
        "stream": True,
        "tools": tools_sent(TOOLS),
        "tool_choice": {"type": "none"},
        "system": [{"type": "text", "text": SYSTEM_PROMPT, "cache_control": EPHEMERAL}],
        "messages": [{"role": "user", "content": [
            {"type": "text", "text": "<chat>\n" + "".join(line + "\n" for line in lines[0:4])},
            {"type": "text", "text": "".join(line + "\n" for line in lines[4:8]), "cache_control": EPHEMERAL},
            {"type": "text", "text": lines[8] + "\n</chat>"},
            {"type": "text", "text": task, "cache_control": EPHEMERAL},
        ]}],
    }
    # the marks: the system's end, the last whole block, the request's end; all 5-minute ones
    assert marks(body) == 3
    assert '"ttl"' not in json.dumps(body)


def test_a_merge_request_names_its_lines_and_messages_and_gives_both_as_the_view_shows_them(api, client, runner):
    api.enqueue(GOOD)
    job = Job(2, 3, context_lines(2), Merge("first half\nwith a break", "second half"))
    runner.run(compactor_for(client).build(job))
    content = api.requests[0].body["messages"][0]["content"]
    assert content[0] == {"type": "text", "text": "<chat>\n" + "".join(line + "\n" for line in context_lines(2))
                          + "</chat>"}
    assert content[1]["text"] == (
        "Compaction: merge lines 12+2 and 14+2, adjacent, into one line of at most\n"
        "512 bytes (about 70 words), the length of this ruler:\n" + RULER + "\n"
        "<chat> may hold their messages, 12 to 15, in more detail: take details\n"
        "of them from there too.\n<input>\n12+2|first half with a break\n14+2|second half\n</input>")
    assert marks(api.requests[0].body) == 2  # no whole block of 4 lines: no mark in the view


def test_a_compaction_reads_the_tools_and_system_prompt_a_turn_wrote(api, client, runner):
    prompt = Prompt.build("I am Ada; my code lives in ~/src.")
    view = [{"type": "text", "text": "<chat>\n" + "".join(line + "\n" for line in context_lines(4)),
             "cache_control": EPHEMERAL},
            {"type": "text", "text": "</chat>"},
            {"type": "text", "text": "What did we decide about the cache?", "cache_control": EPHEMERAL}]
    turn = {"model": MODEL, "max_tokens": 4096, "tools": tools_sent(prompt.tools), "system": system_sent(prompt.system),
            "thinking": {"type": "adaptive"}, "output_config": {"effort": "high"},
            "messages": [{"role": "user", "content": view}]}
    api.enqueue("We decided to batch.")
    runner.run(client.stream(turn))
    api.enqueue(GOOD)
    compactor = Compactor(client, prompt, MemorySettings(model=MODEL))
    runner.run(compactor.build(compress_job(9, context_lines(9, first=100))))
    turn_body, compaction_body = (request.body for request in api.requests)
    assert compaction_body["tools"] == turn_body["tools"]
    assert compaction_body["system"] == turn_body["system"]
    prefix_tokens = sum(rule_tokens(block) for block in tools_sent(TOOLS) + system_sent(prompt.system))
    assert prefix_tokens > 1024  # above the model's minimum, so the turn's entry exists
    assert api.requests[0].cache.cache_creation_input_tokens == api.requests[0].cache.prompt_tokens
    assert api.requests[1].cache.cache_read_input_tokens == prefix_tokens


# ---------------------------------------------------------------- the line


def follow_up(reply: str) -> str:
    """[gist §4] the "Too long" text, written out again."""
    return (f"Too long: your line is {len(reply.encode())} bytes, over the 512-byte limit. Write\n"
            "the whole line again for the same <input>, cutting just enough of the\n"
            "least valuable items to fit before this cut:\n" + reply.encode()[:512].decode() + "| ← LIMIT")


def test_a_line_too_long_gets_the_follow_up_in_the_same_conversation(api, client, runner):
    replies = ["a" * 600, "b" * 550, "c" * 400]
    for reply in replies:
        api.enqueue(reply)
    result = runner.run(compactor_for(client).build(compress_job()))
    assert result.event() == Built(0, 9, "c" * 400)
    assert result.calls == 3
    first, second, third = (request.body["messages"] for request in api.requests)
    assert second[0]["content"][:3] == first[0]["content"][:3]
    assert second[0]["content"][3] == {"type": "text", "text": first[0]["content"][3]["text"]}  # unmarked now
    assert second[1:] == [
        {"role": "assistant", "content": [{"type": "text", "text": "a" * 600}]},
        {"role": "user", "content": [{"type": "text", "text": follow_up("a" * 600), "cache_control": EPHEMERAL}]},
    ]
    assert third[:2] == second[:2]
    assert third[2] == {"role": "user", "content": [{"type": "text", "text": follow_up("a" * 600)}]}
    assert third[3:] == [
        {"role": "assistant", "content": [{"type": "text", "text": "b" * 550}]},
        {"role": "user", "content": [{"type": "text", "text": follow_up("b" * 550), "cache_control": EPHEMERAL}]},
    ]
    assert [marks(request.body) for request in api.requests] == [3, 3, 3]
    # each follow-up reads the whole conversation before it from the cache
    assert api.requests[1].cache.cache_read_input_tokens == api.requests[0].cache.prompt_tokens
    assert api.requests[2].cache.cache_read_input_tokens == api.requests[1].cache.prompt_tokens


def test_five_tries_at_most_and_the_shortest_line_is_kept_cut_to_512_bytes(api, client, runner):
    for size, letter in zip((900, 800, 700, 600, 550), "vwxyz"):
        api.enqueue(letter * size)
    result = runner.run(compactor_for(client).build(compress_job()))
    assert len(api.requests) == 5
    assert result.calls == 5
    assert result.text == "z" * 512
    assert len(result.follow_ups) == 4


def test_a_refusal_after_a_long_line_keeps_that_line(api, client, runner):
    api.enqueue("a" * 600)
    api.enqueue(Reply("I can't help with that.", stop_reason="refusal"))
    result = runner.run(compactor_for(client).build(compress_job()))
    assert result.event() == Built(0, 9, "a" * 512)
    assert len(api.requests) == 2


def test_thinking_is_set_from_memory_thinking_and_only_the_text_is_the_line(api, client, runner):
    api.enqueue([thinking("Keep the user's words first.", "sig-1"), text("a" * 520)])
    api.enqueue([thinking("Shorter.", "sig-2"), text(GOOD)])
    # Opus 4.8 has adaptive thinking and the effort xhigh (harness/calls/models.py)
    result = runner.run(compactor_for(client, thinking="xhigh", model="claude-opus-4-8").build(compress_job()))
    assert result.text == GOOD
    first, second = (request.body for request in api.requests)
    assert first["thinking"] == {"type": "adaptive"}
    assert first["output_config"] == {"effort": "xhigh"}
    assert second["messages"][1] == {"role": "assistant", "content": [{"type": "text", "text": "a" * 520}]}


def test_a_thinking_budget_is_extended_thinking(api, client, runner):
    api.enqueue(GOOD)
    # Haiku 4.5 takes a budget; Opus 4.8 takes adaptive thinking only (harness/calls/models.py)
    runner.run(compactor_for(client, thinking=2048, model="claude-haiku-4-5").build(compress_job()))
    body = api.requests[0].body
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert "output_config" not in body


# ---------------------------------------------------------------- faults


@pytest.mark.parametrize("fault, wait_seconds, said", [
    (rate_limited(retry_after_seconds=2.5), 2.5, "429 rate_limit_error"),  # retry-after-ms honoured
    (server_error(), 1.0, "500 api_error"),
    (overloaded(), 1.0, "529 overloaded_error"),
    (connection_reset(), 1.0, "the connection failed"),
    (stream_error(after_events=4), 1.0, "mid-stream overloaded_error"),
    (stream_cut(after_events=4), 1.0, "the stream broke (RemoteProtocolError)"),
    (malformed_event(after_events=4), 1.0, "a stream event was not JSON"),
], ids=["429", "500", "529", "reset", "mid-stream-error", "cut-stream", "malformed-event"])
def test_transient_trouble_is_retried_while_the_call_stays_running(api, client, runner, recorder, fault,
                                                                    wait_seconds, said):
    api.enqueue(fault)
    api.enqueue(GOOD)
    result = runner.run(compactor_for(client).build(compress_job()))
    assert result.event() == Built(0, 9, GOOD)
    assert (result.calls, result.attempts) == (1, 2)
    assert recorder.sleeps == [wait_seconds]
    assert [retry.description.startswith(said) for retry in recorder.retries] == [True]
    assert len(api.requests) == 2


def test_a_timeout_is_retried(api, client, runner, recorder):
    client.sdk = client.sdk.with_options(timeout=httpx2.Timeout(10.0, read=0.2))
    api.enqueue(timeout(delay_seconds=1.5))
    api.enqueue(GOOD)
    result = runner.run(compactor_for(client).build(compress_job()))
    assert result.event() == Built(0, 9, GOOD)
    assert result.attempts == 2
    assert recorder.sleeps == [1.0]
    assert recorder.retries[0].description == "the request timed out"
    assert api.requests[0].answer == "timeout"


def test_an_attempt_past_its_deadline_is_retried(api, client, runner, recorder):
    client.settings = dataclasses.replace(client.settings, attempt_seconds=0.2)
    api.enqueue(timeout(delay_seconds=1.5))
    api.enqueue(GOOD)
    result = runner.run(compactor_for(client).build(compress_job()))
    assert result.text == GOOD
    assert recorder.retries[0].description == "the attempt passed its deadline"


def test_retry_after_in_seconds_or_as_a_date_is_honoured(api, client, runner, recorder):
    client.wall_clock = lambda: 1_700_000_000.0  # 2023-11-14 22:13:20 UTC
    api.enqueue(status_error(429, "rate_limit_error", "Slow down.", (("retry-after", "3"),)))
    api.enqueue(status_error(529, "overloaded_error", "Overloaded",
                             (("retry-after", "Tue, 14 Nov 2023 22:13:27 GMT"),)))
    api.enqueue(GOOD)
    result = runner.run(compactor_for(client).build(compress_job()))
    assert result.text == GOOD
    assert recorder.sleeps == [3.0, 7.0]


def test_the_backoff_doubles_to_its_cap_and_its_jitter_keeps_half(api, client, runner, recorder):
    client.settings = dataclasses.replace(client.settings, backoff_max_seconds=3.0)
    for _ in range(4):
        api.enqueue(server_error())
    api.enqueue(GOOD)
    runner.run(compactor_for(client).build(compress_job()))
    assert recorder.sleeps == [1.0, 2.0, 3.0, 3.0]
    client.random = lambda: 0.0
    recorder.sleeps.clear()
    for _ in range(3):
        api.enqueue(overloaded())
    api.enqueue(GOOD)
    runner.run(compactor_for(client).build(compress_job()))
    assert recorder.sleeps == [0.5, 1.0, 1.5]


def test_an_attempt_cut_after_its_response_started_counts_what_it_cost(api, client, runner):
    api.enqueue(stream_cut(after_events=1))  # message_start only: the prompt was read and written
    api.enqueue(GOOD)
    result = runner.run(compactor_for(client).build(compress_job()))
    cut, good = (request.cache for request in api.requests)
    assert cut.cache_creation_input_tokens == cut.prompt_tokens
    assert good.cache_read_input_tokens == cut.prompt_tokens
    assert result.usage.cache_creation_input_tokens == cut.cache_creation_input_tokens
    assert result.usage.cache_read_input_tokens == good.cache_read_input_tokens


def test_transient_trouble_past_attempts_max_is_no_content_failure(api, client, runner):
    client.settings = dataclasses.replace(client.settings, attempts_max=3)
    for _ in range(3):
        api.enqueue(overloaded())
    with pytest.raises(Paused) as raised:  # no try counted: the compactor pauses
        runner.run(compactor_for(client).build(compress_job()))
    assert str(raised.value).startswith(f"{api.base_url} failed the call")


# ---------------------------------------------------------------- content failures


@pytest.mark.parametrize("item, reason", [
    ("", "the reply was empty"),
    (" \n\t ", "the reply was empty"),
    ([thinking("Nothing to say.", "sig")], "the reply was empty"),
    (Reply("I can't help with that.", stop_reason="refusal"), "the model refused"),
], ids=["empty", "blank", "thinking-only", "refusal"])
def test_a_reply_without_a_line_is_a_content_failure(api, client, runner, recorder, item, reason):
    api.enqueue(item)
    result = runner.run(compactor_for(client).build(compress_job()))
    assert result.event() == Failed(0, 9)
    assert result.failure.startswith(reason)
    assert result.text == ""
    assert len(api.requests) == 1  # never retried
    assert recorder.sleeps == []


KEY = "sk-test-secret-key"
# (the fault, then what the sentence must say besides the URL: the status and the remedy)
PAUSES = [
    (status_error(401, "authentication_error", f"invalid x-api-key {KEY}"), "401", "check the API key"),
    (status_error(402, "billing_error", "Your credit balance is too low."), "402", "add credit"),
    (status_error(403, "permission_error", "Not allowed."), "403", "permissions"),
    (status_error(404, "not_found_error", f"model: {MODEL}"), "404", f"check the model name ({MODEL})"),
    (status_error(400, "invalid_request_error", "thinking.type.adaptive is not supported"),
     "400", "memory.thinking"),
    (status_error(400, "invalid_request_error", "You have reached your specified API usage limits. "
                  "You will regain access on 2027-01-01."), "400", "spend limit"),
    (status_error(429, "rate_limit_error", "Monthly spend limit reached.",
                  error_code="enforced_spend_limit_reached"), "429", "spend limit"),
    (status_error(400, "invalid_request_error", "This organization is on hold.",
                  error_code="organization_on_hold"), "400", "on hold"),
    (status_error(413, "request_too_large", "Request exceeds the maximum allowed number of bytes."),
     "413", "too large"),
    (stream_error(after_events=4, error_type="invalid_request_error", message="Bad."),
     "mid-stream invalid_request_error", "check the model"),
]


@pytest.mark.parametrize("item, status, remedy", PAUSES,
                         ids=["401", "402", "403", "404", "400", "400-spend", "429-spend", "on-hold",
                              "413", "mid-stream-400"])
def test_an_error_that_is_not_the_models_answer_pauses_and_counts_no_try(api, client, runner, recorder,
                                                                         item, status, remedy):
    api.enqueue(item)
    with pytest.raises(Paused) as raised:
        runner.run(compactor_for(client).build(compress_job()))
    sentence = str(raised.value)
    assert sentence.startswith(f"{api.base_url} refused the call to {MODEL} ({status}")
    assert remedy in sentence
    assert KEY not in sentence and "secret-key" not in sentence
    assert len(api.requests) == 1 and recorder.sleeps == []  # never retried


def test_a_bare_status_reads_as_its_name():
    with LocalAPI() as api:
        url = api.base_url
        api.enqueue(status_error(501, "", ""))
        client = Client(ClientSettings(api_key=KEY, base_url=api.base_url, attempts_max=1))
        with pytest.raises(Exception) as raised:
            asyncio.run(client.stream({"model": MODEL, "max_tokens": 10,
                                       "messages": [{"role": "user", "content": "hi"}]}))
    assert str(raised.value).startswith(f"{url} failed the call to {MODEL} (501 Not Implemented)")


def test_the_api_key_is_never_shown():
    settings = ClientSettings.from_env({"ANTHROPIC_API_KEY": "sk-ant-very-secret",
                                        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    assert settings.base_url == "http://127.0.0.1:9"
    assert "very-secret" not in repr(settings)
    with pytest.raises(SettingsError) as raised:
        ClientSettings.from_env({})
    assert "ANTHROPIC_API_KEY" in str(raised.value)


# ---------------------------------------------------------------- the prefix gate


def eight_builds(api, client, runner):
    """Eight compactions on one context (messages 40 to 47, all unbuilt, so one context), their
    replies held until the test lets them go; how many requests arrived meanwhile."""
    gate = threading.Event()
    for n in range(8):
        api.enqueue(Reply(f"line {n}", gate=gate))
    compactor = compactor_for(client)
    lines = context_lines(40)

    async def run():
        builds = asyncio.gather(*(compactor.build(compress_job(40 + n, lines, f"message {40 + n}"))
                                  for n in range(8)))
        await asyncio.to_thread(api.wait_for_requests, 1)
        await asyncio.sleep(0.3)  # room for the others to arrive, if they were going to
        arrived = len(api.requests)
        gate.set()
        results = await builds
        return arrived, results

    return runner.run(run())


def test_eight_compactions_on_one_prefix_write_it_once(api, client, runner):
    arrived, results = eight_builds(api, client, runner)
    assert arrived == 1
    assert all(not result.failed for result in results)
    body = api.requests[0].body
    content = body["messages"][0]["content"]
    through_view = sum(rule_tokens(block) for block in tools_sent(TOOLS) + body["system"] + content[:10])
    assert "cache_control" in content[9]  # the last whole block: 40 lines, 10 blocks
    first, *others = (request.cache for request in api.requests)
    assert first.cache_read_input_tokens == 0
    assert first.cache_creation_input_tokens == first.prompt_tokens
    for other, request in zip(others, api.requests[1:]):
        tail = request.body["messages"][0]["content"][10:]
        assert other.cache_read_input_tokens == through_view
        assert other.cache_creation_input_tokens == sum(rule_tokens(block) for block in tail)


def test_without_the_gate_all_eight_pay_to_write_the_prefix(api, client, runner):
    client.gate = None
    arrived, results = eight_builds(api, client, runner)
    assert arrived == 8
    assert all(request.cache.cache_read_input_tokens == 0 for request in api.requests)


def test_a_call_waits_for_a_writer_within_20_blocks_of_its_marks_until_its_response_starts():
    compactor = Compactor(None, Prompt.build(""), MemorySettings(model=MODEL))
    # 6 tools and 1 system block come first: a view block k is prompt block 7 + k
    system_writer = compactor.request(compress_job(4, context_lines(4)))
    shorter = compactor.request(compress_job(40, context_lines(40)))  # its view mark: block 17
    reach = compactor.request(compress_job(120, context_lines(120)))  # mark 37: 20 back is 17
    beyond = compactor.request(compress_job(124, context_lines(124)))  # mark 38: 20 back is 18
    elsewhere = compactor.request(compress_job(40, context_lines(40, first=500)))
    other_model = dict(shorter, model="claude-opus-4-1")

    async def run():
        gate = PrefixGate(clock=lambda: 0.0)
        first = await gate.enter(system_writer)
        others = [asyncio.ensure_future(gate.enter(request)) for request in (shorter, other_model)]
        await asyncio.sleep(0)
        assert [task.done() for task in others] == [False, True]  # the system prompt is being written
        gate.started(first)  # now it is known written: nobody waits for it
        writer = await asyncio.wait_for(others[0], 1)
        assert len(writer.keys) == 2  # its view mark and its end
        waiting = asyncio.ensure_future(gate.enter(reach))
        free = [await asyncio.wait_for(gate.enter(request), 1) for request in (beyond, elsewhere)]
        await asyncio.sleep(0)
        assert not waiting.done()
        gate.started(writer)
        reader = await asyncio.wait_for(waiting, 1)
        # the writer's marks are known written now: a call on them again does not wait or write
        again = await asyncio.wait_for(gate.enter(shorter), 1)
        assert again.keys == frozenset()
        for each in [others[1].result(), reader, again] + free:
            gate.leave(each)
        assert gate.idle()

    asyncio.run(run())


# ---------------------------------------------------------------- cancellation


def test_a_cancelled_call_leaves_nothing_behind(api, client, runner):
    gate = threading.Event()
    api.enqueue(Reply("held", gate=gate))
    api.enqueue(GOOD)
    compactor = compactor_for(client)

    async def run():
        writer = asyncio.ensure_future(compactor.build(compress_job(9)))
        await asyncio.to_thread(api.wait_for_requests, 1)
        waiter = asyncio.ensure_future(compactor.build(compress_job(10)))  # same prefix: waits at the gate
        await asyncio.sleep(0.1)
        assert len(client.gate.writers) == 1
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        writer.cancel()
        with pytest.raises(asyncio.CancelledError):
            await writer
        assert client.gate.idle()
        gate.set()
        return await asyncio.wait_for(compactor.build(compress_job(11)), 5)

    result = runner.run(run())
    assert result.text == GOOD
    assert len(api.requests) == 2  # the cancelled waiter never sent


def test_a_reply_with_a_lone_surrogate_becomes_valid_text():
    class OneReply:
        async def stream(self, request):
            from harness.calls.client import Reply as ClientReply
            return ClientReply(({"type": "text", "text": "line \ud800 end"},), "end_turn", Usage(), Usage(), 1)

    result = asyncio.run(Compactor(OneReply(), Prompt.build(""), MemorySettings()).build(compress_job()))
    assert result.text == "line \ufffd end"


# ---------------------------------------------------------------- settings and jobs


def test_memory_settings_come_from_the_config():
    assert MemorySettings.from_config({}, "claude-sonnet-4-6") == MemorySettings("claude-haiku-5-5", "off", 16000)
    same = MemorySettings.from_config({"model": "turns", "thinking": "high"}, "claude-sonnet-4-6")
    assert (same.model, same.thinking) == ("claude-sonnet-4-6", "high")
    for memory in ({"modle": "x"}, {"thinking": "extreme"}, {"thinking": 512}, {"thinking": 20000},
                   {"thinking": True}, {"max_tokens": 0}, {"model": ""}):
        with pytest.raises(SettingsError):
            MemorySettings.from_config(memory, "claude-sonnet-4-6")


def test_a_job_comes_from_the_planners_context_and_texts():
    planner = Planner()
    for said in ("a", "b", "c"):
        planner.apply(Message("user", said))
    long = "x" * 600
    planner.apply(Message("tool", long))
    assert planner.running == [(0, 3)]
    job = job_for(planner, 0, 3)
    # messages 0 to 2 are short: their own lines; the compaction view has not merged yet
    assert job == Job(0, 3, ("0+1|user: a", "1+1|user: b", "2+1|user: c"), Compress("tool", long))
    line = "y" * 510
    planner.apply(Built(0, 3, line))
    assert (1, 1) in planner.running  # "user: c", a newline and the line: 518 bytes, not free
    merge = job_for(planner, 1, 1)
    assert merge.input == Merge("user: c", line)
    assert merge.context == ("0+1|user: a", "1+1|user: b", "2+1|user: c", "3+1|" + line)
    assert "merge lines 2+1 and 3+1" in merge.task()


# ---------------------------------------------------------------- the cache over a chat


def test_compactions_read_most_of_their_prefix_from_the_cache_over_a_short_chat(shared_api):
    shared_api.reset()
    small = Config(12_000, 6_000, 3_000, 1_500, 8, 3)
    figures = asyncio.run(replay(shared_api, 80, config=small, compaction_model=MODEL, turn_model=MODEL))
    print("\n" + figures.report())
    assert figures.view_batches >= 1
    assert figures.compaction_calls > 80
    # at these sizes a task (the message whole) is a large part of a prompt; the rest is the
    # tools, the system prompt and the context, which the cache should hold
    assert figures.context_share() > 0.85


@pytest.mark.skipif(not LONG_TESTS, reason="the 3,000-message replay runs under make check (EVER_LONG_TESTS=1)")
def test_compactions_read_their_prefix_from_the_cache_over_3000_messages_at_the_gists_sizes(shared_api):
    shared_api.reset()
    figures = asyncio.run(replay(shared_api, 3000))
    print("\n" + figures.report() + "\n(the gist: turns 98.6 %, compactions 96.2 %)")
    assert figures.view_batches >= 10
    # measured here: 90.1 % of the whole prompt, 96.3 % leaving out the tasks (docs/compactor.md)
    assert share(figures.compactions) > 0.88
    assert figures.context_share() > 0.95


def test_only_the_client_imports_the_sdk():
    import ast
    from pathlib import Path

    importers = set()
    for path in sorted(Path(__file__).resolve().parents[2].joinpath("harness").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(name.split(".")[0] == "anthropic" for name in names):
                importers.add(path.relative_to(path.parents[2]).as_posix())
    assert importers == {"harness/calls/client.py"}
