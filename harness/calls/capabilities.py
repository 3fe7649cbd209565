"""What each model takes, learned from its provider where the provider says [H20]: Anthropic's Models
API (`GET /v1/models`) gives each model's window (`max_input_tokens`), output cap (`max_tokens`),
thinking types, effort levels and image input; the hand table (harness/calls/models.py) fills in
what no API says (prices, the minimum cacheable prompt, a row's notes) and answers alone offline.

    listed = from_api_models(answer)          # the API's ModelInfo objects, as JSON -> {id: Model}
    save_listing(home, answer, fetched_at)    # the answer, dated, under the home (a cache)
    cached = read_listing(home)               # (answer, fetched_at) or None
    use_listing(listed)                       # harness/calls/models.py: `capabilities` asks it first
    lookup("claude-opus-6")                   # a Model always: api, table, config or assumed

The record is harness/calls/models.py's `Model`: `window` (context_window), `output_cap`,
`thinking_types`, `efforts`, `image_input`, `price` (None: unpriced), `legacy`, `status` and
`source` ("api", "table", "config", "assumed"). Another provider's own list (OpenAI's, a local
server's `[providers.NAME]`) becomes records the same way: `models.assumed(id, window, price,
CONFIG)` or a `Model` it builds, given to `use_listing`.

A model the API lists works on day one with its own window; one nobody lists is "sent as
configured and shown unpriced", with the smallest known window assumed (`models.assumed`).

Standard library only: the SDK call that fetches the answer is in harness/calls/client.py
(`Client.list_models`).
"""

import asyncio
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

from harness.calls.models import (
    ACTIVE,
    API,
    DEPRECATED,
    EFFORTS,
    OPENAI_MODELS,
    RETIRED,
    TABLE_DATE,
    Model,
    assumed,
    capabilities,
    listing,
    lookup,
    table_row,
    use_listing,
    use_provider_listing,
)
from harness.memory.disk import REAL_DISK, Disk
from harness.memory.logfile import exists, make_parents, read_file, write_whole

CACHE_PATH = "models.json"  # under the home; harness/memory/home.py's row "models"
CACHE_FORMAT = 1
# a listing older than this is fetched again at the chat's start (models come and go in weeks)
CACHE_AGE_SECONDS_MAX = 24 * 3600
LISTING_BYTES_MAX = 4 * 1024 * 1024
CACHE_MIN_TOKENS_ASSUMED = 1024  # the API does not say it; the most common published minimum

__all__ = ["CACHE_PATH", "from_api_model", "from_api_models", "lookup", "listing", "read_listing",
           "save_listing", "use_listing", "capabilities", "assumed", "table_row", "learned", "rows"]


def _supported(value: Any) -> bool:
    return isinstance(value, dict) and value.get("supported") is True


def from_api_model(info: Mapping[str, Any]) -> Model | None:
    """One ModelInfo (as the API sends it in JSON) as a record, merged over the table's row for
    what the API does not say; None for an entry that is not a usable model (no id, retired)."""
    model_id = info.get("id")
    if not isinstance(model_id, str) or not model_id:
        return None
    row = table_row(model_id)
    base = row if row is not None else assumed(model_id)
    window = info.get("max_input_tokens")
    output = info.get("max_tokens")
    status = {"active": ACTIVE, "deprecated": DEPRECATED, "retired": RETIRED}.get(
        str(info.get("lifecycle", "")), base.status)
    retires = info.get("retires_at") or info.get("deprecated_at") or ""
    fields: dict[str, Any] = {"source": API, "status": status,
                              "display_name": str(info.get("display_name") or base.display_name)}
    if isinstance(window, int) and not isinstance(window, bool) and window > 0:
        fields["context_window"] = window
    if isinstance(output, int) and not isinstance(output, bool) and output > 0:
        fields["output_cap"] = output
    if isinstance(retires, str) and retires:
        fields["retired_on"] = retires[:10]
    caps = info.get("capabilities")
    if isinstance(caps, dict):
        thinking = caps.get("thinking") if isinstance(caps.get("thinking"), dict) else {}
        types = thinking.get("types") if isinstance(thinking.get("types"), dict) else {}
        on = thinking.get("supported") is True
        fields["adaptive"] = on and _supported(types.get("adaptive"))
        fields["budget"] = on and _supported(types.get("enabled"))
        # types.disabled: "True on a model that does not support thinking"
        fields["can_disable"] = _supported(types.get("disabled")) or not on
        fields["between_tools"] = on and _supported(types.get("between_tools"))
        if row is None:
            # the API does not say whether thinking runs with no `thinking` field: sending
            # `disabled` where it is accepted turns it off either way
            fields["thinking_default_on"] = on
        effort = caps.get("effort") if isinstance(caps.get("effort"), dict) else {}
        fields["efforts"] = (tuple(level for level in EFFORTS if _supported(effort.get(level)))
                             if effort.get("supported") is True else ())
        fields["image_input"] = _supported(caps.get("image_input"))
    if row is None:
        fields["cache_min_tokens"] = CACHE_MIN_TOKENS_ASSUMED
        fields["notes"] = "listed by the Models API, not in the table: unpriced"
    return replace(base, **fields)


def from_api_models(answer: Iterable[Mapping[str, Any]]) -> dict[str, Model]:
    """The API's answer (its `data`, every page) as records by id; entries that are not models
    are left out."""
    return _by_id(answer, from_api_model)


def _by_id(answer: Iterable[Any], record: Any) -> dict[str, Model]:
    """Each entry of a models list that `record` makes a model of, by its id."""
    listed: dict[str, Model] = {}
    for info in answer:
        if isinstance(info, Mapping):
            model = record(info)
            if model is not None:
                listed[model.id] = model
    return listed


# [H30] the window fields an OpenAI-compatible server's `GET /v1/models` may carry, first found
# wins: vLLM's `max_model_len`, LM Studio's `max_context_length`, the `context_window` and
# `context_length` others use; llama.cpp's `meta.n_ctx_train` last (the model's, not the server's
# `-c`). OpenAI's own list gives none (`id`, `object`, `created`, `owned_by`).
WINDOW_FIELDS = ("context_window", "max_model_len", "max_context_length", "context_length")
OUTPUT_FIELDS = ("max_output_tokens", "max_completion_tokens")
# [H36] the words a window's source is named in, where a server's list gives it
WINDOW_WORDS = {"max_model_len": "vLLM's max_model_len in its model list",
                "n_ctx_train": "llama.cpp's meta.n_ctx_train, the window the model was trained to"}


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def from_provider_model(info: Mapping[str, Any]) -> Model | None:
    """One entry of an OpenAI wire's model list as a record (source API), over OpenAI's row where
    it has one; its window and output cap as the server gives them; None for no model."""
    model_id = info.get("id")
    if not isinstance(model_id, str) or not model_id:
        return None
    meta = info.get("meta") if isinstance(info.get("meta"), dict) else {}
    named = next((name for name in WINDOW_FIELDS if _count(info.get(name))), None)
    window = _count(info.get(named)) if named else _count(meta.get("n_ctx_train"))
    window_from = WINDOW_WORDS.get(named or "", "") if named else (WINDOW_WORDS["n_ctx_train"] if window else "")
    output = next((found for found in (_count(info.get(name)) for name in OUTPUT_FIELDS) if found), None)
    row = OPENAI_MODELS.get(model_id)
    base = row if row is not None else assumed(model_id)
    fields: dict[str, Any] = {"source": API, "notes": base.notes if row is not None else
                              "listed by its provider, not in the table: unpriced"}
    if window is not None:
        fields["context_window"] = window  # the server's, over the table's
        fields["window_from"] = window_from
    if output is not None:
        fields["output_cap"] = output
    return replace(base, **fields)


def from_provider_models(answer: Iterable[Mapping[str, Any]]) -> dict[str, Model]:
    return _by_id(answer, from_provider_model)


async def refresh_provider(provider: Any) -> str:
    """Learn what an OpenAI wire's models take from its own list, at a chat's start or `ever
    models`: fetched within FETCH_SECONDS_MAX and set for `provider_model`; "" or the sentence
    saying why the list could not be had (the table and the config answer then). Not kept under
    the home: a local server's models change as it is restarted."""
    fetch = getattr(provider, "list_provider_models", None)
    if fetch is None:
        return "this provider lists no models"
    try:
        answer = await asyncio.wait_for(fetch(), FETCH_SECONDS_MAX)
    except TimeoutError:
        return f"{provider.name}'s model list did not come within {FETCH_SECONDS_MAX:g} seconds"
    except Exception as error:  # Unusable and the rest: the table and the config answer
        return str(error)
    listed = from_provider_models(answer)
    served = getattr(provider, "served_windows", None)
    if served is not None:  # [H36] a local server's own word on the window it runs at
        try:
            found = await asyncio.wait_for(served(answer), FETCH_SECONDS_MAX)
        except Exception:  # TimeoutError and the rest: the list's figures stand
            found = {}
        for model_id, (window, where) in found.items():
            if model_id in listed:
                listed[model_id] = replace(listed[model_id], context_window=window, window_from=where)
    use_provider_listing(provider.name, listed)
    return ""


def server_of(base_url: str | None) -> str:
    """Which server a kept list came from, as a hash: a base URL may hold a password [H3]."""
    return hashlib.sha256((base_url or "").encode()).hexdigest()


def save_listing(home: Path, answer: list[dict[str, Any]], fetched_at: datetime,
                 base_url: str | None = None, disk: Disk = REAL_DISK) -> None:
    """Keep the API's answer under the home with its date, replaced whole."""
    path = home / CACHE_PATH
    make_parents(home, disk)
    record = {"format": CACHE_FORMAT, "fetched_at": fetched_at.astimezone(UTC).isoformat(),
              "server": server_of(base_url), "models": answer}
    write_whole(path, (json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode(), disk)


def read_listing(home: Path, base_url: str | None = None,
                 disk: Disk = REAL_DISK) -> tuple[list[dict[str, Any]], datetime] | None:
    """The answer kept under the home and when it was fetched; None when there is none, it is
    not the format written here, or it was fetched from another endpoint (a cache, so a damaged
    one is fetched again rather than trusted)."""
    path = home / CACHE_PATH
    if not exists(path, disk):
        return None
    try:
        record = json.loads(read_file(path, disk, LISTING_BYTES_MAX))
        fetched_at = datetime.fromisoformat(record["fetched_at"])
        models = record["models"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if record.get("format") != CACHE_FORMAT or not isinstance(models, list):
        return None
    if record.get("server") != server_of(base_url):
        return None
    return models, fetched_at


def stale(fetched_at: datetime, now: datetime) -> bool:
    return (now - fetched_at).total_seconds() > CACHE_AGE_SECONDS_MAX


def learned(home: Path, base_url: str | None = None, disk: Disk = REAL_DISK) -> dict[str, Model]:
    """The records the cached answer gives (empty when there is none), set as the listing
    `capabilities` asks first."""
    cached = read_listing(home, base_url, disk)
    listed = from_api_models(cached[0]) if cached else {}
    use_listing(listed)
    return listed


FETCH_SECONDS_MAX = 5.0  # a start offline waits no longer for the list: the table answers


async def refresh(client: Any, home: Path, base_url: str | None, now: datetime, disk: Disk = REAL_DISK,
                  force: bool = False) -> tuple[str, str]:
    """Learn what the models take at a chat's start (or `ever models`, `force`): the cached
    answer while it is fresh, else the provider's list fetched now and kept, else the stale
    cache, else the table. (where it came from: "api", "cache" or "table"; the sentence saying why
    the list could not be had, or "")."""
    cached = read_listing(home, base_url, disk)
    if cached is not None and not force and not stale(cached[1], now):
        use_listing(from_api_models(cached[0]))
        return "cache", ""
    fetch = getattr(client, "list_models", None)
    problem = "this provider lists no models"
    if fetch is not None:
        try:
            answer = await asyncio.wait_for(fetch(), FETCH_SECONDS_MAX)
        except TimeoutError:
            problem = f"the Models API did not answer within {FETCH_SECONDS_MAX:g} seconds"
        except Exception as error:  # Unusable and the rest: the table answers, the chat starts
            problem = str(error)
        else:
            use_listing(from_api_models(answer))
            try:
                save_listing(home, answer, now, base_url, disk)
            except OSError as error:
                return "api", f"the models' list was not kept: {error}"
            return "api", ""
    if cached is not None:
        use_listing(from_api_models(cached[0]))
        return "cache", problem
    use_listing({})
    return "table", problem


def rows(listed: Mapping[str, Model]) -> list[Model]:
    """What `ever models` shows: the listed models, in the API's order (newest first), else the
    table's current and legacy rows (never its retired ones)."""
    if listed:
        return [model for model in listed.values() if model.status != RETIRED]
    return [model for model in _table() if model.status != RETIRED]


def tokens_short(tokens: int) -> str:
    """1,000,000 as "1M", 128,000 as "128K", anything else with its commas."""
    if tokens % 1_000_000 == 0:
        return f"{tokens // 1_000_000}M"
    if tokens % 1_000 == 0:
        return f"{tokens // 1_000}K"
    return f"{tokens:,}"


def dollars(cents: Any) -> str:
    """Cents per MTok as dollars, to the cent, or to a tenth of one where the price has it."""
    value = Fraction(cents) / 100
    text = f"${float(value):.2f}"
    return text if Fraction(text[1:]) == value else f"${float(value):.3f}"


def status_word(model: Model) -> str:
    if model.status == DEPRECATED:
        return f"deprecated (ends {model.retired_on})" if model.retired_on else "deprecated"
    return "legacy" if model.legacy else "current"


def model_line(model: Model, uses: str = "") -> str:
    thinking = ", ".join(model.thinking_types) or "none"
    effort = ",".join(model.efforts) or "-"
    price = (f"{dollars(model.price.input)}/{dollars(model.price.output)}" if model.price is not None
             else "unpriced")
    line = (f"{model.id:<22} {tokens_short(model.window):>6} {tokens_short(model.output_cap):>6}  "
            f"{thinking:<30} {effort:<26} {price:<14} {status_word(model)}")
    return line + (f"  ({uses})" if uses else "")


def models_report(shown: list[Model], where: str, problem: str, fetched_at: datetime | None,
                  uses: Mapping[str, str]) -> str:
    """`ever models`: one line a model, then where the figures came from."""
    header = (f"{'model':<22} {'window':>6} {'output':>6}  {'thinking':<30} {'effort':<26} "
              f"{'$/MTok in/out':<14} status")
    lines = [header] + [model_line(model, uses.get(model.id, "")) for model in shown]
    for model_id, role in uses.items():
        if model_id not in {model.id for model in shown}:
            found = lookup(model_id)
            lines.append(model_line(found, role) + ("" if found.source != "assumed" else
                                                    "  - not listed: sent as configured, the smallest "
                                                    "known window assumed"))
    if where == "api":
        source = "From the Models API now" + (f" ({fetched_at:%Y-%m-%d %H:%M} UTC)" if fetched_at else "")
    elif where == "cache":
        source = (f"From the Models API's answer of {fetched_at:%Y-%m-%d %H:%M} UTC, kept under the home"
                  if fetched_at else "From the Models API's answer kept under the home")
    else:
        source = "From the table in harness/calls/models.py alone"
    note = f"{source}; prices from the table of {TABLE_DATE} (the API gives none)."
    if problem:
        note += f" The list could not be had: {problem}"
    return "\n".join(lines + ["", note])


def provider_report(name: str, url: str, listed: Mapping[str, Model], problem: str,
                    uses: Mapping[str, str], window: int | None = None) -> str:
    """[H30] `ever models` for an OpenAI wire: its own list's models as `NAME/MODEL`, each with its
    window as the server gives it, then the ones the turns or the compactor use that it did not
    list (OpenAI's row, or the config's window, or the smallest known)."""
    from harness.calls.models import provider_model

    lines = [f"{name} ({url}):"]
    for model_id, model in listed.items():
        full = f"{name}/{model_id}"
        lines.append(model_line(replace(model, id=full), uses.get(full, ""))
                     + (f"  - window: {model.window_from}" if model.window_from else ""))
    for full, role in uses.items():
        model_id = full[len(name) + 1:]
        if full.startswith(name + "/") and model_id not in listed:
            model = provider_model(name, model_id, window)
            lines.append(model_line(replace(model, id=full), role) + (
                "  - not listed: sent as configured" if model.source in ("assumed", "config") else ""))
    if listed:
        lines.append(f"From {name}'s model list now; a window it does not give is OpenAI's page's, the config's "
                     "or the smallest known.")
    if problem:
        lines.append(f"{name}'s list could not be had: {problem}")
    return "\n".join(lines)


def _table() -> list[Model]:
    from harness.calls.models import MODELS
    return list(MODELS.values())


def table_date() -> str:
    return TABLE_DATE
