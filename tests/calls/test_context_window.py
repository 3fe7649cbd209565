"""Strategy: a request that could pass its model's context window is never sent. The windows are the
documentation's (each model's page: "Context window: 1M tokens", Haiku 4.5's 200K); the bound on a
request's tokens is its UTF-8 bytes as JSON, which a test computes by hand from a body it builds.
Within that bound a request is sent at once; past it, the API's own `count_tokens` (the local
API's documented rule: a text block is (bytes + 25) / 4 tokens, rounded up) decides, and the bound
stands when the count cannot be had. Requests go through the real client and SDK to the local
Messages API, which records every request it receives: a refused request leaves no record but its
count.
"""

import asyncio
import json

import pytest

from harness.calls import models
from harness.calls.client import Client, ClientSettings
from harness.calls.outcomes import Refused, Unusable
from harness.chat.config import ConfigError, load_settings


def run(coroutine):
    return asyncio.run(coroutine)


@pytest.mark.parametrize("model, window", [
    # each model's page: "Context window: 1M tokens"; the overview: Haiku 4.5 "200k tokens"
    ("claude-opus-4-8", 1_000_000), ("claude-opus-4-7", 1_000_000), ("claude-opus-4-6", 1_000_000),
    ("claude-sonnet-5", 1_000_000), ("claude-sonnet-4-6", 1_000_000), ("claude-haiku-4-5", 200_000),
    ("claude-haiku-4-5-20251001", 200_000), ("claude-sonnet-4-5", 200_000), ("claude-opus-4-1", 200_000),
])
def test_each_model_has_its_documented_context_window(model, window):
    assert models.capabilities(model).context_window == window


def test_every_row_has_a_window_and_the_default_is_the_smallest():
    windows = [row.context_window for row in models.MODELS.values()]
    assert min(windows) == models.CONTEXT_WINDOW_DEFAULT == 200_000


def body(model: str, text: str, max_tokens: int = 1000) -> dict:
    return {"model": model, "max_tokens": max_tokens, "messages": [{"role": "user", "content": text}]}


def test_the_token_bound_is_the_bodys_utf8_bytes_without_max_tokens_and_each_image_at_its_most():
    request = body("claude-haiku-4-5", "é" * 10)
    # {"model": "claude-haiku-4-5", "messages": [{"role": "user", "content": "éééééééééé"}]}
    by_hand = len('{"model": "claude-haiku-4-5", "messages": [{"role": "user", "content": ""}]}') + 20
    assert models.input_tokens_max(request) == by_hand
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "A" * 100_000}}
    request["messages"][0]["content"] = [image, image]
    assert models.input_tokens_max(request) < 1000 + 2 * models.IMAGE_TOKENS_MAX


async def send(api, request: dict, window=None) -> str:
    settings = ClientSettings(api_key="k", base_url=api.base_url, attempts_max=1, context_window=window)
    async with Client(settings) as client:
        try:
            await client.stream(request)
        except Refused as refused:
            return str(refused)
    return ""


def answers(api) -> list:
    return [request.answer for request in api.requests]


def test_a_request_past_haikus_window_is_never_sent_and_one_sentence_says_what_to_do(api):
    api.reset()
    # 900,000 bytes of text: (900,000 + 25) / 4 = 225,007 tokens as counted, past 200,000
    sentence = run(send(api, body("claude-haiku-4-5", "x" * 900_000)))
    assert answers(api) == ["count_tokens"]  # counted, never sent
    assert sentence.count(". ") == 0
    assert "225,007 tokens (as the API counts them)" in sentence
    assert "claude-haiku-4-5's context window of 200,000 tokens" in sentence
    assert "choose a model with a larger window" in sentence


def test_the_same_request_to_a_model_of_a_million_tokens_is_sent(api):
    api.reset()
    api.enqueue("ok")
    assert run(send(api, body("claude-sonnet-4-6", "x" * 900_000))) == ""
    assert answers(api) == ["reply"]  # within the bound: no count


def test_a_request_just_within_the_bound_is_sent_and_one_byte_more_is_counted_first(api):
    api.reset()
    api.enqueue("ok")
    api.enqueue("ok")
    fixed = len(json.dumps({"model": "claude-haiku-4-5", "messages": [{"role": "user", "content": ""}]}))
    room = 200_000 - 1000 - fixed  # max_tokens 1,000
    assert run(send(api, body("claude-haiku-4-5", "x" * room))) == ""
    # one byte more could pass the window counted high; counted, it is about 49,800 tokens: sent
    assert run(send(api, body("claude-haiku-4-5", "x" * (room + 1)))) == ""
    assert answers(api) == ["reply", "count_tokens", "reply"]


def test_an_unknown_model_takes_the_configs_window_or_the_smallest_known(api):
    api.reset()
    request = body("local-model", "x" * 250_000)
    # the local API counts no model it does not know: the bound counted high stands
    assert "local-model's context window of 200,000 tokens" in run(send(api, request))
    assert "reply" not in answers(api)
    # within the config's window it is sent (the local API knows no such model: a 404)
    with pytest.raises(Unusable):
        run(send(api, request, window=300_000))
    assert answers(api)[-1] != "count_tokens"  # sent, within the bound


def test_the_config_takes_a_window_for_each_model_and_refuses_a_bad_one(tmp_path):
    (tmp_path / "config.toml").write_text("context_window = 300000\n[memory]\ncontext_window = 120000\n")
    settings = load_settings({"EVER_HOME": str(tmp_path)})
    assert (settings.context_window, settings.memory_context_window) == (300_000, 120_000)
    (tmp_path / "config.toml").write_text('context_window = "big"\n')
    with pytest.raises(ConfigError) as refused:
        load_settings({"EVER_HOME": str(tmp_path)})
    assert "context_window must be a whole number above 0" in str(refused.value)
