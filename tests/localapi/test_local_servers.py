"""Strategy: the Chat Completions stand-in as each named local server (harness/localapi/openai_api.py,
`server=`), its own endpoints at the server's root answered in the shapes their documentation gives
and refusing what they do not take, each through plain HTTP: llama.cpp's `GET /props`
(`default_generation_settings.n_ctx`), `POST /apply-template` and `POST /tokenize` (`tokens`), vLLM's
`max_model_len` and `POST /tokenize` (`count`, `max_model_len`, `tokens`), Ollama's `POST /api/show`
(`model_info`'s `<architecture>.context_length`, `num_ctx` in `parameters`). A count is checked
against the completion's own: llama.cpp's tokenized template with its BOS token is what its window
check counts (one token past `n_ctx` refused, at `n_ctx` answered), vLLM's count is the
completion's `prompt_tokens`; Ollama answers a prompt past its window (it cuts it silently).
"""

import json
import urllib.error
import urllib.request

import pytest

from harness.localapi.openai_api import LocalModel, OpenAILocalAPI

MODEL = LocalModel("q", 8_192, 2_048, trained_window=32_768)  # trained to 32K, run at 8K
MESSAGES = [{"role": "system", "content": "You are Ever."}, {"role": "user", "content": "hello there"}]


def http(api, method, path, body=None):
    """(status, JSON answer) of a request to the server's root (`path` outside /v1)."""
    root = api.base_url[:-len("/v1")]
    request = urllib.request.Request(root + path, method=method, headers={"Authorization": "Bearer k",
                                                                           "content-type": "application/json"},
                                     data=None if body is None else json.dumps(body).encode())
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.fixture(scope="module", params=("llama.cpp", "vllm", "ollama"))
def server(request):
    with OpenAILocalAPI("openai-chat", server=request.param, models=(MODEL,), responder=lambda body: "ok") as api:
        yield api


@pytest.fixture
def api(server):
    server.reset()
    return server


def test_each_server_lists_its_models_as_it_does(api):
    status, listed = http(api, "GET", "/v1/models")
    entry = listed["data"][0]
    assert status == 200 and entry["id"] == "q"
    if api.server == "llama.cpp":  # the trained window only; the one it runs at is in /props
        assert entry["meta"]["n_ctx_train"] == 32_768 and "context_window" not in entry
        assert http(api, "GET", "/props")[1]["default_generation_settings"]["n_ctx"] == 8_192
    elif api.server == "vllm":
        assert entry["max_model_len"] == 8_192
    else:  # Ollama lists no window; /api/show gives it
        assert set(entry) == {"id", "object", "created", "owned_by"}
        shown = http(api, "POST", "/api/show", {"model": "q"})[1]
        assert shown["model_info"]["qwen3.context_length"] == 32_768
        assert shown["parameters"].split() == ["num_ctx", "8192"]
    assert api.requests == []  # the list and the server's own endpoints are kept apart from its calls
    assert [request.path for request in api.served_requests] == {
        "llama.cpp": ["/props"], "vllm": [], "ollama": ["/api/show"]}[api.server]


def completion(api, messages, max_tokens=16):
    return http(api, "POST", "/v1/chat/completions", {"model": "q", "messages": messages, "max_tokens": max_tokens})


def test_llama_cpp_counts_a_templated_body_as_its_window_check_does():
    with OpenAILocalAPI("openai-chat", server="llama.cpp", models=(MODEL,), responder=lambda body: "ok") as api:
        prompt = http(api, "POST", "/apply-template", {"messages": MESSAGES})[1]["prompt"]
        tokens = http(api, "POST", "/tokenize", {"content": prompt, "add_special": True})[1]["tokens"]
        bare = http(api, "POST", "/tokenize", {"content": prompt})[1]["tokens"]
        assert len(tokens) == len(bare) + 1  # the BOS token
        status, answered = completion(api, MESSAGES)
        assert status == 200 and answered["usage"]["prompt_tokens"] == len(bare)
        # a user text that brings the prompt to n_ctx exactly is answered; one token more is refused
        sized = [MESSAGES[0], {"role": "user", "content": "x" * 4}]
        base = len(http(api, "POST", "/tokenize", {"content": http(api, "POST", "/apply-template",
                                                                   {"messages": sized})[1]["prompt"],
                                                    "add_special": True})[1]["tokens"])
        fits = [MESSAGES[0], {"role": "user", "content": "x" * (4 + 4 * (8_192 - base))}]
        assert completion(api, fits)[0] == 200
        status, refused = completion(api, [MESSAGES[0], {"role": "user", "content": "x" * (8 + 4 * (8_192 - base))}])
        assert status == 400 and refused["error"]["type"] == "exceed_context_size_error"
        assert (refused["error"]["n_prompt_tokens"], refused["error"]["n_ctx"]) == (8_193, 8_192)
        assert "exceeds the available context size (8192 tokens)" in refused["error"]["message"]


@pytest.mark.parametrize("path, body, words", [
    ("/tokenize", {"content": "hi", "with_extra": True}, "not ['with_extra']"),
    ("/tokenize", {"content": 3}, "content (a string)"),
    ("/apply-template", {"messages": MESSAGES, "model": "q"}, "messages and tools"),
    ("/apply-template", {"messages": [MESSAGES[1], {"role": "tool", "tool_call_id": "c", "content": "x"}]},
     "answers no call"),
], ids=["tokenize_unknown_field", "tokenize_content_not_text", "template_unknown_field", "template_unpaired_tool"])
def test_llama_cpps_own_endpoints_refuse_what_they_do_not_take(path, body, words):
    with OpenAILocalAPI("openai-chat", server="llama.cpp", models=(MODEL,)) as api:
        status, refused = http(api, "POST", path, body)
        assert status == 400 and words in refused["error"]["message"]


def test_vllm_counts_a_chat_body_as_its_completion_counts_it():
    tools = [{"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}]
    with OpenAILocalAPI("openai-chat", server="vllm", models=(MODEL,), responder=lambda body: "ok") as api:
        counted = http(api, "POST", "/tokenize", {"model": "q", "messages": MESSAGES, "tools": tools})[1]
        answered = http(api, "POST", "/v1/chat/completions", {"model": "q", "messages": MESSAGES, "tools": tools,
                                                               "max_tokens": 16})[1]
        assert counted["count"] == answered["usage"]["prompt_tokens"] == len(counted["tokens"])
        assert counted["max_model_len"] == 8_192
        assert http(api, "POST", "/tokenize", {"model": "q", "messages": MESSAGES, "stream": True})[0] == 400
        assert http(api, "POST", "/tokenize", {"model": "nope", "messages": MESSAGES})[0] == 404


def test_ollama_shows_a_models_window_refuses_an_unknown_one_and_answers_a_prompt_past_its_window():
    plain = LocalModel("plain", 4_096, 1_024)  # no num_ctx set: its trained window is the one
    with OpenAILocalAPI("openai-chat", server="ollama", models=(MODEL, plain), responder=lambda body: "ok") as api:
        shown = http(api, "POST", "/api/show", {"model": "plain"})[1]
        assert (shown["parameters"], shown["model_info"]["qwen3.context_length"]) == ("", 4_096)
        assert http(api, "POST", "/api/show", {"model": "nope"})[0] == 404
        assert http(api, "POST", "/api/show", {"model": "q", "options": {}})[0] == 400
        status, answered = completion(api, [{"role": "user", "content": "word " * 20_000}])
        assert status == 200 and answered["usage"]["prompt_tokens"] > 8_192


def test_a_plain_compatible_server_has_none_of_these_endpoints():
    with OpenAILocalAPI("openai-chat") as api:
        assert http(api, "GET", "/props")[0] == 404
        assert http(api, "POST", "/tokenize", {"content": "hi"})[0] == 404
        assert [request.path for request in api.served_requests] == ["/props", "/tokenize"]


@pytest.mark.parametrize("wire", ["anthropic", "openai-chat", "openai-responses"])
def test_the_server_on_its_own_echoes_on_each_wire_and_keeps_no_request(wire):
    """`python -m harness.localapi --api WIRE --port 0`: the URL it prints answers an echo."""
    import signal
    import subprocess
    import sys

    import anthropic
    import openai

    child = subprocess.Popen([sys.executable, "-m", "harness.localapi", "--api", wire, "--port", "0"],
                             stdout=subprocess.PIPE, text=True)
    try:
        line = child.stdout.readline()
        url = line.split(" at ", 1)[1].split(" ", 1)[0]
        if wire == "anthropic":
            client = anthropic.Anthropic(base_url=url, api_key="k", max_retries=0)
            said = client.messages.create(model="claude-haiku-5-5", max_tokens=32,
                                          messages=[{"role": "user", "content": "hello"}]).content[0].text
        elif wire == "openai-chat":
            client = openai.OpenAI(base_url=url, api_key="k", max_retries=0)
            said = client.chat.completions.create(model="qwen3-coder", max_tokens=32, messages=[
                {"role": "user", "content": [{"type": "text", "text": "hello"}]}]).choices[0].message.content
        else:
            client = openai.OpenAI(base_url=url, api_key="k", max_retries=0)
            said = client.responses.create(model="gpt-5.5", max_output_tokens=32, input="hello").output_text
        assert said == "(local API, no model) You said: hello"
    finally:
        child.send_signal(signal.SIGTERM)
        child.wait(60)
    assert child.returncode == 0


def test_a_server_that_keeps_no_request_answers_and_records_nothing():
    with OpenAILocalAPI("openai-chat", server="vllm", models=(MODEL,), responder=lambda body: "ok",
                        recording=False) as api:
        assert completion(api, MESSAGES)[0] == 200
        assert http(api, "POST", "/tokenize", {"model": "q", "messages": MESSAGES})[0] == 200
        assert (api.requests, api.served_requests) == ([], [])
