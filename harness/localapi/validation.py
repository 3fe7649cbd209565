"""What the local Messages API accepts: a request's checks (400 `invalid_request_error`, as the real API), its
prompt blocks in the cache's order, their tokens (the token rule in harness/localapi/server.py), its cache marks."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from harness.localapi.replies import text

JSON = dict[str, Any]

cache_marks_max = 4
cache_ttl_seconds = {"5m": 300, "1h": 3600}
thinking_budget_tokens_min = 1024
request_fields = frozenset({
    "model", "messages", "max_tokens", "system", "tools", "tool_choice", "thinking", "stream",
    "cache_control", "metadata", "stop_sequences", "temperature", "top_k", "top_p", "service_tier",
    "output_config", "container", "diagnostics", "inference_geo", "speed", "user_profile_id",
    "workspace_id", "mcp_servers", "context_management",
})
count_tokens_fields = frozenset({
    "model", "messages", "system", "tools", "tool_choice", "thinking", "cache_control",
    "output_config", "speed", "mcp_servers", "context_management",
})
# Blocks the API refuses a cache_control on.
unmarkable_block_types = frozenset({"thinking", "redacted_thinking"})


class ApiError(Exception):
    """An error the API answers with its JSON error body."""

    def __init__(self, status: int, error_type: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error_type = error_type
        self.message = message


def invalid(message: str) -> ApiError:
    return ApiError(400, "invalid_request_error", message)


def canonical_json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def block_tokens(block: JSON) -> int:
    """The token rule: ceil(UTF-8 bytes of the canonical JSON, without cache_control, / 4)."""
    bare = {name: value for name, value in block.items() if name != "cache_control"}
    return math.ceil(len(canonical_json(bare)) / 4)


@dataclass(frozen=True)
class PromptBlock:
    """One block of a prompt in the cache's order, with what the cache needs of it."""

    where: str            # "tools.0", "system.1", "messages.2.content.0": for error messages
    block: JSON           # as sent, with its cache_control if any
    identity: bytes       # what makes two blocks the same prefix element
    tokens: int


def is_json_object(value: Any) -> bool:
    return isinstance(value, dict)


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def content_blocks(content: Any, where: str) -> list[JSON]:
    if isinstance(content, str):
        return [text(content)]
    if not isinstance(content, list):
        raise invalid(f"{where}: Input should be a valid string or a list of content blocks")
    for index, block in enumerate(content):
        if not is_json_object(block) or not isinstance(block.get("type"), str):
            raise invalid(f"{where}.{index}: Input should be a content block with a `type`")
    return content


def check_block(block: JSON, where: str) -> None:
    kind = block["type"]
    if kind == "text":
        if not isinstance(block.get("text"), str):
            raise invalid(f"{where}.text: Field required")
        if block["text"] == "":
            if "cache_control" in block:
                raise invalid(f"{where}.text: cache_control cannot be set for empty text blocks")
            raise invalid(f"{where}: text content blocks must be non-empty")
    if kind == "tool_use":
        for name in ("id", "name"):
            if not isinstance(block.get(name), str):
                raise invalid(f"{where}.{name}: Field required")
        if not is_json_object(block.get("input")):
            raise invalid(f"{where}.input: Input should be a valid dictionary")
    if kind == "tool_result" and not isinstance(block.get("tool_use_id"), str):
        raise invalid(f"{where}.tool_use_id: Field required")
    if kind in unmarkable_block_types and "cache_control" in block:
        raise invalid(f"{where}: cache_control cannot be set on {kind} blocks")


def check_cache_control(mark: Any, where: str) -> str:
    """The mark's lifetime ("5m" or "1h")."""
    if not is_json_object(mark) or mark.get("type") != "ephemeral":
        raise invalid(f"{where}.type: Input should be 'ephemeral'")
    ttl = mark.get("ttl", "5m")
    if ttl not in cache_ttl_seconds:
        raise invalid(f"{where}.ttl: Input should be '5m' or '1h'")
    return ttl


def check_tool_pairs(messages: list[JSON]) -> None:
    """Each tool_result answers a tool_use of the message just before; each tool_use is answered in
    the message just after (unless it ends the conversation)."""
    for index, message in enumerate(messages):
        blocks = content_blocks(message["content"], f"messages.{index}.content")
        results = [block["tool_use_id"] for block in blocks if block["type"] == "tool_result"]
        previous = messages[index - 1] if index > 0 else None
        uses = []
        if previous is not None and previous["role"] == "assistant":
            previous_blocks = content_blocks(previous["content"], f"messages.{index - 1}.content")
            uses = [block["id"] for block in previous_blocks if block["type"] == "tool_use"]
        unexpected = [tool_use_id for tool_use_id in results if tool_use_id not in uses]
        if unexpected:
            raise invalid(
                f"messages.{index}.content: unexpected `tool_use_id` found in `tool_result` blocks: "
                f"{', '.join(unexpected)}. Each `tool_result` block must have a corresponding "
                "`tool_use` block in the previous message.")
        if previous is not None and previous["role"] == "assistant" and message["role"] == "user":
            unanswered = [tool_use_id for tool_use_id in uses if tool_use_id not in results]
            if unanswered:
                raise invalid(
                    f"messages.{index - 1}: `tool_use` ids were found without `tool_result` blocks "
                    f"immediately after: {', '.join(unanswered)}. Each `tool_use` block must have a "
                    "corresponding `tool_result` block in the next message.")


def check_request(body: Any, counting: bool) -> None:
    """Raise the API's 400 for a request it would refuse (the checks a client most often trips)."""
    if not is_json_object(body):
        raise invalid("The request body must be a JSON object")
    allowed = count_tokens_fields if counting else request_fields
    for name in body:
        if name not in allowed:
            raise invalid(f"{name}: Extra inputs are not permitted")
    if not isinstance(body.get("model"), str) or body["model"] == "":
        raise invalid("model: Field required")
    if not counting:
        if "max_tokens" not in body:
            raise invalid("max_tokens: Field required")
        if not is_int(body["max_tokens"]):
            raise invalid("max_tokens: Input should be a valid integer")
        if body["max_tokens"] < 1:
            raise invalid("max_tokens: Input should be greater than or equal to 1")
        if "stream" in body and not isinstance(body["stream"], bool):
            raise invalid("stream: Input should be a valid boolean")
    if "messages" not in body:
        raise invalid("messages: Field required")
    messages = body["messages"]
    if not isinstance(messages, list):
        raise invalid("messages: Input should be a valid list")
    if not messages:
        raise invalid("messages: at least one message is required")
    for index, message in enumerate(messages):
        if not is_json_object(message):
            raise invalid(f"messages.{index}: Input should be a valid dictionary")
        if message.get("role") not in ("user", "assistant"):
            raise invalid(f"messages.{index}.role: Input should be 'user' or 'assistant'")
        if "content" not in message:
            raise invalid(f"messages.{index}.content: Field required")
        where = f"messages.{index}.content"
        for block_index, block in enumerate(content_blocks(message["content"], where)):
            check_block(block, f"{where}.{block_index}")
    check_tool_pairs(messages)
    system = body.get("system")
    if system is not None:
        if not isinstance(system, (str, list)):
            raise invalid("system: Input should be a valid string or a list of text blocks")
        for index, block in enumerate(content_blocks(system, "system") if system != "" else []):
            if block["type"] != "text":
                raise invalid(f"system.{index}.type: Input should be 'text'")
            check_block(block, f"system.{index}")
    tools = body.get("tools", [])
    if not isinstance(tools, list):
        raise invalid("tools: Input should be a valid list")
    for index, tool in enumerate(tools):
        if not is_json_object(tool) or not isinstance(tool.get("name"), str):
            raise invalid(f"tools.{index}.name: Field required")
    thinking_setting = body.get("thinking")
    if thinking_setting is not None:
        if not is_json_object(thinking_setting) or thinking_setting.get("type") not in (
                "enabled", "disabled", "adaptive", "between_tools"):
            raise invalid("thinking.type: Input should be 'enabled', 'disabled' or 'adaptive'")
        if thinking_setting["type"] == "enabled":
            budget = thinking_setting.get("budget_tokens")
            if not is_int(budget):
                raise invalid("thinking.enabled.budget_tokens: Field required")
            if budget < thinking_budget_tokens_min:
                raise invalid("thinking.enabled.budget_tokens: Input should be greater than or "
                              f"equal to {thinking_budget_tokens_min}")
            if not counting and body["max_tokens"] <= budget:
                raise invalid("`max_tokens` must be greater than `thinking.budget_tokens`")


def prompt_blocks(body: JSON) -> list[PromptBlock]:
    """The request's blocks in the cache's order, tools → system → messages [gist §3.3]."""
    blocks: list[PromptBlock] = []

    def add(where: str, block: JSON, identity_prefix: bytes) -> None:
        bare = {name: value for name, value in block.items() if name != "cache_control"}
        blocks.append(PromptBlock(where, block, identity_prefix + canonical_json(bare),
                                  block_tokens(block)))

    for index, tool in enumerate(body.get("tools", [])):
        add(f"tools.{index}", tool, b"tool\0")
    system = body.get("system")
    if system:
        for index, block in enumerate(content_blocks(system, "system")):
            add(f"system.{index}", block, b"system\0")
    # The API drops the message part of the cache when these settings change.
    settings = canonical_json({"thinking": body.get("thinking"), "tool_choice": body.get("tool_choice")})
    for index, message in enumerate(body["messages"]):
        where = f"messages.{index}.content"
        role = message["role"].encode("ascii")
        for block_index, block in enumerate(content_blocks(message["content"], where)):
            add(f"{where}.{block_index}", block, role + b"\0" + settings + b"\0")
    return blocks


def cache_marks(body: JSON, blocks: list[PromptBlock]) -> list[tuple[int, str]]:
    """The marks as (block number counted from 1, ttl), in prompt order; checks their count and order."""
    marks: dict[int, str] = {}
    for number, prompt_block in enumerate(blocks, start=1):
        if "cache_control" in prompt_block.block:
            marks[number] = check_cache_control(prompt_block.block["cache_control"],
                                                 f"{prompt_block.where}.cache_control")
    top = body.get("cache_control")
    if top is not None:
        ttl = check_cache_control(top, "cache_control")
        markable = [number for number, prompt_block in enumerate(blocks, start=1)
                    if prompt_block.block.get("type") not in unmarkable_block_types
                    and not (prompt_block.block.get("type") == "text" and prompt_block.block.get("text") == "")]
        if markable and markable[-1] not in marks:
            marks[markable[-1]] = ttl
    if len(marks) > cache_marks_max:
        raise invalid(f"A maximum of {cache_marks_max} blocks with cache_control may be provided. "
                      f"Found {len(marks)}.")
    ordered = sorted(marks.items())
    for (_, earlier), (_, later) in zip(ordered, ordered[1:]):
        if earlier == "5m" and later == "1h":
            raise invalid("a ttl='1h' cache_control block must not come after a ttl='5m' cache_control "
                          "block. Note that blocks are processed in the following order: `tools`, "
                          "`system`, `messages`.")
    return ordered
