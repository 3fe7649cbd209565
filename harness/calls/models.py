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
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
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
Cents = Union[int, Fraction]

# Where a capability record's facts came from: the provider's own model list (Anthropic's
# `GET /v1/models`), the hand table below, the config (a `[providers.NAME]` window or price), or
# nothing at all (a model nobody listed: the smallest known window, no price).
API, TABLE, CONFIG, ASSUMED = "api", "table", "config", "assumed"
SOURCE_NAMES = (API, TABLE, CONFIG, ASSUMED)


@dataclass(frozen=True)
class Price:
    """US cents per million tokens, exact: a whole number, or a Fraction where a list price is
    not (Haiku 5.5's $0.10 input makes a 5-minute write of 12.5 cents)."""

    input: Cents
    cache_write_5m: Cents  # 1.25 × input
    cache_write_1h: Cents  # 2 × input
    cache_read: Cents  # 0.1 × input on the pages read, except where a row says otherwise
    output: Cents


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
    between_tools: bool = False  # thinking: {type: between_tools}: "off" where disabled is refused
    forced_tool_choice: bool = True  # tool_choice {type: any | tool} accepted (a 400 where not)
    display_omitted: bool = False  # thinking text (and the text between tool calls) comes back
    # empty unless `thinking.display` asks for it
    image_input: bool = True
    legacy: bool = False  # still answers, but the overview names a newer model to move to
    source: str = TABLE  # API, TABLE, CONFIG or ASSUMED
    # [H36] where a local server said its window, in a few words ("llama.cpp's /props n_ctx"); "":
    # as `source` says
    window_from: str = ""
    display_name: str = ""
    page: str = ""  # the page the row's figures were read on

    @property
    def window(self) -> int:
        """The context window in tokens (the name other providers' code reads)."""
        return self.context_window

    @property
    def thinking_types(self) -> tuple[str, ...]:
        """The `thinking.type` values the model accepts, as the Models API names them."""
        kinds = (("adaptive", self.adaptive), ("enabled", self.budget),
                 ("disabled", self.can_disable), ("between_tools", self.between_tools))
        return tuple(kind for kind, accepted in kinds if accepted)

    def can_turn_off(self) -> bool:
        return self.can_disable or self.between_tools or not self.thinking_default_on

    def thinking_options(self) -> str:
        """The model's thinking settings, in words, for a refusal."""
        options = [THINKING_OFF] if self.can_turn_off() else []
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
            return None if self.can_turn_off() else "it cannot turn thinking off"
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
        if thinking == THINKING_OFF:  # [H21]
            if not self.thinking_default_on:
                return {}
            if self.can_disable:
                return {"thinking": {"type": "disabled"}}
            if self.between_tools:
                # whats-new-sonnet-5-5: "send thinking: {"type": "between_tools"}, instead of
                # "disabled""; the progress notes between tool calls still come back as thinking
                return {"thinking": {"type": "between_tools"}}
            # a model whose thinking is always on (Opus 5.5, Fable): a turn's "off" runs its
            # default, adaptive; the compactor's "off" is refused before (`setting_problem`)
            return {"thinking": self._displayed({"type": "adaptive"})}
        if isinstance(thinking, int):
            return {"thinking": {"type": "enabled", "budget_tokens": thinking}}
        return {"thinking": self._displayed({"type": "adaptive"}), "output_config": {"effort": thinking}}

    def _displayed(self, thinking: dict[str, Any]) -> dict[str, Any]:
        # whats-new-opus-5-5: "text between tool calls comes back in thinking blocks whose text
        # is empty at the default display setting"; Ever shows that text as the model writes it,
        # so it asks for it (extended-thinking: display "summarized" or "omitted")
        return {**thinking, "display": "summarized"} if self.display_omitted else thinking


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
# The Claude 5 lineup's prices, each from its model page (the row's `page`); the cache columns
# follow the pricing page's multipliers unless the row's notes name another figure.
FABLE_5_2_PRICE = _price(800, 4000)
FABLE_5_PRICE = _price(1000, 5000)
OPUS_5_5_PRICE = Price(400, 500, 800, 20, 2000)  # cache read $0.20 (opus-5-5 migration notes)
OPUS_5_PRICE = _price(500, 2500)
# sonnet-5-5/overview's pricing block: 5m write $2.50, 1h write $4; cache read $0.10 as the
# English migration guide gives it ("half the Claude Sonnet 5 rate"), its overview's older $0.20
SONNET_5_5_PRICE = Price(200, 250, 400, 10, 1000)
# Fable 5.1: $10 / $50 (the lineup tables), cache read $0.25 as a price tracker read the pricing
# page on 2026-09-01 (kurofune/claudit v1.8.1), not on a page read here
FABLE_5_1_PRICE = Price(1000, 1250, 2000, 25, 5000)
SONNET_5_PRICE = _price(200, 1000)
HAIKU_5_5_PRICE = Price(10, Fraction(25, 2), 20, 1, 50)

ALL_EFFORTS = EFFORTS
NO_XHIGH = ("low", "medium", "high", "max")

MODELS_PAGE = f"{DOCS}/models"
# Each row: (id, adaptive, budget, efforts, default on, can disable, sampling fixed,
# minimum cacheable tokens, output cap, price, status, retired on, notes).
_ROWS = (
    ("claude-fable-5-2", True, False, ALL_EFFORTS, True, False, True, 512, 128_000, FABLE_5_2_PRICE,
     ACTIVE, "", "adaptive thinking always on; $8/$40 as the lineup table of models/sonnet-5/overview "
     "(id) prints it, while older copies of that table list Fable 5.1 at $10/$50; its own overview "
     "page was not found; efforts and the 512-token cache minimum are those of the Claude 5.5 "
     "family (openrouter's claude-5-5 migration notes), not read on an Anthropic page"),
    ("claude-fable-5-1", True, False, ALL_EFFORTS, True, False, True, 512, 128_000, FABLE_5_1_PRICE,
     ACTIVE, "", "adaptive thinking always on (whats-new-opus-5-5: the same breaking changes \"also "
     "apply on Claude Fable 5.1\"); fable-5-2/migration-guide names it as a model to move from"),
    ("claude-opus-5-5", True, False, ALL_EFFORTS, True, False, True, 512, 128_000, OPUS_5_5_PRICE,
     ACTIVE, "", "thinking can't be disabled, forced tool use returns an error, default effort "
     "medium (whats-new-opus-5-5); cache read $0.20 is openrouter's figure, not Anthropic's page"),
    ("claude-sonnet-5-5", True, False, ALL_EFFORTS, True, False, True, 512, 128_000, SONNET_5_5_PRICE,
     ACTIVE, "", "thinking off is between_tools (disabled is a 400), forced tool choice, budgets, "
     "sampling and prefill are 400s (sonnet-5-5/migration-guide); cache read $0.10 (the English "
     "migration guide), $0.20 on an older copy of its overview"),
    ("claude-haiku-5-5", True, False, ("low", "medium", "high"), True, True, True, 512, 128_000,
     HAIKU_5_5_PRICE, ACTIVE, "", "\"From $0.10 / MTok\" input, \"From $0.50\" output "
     "(haiku-5-5/overview); a higher price above 100K input tokens is a third party's report, not "
     "read on Anthropic's page; cache prices not found there: 1.25x/2x/0.1x assumed (a price tracker, "
     "TheKrush/PromptFuel v1.0.23, lists the same $0.125/$0.20/$0.01); its efforts and "
     "turning thinking off are from openrouter's model page (\"can be turned off at low, medium, "
     "and high effort\")"),
    ("claude-opus-5", True, False, ALL_EFFORTS, True, True, True, 1024, 128_000, OPUS_5_PRICE,
     ACTIVE, "", "legacy: opus-5/overview names Opus 5.5; disabled accepted at effort high or below "
     "(whats-new-opus-5-5)"),
    ("claude-fable-5", True, False, ALL_EFFORTS, True, False, True, 1024, 128_000, FABLE_5_PRICE,
     ACTIVE, "", "legacy: fable-5/overview names Fable 5.1; adaptive thinking only (Bedrock's "
     "adaptive-thinking page)"),
    ("claude-opus-4-8", True, False, ALL_EFFORTS, False, True, True, 1024, 128_000, OPUS_4_5_PRICE,
     ACTIVE, "", "adaptive thinking only: budget_tokens is a 400 (whats-new-opus-4-8)"),
    ("claude-opus-4-7", True, False, ALL_EFFORTS, False, True, True, 4096, 128_000, OPUS_4_5_PRICE,
     ACTIVE, "", "adaptive thinking only (adaptive-thinking); xhigh first offered here (effort)"),
    ("claude-opus-4-6", True, True, NO_XHIGH, False, True, False, 4096, 128_000, OPUS_4_5_PRICE,
     ACTIVE, "", "budget_tokens deprecated here (adaptive-thinking)"),
    ("claude-sonnet-5", True, False, ALL_EFFORTS, True, True, True, 2048, 128_000, SONNET_5_PRICE,
     ACTIVE, "", "legacy: sonnet-5/overview (\"Input pricing: $2 / MTok\") names Sonnet 5.5; the "
     "$3/$15 once announced from 2026-09-01 was called off (the overview's $2/$10 stands); the "
     "minimum cacheable prompt was not on the pages read: Sonnet 4.6's is assumed"),
    ("claude-sonnet-4-6", True, True, NO_XHIGH, False, True, False, 2048, 64_000, SONNET_PRICE,
     ACTIVE, "", "legacy; budget_tokens deprecated here (adaptive-thinking)"),
    ("claude-opus-4-5", False, True, ("low", "medium", "high"), False, True, False, 4096, 64_000,
     OPUS_4_5_PRICE, DEPRECATED, "2027-01-22", "effort without adaptive thinking; end of life "
     "January 22nd, 2027 (SDK 2.14, anthropic/_data/deprecated_models.py)"),
    ("claude-sonnet-4-5", False, True, (), False, True, False, 1024, 64_000, SONNET_PRICE,
     RETIRED, "2026-11-30", "end of life November 30th, 2026 (SDK 2.14, anthropic/_data/deprecated_models.py)"),
    ("claude-haiku-4-5", False, True, (), False, True, False, 4096, 64_000, HAIKU_4_5_PRICE,
     ACTIVE, "", "legacy: haiku-4-5/overview names Haiku 5.5; no effort: the effort page's model "
     "list has no Haiku 4.5"),
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
    "claude-fable-5-2": 1_000_000, "claude-fable-5-1": 1_000_000, "claude-opus-5-5": 1_000_000,
    "claude-sonnet-5-5": 1_000_000, "claude-haiku-5-5": 1_000_000, "claude-opus-5": 1_000_000,
    "claude-fable-5": 1_000_000,
    "claude-opus-4-8": 1_000_000, "claude-opus-4-7": 1_000_000, "claude-opus-4-6": 1_000_000,
    "claude-sonnet-5": 1_000_000, "claude-sonnet-4-6": 1_000_000,
    "claude-opus-4-5": 200_000, "claude-sonnet-4-5": 200_000, "claude-haiku-4-5": 200_000,
    "claude-opus-4-1": 200_000, "claude-opus-4-0": 200_000, "claude-sonnet-4-0": 200_000,
    "claude-3-7-sonnet": 200_000, "claude-3-5-haiku": 200_000, "claude-3-haiku": 200_000,
}
# What the Claude 5.5 family and Fable 5.1 changed (whats-new-opus-5-5, whats-new-sonnet-5-5):
# forced tool use is a 400, text between tool calls comes back as thinking blocks, empty at the
# default display; Sonnet 5.5 turns thinking off with between_tools.
_NEWER = {"forced_tool_choice": False, "display_omitted": True}
_EXTRAS: dict[str, dict[str, Any]] = {
    "claude-fable-5-2": {**_NEWER, "page": f"{MODELS_PAGE}/fable-5-2/migration-guide"},
    "claude-fable-5-1": {**_NEWER, "legacy": True, "page": f"{MODELS_PAGE}/fable-5-1/overview"},
    "claude-opus-5-5": {**_NEWER, "page": f"{MODELS_PAGE}/opus-5-5/whats-new-opus-5-5"},
    "claude-sonnet-5-5": {**_NEWER, "between_tools": True,
                          "page": f"{MODELS_PAGE}/sonnet-5-5/overview, .../whats-new-sonnet-5-5"},
    "claude-haiku-5-5": {**_NEWER, "page": f"{MODELS_PAGE}/haiku-5-5/overview"},
    "claude-opus-5": {"legacy": True, "display_omitted": True, "page": f"{MODELS_PAGE}/opus-5/overview"},
    "claude-fable-5": {"legacy": True, "display_omitted": True, "page": f"{MODELS_PAGE}/fable-5/overview"},
    "claude-sonnet-5": {"legacy": True, "page": f"{MODELS_PAGE}/sonnet-5/overview"},
    "claude-sonnet-4-6": {"legacy": True, "page": f"{DOCS}/about-claude/models/overview"},
    # not in the current lineup the model pages compare against (Fable 5.x, Opus 5.5, Sonnet 5.5,
    # Haiku 5.5): older than Opus 5, which opus-5/overview itself calls legacy
    **{model_id: {"legacy": True} for model_id in ("claude-opus-4-8", "claude-opus-4-7", "claude-opus-4-6",
                                                   "claude-opus-4-1", "claude-opus-4-0", "claude-sonnet-4-0")},
    "claude-haiku-4-5": {"legacy": True, "page": f"{MODELS_PAGE}/haiku-4-5/overview"},
}
# A model the table does not know, with no window in the config: the smallest window of any model
# above, so a request that fits it fits every one of them.
CONTEXT_WINDOW_DEFAULT = 200_000
# max_tokens a model nobody listed is assumed to take: every model above takes at least this
# much but the two retired Claude 3 models, so a request the table would allow is not refused
OUTPUT_CAP_ASSUMED = 128_000

MODELS: dict[str, Model] = {
    row[0]: Model(*row, context_window=WINDOWS[row[0]],
                  **{"page": f"{DOCS}/about-claude/models/overview", **_EXTRAS.get(row[0], {})})
    for row in _ROWS}
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


# The models a provider's own list named (Anthropic's `GET /v1/models`, read by
# harness/calls/capabilities.py), by id: set once where the chat starts, read by every request
# builder through `capabilities`. Empty until then: the table alone answers.
_LISTED: dict[str, Model] = {}


def use_listing(listed: Mapping[str, Model]) -> None:
    """Make `listed` (source API or CONFIG) what `capabilities` answers first, replacing any
    listing before."""
    _LISTED.clear()
    _LISTED.update(listed)


def listing() -> dict[str, Model]:
    return dict(_LISTED)


def table_row(model_id: str) -> Model | None:
    """The hand table's row, by its id or a listed alias; None for a model not in it."""
    return MODELS.get(ALIASES.get(model_id, model_id))


def capabilities(model_id: str) -> Model | None:
    """What the model takes: as its provider's list says (`use_listing`), else the table's row,
    by its id or a listed alias; None for a model neither knows (`lookup` gives one anyway)."""
    listed = _LISTED.get(model_id)
    return listed if listed is not None else table_row(model_id)


def assumed(model_id: str, window: int | None = None, price: Price | None = None,
            source: str = ASSUMED) -> Model:
    """The record of a model nothing listed: "sent as configured and shown unpriced", its window
    the config's or the smallest known one (CONTEXT_WINDOW_DEFAULT), no thinking fields sent, no
    effort, the output cap no lower than any model's. With a window or a price from the config
    (a local server's model), its source is CONFIG."""
    return Model(id=model_id, adaptive=False, budget=False, efforts=(), thinking_default_on=False,
                 can_disable=True, sampling_fixed=False, cache_min_tokens=0,
                 output_cap=OUTPUT_CAP_ASSUMED, price=price, context_window=window or CONTEXT_WINDOW_DEFAULT,
                 source=source, notes="not in the provider's list nor the table")


def lookup(model_id: str, window: int | None = None, price: Price | None = None) -> Model:
    """Always a record: the provider's list's, the table's, else `assumed` (CONFIG when the
    config gives a window or a price)."""
    found = capabilities(model_id)
    if found is not None:
        return found
    return assumed(model_id, window, price, CONFIG if (window or price) else ASSUMED)


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


WINDOW_FROM = {API: "its provider's model list", TABLE: "the table in harness/calls/models.py",
               CONFIG: "a context_window setting in config.toml",
               ASSUMED: "the default of the smallest known window"}


def window_problem(request: dict[str, Any], window: int | None = None, what: str = "this request",
                   counted: int | None = None, window_from: str | None = None) -> str | None:
    """One sentence (no final period, as every problem here) when the request, its input counted high (`input_tokens_max`) and its
    max_tokens, could pass its model's context window, so it is never sent; None when it fits.
    `window` is the config's, for a model the table does not know; else CONTEXT_WINDOW_DEFAULT.
    `window_from` (API, TABLE, CONFIG, ASSUMED) names where a window given by the caller came
    from (an OpenAI wire's record, harness/calls/openai_client.py); then `window` is the model's."""
    model_id = str(request.get("model", ""))
    model = capabilities(model_id) if window_from is None else None
    tokens = window_tokens(request, window) if window_from is None else (window or CONTEXT_WINDOW_DEFAULT)
    max_tokens = request.get("max_tokens") if isinstance(request.get("max_tokens"), int) else 0
    needed = (input_tokens_max(request) if counted is None else counted) + max_tokens
    if needed <= tokens:
        return None
    if window_from is not None:  # one of WINDOW_FROM's, or a server's own words [H36]
        where = WINDOW_FROM.get(window_from, window_from)
    elif model is not None:
        where = WINDOW_FROM[model.source] if model.source == API else WINDOW_FROM[TABLE]
    else:
        where = "a context_window setting in config.toml, or the default of the smallest known window"
    how = "its bytes" if counted is None else "as the API counts them"
    if counted == 0:
        return (f"{what} was not sent: its max_tokens {max_tokens:,} alone passes {model_id}'s context window "
                f"of {tokens:,} tokens ({where}); lower it, or choose a model with a larger window")
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
    if kind == "between_tools" and not model.between_tools:
        return f"{model.id} takes no between_tools thinking; it takes {model.thinking_options()}"
    choice = request.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") in ("any", "tool") and not model.forced_tool_choice:
        # whats-new-sonnet-5-5, whats-new-opus-5-5: "Forced tool use returns an error"
        return f"{model.id} refuses forced tool use (tool_choice {choice.get('type')}); use auto or none"
    return window_problem(request, window) if check_window else None


# ---------------------------------------------------------------- OpenAI's wires [H30] [H31]

OPENAI_DOCS = "https://developers.openai.com/api/docs"
# Responses' `reasoning.effort` and Chat Completions' `reasoning_effort`: "Currently supported
# values are none, minimal, low, medium, high, and xhigh" (the API reference's ReasoningEffort),
# each model taking its own few; a model refuses the rest ("Unsupported value: 'minimal' is not
# supported with the 'gpt-5.1' model. Supported values are: 'none', 'low', 'medium', and 'high'.")
OPENAI_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
OPENAI_EFFORTS_RECENT = ("none", "low", "medium", "high", "xhigh")


def _openai_row(model_id: str, window: int, output: int, efforts: tuple[str, ...], page: str,
                notes: str = "") -> Model:
    return Model(id=model_id, adaptive=False, budget=False, efforts=efforts, thinking_default_on=False,
                 can_disable=True, sampling_fixed=False, cache_min_tokens=1024, output_cap=output,
                 price=None, context_window=window, page=page, notes=notes)


# OpenAI's models as their pages give them, by the id its API takes (no `NAME/`): read only where
# a provider's own list does not say (OpenAI's `GET /v1/models` gives no window) and only for an
# OpenAI wire. Unpriced here: a provider's configured `prices` price them [H29].
OPENAI_MODELS: dict[str, Model] = {model.id: model for model in (
    _openai_row("gpt-5.5", 1_050_000, 128_000, OPENAI_EFFORTS_RECENT, f"{OPENAI_DOCS}/models/gpt-5.5",
                "reasoning.effort none, low, medium, high or xhigh (the reasoning guide; minimal is refused)"),
    _openai_row("gpt-5.5-pro", 1_050_000, 128_000, ("high", "xhigh"), f"{OPENAI_DOCS}/models/gpt-5.5-pro",
                "the pro models reason at high or above"),
    _openai_row("gpt-5.4", 1_050_000, 128_000, OPENAI_EFFORTS_RECENT, f"{OPENAI_DOCS}/models/gpt-5.4"),
    _openai_row("gpt-5.4-mini", 400_000, 128_000, OPENAI_EFFORTS_RECENT, f"{OPENAI_DOCS}/models/gpt-5.4-mini"),
)}

# What a provider's own list said of its models (an OpenAI wire's `GET /v1/models`), by
# `NAME/MODEL`: added beside the Messages API's listing, read first by `provider_model`.
_PROVIDER_LISTED: dict[str, Model] = {}


def use_provider_listing(provider: str, listed: Mapping[str, Model]) -> None:
    """Make `listed` (by the model's id on its server) what `provider_model` answers first for
    the provider `provider`, replacing what that provider's list said before."""
    for key in [key for key in _PROVIDER_LISTED if key.startswith(provider + "/")]:
        del _PROVIDER_LISTED[key]
    for model_id, model in listed.items():
        _PROVIDER_LISTED[f"{provider}/{model_id}"] = model


def provider_listing(provider: str) -> dict[str, Model]:
    prefix = provider + "/"
    return {key[len(prefix):]: model for key, model in _PROVIDER_LISTED.items() if key.startswith(prefix)}


def provider_model(provider: str, model_id: str, window: int | None = None) -> Model:
    """[H30] What a model on an OpenAI wire takes, always a record: the provider's own list's
    (its window as the server gives it), else OpenAI's row above, else `assumed` with the
    config's window."""
    listed = _PROVIDER_LISTED.get(f"{provider}/{model_id}")
    if listed is not None:
        return listed
    row = OPENAI_MODELS.get(model_id)
    if row is not None:
        return row
    return assumed(model_id, window, None, CONFIG if window else ASSUMED)


def effort_sent(model: Model, thinking: Thinking) -> Thinking | None:
    """[H31] A thinking setting as an OpenAI wire's effort field: "off" is effort `none` where the
    model takes it and no field elsewhere (the model reasons at its own default, which no field
    lowers); anything else is sent as it is, for `effort_problem` to refuse before the call
    where the model lacks it."""
    if thinking == THINKING_OFF:
        return "none" if "none" in model.efforts else None
    return thinking


def effort_problem(model: Model, effort: Any) -> str | None:
    """Why `model` cannot take this effort field (no final period), or None when it can."""
    if effort is None or (isinstance(effort, str) and effort in model.efforts):
        return None
    if isinstance(effort, int):
        return f"{model.id} takes no thinking budget in tokens on this API; {openai_options(model)}"
    return f"{model.id} has no reasoning effort {effort}; {openai_options(model)}"


def openai_options(model: Model) -> str:
    efforts = [effort for effort in model.efforts if effort != "none"]
    if not efforts:
        return "it takes no reasoning effort (neither its provider's list nor the table names one), so only off"
    return "it takes off or an effort (" + ", ".join(efforts) + ")"
