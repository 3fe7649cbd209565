"""Which API a model is called through [H25]: `[providers.NAME]` tables in config.toml, and a model
named `NAME/MODEL` picks its provider.

    [providers.local]
    api = "openai-chat"                    # "openai-chat" | "openai-responses" | "anthropic"
    base_url = "http://localhost:8080/v1"  # the server's OpenAI base URL (with its /v1)
    key_env = "LOCAL_KEY"                  # the variable holding its key; none: a server needing none
    context_window = 32768                 # tokens: a local model's window, which no table knows
    prices = {input = 0.15, cached_input = 0.015, output = 0.60}   # US dollars per million tokens

    model = "local/qwen3-coder"            # the turns through it; memory.model may be another's

Built in: `openai` (the Responses API at OpenAI, its key in OPENAI_API_KEY) and `anthropic` (the
Messages API, the key as config.py loads it). A bare model id (`claude-sonnet-4-6`) and any name
whose part before the `/` is no provider's stay Anthropic's. A table named like a built-in changes
only the keys it sets. The turns and the compactor pick their providers apart, so a local
compactor may serve a hosted master or the reverse; `-m` switches the turns' per process.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

APIS = ("openai-chat", "openai-responses", "anthropic")
KEYS = ("api", "base_url", "key_env", "context_window", "prices")
PRICE_KEYS = ("input", "cached_input", "output")


class ProviderError(Exception):
    """A `[providers.NAME]` table Ever cannot use: one sentence for the user."""


@dataclass(frozen=True)
class ProviderConfig:
    name: str
    api: str
    base_url: str | None = None  # None: the SDK's own (api.openai.com, api.anthropic.com)
    key_env: str | None = None  # None: a server that takes no key (anthropic: config.py's key)
    context_window: int | None = None  # tokens; None: the capability table's, or its smallest
    # US cents per million tokens (input, cached input, output); None: unpriced, shown as tokens
    prices: tuple[int, int, int] | None = None

    @property
    def openai(self) -> bool:
        return self.api in ("openai-chat", "openai-responses")


BUILT_IN = {
    "openai": ProviderConfig("openai", "openai-responses", None, "OPENAI_API_KEY"),
    "anthropic": ProviderConfig("anthropic", "anthropic"),
}


def _cents(name: str, value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ProviderError(f"{where}: prices.{name} must be US dollars per million tokens (a number "
                            f"of at least 0); it is {value!r}.")
    cents = value * 100
    if abs(cents - round(cents)) > 1e-9:
        raise ProviderError(f"{where}: prices.{name} must be whole cents per million tokens; it is {value!r}.")
    return round(cents)


def provider_table(name: str, table: Any, where: str) -> ProviderConfig:
    """One `[providers.NAME]` table, checked key by key."""
    if not isinstance(table, dict):
        raise ProviderError(f"{where}: providers.{name} must be a table ([providers.{name}]).")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise ProviderError(f"{where}: providers.{name} has no setting {unknown[0]!r}; its settings are "
                            f"{', '.join(KEYS)}.")
    base = BUILT_IN.get(name)
    api = table.get("api", base.api if base else None)
    if api not in APIS:
        raise ProviderError(f"{where}: providers.{name}.api must be one of {', '.join(APIS)}; it is {api!r}.")
    base_url = table.get("base_url", base.base_url if base else None)
    if base_url is not None and (not isinstance(base_url, str) or not base_url.startswith(("http://", "https://"))):
        shown = "a value with a password in it" if "@" in str(base_url) else repr(base_url)
        raise ProviderError(f"{where}: providers.{name}.base_url must be a URL starting with http:// or "
                            f"https://; it is {shown}.")
    key_env = table.get("key_env", base.key_env if base else None)
    if key_env is not None and (not isinstance(key_env, str) or not key_env.strip()):
        raise ProviderError(f"{where}: providers.{name}.key_env must name an environment variable.")
    window = table.get("context_window")
    if window is not None and (isinstance(window, bool) or not isinstance(window, int) or window < 1):
        raise ProviderError(f"{where}: providers.{name}.context_window must be a whole number above 0.")
    prices = table.get("prices")
    if prices is not None:
        if not isinstance(prices, dict) or set(prices) - set(PRICE_KEYS) or not {"input", "output"} <= set(prices):
            raise ProviderError(f"{where}: providers.{name}.prices must be a table of input, output and "
                                "optionally cached_input, in US dollars per million tokens.")
        input_cents = _cents("input", prices["input"], where)
        prices = (input_cents, _cents("cached_input", prices.get("cached_input", prices["input"]), where),
                  _cents("output", prices["output"], where))
    if not name or "/" in name:
        raise ProviderError(f"{where}: a provider's name cannot be empty or hold a '/'; it is {name!r}.")
    return ProviderConfig(name, api, base_url, key_env, window, prices)


def providers_from(tables: Any, where: str) -> dict[str, ProviderConfig]:
    """The config's `providers` table: each named provider, the built-ins beside them."""
    if not isinstance(tables, dict):
        raise ProviderError(f"{where}: providers must hold tables, one per provider ([providers.NAME]).")
    return {name: provider_table(name, table, where) for name, table in tables.items()}


@dataclass(frozen=True)
class Route:
    """A model name resolved: its provider and the model's id on that provider's wire."""

    provider: ProviderConfig
    model: str  # what the provider's API is sent: the name without its `NAME/`


def route(model: str, providers: Mapping[str, ProviderConfig] | None = None) -> Route:
    """The provider a model name picks: `NAME/MODEL` the provider NAME (configured or built in);
    anything else Anthropic's, as it is."""
    known = dict(BUILT_IN)
    known.update(providers or {})
    name, slash, rest = model.partition("/")
    if slash and rest and name in known:
        return Route(known[name], rest)
    return Route(known["anthropic"], model)


def with_window(config: ProviderConfig, window: int | None) -> ProviderConfig:
    return config if window is None else replace(config, context_window=window)


def provider_key(provider: ProviderConfig, environ: Mapping[str, str] | None = None) -> str:
    """The key a provider's `key_env` names; "" for one that takes none (a local server)."""
    from harness.calls.outcomes import SettingsError

    if not provider.key_env:
        return ""
    key = (os.environ if environ is None else environ).get(provider.key_env, "").strip()
    if not key:
        raise SettingsError(f"{provider.key_env} is not set: the provider {provider.name} needs its API key there.")
    return key
