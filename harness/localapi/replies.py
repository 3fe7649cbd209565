"""Scripted replies for the local Messages API: content blocks and `Reply`, queued with `LocalAPI.enqueue`."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

JSON = dict[str, Any]


def text(text: str) -> JSON:
    """A text content block."""
    return {"type": "text", "text": text}


def thinking(thinking: str, signature: str = "local-signature") -> JSON:
    """A thinking content block, streamed as thinking_delta events then one signature_delta."""
    return {"type": "thinking", "thinking": thinking, "signature": signature}


def tool_use(name: str, input: JSON, id: str | None = None) -> JSON:
    """A tool_use content block; without an id the server gives one (toolu_local_…)."""
    block: JSON = {"type": "tool_use", "name": name, "input": input}
    if id is not None:
        block["id"] = id
    return block


@dataclass(frozen=True)
class Reply:
    """A scripted reply: its content blocks (or one text), its stop reason (default "tool_use" when
    it uses a tool, else "end_turn"), and an optional gate: the response starts only once the gate
    is set, which is how a test holds a writer back while other requests arrive."""

    content: str | list[JSON]
    stop_reason: str | None = None
    gate: threading.Event | None = None

    def blocks(self) -> list[JSON]:
        if isinstance(self.content, str):
            return [text(self.content)]
        return [dict(block) for block in self.content]

    def final_stop_reason(self) -> str:
        if self.stop_reason is not None:
            return self.stop_reason
        uses_tool = any(block.get("type") == "tool_use" for block in self.blocks())
        return "tool_use" if uses_tool else "end_turn"
