"""The shaping every request gets before it is sent, whatever its provider: the thinking fields
the model takes (harness/calls/models.py decides) [H9], images within the API's limits, and reply
blocks fit to go back. harness/calls/anthropic.py's `finished` applies them.

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
