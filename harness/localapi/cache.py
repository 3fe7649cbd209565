"""Anthropic's prompt cache as its documentation states it, with the clocks that age its entries
(the rules are listed in harness/localapi/server.py)."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.calls.models import table_row
from harness.localapi.validation import PromptBlock, cache_ttl_seconds

JSON = dict[str, Any]

cache_lookback_blocks = 20


class ManualClock:
    """Seconds that pass only when a test says so (`advance`)."""

    def __init__(self, start_seconds: float = 0.0) -> None:
        self._now_seconds = start_seconds
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            return self._now_seconds

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"a clock does not go back ({seconds} s)")
        with self._lock:
            self._now_seconds += seconds


class WallClock:
    """Real seconds, for the demo."""

    def now(self) -> float:
        return time.monotonic()

    def advance(self, seconds: float) -> None:
        raise TypeError("a wall clock cannot be advanced; give LocalAPI a ManualClock")


@dataclass
class CacheEntry:
    tokens: int
    ttl_seconds: int
    expires_at_seconds: float


@dataclass(frozen=True)
class CacheOutcome:
    """What the cache did for one request (block numbers count from 1 across the whole prompt)."""

    prompt_tokens: int
    input_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int
    ephemeral_5m_input_tokens: int
    ephemeral_1h_input_tokens: int
    read_blocks: int                      # the prefix read ends after this block (0: none read)
    written_blocks: tuple[int, ...]       # marks that get a new entry when the response starts


@dataclass(frozen=True)
class PendingWrite:
    model: str
    digest: bytes
    tokens: int
    ttl_seconds: int


def lookback(blocks: list[PromptBlock], mark: int) -> list[int]:
    """The block boundaries a mark on block `mark` checks, longest first (prompt-caching: "the
    system checks … up to 20 positions", the breakpoint's own counted; "a run of consecutive
    tool_use blocks counts as one position"). A boundary inside such a run is no position."""
    boundaries: list[int] = []
    positions = 0
    number = mark
    while number >= 1 and positions < cache_lookback_blocks:
        boundaries.append(number)
        positions += 1
        number -= 1
        # the rest of a tool_use run before this block is the same position
        while (number >= 1 and blocks[number - 1].block.get("type") == "tool_use"
               and blocks[number].block.get("type") == "tool_use"
               and blocks[number - 1].where.rsplit(".", 1)[0] == blocks[number].where.rsplit(".", 1)[0]):
            number -= 1
    return boundaries


class PromptCache:
    """Anthropic's prompt cache as its documentation states it; see the module docstring.

    Not locked itself: LocalAPI calls it under its lock."""

    def __init__(self, minimum_tokens: dict[str, int], minimum_tokens_default: int) -> None:
        self.minimum_tokens = dict(minimum_tokens)
        self.minimum_tokens_default = minimum_tokens_default
        self._entries: dict[str, dict[bytes, CacheEntry]] = {}

    def minimum_for(self, model: str) -> int:
        """The model's minimum cacheable prompt: a test's own figure, else the capability table's
        (harness/calls/models.py), else the default."""
        matches = [name for name in self.minimum_tokens if model.startswith(name)]
        if matches:
            return self.minimum_tokens[max(matches, key=len)]
        known = table_row(model)
        return known.cache_min_tokens if known is not None else self.minimum_tokens_default

    def _live(self, model: str, digest: bytes, now: float) -> CacheEntry | None:
        entries = self._entries.get(model, {})
        entry = entries.get(digest)
        if entry is None:
            return None
        if now >= entry.expires_at_seconds:
            del entries[digest]
            return None
        return entry

    def look(self, model: str, blocks: list[PromptBlock], marks: list[tuple[int, str]],
             now: float) -> tuple[CacheOutcome, tuple[PendingWrite, ...]]:
        """Read what the cache holds for this prompt now; say what it will write."""
        digests = [hashlib.sha256(b"").digest()]
        prefix_tokens = [0]
        for prompt_block in blocks:
            identity = len(prompt_block.identity).to_bytes(8, "big") + prompt_block.identity
            digests.append(hashlib.sha256(digests[-1] + identity).digest())
            prefix_tokens.append(prefix_tokens[-1] + prompt_block.tokens)

        read_blocks = 0
        for mark, _ in marks:
            for boundary in lookback(blocks, mark):
                if self._live(model, digests[boundary], now) is not None:
                    read_blocks = max(read_blocks, boundary)
                    break
        if read_blocks:
            entry = self._live(model, digests[read_blocks], now)
            entry.expires_at_seconds = now + entry.ttl_seconds

        return charged(model, marks, digests, prefix_tokens, read_blocks, self.minimum_for(model),
                       lambda digest: self._live(model, digest, now))

    def commit(self, writes: tuple[PendingWrite, ...], now: float) -> None:
        """Make a request's entries readable: its response has started."""
        for write in writes:
            entries = self._entries.setdefault(write.model, {})
            entries[write.digest] = CacheEntry(write.tokens, write.ttl_seconds, now + write.ttl_seconds)

    def clear(self) -> None:
        self._entries.clear()


def charged(model: str, marks: list[tuple[int, str]], digests: list[bytes], prefix_tokens: list[int],
            read_blocks: int, minimum: int,
            live: Callable[[bytes], object]) -> tuple[CacheOutcome, tuple[PendingWrite, ...]]:
    """What a prompt whose first `read_blocks` blocks were read is charged, and what it writes: each
    marked prefix past the model's minimum that no live entry holds, its new tokens charged at its
    mark's lifetime (the first mark that reaches a token pays for it)."""
    writes: list[PendingWrite] = []
    written_blocks: list[int] = []
    written_by_ttl = {"5m": 0, "1h": 0}
    charged_to = read_blocks
    for mark, ttl in marks:
        if prefix_tokens[mark] < minimum or live(digests[mark]) is not None:
            continue
        writes.append(PendingWrite(model, digests[mark], prefix_tokens[mark], cache_ttl_seconds[ttl]))
        written_blocks.append(mark)
        if mark > charged_to:
            written_by_ttl[ttl] += prefix_tokens[mark] - prefix_tokens[charged_to]
            charged_to = mark
    read_tokens = prefix_tokens[read_blocks]
    creation_tokens = written_by_ttl["5m"] + written_by_ttl["1h"]
    outcome = CacheOutcome(
        prompt_tokens=prefix_tokens[-1],
        input_tokens=prefix_tokens[-1] - read_tokens - creation_tokens,
        cache_creation_input_tokens=creation_tokens,
        cache_read_input_tokens=read_tokens,
        ephemeral_5m_input_tokens=written_by_ttl["5m"],
        ephemeral_1h_input_tokens=written_by_ttl["1h"],
        read_blocks=read_blocks,
        written_blocks=tuple(written_blocks),
    )
    return outcome, tuple(writes)
