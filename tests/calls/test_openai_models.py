"""Strategy: what a model takes on an OpenAI wire comes from its provider's own list where the list
says [H30] and its thinking goes out as that wire's effort field where the model takes one [H31],
each seen through the real `openai` SDK against the strict stand-ins (harness/localapi/): a model
only the server lists answered within its own window, a request past it refused before any call
(the Responses API counts it; a Chat Completions server that counts nothing is held to its bytes), the
list's window over the table's, and each effort sent, left out or refused.
"""

import asyncio

import pytest

from harness.calls.capabilities import from_provider_models, refresh_provider
from harness.calls.client import ClientSettings
from harness.calls.models import OPENAI_MODELS, provider_listing, use_provider_listing
from harness.calls.openai_client import OpenAIProvider
from harness.calls.outcomes import Refused
from harness.calls.provider import Call
from harness.localapi.openai_api import MODELS, LocalModel, OpenAILocalAPI

# a model only the server knows: no table has it, its window is the list's alone
SMALL = LocalModel("small-local", 3_000, 1_000)
PROVIDER = {"openai-chat": "local", "openai-responses": "openai"}


@pytest.fixture(scope="module", params=("openai-chat", "openai-responses"))
def server(request):
    with OpenAILocalAPI(request.param, models=MODELS + (SMALL,)) as api:
        yield api


@pytest.fixture
def api(server):
    server.reset()
    yield server
    use_provider_listing(PROVIDER[server.api], {})


def provider(api: OpenAILocalAPI) -> OpenAIProvider:
    return OpenAIProvider(ClientSettings(api_key="test-key", base_url=api.base_url, backoff_first_seconds=0.01),
                          api=api.api, name=PROVIDER[api.api])


def call(model: str, text: str, max_tokens: int = 500, thinking="off") -> Call:
    said = {"role": "user", "content": [{"type": "text", "text": text}]}
    return Call(model, max_tokens, ("You are Ever.",), (), (said,), thinking=thinking)


def send(api: OpenAILocalAPI, made: Call, listed: bool = True):
    """The reply to `made`, or the Refused raised; the provider's list learned first."""
    async def go():
        client = provider(api)
        try:
            if listed:
                assert await refresh_provider(client) == ""
            return await client.stream(client.request(made))
        except Refused as refused:
            return refused
        finally:
            await client.aclose()

    return asyncio.run(go())


def posts(api: OpenAILocalAPI) -> list[str]:
    return [request.answer for request in api.requests if request.method == "POST" and request.path == api.path]


def test_a_model_only_the_servers_list_knows_is_answered_within_its_own_window(api):
    name = PROVIDER[api.api]
    api.enqueue("Small and fine.")
    reply = send(api, call(f"{name}/small-local", "a short question"))
    assert reply.text == "Small and fine."
    known = provider_listing(name)["small-local"]
    assert (known.window, known.output_cap, known.source) == (3_000, 1_000, "api")


def test_a_request_past_a_listed_window_is_refused_in_one_sentence_before_it_reaches_the_model(api):
    name = PROVIDER[api.api]
    api.enqueue("never")
    # 20,000 bytes of prose: about 5,000 tokens as the stand-in counts, past a 3,000-token window
    refused = send(api, call(f"{name}/small-local", "word " * 4_000))
    assert isinstance(refused, Refused)
    sentence = str(refused)
    assert sentence.count(". ") == 0
    if api.api == "openai-responses":
        # counted by the API, never sent to the model
        assert posts(api) == []
        assert "3,000 tokens (its provider's model list)" in sentence and "as the API counts them" in sentence
    else:
        # [H36] a Chat Completions server that counts no tokens: its bytes decide, and the sentence says so
        assert posts(api) == []
        assert "3,000 tokens (its provider's model list)" in sentence and "its server counts no tokens" in sentence


def test_an_output_cap_alone_past_the_window_is_refused_before_any_call_on_either_wire(api):
    name = PROVIDER[api.api]
    api.enqueue("ok")
    # unlisted, the smallest known window is assumed: 900 tokens of output fit it, so it goes
    assert send(api, call(f"{name}/small-local", "hi", max_tokens=900), listed=False).text == "ok"
    api.reset()
    use_provider_listing(name, from_provider_models([{"id": "small-local", "context_window": 800}]))

    async def go():
        client = provider(api)
        try:
            return await client.stream(client.request(call(f"{name}/small-local", "hi", max_tokens=900)))
        except Refused as error:
            return error
        finally:
            await client.aclose()

    refused = asyncio.run(go())
    assert isinstance(refused, Refused) and "800 tokens (its provider's model list)" in str(refused)
    # a server that counts nothing is held to the byte bound [H36]; Responses counts first
    assert [request.answer for request in api.requests if request.path.startswith("/v1/")] == (
        [] if api.api == "openai-chat" else ["count"])


def test_the_servers_window_is_believed_over_the_tables(api):
    # the table gives gpt-5.5 1,050,000 tokens; the stand-in's list says 400,000
    assert OPENAI_MODELS["gpt-5.5"].window == 1_050_000
    name = PROVIDER[api.api]
    api.enqueue("ok")
    assert send(api, call(f"{name}/gpt-5.5", "hi")).text == "ok"
    assert provider(api).capabilities(f"{name}/gpt-5.5").window == 400_000


@pytest.mark.parametrize("thinking, sent", [("off", "none"), ("high", "high"), ("xhigh", "xhigh")])
def test_a_thinking_setting_goes_out_as_the_wires_effort_where_the_model_takes_it(api, thinking, sent):
    name = PROVIDER[api.api]
    api.enqueue("Thought about it.")
    assert send(api, call(f"{name}/gpt-5.5", "hi", thinking=thinking)).text == "Thought about it."
    body = api.requests[-1].body
    assert (body.get("reasoning_effort") if api.api == "openai-chat" else body["reasoning"]["effort"]) == sent


@pytest.mark.parametrize("model, thinking, words", [
    ("gpt-5.5", "max", "has no reasoning effort max; it takes off or an effort (low, medium, high, xhigh)"),
    ("gpt-5.5", 4096, "takes no thinking budget in tokens"),
    ("qwen3-coder", "high", "has no reasoning effort high; it takes no reasoning effort"),
], ids=["max", "budget", "no-reasoning"])
def test_an_effort_the_model_lacks_is_refused_before_any_call(api, model, thinking, words):
    name = PROVIDER[api.api]
    api.enqueue("never")
    refused = send(api, call(f"{name}/{model}", "hi", thinking=thinking))
    assert isinstance(refused, Refused) and words in str(refused)
    assert posts(api) == []


def test_off_on_a_model_that_does_not_reason_sends_no_effort_field(api):
    name = PROVIDER[api.api]
    api.enqueue("plain")
    assert send(api, call(f"{name}/qwen3-coder", "hi")).text == "plain"
    body = api.requests[-1].body
    assert "reasoning_effort" not in body and "reasoning" not in body
