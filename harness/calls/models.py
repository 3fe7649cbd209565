"""What each model takes: one capability table, per model id, that every request builder asks.

The table is dated (`TABLE_DATE`) and names the documentation each column follows (`SOURCES`).
A column whose value no page stated is said so in the row's `notes`, never guessed silently.

    model = capabilities("claude-haiku-4-5")        # a Model, or None for an id not in the table
    model.thinking_fields("off")                    # the request fields for a thinking setting
    problem = setting_problem("claude-haiku-4-5", "xhigh", 16_000)   # one sentence, or None

The thinking setting (`memory.thinking`, the turns' `thinking`) is one of:
- "off": no thinking. Sent as `thinking: {type: disabled}` where thinking is on by default
  (Claude 5: "On Claude Sonnet 5, the same requests run with adaptive thinking. To turn thinking
  off, pass thinking: {type: "disabled"}" — whats-new-sonnet-5), and as no field elsewhere.
- an effort (low, medium, high, xhigh, max): adaptive thinking with `output_config.effort`, for a
  model that has both ("Use thinking.type: "adaptive" with the effort parameter" — adaptive-thinking).
- a whole number of tokens: extended thinking with that budget, for a model that takes one
  ("Older models (Claude Sonnet 4.5, Claude Opus 4.5, etc.) do not support adaptive thinking and
  require thinking.type: "enabled" with budget_tokens" — adaptive-thinking); at least 1,024 and
  below max_tokens (extended-thinking: "budget_tokens … must be set to a value less than
  max_tokens"; "The minimum budget is 1,024 tokens").

A setting the model lacks is refused before any call, in one sentence that lists what it takes.
This module imports only the standard library and harness/memory/pixels.py, so anything may ask
it without paying for the SDK (harness/localapi reads its model facts here too).
"""

import json
from dataclasses import dataclass
from typing import Any, Union

from harness.memory.pixels import MANY_IMAGES_OVER, SIDE_PX_MAX, SIDE_PX_MAX_MANY

TABLE_DATE = "2026-12-01"
DOCS = "https://platform.claude.com/docs/en"
SOURCES = {
    "ids, output caps, status": f"{DOCS}/about-claude/models/overview, "
                                f"{DOCS}/about-claude/model-deprecations, "
                                f"{DOCS}/about-claude/models/whats-new-sonnet-5; the pinned SDK's "
                                "anthropic/_data/deprecated_models.py (2.14) for end-of-life dates",
    "adaptive and budget thinking": f"{DOCS}/build-with-claude/adaptive-thinking, "
                                    f"{DOCS}/build-with-claude/extended-thinking",
    "effort levels": f"{DOCS}/build-with-claude/effort",
    "minimum cacheable prompt": f"{DOCS}/build-with-claude/prompt-caching",
    "image limits": f"{DOCS}/build-with-claude/vision",
    "prices": f"{DOCS}/about-claude/pricing",
    "errors": f"{DOCS}/api/errors",
    "context windows": f"{DOCS}/about-claude/models/overview and each model's page (models/<model>/"
                       "overview: \"Context window: 1M tokens\"); the 1M beta header of Sonnet 4 and "
                       "4.5 is not sent, so theirs is 200K",
}

EFFORTS = ("low", "medium", "high", "xhigh", "max")
THINKING_OFF = "off"
THINKING_BUDGET_MIN = 1024  # extended-thinking: "The minimum budget is 1,024 tokens"
ACTIVE, DEPRECATED, RETIRED = "active", "deprecated", "retired"

Thinking = Union[str, int]


@dataclass(frozen=True)
class Price:
    """US cents per million tokens: every list price is a whole number of them."""

    input: int
    cache_write_5m: int  # 1.25 × input
    cache_write_1h: int  # 2 × input
    cache_read: int  # 0.1 × input
    output: int


@dataclass(frozen=True)
class Images:
    """vision: "The per-image dimension cap is 8000x8000 pixels, except when the request contains
    more than 20 images, in which case it drops to 2000x2000. The total request payload limit is
    32 MB"; the media types are the four the page lists."""

    side_px_max: int = SIDE_PX_MAX
    side_px_max_many: int = SIDE_PX_MAX_MANY
    many_over: int = MANY_IMAGES_OVER  # more than this many images in one request: the smaller cap
    request_bytes_max: int = 32 * 1024 * 1024
    media_types: tuple[str, ...] = ("image/jpeg", "image/png", "image/gif", "image/webp")


IMAGES = Images()


@dataclass(frozen=True)
class Model:
    id: str
    adaptive: bool  # thinking: {type: adaptive}
    budget: bool  # thinking: {type: enabled, budget_tokens: N}
    efforts: tuple[str, ...]  # output_config.effort values; () when the model takes no effort
    thinking_default_on: bool  # thinking runs when the request has no `thinking` field
    can_disable: bool  # thinking: {type: disabled} accepted
    sampling_fixed: bool  # temperature/top_p/top_k other than the default refused
    cache_min_tokens: int  # a shorter prefix is not cached at all
    output_cap: int  # max_tokens above this is refused
    price: Price | None
    status: str = ACTIVE
    retired_on: str = ""  # retired: the day it was; deprecated: the day it will be
    notes: str = ""
    images: Images = IMAGES
    context_window: int = 0  # tokens: the prompt and max_tokens together (set from WINDOWS)

    def thinking_options(self) -> str:
        """The model's thinking settings, in words, for a refusal."""
        options = [THINKING_OFF] if (self.can_disable or not self.thinking_default_on) else []
        if self.adaptive and self.efforts:
            options.append("an effort (" + ", ".join(self.efforts) + ")")
        if self.budget:
            options.append(f"a thinking budget in tokens (at least {THINKING_BUDGET_MIN:,}, below max_tokens)")
        return ", ".join(options[:-1]) + (" or " if len(options) > 1 else "") + options[-1]

    def thinking_problem(self, thinking: Thinking, max_tokens: int) -> str | None:
        """Why the model cannot take `thinking` with `max_tokens`, in words; None if it can."""
        if max_tokens > self.output_cap:
            return f"max_tokens {max_tokens:,} is above its output cap of {self.output_cap:,}"
        if thinking == THINKING_OFF:
            return None if (self.can_disable or not self.thinking_default_on) else "it cannot turn thinking off"
        if isinstance(thinking, bool):
            return f"{thinking!r} is no thinking setting"
        if isinstance(thinking, int):
            if not self.budget:
                return "it takes no thinking budget"
            if not THINKING_BUDGET_MIN <= thinking < max_tokens:
                return (f"a thinking budget must be at least {THINKING_BUDGET_MIN:,} and below "
                        f"max_tokens ({max_tokens:,}), not {thinking:,}")
            return None
        if thinking in EFFORTS:
            if not self.adaptive or thinking not in self.efforts:
                return f"it has no effort {thinking}" if self.efforts else "it takes no effort"
            return None
        return f"{thinking!r} is no thinking setting"

    def thinking_fields(self, thinking: Thinking) -> dict[str, Any]:
        """The request fields for a setting this model takes (`thinking_problem` is None)."""
        if thinking == THINKING_OFF:
            return {"thinking": {"type": "disabled"}} if self.thinking_default_on else {}
        if isinstance(thinking, int):
            return {"thinking": {"type": "enabled", "budget_tokens": thinking}}
        return {"thinking": {"type": "adaptive"}, "output_config": {"effort": thinking}}


def _price(input_cents: int, output_cents: int, cache_write_1h: int | None = None) -> Price:
    # pricing: "5-minute cache writes: 1.25x", "1-hour cache writes: 2x", "Cache reads: 0.1x"
    return Price(input_cents, input_cents * 5 // 4, cache_write_1h or input_cents * 2,
                 input_cents // 10, output_cents)


OPUS_4_5_PRICE = _price(500, 2500)
OPUS_4_PRICE = _price(1500, 7500)
SONNET_PRICE = _price(300, 1500)
HAIKU_4_5_PRICE = _price(100, 500)
HAIKU_3_5_PRICE = Price(80, 100, 160, 8, 400)
HAIKU_3_PRICE = Price(25, 30, 50, 3, 125)

ALL_EFFORTS = EFFORTS
NO_XHIGH = ("low", "medium", "high", "max")

# Each row: (id, adaptive, budget, efforts, default on, can disable, sampling fixed,
# minimum cacheable tokens, output cap, price, status, retired on, notes).
_ROWS = (
    ("claude-opus-4-8", True, False, ALL_EFFORTS, False, True, True, 1024, 128_000, OPUS_4_5_PRICE,
     ACTIVE, "", "adaptive thinking only: budget_tokens is a 400 (whats-new-opus-4-8)"),
    ("claude-opus-4-7", True, False, ALL_EFFORTS, False, True, True, 4096, 128_000, OPUS_4_5_PRICE,
     ACTIVE, "", "adaptive thinking only (adaptive-thinking); xhigh first offered here (effort)"),
    ("claude-opus-4-6", True, True, NO_XHIGH, False, True, False, 4096, 128_000, OPUS_4_5_PRICE,
     ACTIVE, "", "budget_tokens deprecated here (adaptive-thinking)"),
    ("claude-sonnet-5", True, False, ALL_EFFORTS, True, True, True, 2048, 128_000, SONNET_PRICE,
     ACTIVE, "", "thinking on by default; the introductory $2/$10 ended 2026-08-31; the minimum "
     "cacheable prompt was not on the pages read: Sonnet 4.6's is assumed"),
    ("claude-sonnet-4-6", True, True, NO_XHIGH, False, True, False, 2048, 64_000, SONNET_PRICE,
     ACTIVE, "", "budget_tokens deprecated here (adaptive-thinking)"),
    ("claude-opus-4-5", False, True, ("low", "medium", "high"), False, True, False, 4096, 64_000,
     OPUS_4_5_PRICE, DEPRECATED, "2027-01-22", "effort without adaptive thinking; end of life "
     "January 22nd, 2027 (SDK 2.14, anthropic/_data/deprecated_models.py)"),
    ("claude-sonnet-4-5", False, True, (), False, True, False, 1024, 64_000, SONNET_PRICE,
     RETIRED, "2026-11-30", "end of life November 30th, 2026 (SDK 2.14, anthropic/_data/deprecated_models.py)"),
    ("claude-haiku-4-5", False, True, (), False, True, False, 4096, 64_000, HAIKU_4_5_PRICE,
     ACTIVE, "", "no effort: the effort page's model list has no Haiku 4.5"),
    ("claude-opus-4-1", False, True, (), False, True, False, 1024, 32_000, OPUS_4_PRICE,
     ACTIVE, "", ""),
    ("claude-opus-4-0", False, True, (), False, True, False, 1024, 32_000, OPUS_4_PRICE,
     ACTIVE, "", ""),
    ("claude-sonnet-4-0", False, True, (), False, True, False, 1024, 64_000, SONNET_PRICE,
     ACTIVE, "", ""),
    ("claude-3-7-sonnet", False, True, (), False, True, False, 1024, 64_000, SONNET_PRICE,
     RETIRED, "2026-02-19", ""),
    ("claude-3-5-haiku", False, False, (), False, True, False, 2048, 8_192, HAIKU_3_5_PRICE,
     RETIRED, "2026-02-19", ""),
    ("claude-3-haiku", False, False, (), False, True, False, 2048, 4_096, HAIKU_3_PRICE,
     RETIRED, "2026-04-20", "model-deprecations: requests to retired models fail"),
)

# Each model's context window, in tokens, as its page states it: the prompt and max_tokens together
# may not pass it (extended-thinking: "a validation error if prompt tokens + max_tokens exceeds the
# context window").
WINDOWS = {
    "claude-opus-4-8": 1_000_000, "claude-opus-4-7": 1_000_000, "claude-opus-4-6": 1_000_000,
    "claude-sonnet-5": 1_000_000, "claude-sonnet-4-6": 1_000_000,
    "claude-opus-4-5": 200_000, "claude-sonnet-4-5": 200_000, "claude-haiku-4-5": 200_000,
    "claude-opus-4-1": 200_000, "claude-opus-4-0": 200_000, "claude-sonnet-4-0": 200_000,
    "claude-3-7-sonnet": 200_000, "claude-3-5-haiku": 200_000, "claude-3-haiku": 200_000,
}
# A model the table does not know, with no window in the config: the smallest window of any model
# above, so a request that fits it fits every one of them.
CONTEXT_WINDOW_DEFAULT = 200_000

MODELS: dict[str, Model] = {row[0]: Model(*row, context_window=WINDOWS[row[0]]) for row in _ROWS}
# ids the overview lists beside the aliases above: dated snapshots and the short forms
ALIASES = {
    "claude-haiku-4-5-20251001": "claude-haiku-4-5",
    "claude-sonnet-4-5-20250929": "claude-sonnet-4-5",
    "claude-opus-4-5-20251101": "claude-opus-4-5",
    "claude-opus-4-1-20250805": "claude-opus-4-1",
    "claude-opus-4-20250514": "claude-opus-4-0",
    "claude-opus-4": "claude-opus-4-0",
    "claude-sonnet-4-20250514": "claude-sonnet-4-0",
    "claude-sonnet-4": "claude-sonnet-4-0",
    "claude-3-7-sonnet-20250219": "claude-3-7-sonnet",
    "claude-3-7-sonnet-latest": "claude-3-7-sonnet",
    "claude-3-5-haiku-20241022": "claude-3-5-haiku",
    "claude-3-5-haiku-latest": "claude-3-5-haiku",
    "claude-3-haiku-20240307": "claude-3-haiku",
}


def capabilities(model_id: str) -> Model | None:
    """The model's row, by its id or a listed alias; None for a model not in the table (a
    compatible server's own, or one newer than the table)."""
    row = MODELS.get(ALIASES.get(model_id, model_id))
    return row


def setting_problem(model_id: str, thinking: Thinking, max_tokens: int, what: str = "memory.thinking") -> str | None:
    """One sentence saying why `model_id` cannot take this setting, naming what it takes; None
    when it can, or when the table does not know the model (a compatible server may)."""
    model = capabilities(model_id)
    if model is None:
        return None
    if model.status == RETIRED:
        return (f"{model_id} was retired on {model.retired_on} and answers no request; choose "
                f"another model (see harness/calls/models.py, {TABLE_DATE}).")
    problem = model.thinking_problem(thinking, max_tokens)
    if problem is None:
        return None
    shown = thinking if isinstance(thinking, int) else repr(thinking)
    return (f"{what} {shown} does not suit {model_id}: {problem}; it takes "
            f"{model.thinking_options()} (harness/calls/models.py, {TABLE_DATE}).")


def default_thinking(model_id: str) -> Thinking:
    """The compactor's default thinking for a model [C9]: "off" on every model. A
    one-line summary needs no deliberation, and thinking tokens cost output prices; the gist's
    "Haiku at xhigh effort" names a Haiku that had an effort, which Haiku 4.5 does not."""
    return THINKING_OFF


# What one image can cost, at most, in tokens: vision's "tokens = (width px * height px)/750" at the
# largest image a request takes whole (8,000 × 8,000 is resized to fit the model's own limit first,
# which no model lists above 2,576 px on its long edge: 2,576² / 750 = 8,848). Counted high.
IMAGE_TOKENS_MAX = 10_000


def input_tokens_max(request: dict[str, Any]) -> int:
    """An upper bound of the request's input tokens, counted without a call: every token of a
    byte-level tokenizer stands for at least one byte of text, so the UTF-8 bytes of the request
    as JSON, whose field names and quotes outweigh the few tokens each block adds, are at least
    its tokens; each image counts IMAGE_TOKENS_MAX, never its encoded bytes."""
    images = 0

    def without_images(value: Any) -> Any:
        nonlocal images
        if isinstance(value, dict):
            if value.get("type") == "image":
                images += 1
                return None
            return {key: without_images(item) for key, item in value.items() if key != "max_tokens"}
        if isinstance(value, list):
            return [without_images(item) for item in value]
        return value

    text = json.dumps(without_images(request), ensure_ascii=False)
    return len(text.encode("utf-8", "surrogatepass")) + images * IMAGE_TOKENS_MAX


def window_tokens(request: dict[str, Any], window: int | None = None) -> int:
    """The model's context window in tokens: the table's, else the config's, else the default."""
    model = capabilities(str(request.get("model", "")))
    return model.context_window if model is not None else (window or CONTEXT_WINDOW_DEFAULT)


def window_problem(request: dict[str, Any], window: int | None = None, what: str = "this request",
                   counted: int | None = None) -> str | None:
    """One sentence (no final period, as every problem here) when the request, its input counted high (`input_tokens_max`) and its
    max_tokens, could pass its model's context window, so it is never sent; None when it fits.
    `window` is the config's, for a model the table does not know; else CONTEXT_WINDOW_DEFAULT."""
    model_id = str(request.get("model", ""))
    model = capabilities(model_id)
    tokens = window_tokens(request, window)
    max_tokens = request.get("max_tokens") if isinstance(request.get("max_tokens"), int) else 0
    needed = (input_tokens_max(request) if counted is None else counted) + max_tokens
    if needed <= tokens:
        return None
    where = ("the table in harness/calls/models.py" if model is not None
             else "a context_window setting in config.toml, or the default of the smallest known window")
    how = "its bytes" if counted is None else "as the API counts them"
    return (f"{what} was not sent: its input, {'up to ' if counted is None else ''}{needed - max_tokens:,} tokens ({how}), and "
            f"max_tokens {max_tokens:,} could pass {model_id}'s context window of {tokens:,} tokens "
            f"({where}); choose a model with a larger window, or set its window in config.toml if it "
            f"has one")


def request_problem(request: dict[str, Any], window: int | None = None, check_window: bool = True) -> str | None:
    """Why the real API would refuse this request for its model, as the table knows the model, or
    because it could pass the model's context window (`window_problem`); None when it would
    not. The client asks before it sends, so a request the model cannot take costs no call."""
    model = capabilities(str(request.get("model", "")))
    if model is None:
        return window_problem(request, window) if check_window else None
    if model.status == RETIRED:
        return f"{model.id} was retired on {model.retired_on}"
    max_tokens = request.get("max_tokens")
    if isinstance(max_tokens, int) and max_tokens > model.output_cap:
        return f"max_tokens {max_tokens:,} is above {model.id}'s output cap of {model.output_cap:,}"
    thinking = request.get("thinking") or {}
    kind = thinking.get("type") if isinstance(thinking, dict) else None
    effort = (request.get("output_config") or {}).get("effort")
    if kind == "adaptive" and not model.adaptive:
        return f"{model.id} has no adaptive thinking; it takes {model.thinking_options()}"
    if kind == "enabled" and not model.budget:
        return f"{model.id} takes no thinking budget; it takes {model.thinking_options()}"
    if kind == "disabled" and not model.can_disable:
        return f"{model.id} cannot turn thinking off"
    if effort is not None and effort not in model.efforts:
        return f"{model.id} has no effort {effort}; it takes {model.thinking_options()}"
    return window_problem(request, window) if check_window else None
