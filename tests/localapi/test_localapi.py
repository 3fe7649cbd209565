"""Strategy: the local Messages API is only worth having if it answers as Anthropic's does, so every
test talks to it through the real SDK (sync and async) over real HTTP on localhost, or through
`http.client` where the wire itself is the claim (SSE framing, the API's 400s for bodies the SDK
would refuse to send). Each reply shape (text, thinking with signature, tool use; streamed and
whole) must come back assembled by the SDK; each fault must surface as the exception the SDK really
raises; the prompt cache must follow Anthropic's published rules (marks, prefix order, 20-block
lookback, 5-minute life refreshed by reads, per-model caches, a minimum length, entries readable only
once the writer's response starts). Every expected token count is worked out by hand from the
module's documented rule, never read back from the server: a text block of n ASCII bytes is
`{"text":"…","type":"text"}`, n + 25 bytes, ceil((n + 25) / 4) tokens.
"""

import asyncio
import http.client
import json
import threading

import anthropic
import httpx2
import pytest

from harness.localapi.server import (
    LocalAPI,
    Reply,
    connection_reset,
    malformed_event,
    overloaded,
    rate_limited,
    server_error,
    stream_cut,
    stream_error,
    text,
    thinking,
    timeout,
    tool_use,
)

pytestmark = pytest.mark.local_api(every_reply_used=True)

MODEL = "claude-sonnet-4-6"  # published minimum: 2,048 tokens
EPHEMERAL = {"type": "ephemeral"}

# Sizes chosen so that n + 25 is a multiple of 4: the token counts are exact by hand.
SYSTEM = "S" * 8171       # 8,196 bytes as a block: 2,049 tokens, just over the 2,048 minimum
QUESTION = "Q" * 75       # 100 bytes: 25 tokens
SYSTEM_TOKENS = 2049
QUESTION_TOKENS = 25
OK_TOKENS = 7             # the reply "ok": {"text":"ok","type":"text"} is 27 bytes, ceil(27 / 4)


def marked(value: str, ttl: str | None = None) -> dict:
    mark = dict(EPHEMERAL) if ttl is None else {"type": "ephemeral", "ttl": ttl}
    return {"type": "text", "text": value, "cache_control": mark}


def rule_tokens(block: dict) -> int:
    """The documented rule, written out again here: ceil(bytes of the canonical JSON / 4)."""
    bare = {name: value for name, value in block.items() if name != "cache_control"}
    size = len(json.dumps(bare, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode())
    return -(-size // 4)


@pytest.fixture(scope="module")
def shared_client(shared_api):
    with anthropic.Anthropic(base_url=shared_api.base_url, api_key="test-key", max_retries=0) as sdk:
        yield sdk


@pytest.fixture
def client(api, shared_client):
    return shared_client


def ask(api, client, *, system=None, messages=None, model=MODEL, **options):
    """One non-streaming call answered "ok"; its usage as (read, written, input)."""
    api.enqueue("ok")
    if system is not None:
        options["system"] = system
    message = client.messages.create(model=model, max_tokens=64,
                                     messages=messages or [{"role": "user", "content": QUESTION}], **options)
    usage = message.usage
    assert usage.output_tokens == OK_TOKENS
    return usage.cache_read_input_tokens, usage.cache_creation_input_tokens, usage.input_tokens


def post(api, path: str, body, headers=None) -> tuple[int, dict, dict]:
    """A raw POST: (status, headers, parsed body)."""
    connection = http.client.HTTPConnection(api.base_url.removeprefix("http://"), timeout=60)  # a hang guard
    sent = {"content-type": "application/json", "anthropic-version": "2023-06-01", "x-api-key": "sk-raw-secret"}
    if headers is not None:
        sent = headers
    connection.request("POST", path, body=json.dumps(body).encode(), headers=sent)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, {name.lower(): value for name, value in response.getheaders()}, data


# ---------------------------------------------------------------- replies through the SDK


def test_a_streamed_text_reply_is_assembled_by_the_sdk(api, client):
    said = "The view holds one line per message, merged as it ages."  # 55 chars: 3 text deltas
    api.enqueue(said)
    with client.messages.stream(model=MODEL, max_tokens=100,
                                messages=[{"role": "user", "content": "What is the view?"}]) as stream:
        pieces = list(stream.text_stream)
        message = stream.get_final_message()
    assert pieces == [said[:24], said[24:48], said[48:]]
    assert [block.type for block in message.content] == ["text"]
    assert message.content[0].text == said
    assert message.stop_reason == "end_turn"
    assert message.model == MODEL
    # "What is the view?" is 17 bytes: ceil(42 / 4) = 11; the reply 55 bytes: ceil(80 / 4) = 20.
    assert message.usage.input_tokens == 11
    assert message.usage.output_tokens == 20
    assert message.usage.cache_read_input_tokens == 0
    assert message.usage.cache_creation_input_tokens == 0


def test_the_wire_carries_the_api_event_sequence_with_a_ping_in_chunks(api):
    api.enqueue("Hello.")
    body = {"model": MODEL, "max_tokens": 10, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    status, headers, data = post(api, "/v1/messages", body)
    assert status == 200
    assert headers["content-type"].startswith("text/event-stream")
    assert headers["transfer-encoding"] == "chunked"
    events = [event for event in data.decode().split("\n\n") if event]
    names = [event.split("\n")[0].removeprefix("event: ") for event in events]
    assert names == ["message_start", "content_block_start", "ping", "content_block_delta",
                     "content_block_stop", "message_delta", "message_stop"]
    datas = [json.loads(event.split("\n")[1].removeprefix("data: ")) for event in events]
    assert [data["type"] for data in datas] == names
    assert datas[0]["message"]["content"] == []
    assert datas[0]["message"]["stop_reason"] is None
    assert datas[3]["delta"] == {"type": "text_delta", "text": "Hello."}
    assert datas[5]["delta"]["stop_reason"] == "end_turn"
    # "Hello." is 6 bytes: ceil(31 / 4) = 8 output tokens; "hi": ceil(27 / 4) = 7 input tokens.
    assert datas[5]["usage"]["output_tokens"] == 8
    assert datas[5]["usage"]["input_tokens"] == 7


def test_thinking_arrives_with_its_signature(api, client):
    api.enqueue([thinking("First, the due order; then the sizes.", "sig-abc"), text("Done.")])
    with client.messages.stream(model=MODEL, max_tokens=4096, thinking={"type": "enabled", "budget_tokens": 2048},
                                messages=[{"role": "user", "content": "Plan."}]) as stream:
        kinds = [event.type for event in stream]
        message = stream.get_final_message()
    assert [block.type for block in message.content] == ["thinking", "text"]
    assert message.content[0].thinking == "First, the due order; then the sizes."
    assert message.content[0].signature == "sig-abc"
    assert message.content[1].text == "Done."
    assert "signature" in kinds
    assert kinds.count("thinking") == 2  # 37 characters of thinking: two thinking_delta events


def test_tool_use_input_is_parsed_from_its_json_pieces(api, client):
    tool_input = {"path": "notes/plan.md", "lines": [1, 20], "why": "to read the plan"}
    api.enqueue([text("Let me look."), tool_use("read_file", tool_input, id="toolu_01")])
    with client.messages.stream(model=MODEL, max_tokens=100, messages=[{"role": "user", "content": "Read it."}],
                                tools=[{"name": "read_file", "input_schema": {"type": "object"}}]) as stream:
        partials = [event.partial_json for event in stream if event.type == "input_json"]
        message = stream.get_final_message()
    assert len(partials) >= 3
    assert "".join(partials) == json.dumps(tool_input)
    assert message.stop_reason == "tool_use"
    assert message.content[1].type == "tool_use"
    assert message.content[1].id == "toolu_01"
    assert message.content[1].name == "read_file"
    assert message.content[1].input == tool_input


def test_a_whole_reply_comes_back_without_a_stream(api, client):
    api.enqueue(Reply([tool_use("search", {"q": "cache"})], stop_reason="tool_use"))
    message = client.messages.create(model=MODEL, max_tokens=100, messages=[{"role": "user", "content": "Find."}])
    assert message.stop_reason == "tool_use"
    assert message.content[0].input == {"q": "cache"}
    assert message.content[0].id.startswith("toolu_")
    assert message.id.startswith("msg_")
    # The tool_use block's canonical JSON: {"id":"toolu_local_000001_0","input":{"q":"cache"},
    # "name":"search","type":"tool_use"} is 85 bytes: 22 tokens.
    assert message.content[0].id == "toolu_local_000001_0"
    assert message.usage.output_tokens == 22


def test_the_async_client_streams_and_creates(api):
    api.enqueue("streamed reply")
    api.enqueue("whole reply")

    async def run():
        async with anthropic.AsyncAnthropic(base_url=api.base_url, api_key="test-key", max_retries=0) as sdk:
            async with sdk.messages.stream(model=MODEL, max_tokens=10,
                                           messages=[{"role": "user", "content": "a"}]) as stream:
                streamed = await stream.get_final_message()
            whole = await sdk.messages.create(model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "b"}])
            return streamed, whole

    streamed, whole = asyncio.run(run())
    assert streamed.content[0].text == "streamed reply"
    assert whole.content[0].text == "whole reply"


def test_count_tokens_answers_the_prompt_size_without_taking_a_reply(api, client):
    api.enqueue("kept for later")
    counted = client.messages.count_tokens(model=MODEL, system=SYSTEM,
                                           messages=[{"role": "user", "content": QUESTION}])
    assert counted.input_tokens == SYSTEM_TOKENS + QUESTION_TOKENS
    assert api.pending == 1
    later = client.messages.create(model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "x"}])
    assert later.content[0].text == "kept for later"


# ---------------------------------------------------------------- scripting


def test_a_reply_with_a_predicate_goes_to_the_request_it_matches(api, client):
    api.enqueue("for the compaction", when=lambda body: "Compaction:" in json.dumps(body["messages"]))
    api.enqueue("for the turn")
    turn = client.messages.create(model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "Hi"}])
    compaction = client.messages.create(model=MODEL, max_tokens=10,
                                        messages=[{"role": "user", "content": "Compaction: compress message 7"}])
    assert turn.content[0].text == "for the turn"
    assert compaction.content[0].text == "for the compaction"
    assert api.pending == 0


def test_the_responder_answers_when_the_queue_is_empty():
    def summarize(body):
        last = body["messages"][-1]["content"]
        return f"Summary: {last.split(' of ')[0]}"

    with LocalAPI(responder=summarize) as api, \
            anthropic.Anthropic(base_url=api.base_url, api_key="k", max_retries=0) as sdk:
        api.enqueue("scripted first")
        answers = [sdk.messages.create(model=MODEL, max_tokens=10,
                                       messages=[{"role": "user", "content": f"message number {n} of the chat"}]
                                       ).content[0].text for n in range(3)]
    assert answers == ["scripted first", "Summary: message number 1", "Summary: message number 2"]


def test_no_scripted_reply_is_a_clear_500(api, client):
    with pytest.raises(anthropic.InternalServerError) as raised:
        client.messages.create(model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "x"}])
    assert "no scripted reply" in raised.value.api_message


# ---------------------------------------------------------------- recording


def test_each_request_is_recorded_exactly_and_the_key_never(api):
    api.enqueue("ok")
    with anthropic.Anthropic(base_url=api.base_url, api_key="sk-ant-very-secret", max_retries=0) as sdk:
        sdk.messages.create(model=MODEL, max_tokens=64, system=[marked(SYSTEM)],
                            messages=[{"role": "user", "content": [marked(QUESTION)]}])
    status, _, _ = post(api, "/v1/messages/count_tokens",
                        {"model": MODEL, "messages": [{"role": "user", "content": "x"}]},
                        {"content-type": "application/json", "anthropic-version": "2023-06-01",
                         "x-api-key": "sk-raw-secret"})
    assert status == 200
    first, second = api.requests
    assert first.method == "POST"
    assert first.path == "/v1/messages"
    assert first.body == {"model": MODEL, "max_tokens": 64, "system": [marked(SYSTEM)],
                          "messages": [{"role": "user", "content": [marked(QUESTION)]}]}
    assert first.headers["anthropic-version"]
    assert first.headers["authorization"] == "<redacted>"
    assert second.headers["x-api-key"] == "<redacted>"
    assert first.time_seconds == 0
    assert first.status == 200
    assert second.path == "/v1/messages/count_tokens"
    assert second.cache is None
    recorded = repr(api.requests)
    assert "very-secret" not in recorded
    assert "raw-secret" not in recorded


# ---------------------------------------------------------------- faults


def test_a_429_is_a_rate_limit_error_with_its_retry_after(api, client):
    api.enqueue(rate_limited(retry_after_seconds=2.5))
    with pytest.raises(anthropic.RateLimitError) as raised:
        client.messages.create(model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "x"}])
    assert raised.value.status_code == 429
    assert raised.value.type == "rate_limit_error"
    assert raised.value.response.headers["retry-after"] == "3"
    assert raised.value.response.headers["retry-after-ms"] == "2500"


def test_the_sdk_retries_a_429_after_its_retry_after_ms(api):
    api.enqueue(rate_limited(retry_after_seconds=0.05))
    api.enqueue("after the wait")
    with anthropic.Anthropic(base_url=api.base_url, api_key="k", max_retries=1) as sdk:
        message = sdk.messages.create(model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "x"}])
    assert message.content[0].text == "after the wait"
    assert [request.headers["x-stainless-retry-count"] for request in api.requests] == ["0", "1"]
    assert [request.status for request in api.requests] == [429, 200]


def test_a_500_is_an_internal_server_error(api, client):
    api.enqueue(server_error())
    with pytest.raises(anthropic.InternalServerError) as raised:
        client.messages.create(model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "x"}])
    assert raised.value.status_code == 500
    assert raised.value.type == "api_error"


def test_a_529_is_an_overloaded_api_status_error(api, client):
    api.enqueue(overloaded())
    with pytest.raises(anthropic.APIStatusError) as raised:
        with client.messages.stream(model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "x"}]) as stream:
            stream.get_final_message()
    assert isinstance(raised.value, anthropic.InternalServerError)
    assert raised.value.status_code == 529
    assert raised.value.type == "overloaded_error"


def test_an_error_event_mid_stream_is_an_api_status_error_with_status_200(api, client):
    api.enqueue(stream_error(after_events=4))
    received = []
    with pytest.raises(anthropic.APIStatusError) as raised:
        with client.messages.stream(model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "x"}]) as stream:
            for piece in stream.text_stream:
                received.append(piece)
    # Four events: message_start, content_block_start, ping, then the first 24 characters.
    assert received == ["This reply is cut off be"]
    assert type(raised.value) is anthropic.APIStatusError
    assert raised.value.status_code == 200
    assert raised.value.type == "overloaded_error"


def test_a_timeout_is_an_api_timeout_error(api, client):
    api.enqueue(timeout(delay_seconds=2))
    with pytest.raises(anthropic.APITimeoutError):
        client.with_options(timeout=0.3).messages.create(model=MODEL, max_tokens=10,
                                                         messages=[{"role": "user", "content": "x"}])
    assert api.requests[0].answer == "timeout"


def test_a_reset_connection_is_an_api_connection_error(api, client):
    api.enqueue(connection_reset())
    with pytest.raises(anthropic.APIConnectionError) as raised:
        client.messages.create(model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "x"}])
    assert not isinstance(raised.value, anthropic.APITimeoutError)


def test_a_stream_cut_before_message_stop_raises_the_transport_error_unwrapped(api, client):
    # The SDK does not wrap errors raised while a stream is read: the caller sees httpx2's own.
    api.enqueue(stream_cut(after_events=4))
    received = []
    with pytest.raises(httpx2.RemoteProtocolError):
        with client.messages.stream(model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "x"}]) as stream:
            for piece in stream.text_stream:
                received.append(piece)
    assert received == ["This reply is cut off be"]


def test_a_body_cut_short_without_a_stream_is_an_api_connection_error(api, client):
    api.enqueue(stream_cut())
    with pytest.raises(anthropic.APIConnectionError):
        client.messages.create(model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "x"}])


def test_a_malformed_event_is_a_json_decode_error(api, client):
    api.enqueue(malformed_event(after_events=4))
    with pytest.raises(json.JSONDecodeError):
        with client.messages.stream(model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "x"}]) as stream:
            stream.get_final_message()


# ---------------------------------------------------------------- validation


def test_five_cache_marks_are_a_400_and_four_are_fine(api, client):
    five = [marked(f"part {n}") for n in range(5)]
    api.enqueue("ok")
    with pytest.raises(anthropic.BadRequestError) as raised:
        client.messages.create(model=MODEL, max_tokens=10, messages=[{"role": "user", "content": five}])
    assert raised.value.type == "invalid_request_error"
    assert raised.value.api_message == "A maximum of 4 blocks with cache_control may be provided. Found 5."
    assert api.requests[0].answer == "invalid"
    assert api.pending == 1  # a refused request takes no reply
    message = client.messages.create(model=MODEL, max_tokens=10, messages=[{"role": "user", "content": five[:4]}])
    assert message.content[0].text == "ok"


def test_the_top_level_mark_counts_as_a_fifth_mark(api, client):
    four = [marked(f"part {n}") for n in range(4)] + [text("unmarked")]
    with pytest.raises(anthropic.BadRequestError) as raised:
        client.messages.create(model=MODEL, max_tokens=10, cache_control=EPHEMERAL,
                               messages=[{"role": "user", "content": four}])
    assert "Found 5" in raised.value.api_message


@pytest.mark.parametrize("body, status, error_type, message", [
    ({"max_tokens": 5, "messages": [{"role": "user", "content": "x"}]},
     400, "invalid_request_error", "model: Field required"),
    ({"model": MODEL, "messages": [{"role": "user", "content": "x"}]},
     400, "invalid_request_error", "max_tokens: Field required"),
    ({"model": MODEL, "max_tokens": 5},
     400, "invalid_request_error", "messages: Field required"),
    ({"model": MODEL, "max_tokens": 5, "messages": []},
     400, "invalid_request_error", "messages: at least one message is required"),
    ({"model": MODEL, "max_tokens": 5, "messages": [{"role": "user", "content": "x"}], "temprature": 1},
     400, "invalid_request_error", "temprature: Extra inputs are not permitted"),
    ({"model": MODEL, "max_tokens": 5, "messages": [{"role": "system", "content": "x"}]},
     400, "invalid_request_error", "messages.0.role: Input should be 'user' or 'assistant'"),
    ({"model": MODEL, "max_tokens": 5, "messages": [{"role": "user", "content": [{"type": "text", "text": ""}]}]},
     400, "invalid_request_error", "messages.0.content.0: text content blocks must be non-empty"),
])
def test_a_request_the_api_refuses_is_a_400_that_says_why(api, body, status, error_type, message):
    got_status, _, data = post(api, "/v1/messages", body)
    error = json.loads(data)
    assert got_status == status
    assert error["type"] == "error"
    assert error["error"] == {"type": error_type, "message": message}


def test_a_request_without_a_key_is_a_401(api):
    status, _, data = post(api, "/v1/messages", {"model": MODEL}, {"anthropic-version": "2023-06-01"})
    assert status == 401
    assert json.loads(data)["error"]["type"] == "authentication_error"


def test_a_tool_result_without_its_tool_use_is_a_400(api, client):
    with pytest.raises(anthropic.BadRequestError) as raised:
        client.messages.create(model=MODEL, max_tokens=10, messages=[
            {"role": "user", "content": "Read it."},
            {"role": "assistant", "content": "Sure."},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "…"}]},
        ])
    assert "unexpected `tool_use_id` found in `tool_result` blocks: toolu_9" in raised.value.api_message


def test_thinking_needs_a_budget_below_max_tokens(api, client):
    with pytest.raises(anthropic.BadRequestError) as raised:
        client.messages.create(model=MODEL, max_tokens=1024, thinking={"type": "enabled", "budget_tokens": 1024},
                               messages=[{"role": "user", "content": "x"}])
    assert raised.value.api_message == "`max_tokens` must be greater than `thinking.budget_tokens`"


# ---------------------------------------------------------------- the prompt cache


def test_the_first_call_writes_and_the_same_call_reads(api, client):
    first = ask(api, client, system=[marked(SYSTEM)])
    second = ask(api, client, system=[marked(SYSTEM)])
    assert first == (0, SYSTEM_TOKENS, QUESTION_TOKENS)
    assert second == (SYSTEM_TOKENS, 0, QUESTION_TOKENS)


def test_a_streamed_call_reports_the_cache_in_its_final_usage(api, client):
    ask(api, client, system=[marked(SYSTEM)])
    api.enqueue("ok")
    with client.messages.stream(model=MODEL, max_tokens=64, system=[marked(SYSTEM)],
                                messages=[{"role": "user", "content": QUESTION}]) as stream:
        usage = stream.get_final_message().usage
    assert (usage.cache_read_input_tokens, usage.cache_creation_input_tokens, usage.input_tokens) == (
        SYSTEM_TOKENS, 0, QUESTION_TOKENS)
    assert usage.output_tokens == OK_TOKENS


def test_a_changed_byte_before_the_mark_misses_and_one_after_it_does_not(api, client):
    ask(api, client, system=[marked(SYSTEM)])
    changed_before = ask(api, client, system=[marked("T" + SYSTEM[1:])])
    changed_after = ask(api, client, system=[marked(SYSTEM)], messages=[{"role": "user", "content": "R" * 75}])
    assert changed_before == (0, SYSTEM_TOKENS, QUESTION_TOKENS)
    assert changed_after == (SYSTEM_TOKENS, 0, QUESTION_TOKENS)


def numbered_blocks(count: int, mark_at: int) -> list[dict]:
    """`count` blocks of 175 bytes ("0001xxx…"): 200 bytes as blocks, 50 tokens each; one marked."""
    blocks = [text(f"{n:04d}" + "x" * 171) for n in range(1, count + 1)]
    blocks[mark_at - 1] = dict(blocks[mark_at - 1], cache_control=EPHEMERAL)
    return blocks


def test_a_mark_finds_an_entry_within_20_positions_counting_itself(api, client):
    # prompt-caching: the system checks for a hit at the breakpoint and then at earlier block
    # boundaries, "up to 20 positions" in all, the breakpoint's own position among them. A mark on
    # block 60 checks 60, 59, …, 41: block 41 is the 20th position.
    # 41 blocks of 50 tokens = 2,050 tokens: just over the minimum.
    first = ask(api, client, messages=[{"role": "user", "content": numbered_blocks(41, mark_at=41)}])
    second = ask(api, client, messages=[{"role": "user", "content": numbered_blocks(60, mark_at=60)}])
    assert first == (0, 41 * 50, 0)
    assert second == (41 * 50, 19 * 50, 0)
    assert api.requests[1].cache.read_blocks == 41
    assert api.requests[1].cache.written_blocks == (60,)


def test_a_mark_does_not_find_an_entry_21_positions_back(api, client):
    ask(api, client, messages=[{"role": "user", "content": numbered_blocks(41, mark_at=41)}])
    second = ask(api, client, messages=[{"role": "user", "content": numbered_blocks(61, mark_at=61)}])
    assert second == (0, 61 * 50, 0)
    assert api.requests[1].cache.read_blocks == 0


def test_a_second_mark_finds_what_the_last_one_missed(api, client):
    # The gist's marking: one mark on the last whole block of the view, one on the request's end.
    ask(api, client, messages=[{"role": "user", "content": numbered_blocks(41, mark_at=41)}])
    blocks = numbered_blocks(70, mark_at=70)
    blocks[59] = dict(blocks[59], cache_control=EPHEMERAL)  # block 60, 19 blocks after 41
    second = ask(api, client, messages=[{"role": "user", "content": blocks}])
    assert second == (41 * 50, 29 * 50, 0)
    assert api.requests[1].cache.written_blocks == (60, 70)


def test_a_mark_inside_the_prefix_read_gets_its_entry_free(api, client):
    ask(api, client, messages=[{"role": "user", "content": numbered_blocks(61, mark_at=61)}])
    blocks = numbered_blocks(61, mark_at=61)
    blocks[44] = dict(blocks[44], cache_control=EPHEMERAL)  # block 45: inside the 61 blocks read
    assert ask(api, client, messages=[{"role": "user", "content": blocks}]) == (61 * 50, 0, 0)
    # Block 46 changes: the mark on block 50 finds only block 45's entry, 5 blocks back.
    changed = numbered_blocks(50, mark_at=50)
    changed[45] = dict(changed[45], text="y" * 175)
    assert ask(api, client, messages=[{"role": "user", "content": changed}]) == (45 * 50, 5 * 50, 0)


def test_a_blocks_role_is_part_of_its_prefix(api, client):
    first, second = text("F" * 175), marked(SYSTEM)  # 50 and 2,049 tokens
    ask(api, client, messages=[{"role": "user", "content": [first, second]}])
    # The same two blocks, the second now the assistant's: another prefix from block 2 on.
    moved = [{"role": "user", "content": [first]}, {"role": "assistant", "content": [second]},
             {"role": "user", "content": QUESTION}]
    assert ask(api, client, messages=moved) == (0, 50 + SYSTEM_TOKENS, QUESTION_TOKENS)


def test_an_entry_expires_5_minutes_after_its_write(api, client):
    ask(api, client, system=[marked(SYSTEM)])
    api.clock.advance(299)
    assert ask(api, client, system=[marked(SYSTEM)])[0] == SYSTEM_TOKENS
    fresh = LocalAPI()
    with fresh, anthropic.Anthropic(base_url=fresh.base_url, api_key="k", max_retries=0) as sdk:
        ask(fresh, sdk, system=[marked(SYSTEM)])
        fresh.clock.advance(301)
        assert ask(fresh, sdk, system=[marked(SYSTEM)]) == (0, SYSTEM_TOKENS, QUESTION_TOKENS)


def test_a_read_refreshes_the_entry_for_another_5_minutes(api, client):
    ask(api, client, system=[marked(SYSTEM)])              # written at 0: lives until 300
    api.clock.advance(200)
    assert ask(api, client, system=[marked(SYSTEM)])[0] == SYSTEM_TOKENS   # read at 200: until 500
    api.clock.advance(200)
    assert ask(api, client, system=[marked(SYSTEM)])[0] == SYSTEM_TOKENS   # read at 400: until 700
    api.clock.advance(301)
    assert ask(api, client, system=[marked(SYSTEM)]) == (0, SYSTEM_TOKENS, QUESTION_TOKENS)


def test_a_one_hour_entry_outlives_five_minutes_and_is_reported_apart(api, client):
    api.enqueue("ok")
    message = client.messages.create(model=MODEL, max_tokens=64, system=[marked(SYSTEM, ttl="1h")],
                                     messages=[{"role": "user", "content": QUESTION}])
    assert message.usage.cache_creation.ephemeral_1h_input_tokens == SYSTEM_TOKENS
    assert message.usage.cache_creation.ephemeral_5m_input_tokens == 0
    api.clock.advance(3599)
    assert ask(api, client, system=[marked(SYSTEM, ttl="1h")])[0] == SYSTEM_TOKENS


def test_caches_are_kept_per_model(api, client):
    ask(api, client, system=[marked(SYSTEM)])
    other = ask(api, client, system=[marked(SYSTEM)], model="claude-opus-4-1")  # minimum 1,024 too
    again = ask(api, client, system=[marked(SYSTEM)])
    assert other == (0, SYSTEM_TOKENS, QUESTION_TOKENS)
    assert again == (SYSTEM_TOKENS, 0, QUESTION_TOKENS)


def test_a_prefix_below_the_model_minimum_is_not_cached(api, client):
    # Haiku 4.5's published minimum is 4,096 tokens; the system prompt has 2,049.
    for _ in range(2):
        assert ask(api, client, system=[marked(SYSTEM)], model="claude-haiku-4-5") == (
            0, 0, SYSTEM_TOKENS + QUESTION_TOKENS)


def test_a_prefix_of_exactly_the_minimum_is_cached():
    with LocalAPI(minimum_cacheable_tokens={"claude-x": SYSTEM_TOKENS, "claude-y": SYSTEM_TOKENS + 1},
                  unknown_models=True) as api, \
            anthropic.Anthropic(base_url=api.base_url, api_key="k", max_retries=0) as sdk:
        assert ask(api, sdk, system=[marked(SYSTEM)], model="claude-x") == (0, SYSTEM_TOKENS, QUESTION_TOKENS)
        assert ask(api, sdk, system=[marked(SYSTEM)], model="claude-y") == (0, 0, SYSTEM_TOKENS + QUESTION_TOKENS)


def test_two_calls_sent_together_both_write_and_a_later_one_reads(api):
    gate = threading.Event()
    api.enqueue(Reply("first", gate=gate))
    api.enqueue(Reply("second", gate=gate))

    async def together():
        async with anthropic.AsyncAnthropic(base_url=api.base_url, api_key="k", max_retries=0) as sdk:
            def call():
                return sdk.messages.create(model=MODEL, max_tokens=64, system=[marked(SYSTEM)],
                                           messages=[{"role": "user", "content": QUESTION}])

            async def release_when_both_arrived():
                await asyncio.to_thread(api.wait_for_requests, 2)
                gate.set()

            first, second, _ = await asyncio.gather(call(), call(), release_when_both_arrived())
            api.enqueue("ok")
            third = await call()
            return first, second, third

    first, second, third = asyncio.run(together())
    assert first.usage.cache_creation_input_tokens == SYSTEM_TOKENS
    assert second.usage.cache_creation_input_tokens == SYSTEM_TOKENS
    assert first.usage.cache_read_input_tokens == 0
    assert second.usage.cache_read_input_tokens == 0
    assert third.usage.cache_read_input_tokens == SYSTEM_TOKENS
    assert third.usage.cache_creation_input_tokens == 0


def test_a_fault_before_the_response_writes_nothing_and_one_after_its_start_writes(api, client):
    api.enqueue(overloaded())
    with pytest.raises(anthropic.APIStatusError):
        client.messages.create(model=MODEL, max_tokens=64, system=[marked(SYSTEM)],
                               messages=[{"role": "user", "content": QUESTION}])
    api.enqueue(stream_error(after_events=1))  # message_start only: the response has started
    with pytest.raises(anthropic.APIStatusError):
        with client.messages.stream(model=MODEL, max_tokens=64, system=[marked(SYSTEM)],
                                    messages=[{"role": "user", "content": QUESTION}]) as stream:
            stream.get_final_message()
    assert ask(api, client, system=[marked(SYSTEM)]) == (SYSTEM_TOKENS, 0, QUESTION_TOKENS)
    assert api.requests[0].cache is None
    assert api.requests[1].cache.cache_creation_input_tokens == SYSTEM_TOKENS


def test_tools_come_before_the_system_prompt_in_the_prefix(api, client):
    tool = {"name": "read_file", "description": "Read a file.", "input_schema": {"type": "object"}}
    ask(api, client, system=[marked(SYSTEM)], tools=[tool])
    changed_tool = dict(tool, description="Read one file.")
    # {"description":"Read one file.","input_schema":{"type":"object"},"name":"read_file"}: 84 bytes.
    assert rule_tokens(changed_tool) == 21
    assert ask(api, client, system=[marked(SYSTEM)], tools=[changed_tool]) == (
        0, 21 + SYSTEM_TOKENS, QUESTION_TOKENS)


def test_changing_the_thinking_settings_misses_only_the_message_part(api, client):
    messages = [{"role": "user", "content": [marked(SYSTEM)]}]  # 2,049 tokens, marked, in a message
    ask(api, client, system=[marked(SYSTEM)], messages=messages)
    api.enqueue("ok")
    message = client.messages.create(model=MODEL, max_tokens=2048, thinking={"type": "enabled", "budget_tokens": 1024},
                                     system=[marked(SYSTEM)], messages=messages)
    assert message.usage.cache_read_input_tokens == SYSTEM_TOKENS
    assert message.usage.cache_creation_input_tokens == SYSTEM_TOKENS
    assert message.usage.input_tokens == 0


def test_the_top_level_mark_caches_up_to_the_last_block(api, client):
    first = ask(api, client, system=SYSTEM, cache_control=EPHEMERAL)
    second = ask(api, client, system=SYSTEM, cache_control=EPHEMERAL)
    assert first == (0, SYSTEM_TOKENS + QUESTION_TOKENS, 0)
    assert second == (SYSTEM_TOKENS + QUESTION_TOKENS, 0, 0)


def test_usage_sums_to_the_prompt_size_that_count_tokens_reports(api, client):
    tool = {"name": "search", "description": "Search the log.", "input_schema": {"type": "object"}}
    # {"description":"Search the log.","input_schema":{"type":"object"},"name":"search"}: 82 bytes.
    assert rule_tokens(tool) == 21
    view = numbered_blocks(48, mark_at=44)  # the last whole 4-line block of a 48-line view
    messages = [{"role": "user", "content": view + [marked(QUESTION)]}]
    size = 21 + SYSTEM_TOKENS + 48 * 50 + QUESTION_TOKENS
    counted = client.messages.count_tokens(model=MODEL, tools=[tool], system=[marked(SYSTEM)], messages=messages)
    assert counted.input_tokens == size
    read, written, rest = ask(api, client, tools=[tool], system=[marked(SYSTEM)], messages=messages)
    assert (read, written, rest) == (0, size, 0)
    view_grown = numbered_blocks(52, mark_at=48)
    messages = [{"role": "user", "content": view_grown + [marked(QUESTION)]}]
    read, written, rest = ask(api, client, tools=[tool], system=[marked(SYSTEM)], messages=messages)
    # The mark on view block 48 finds view block 44's entry 4 blocks back; the old end (the question
    # after view block 48) is another prefix now. Written: view blocks 45 to 52 and the question.
    assert read == 21 + SYSTEM_TOKENS + 44 * 50
    assert written == 8 * 50 + QUESTION_TOKENS
    assert rest == 0
    assert read + written + rest == 21 + SYSTEM_TOKENS + 52 * 50 + QUESTION_TOKENS


# ---------------------------------------------------------------- as strict as the real API
# Each rule: the status, error type and message shape the real API answers, and the sentence of
# Anthropic's documentation it follows. The model facts come from harness/calls/models.py.

import base64 as _base64
import struct as _struct
import zlib as _zlib


def refused(api, body: dict) -> tuple[int, str, str]:
    """POST /v1/messages with `body`: (status, error type, message); nothing is queued."""
    status, _, data = post(api, "/v1/messages", body)
    answer = json.loads(data)
    return status, answer["error"]["type"], answer["error"]["message"]


def body_for(**fields) -> dict:
    body = {"model": MODEL, "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}
    body.update(fields)
    return body


def png_of(width: int, height: int) -> str:
    """A PNG's signature and IHDR chunk: all the size check reads."""
    ihdr = _struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = _struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr + _struct.pack(">I", _zlib.crc32(b"IHDR" + ihdr))
    return _base64.b64encode(b"\x89PNG\r\n\x1a\n" + chunk).decode("ascii")


def image(width: int, height: int, media_type: str = "image/png") -> dict:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": png_of(width, height)}}


def test_strict_an_unknown_model_is_a_404(api):
    # errors: "404 - not_found_error: The requested resource was not found."
    assert refused(api, body_for(model="claude-nonesuch")) == (404, "not_found_error", "model: claude-nonesuch")


def test_strict_a_retired_model_is_a_404(api):
    # model-deprecations: "Retired: The model is no longer available for use. Requests to retired
    # models will fail."
    assert refused(api, body_for(model="claude-3-haiku-20240307"))[:2] == (404, "not_found_error")


def test_strict_leniency_for_unknown_models_is_asked_for_by_name():
    with LocalAPI(unknown_models=True) as lenient:
        lenient.enqueue("ok")
        status, _, _ = post(lenient, "/v1/messages", body_for(model="claude-nonesuch"))
    assert status == 200


def test_strict_adaptive_thinking_on_a_model_without_it(api):
    # adaptive-thinking: "Older models (Claude Sonnet 4.5, Claude Opus 4.5, etc.) do not support
    # adaptive thinking and require thinking.type: "enabled" with budget_tokens."
    status, kind, message = refused(api, body_for(model="claude-haiku-4-5", thinking={"type": "adaptive"}))
    assert (status, kind) == (400, "invalid_request_error") and message.startswith("thinking.type")


def test_strict_a_budget_on_a_model_with_adaptive_thinking_only(api):
    # adaptive-thinking: "Manual extended thinking (thinking.type: "enabled" with budget_tokens) …
    # not supported on these models and will return a 400 error."
    status, kind, message = refused(api, body_for(model="claude-opus-4-7", max_tokens=4096,
                                                  thinking={"type": "enabled", "budget_tokens": 2048}))
    assert (status, kind) == (400, "invalid_request_error") and "adaptive" in message


def test_strict_an_effort_the_model_lacks(api):
    # the effort page's model list has no Haiku 4.5; xhigh came with Opus 4.7
    assert refused(api, body_for(model="claude-haiku-4-5", output_config={"effort": "low"}))[:2] == (
        400, "invalid_request_error")
    status, _, message = refused(api, body_for(model="claude-sonnet-4-6", thinking={"type": "adaptive"},
                                               output_config={"effort": "xhigh"}))
    assert status == 400 and message.startswith("output_config.effort")


def test_strict_temperature_with_thinking(api):
    # extended-thinking: "Thinking isn't compatible with temperature or top_k modifications"
    status, kind, message = refused(api, body_for(max_tokens=4096, temperature=0.5,
                                                  thinking={"type": "enabled", "budget_tokens": 2048}))
    assert (status, kind) == (400, "invalid_request_error") and "temperature" in message
    # whats-new-sonnet-5: "setting sampling parameters (temperature, top_p, top_k) to non-default
    # values returns a 400 error"
    assert refused(api, body_for(model="claude-sonnet-5", temperature=0.2))[0] == 400


def test_strict_a_budget_under_1024_or_not_under_max_tokens(api):
    # extended-thinking: "The minimum budget is 1,024 tokens"; "budget_tokens must be set to a
    # value less than max_tokens"
    assert refused(api, body_for(max_tokens=4096, thinking={"type": "enabled", "budget_tokens": 1000}))[0] == 400
    status, _, message = refused(api, body_for(max_tokens=2048, thinking={"type": "enabled", "budget_tokens": 2048}))
    assert status == 400 and "max_tokens" in message


def test_strict_whitespace_only_text(api):
    # the API's own words for it: "text content blocks must contain non-whitespace text"
    status, kind, message = refused(api, body_for(messages=[{"role": "user", "content": [
        {"type": "text", "text": " \n\t"}]}]))
    assert (status, kind) == (400, "invalid_request_error")
    assert message == "messages.0.content.0: text content blocks must contain non-whitespace text"


def test_strict_a_mark_on_empty_text(api):
    # prompt-caching: empty text blocks cannot be cached
    status, _, message = refused(api, body_for(messages=[{"role": "user", "content": [
        {"type": "text", "text": "", "cache_control": EPHEMERAL}]}]))
    assert status == 400 and "cache_control cannot be set for empty text blocks" in message


def tool_turn(*user_blocks) -> list:
    return [{"role": "user", "content": "read a"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "read", "input": {}}]},
            {"role": "user", "content": list(user_blocks)}]


def test_strict_tool_results_come_first_one_per_id(api):
    # tool-use: "tool result blocks must immediately follow their corresponding tool use blocks …
    # In the user message containing tool results, the tool_result blocks must come FIRST"
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "a"}
    status, _, message = refused(api, body_for(messages=tool_turn({"type": "text", "text": "and?"}, result)))
    assert status == 400 and "tool_result" in message and "FIRST" in message
    status, _, message = refused(api, body_for(messages=tool_turn(result, dict(result))))
    assert status == 400 and "multiple `tool_result` blocks with id: t1" in message
    status, _, message = refused(api, body_for(messages=tool_turn({"type": "text", "text": "and?"})))
    assert status == 400 and "without `tool_result` blocks immediately after: t1" in message


def test_strict_more_than_4_marks(api):
    # prompt-caching: "You can define up to 4 cache breakpoints"
    blocks = [marked(f"block {n}") for n in range(5)]
    status, _, message = refused(api, body_for(messages=[{"role": "user", "content": blocks}]))
    assert status == 400 and message.startswith("A maximum of 4 blocks with cache_control")


def test_strict_images_past_the_pixel_count_or_media_type_limits(api):
    # vision: "The per-image dimension cap is 8000x8000 pixels, except when the request contains
    # more than 20 images, in which case it drops to 2000x2000."
    status, _, message = refused(api, body_for(messages=[{"role": "user", "content": [image(8001, 10)]}]))
    assert status == 400 and message.endswith("8000 pixels")
    many = [image(2001, 10)] + [image(10, 10) for _ in range(20)]
    status, _, message = refused(api, body_for(messages=[{"role": "user", "content": many}]))
    assert status == 400 and message.endswith("2000 pixels")
    api.enqueue("ok")
    assert post(api, "/v1/messages", body_for(messages=[{"role": "user", "content": [image(8000, 8000)]}]))[0] == 200
    status, _, message = refused(api, body_for(messages=[{"role": "user", "content": [image(10, 10, "image/bmp")]}]))
    assert status == 400 and "media_type" in message
    status, _, message = refused(api, body_for(messages=[{"role": "user", "content": [image(10, 10, "image/jpeg")]}]))
    assert status == 400 and "not a valid image" in message


def test_strict_a_request_over_32_mb_is_a_413(api):
    # errors: "The maximum request size is 32 MB for standard API endpoints"
    big = body_for(messages=[{"role": "user", "content": "x" * (32 * 1024 * 1024)}])
    status, kind, _ = refused(api, big)
    assert (status, kind) == (413, "request_too_large")


def test_strict_invalid_tool_names_and_schemas(api):
    # tool-use: the name "must match the regex ^[a-zA-Z0-9_-]{1,64}$"; input_schema is "A JSON Schema object"
    tool = {"name": "read file", "description": "x", "input_schema": {"type": "object"}}
    status, _, message = refused(api, body_for(tools=[tool]))
    assert status == 400 and message.startswith("tools.0.custom.name")
    status, _, message = refused(api, body_for(tools=[dict(tool, name="read", input_schema={"type": "string"})]))
    assert status == 400 and message.startswith("tools.0.custom.input_schema")


def test_strict_max_tokens_past_the_models_cap(api):
    # models overview: Haiku 4.5's max output is 64k tokens
    status, _, message = refused(api, body_for(model="claude-haiku-4-5", max_tokens=64_001))
    assert status == 400 and message == ("max_tokens: 64001 > 64000, which is the maximum allowed number of "
                                         "output tokens for claude-haiku-4-5")


def test_cache_a_run_of_tool_use_blocks_is_one_position(api, client):
    # prompt-caching: a run of consecutive tool_use blocks counts as one position in the lookback.
    # 41 blocks written; then 15 text blocks, an assistant turn of 10 tool calls, and the tool
    # results: the mark on the last block is 20 positions from block 41 only if the run is one.
    ask(api, client, messages=[{"role": "user", "content": numbered_blocks(41, mark_at=41)}])
    calls = [{"type": "tool_use", "id": f"t{n}", "name": "read", "input": {}} for n in range(10)]
    results = [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "a"} for n in range(10)]
    results[-1] = dict(results[-1], cache_control=EPHEMERAL)
    messages = [{"role": "user", "content": [dict(b, cache_control=None) if False else
                                             {k: v for k, v in b.items() if k != "cache_control"}
                                             for b in numbered_blocks(41, mark_at=41)] + [
                     text(f"more {n:02d}") for n in range(8)]},
                {"role": "assistant", "content": calls},
                {"role": "user", "content": results}]
    api.enqueue("ok")
    client.messages.create(model=MODEL, max_tokens=64, messages=messages)
    # positions from the mark: 10 results, the run of calls (1), 8 texts = 19, then block 41: the 20th
    assert api.requests[1].cache.read_blocks == 41


def test_cache_an_entrys_life_runs_from_its_requests_start(api, client):
    # prompt-caching: the 5 minutes of an entry are counted from the start of the request that
    # wrote or read it, not from when its response ended.
    import threading

    from harness.localapi.server import Reply as Scripted
    gate = threading.Event()
    api.enqueue(Scripted("ok", gate=gate))
    system = [marked(SYSTEM)]
    writer = threading.Thread(target=lambda: client.messages.create(
        model=MODEL, max_tokens=64, system=system, messages=[{"role": "user", "content": QUESTION}]))
    writer.start()
    api.wait_for_requests(1)
    api.clock.advance(200)
    gate.set()
    writer.join()
    api.clock.advance(101)  # 301 s after the writing request's start, 101 s after its response
    assert ask(api, client, system=system) == (0, SYSTEM_TOKENS, QUESTION_TOKENS)


def test_cache_adding_an_image_invalidates_the_messages_cache(api, client):
    # prompt-caching: "Adding or removing images anywhere in the prompt" invalidates the
    # messages' cache (the tools' and system's stay).
    first = [marked("M" * 8171)]
    ask(api, client, messages=[{"role": "user", "content": first}])
    assert ask(api, client, messages=[{"role": "user", "content": first}])[0] == 2049
    with_image = [{"role": "user", "content": first}, {"role": "assistant", "content": "seen"},
                  {"role": "user", "content": [image(10, 10), text("this?")]}]
    assert ask(api, client, messages=with_image)[0] == 0


def test_cache_the_minimum_comes_from_the_capability_table(api):
    from harness.calls.models import capabilities
    for model in ("claude-haiku-4-5", "claude-sonnet-4-6", "claude-opus-4-6", "claude-opus-4-8"):
        assert api.cache.minimum_for(model) == capabilities(model).cache_min_tokens
    assert (api.cache.minimum_for("claude-haiku-4-5"), api.cache.minimum_for("claude-opus-4-8")) == (4096, 1024)


def test_strict_an_image_over_5_mb_of_base64(api):
    # vision (as quoted in shellicar/claude-cli#323): "When an image's base64 payload exceeds the
    # Anthropic API's 5 MB per-image cap, the request returns a 400."
    block = image(10, 10)
    block["source"]["data"] = block["source"]["data"] + "A" * (5 * 1024 * 1024)
    status, kind, message = refused(api, body_for(messages=[{"role": "user", "content": [block]}]))
    assert (status, kind) == (400, "invalid_request_error") and "image exceeds 5 MB maximum" in message
