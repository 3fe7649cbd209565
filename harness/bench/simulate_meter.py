"""What each request of a simulated chat costs: the local Messages API's prompt cache (its documented
rules, harness/localapi/cache.py: entries only at marks, a lookback of 20 positions, the model's
minimum prefix, 5-minute entries from the start of the request that wrote or last read them,
images and settings breaking the messages' part) and the capability table's prices.

The requests go to the cache model directly, not over HTTP: the same `prompt_blocks`, `cache_marks`
and `PromptCache.look`/`commit` the local API runs, in the order the server runs them, its clock
being the simulated chat's. A request's entries are committed as it starts, so the next request
reads them: the client's prefix gate makes concurrent compactions on one prefix wait for the first
one's response [gist §3.3], and the simulation runs them one after another.

This is the one module of `ever simulate` that imports harness/localapi (test equipment the
simulator runs for the user; tests/model/test_subset.py allows it by name).

Speed: a block's identity is the SHA-256 of what `prompt_blocks` makes it (the same prefixes are
the same digests), computed once per distinct block and settings; `same_blocks_as_the_local_api`
is the check that the result is the local API's own (tests/chat/test_simulate.py).
"""

import hashlib
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import Any

from harness.calls.anthropic import bare, is_marked, mark_of
from harness.calls.models import capabilities
from harness.localapi.cache import (
    CacheOutcome,
    PromptCache,
    cache_lookback_blocks,
    charged,
)
from harness.localapi.server import minimum_cacheable_tokens_default
from harness.localapi.validation import (
    PromptBlock,
    block_tokens,
    cache_marks,
    canonical_json,
    prompt_blocks,
)

JSON = dict[str, Any]
EMPTY_DIGEST = hashlib.sha256(b"").digest()
IDENTITY_LENGTH = (32).to_bytes(8, "big")  # every identity here is a 32-byte digest
KNOWN_MAX = 2_000_000
_KNOWN: dict[Any, tuple[bytes, int]] = {}


def _images_in(body: JSON) -> int:
    count = 0
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            continue
        for block in content:
            kind = block.get("type")
            if kind == "image":
                count += 1
            elif kind == "tool_result" and isinstance(block.get("content"), list):
                count += sum(1 for part in block["content"] if isinstance(part, dict) and part.get("type") == "image")
    return count


def _text_json(text: str) -> bytes:
    """`canonical_json({"type": "text", "text": text})`, written out: a text block's canonical JSON
    is its keys in order around the text as `json.dumps` escapes it."""
    return ('{"text":' + encode_basestring(text) + ',"type":"text"}').encode("utf-8")


@dataclass(frozen=True)
class Prepared:
    digests: list[bytes]  # digests[k]: the prefix of the first k blocks
    prefix_tokens: list[int]
    joined: list[bool]
    marks: list[tuple[int, str]]


class Meter:
    """One workspace's prompt cache (harness/localapi/cache.py's `PromptCache`, whose entries,
    clocks, minimums and writes it uses as they are), and the identities of the blocks it has seen.

    `call` gives what `PromptCache.look` gives for the request's `prompt_blocks` and `cache_marks`,
    then commits; it hashes each distinct block once, and walks the lookback on the block numbers
    as `lookback` does. `exact=True` runs the local API's own functions instead (the check that
    both agree is tests/chat/test_simulate.py's)."""

    def __init__(self, exact: bool = False) -> None:
        self.cache = PromptCache({}, minimum_cacheable_tokens_default)
        self.exact = exact
        self._known = _KNOWN  # pure: every meter of the process shares it
        self._minimums: dict[str, int] = {}
        self._automatic_entries: dict[str, dict[bytes, float]] = {}  # OpenAI's: digest → last used

    def _identity(self, prefix: bytes, block: JSON) -> tuple[bytes, int]:
        """The digest of the block's identity as `prompt_blocks` makes it, and its tokens."""
        if block.get("type") == "text" and (len(block) == 2 or (len(block) == 3 and is_marked(block))):
            key: Any = (prefix, block["text"])
            found = self._known.get(key)
            if found is None:
                data = _text_json(block["text"])
                found = (hashlib.sha256(prefix + data).digest(), -(-len(data) // 4))
        else:
            schema = block.get("input_schema")
            # a tool definition is one of the chat's own constant objects, copied shallowly
            key = (prefix, block.get("name"), id(schema)) if schema is not None else (
                prefix, canonical_json(bare(block)))
            found = self._known.get(key)
            if found is None:
                found = (hashlib.sha256(prefix + canonical_json(bare(block))).digest(), block_tokens(block))
            else:
                return found
        if len(self._known) > KNOWN_MAX:
            self._known.clear()  # only a memo: what it forgets is hashed again
        self._known[key] = found
        return found

    def _parts(self, body: JSON):
        """Each block of the request in the cache's order: (block, identity prefix, message index)."""
        for tool in body.get("tools", []):
            yield tool, b"tool\0", -2
        system = body.get("system")
        if system:
            for block in ([{"type": "text", "text": system}] if isinstance(system, str) else system):
                yield block, b"system\0", -1
        settings = canonical_json({"thinking": body.get("thinking"), "tool_choice": body.get("tool_choice"),
                                   "output_config": body.get("output_config"), "images": _images_in(body)})
        for index, message in enumerate(body["messages"]):
            prefix = message["role"].encode("ascii") + b"\0" + settings + b"\0"
            content = message["content"]
            for block in ([{"type": "text", "text": content}] if isinstance(content, str) else content):
                yield block, prefix, index

    def blocks(self, body: JSON) -> list[PromptBlock]:
        """`prompt_blocks(body)`, each identity its digest."""
        found = []
        counters: dict[int, int] = {}
        for block, prefix, index in self._parts(body):
            identity, tokens = self._identity(prefix, block)
            k = counters.get(index, 0)
            counters[index] = k + 1
            where = ("tools" if index == -2 else "system" if index == -1 else f"messages.{index}.content")
            found.append(PromptBlock(f"{where}.{k}", block, identity, tokens))
        return found

    def call(self, body: JSON, now_seconds: float) -> CacheOutcome:
        """The request as the local API answers it at `now_seconds`: what it reads and writes."""
        if PROVIDER is not None:
            return self.look(body["model"], self.prepare(body), now_seconds)
        if self.exact or is_marked(body):
            blocks = prompt_blocks(body)
            outcome, writes = self.cache.look(body["model"], blocks, cache_marks(body, blocks), now_seconds)
            self.cache.commit(writes, now_seconds)
            return outcome
        return self.look(body["model"], self.prepare(body), now_seconds)

    def prepare(self, body: JSON) -> "Prepared":
        """The request's blocks chained as `PromptCache.look` chains them, and its marks: the same
        for every model (a cache is per model, its prefixes are not)."""
        digest = EMPTY_DIGEST
        digests = [digest]
        prefix_tokens = [0]
        total = 0
        marks: list[tuple[int, str]] = []
        joined = [False]  # joined[j]: blocks j and j + 1 are tool calls of one message (one position)
        last_tool_message = -3
        sha256 = hashlib.sha256
        known = self._known
        for block, prefix, index in self._parts(body):
            size = len(block)
            found = None
            if block.get("type") == "text" and (size == 2 or (size == 3 and is_marked(block))):
                found = known.get((prefix, block["text"]))  # the usual case, as `_identity` keys it
            if found is None:
                found = self._identity(prefix, block)
            identity, tokens = found
            digest = sha256(digest + IDENTITY_LENGTH + identity).digest()
            digests.append(digest)
            total += tokens
            prefix_tokens.append(total)
            is_tool = block.get("type") == "tool_use"
            joined[-1] = is_tool and last_tool_message == index
            joined.append(False)
            last_tool_message = index if is_tool else -3
            mark = mark_of(block)
            if mark is not None:
                marks.append((len(digests) - 1, mark.get("ttl", "5m")))
        return Prepared(digests, prefix_tokens, joined, marks)

    def look(self, model: str, prepared: "Prepared", now_seconds: float) -> CacheOutcome:
        if PROVIDER is not None:
            return self._automatic(model, prepared, now_seconds)
        return self._look(model, prepared.digests, prepared.prefix_tokens, prepared.joined, prepared.marks,
                          now_seconds)

    def _look(self, model: str, digests: list[bytes], prefix_tokens: list[int], joined: list[bool],
              marks: list[tuple[int, str]], now: float) -> CacheOutcome:
        """`PromptCache.look` then `commit`, on digests already chained."""
        cache = self.cache
        # `PromptCache._live`, written out: a live entry, or None (an expired one is dropped)
        entries = cache._entries.setdefault(model, {})

        def live(digest: bytes) -> Any:
            entry = entries.get(digest)
            if entry is not None and now >= entry.expires_at_seconds:
                del entries[digest]
                return None
            return entry

        read_blocks = 0
        for mark, _ in marks:
            number, positions = mark, 0
            while number >= 1 and positions < cache_lookback_blocks:
                if live(digests[number]) is not None:
                    read_blocks = max(read_blocks, number)
                    break
                positions += 1
                number -= 1
                while number >= 1 and joined[number]:
                    number -= 1
        if read_blocks:
            entry = live(digests[read_blocks])
            entry.expires_at_seconds = now + entry.ttl_seconds
        minimum = self._minimums.get(model)
        if minimum is None:
            minimum = self._minimums[model] = cache.minimum_for(model)
        outcome, writes = charged(model, marks, digests, prefix_tokens, read_blocks, minimum, live)
        cache.commit(writes, now)
        return outcome


    def _automatic(self, model: str, prepared: "Prepared", now: float) -> CacheOutcome:
        """OpenAI's automatic cache, as harness/localapi/openai_api.py keeps it: no marks; the
        longest prefix an earlier request of this model left, within 5 minutes of its last use, read
        in steps of 128 tokens when it is 1,024 or more; every prefix of 1,024 or more kept; no
        write charged. The prefixes are the Messages body's blocks: the same view and prompt."""
        entries = self._automatic_entries.setdefault(model, {})
        digests, prefix_tokens = prepared.digests, prepared.prefix_tokens
        read_blocks = cached = 0
        for number in range(len(digests) - 1, 0, -1):
            if prefix_tokens[number] < OPENAI_CACHE_MIN_TOKENS:
                break
            used = entries.get(digests[number])
            if used is not None and now < used + OPENAI_CACHE_TTL_SECONDS:
                read_blocks = number
                cached = prefix_tokens[number] - prefix_tokens[number] % OPENAI_CACHE_STEP_TOKENS
                break
        for number in range(len(digests) - 1, 0, -1):
            if prefix_tokens[number] < OPENAI_CACHE_MIN_TOKENS:
                break
            entries[digests[number]] = now
        total = prefix_tokens[-1]
        return CacheOutcome(total, total - cached, 0, cached, 0, 0, read_blocks, ())


# [H29] the provider whose cache and prices `ever simulate --provider` replays (a
# harness/calls/providers.py ProviderConfig of an OpenAI API); None: Anthropic's. Set before the
# worker processes fork, so each has it.
PROVIDER: Any = None
OPENAI_CACHE_MIN_TOKENS, OPENAI_CACHE_STEP_TOKENS, OPENAI_CACHE_TTL_SECONDS = 1024, 128, 300.0


def use_provider(config: Any) -> None:
    """Replay on `config`'s cache and prices (None: Anthropic's); a ValueError when an OpenAI
    provider has no prices to replay with."""
    global PROVIDER
    if config is not None and config.api == "anthropic":
        config = None
    if config is not None and config.prices is None:
        raise ValueError(f"the provider {config.name} has no prices: set prices = {{input = …, cached_input = …, "
                         f"output = …}} in [providers.{config.name}] of config.toml to simulate what it costs")
    PROVIDER = config


def same_blocks_as_the_local_api(body: JSON) -> bool:
    """The meter's blocks are the local API's: the same tokens, marks and block order, and two
    blocks have one digest exactly when the local API gives them one identity."""
    ours = Meter().blocks(body)
    theirs = prompt_blocks(body)
    if [(b.where, b.tokens) for b in ours] != [(b.where, b.tokens) for b in theirs]:
        return False
    if cache_marks(body, ours) != cache_marks(body, theirs):
        return False
    return [hashlib.sha256(b.identity).digest() for b in theirs] == [b.identity for b in ours]


def tokens_of(blocks: list[JSON]) -> int:
    """The blocks' prompt tokens by the local API's token rule."""
    return sum(block_tokens(block) for block in blocks)


def reply_tokens(blocks: list[JSON]) -> int:
    """A reply's output tokens by the local API's rule: its blocks' tokens, at least 1."""
    return max(1, sum(block_tokens(block) for block in blocks))


@dataclass(frozen=True)
class Prices:
    """Dollars per token of one model, from the capability table (harness/calls/models.py)."""

    model: str
    input: float
    cache_write: float
    cache_read: float
    output: float

    @classmethod
    def of(cls, model: str) -> "Prices":
        if PROVIDER is not None:  # [H29] its configured prices; a cache write is input
            input_cents, cached_cents, output_cents = PROVIDER.prices
            return cls(model, input_cents / 1e8, input_cents / 1e8, cached_cents / 1e8, output_cents / 1e8)
        row = capabilities(model)
        if row is None or row.price is None:
            raise ValueError(f"{model} has no price in the capability table (harness/calls/models.py)")
        cents = row.price
        # cents per million tokens: dollars per token is cents / 10^8
        return cls(model, cents.input / 1e8, cents.cache_write_5m / 1e8, cents.cache_read / 1e8, cents.output / 1e8)

    def dollars(self, outcome: CacheOutcome, output_tokens: int) -> float:
        return (outcome.input_tokens * self.input + outcome.cache_creation_input_tokens * self.cache_write
                + outcome.cache_read_input_tokens * self.cache_read + output_tokens * self.output)
