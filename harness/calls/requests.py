"""The last shaping every request gets before it is sent: the thinking fields the model takes,
the cache marks on or off, and reply blocks fit to go back (harness/calls/models.py decides) [H9].

    request = finished(request, thinking="off", marks=True)

Pure functions of their arguments; no SDK.
"""

import base64
import binascii
import json
from typing import Any

from harness.calls.models import IMAGES, THINKING_OFF, Thinking, capabilities
from harness.memory.pixels import too_big

JSON = dict[str, Any]


def thinking_fields(model_id: str, thinking: Thinking) -> JSON:
    """The request fields for `thinking` on `model_id`, as the capability table has them. A model
    the table does not know gets what the setting names: no field for off, a budget as
    `enabled`, an effort as adaptive thinking with `output_config.effort`."""
    model = capabilities(model_id)
    if model is not None:
        return model.thinking_fields(thinking)
    if thinking == THINKING_OFF:
        return {}
    if isinstance(thinking, int) and not isinstance(thinking, bool):
        return {"thinking": {"type": "enabled", "budget_tokens": thinking}}
    return {"thinking": {"type": "adaptive"}, "output_config": {"effort": thinking}}


def without_marks(request: JSON) -> JSON:
    """The request with no `cache_control` anywhere (`cache.marks = false`: a server that
    refuses them)."""

    def bare(block: Any) -> Any:
        if isinstance(block, dict):
            return {k: v for k, v in block.items() if k != "cache_control"}
        return block

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
    images the API would refuse it for replaced by a note (`within_image_limits`)."""
    request = dict(request)
    request.update(thinking_fields(request["model"], thinking))
    return within_image_limits(request if marks else without_marks(request))


def _image_places(request: JSON) -> list[tuple]:
    """(message index, block index, inner index or None) of every image, oldest first."""
    places = []
    for m, message in enumerate(request["messages"]):
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for b, block in enumerate(content):
            if block.get("type") == "image":
                places.append((m, b, None))
            elif block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                places += [(m, b, k) for k, part in enumerate(block["content"]) if part.get("type") == "image"]
    return places


def _image_problem(block: JSON, side_px_max: int) -> str:
    source = block.get("source") or {}
    if source.get("type") != "base64":
        return ""
    try:
        data = base64.b64decode(source.get("data", ""), validate=True)
    except (binascii.Error, ValueError):
        return ""
    return too_big(data, source.get("media_type", ""), side_px_max)


def within_image_limits(request: JSON) -> JSON:
    """The request with each image the API would refuse it for replaced by a text note, so one
    image never fails a whole turn (vision: "The per-image dimension cap is 8000x8000 pixels,
    except when the request contains more than 20 images, in which case it drops to 2000x2000.
    The total request payload limit is 32 MB"): an image over the cap that applies, then the
    oldest images while the request is over 32 MB."""
    places = _image_places(request)
    if not places:
        return request
    request = json.loads(json.dumps(request))  # a copy: the conversation keeps its images

    def replace(place: tuple, why: str) -> None:
        m, b, k = place
        note = {"type": "text", "text": f"[an image was left out of this request: {why}]"}
        if k is None:
            request["messages"][m]["content"][b] = note
        else:
            request["messages"][m]["content"][b]["content"][k] = note

    cap = IMAGES.side_px_max_many if len(places) > IMAGES.many_over else IMAGES.side_px_max
    kept = []
    for place in places:
        m, b, k = place
        block = request["messages"][m]["content"][b]
        block = block if k is None else block["content"][k]
        problem = _image_problem(block, cap)
        if problem:
            replace(place, problem)
        else:
            kept.append(place)
    while kept and len(json.dumps(request).encode("utf-8")) > IMAGES.request_bytes_max:
        replace(kept.pop(0), "the request would pass the API's 32 MB")
    return request


def sent_back(content: list[JSON]) -> list[JSON]:
    """A reply's blocks as they go back in the tool loop: thinking with its signature, tool calls,
    and text, but never a text block of whitespace alone, which the API refuses ("text content
    blocks must contain non-whitespace text") though a model may answer one before a tool call."""
    kept: list[JSON] = []
    for block in content:
        if block.get("type") == "text" and not str(block.get("text", "")).strip():
            continue
        kept.append({k: v for k, v in block.items() if k != "citations"})
    return kept


def stop_problem(stop_reason: str | None) -> str | None:
    """What a reply's stop reason means for a turn, in one sentence; None when the reply is whole
    (end_turn, tool_use, stop_sequence) or to be continued (pause_turn)."""
    if stop_reason == "max_tokens":
        return ("The reply was cut at max_tokens before it ended; its tool calls were not run "
                "(they may be incomplete).")
    if stop_reason == "refusal":
        return "The model declined to answer this (stop reason: refusal)."
    if stop_reason == "model_context_window_exceeded":
        return "The request filled the model's context window; the reply was cut."
    return None
