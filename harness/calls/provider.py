"""The seam between Ever and a model's API [H14]: Ever says what to send in neutral values (a
`Call`), a provider puts it on the wire, streams the answer back and says why it stopped.

    provider = Anthropic(client)                 # harness/calls/anthropic.py: the one for now
    request = provider.request(call)            # the provider's own body; kept for status and tests
    reply = await provider.stream(request, on_event=show)   # a Reply, its `stop` a Stop
    tokens = await provider.count_tokens(request)            # None when it cannot say

A call's content is Ever's blocks, plain dicts: `text`, `image`, `thinking`, `tool_use` and
`tool_result` (harness/memory/images.py makes the results). Where a cached prefix ends is a
place in the call (`marks`), never a key inside a block: a provider with explicit marks puts them
there, one with automatic prefix caching or none ignores them. Errors come back as the outcomes of
harness/calls/outcomes.py (`Refused`, `Unusable`, `RetriesExhausted`), usage as `Usage`, and a
model's limits from the capability table (harness/calls/models.py) through `capabilities`.

The tool loop (harness/calls/loop.py), the compactor and the tools see only this module and
outcomes.py; another provider is one module beside anthropic.py. No SDK here.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, Union

from harness.calls.outcomes import Reply, Stop, Usage
from harness.calls.tool import Tool

JSON = dict[str, Any]
SYSTEM = -1  # a mark's message index for the system prompt's blocks


@dataclass(frozen=True)
class Streamed:
    """One piece of a reply as it streams, neutral: `text`, `thinking` or `tool_input` (a piece of
    a tool call's input), or `usage` (what the API says the call costs so far)."""

    kind: str
    text: str = ""
    usage: Usage | None = None


OnStreamed = Callable[[Streamed], None]


@dataclass(frozen=True)
class Call:
    """One request, as Ever means it [gist §3.3]: the tools and the system prompt (the prefix every
    call of a chat shares), then the conversation; `marks` are (message index, block index) where a
    cached prefix ends, the system's blocks at message index SYSTEM."""

    model: str
    max_tokens: int
    system: tuple[str, ...]
    tools: tuple[Tool, ...]
    messages: tuple[JSON, ...]  # {"role": "user" | "assistant", "content": [blocks]}
    marks: tuple[tuple[int, int], ...] = ()
    tools_off: bool = False  # [C3] sent for the shared prefix, never called
    thinking: Union[str, int] = "off"  # as harness/calls/models.py has it


class Provider(Protocol):
    """What Ever needs of a model's API."""

    def request(self, call: Call) -> Any:
        """The body to send: the call on the wire, marks placed, the model's settings applied."""
        ...

    async def stream(self, request: Any, on_event: OnStreamed | None = None) -> Reply:
        """Send `request`, retry what may pass, and give the whole answer; raise `Refused`,
        `Unusable` or `RetriesExhausted`."""
        ...

    async def count_tokens(self, request: Any) -> int | None:
        ...

    def capabilities(self, model: str) -> Any:
        """What `model` takes, a harness/calls/models.py `Model` (window, output cap, thinking
        types, efforts, image input, price or None, legacy, source "api" / "table" / "config" /
        "assumed"), or None when the provider knows nothing of it (then `models.lookup` assumes).
        A provider with its own model list gives its records to `models.use_listing`
        (harness/calls/capabilities.py)."""
        ...

    async def aclose(self) -> None:
        ...


__all__ = ["Call", "OnStreamed", "Provider", "Reply", "Stop", "Streamed", "SYSTEM"]
