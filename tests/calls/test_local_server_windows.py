"""Strategy: on an OpenAI-compatible local server Ever learns the window the model runs at from the
server's own word and counts a body's tokens with the server's own count before it sends [H36],
through the real `openai` SDK against the Chat Completions stand-in as each server
(harness/localapi/openai_api.py, `server=`). The model is trained to 32,768 tokens and run at
8,192, and the config says 200,000: llama.cpp's `/props` n_ctx, vLLM's `max_model_len` and
Ollama's `/api/ps` context_length (the model loaded) each win over the trained length and the
config; an Ollama model not loaded has its Modelfile's `num_ctx`, else its trained length said to
be one; a llama.cpp router's models each have their own `/props?model=` window. A body of 12,000 bytes (its
bytes pass 8,192, its tokens do not) is counted by llama.cpp's `/apply-template` + `/tokenize` and
vLLM's `/tokenize` and sent; on Ollama, which counts nothing (and cuts a long prompt silently), its
bytes decide and it is not sent, and the sentence says so. A body of 40,000 bytes is refused
before any call everywhere, its sentence naming where the window came from.
"""

import asyncio

import pytest

from harness.calls.capabilities import refresh_provider
from harness.calls.client import ClientSettings
from harness.calls.models import provider_listing, use_provider_listing
from harness.calls.openai_client import OpenAIProvider
from harness.calls.outcomes import Refused
from harness.calls.provider import Call
from harness.localapi.openai_api import LocalModel, OpenAILocalAPI

MODEL = LocalModel("q", 8_192, 2_048, trained_window=32_768)
CONFIG_WINDOW = 200_000  # what a config.toml's context_window says; the server's word wins
WHERE = {"llama.cpp": "llama.cpp's /props n_ctx", "vllm": "vLLM's max_model_len in its model list",
         "ollama": "Ollama's /api/ps context_length"}
COUNTS = {"llama.cpp": ["apply-template", "tokenize"], "vllm": ["tokenize"], "ollama": []}


@pytest.fixture(scope="module", params=("llama.cpp", "vllm", "ollama"))
def server(request):
    with OpenAILocalAPI("openai-chat", server=request.param, models=(MODEL,)) as api:
        yield api


@pytest.fixture
def api(server):
    server.reset()
    server.responder = lambda body: "ok"
    yield server
    use_provider_listing("local", {})


def learned(server: str, *models: LocalModel) -> dict:
    """Each model's window and its words, as Ever learns them from `server`'s stand-in."""
    with OpenAILocalAPI("openai-chat", server=server, models=models) as api:
        async def go():
            client = provider(api)
            try:
                assert await refresh_provider(client) == ""
            finally:
                await client.aclose()

        asyncio.run(go())
        try:
            return {model_id: (model.window, model.window_from)
                    for model_id, model in provider_listing("local").items()}
        finally:
            use_provider_listing("local", {})


def provider(api, window=CONFIG_WINDOW) -> OpenAIProvider:
    return OpenAIProvider(ClientSettings(api_key="", base_url=api.base_url, backoff_first_seconds=0.01),
                          api="openai-chat", name="local", window=window)


def ask(api, text: str):
    """The reply to one call of `text`, or the Refused raised; the server's word learned first."""
    async def go():
        client = provider(api)
        try:
            assert await refresh_provider(client) == ""
            said = {"role": "user", "content": [{"type": "text", "text": text}]}
            return await client.stream(client.request(Call("local/q", 500, ("You are Ever.",), (), (said,))))
        except Refused as refused:
            return refused
        finally:
            await client.aclose()

    return asyncio.run(go())


def completions(api) -> list[str]:
    return [request.answer for request in api.requests if request.path == "/v1/chat/completions"]


def test_the_window_is_the_one_the_server_runs_at_over_the_trained_length_and_the_config(api):
    assert ask(api, "hi").text == "ok"
    learned = provider_listing("local")["q"]
    assert (learned.window, learned.window_from) == (8_192, WHERE[api.server])
    assert provider(api).capabilities("local/q").window == 8_192  # not the config's 200,000


def test_a_body_whose_bytes_pass_the_window_is_counted_by_the_server_and_sent_where_it_counts(api):
    reply = ask(api, "word " * 2_400)  # 12,000 bytes; about 3,000 tokens as the stand-in counts
    counted = [request.answer for request in api.served_requests if request.method == "POST"
               and request.answer != "api/show"]
    if api.server == "ollama":
        assert isinstance(reply, Refused) and completions(api) == []
        assert "its server counts no tokens" in str(reply) and "(its bytes)" in str(reply)
        assert "8,192 tokens (Ollama's /api/ps context_length)" in str(reply)
    else:
        assert not isinstance(reply, Refused), str(reply)
        assert reply.text == "ok" and completions(api) == ["reply"]
        assert counted == COUNTS[api.server]


def test_a_body_past_the_window_as_the_server_counts_it_is_refused_before_any_call(api):
    refused = ask(api, "word " * 8_000)  # 40,000 bytes, about 10,000 tokens
    assert isinstance(refused, Refused) and completions(api) == []
    sentence = str(refused)
    assert f"8,192 tokens ({WHERE[api.server]})" in sentence
    assert ("as the API counts them" in sentence) == (api.server != "ollama")


def test_a_server_that_says_nothing_leaves_the_configured_window_and_the_byte_bound_and_says_so():
    with OpenAILocalAPI("openai-chat", models=(LocalModel("q", 8_192, 2_048),)) as api:
        api.responder = lambda body: "ok"

        async def go():
            client = provider(api, window=9_000)
            try:  # no list learned: the config's window, no count
                said = {"role": "user", "content": [{"type": "text", "text": "word " * 2_400}]}
                return await client.stream(client.request(Call("local/unlisted", 500, (), (), (said,))))
            except Refused as refused:
                return refused
            finally:
                await client.aclose()

        refused = asyncio.run(go())
        assert isinstance(refused, Refused) and api.requests == []
        assert "9,000 tokens (a context_window setting in config.toml)" in str(refused)
        assert "its server counts no tokens" in str(refused)


def test_an_ollama_model_not_loaded_has_its_modelfiles_num_ctx_else_its_trained_length_said_to_be_one():
    windows = learned("ollama", LocalModel("set", 8_192, 2_048, trained_window=32_768, loaded=False),
                      LocalModel("unset", 4_096, 2_048, trained_window=32_768, num_ctx_set=False, loaded=False),
                      LocalModel("default", 4_096, 2_048, trained_window=32_768, num_ctx_set=False))
    assert windows["set"] == (8_192, "Ollama's /api/show num_ctx")
    window, words = windows["unset"]
    assert window == 32_768 and words.startswith("Ollama's /api/show qwen3.context_length, the trained length")
    assert "may be less" in words
    assert windows["default"] == (4_096, "Ollama's /api/ps context_length")  # loaded at the server's default


def test_a_llama_cpp_router_gives_each_model_its_own_window_never_the_first_ones():
    windows = learned("llama.cpp", LocalModel("small", 8_192, 2_048, trained_window=32_768),
                      LocalModel("large", 65_536, 2_048, trained_window=131_072))
    assert windows["small"] == (8_192, "llama.cpp's /props n_ctx")
    assert windows["large"] == (65_536, "llama.cpp's /props n_ctx")


def test_a_server_refusing_a_prompt_past_the_window_it_runs_at_gets_one_sentence_naming_a_fix_that_exists():
    # the config says 200,000 where the plain server runs the model at 8,192 and says nothing:
    # 40,000 bytes pass Ever's check and reach the server, which refuses them
    with OpenAILocalAPI("openai-chat", models=(LocalModel("q", 8_192, 2_048),)) as api:
        api.responder = lambda body: "ok"

        async def go():
            client = provider(api, window=CONFIG_WINDOW)
            try:
                said = {"role": "user", "content": [{"type": "text", "text": "word " * 8_000}]}
                return await client.stream(client.request(Call("local/q", 500, (), (), (said,))))
            except Refused as refused:
                return refused
            finally:
                await client.aclose()

        refused = asyncio.run(go())
        assert isinstance(refused, Refused) and completions(api) == ["invalid"]  # one call, refused
        sentence = str(refused)
        assert "400 context_length_exceeded" in sentence and "choose a model with a larger window" in sentence
        assert "context_window in config.toml" in sentence
        assert "view_bytes" not in sentence  # no such setting
