"""The last shaping every request gets before it is sent: the thinking fields the model takes,
the cache marks on or off, and reply blocks fit to go back (harness/calls/models.py decides).

    request = finished(request, thinking="off", marks=True)

Pure functions of their arguments; no SDK.
"""

from typing import Any, Dict, List, Optional

from harness.calls.models import THINKING_OFF, Thinking, capabilities

JSON = Dict[str, Any]


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
    """`request` with its thinking fields, and without its marks when `marks` is false."""
    request = dict(request)
    request.update(thinking_fields(request["model"], thinking))
    return request if marks else without_marks(request)


def sent_back(content: List[JSON]) -> List[JSON]:
    """A reply's blocks as they go back in the tool loop: thinking with its signature, tool calls,
    and text, but never a text block of whitespace alone, which the API refuses ("text content
    blocks must contain non-whitespace text") though a model may answer one before a tool call."""
    kept: List[JSON] = []
    for block in content:
        if block.get("type") == "text" and not str(block.get("text", "")).strip():
            continue
        kept.append({k: v for k, v in block.items() if k != "citations"})
    return kept


def stop_problem(stop_reason: Optional[str]) -> Optional[str]:
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
