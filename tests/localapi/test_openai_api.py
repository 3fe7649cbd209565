"""Strategy: the local Chat Completions and Responses stand-ins refuse what OpenAI's APIs refuse,
each rule on its own request sent through the official `openai` SDK, and keep OpenAI's automatic
prefix cache as documented (prompt-caching guide: "Caching is enabled automatically for prompts
that are 1024 tokens or longer", "cache hits occur in increments of 128 tokens", routed by
`prompt_cache_key`); the hand-counted token figures follow the module's token rule.
"""

import json
import math

import openai
import pytest

from harness.localapi.openai_api import OpenAILocalAPI


@pytest.fixture(scope="module")
def servers():
    with OpenAILocalAPI("openai-chat") as chat, OpenAILocalAPI("openai-responses") as responses:
        yield {"openai-chat": chat, "openai-responses": responses}


@pytest.fixture
def chat(servers):
    servers["openai-chat"].reset()
    servers["openai-chat"].responder = lambda body: "ok"
    return servers["openai-chat"], openai.OpenAI(base_url=servers["openai-chat"].base_url, api_key="k", max_retries=0)


@pytest.fixture
def responses(servers):
    servers["openai-responses"].reset()
    servers["openai-responses"].responder = lambda body: "ok"
    return (servers["openai-responses"],
            openai.OpenAI(base_url=servers["openai-responses"].base_url, api_key="k", max_retries=0))


def refusal(send) -> str:
    """The 400's message; "" when the request was taken (an assertion on it fails, as it should)."""
    try:
        send()
    except openai.BadRequestError as error:
        return error.message
    return ""


def bad_request(send) -> openai.BadRequestError | None:
    """The 400 raised; None when the request was taken (an assertion on it fails, as it should)."""
    try:
        send()
    except openai.BadRequestError as error:
        return error
    return None


USER = {"role": "user", "content": "hi"}
CALL = {"role": "assistant", "content": None,
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{}"}}]}


@pytest.mark.parametrize("change, words", [
    ({"messages": []}, "empty array"),
    ({"system": "be brief"}, "system"),
    ({"messages": [{"role": "user", "content": [{"type": "text", "text": "hi",
                                                 "cache_control": {"type": "ephemeral"}}]}]}, "cache_control"),
    ({"messages": [USER, {"role": "tool", "tool_call_id": "call_9", "content": "x"}]}, "preceeding"),
    ({"messages": [USER, CALL, USER]}, "did not have response messages: call_1"),
    ({"messages": [USER, dict(CALL, tool_calls=[dict(CALL["tool_calls"][0], function={"name": "read",
                                                                                      "arguments": {}})]),
                   {"role": "tool", "tool_call_id": "call_1", "content": "x"}]}, "expected a string"),
    ({"messages": [USER, dict(CALL, tool_calls=[dict(CALL["tool_calls"][0], function={"name": "read",
                                                                                      "arguments": "{oops"})]),
                   {"role": "tool", "tool_call_id": "call_1", "content": "x"}]}, "JSON string"),
    ({"messages": [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]}, "type"),
    ({"max_tokens": 0}, "max_tokens"),
])
def test_chat_refuses_what_chat_completions_refuses(chat, change, words):
    api, client = chat
    body = {"model": "qwen3-coder", "messages": [USER], **change}
    extra = {key: body.pop(key) for key in list(body) if key not in ("model", "messages", "max_tokens")}
    assert words in refusal(lambda: client.chat.completions.create(**body, extra_body=extra or None))
    assert [request.answer for request in api.requests] == ["invalid"]


def test_chat_answers_a_tool_result_that_follows_its_call(chat):
    api, client = chat
    done = client.chat.completions.create(
        model="qwen3-coder", messages=[USER, CALL, {"role": "tool", "tool_call_id": "call_1", "content": "x"}])
    assert done.choices[0].message.content == "ok" and done.choices[0].finish_reason == "stop"


SAID = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
ASKED = {"type": "function_call", "call_id": "call_1", "name": "read", "arguments": "{}"}


@pytest.mark.parametrize("change, words", [
    ({"input": []}, "empty array"),
    ({"system": "be brief"}, "system"),
    ({"messages": [USER]}, "messages"),
    ({"max_tokens": 100}, "max_tokens"),
    ({"input": [dict(SAID, content=[{"type": "input_text", "text": "hi", "cache_control": {"type": "ephemeral"}}])]},
     "cache_control"),
    ({"input": [SAID, {"type": "function_call_output", "call_id": "call_9", "output": "x"}]}, "No tool call"),
    ({"input": [SAID, ASKED, SAID]}, "No tool output found for function call call_1"),
    ({"input": [SAID, dict(ASKED, arguments={}), {"type": "function_call_output", "call_id": "call_1",
                                                   "output": "x"}]}, "expected a string"),
    ({"input": [dict(SAID, content=[{"type": "text", "text": "hi"}])]}, "type"),
])
def test_responses_refuses_what_the_responses_api_refuses(responses, change, words):
    api, client = responses
    body = {"model": "gpt-5.5", "input": [SAID], **change}
    extra = {key: body.pop(key) for key in list(body) if key not in ("model", "input")}
    assert words in refusal(lambda: client.responses.create(**body, extra_body=extra or None))
    assert [request.answer for request in api.requests] == ["invalid"]


@pytest.mark.parametrize("kind", ["openai-chat", "openai-responses"])
def test_an_unknown_model_is_a_404_and_the_models_are_listed(servers, kind):
    api = servers[kind]
    api.reset()
    client = openai.OpenAI(base_url=api.base_url, api_key="k", max_retries=0)
    with pytest.raises(openai.NotFoundError) as raised:
        if kind == "openai-chat":
            client.chat.completions.create(model="gpt-9", messages=[USER])
        else:
            client.responses.create(model="gpt-9", input=[SAID])
    assert raised.value.code == "model_not_found"
    listed = {model.id: model.model_extra["context_window"] for model in client.models.list()}
    assert listed == {"gpt-5.5": 400_000, "gpt-5.5-mini": 400_000, "qwen3-coder": 262_144}


@pytest.mark.parametrize("model, effort, code, words", [
    ("qwen3-coder", "low", "unsupported_parameter", "is not supported with this model"),
    ("gpt-5.5", "minimal", "unsupported_value", "Supported values are: 'none', 'low', 'medium', 'high', and 'xhigh'"),
], ids=["no-reasoning", "minimal"])
@pytest.mark.parametrize("kind", ["openai-chat", "openai-responses"])
def test_an_effort_the_model_does_not_take_is_refused_as_openai_refuses_it(servers, kind, model, effort, code, words):
    api = servers[kind]
    api.reset()
    api.responder = lambda body: "ok"
    client = openai.OpenAI(base_url=api.base_url, api_key="k", max_retries=0)
    raised = bad_request(lambda: client.chat.completions.create(model=model, messages=[USER], reasoning_effort=effort)
                         if kind == "openai-chat" else
                         client.responses.create(model=model, input=[SAID], reasoning={"effort": effort}))
    assert raised is not None and raised.code == code and words in raised.message
    assert [request.answer for request in api.requests] == ["invalid"]


@pytest.mark.parametrize("kind", ["openai-chat", "openai-responses"])
def test_a_prompt_and_cap_past_the_window_is_refused_and_responses_counts_a_prompt(kind):
    # one user part of exactly 1,000 tokens, as the module counts a part: its canonical JSON
    # {"part":{"text":"…","type":"text"},"role":"user"} is the text and 48 bytes (54 with
    # "input_text"), a token per 4 bytes; a 1,100-token window: a cap of 100 fits, 101 does not
    from harness.localapi.openai_api import LocalModel

    said = "a" * (1_000 * 4 - (48 if kind == "openai-chat" else 54))
    with OpenAILocalAPI(kind, models=(LocalModel("tiny", 1_100, 500),), responder=lambda body: "ok") as api:
        client = openai.OpenAI(base_url=api.base_url, api_key="k", max_retries=0)

        def create(cap):
            if kind == "openai-chat":
                return client.chat.completions.create(model="tiny", max_tokens=cap, messages=[
                    {"role": "user", "content": [{"type": "text", "text": said}]}])
            return client.responses.create(model="tiny", max_output_tokens=cap, input=[
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": said}]}])

        assert create(100) is not None
        raised = bad_request(lambda: create(101))
        assert raised is not None and raised.code == "context_length_exceeded"
        assert "maximum context length is 1100 tokens" in raised.message
        if kind == "openai-responses":
            counted = client.responses.input_tokens.count(model="tiny", input=[
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": said}]}])
            assert counted.input_tokens == 1_000


def test_a_request_without_a_key_is_a_401(servers):
    api = servers["openai-chat"]
    api.reset()
    import httpx2

    answer = httpx2.post(api.base_url + "/chat/completions", json={"model": "qwen3-coder", "messages": [USER]})
    assert answer.status_code == 401 and "API key" in answer.json()["error"]["message"]


def text_of_tokens(tokens: int) -> str:
    """A user text part of exactly `tokens` tokens: {"text":"…","type":"text"} is n + 25 bytes."""
    return "a" * (tokens * 4 - 25)


def test_the_cache_reads_a_repeated_prefix_of_1024_tokens_or_more_in_steps_of_128(chat):
    api, client = chat
    head = {"role": "user", "content": [{"type": "text", "text": text_of_tokens(1100)}]}
    for tail in ("one", "two"):
        client.chat.completions.create(model="qwen3-coder", messages=[head, {"role": "user", "content": tail}],
                                       stream=False)
    first, second = (request.cache for request in api.requests)
    assert first.cache_read_input_tokens == 0
    # the head: 1100 tokens, its role counted in its part's JSON as the module says: hand count
    head_tokens = math.ceil(len(json.dumps({"part": head["content"][0], "role": "user"}, sort_keys=True,
                                           separators=(",", ":"))) / 4)
    assert second.cache_read_input_tokens == head_tokens - head_tokens % 128 == 1024
    assert second.prompt_tokens == first.prompt_tokens


def test_no_cache_below_1024_tokens_nor_across_prompt_cache_keys_nor_after_5_minutes(responses):
    api, client = responses
    short = dict(SAID, content=[{"type": "input_text", "text": "b" * 3000}])
    long = dict(SAID, content=[{"type": "input_text", "text": "c" * 8000}])
    for body in ({"input": [short, SAID]}, {"input": [short, SAID]},
                 {"input": [long, SAID], "prompt_cache_key": "a"}, {"input": [long, SAID], "prompt_cache_key": "b"},
                 {"input": [long, SAID], "prompt_cache_key": "a"}):
        client.responses.create(model="gpt-5.5", **body)
    api.clock.advance(301)
    client.responses.create(model="gpt-5.5", input=[long, SAID], prompt_cache_key="a")
    reads = [request.cache.cache_read_input_tokens for request in api.requests]
    assert reads[:4] == [0, 0, 0, 0] and reads[4] >= 1024 and reads[4] % 128 == 0 and reads[5] == 0
