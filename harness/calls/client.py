"""The one module that imports the official `anthropic` SDK: a Messages API body (built by
harness/calls/anthropic.py) streamed, with Ever's own retry policy and the prefix gate [gist §3.3]
[C5] [C6] [C7].

    client = Client(ClientSettings.from_env())
    reply = await client.stream(request)      # a Messages API body; retried while the trouble passes
    reply.text, reply.stop_reason, reply.usage, reply.spent, reply.attempts

Any Anthropic-compatible endpoint works: `ANTHROPIC_BASE_URL` (or `base_url`) points the SDK
there. The API key is never logged, printed or put in an exception: `ClientSettings` hides it from
`repr`, and no message here quotes a header.

**What a failure is** [C5]. Each error of an attempt is one of three:

- *transient*: it may pass by itself. 408, 409, 429, 500 and every other 5xx (529 overloaded
  among them), a timeout (the SDK's, or this attempt's deadline), a connection error, an `error`
  event in the middle of a stream (the SDK raises `APIStatusError` with status 200 and does not
  retry it), a stream cut before its end (httpx2's own errors, which the SDK does not wrap) and an
  event that is not JSON (`json.JSONDecodeError`). `stream` retries these with backoff, honouring
  `retry-after-ms` / `retry-after`, for as long as the caller lets it run (`attempts_max` None)
  or up to `attempts_max` attempts (then `RetriesExhausted`).
- *refused*: the API refused this very request, and sending it again gives the same answer: 400,
  413, 422 and any other 4xx not named here, or an `invalid_request_error` event mid-stream.
  `Refused` is raised at once. A reply that ends with stop reason `refusal` is an answer, not an
  error: it comes back as a `Reply` and is never retried.
- *unusable*: no request of this client can succeed until its settings change: 401 (the key),
  402 (billing), 403 (permission), 404 (the model or the endpoint), a spend limit (a 429 whose
  `error_code` is a spend limit's, or a 400 "You have reached your specified API usage limits")
  and an organization on hold (a 400 `organization_on_hold`). `Unusable` is raised at once; it is
  nobody's content failure.

Every error raised here is one sentence for the user: what failed, the URL it failed at, and what
to do (`failure_sentence`), with the key and any piece of it an error echoes hidden.

The SDK's own retries are off (`max_retries=0`): this module sorts each error and the one policy of
every provider (harness/calls/retry.py) [C13] waits and tries again; the tests drive it with an
injected `sleep` and `random`, so no test sleeps for real.
"""

from __future__ import annotations

import asyncio
import http
import json
import os
import random as random_module
import sys
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx2

# what a call gives back and how it fails: apart, so the request builders need no SDK
from harness.calls.anthropic import prefix_keys
from harness.calls.models import request_problem, window_problem
from harness.calls.outcomes import Refused, Reply, RetriesExhausted, SettingsError, Unusable, Usage  # noqa: F401 (re-exported)
from harness.calls.redaction import redact
from harness.calls.retry import REFUSED, TRANSIENT, UNUSABLE, Billed, Retries, Retrying, Trouble
from harness.calls.retry import retry_after_seconds as header_wait

JSON = dict[str, Any]

UNUSABLE_STATUSES = frozenset({401, 402, 403, 404})
TRANSIENT_STATUSES = frozenset({408, 409, 429})
REFUSED_EVENT_TYPES = frozenset({"invalid_request_error", "request_too_large"})
DEFAULT_BASE_URL = "https://api.anthropic.com"  # the SDK's, when no base URL is set
# [C5] causes that stop every request until the user acts, whatever their status
SPEND_LIMIT_CODES = frozenset({"enforced_spend_limit_reached", "contract_spend_limit_reached",
                               "linked_organization_spend_limit_reached"})
ON_HOLD_CODE = "organization_on_hold"
SPEND_LIMIT_MESSAGE = "You have reached your specified"  # a 400's message, when a limit is set
CACHE_LOOKBACK_BLOCKS = 20  # Anthropic looks back this many block boundaries from a mark
CACHE_TTL_SECONDS = 300.0  # a 5-minute entry [gist §3.3]


def sdk_error(error: BaseException, *names: str) -> bool:
    """Whether `error` is one of the SDK's named errors. The SDK is loaded by the first `Client`
    (about 3,500 modules, seconds of a start), not by this module: a process on another wire, or
    one that calls nothing, never pays for it, and no error can be the SDK's before it is loaded."""
    sdk = sys.modules.get("anthropic")
    return sdk is not None and isinstance(error, tuple(getattr(sdk, name) for name in names))


@dataclass(frozen=True)
class ClientSettings:
    """How to reach the API and how long to try. Times in seconds."""

    api_key: str = field(repr=False)
    base_url: str | None = None  # None: the SDK's default (api.anthropic.com)
    attempt_seconds: float = 600.0  # the deadline of one attempt, from send to the last event
    connect_seconds: float = 10.0
    read_seconds: float = 120.0  # silence allowed between two pieces of a response
    # [C12] no event but pings for this long ends the attempt (the SDK skips pings, so a
    # server that only pings would otherwise hold an attempt for all of attempt_seconds)
    silence_seconds: float = 120.0
    backoff_first_seconds: float = 1.0
    backoff_max_seconds: float = 60.0
    retry_after_max_seconds: float = 600.0  # a server asking for longer gets this much
    attempts_max: int | None = None  # None: retry transient trouble until the caller stops
    # tokens: the context window of a model the capability table does not know (config.toml);
    # None: harness/calls/models.py's default, the smallest window it lists
    context_window: int | None = None
    # a configured Messages API's `NAME/` (harness/calls/providers.py), dropped from the model sent
    model_prefix: str = ""
    # harness/calls/providers.py's Route: the API the owner's World builds a client for; None: this one
    route: Any = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ, **overrides: Any) -> ClientSettings:
        """`ANTHROPIC_API_KEY` and, if set, `ANTHROPIC_BASE_URL`."""
        api_key = environ.get("ANTHROPIC_API_KEY", "").strip()
        if not api_key:
            raise SettingsError("ANTHROPIC_API_KEY is not set: Ever needs an API key to call the model.")
        base_url = environ.get("ANTHROPIC_BASE_URL", "").strip() or None
        return cls(api_key=api_key, base_url=base_url, **overrides)


class Silent(TimeoutError):
    """An attempt that got no event (pings aside) for `silence_seconds` [C12]."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"nothing came for {seconds:g} s")
        self.seconds = seconds


# Told what the client waits for and until when (time.monotonic), and (None, None) when it stops
# waiting: a screen shows it with a countdown [C12].
OnWait = Callable[[str | None, float | None], None]


def describe(error: BaseException) -> str:
    """One line on what went wrong; API errors carry no header (the caller hides any key the
    server's own message echoes)."""
    if sdk_error(error, "APIStatusError"):
        status = error.status_code
        where = "mid-stream" if status == 200 else str(status)
        # a server that is not the API may send a bare status: its name, not "501 error:"
        kind = error.type or (status_phrase(status) if status != 200 else "error")
        message = " ".join(str(error.api_message or "").split())
        return f"{where} {kind}: {message}" if message else f"{where} {kind}"
    if sdk_error(error, "APITimeoutError"):
        return "the request timed out"
    if sdk_error(error, "APIConnectionError"):
        return "the connection failed"
    if isinstance(error, Silent):
        return f"nothing came for {error.seconds:g} s"
    if isinstance(error, TimeoutError):
        return "the attempt passed its deadline"
    if isinstance(error, json.JSONDecodeError):
        return "a stream event was not JSON"
    return f"the stream broke ({type(error).__name__})"


def status_phrase(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "error"


def error_code(error: BaseException) -> str:
    return str(getattr(error, "error_code", None) or "")


def stops_every_request(error: BaseException) -> bool:
    """A spend limit or an organization on hold: no request succeeds until the user acts."""
    message = str(getattr(error, "api_message", None) or "")
    return (error_code(error) in SPEND_LIMIT_CODES or error_code(error) == ON_HOLD_CODE
            or message.startswith(SPEND_LIMIT_MESSAGE))


TOO_LONG_MESSAGES = ("prompt is too long", "input is too long", "request too large")  # the API's words, lower case


def too_long(error: BaseException) -> bool:
    """The API refused the request for its length (a 400 `prompt is too long: 230412 tokens >
    200000 maximum`, or `request_too_large`), not for a setting."""
    message = str(getattr(error, "api_message", None) or getattr(error, "message", "") or "").lower()
    return (getattr(error, "type", None) == "request_too_large"
            or any(message.startswith(words) for words in TOO_LONG_MESSAGES))


def what_to_do(error: BaseException, model: str) -> str:
    """The remedy for an error that retrying does not cure, as the user can carry it out."""
    status = getattr(error, "status_code", 0)
    if error_code(error) == ON_HOLD_CODE:
        return "Anthropic has put the organization on hold; see the Console to appeal"
    if stops_every_request(error) or (sdk_error(error, "APIStatusError") and is_spend_limit(error)):
        return "raise the spend limit on the Console's Billing page, or wait until it resets"
    if status == 401:
        return "check the API key (ANTHROPIC_API_KEY, or the key file in EVER_HOME)"
    if status == 402:
        return "add credit on the Console's Billing page"
    if status == 403:
        return "the key may not do this: check its workspace and permissions in the Console"
    if status == 404:
        return f"check the model name ({model}) and the base URL"
    if status == 413:
        return "the request is too large for this server"
    if too_long(error):
        # the view is within its ceiling, so what passes a window is the message itself, a paste
        return (f"the request is too long for {model}: a message this long does not fit one turn; "
                "keep it in a file and ask about the file, or send it in parts")
    return (f"check the model ({model}) and its settings (model, memory.model, memory.thinking "
            "in config.toml)")


def url_shown(url: str) -> str:
    """`url` without its userinfo (`user:password@`): the URL is named in errors, in waits and in
    `ever memory status`; a password in it never is [H3]."""
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def url_secrets(url: str | None) -> tuple[str, ...]:
    """The userinfo of `url` and its password, hidden like the key in whatever is shown or logged
    (an error from the HTTP library may quote the URL whole) [H3]."""
    userinfo = urllib.parse.urlsplit(url or "").netloc.rpartition("@")[0]
    password = userinfo.partition(":")[2]
    return tuple(secret for secret in (userinfo, urllib.parse.unquote(password), password)
                 if len(secret) >= 4)


def failure_sentence(error: BaseException, kind: str, url: str, model: str) -> str:
    """What failed, where, and what to do, as one sentence without its final stop."""
    description = describe(error)
    if kind == TRANSIENT:
        return f"{url} failed the call to {model} ({description}); it may pass later"
    return f"{url} refused the call to {model} ({description}): {what_to_do(error, model)}"


SPEND_LIMIT_WORDS = ("spend limit", "usage limit", "credit balance", "billing")


def is_spend_limit(error: BaseException) -> bool:
    """A 429 that is a spend limit, not a rate limit: its type is not `rate_limit_error`, or its
    message speaks of spending. Waiting does not lift it, so it is never retried."""
    if error.status_code != 429:
        return False
    message = (getattr(error, "api_message", "") or "").lower()
    return (error.type or "rate_limit_error") != "rate_limit_error" or any(
        word in message for word in SPEND_LIMIT_WORDS)


def classify(error: BaseException) -> str | None:
    """TRANSIENT, REFUSED or UNUSABLE [C5]; None for an error that is not the API's (a bug
    here, which must not be retried or hidden)."""
    if sdk_error(error, "APIStatusError"):
        status = error.status_code
        if status != 200 and stops_every_request(error):
            return UNUSABLE
        if status == 200:
            # an `error` event after the stream began: the SDK does not retry it
            return REFUSED if error.type in REFUSED_EVENT_TYPES else TRANSIENT
        if status in UNUSABLE_STATUSES or is_spend_limit(error):
            return UNUSABLE
        if status in TRANSIENT_STATUSES or status >= 500:
            return TRANSIENT
        return REFUSED
    if sdk_error(error, "APIConnectionError") or isinstance(error, (TimeoutError, json.JSONDecodeError)):
        return TRANSIENT
    # a stream cut or garbled while it is read: the SDK lets httpx2's own error through
    if isinstance(error, (httpx2.TransportError, httpx2.DecodingError)):
        return TRANSIENT
    return None


def retry_after_seconds(error: BaseException, now_wall: float) -> float | None:
    """The wait the server asked for (harness/calls/retry.py reads the headers); None for an
    error mid-stream, which has no headers of its own."""
    response = getattr(error, "response", None)
    if not sdk_error(error, "APIStatusError") or error.status_code == 200 or response is None:
        return None
    return header_wait(response.headers, now_wall)


# ---------------------------------------------------------------- the prefix gate


class _Writer:
    __slots__ = ("keys", "started")

    def __init__(self, keys: frozenset) -> None:
        self.keys = keys
        self.started = asyncio.Event()


class PrefixGate:
    """A call whose marked prefix another call is writing waits until that call's response starts
    [gist §3.3] [C7]: then it reads the entry instead of paying to write it again.

    A mark finds an entry at its own block or up to 20 block boundaries before it, so a call waits
    for any call in flight whose marked prefix lies within that reach of one of its marks and is
    longer than the longest prefix there known to be written. A prefix is known written once the
    response of a call that marked it has started, for 5 minutes from then (each such start renews
    it). A call in flight never waits, so the gate cannot deadlock. Single event loop; no locks.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 ttl_seconds: float = CACHE_TTL_SECONDS) -> None:
        self.clock = clock
        self.ttl_seconds = ttl_seconds
        self.writers: list[_Writer] = []
        self.written: dict[bytes, float] = {}  # key -> when its writer's response started

    def _known(self, key: bytes, now: float) -> bool:
        started = self.written.get(key)
        return started is not None and now - started < self.ttl_seconds

    def _blocking(self, keys: list[bytes], marks: list[int]) -> _Writer | None:
        """A writer in flight that this request should wait for, if any."""
        now = self.clock()
        for mark in marks:
            reach = range(mark, max(mark - CACHE_LOOKBACK_BLOCKS, 1) - 1, -1)
            for boundary in reach:  # longest first
                key = keys[boundary]
                if self._known(key, now):
                    break
                for writer in self.writers:
                    if key in writer.keys:
                        return writer
        return None

    async def enter(self, request: JSON) -> _Writer:
        """Wait for the writers this request should wait for, then become a writer of its marks."""
        keys, marks = prefix_keys(request)
        while True:
            writer = self._blocking(keys, marks)
            if writer is None:
                break
            await writer.started.wait()
        now = self.clock()
        own = _Writer(frozenset(keys[mark] for mark in marks if not self._known(keys[mark], now)))
        self.writers.append(own)
        return own

    def started(self, writer: _Writer) -> None:
        """The writer's response began: its entries are readable now."""
        if writer.started.is_set():
            return
        now = self.clock()
        for key in writer.keys:
            self.written[key] = now
        self.leave(writer)

    def leave(self, writer: _Writer) -> None:
        """The writer's attempt ended, however: whoever waited for it goes on."""
        if writer in self.writers:
            self.writers.remove(writer)
        writer.started.set()

    def idle(self) -> bool:
        return not self.writers


# ---------------------------------------------------------------- the client


Sleep = Callable[[float], Awaitable[None]]


class Client(Retries):
    """Streams Messages API requests through `AsyncAnthropic`; see the module docstring."""

    def __init__(self, settings: ClientSettings, *, sleep: Sleep = asyncio.sleep,
                 random: Callable[[], float] = random_module.random,
                 wall_clock: Callable[[], float] = time.time,
                 gate: PrefixGate | None = None, use_gate: bool = True,
                 on_retry: Callable[[Retrying], None] | None = None,
                 on_wait: OnWait | None = None, monotonic: Callable[[], float] = time.monotonic,
                 transport: httpx2.AsyncBaseTransport | None = None) -> None:
        self.settings = settings
        self.on_wait = on_wait
        self.sleep = sleep
        self.monotonic = monotonic  # the World's clock (harness/owner/world.py): waits and the gate
        self.random = random
        self.wall_clock = wall_clock
        self.gate = (gate if gate is not None else PrefixGate(monotonic)) if use_gate else None
        self.on_retry = on_retry
        timeout = httpx2.Timeout(settings.attempt_seconds, connect=settings.connect_seconds,
                                 read=settings.read_seconds)
        # `transport`: a stand-in for the network (the simulation's, sim/provider.py); the SDK's own
        # HTTP client otherwise
        http_client = None if transport is None else httpx2.AsyncClient(transport=transport, timeout=timeout)
        import anthropic  # here, not at the top: see sdk_error

        self.sdk = anthropic.AsyncAnthropic(api_key=settings.api_key, base_url=settings.base_url,
                                            max_retries=0, timeout=timeout, http_client=http_client)

    async def aclose(self) -> None:
        await self.sdk.close()

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def _counted_tokens(self, request: JSON) -> int | None:
        """The request's input tokens as the API counts them (`count_tokens`), or None when it
        cannot say (an error, a server without the endpoint): then the high count stands."""
        fields = ("model", "messages", "system", "tools", "tool_choice", "thinking")
        try:
            counted = await self.sdk.messages.count_tokens(**{k: v for k, v in request.items() if k in fields})
        except Exception:  # any failure: the bound counted without a call decides
            return None
        tokens = getattr(counted, "input_tokens", None)
        return tokens if isinstance(tokens, int) else None

    async def list_models(self) -> list[JSON]:
        """The Models API's answer (`GET /v1/models`, every page), each model as its JSON, newest
        first; `Unusable` with one sentence when it cannot be had (the key, the endpoint, the
        network), never retried: the table answers meanwhile."""
        try:
            return [info.model_dump(mode="json") async for info in self.sdk.models.list(limit=1000)]
        except Exception as error:
            kind = classify(error)
            if kind is None:
                raise
            secrets = (self.settings.api_key, *url_secrets(self.settings.base_url))
            url = url_shown(self.settings.base_url or DEFAULT_BASE_URL)
            raise Unusable(redact(failure_sentence(error, kind, url, ""), secrets)) from None

    async def stream(self, request: JSON, on_event: Callable[[Any], None] | None = None) -> Reply:
        """Send `request` (a Messages API body, without `stream`) until an answer comes back;
        retry transient trouble; raise `Refused`, `Unusable` or `RetriesExhausted`.

        Cancelling the task that awaits it stops it cleanly: the HTTP response is closed, the gate
        lets the waiters go, and `asyncio.CancelledError` propagates."""
        prefix = self.settings.model_prefix
        if prefix and str(request.get("model", "")).startswith(prefix):
            request = dict(request, model=request["model"][len(prefix):])
        # the capability table and the model's context window: refused without a call
        problem = request_problem(request, self.settings.context_window)
        if problem and window_problem(request, self.settings.context_window) == problem:
            # counted high (a token for every byte), it could pass the window; a long paste of
            # prose is about four bytes a token, so the API's own count (no charge) decides
            counted = await self._counted_tokens(request)
            if counted is not None:
                problem = window_problem(request, self.settings.context_window, counted=counted)
        if problem:
            raise Refused(problem, Usage(), 0)
        secrets = (self.settings.api_key, *url_secrets(self.settings.base_url))
        url = url_shown(self.settings.base_url or DEFAULT_BASE_URL)
        model = request.get("model", "")

        def sort(error: BaseException) -> Trouble | None:
            kind = classify(error)
            if kind is None:
                return None
            sentence = redact(failure_sentence(error, kind, url, model), secrets)
            asked = retry_after_seconds(error, self.wall_clock())
            return Trouble(kind, redact(describe(error), secrets), sentence, asked)

        def attempt(billed: Billed) -> Any:
            return self._attempt(request, billed, on_event)

        message, spent, attempts = await self.retried(attempt, sort, url)
        usage = Usage.of(message.usage)
        content = tuple(block.model_dump(mode="json", exclude_none=True) for block in message.content)
        return Reply(content, message.stop_reason, usage, spent + usage, attempts)

    async def _attempt(self, request: JSON, billed: Billed,
                       on_event: Callable[[Any], None] | None = None) -> Any:
        """One attempt within its deadline; the final message. `billed` learns the prompt's usage
        when the response starts, so an attempt cut later still counts what it cost."""
        writer = await self.gate.enter(request) if self.gate is not None else None
        loop = asyncio.get_running_loop()
        silence_seconds = self.settings.silence_seconds
        url = url_shown(self.settings.base_url or DEFAULT_BASE_URL)
        self._waiting(f"waiting for {url} to answer ({request.get('model', '')})", silence_seconds)
        try:
            async with asyncio.timeout(self.settings.attempt_seconds):
                async with asyncio.timeout(silence_seconds) as silence:
                    async with self.sdk.messages.stream(**request) as stream:
                        async for event in stream:
                            silence.reschedule(loop.time() + silence_seconds)
                            self._waiting(None)  # it answers: the text shows from here
                            if on_event is not None:
                                on_event(event)  # a turn shows the reply as it streams
                            if event.type == "message_start":
                                billed.usage = Usage.of(event.message.usage)
                                if writer is not None:
                                    self.gate.started(writer)
                        return await stream.get_final_message()
        except TimeoutError:
            if silence.expired():
                raise Silent(silence_seconds) from None
            raise
        finally:
            self._waiting(None)
            if writer is not None:
                self.gate.leave(writer)
