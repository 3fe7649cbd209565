"""What a call gives back and how it fails, apart from the SDK (harness/calls/client.py raises
and returns these), so the request builders and the commands that need no model import no SDK."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

JSON = dict[str, Any]


class SettingsError(Exception):
    """The client's settings are missing or wrong (one sentence, never the key itself)."""


@dataclass(frozen=True)
class Usage:
    """Tokens as the API reports them: the prompt is input + written + read."""

    input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input_tokens + other.input_tokens,
                     self.cache_creation_input_tokens + other.cache_creation_input_tokens,
                     self.cache_read_input_tokens + other.cache_read_input_tokens,
                     self.output_tokens + other.output_tokens)

    @property
    def prompt_tokens(self) -> int:
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    @classmethod
    def of(cls, usage: Any) -> Usage:
        if usage is None:
            return cls()
        return cls(usage.input_tokens or 0, usage.cache_creation_input_tokens or 0,
                   usage.cache_read_input_tokens or 0, usage.output_tokens or 0)


class Stop(enum.Enum):
    """Why a reply ended, in Ever's words; each provider maps its own reasons onto these, and the
    tool loop decides what each means, once (harness/calls/loop.py) [A7]."""

    WHOLE = "whole"  # the reply is done (or stopped at a stop sequence)
    TOOLS = "tools"  # it asks for its tool calls to be run
    PAUSED = "paused"  # the API paused a long turn: sent back as it is, the call goes on
    LENGTH = "length"  # cut at the reply's cap of output tokens
    REFUSED = "refused"  # the model declined
    WINDOW = "window"  # the context window filled
    UNKNOWN = "unknown"  # a reason this Ever does not know


@dataclass(frozen=True)
class Reply:
    """One answer: its content blocks (text, thinking, tool_use, as dicts), its stop reason, the
    usage of the attempt that answered, the usage of every attempt (`spent`: an attempt cut after
    its response started was billed for its prompt too) and how many attempts it took. `stop` is
    the stop reason in Ever's words, which the provider sets."""

    content: tuple[JSON, ...]
    stop_reason: str | None  # as the API named it: for the words that name it
    usage: Usage
    spent: Usage
    attempts: int
    stop: Stop | None = None

    @property
    def text(self) -> str:
        return "".join(block["text"] for block in self.content if block["type"] == "text")


class Refused(Exception):
    """The API refused this request; sending it again gives the same answer [C5]. Its
    text is the sentence for the user (what failed, the URL, what to do); `description` the API's
    own words."""

    def __init__(self, description: str, spent: Usage, attempts: int, sentence: str = "") -> None:
        super().__init__(sentence or description)
        self.description = description
        self.spent = spent
        self.attempts = attempts


class Unusable(Exception):
    """No request of this client can succeed until its settings change [C5]; its text is
    the sentence for the user."""


class RetriesExhausted(Exception):
    """Transient trouble outlasted `attempts_max` attempts."""

    def __init__(self, description: str, spent: Usage, attempts: int) -> None:
        super().__init__(description)
        self.spent = spent
        self.attempts = attempts
