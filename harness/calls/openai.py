"""OpenAI's two APIs as the provider seam's wire (harness/calls/provider.py) [H14] [H26]: the one
module that knows their request bodies, their finish reasons and their usage fields (with
harness/calls/openai_client.py, which sends the bodies through the `openai` SDK).

    body = chat_body(call, model)           # Chat Completions: OpenAI-compatible servers
    body = responses_body(call, model, key) # the Responses API: OpenAI itself
    reply = ChatStream().reply()            # fed the SDK's chunks; content in Ever's blocks

Ever's blocks become each API's own shape, and the view and the prompt keep their bytes: every text
block is its own text part, in order. Tool calls and results in its shape: an assistant's `tool_use`
is a function call whose `arguments` are a JSON string; each `tool_result` is a `tool` message (Chat)
or a `function_call_output` item (Responses), in the order of the calls it answers, before the
user's own text. Thinking blocks are Anthropic's and are not sent. A call's cache marks are
dropped: OpenAI caches prefixes of 1,024 tokens and more by itself, keyed by `prompt_cache_key`
[H27]; the Chat wire sends no key (a compatible server may refuse the field).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from harness.calls.outcomes import Reply, Stop, Usage
from harness.calls.provider import Call
from harness.calls.tool import Tool

JSON = dict[str, Any]

# [H28] each API's reasons in Ever's words; the tool loop decides what each means
CHAT_FINISH = {
    "stop": Stop.WHOLE,
    "tool_calls": Stop.TOOLS,
    "function_call": Stop.TOOLS,
    "length": Stop.LENGTH,
    "content_filter": Stop.REFUSED,
}
RESPONSES_INCOMPLETE = {
    "max_output_tokens": Stop.LENGTH,
    "content_filter": Stop.REFUSED,
}


def effort_of(body: JSON) -> str | int | None:
    """The effort a body of either wire sends, or None."""
    if "reasoning_effort" in body:
        return body["reasoning_effort"]
    reasoning = body.get("reasoning")
    return reasoning.get("effort") if isinstance(reasoning, dict) else None


# what the Responses API's input-token count takes of a body (`POST /v1/responses/input_tokens`)
COUNTED_FIELDS = ("model", "input", "instructions", "tools", "tool_choice", "reasoning", "parallel_tool_calls")


def chat_stop(finish_reason: str | None, refused: bool = False) -> Stop:
    if refused:
        return Stop.REFUSED
    return CHAT_FINISH.get(finish_reason or "", Stop.UNKNOWN)


def responses_stop(status: str | None, incomplete: str | None, calls: bool, refused: bool = False) -> Stop:
    """A Responses API reply's end: `status` completed (whole, or tools when it calls one) or
    incomplete with its reason."""
    if refused:
        return Stop.REFUSED
    if status == "completed":
        return Stop.TOOLS if calls else Stop.WHOLE
    if status == "incomplete":
        return RESPONSES_INCOMPLETE.get(incomplete or "", Stop.UNKNOWN)
    return Stop.UNKNOWN


# ---------------------------------------------------------------- Ever's blocks in OpenAI's shapes


def _data_url(block: JSON) -> str:
    source = block.get("source", {})
    return f"data:{source.get('media_type', 'image/png')};base64,{source.get('data', '')}"


def _result_text(block: JSON) -> tuple[str, list[JSON]]:
    """A tool result's text, and its images (sent after it, as the user's)."""
    content = block.get("content", "")
    if isinstance(content, str):
        texts, images = [content], []
    else:
        texts = [part["text"] for part in content if part.get("type") == "text"]
        images = [part for part in content if part.get("type") == "image"]
    text = "".join(texts)
    if block.get("is_error"):
        text = "Error: " + text
    return text, images


def arguments(block: JSON) -> str:
    """A tool call's input as the JSON string both APIs take."""
    return json.dumps(block.get("input", {}), ensure_ascii=False, separators=(",", ":"))


def chat_messages(call: Call) -> list[JSON]:
    out: list[JSON] = []
    if call.system:
        out.append({"role": "system", "content": [{"type": "text", "text": text} for text in call.system]})
    for message in call.messages:
        blocks = message["content"]
        if message["role"] == "assistant":
            text = "".join(block["text"] for block in blocks if block["type"] == "text")
            calls = [{"id": block["id"], "type": "function",
                      "function": {"name": block["name"], "arguments": arguments(block)}}
                     for block in blocks if block["type"] == "tool_use"]
            sent: JSON = {"role": "assistant", "content": text or None}
            if calls:
                sent["tool_calls"] = calls
            out.append(sent)
            continue
        parts: list[JSON] = []
        for block in blocks:  # the results first, one tool message per call, in the calls' order
            if block["type"] == "tool_result":
                text, images = _result_text(block)
                out.append({"role": "tool", "tool_call_id": block["tool_use_id"], "content": text})
                parts += [{"type": "image_url", "image_url": {"url": _data_url(image)}} for image in images]
        for block in blocks:
            if block["type"] == "text":
                parts.append({"type": "text", "text": block["text"]})
            elif block["type"] == "image":
                parts.append({"type": "image_url", "image_url": {"url": _data_url(block)}})
        if parts:
            out.append({"role": "user", "content": parts})
    return out


def chat_tools(tools: Sequence[Tool]) -> list[JSON]:
    return [{"type": "function", "function": {"name": tool.name, "description": tool.description,
                                              "parameters": tool.input_schema}} for tool in tools]


def chat_body(call: Call, model: str, effort: str | int | None = None) -> JSON:
    """The call as a Chat Completions body for `model` (the name on the server), streamed; its
    thinking as `reasoning_effort` where one is sent [H31]."""
    body: JSON = {"model": model, "messages": chat_messages(call), "max_tokens": call.max_tokens,
                  "stream": True, "stream_options": {"include_usage": True}}
    if effort is not None:
        body["reasoning_effort"] = effort
    if call.tools:
        body["tools"] = chat_tools(call.tools)
        if call.tools_off:
            body["tool_choice"] = "none"  # [C3]
    return body


def responses_input(call: Call) -> list[JSON]:
    out: list[JSON] = []
    if call.system:
        out.append({"type": "message", "role": "system",
                    "content": [{"type": "input_text", "text": text} for text in call.system]})
    for message in call.messages:
        blocks = message["content"]
        if message["role"] == "assistant":
            texts = [{"type": "output_text", "text": block["text"], "annotations": []}
                     for block in blocks if block["type"] == "text" and block["text"]]
            if texts:
                out.append({"type": "message", "role": "assistant", "content": texts})
            out += [{"type": "function_call", "call_id": block["id"], "name": block["name"],
                     "arguments": arguments(block)} for block in blocks if block["type"] == "tool_use"]
            continue
        parts: list[JSON] = []
        for block in blocks:
            if block["type"] == "tool_result":
                text, images = _result_text(block)
                out.append({"type": "function_call_output", "call_id": block["tool_use_id"], "output": text})
                parts += [{"type": "input_image", "image_url": _data_url(image)} for image in images]
        for block in blocks:
            if block["type"] == "text":
                parts.append({"type": "input_text", "text": block["text"]})
            elif block["type"] == "image":
                parts.append({"type": "input_image", "image_url": _data_url(block)})
        if parts:
            out.append({"type": "message", "role": "user", "content": parts})
    return out


def responses_body(call: Call, model: str, cache_key: str | None = None,
                   effort: str | int | None = None) -> JSON:
    """The call as a Responses API body: nothing stored at OpenAI (each turn is sent whole, as
    Ever sends every turn), the prefix cache keyed by `cache_key` [H27], its thinking as
    `reasoning.effort` where one is sent [H31]."""
    body: JSON = {"model": model, "input": responses_input(call), "max_output_tokens": call.max_tokens,
                  "stream": True, "store": False}
    if effort is not None:
        body["reasoning"] = {"effort": effort}
    if call.tools:
        body["tools"] = [{"type": "function", "name": tool.name, "description": tool.description,
                          "parameters": tool.input_schema, "strict": False} for tool in call.tools]
        if call.tools_off:
            body["tool_choice"] = "none"  # [C3]
    if cache_key:
        body["prompt_cache_key"] = cache_key
    return body


# ---------------------------------------------------------------- usage


def _field(value: Any, name: str) -> Any:
    if value is None:
        return None
    return value.get(name) if isinstance(value, dict) else getattr(value, name, None)


def chat_usage(usage: Any) -> Usage:
    """Chat Completions' usage in Ever's fields: the prompt is `prompt_tokens`, of which
    `prompt_tokens_details.cached_tokens` were read from the cache."""
    if usage is None:
        return Usage()
    details = _field(usage, "prompt_tokens_details")
    cached = _field(details, "cached_tokens") or 0
    written = _field(details, "cache_write_tokens") or 0
    prompt = _field(usage, "prompt_tokens") or 0
    return Usage(max(0, prompt - cached - written), written, cached, _field(usage, "completion_tokens") or 0)


def responses_usage(usage: Any) -> Usage:
    """The Responses API's usage: `input_tokens` whole, `input_tokens_details.cached_tokens` read."""
    if usage is None:
        return Usage()
    details = _field(usage, "input_tokens_details")
    cached = _field(details, "cached_tokens") or 0
    written = _field(details, "cache_write_tokens") or 0
    prompt = _field(usage, "input_tokens") or 0
    return Usage(max(0, prompt - cached - written), written, cached, _field(usage, "output_tokens") or 0)


# ---------------------------------------------------------------- a streamed reply


def _input_of(raw: str) -> JSON:
    """A call's arguments parsed; text that is no JSON object is kept for the tool to refuse."""
    try:
        value = json.loads(raw) if raw.strip() else {}
    except ValueError:
        return {"arguments": raw}
    return value if isinstance(value, dict) else {"arguments": raw}


class ChatStream:
    """Chat Completions chunks gathered into one reply. `feed` gives the neutral pieces to show."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.calls: dict[int, JSON] = {}
        self.finish: str | None = None
        self.refusal = ""
        self.usage = Usage()
        self.started = False

    def feed(self, chunk: Any) -> list[tuple[str, str]]:
        self.started = True
        shown: list[tuple[str, str]] = []
        if getattr(chunk, "usage", None) is not None:
            self.usage = chat_usage(chunk.usage)
        for choice in getattr(chunk, "choices", None) or ():
            delta = choice.delta
            if getattr(delta, "content", None):
                self.text.append(delta.content)
                shown.append(("text", delta.content))
            reasoning = getattr(delta, "reasoning_content", None)  # llama.cpp's and vLLM's
            if isinstance(reasoning, str) and reasoning:
                shown.append(("thinking", reasoning))
            if getattr(delta, "refusal", None):
                self.refusal += delta.refusal
            for piece in getattr(delta, "tool_calls", None) or ():
                call = self.calls.setdefault(piece.index, {"id": "", "name": "", "arguments": ""})
                if piece.id:
                    call["id"] = piece.id
                function = piece.function
                if function is not None:
                    if function.name:
                        call["name"] += function.name
                    if function.arguments:
                        call["arguments"] += function.arguments
                        shown.append(("tool_input", function.arguments))
            if choice.finish_reason:
                self.finish = choice.finish_reason
        return shown

    def reply(self, spent: Usage, attempts: int) -> Reply:
        content: list[JSON] = []
        text = "".join(self.text) or self.refusal
        if text:
            content.append({"type": "text", "text": text})
        for index in sorted(self.calls):
            call = self.calls[index]
            content.append({"type": "tool_use", "id": call["id"] or f"call_{index}", "name": call["name"],
                            "input": _input_of(call["arguments"])})
        return Reply(tuple(content), self.finish, self.usage, spent + self.usage, attempts,
                     chat_stop(self.finish, bool(self.refusal)))


class ResponsesStream:
    """Responses API events gathered into one reply."""

    def __init__(self) -> None:
        self.items: dict[int, JSON] = {}
        self.status: str | None = None
        self.incomplete: str | None = None
        self.refusal = ""
        self.usage = Usage()
        self.started = False
        self.failure: str | None = None

    def feed(self, event: Any) -> list[tuple[str, str]]:
        kind = getattr(event, "type", "")
        shown: list[tuple[str, str]] = []
        if kind == "response.created":
            self.started = True
        elif kind == "response.output_item.added":
            item = event.item
            if item.type == "function_call":
                self.items[event.output_index] = {"type": "tool_use", "id": item.call_id, "name": item.name,
                                                  "arguments": ""}
            elif item.type == "message":
                self.items[event.output_index] = {"type": "text", "text": ""}
        elif kind == "response.output_text.delta":
            entry = self.items.setdefault(event.output_index, {"type": "text", "text": ""})
            entry["text"] += event.delta
            shown.append(("text", event.delta))
        elif kind == "response.refusal.delta":
            self.refusal += event.delta
        elif kind == "response.reasoning_summary_text.delta":
            shown.append(("thinking", event.delta))
        elif kind == "response.function_call_arguments.delta":
            entry = self.items.get(event.output_index)
            if entry is not None:
                entry["arguments"] += event.delta
            shown.append(("tool_input", event.delta))
        elif kind == "response.function_call_arguments.done":
            entry = self.items.get(event.output_index)
            if entry is not None:
                entry["arguments"] = event.arguments
        elif kind == "error":  # an `error` event mid-stream
            self.failure = f"{getattr(event, 'code', '') or 'error'}: {getattr(event, 'message', '') or ''}"
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            response = event.response
            self.status = response.status
            details = getattr(response, "incomplete_details", None)
            self.incomplete = getattr(details, "reason", None)
            self.usage = responses_usage(response.usage)
            if kind == "response.failed":
                error = getattr(response, "error", None)
                self.failure = f"{getattr(error, 'code', '') or 'failed'}: {getattr(error, 'message', '') or ''}"
        return shown

    def reply(self, spent: Usage, attempts: int) -> Reply:
        content: list[JSON] = []
        calls = False
        for index in sorted(self.items):
            item = self.items[index]
            if item["type"] == "text" and item["text"]:
                content.append({"type": "text", "text": item["text"]})
            elif item["type"] == "tool_use":
                calls = True
                content.append({"type": "tool_use", "id": item["id"], "name": item["name"],
                                "input": _input_of(item["arguments"])})
        if self.refusal and not content:
            content.append({"type": "text", "text": self.refusal})
        reason = self.status if self.status != "incomplete" else (self.incomplete or "incomplete")
        return Reply(tuple(content), reason, self.usage, spent + self.usage, attempts,
                     responses_stop(self.status, self.incomplete, calls, bool(self.refusal)))
