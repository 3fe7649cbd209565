"""Anthropic's Messages API as a provider (harness/calls/provider.py) [H14]: the one module that
knows its request body, its cache marks (`cache_control`) and its stop reasons; harness/calls/client.py
sends the body through the SDK, the only module that imports it.

    provider = Anthropic(client)
    request = provider.request(call)     # {"model", "max_tokens", "tools", ["tool_choice"], "system", "messages"}
    reply = await provider.stream(request, on_event)   # reply.stop: the stop reason in Ever's words

A call's marks become `cache_control` on the blocks they name, all 5-minute ones [gist §3.3]; with
`cache.marks = false` the caller places none. The tools go as `{name, description, input_schema}`
from the registry (harness/calls/tool.py), the system prompt's texts as text blocks.
No SDK here: the SDK's stream events are read by their documented fields.
"""

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from typing import Any, Protocol

from harness.calls.models import THINKING_OFF, Thinking, capabilities
from harness.calls.outcomes import Reply, Stop, Usage
from harness.calls.provider import SYSTEM, Call, OnStreamed, Streamed
from harness.calls.requests import thinking_fields, within_image_limits
from harness.calls.tool import Tool

JSON = dict[str, Any]
EPHEMERAL = {"type": "ephemeral"}  # a 5-minute entry: never "1h" [gist §3.3]

# [A7] the API's stop reasons in Ever's words; the tool loop decides what each means
STOPS = {
    "end_turn": Stop.WHOLE,
    "stop_sequence": Stop.WHOLE,
    "tool_use": Stop.TOOLS,
    "pause_turn": Stop.PAUSED,
    "max_tokens": Stop.LENGTH,
    "refusal": Stop.REFUSED,
    "model_context_window_exceeded": Stop.WINDOW,
}


def stop_of(stop_reason: str | None) -> Stop:
    return STOPS.get(stop_reason or "", Stop.UNKNOWN)


# ---------------------------------------------------------------- marks


def marked(block: JSON) -> JSON:
    """The block with a cache mark at its end."""
    return dict(block, cache_control=dict(EPHEMERAL))


def is_marked(block: JSON) -> bool:
    return "cache_control" in block


def mark_of(block: JSON) -> JSON | None:
    return block.get("cache_control")


def bare(block: Any) -> Any:
    """The block without its mark."""
    if isinstance(block, dict):
        return {name: value for name, value in block.items() if name != "cache_control"}
    return block


def without_marks(request: JSON) -> JSON:
    """The request with no `cache_control` anywhere (`cache.marks = false`: a server that
    refuses them)."""
    out = {k: v for k, v in request.items() if k != "cache_control"}
    if "tools" in out:
        out["tools"] = [bare(tool) for tool in out["tools"]]
    if isinstance(out.get("system"), list):
        out["system"] = [bare(block) for block in out["system"]]
    out["messages"] = [
        dict(message, content=[bare(block) for block in message["content"]])
        if isinstance(message.get("content"), list) else message
        for message in out["messages"]
    ]
    return out


def finished(request: JSON, thinking: Thinking = THINKING_OFF, marks: bool = True) -> JSON:
    """`request` with its thinking fields, without its marks when `marks` is false, and with the
    images the API would refuse it for replaced by a note (requests.py's `within_image_limits`)."""
    request = dict(request)
    request.update(thinking_fields(request["model"], thinking))
    return within_image_limits(request if marks else without_marks(request))


# ---------------------------------------------------------------- the body


def wire_tools(tools: Sequence[Tool]) -> list[JSON]:
    """The tools as the API takes them; each schema the registry's own object."""
    return [{"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}
            for tool in tools]


def wire_system(texts: Sequence[str], marked_end: bool = True) -> list[JSON]:
    """The system prompt's texts as text blocks; [C2] a mark on its end."""
    blocks = [{"type": "text", "text": text} for text in texts]
    if marked_end and blocks:
        blocks[-1] = marked(blocks[-1])
    return blocks


def wire_messages(messages: Sequence[JSON], places: Sequence[tuple[int, int]]) -> list[JSON]:
    """The messages with a mark on each block a place names."""
    by_message: dict[int, set[int]] = {}
    for m, b in places:
        by_message.setdefault(m, set()).add(b)
    out = []
    for m, message in enumerate(messages):
        marks = by_message.get(m)
        content = message["content"]
        if marks:
            content = [marked(block) if b in marks else block for b, block in enumerate(content)]
        out.append({"role": message["role"], "content": list(content)})
    return out


def body(call: Call) -> JSON:
    """The call as a Messages API body, its thinking fields added and its images within limits."""
    system_marks = {b for m, b in call.marks if m == SYSTEM}
    system = [{"type": "text", "text": text} for text in call.system]
    system = [marked(block) if b in system_marks else block for b, block in enumerate(system)]
    request: JSON = {"model": call.model, "max_tokens": call.max_tokens, "tools": wire_tools(call.tools)}
    if call.tools_off:
        request["tool_choice"] = {"type": "none"}  # [C3]
    request["system"] = system
    request["messages"] = wire_messages(call.messages, [(m, b) for m, b in call.marks if m != SYSTEM])
    return finished(request, call.thinking)


# ---------------------------------------------------------------- the prefix a cache keys


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _content(content: Any) -> list:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def prefix_keys(request: JSON) -> tuple[list[bytes], list[int]]:
    """The request's cache prefixes as the API orders them (tools → system → messages): one key per
    block boundary (keys[p] is the prefix of the first p blocks), and the marked blocks' numbers.

    A key hashes what makes a prefix the same on the API: the model, each block without its mark,
    and for message blocks the role and the thinking and tool_choice settings (changing those
    breaks the message part of the prefix)."""
    blocks: list[tuple[bytes, bool]] = []
    for tool in request.get("tools", ()):
        blocks.append((b"tool\0" + _canonical(bare(tool)), "cache_control" in tool))
    system = request.get("system")
    if system:
        for block in _content(system):
            blocks.append((b"system\0" + _canonical(bare(block)), "cache_control" in block))
    settings = _canonical({"thinking": request.get("thinking"), "tool_choice": request.get("tool_choice")})
    for message in request["messages"]:
        role = message["role"].encode("ascii")
        for block in _content(message["content"]):
            blocks.append((role + b"\0" + settings + b"\0" + _canonical(bare(block)), "cache_control" in block))
    digest = hashlib.sha256(b"model\0" + request["model"].encode("utf-8")).digest()
    keys = [digest]
    marks = []
    for number, (identity, is_mark) in enumerate(blocks, start=1):
        digest = hashlib.sha256(digest + len(identity).to_bytes(8, "big") + identity).digest()
        keys.append(digest)
        if is_mark:
            marks.append(number)
    if request.get("cache_control") is not None and blocks and (not marks or marks[-1] != len(blocks)):
        marks.append(len(blocks))
    return keys, marks


# ---------------------------------------------------------------- the provider


class _Events:
    """The SDK's stream events as neutral pieces: text, thinking, a tool's input, the usage."""

    def __init__(self, on_event: OnStreamed) -> None:
        self.on_event = on_event
        self.usage: Usage | None = None

    def __call__(self, event: Any) -> None:
        kind = getattr(event, "type", "")
        if kind == "message_start":
            self.usage = Usage.of(event.message.usage)
            self.on_event(Streamed("usage", usage=self.usage))
        elif kind == "message_delta" and self.usage is not None and getattr(event, "usage", None):
            self.usage = dataclasses.replace(self.usage, output_tokens=event.usage.output_tokens or 0)
            self.on_event(Streamed("usage", usage=self.usage))
        elif kind == "content_block_delta":
            delta = event.delta
            if delta.type == "text_delta":
                self.on_event(Streamed("text", delta.text or ""))
            elif delta.type == "thinking_delta":
                self.on_event(Streamed("thinking", delta.thinking or ""))
            elif delta.type == "input_json_delta":
                self.on_event(Streamed("tool_input", delta.partial_json or ""))


class Streams(Protocol):
    """harness/calls/client.py's `Client`, or anything with its `stream` (a benchmark's meter); not
    imported here, since the client imports this module's `prefix_keys`."""

    async def stream(self, request: JSON, on_event: Any = None) -> Reply: ...


class Anthropic:
    """The Messages API through a `Client` (or anything with its `stream`: a benchmark's meter)."""

    def __init__(self, client: Streams) -> None:
        self.client = client

    def request(self, call: Call) -> JSON:
        return body(call)

    async def stream(self, request: JSON, on_event: OnStreamed | None = None) -> Reply:
        events = _Events(on_event) if on_event is not None else None
        if events is None:  # a meter or a test's client may take no `on_event`
            reply = await self.client.stream(request)
        else:
            reply = await self.client.stream(request, on_event=events)
        return dataclasses.replace(reply, stop=stop_of(reply.stop_reason))

    async def count_tokens(self, request: JSON) -> int | None:
        return await self.client._counted_tokens(request)

    def capabilities(self, model: str) -> Any:
        return capabilities(model)

    async def aclose(self) -> None:
        await self.client.aclose()


def provider_of(client: Any) -> Any:
    """`client` as a provider: a provider as it is, a client of the Messages API wrapped."""
    return client if hasattr(client, "request") else Anthropic(client)
