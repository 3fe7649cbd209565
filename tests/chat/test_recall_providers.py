"""Strategy: `ever bench recall` (the installed command, in a subprocess) on every provider, each
against its strict local stand-in (harness/localapi/): the turn model and the summarizer on the
Messages API, on an OpenAI-compatible server's Chat Completions and on OpenAI's Responses API,
and mixed (a local compactor on Chat Completions, a hosted master on the Messages API). The
stand-ins' scripted "model" is tests/support/recall_model.py's, which reads each wire's body, so
the zoom and search arms are right exactly when the tools, run through that wire, bring back
the planted message. Each run asserts where every request went: every compaction, every rolling
summary of the baseline, every answer's turn and every baseline answer on its model's wire and
no other, and none refused by a stand-in. A tiny chat (60 messages, 3 questions): this is the
plumbing, not a figure.
"""

import json
from types import SimpleNamespace

import pytest

from harness.bench.planted import generate
from harness.localapi.openai_api import OpenAILocalAPI
from harness.localapi.server import LocalAPI
from tests.support.chat import environment, ever
from tests.support.providers import MODELS, is_compaction
from tests.support.recall_model import as_messages, scripted

SEED, MESSAGES, PER_KIND, QUESTIONS = 3, 60, 1, 3
PATHS = {"anthropic": "/v1/messages", "openai-chat": "/v1/chat/completions", "openai-responses": "/v1/responses"}
# the turns' wire and the compactor's: each provider alone, then a local compactor under a hosted master
RUNS = {"anthropic": ("anthropic", "anthropic"), "openai-chat": ("openai-chat", "openai-chat"),
        "openai-responses": ("openai-responses", "openai-responses"), "mixed": ("anthropic", "openai-chat")}
MEMORY = {"anthropic": "claude-haiku-4-5", "openai-chat": "local/qwen3-coder",
          "openai-responses": "openai/gpt-5.5-mini"}


def kind_of(body):
    """What the bench asked in a request: a compaction, a baseline summary, an answer's turn, a
    baseline answer."""
    shaped = as_messages(body)
    if is_compaction(shaped):
        return "compaction"
    texts = [block.get("text", "") for block in shaped["messages"][-1]["content"]]
    if shaped["tools"]:
        return "turn"
    return "summary" if texts and texts[-1].startswith("Summary:") else "answer"


def config_for(servers):
    lines = []
    for kind, server in servers.items():
        if kind == "openai-chat":
            lines += ["[providers.local]", 'api = "openai-chat"', f'base_url = "{server.base_url}"']
        elif kind == "openai-responses":
            lines += ["[providers.openai]", f'base_url = "{server.base_url}"', 'key_env = "TEST_OPENAI_KEY"']
    return "\n".join(lines) + "\n"


@pytest.mark.slow  # a bench run per provider, each a process that builds a chat's tree
@pytest.mark.parametrize("run", list(RUNS))
def test_the_recall_bench_goes_through_each_providers_wire(tmp_path, run):
    turns_on, memory_on = RUNS[run]
    chat = generate(SEED, MESSAGES, PER_KIND)
    servers = {kind: LocalAPI() if kind == "anthropic" else OpenAILocalAPI(kind) for kind in {turns_on, memory_on}}
    for server in servers.values():
        server.start()
        server.responder = scripted(chat)
    try:
        home = tmp_path / "home"
        home.mkdir(mode=0o700)
        (home / "config.toml").write_text(config_for(servers))
        (home / "config.toml").chmod(0o600)
        # no Messages API in a run on OpenAI's wires: an address nothing listens at, and no key
        anthropic = servers.get("anthropic") or SimpleNamespace(base_url="http://127.0.0.1:9")
        env = environment(home, anthropic, key="test-key" if "anthropic" in servers else "")
        env["TEST_OPENAI_KEY"] = "test-openai-key"
        model, memory_model = MODELS[turns_on], MEMORY[memory_on]
        done = ever(["bench", "recall", "--messages", str(MESSAGES), "--per-kind", str(PER_KIND), "--seed", str(SEED),
                     "--questions", str(QUESTIONS), "--model", model, "--memory-model", memory_model, "--json",
                     "--yes"], env, timeout_seconds=600)
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert (result["api"], result["memory_api"]) == (servers[turns_on].base_url, servers[memory_on].base_url)
        assert any("measure nothing about memory" in note for note in result["notes"])
        for arm in ("zoom", "search"):  # the tools, through this wire, brought back each planted message
            assert (result["arms"][arm]["asked"], result["arms"][arm]["right"]) == (QUESTIONS, QUESTIONS)
        assert result["arms"]["baseline"]["asked"] == QUESTIONS and result["arms"]["baseline"]["failed"] == 0
        calls = {"compaction": 0, "summary": 0, "turn": 0, "answer": 0}
        for kind, server in servers.items():
            posts = [request for request in server.requests if request.path == PATHS[kind]]
            assert posts
            # besides its calls, a wire is asked only for its model list and its token counts
            assert {request.path for request in server.requests} - {PATHS[kind]} <= {
                "/v1/models", "/v1/messages/count_tokens", "/v1/responses/input_tokens"}
            assert all(request.status == 200 for request in posts), [r.answer for r in posts if r.status != 200]
            for request in posts:
                asked = kind_of(request.body)
                on = memory_on if asked in ("compaction", "summary") else turns_on
                assert kind == on, (asked, kind)  # each call on its model's wire, and no other
                sent_for = memory_model if on == memory_on and asked in ("compaction", "summary") else model
                assert request.body["model"] == (sent_for if kind == "anthropic" else sent_for.partition("/")[2])
                calls[asked] += 1
        assert calls["compaction"] == result["chats"][0]["built"]["compaction_calls"] > 0
        assert calls["summary"] == result["chats"][0]["baseline_summary"]["calls"] > 0
        assert calls["answer"] == QUESTIONS
        assert calls["turn"] == sum(a["calls"] for a in result["chats"][0]["answers"] if a["arm"] != "baseline")
    finally:
        for server in servers.values():
            server.stop()


def test_the_baselines_chunks_are_sized_from_the_window_the_server_lists(tmp_path):
    """A local model whose server lists a 16,384-token window (no table knows it, no config
    says it): the rolling summary's calls are sized from that window, so each is accepted,
    and there are as many as the chat's chunks at that window."""
    import asyncio

    from harness.bench.recall import Bench, BenchFailed, BenchSettings, baseline_budget, chunks
    from harness.calls.models import use_provider_listing
    from harness.calls.providers import providers_from
    from harness.localapi.openai_api import LocalModel

    chat = generate(SEED, MESSAGES, PER_KIND)
    with OpenAILocalAPI("openai-chat", models=(LocalModel("tiny", 16_384, 4_096),)) as api:
        api.responder = scripted(chat)
        providers = providers_from({"local": {"api": "openai-chat", "base_url": api.base_url}}, "config.toml")
        bench = Bench(BenchSettings(api_key="", base_url=None, model="local/tiny", memory_model="local/tiny",
                                    home=tmp_path, providers=providers))

        async def summarize():
            try:
                return await bench.summary(chat)
            except BenchFailed as error:  # a call refused as past the window
                return str(error), None
            finally:
                await bench.close()

        try:
            summary, cost = asyncio.run(summarize())
        finally:
            use_provider_listing("local", {})
        assert cost is not None, summary
        lines = [f"{at} {kind}: {text}" for at, (kind, text, _) in enumerate(chat.messages)]
        expected = len(chunks(lines, baseline_budget(16_384).chunk_bytes))
        sent = [request for request in api.requests if request.path == "/v1/chat/completions"]
        assert expected > 1 and cost["calls"] == len(sent) == expected
        assert all(request.status == 200 for request in sent)
        assert all(request.body["max_tokens"] == baseline_budget(16_384).max_tokens for request in sent)
        assert summary
