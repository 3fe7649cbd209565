"""Faults for the local Messages API, queued like replies: status errors, timeouts, resets, broken streams."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Union

from harness.localapi.replies import Reply

JSON = dict[str, Any]


@dataclass(frozen=True)
class Fault:
    """A failure the server produces on demand; build one with the functions below."""

    kind: str  # status | timeout | pings | reset | stream_error | stream_cut | malformed_event
    status: int = 0
    error_type: str = ""
    message: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    delay_seconds: float = 0.0
    after_events: int = 0
    reply: Reply | None = None
    interval_seconds: float = 0.0  # between two pings
    error_code: str = ""  # the body's `error.details.error_code`, as the API names a cause


def status_error(status: int, error_type: str, message: str,
                 headers: tuple[tuple[str, str], ...] = (), error_code: str = "") -> Fault:
    """Any error status with the API's error body; `error_code` adds `details.error_code`
    (`enforced_spend_limit_reached` on a 429, `organization_on_hold` on a 400)."""
    return Fault("status", status=status, error_type=error_type, message=message, headers=headers,
                 error_code=error_code)


def rate_limited(retry_after_seconds: float = 1.0) -> Fault:
    """429 rate_limit_error; `retry-after` in whole seconds (rounded up) and `retry-after-ms`."""
    headers = (("retry-after", str(math.ceil(retry_after_seconds))),
               ("retry-after-ms", str(round(retry_after_seconds * 1000))))
    return status_error(429, "rate_limit_error", "Number of requests has exceeded your rate limit.",
                        headers)


def server_error() -> Fault:
    """500 api_error."""
    return status_error(500, "api_error", "Internal server error")


def overloaded() -> Fault:
    """529 overloaded_error."""
    return status_error(529, "overloaded_error", "Overloaded")


def timeout(delay_seconds: float = 30.0) -> Fault:
    """Say nothing for `delay_seconds` (cut short when the server stops), then close."""
    return Fault("timeout", delay_seconds=delay_seconds)


def pings(delay_seconds: float = 30.0, interval_seconds: float = 0.5) -> Fault:
    """Start a stream and send only `ping` events, one every `interval_seconds`, for `delay_seconds`
    (cut short when the server stops), then close: a server alive but never answering."""
    return Fault("pings", delay_seconds=delay_seconds, interval_seconds=interval_seconds)


def connection_reset() -> Fault:
    """Send part of a status line, then reset the TCP connection."""
    return Fault("reset")


default_fault_reply = Reply("This reply is cut off before its end, mid-sentence and mid-stream.")


def stream_error(after_events: int = 4, error_type: str = "overloaded_error",
                 message: str = "Overloaded", reply: Reply | None = None) -> Fault:
    """Stream `after_events` events of `reply`, then an `error` event, then end the stream."""
    return Fault("stream_error", error_type=error_type, message=message, after_events=after_events,
                 reply=reply or default_fault_reply)


def stream_cut(after_events: int = 4, reply: Reply | None = None) -> Fault:
    """Stream `after_events` events of `reply`, then close the socket without message_stop."""
    return Fault("stream_cut", after_events=after_events, reply=reply or default_fault_reply)


def malformed_event(after_events: int = 4, reply: Reply | None = None) -> Fault:
    """Stream `after_events` events of `reply`, then an event whose data is not JSON."""
    return Fault("malformed_event", after_events=after_events, reply=reply or default_fault_reply)


Item = Union[str, list, Reply, Fault]
Predicate = Callable[[JSON], bool]
Responder = Callable[[JSON], Item]


def as_reply_or_fault(item: Item) -> Reply | Fault:
    if isinstance(item, (Reply, Fault)):
        return item
    if isinstance(item, (str, list)):
        return Reply(item)
    raise TypeError(f"a scripted item is a str, a list of blocks, a Reply or a Fault, not {item!r}")
