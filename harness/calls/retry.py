"""One retry policy for every provider [C5] [C6] [C13]: each API's client sorts its own errors
(harness/calls/client.py for the Messages API, harness/calls/openai_client.py for OpenAI's wires)
into a `Trouble`, and this module alone decides what to do with it.

    trouble = Trouble(TRANSIENT, "429 rate_limit_error", sentence, retry_after_seconds=7.0)
    result, spent, attempts = await retries.run(attempt, sort)    # `Retries`, a client's base

- *transient* (408, 409, 429, 500 and every other 5xx, 529 overloaded among them, an `error` or
  `overloaded_error` event mid-stream, a timeout, a connection cut or garbled): tried again after
  the wait the server asked for (`retry-after-ms`, else `retry-after` in seconds or as a date,
  capped at `retry_after_max_seconds`), else after a backoff of first·2^(n−1) seconds, capped at
  `backoff_max_seconds`, between half and all of it (the jitter spreads calls that failed
  together); for as long as the caller lets it run (`attempts_max` None), or up to `attempts_max`
  attempts, then `RetriesExhausted`.
- *refused*: `Refused` at once; sending it again gives the same answer.
- *unusable*: `Unusable` at once; no request succeeds until the settings change.

What an attempt cost before it failed (the prompt billed once the response started) counts in
the call's `spent`. Every wait is told to `on_retry` and shown with its countdown [C12]. No SDK
here: the tests drive it with an injected `sleep` and `random`, so no test sleeps for real.
"""

from __future__ import annotations

import email.utils
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from harness.calls.outcomes import Refused, RetriesExhausted, Unusable, Usage

TRANSIENT, REFUSED, UNUSABLE = "transient", "refused", "unusable"
T = TypeVar("T")


@dataclass(frozen=True)
class Retrying:
    """Told to `on_retry` before each wait: for a status line, never for control."""

    attempt: int  # the attempt that failed, from 1
    description: str
    delay_seconds: float


@dataclass(frozen=True)
class Trouble:
    """One failed attempt as its API's client sorted it."""

    kind: str  # TRANSIENT, REFUSED or UNUSABLE
    description: str  # one line on what went wrong, the key hidden
    sentence: str  # the sentence for the user: what failed, where, what to do
    retry_after_seconds: float | None = None  # the wait the server asked for, if it did


class Billed:
    """What an attempt cost so far: set by the attempt when its response starts."""

    __slots__ = ("usage",)

    def __init__(self) -> None:
        self.usage = Usage()


def retry_after_seconds(headers: Mapping[str, str] | Any, now_wall: float) -> float | None:
    """The wait a response's headers ask for: `retry-after-ms`, else `retry-after` (seconds or an
    HTTP date); None when they ask for none."""
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now_wall)


class Retries:
    """The policy, as the base of each API's client, which sets `settings` (harness/calls/
    client.py's ClientSettings), `sleep`, `random`, `monotonic`, `on_retry` and `on_wait`."""

    settings: Any
    sleep: Callable[[float], Awaitable[None]]
    random: Callable[[], float]
    monotonic: Callable[[], float]
    on_retry: Callable[[Retrying], None] | None
    on_wait: Any

    def backoff_seconds(self, failures: int) -> float:
        """Wait after the n-th transient failure in a row: first·2^(n−1), capped, then between half
        and all of it."""
        s = self.settings
        full = min(s.backoff_max_seconds, s.backoff_first_seconds * (2 ** (failures - 1)))
        return full * (0.5 + 0.5 * self.random())

    def delay_seconds(self, trouble: Trouble, failures: int) -> float:
        if trouble.retry_after_seconds is not None:
            return min(trouble.retry_after_seconds, self.settings.retry_after_max_seconds)
        return self.backoff_seconds(failures)

    async def retried(self, attempt: Callable[[Billed], Awaitable[T]],
                      sort: Callable[[BaseException], Trouble | None], url: str) -> tuple[T, Usage, int]:
        """`attempt` until it gives an answer: (its answer, what the failed attempts before it
        cost, how many attempts). An error `sort` gives None for is not the API's (a bug here):
        it propagates as it is."""
        spent = Usage()
        attempts = 0
        while True:
            attempts += 1
            billed = Billed()
            try:
                return await attempt(billed), spent, attempts
            except Exception as error:
                trouble = sort(error)
                if trouble is None:
                    raise
                spent = spent + billed.usage
                if trouble.kind == UNUSABLE:
                    raise Unusable(trouble.sentence) from None
                if trouble.kind == REFUSED:
                    raise Refused(trouble.description, spent, attempts, trouble.sentence) from None
                if self.settings.attempts_max is not None and attempts >= self.settings.attempts_max:
                    raise RetriesExhausted(f"{trouble.sentence} ({attempts} tries)", spent, attempts) from None
                delay = self.delay_seconds(trouble, attempts)
                if self.on_retry is not None:
                    self.on_retry(Retrying(attempts, trouble.description, delay))
                self._waiting(f"{url}: {trouble.description}; trying again", delay)
                try:
                    await self.sleep(delay)
                finally:
                    self._waiting(None)

    def _waiting(self, what: str | None, seconds: float = 0.0) -> None:
        if self.on_wait is not None:
            self.on_wait(what, None if what is None else self.monotonic() + seconds)


__all__ = ["Billed", "REFUSED", "Retries", "Retrying", "TRANSIENT", "Trouble", "UNUSABLE", "retry_after_seconds"]
