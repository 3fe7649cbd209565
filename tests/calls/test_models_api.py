"""Strategy: the Models API through the real SDK against the strict local Messages API, which serves
`GET /v1/models` as the Models API reference describes it (newest first, `limit` 1 to 1000,
`after_id`, a page's `has_more`). The local API here serves two models the way a real account's
list could differ from the hand table: `claude-nova-6`, which no table knows (a window of 2M tokens
and an output cap of 256K), and `claude-haiku-4-5` with a window of 60,000 tokens where the table
says 200,000. Whatever the chat learns must come from that answer: a request only the API's window
admits is sent, one only the table's admits is refused without a call. Then the Claude 5.5 rules as
the pages state them (whats-new-sonnet-5-5, whats-new-opus-5-5), each through a real turn or
request: "off" on Sonnet 5.5 is `between_tools`; the text between tool calls, which those models
send back as thinking blocks empty at the default display, is asked for and shown; forced tool use
is refused before a call.
"""

import asyncio
from dataclasses import replace
from datetime import UTC, datetime

import anthropic
import pytest

from harness.calls import capabilities as caps
from harness.calls import models
from harness.calls.approval import Approval
from harness.calls.client import Client, ClientSettings
from harness.calls.outcomes import Refused
from harness.calls.prompt import Prompt
from harness.calls.tools import WorkTools
from harness.calls.turn import Turn, TurnSettings
from harness.localapi.server import LocalAPI, Reply, text, tool_use
from harness.memory.service import Memory
from tests.support.turns import NOW, answer

NOVA = replace(models.assumed("claude-nova-6", 2_000_000), output_cap=256_000, adaptive=True,
               efforts=("low", "high"), display_name="Claude Nova 6")
HAIKU_SMALLER = replace(models.table_row("claude-haiku-4-5"), context_window=60_000)


def run(coroutine):
    return asyncio.run(coroutine)


@pytest.fixture(scope="module")
def server():
    with LocalAPI(models=[NOVA, HAIKU_SMALLER]) as api:
        yield api


@pytest.fixture
def api(server):
    server.reset()
    models.use_listing({})
    yield server
    models.use_listing({})


def client_of(api) -> Client:
    return Client(ClientSettings(api_key="test-key", base_url=api.base_url, attempts_max=1))


def test_the_sdk_reads_every_page_of_the_local_models_list(api):
    sdk = anthropic.Anthropic(api_key="test-key", base_url=api.base_url, max_retries=0)
    every = [info.id for info in sdk.models.list(limit=3)]  # the SDK follows has_more / after_id
    assert every[:2] == ["claude-nova-6", "claude-haiku-4-5"]
    assert len(every) == len(set(every)) == len(models.MODELS) + 1
    first = sdk.models.list(limit=3)
    assert [info.id for info in first.data] == every[:3] and first.has_more
    nova = sdk.models.retrieve("claude-nova-6")
    assert (nova.max_input_tokens, nova.max_tokens, nova.display_name) == (2_000_000, 256_000, "Claude Nova 6")
    assert nova.capabilities.effort.high.supported and not nova.capabilities.effort.max.supported
    with pytest.raises(anthropic.NotFoundError):
        sdk.models.retrieve("claude-nobody-1")
    with pytest.raises(anthropic.BadRequestError):
        sdk.models.list(limit=1001)
    assert all(request.path.startswith("/v1/models") for request in api.listings)
    assert api.requests == []  # the Messages API's records hold none of these


def test_a_model_only_the_models_api_knows_is_answered_within_its_own_window(api, tmp_path):
    api.enqueue("Hello from Nova.")

    async def go():
        async with client_of(api) as client:
            where = await caps.refresh(client, tmp_path, api.base_url, datetime(2026, 12, 2, tzinfo=UTC))
            # 250,000 output tokens: past the 200,000 assumed for a model nobody lists, within Nova's 2M
            try:
                reply = await client.stream({"model": "claude-nova-6", "max_tokens": 250_000,
                                             "messages": [{"role": "user", "content": "hi"}]})
            except Exception as error:  # the check below says what went wrong
                reply = error
            return where, reply

    where, reply = run(go())
    assert where == ("api", "")
    assert not isinstance(reply, Exception), reply
    assert reply.content[0]["text"] == "Hello from Nova."
    assert api.requests[-1].body["model"] == "claude-nova-6"
    assert (tmp_path / "models.json").exists()


def test_a_window_the_models_api_gives_is_the_one_checked_not_the_tables(api, tmp_path):
    request = {"model": "claude-haiku-4-5", "max_tokens": 64_000,
               "messages": [{"role": "user", "content": "hi"}]}
    assert models.window_problem(request) is None  # the table's 200,000 would admit it

    async def go():
        async with client_of(api) as client:
            await caps.refresh(client, tmp_path, api.base_url, datetime(2026, 12, 2, tzinfo=UTC))
            try:
                await client.stream(request)
            except Exception as error:  # the check below says what it should have been
                return error
            return None

    refused = run(go())
    assert isinstance(refused, Refused), refused
    assert "context window of 60,000 tokens" in str(refused)
    # counted (free), then refused: no Messages call
    assert [request.path for request in api.requests] == ["/v1/messages/count_tokens"]


def test_offline_the_cached_answer_and_then_the_table_answer(api, tmp_path):
    when = datetime(2026, 12, 2, tzinfo=UTC)

    async def go(base_url, at):
        async with Client(ClientSettings(api_key="test-key", base_url=base_url, attempts_max=1,
                                         connect_seconds=1)) as client:
            return await caps.refresh(client, tmp_path, base_url, at, force=False)

    base_url = api.base_url
    assert run(go(base_url, when)) == ("api", "")
    assert run(go(base_url, when)) == ("cache", "")  # fresh: no second call
    assert len(api.listings) == 1
    api.stop()
    try:
        later = when.replace(day=4)  # stale, and the server gone: the stale answer stands
        where, problem = run(go(base_url, later))
        assert where == "cache" and base_url in problem
        assert models.lookup("claude-nova-6").window == 2_000_000
        (tmp_path / "models.json").unlink()
        where, problem = run(go(base_url, later))
        assert where == "table" and problem
        assert models.lookup("claude-nova-6").source == "assumed"
    finally:
        api.start()


# --- the Claude 5.5 rules through a real turn ----------------------------------------------------

class Shown:
    def __init__(self):
        self.thought, self.said = [], []

    def text(self, delta):
        self.said.append(delta)

    def thinking(self, delta):
        self.thought.append(delta)

    def tool(self, name, tool_input):
        pass

    def result(self, text, is_error):
        pass

    def notice(self, sentence):
        pass


def a_turn(tmp_path, api, model, thinking, output):
    memory = Memory.open(tmp_path / "home", build=answer)
    client = Client(ClientSettings(api_key="test-key", base_url=api.base_url, attempts_max=1))
    tools = WorkTools(str(tmp_path), Approval(yes=True), secrets=("test-key",))
    settings = TurnSettings(model, 120.0, workdir=str(tmp_path), clock=lambda: NOW, thinking=thinking)
    return memory, client, Turn(memory, client, Prompt.build(), tools, settings, output)


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "claude-opus-5-5"])
def test_the_text_between_tool_calls_is_asked_for_and_shown(api, tmp_path, model):
    api.enqueue(Reply([text("Looking at the date first."), tool_use("date", {"id": 0}, id="t1")]))
    api.enqueue("It is late November.")
    shown = Shown()

    async def go():
        memory, client, turn = a_turn(tmp_path, api, model, "low", shown)
        memory.append("user", "hello")
        try:
            return await turn.run("what day is it?")
        finally:
            await client.aclose()
            memory.close()

    result = run(go())
    assert result.reply == "It is late November." and result.error == ""
    first, second = api.requests[-2].body, api.requests[-1].body
    assert first["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert first["output_config"] == {"effort": "low"}
    # the model gave its words between the calls as a thinking block: shown, and sent back unchanged
    assert "Looking at the date first." in "".join(shown.thought)
    sent_back = second["messages"][-2]["content"][0]
    assert sent_back == {"type": "thinking", "thinking": "Looking at the date first.",
                         "signature": f"local-signature:{model}"}


def test_off_on_sonnet_5_5_is_between_tools_and_a_turn_with_tools_runs(api, tmp_path):
    api.enqueue(Reply([text("Checking."), tool_use("date", {"id": 0}, id="t1")]))
    api.enqueue("Done.")
    shown = Shown()

    async def go():
        memory, client, turn = a_turn(tmp_path, api, "claude-sonnet-5-5", "off", shown)
        memory.append("user", "hello")
        try:
            return await turn.run("go")
        finally:
            await client.aclose()
            memory.close()

    result = run(go())
    assert result.error == "" and result.reply == "Done."
    assert [request.body["thinking"] for request in api.requests] == [{"type": "between_tools"}] * 2
    assert "Checking." in "".join(shown.thought)  # progress notes come back with their text


def test_forced_tool_use_on_the_newer_models_is_refused_before_a_call(api):
    request = {"model": "claude-sonnet-5-5", "max_tokens": 1000, "tool_choice": {"type": "any"},
               "messages": [{"role": "user", "content": "hi"}]}
    assert models.request_problem(request) == ("claude-sonnet-5-5 refuses forced tool use "
                                               "(tool_choice any); use auto or none")
    older = dict(request, model="claude-sonnet-4-6")
    assert models.request_problem(older) is None
