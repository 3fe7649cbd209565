"""A local Messages API that answers as Anthropic's does, for tests, the no-key demo and the cost simulator.

It is a real HTTP server (the standard library's `ThreadingHTTPServer`, HTTP/1.1, chunked SSE) that
the official SDK talks to through `base_url=`; nothing in the SDK is mocked, and this module never
imports the SDK. It serves `POST /v1/messages` (JSON, or SSE with `"stream": true`) and
`POST /v1/messages/count_tokens`, validates requests like the API (400 `invalid_request_error`),
answers each request with a scripted reply or a fault, keeps Anthropic's prompt cache [gist §3.3],
and records every request so a test can assert exactly what was sent (`requests` the Messages
API's, `listings` the Models API's). It also serves `GET /v1/models` and `GET /v1/models/{id}` as
the Models API does (harness/localapi/catalogue.py), from the capability table's models and any a
test adds (`LocalAPI(models=[...])`, a model only the API knows, or the API's own figures).

    with LocalAPI() as api:
        api.enqueue("Hello.")                                  # a text reply
        api.enqueue([thinking("Hm.", "sig"), tool_use("read", {"path": "a"})])
        api.enqueue(rate_limited(retry_after_seconds=2))       # a fault, in the same queue
        client = anthropic.Anthropic(base_url=api.base_url, api_key="test-key", max_retries=0)
        ...
        api.requests[0].body["messages"]; api.requests[0].cache.cache_read_input_tokens
        api.clock.advance(301)                                 # the cache's 5 minutes pass

Scripting. Each `POST /v1/messages` takes the first queued item whose `when` predicate accepts its
body (no predicate accepts all); with none, it asks `responder(body)`; with no responder it answers
500 saying so. An item is a `str` (one text block), a list of content blocks (`text`, `thinking`,
`tool_use`), a `Reply` (blocks, stop reason, a gate that holds the response back) or a `Fault`.
`count_tokens` takes nothing from the queue. Requests are recorded on arrival (`requests`,
`wait_for_requests(n)`), so a test can hold replies at a gate until n requests are in; `reset()`
makes a running server as new, so one server can serve a whole test run.

Validation is as strict as the real API, rule by rule (harness/localapi/validation.py; each rule's
test in tests/localapi/test_localapi.py quotes the sentence of Anthropic's documentation it follows): missing
or mistyped `model`, `max_tokens`, `messages`; unknown top-level fields (the fields of SDK 2.14's
request types, plus the sampling ones); a model id the capability table (harness/calls/models.py)
does not know, or one retired (404 `not_found_error`); thinking, effort or sampling the model does
not take; temperature with thinking; budgets; `max_tokens` past the model's output cap; roles;
empty and whitespace-only text blocks; tool_use/tool_result pairing (results first, one per id);
tool names and schemas; images (media type, pixels, count); cache marks (count, shape, lifetimes
in order, none on thinking or empty text); a request over 32 MB (413 `request_too_large`); a
missing key (401) or `anthropic-version` header. A test of another server's model ids asks for
leniency by name: `LocalAPI(unknown_models=True)`.

Token rule. A prompt is the sequence of its blocks in the cache's order: each tool definition, each
system block, then each content block of each message (a `str` system or message content is one
`{"type": "text", "text": …}` block). A block's tokens are ceil(b / 4), where b is the number of
UTF-8 bytes of its canonical JSON: the block without its `cache_control`, serialized with
`json.dumps(block, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`. So a text block of n
ASCII bytes without escapes is `{"text":"…","type":"text"}`, n + 25 bytes, ceil((n + 25) / 4)
tokens. The prompt's size is the sum over its blocks; `count_tokens` answers it. Output tokens are
the same sum over the reply's content blocks as the response shows them, and at least 1. Roles
and the request's `thinking` and `tool_choice` settings count no tokens but are part of the cached
prefix's identity (a message block under other settings is another prefix, as on the API).

Prompt cache (Anthropic's published rules, one workspace):
- Entries are made only at marks: blocks with `cache_control: {"type": "ephemeral"}` (optionally
  `"ttl": "1h"`), and the request's top-level `cache_control`, which marks the last cacheable block
  (thinking blocks and empty text blocks cannot be marked). A top-level mark on a block that has its
  own mark is the same breakpoint. More than 4 marked blocks is a 400.
- An entry is the prefix up to and including its marked block, tools → system → messages; any
  changed byte before the mark is another prefix.
- At each mark on block p (blocks counted from 1 across tools, system and messages) the cache looks
  for a live entry ending at block p, p − 1, …: 20 positions, the mark's own counted, so an entry
  19 blocks back is found and one 20 back is not; a run of consecutive tool_use blocks of one
  message is one position. The longest prefix found over all marks is read.
- Every mark whose prefix has no live entry and is at least the model's minimum length gets an entry
  (prefixes below the minimum are not cached at all). Tokens between the prefix read and the last
  such mark are written; a mark inside the prefix read gets its entry free.
- Entries live `ttl` (5 minutes, or 1 hour) from the start of the request that wrote or last read
  them: a read refreshes the entry it reads. Time is the server's `clock`, which a test advances by hand. An entry is live
  while now < its last write or read + ttl.
- Caches are kept per model; the minimum cacheable prefix is the capability table's per model
  (a test may give its own). Adding or removing an image anywhere in the prompt, or changing
  the thinking, effort or tool_choice settings, breaks the messages' part of the prefix.
- A request's entries become readable by other requests only when its response starts (the JSON
  body, or the SSE `message_start`): requests sent together on one new prefix each pay to write it;
  a request arriving after the writer's response started reads it. Faults that answer before a
  response starts (status errors, timeouts, resets) neither read nor write the cache.
- Usage: `cache_read_input_tokens` (the prefix read), `cache_creation_input_tokens` (written, also
  split by lifetime in `cache_creation`), `input_tokens` (the rest); the three sum to the prompt size.

Faults (enqueued like replies): `rate_limited` (429 with `retry-after` and `retry-after-ms`),
`server_error` (500), `overloaded` (529 `overloaded_error`), `status_error` (any), `timeout` (no
answer for longer than the client waits), `pings` (a stream of `ping` events and nothing else), `connection_reset` (a partial status line, then a TCP
reset), and for streams `stream_error` (an `error` event mid-stream), `stream_cut` (the socket
closes before `message_stop`, without the chunked terminator) and `malformed_event` (an event whose
data is not JSON). A stream fault sent to a non-streaming request becomes its nearest equivalent:
the error's HTTP status, a body cut short, or a body that is not JSON.

The API key is never stored or printed: recorded headers keep `authorization` and `x-api-key` only as
"<redacted>", and the server logs nothing.
"""

from __future__ import annotations

import json
import math
import socket
import struct
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from harness.calls.models import IMAGES, Model
from harness.localapi.cache import CacheOutcome, ManualClock, PendingWrite, PromptCache, WallClock
from harness.localapi.catalogue import Catalogue
from harness.localapi.faults import (
    Fault,
    Item,
    Predicate,
    Responder,
    as_reply_or_fault,
    connection_reset,
    malformed_event,
    overloaded,
    pings,
    rate_limited,
    server_error,
    status_error,
    stream_cut,
    stream_error,
    timeout,
)
from harness.localapi.replies import Reply, text, thinking, tool_use
from harness.localapi.validation import (
    ApiError,
    block_tokens,
    cache_marks,
    check_request,
    content_blocks,
    invalid,
    prompt_blocks,
    signed_by,
)

# The names a test scripts the server with, all from here.
__all__ = ["LocalAPI", "ManualClock", "WallClock", "Reply", "text", "thinking", "tool_use", "Fault",
           "status_error", "rate_limited", "server_error", "overloaded", "timeout", "pings", "connection_reset",
           "stream_error", "stream_cut", "malformed_event", "block_tokens"]

JSON = dict[str, Any]

# The minimum cacheable prefix per model is the capability table's (harness/calls/models.py);
# a test may give its own figures by name prefix, the longest matching prefix winning.
minimum_cacheable_tokens_default = 1024
text_delta_chars = 24
tool_input_pieces = 3
gate_wait_seconds_max = 30.0
redacted_headers = frozenset({"authorization", "x-api-key"})
request_bytes_max = IMAGES.request_bytes_max

# ---------------------------------------------------------------- responses


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it. `headers` have lower-case names, with the values of
    authorization and x-api-key replaced by "<redacted>"; `cache` is None when the request did
    not reach the cache (invalid, a status fault, a timeout, a reset, count_tokens)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    time_seconds: float
    status: int | None          # None when no status line was sent whole (timeout, reset)
    answer: str                 # "reply", "count_tokens", "invalid", or the fault's kind
    cache: CacheOutcome | None
    received_perf_seconds: float = 0.0  # time.perf_counter() once the body was read whole


def usage_json(outcome: CacheOutcome, output_tokens: int) -> JSON:
    return {
        "input_tokens": outcome.input_tokens,
        "cache_creation_input_tokens": outcome.cache_creation_input_tokens,
        "cache_read_input_tokens": outcome.cache_read_input_tokens,
        "cache_creation": {
            "ephemeral_5m_input_tokens": outcome.ephemeral_5m_input_tokens,
            "ephemeral_1h_input_tokens": outcome.ephemeral_1h_input_tokens,
        },
        "output_tokens": output_tokens,
        "service_tier": "standard",
    }


def error_json(error_type: str, message: str, request_id: str, error_code: str = "") -> JSON:
    error: JSON = {"type": error_type, "message": message}
    if error_code:
        error["details"] = {"error_code": error_code}
    return {"type": "error", "error": error, "request_id": request_id}


def pieces(value: str, size: int) -> list[str]:
    return [value[start:start + size] for start in range(0, len(value), size)]


def stream_events(message: JSON, blocks: list[JSON], usage: JSON) -> list[tuple[str, JSON]]:
    """The SSE events of one message, as the API sends them."""
    start_usage = dict(usage, output_tokens=1)
    events: list[tuple[str, JSON]] = [
        ("message_start", {"type": "message_start",
                           "message": dict(message, content=[], stop_reason=None, stop_sequence=None,
                                           usage=start_usage)}),
    ]
    for index, block in enumerate(blocks):
        kind = block["type"]
        if kind == "text":
            opening: JSON = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": piece} for piece in pieces(block["text"], text_delta_chars)]
        elif kind == "thinking":
            opening = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": piece}
                      for piece in pieces(block["thinking"], text_delta_chars)]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif kind == "tool_use":
            opening = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            partial = json.dumps(block["input"], ensure_ascii=False)
            size = max(1, math.ceil(len(partial) / tool_input_pieces))
            # The API opens with an empty piece; clients must accept it.
            deltas = [{"type": "input_json_delta", "partial_json": piece} for piece in [""] + pieces(partial, size)]
        else:
            opening, deltas = block, []
        events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                               "content_block": opening}))
        if index == 0:
            events.append(("ping", {"type": "ping"}))
        events += [("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
                   for delta in deltas]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    if not blocks:
        events.append(("ping", {"type": "ping"}))
    delta_usage = {name: usage[name] for name in
                   ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")}
    events.append(("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                     "usage": delta_usage}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def sse(event: str, data: str) -> bytes:
    return f"event: {event}\ndata: {data}\n\n".encode()


# ---------------------------------------------------------------- HTTP


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # stop() shuts the open connections down itself
    api: LocalAPI

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Mostly a client that left mid-answer; kept for a test to read, never printed.
        self.api._failed(repr(sys.exc_info()[1]))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        # Each response goes out in several writes (headers, body, SSE chunks); without this,
        # Nagle's algorithm holds the later ones for the client's delayed ACK, about 40 ms a call.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.api._connection_opened(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass
        self.server.api._connection_closed(self.connection)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # The server prints nothing: no request line, and never a header.

    def do_POST(self) -> None:
        self.server.api._handle(self)

    def do_GET(self) -> None:
        self.server.api._handle(self)

    # -- writing

    def send_json(self, status: int, payload: JSON, request_id: str,
                  headers: tuple[tuple[str, str], ...] = ()) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", request_id)
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def send_raw_body(self, status: int, data: bytes, declared_length: int, request_id: str) -> None:
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(declared_length))
        self.send_header("request-id", request_id)
        self.end_headers()
        self.wfile.write(data)

    def start_stream(self, request_id: str) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", request_id)
        self.end_headers()

    def send_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode("ascii") + data + b"\r\n")

    def end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")

    def reset(self) -> None:
        """Close with a TCP reset (SO_LINGER 0), not an orderly close."""
        self.close_connection = True
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()

    def hang_up(self) -> None:
        """Close orderly but mid-message (a stream without its terminating chunk)."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class LocalAPI:
    """A local Messages API on 127.0.0.1; see the module docstring.

    `LocalAPI()` is a context manager that starts on a free port in a background thread and stops
    on exit; `base_url` is what the SDK's `base_url=` takes. Every public method is thread-safe.
    """

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0,
                 clock: ManualClock | WallClock | None = None,
                 responder: Responder | None = None,
                 minimum_cacheable_tokens: dict[str, int] | None = None,
                 minimum_cacheable_tokens_default: int = minimum_cacheable_tokens_default,
                 unknown_models: bool = False, models: Iterable[Model] = (),
                 recording: bool = True) -> None:
        self.clock = clock if clock is not None else ManualClock()
        # what `GET /v1/models` lists and what a request's model is checked against: the
        # capability table's models, after `models` (a test's: one only the API knows, or the
        # API's own figures for one the table knows)
        self.catalogue = Catalogue(models)
        self.responder = responder
        # Strict by default, as the real API: a model id the capability table does not know is a
        # 404. A test of a compatible server's own model ids asks for leniency by this name.
        self.unknown_models = unknown_models
        # False: no request is kept (`requests` stays empty), for a server on its own that answers
        # a long run (`python -m harness.localapi`) and that no test reads
        self.recording = recording
        self.cache = PromptCache(
            minimum_cacheable_tokens if minimum_cacheable_tokens is not None else {},
            minimum_cacheable_tokens_default)
        self._host = host
        self._port = port
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._queue: list[tuple[Reply | Fault, Predicate | None]] = []
        self._requests: list[RecordedRequest] = []
        self._listings: list[RecordedRequest] = []  # GET /v1/models: apart, see `listings`
        self._connections: set[socket.socket] = set()
        self._failures: list[str] = []
        self._stopping = threading.Event()
        self._count = 0
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- life

    def start(self) -> LocalAPI:
        self._stopping.clear()
        self._server = _Server((self._host, self._port), _Handler)
        self._server.api = self
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, name="localapi", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._thread.join()
        self._server = None

    def __enter__(self) -> LocalAPI:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def reset(self) -> None:
        """Forget what earlier requests left: the queue, the records, the failures, the cache, the
        responder and the id counter; a manual clock starts again at 0. One server can then serve a
        whole test run, each test starting as if on a new server."""
        with self._lock:
            self._queue.clear()
            self._requests.clear()
            self._listings.clear()
            self._failures.clear()
            self.cache.clear()
            self.responder = None
            self._count = 0
            if isinstance(self.clock, ManualClock):
                self.clock = ManualClock()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the LocalAPI first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    # -- scripting

    def enqueue(self, item: Item, *, when: Predicate | None = None) -> None:
        """Queue a reply or fault for the next `POST /v1/messages` whose body `when` accepts."""
        entry = (as_reply_or_fault(item), when)
        with self._lock:
            self._queue.append(entry)

    @property
    def pending(self) -> int:
        """Scripted items not taken yet."""
        with self._lock:
            return len(self._queue)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def wait_for_requests(self, count: int, timeout_seconds: float = 5.0) -> list[RecordedRequest]:
        """Block until `count` requests have been recorded (they are recorded on arrival, before any
        gate), and return them."""
        with self._arrived:
            if not self._arrived.wait_for(lambda: len(self._requests) >= count, timeout_seconds):
                raise TimeoutError(f"{len(self._requests)} requests arrived, not {count}")
            return list(self._requests)

    # -- serving

    def _connection_opened(self, connection: socket.socket) -> None:
        with self._lock:
            self._connections.add(connection)

    def _connection_closed(self, connection: socket.socket) -> None:
        with self._lock:
            self._connections.discard(connection)

    @property
    def failures(self) -> list[str]:
        """Exceptions raised while answering (a client hanging up mid-answer, or a bug here)."""
        with self._lock:
            return list(self._failures)

    def _failed(self, description: str) -> None:
        with self._lock:
            self._failures.append(description)

    def _next_id(self) -> int:
        with self._lock:
            self._count += 1
            return self._count

    @property
    def listings(self) -> list[RecordedRequest]:
        """The Models API's requests (`GET /v1/models`, `/v1/models/{id}`), in order: apart from
        `requests`, which holds what was sent to the Messages API, so a test of the chat's calls
        counts its calls whether or not the chat asked which models there are."""
        with self._lock:
            return list(self._listings)

    def _record(self, request: RecordedRequest) -> None:
        if not self.recording:
            return
        if request.method == "GET" and request.path.startswith("/v1/models"):
            with self._lock:
                self._listings.append(request)
            return
        with self._arrived:
            self._requests.append(request)
            self._arrived.notify_all()

    def _take(self, body: JSON) -> Reply | Fault:
        with self._lock:
            for position, (item, when) in enumerate(self._queue):
                if when is None or when(body):
                    del self._queue[position]
                    return item
            responder = self.responder
        if responder is None:
            raise ApiError(500, "api_error",
                           "The local API has no scripted reply for this request: enqueue one or set a responder.")
        return as_reply_or_fault(responder(body))

    def _handle(self, handler: _Handler) -> None:
        path = handler.path.split("?", 1)[0]
        if handler.command == "GET" and (path == "/v1/models" or path.startswith("/v1/models/")):
            self._handle_listing(handler, path)
            return
        number = self._next_id()
        request_id = f"req_local_{number:06d}"
        now = self.clock.now()
        headers = {name.lower(): ("<redacted>" if name.lower() in redacted_headers else value)
                   for name, value in handler.headers.items()}
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length) if length else b""
        too_large = length > request_bytes_max
        received = time.perf_counter()
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")

        def record(status: int | None, answer: str, outcome: CacheOutcome | None = None) -> None:
            self._record(RecordedRequest(handler.command, path, headers, body, now, status, answer, outcome,
                                         received))

        try:
            if handler.command != "POST" or path not in ("/v1/messages", "/v1/messages/count_tokens"):
                raise ApiError(404, "not_found_error", f"Not found: {handler.command} {path}")
            if "x-api-key" not in headers and "authorization" not in headers:
                raise ApiError(401, "authentication_error", "x-api-key header is required")
            if "anthropic-version" not in headers:
                raise invalid("anthropic-version: header is required")
            if too_large:  # errors: "The maximum request size is 32 MB for standard API endpoints"
                raise ApiError(413, "request_too_large", "Request exceeds the maximum allowed number of bytes.")
            if not isinstance(body, dict):
                raise invalid("There was an issue with your request body: it is not a JSON object")
            counting = path == "/v1/messages/count_tokens"
            check_request(body, counting, unknown_models=self.unknown_models, catalogue=self.catalogue)
            blocks = prompt_blocks(body)
            marks = cache_marks(body, blocks)
            if counting:
                record(200, "count_tokens")
                handler.send_json(200, {"input_tokens": sum(block.tokens for block in blocks)}, request_id)
                return
            item = self._take(body)
        except ApiError as error:
            record(error.status, "invalid" if error.status == 400 else "error")
            handler.send_json(error.status, error_json(error.error_type, error.message, request_id), request_id)
            return
        except Exception as error:  # a predicate or responder failed: say so, loudly
            record(500, "error")
            handler.send_json(500, error_json("api_error", f"The local API failed: {error!r}", request_id),
                              request_id)
            return

        streaming = bool(body.get("stream"))
        if isinstance(item, Fault) and item.kind == "stream_error" and not streaming:
            # Without a stream the API says the same error with its status, before any response.
            item = status_error(error_status(item.error_type), item.error_type, item.message)
        if isinstance(item, Fault) and item.reply is None:
            self._answer_fault(handler, item, request_id, record)
            return

        reply = item.reply if isinstance(item, Fault) else item
        fault = item if isinstance(item, Fault) else None
        with self._lock:
            outcome, writes = self.cache.look(body["model"], blocks, marks, now)
        record(200, "reply" if fault is None else fault.kind, outcome)
        self._answer(handler, body, reply, fault, outcome, writes, number, request_id, now)

    def _handle_listing(self, handler: _Handler, path: str) -> None:
        """`GET /v1/models[/{id}]`: answered from the catalogue, recorded in `listings`; it
        takes nothing from the queue and no message id."""
        with self._lock:
            request_id = f"req_local_models_{len(self._listings) + 1:06d}"
        headers = {name.lower(): ("<redacted>" if name.lower() in redacted_headers else value)
                   for name, value in handler.headers.items()}
        now = self.clock.now()

        def record(status: int, answer: str) -> None:
            self._record(RecordedRequest("GET", path, headers, None, now, status, answer, None,
                                         time.perf_counter()))

        try:
            if "x-api-key" not in headers and "authorization" not in headers:
                raise ApiError(401, "authentication_error", "x-api-key header is required")
            if "anthropic-version" not in headers:
                raise invalid("anthropic-version: header is required")
            answer = self._models_answer(path, handler.path)
        except ApiError as error:
            record(error.status, "invalid" if error.status == 400 else "error")
            handler.send_json(error.status, error_json(error.error_type, error.message, request_id), request_id)
            return
        record(200, "models")
        handler.send_json(200, answer, request_id)

    def _models_answer(self, path: str, full_path: str) -> JSON:
        """`GET /v1/models` (a page) or `GET /v1/models/{id}` (one), as the Models API answers."""
        if path != "/v1/models":
            model_id = urllib.parse.unquote(path[len("/v1/models/"):])
            model = self.catalogue.find(model_id)
            if model is None:
                raise ApiError(404, "not_found_error", f"model: {model_id}")
            return self.catalogue.info(model)
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(full_path).query))
        try:
            return self.catalogue.page(query)
        except ValueError as error:
            raise invalid(str(error)) from None

    def _answer_fault(self, handler: _Handler, fault: Fault, request_id: str,
                      record: Callable[..., None]) -> None:
        if fault.kind == "status":
            record(fault.status, "status")
            handler.send_json(fault.status, error_json(fault.error_type, fault.message, request_id,
                                                       fault.error_code),
                              request_id, fault.headers)
        elif fault.kind == "timeout":
            record(None, "timeout")
            self._stopping.wait(fault.delay_seconds)
            handler.close_connection = True
        elif fault.kind == "pings":
            record(200, "pings")
            handler.start_stream(request_id)
            deadline = time.monotonic() + fault.delay_seconds
            while not self._stopping.wait(fault.interval_seconds) and time.monotonic() < deadline:
                try:
                    handler.send_chunk(sse("ping", '{"type": "ping"}'))
                except OSError:  # the client gave up and closed the connection
                    break
            handler.hang_up()
        elif fault.kind == "reset":
            record(None, "reset")
            handler.wfile.write(b"HTTP/1.1 200")
            handler.reset()
        else:
            raise ValueError(f"unknown fault kind {fault.kind!r}")

    def _answer(self, handler: _Handler, body: JSON, reply: Reply, fault: Fault | None,
                outcome: CacheOutcome, writes: tuple[PendingWrite, ...], number: int,
                request_id: str, started: float) -> None:
        blocks = shaped(reply.blocks(), body, self.catalogue.find(body["model"]))
        for index, block in enumerate(blocks):
            if block["type"] == "tool_use" and "id" not in block:
                block["id"] = f"toolu_local_{number:06d}_{index}"
        output_tokens = max(1, sum(block_tokens(block) for block in blocks))
        usage = usage_json(outcome, output_tokens)
        message = {"id": f"msg_local_{number:06d}", "type": "message", "role": "assistant",
                   "model": body["model"], "content": blocks, "stop_reason": reply.final_stop_reason(),
                   "stop_sequence": None, "usage": usage}

        if reply.gate is not None:
            deadline = time.monotonic() + gate_wait_seconds_max
            while not reply.gate.wait(0.02):
                if self._stopping.is_set() or time.monotonic() > deadline:
                    handler.close_connection = True
                    return
        # The response starts now: from here on other requests read what this one writes. The
        # entry's life runs from the start of the request that wrote it (prompt-caching).
        with self._lock:
            self.cache.commit(writes, started)

        if not body.get("stream"):
            self._answer_whole(handler, message, fault, request_id)
            return
        handler.start_stream(request_id)
        events = stream_events(message, blocks, usage)
        stop_after = len(events) if fault is None else min(fault.after_events, len(events))
        for name, data in events[:stop_after]:
            handler.send_chunk(sse(name, json.dumps(data, ensure_ascii=False)))
        if fault is None:
            handler.end_stream()
        elif fault.kind == "stream_error":
            handler.send_chunk(sse("error", json.dumps(error_json(fault.error_type, fault.message, request_id))))
            handler.end_stream()
        elif fault.kind == "malformed_event":
            handler.send_chunk(sse("content_block_delta", '{"type": "content_block_delta", "index": 0, "delta": {'))
            handler.end_stream()
        elif fault.kind == "stream_cut":
            handler.hang_up()

    def _answer_whole(self, handler: _Handler, message: JSON, fault: Fault | None, request_id: str) -> None:
        if fault is None:
            handler.send_json(200, message, request_id)
        elif fault.kind == "malformed_event":
            data = b'{"id": "' + message["id"].encode("ascii") + b'", "content": ['
            handler.send_raw_body(200, data, len(data), request_id)
        elif fault.kind == "stream_cut":
            data = json.dumps(message).encode("utf-8")
            handler.send_raw_body(200, data[:len(data) // 2], len(data), request_id)
            handler.hang_up()


def shaped(blocks: list[JSON], body: JSON, model: Model | None) -> list[JSON]:
    """A reply's blocks as the model gives them: a thinking block signed for its model; on the
    models whose text between tool calls comes back as thinking (whats-new-opus-5-5: "text
    between tool calls comes back in thinking blocks whose text is empty at the default display
    setting"), each text block before a tool call made a thinking block, and every thinking
    block's text empty unless `thinking.display` is "summarized" (or the thinking is
    between_tools, whose progress notes "still come back as thinking blocks, with their summary
    text", whats-new-sonnet-5-5)."""
    model_id = body["model"]
    for block in blocks:
        if block["type"] == "thinking" and block.get("signature") == "local-signature":
            block["signature"] = signed_by(model_id)
    if model is None or not model.display_omitted:
        return blocks
    setting = body.get("thinking") if isinstance(body.get("thinking"), dict) else {}
    shown = setting.get("display") == "summarized" or setting.get("type") == "between_tools"
    last_tool = max((index for index, block in enumerate(blocks) if block["type"] == "tool_use"), default=-1)
    result = []
    for index, block in enumerate(blocks):
        if block["type"] == "text" and index < last_tool:
            block = {"type": "thinking", "thinking": block["text"], "signature": signed_by(model_id)}
        if block["type"] == "thinking" and not shown:
            block = {**block, "thinking": ""}
        result.append(block)
    return result


error_statuses = {"invalid_request_error": 400, "authentication_error": 401, "permission_error": 403,
                  "not_found_error": 404, "request_too_large": 413, "rate_limit_error": 429,
                  "api_error": 500, "overloaded_error": 529}


def error_status(error_type: str) -> int:
    return error_statuses.get(error_type, 500)


# ---------------------------------------------------------------- demo


def echo(body: JSON) -> Reply:
    """The demo's reply: the last user text, quoted back."""
    said = ""
    for message in reversed(body["messages"]):
        if message["role"] == "user":
            blocks = content_blocks(message["content"], "messages")
            texts = [block["text"] for block in blocks if block["type"] == "text"]
            said = texts[-1] if texts else ""  # a turn's message is its last block, after the view
            break
    return Reply(f"(local API, no model) You said: {said}")
