"""How many tokens an import's text weighs, as the compaction model's API counts it [I6].

A token stands for at least one byte, so bytes taken as tokens bound every figure from above; but
a model's tokenizer makes about four bytes of English one token, and the bound alone priced a
first day at 4x what it spent. Before an import, `measured` asks the API's `count_tokens` for a
sample of the notes (spread over them, at most SAMPLE_BYTES) and for the prefix every compaction
shares (each beside a bare one-character request): bytes per token of the notes, and the prefix's
tokens. Three requests, free of charge, kept in the home's `tokens.json` by model and sample,
so an import asked again (after a "no") asks nothing. A provider that cannot count (OpenAI's APIs,
no key, no network) gives None, and the import says the bound only.
"""

import asyncio
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

SAMPLE_BYTES = 48_000  # enough of the notes to weigh them, well inside any model's window
TOKENS_FILE = "tokens.json"
KEPT_MAX = 32  # the counts kept, newest last


@dataclass(frozen=True)
class Weight:
    """The notes' bytes per token, and the prefix's tokens, as the API counted them."""

    bytes_per_token: float
    prefix_tokens: int


def sample_of(texts: Sequence[str], limit: int = SAMPLE_BYTES) -> str:
    """Texts spread evenly over `texts`, whole, up to `limit` bytes (one text cut if it alone is
    longer): the notes' own mix of prose, code and headers."""
    if not texts:
        return ""
    taken: list[str] = []
    size = 0
    total = sum(len(text.encode("utf-8", "surrogatepass")) + 1 for text in texts)
    step = max(1, -(-total // limit))  # one note in `step`: the sample about `limit` bytes
    for text in texts[::step]:
        encoded = text.encode("utf-8", "surrogatepass")
        if size + len(encoded) > limit:
            if not taken:
                taken.append(encoded[:limit].decode("utf-8", "ignore"))
            break
        taken.append(text)
        size += len(encoded) + 1
    return "\n".join(taken)


def _kept(home: Path) -> list:
    from harness.memory.logfile import read_file

    try:
        kept = json.loads(read_file(home / TOKENS_FILE, bytes_max=1 << 20))
    except (OSError, ValueError):
        return []  # a cache: missing or damaged, it is counted again
    return kept if isinstance(kept, list) else []


def _keep(home: Path, entry: dict) -> None:
    from harness.memory.logfile import write_whole

    kept = [e for e in _kept(home) if isinstance(e, dict) and e.get("key") != entry["key"]]
    try:
        write_whole(home / TOKENS_FILE, json.dumps((kept + [entry])[-KEPT_MAX:]).encode())
    except OSError:
        pass  # not kept: the next import counts again


def measured(settings, model: str, texts: Sequence[str], system: list, tools: list) -> Weight | None:
    """The notes' weight by `model`'s API, from the home's counts or three `count_tokens` calls;
    None when it cannot be counted."""
    from harness.calls.providers import route

    if route(model, settings.providers).provider.name != "anthropic":
        return None  # OpenAI's APIs count no prompt without running it
    sample = sample_of(texts)
    if not sample:
        return None
    sample_bytes = len(sample.encode("utf-8", "surrogatepass"))
    key = hashlib.sha256(json.dumps([model, settings.base_url or "", sample, system, tools]).encode(
        "utf-8", "surrogatepass")).hexdigest()
    for entry in _kept(settings.home):
        if isinstance(entry, dict) and entry.get("key") == key:
            try:
                return Weight(float(entry["bytes_per_token"]), int(entry["prefix_tokens"]))
            except (KeyError, TypeError, ValueError):
                break
    counts = asyncio.run(_count(settings, model, sample, system, tools))
    if counts is None:
        return None
    bare, with_sample, with_prefix = counts
    if not (with_sample > bare and with_prefix >= bare):
        return None  # an answer that cannot be right: the bound stands
    weight = Weight(sample_bytes / (with_sample - bare), with_prefix - bare)
    _keep(settings.home, {"key": key, "model": model, "bytes_per_token": weight.bytes_per_token,
                          "prefix_tokens": weight.prefix_tokens})
    return weight


async def _count(settings, model: str, sample: str, system: list, tools: list) -> tuple[int, int, int] | None:
    from harness.chat.config import ConfigError, load_key

    try:
        key = load_key(settings.home)
    except ConfigError:
        return None
    # the SDK only once there is a key to count with: loading it costs seconds an import with no
    # key (a script, a test) would spend for nothing
    from harness.calls.anthropic import provider_of
    from harness.calls.client import Client, ClientSettings

    one = [{"role": "user", "content": [{"type": "text", "text": "."}]}]
    requests = [
        {"model": model, "messages": one},
        {"model": model, "messages": [{"role": "user", "content": [{"type": "text", "text": sample}]}]},
        {"model": model, "messages": one, "system": system, "tools": tools},
    ]
    async with Client(ClientSettings(api_key=key.reveal(), base_url=settings.base_url)) as client:
        provider = provider_of(client)
        counted = [await provider.count_tokens(request) for request in requests]
    if any(tokens is None for tokens in counted):
        return None
    return counted[0], counted[1], counted[2]
