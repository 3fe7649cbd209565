"""What the local Messages API accepts: a request's checks (400 `invalid_request_error`, 404
`not_found_error`, 413 `request_too_large`, as the real API), its prompt blocks in the cache's order,
their tokens (the token rule in harness/localapi/server.py), its cache marks.

The model facts (thinking, effort, output cap, sampling) come from the capability table,
harness/calls/models.py, which names the documentation each follows; the image limits from its
`IMAGES`. Each rule below quotes the sentence of Anthropic's documentation it follows, in
tests/localapi/test_localapi.py.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from harness.calls.models import IMAGES, RETIRED, THINKING_BUDGET_MIN, Model
from harness.localapi.catalogue import Catalogue
from harness.localapi.replies import text
from harness.memory.pixels import image_size

JSON = dict[str, Any]

cache_marks_max = 4
cache_ttl_seconds = {"5m": 300, "1h": 3600}
thinking_budget_tokens_min = THINKING_BUDGET_MIN
tool_name_pattern = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
images_max = 100  # vision: "up to 100 images per API request"
image_base64_bytes_max = 5 * 1024 * 1024  # an image's base64 data: "the Anthropic API's 5 MB per-image cap"
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
        if not block["text"].strip():
            raise invalid(f"{where}: text content blocks must contain non-whitespace text")
    if kind == "tool_use":
        for name in ("id", "name"):
            if not isinstance(block.get(name), str):
                raise invalid(f"{where}.{name}: Field required")
        if not is_json_object(block.get("input")):
            raise invalid(f"{where}.input: Input should be a valid dictionary")
    if kind == "tool_result":
        if not isinstance(block.get("tool_use_id"), str):
            raise invalid(f"{where}.tool_use_id: Field required")
        inner = block.get("content")
        if isinstance(inner, list):
            for index, part in enumerate(inner):
                if is_json_object(part) and isinstance(part.get("type"), str):
                    check_block(part, f"{where}.content.{index}")
    if kind == "image":
        check_image(block, where)
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
        doubled = sorted({tool_use_id for tool_use_id in results if results.count(tool_use_id) > 1})
        if doubled:
            raise invalid(f"messages.{index}.content: each `tool_use` block must have a single result. "
                          f"Found multiple `tool_result` blocks with id: {', '.join(doubled)}")
        if uses and message["role"] == "user":
            kinds = [block["type"] for block in blocks]
            first_other = next((k for k, kind in enumerate(kinds) if kind != "tool_result"), len(kinds))
            if "tool_result" in kinds[first_other:]:
                raise invalid(f"messages.{index}: `tool_use` ids were found without `tool_result` blocks "
                              "immediately after: tool_result blocks must come FIRST in the content "
                              "array, before any other content")
        if previous is not None and previous["role"] == "assistant" and message["role"] == "user":
            unanswered = [tool_use_id for tool_use_id in uses if tool_use_id not in results]
            if unanswered:
                raise invalid(
                    f"messages.{index - 1}: `tool_use` ids were found without `tool_result` blocks "
                    f"immediately after: {', '.join(unanswered)}. Each `tool_use` block must have a "
                    "corresponding `tool_result` block in the next message.")


def check_tool(tool: JSON, where: str) -> None:
    """A client tool: a name of letters, digits, `_` and `-` (1 to 128), and an `input_schema`
    that is a JSON Schema object of type "object". A server tool (it has its own `type`) is not
    checked here."""
    if "type" in tool and tool["type"] not in (None, "custom"):
        return
    if not tool_name_pattern.fullmatch(tool["name"]):
        raise invalid(f"{where}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'")
    schema = tool.get("input_schema")
    if not is_json_object(schema):
        raise invalid(f"{where}.custom.input_schema: Field required")
    if schema.get("type") != "object":
        raise invalid(f"{where}.custom.input_schema.type: Input should be 'object'")


def check_image(block: JSON, where: str) -> None:
    """A base64 image: a media type the API takes, data that decodes, a picture of that type."""
    source = block.get("source")
    if not is_json_object(source):
        raise invalid(f"{where}.source: Field required")
    if source.get("type") != "base64":
        return  # a URL or a file: nothing here to measure
    media_type = source.get("media_type")
    if media_type not in IMAGES.media_types:
        raise invalid(f"{where}.source.base64.media_type: Input should be "
                      + ", ".join(f"'{kind}'" for kind in IMAGES.media_types))
    data = source.get("data")
    if isinstance(data, str) and len(data) > image_base64_bytes_max:
        raise invalid(f"{where}.image.source.base64: image exceeds 5 MB maximum: {len(data)} bytes > "
                      f"{image_base64_bytes_max} bytes")
    size = image_size(data, media_type)
    if size is None:
        raise invalid(f"{where}.source.base64: The image was specified using the {media_type} media "
                      "type, but the image appears to be another type or is not a valid image")


def check_images(body: JSON) -> None:
    """vision: the per-image pixel cap (8000, or 2000 with more than 20 images) and the count."""
    found = []
    for index, message in enumerate(body["messages"]):
        for block_index, block in enumerate(content_blocks(message["content"], f"messages.{index}.content")):
            where = f"messages.{index}.content.{block_index}"
            inner = block.get("content") if block["type"] == "tool_result" else None
            parts = [(where, block)] + [(f"{where}.content.{k}", part) for k, part in
                                        enumerate(inner if isinstance(inner, list) else [])
                                        if is_json_object(part)]
            found += [(place, part) for place, part in parts if part.get("type") == "image"]
    if len(found) > images_max:
        raise invalid(f"messages: Too many images in the request: {len(found)}; the maximum is {images_max}")
    cap = IMAGES.side_px_max_many if len(found) > IMAGES.many_over else IMAGES.side_px_max
    for where, block in found:
        source = block["source"]
        if source.get("type") != "base64":
            continue
        width, height = image_size(source["data"], source["media_type"])
        if width > cap or height > cap:
            many = f" when there are more than {IMAGES.many_over} images" if cap == IMAGES.side_px_max_many else ""
            raise invalid(f"{where}.image.source.base64.data: At least one of the image dimensions exceed "
                          f"max allowed size{many}: {cap} pixels")


def check_model(body: JSON, model: Model) -> None:
    """What the model takes, as the capability table has it (harness/calls/models.py)."""
    thinking_setting = body.get("thinking") if is_json_object(body.get("thinking")) else {}
    kind = thinking_setting.get("type")
    max_tokens = body.get("max_tokens")
    if is_int(max_tokens) and max_tokens > model.output_cap:
        raise invalid(f"max_tokens: {max_tokens} > {model.output_cap}, which is the maximum allowed number "
                      f"of output tokens for {body['model']}")
    if kind == "adaptive" and not model.adaptive:
        raise invalid(f"thinking.type: adaptive thinking is not supported on this model ({body['model']}); "
                      "use thinking.type: \"enabled\" with budget_tokens")
    if kind == "enabled" and not model.budget:
        raise invalid(f"thinking.type.enabled is not supported for this model ({body['model']}). Use "
                      "thinking.type.adaptive and output_config.effort to control thinking behavior.")
    if kind == "disabled" and not model.can_disable:
        hint = " Use thinking.type.between_tools to turn off up-front thinking." if model.between_tools else ""
        raise invalid(f"thinking.type.disabled is not supported for this model ({body['model']}).{hint}")
    if kind == "between_tools" and not model.between_tools:
        raise invalid(f"thinking.type.between_tools is not supported for this model ({body['model']}).")
    output_config = body.get("output_config")
    effort_asked = output_config.get("effort") if is_json_object(output_config) else None
    if kind == "between_tools" and effort_asked in ("xhigh", "max"):
        # whats-new-sonnet-5-5: "At xhigh or max effort, requests with between_tools return a 400"
        raise invalid(f"thinking.type.between_tools is not supported with output_config.effort {effort_asked}; "
                      "use thinking.type.adaptive")
    choice = body.get("tool_choice")
    if not model.forced_tool_choice and is_json_object(choice) and choice.get("type") in ("any", "tool"):
        # whats-new-sonnet-5-5 / whats-new-opus-5-5: "Forced tool use returns an error"
        raise invalid(f"tool_choice.type: forced tool use ({choice.get('type')!r}) is not supported for this "
                      f"model ({body['model']}); use 'auto' or 'none'")
    messages = body.get("messages") if isinstance(body.get("messages"), list) else []
    if not model.forced_tool_choice and messages and is_json_object(messages[-1]) \
            and messages[-1].get("role") == "assistant":
        # sonnet-5-5/migration-guide: "assistant prefill" among the settings that return a 400
        raise invalid(f"messages: assistant message prefill is not supported for this model ({body['model']}); "
                      "the last message must be a user message")
    if not model.forced_tool_choice:
        check_thinking_bound(messages, body["model"])
    output_config = body.get("output_config")
    if is_json_object(output_config) and "effort" in output_config:
        effort = output_config["effort"]
        if not model.efforts:
            raise invalid(f"output_config.effort: This model does not support the effort parameter ({body['model']}).")
        if effort not in model.efforts:
            raise invalid("output_config.effort: Input should be "
                          + ", ".join(f"'{level}'" for level in model.efforts) + f" for {body['model']}")
    thinking_on = kind in ("enabled", "adaptive") or (kind is None and model.thinking_default_on)
    for name, default in (("temperature", 1), ("top_p", None), ("top_k", None)):
        if name not in body:
            continue
        if model.sampling_fixed and body[name] != default:
            raise invalid(f"{name}: setting {name} to a non-default value is not supported for this model "
                          f"({body['model']})")
        if name == "temperature" and thinking_on and body[name] != 1:
            raise invalid("`temperature` may only be set to 1 when thinking is enabled. Please consult our "
                          "documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking")
    tool_choice = body.get("tool_choice")
    if thinking_on and is_json_object(tool_choice) and tool_choice.get("type") in ("any", "tool"):
        raise invalid("Thinking may not be enabled when tool_choice forces tool use.")


def signed_by(model_id: str) -> str:
    """The signature this server gives a thinking block a model wrote: it names the model, so a
    block sent back to another one is seen (whats-new-sonnet-5-5: "Thinking blocks are tied to
    the model and the conversation")."""
    return f"local-signature:{model_id}"


def check_thinking_bound(messages: list, model_id: str) -> None:
    """On the models that tie thinking blocks to their model: a block this server signed for
    another model is a 400."""
    for index, message in enumerate(messages):
        if not is_json_object(message) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        for block_index, block in enumerate(content if isinstance(content, list) else []):
            signature = block.get("signature") if is_json_object(block) and block.get("type") == "thinking" else None
            if isinstance(signature, str) and signature.startswith("local-signature:") \
                    and signature != signed_by(model_id):
                raise invalid(f"messages.{index}.content.{block_index}: thinking blocks from another model "
                              f"({signature.split(':', 1)[1]}) cannot be sent to {model_id}")


def known_model(body: JSON, unknown_models: bool, catalogue: Catalogue | None = None) -> Model | None:
    """The model's row in the server's catalogue (by default the capability table's); a 404 for
    an id it does not know (or one retired), unless the server accepts unknown models
    (`LocalAPI(unknown_models=True)`, for tests of other servers)."""
    catalogue = catalogue if catalogue is not None else Catalogue()
    model = catalogue.find(body["model"]) if isinstance(body.get("model"), str) else None
    if model is not None and model.status == RETIRED:
        raise ApiError(404, "not_found_error", f"model: {body['model']}")
    if model is None and not unknown_models:
        raise ApiError(404, "not_found_error", f"model: {body['model']}")
    return model


def check_request(body: Any, counting: bool, unknown_models: bool = True,
                  catalogue: Catalogue | None = None) -> None:
    """Raise the API's error for a request it would refuse (the checks a client most often trips)."""
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
        check_tool(tool, f"tools.{index}")
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
    check_images(body)
    model = known_model(body, unknown_models, catalogue)
    if model is not None:
        check_model(body, model)


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
    # The API drops the message part of the cache when these settings change, and when an image
    # is added or removed anywhere in the prompt (prompt-caching: "Adding or removing images
    # anywhere in the prompt" invalidates the messages' cache).
    images = sum(1 for message in body["messages"]
                 for block in content_blocks(message["content"], "messages")
                 for part in [block] + (block.get("content") if block["type"] == "tool_result"
                                        and isinstance(block.get("content"), list) else [])
                 if is_json_object(part) and part.get("type") == "image")
    settings = canonical_json({"thinking": body.get("thinking"), "tool_choice": body.get("tool_choice"),
                               "output_config": body.get("output_config"), "images": images})
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
