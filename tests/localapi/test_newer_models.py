"""Strategy: the strict local Messages API refuses what the Claude 5.5 models refuse, each rule quoted
from the page it follows, through raw HTTP (so nothing of Ever's shapes the request), and answers
what they accept. Thinking blocks are signed for the model that wrote them, so a block sent back to
another model is seen.
"""

import http.client
import json

import pytest

from harness.localapi.server import LocalAPI, Reply, text, tool_use


@pytest.fixture(scope="module")
def api():
    with LocalAPI() as server:
        yield server


def post(api, body):
    connection = http.client.HTTPConnection(api.base_url.removeprefix("http://"), timeout=60)  # a hang guard
    connection.request("POST", "/v1/messages", body=json.dumps(body).encode(),
                       headers={"content-type": "application/json", "anthropic-version": "2023-06-01",
                                "x-api-key": "test-key"})
    response = connection.getresponse()
    data = json.loads(response.read())
    connection.close()
    return response.status, data


def body_for(model="claude-sonnet-5-5", **fields):
    return {"model": model, "max_tokens": 1000, "messages": [{"role": "user", "content": "hi"}], **fields}


def refused(api, body):
    api.reset()
    status, data = post(api, body)
    assert status == 400 and data["error"]["type"] == "invalid_request_error", data
    return data["error"]["message"]


def test_sonnet_5_5_refuses_forced_tool_use_prefill_disabled_and_between_tools_at_max(api):
    tools = [{"name": "date", "description": "the date", "input_schema": {"type": "object", "properties": {}}}]
    # whats-new-sonnet-5-5: "Forced tool use returns an error"
    assert "forced tool use" in refused(api, body_for(tools=tools, tool_choice={"type": "any"}))
    assert "forced tool use" in refused(api, body_for(tools=tools, tool_choice={"type": "tool", "name": "date"}))
    # sonnet-5-5/migration-guide: "thinking: {"type": "disabled"}" returns a 400, whose message
    # "points to between_tools"
    assert "between_tools" in refused(api, body_for(thinking={"type": "disabled"}))
    # "At xhigh or max effort, requests with between_tools return a 400"
    assert "between_tools" in refused(api, body_for(thinking={"type": "between_tools"},
                                                    output_config={"effort": "max"}))
    # "assistant prefill" among the five settings that return a 400
    prefill = body_for(messages=[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Sure"}])
    assert "prefill" in refused(api, prefill)
    # the same requests are taken where the page says so: auto, between_tools at low effort
    api.reset()
    api.enqueue("ok")
    api.enqueue("ok")
    assert post(api, body_for(tools=tools, tool_choice={"type": "auto"}))[0] == 200
    assert post(api, body_for(thinking={"type": "between_tools"}, output_config={"effort": "low"}))[0] == 200
    # and an older model takes forced tool use still
    api.enqueue("ok")
    assert post(api, body_for(model="claude-sonnet-4-6", tools=tools, tool_choice={"type": "any"}))[0] == 200


def test_between_tools_is_refused_where_the_model_has_none(api):
    assert "between_tools" in refused(api, body_for(model="claude-haiku-4-5", thinking={"type": "between_tools"}))


def test_a_thinking_block_from_another_model_is_refused_by_the_newer_models(api):
    api.reset()
    api.enqueue(Reply([text("Let me check."), tool_use("date", {}, id="t1")]))
    tools = [{"name": "date", "description": "the date", "input_schema": {"type": "object", "properties": {}}}]
    status, first = post(api, body_for(model="claude-opus-5-5", tools=tools,
                                       thinking={"type": "adaptive", "display": "summarized"}))
    assert status == 200
    # the text before the tool call came back as a thinking block, with its text (display asked)
    assert first["content"][0] == {"type": "thinking", "thinking": "Let me check.",
                                   "signature": "local-signature:claude-opus-5-5"}
    follow = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": first["content"]},
              {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "Monday"}]}]
    # whats-new-sonnet-5-5: "Thinking blocks are tied to the model and the conversation"
    message = refused(api, body_for(model="claude-sonnet-5-5", tools=tools, messages=follow))
    assert "another model" in message
    api.reset()
    api.enqueue("It is Monday.")
    assert post(api, body_for(model="claude-opus-5-5", tools=tools, messages=follow))[0] == 200


def test_at_the_default_display_the_newer_models_text_between_tool_calls_comes_back_empty(api):
    api.reset()
    api.enqueue(Reply([text("Let me check."), tool_use("date", {}, id="t1")]))
    tools = [{"name": "date", "description": "the date", "input_schema": {"type": "object", "properties": {}}}]
    status, data = post(api, body_for(model="claude-opus-5-5", tools=tools))
    assert status == 200
    assert data["content"][0] == {"type": "thinking", "thinking": "", "signature": "local-signature:claude-opus-5-5"}
    # an older model gives its text as text
    api.reset()
    api.enqueue(Reply([text("Let me check."), tool_use("date", {}, id="t1")]))
    assert post(api, body_for(model="claude-sonnet-4-6", tools=tools))[1]["content"][0] == {
        "type": "text", "text": "Let me check."}
