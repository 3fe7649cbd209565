"""The model's API, simulated: the local Messages API's rules and replies with no HTTP server.

`SimAPI` is the remote end, one per run (its prompt cache outlives every owner). `SimTransport`
is what the owner's real `Client` (harness/calls/client.py, the real `anthropic` SDK) sends
through instead of a socket: each request is checked by harness/localapi/validation.py's rules
(a request the API would refuse is a 400, counted, and an invariant fails on it), charged by
harness/localapi/cache.py's prompt cache in the simulation's time, and answered as
harness/localapi/server.py's SSE events, or with a fault drawn at the run's rates:

- transport: 429 with retry-after, 500, 529, `overloaded` mid-stream (an `error` event), a stream
  cut mid-token, an event that is not JSON, and silence past the client's deadline;
- hostile replies (a model or a proxy trying to break the chat): huge, empty and whitespace
  replies, a tool loop (tool calls for ever), a refusal, a search for a NUL;
- latency before the response starts, in simulated time.

Replies are deterministic in the run's randomness: a turn's is a short text, a compaction's a
line naming what it summarized.
"""

import asyncio
import json
import random
from dataclasses import dataclass

import httpx2

from harness.calls.models import window_tokens
from harness.localapi.cache import PromptCache
from harness.localapi.catalogue import Catalogue
from harness.localapi.server import error_json, sse, stream_events, usage_json
from harness.localapi.validation import ApiError, block_tokens, cache_marks, check_request, prompt_blocks
from sim.counts import Counts

HUGE_REPLY_CHARS = 70_000  # over two log pieces of 30,000 characters


@dataclass
class ProviderRates:
    """The chance, per request, of each fault or hostile reply; drawn once per run."""

    latency_mean_seconds: float = 0.5
    status_429: float = 0.0
    status_500: float = 0.0
    status_529: float = 0.0
    overloaded_mid_stream: float = 0.0
    stream_cut: float = 0.0
    malformed_event: float = 0.0
    silence: float = 0.0
    huge: float = 0.0
    empty: float = 0.0
    whitespace: float = 0.0
    tool_loop: float = 0.0
    refusal: float = 0.0
    nul_search: float = 0.0
    zoom: float = 0.0
    agent: float = 0.0  # a turn's reply starts a subagent (`agent`), where its tools have it [gist §6]
    tell: float = 0.0  # a turn's reply tells the subagent started last (`tell`) [gist §9]
    asking_read: float = 0.0  # a turn's reply reads a file outside the working directory: it asks [H4]


class Body(httpx2.AsyncByteStream):
    def __init__(self, chunks: list[bytes], cut: bool, pause_seconds: float = 0.0):
        self.chunks = chunks
        self.cut = cut
        self.pause_seconds = pause_seconds

    async def __aiter__(self):
        for chunk in self.chunks:
            yield chunk
        if self.pause_seconds:
            await asyncio.sleep(self.pause_seconds)
        if self.cut:
            raise httpx2.RemoteProtocolError("peer closed connection without sending complete message body")

    async def aclose(self) -> None:
        pass


def is_compaction(body: dict) -> bool:
    return body.get("tool_choice") == {"type": "none"}


def turn_texts(body: dict) -> list[str]:
    """The texts of the messages a turn's request carries: the first user message's last text
    block (its view and state come before it), then every text block of the user messages after
    it (a message joined between tool calls [gist §6])."""
    users = [message for message in body.get("messages", ()) if message.get("role") == "user"]
    texts = []
    for n, message in enumerate(users):
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or ())
        found = [block.get("text", "") for block in blocks if isinstance(block, dict) and block.get("type") == "text"]
        texts += found[-1:] if n == 0 else found
    return texts


def has_tool(body: dict, name: str) -> bool:
    """Whether the request offers the tool (a subagent's tools have no `agent`) [A4]."""
    return any(isinstance(tool, dict) and tool.get("name") == name for tool in body.get("tools") or ())


def last_user_blocks(body: dict) -> list:
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "user":
            content = message["content"]
            return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    return []



def view_bytes(body: dict) -> int | None:
    """The bytes of the view a request opens with, `<chat>\n` to `</chat>`, its lines and their
    newlines as the planner counts them [P1]; None when its first user message holds none."""
    for message in body["messages"]:
        if message["role"] == "user":
            content = message["content"]
            text = content if isinstance(content, str) else "".join(
                block.get("text", "") for block in content if block.get("type") == "text")
            start = text.find("<chat>\n")
            end = text.find("</chat>", start)
            return len(text[start + 7:end].encode("utf-8")) if 0 <= start < end else None
    return None


def turn_of(body: dict) -> tuple[str, int, int] | None:
    """An owner's turn request as (its first message, the messages it sends, the tool results
    among them), or None for a compaction's or a subagent's (which has no `agent` tool). A turn's
    calls send its first message alike, but for its cache marks, and one more reply and result each;
    a retry sends the same."""
    if not any(tool.get("name") == "agent" for tool in body.get("tools", ())):
        return None
    messages = body["messages"]
    results = sum(1 for message in messages if isinstance(message["content"], list)
                  for block in message["content"] if block.get("type") == "tool_result")
    first = messages[0]["content"]
    if isinstance(first, list):  # its cache marks move from call to call [gist §3.3]
        first = [{name: value for name, value in block.items() if name != "cache_control"} for block in first]
    return json.dumps(first, sort_keys=True), len(messages), results

class SimAPI:
    """The remote end of every client of one run."""

    def __init__(self, rng: random.Random, counts: Counts, rates: ProviderRates, clock):
        self.rng = rng
        self.counts = counts
        self.rates = rates
        self.clock = clock  # seconds, the simulation's
        self.cache = PromptCache({}, 1024)
        self.catalogue = Catalogue()
        self.number = 0
        self.refused: list[str] = []  # 400s: a request the real API would refuse
        # each request's kind, bytes, tokens with its max_tokens (as this API counts them), its
        # model's window and its view's bytes: sim/invariants.py `check_requests`
        self.requests: list[dict] = []
        self.quiet = False  # the last phase: no faults, so every promise can be kept
        self.agents: list[str] = []  # the subagents its replies started, oldest first
        self.asked: dict[int, list[str]] = {}  # a read that asks, by its number: its turn's messages' texts

    def draw(self, rate: float) -> bool:
        return not self.quiet and rate > 0 and self.rng.random() < rate

    def listing(self, path: str, query: dict) -> httpx2.Response:
        """`GET /v1/models[/{id}]` as the local API answers it, from the same catalogue."""
        self.counts.add("models listed")
        model_id = path.removeprefix("/v1/models").strip("/")
        if model_id:
            model = self.catalogue.find(model_id)
            if model is None:
                return json_response(404, error_json("not_found_error", f"model: {model_id}", "req_sim_models"))
            return json_response(200, self.catalogue.info(model))
        return json_response(200, self.catalogue.page(query))

    async def answer(self, path: str, headers, raw: bytes) -> httpx2.Response:
        self.number += 1
        request_id = f"req_sim_{self.number:06d}"
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        try:
            if "x-api-key" not in headers and "authorization" not in headers:
                raise ApiError(401, "authentication_error", "x-api-key header is required")
            if not isinstance(body, dict):
                raise ApiError(400, "invalid_request_error", "the body is not a JSON object")
            counting = path.endswith("/count_tokens")
            check_request(body, counting, unknown_models=False)
            blocks = prompt_blocks(body)
            marks = cache_marks(body, blocks)
        except ApiError as error:
            if error.status == 400:
                self.refused.append(error.message)
                self.counts.add("request refused by the API's rules")
            return json_response(error.status, error_json(error.error_type, error.message, request_id))
        if counting:
            return json_response(200, {"input_tokens": sum(block.tokens for block in blocks)})
        kind = "compaction" if is_compaction(body) else "turn"
        self.requests.append({"kind": kind, "bytes": len(raw), "model": body["model"],
                              "tokens": sum(block.tokens for block in blocks) + body["max_tokens"],
                              "window": window_tokens(body), "view_bytes": view_bytes(body),
                              "turn": turn_of(body)})
        rates = self.rates
        await asyncio.sleep(self.rng.expovariate(1 / rates.latency_mean_seconds) if rates.latency_mean_seconds else 0)
        for name, status, error_type in (("status_429", 429, "rate_limit_error"), ("status_500", 500, "api_error"),
                                         ("status_529", 529, "overloaded_error")):
            if self.draw(getattr(rates, name)):
                self.counts.add(f"provider {status}")
                extra = {"retry-after": str(self.rng.choice((1, 5, 30)))} if status == 429 else {}
                return json_response(status, error_json(error_type, "simulated", request_id), extra)
        if self.draw(rates.silence):
            self.counts.add("provider silent past the deadline")
            await asyncio.sleep(3600)
        content, stop_reason = self.reply(body, kind)
        now = self.clock()
        outcome, writes = self.cache.look(body["model"], blocks, marks, now)
        self.cache.commit(writes, now)
        for index, block in enumerate(content):
            if block["type"] == "tool_use" and "id" not in block:
                block["id"] = f"toolu_sim_{self.number:06d}_{index}"
        usage = usage_json(outcome, max(1, sum(block_tokens(block) for block in content)))
        message = {"id": f"msg_sim_{self.number:06d}", "type": "message", "role": "assistant",
                   "model": body["model"], "content": content, "stop_reason": stop_reason,
                   "stop_sequence": None, "usage": usage}
        events = coalesced(stream_events(message, content, usage))
        chunks = [sse(name, json.dumps(data, ensure_ascii=False)) for name, data in events]
        cut = False
        if len(chunks) > 3 and self.draw(rates.overloaded_mid_stream):
            self.counts.add("provider overloaded mid-stream")
            at = self.rng.randrange(1, len(chunks) - 1)
            chunks = chunks[:at] + [sse("error", json.dumps(error_json("overloaded_error", "Overloaded", request_id)))]
        elif len(chunks) > 3 and self.draw(rates.stream_cut):
            self.counts.add("provider stream cut mid-token")
            at = self.rng.randrange(1, len(chunks) - 1)
            piece = chunks[at]
            chunks = chunks[:at] + [piece[:self.rng.randrange(1, len(piece))]]
            cut = True
        elif len(chunks) > 3 and self.draw(rates.malformed_event):
            self.counts.add("provider event not JSON")
            at = self.rng.randrange(1, len(chunks) - 1)
            broken = '{"type": "content_block_delta", "index": 0, "delta": {'
            chunks = chunks[:at] + [sse("content_block_delta", broken)]
        headers_out = {"content-type": "text/event-stream; charset=utf-8", "request-id": request_id}
        return httpx2.Response(200, headers=headers_out, stream=Body(chunks, cut))

    def reply(self, body: dict, kind: str) -> tuple[list, str]:
        rates, rng = self.rates, self.rng
        blocks = last_user_blocks(body)
        if kind == "compaction":
            if self.draw(rates.huge):
                self.counts.add("hostile reply: huge")
                return [{"type": "text", "text": "line " * (HUGE_REPLY_CHARS // 5)}], "end_turn"
            if self.draw(rates.empty):
                self.counts.add("hostile reply: empty")
                return [], "end_turn"
            if self.draw(rates.whitespace):
                self.counts.add("hostile reply: whitespace")
                return [{"type": "text", "text": " \n\t "}], "end_turn"
            said = "".join(block.get("text", "") for block in blocks if block.get("type") == "text")
            return [{"type": "text", "text": f"summary {self.number}: {said[-80:].strip() or 'lines'}"}], "end_turn"
        after_tool = any(block.get("type") == "tool_result" for block in blocks)
        looping = after_tool and any(str(block.get("tool_use_id", "")).startswith("toolu_loop")
                                     for block in blocks if block.get("type") == "tool_result")
        if looping or (not after_tool and self.draw(rates.tool_loop)):
            if not looping:
                self.counts.add("hostile reply: tool loop")
            return [{"type": "tool_use", "name": "date", "input": {"id": 0},
                     "id": f"toolu_loop_{self.number:06d}"}], "tool_use"
        if not after_tool and has_tool(body, "agent") and self.draw(rates.agent):
            self.counts.add("tool call: agent")
            self.agents.append(f"Sim{self.number}")
            return [{"type": "tool_use", "name": "agent",
                     "input": {"name": self.agents[-1], "task": "look through the chat and report"}}], "tool_use"
        if not after_tool and has_tool(body, "agent") and self.draw(rates.asking_read):
            self.counts.add("tool call: a read that asks first")
            self.asked[self.number] = turn_texts(body)
            return [{"type": "tool_use", "name": "read",
                     "input": {"path": f"../outside-{self.number}.txt"}}], "tool_use"
        just_started = after_tool and "Started the subagent" in json.dumps(blocks)
        if (not after_tool or just_started) and self.agents and has_tool(body, "tell") and self.draw(rates.tell):
            self.counts.add("tool call: tell")
            return [{"type": "tool_use", "name": "tell",
                     "input": {"name": self.agents[-1], "message": f"look at message {self.number} too"}}], "tool_use"
        if not after_tool and self.draw(rates.nul_search):
            self.counts.add("hostile reply: a search for a NUL")
            return [{"type": "tool_use", "name": "search", "input": {"query": "\x00"}}], "tool_use"
        if not after_tool and self.draw(rates.zoom):
            self.counts.add("tool call: zoom")
            return [{"type": "tool_use", "name": "zoom", "input": {"first": 0, "n": 1}}], "tool_use"
        if self.draw(rates.huge):
            self.counts.add("hostile reply: huge")
            return [{"type": "text", "text": ("word " * 12 + "\n") * (HUGE_REPLY_CHARS // 61)}], "end_turn"
        if self.draw(rates.empty):
            self.counts.add("hostile reply: empty")
            return [], "end_turn"
        if self.draw(rates.whitespace):
            self.counts.add("hostile reply: whitespace")
            return [{"type": "text", "text": "  \n "}], "end_turn"
        if self.draw(rates.refusal):
            self.counts.add("hostile reply: refusal")
            return [{"type": "text", "text": "I can't help with that."}], "refusal"
        return [{"type": "text", "text": f"reply {self.number} ({rng.randrange(10 ** 6)})"}], "end_turn"


DELTA_CHARS_MAX = 4096


def coalesced(events: list) -> list:
    """The API's events with runs of text deltas of one block joined (up to DELTA_CHARS_MAX
    characters): the same reply in fewer events, as a fast stream delivers it."""
    joined: list = []
    for name, data in events:
        delta = data.get("delta", {}) if name == "content_block_delta" else {}
        if joined and delta.get("type") == "text_delta":
            last_name, last = joined[-1]
            last_delta = last.get("delta", {}) if last_name == "content_block_delta" else {}
            if (last_delta.get("type") == "text_delta" and last["index"] == data["index"]
                    and len(last_delta["text"]) + len(delta["text"]) <= DELTA_CHARS_MAX):
                text = last_delta["text"] + delta["text"]
                joined[-1] = (name, dict(data, delta={"type": "text_delta", "text": text}))
                continue
        joined.append((name, data))
    return joined


def json_response(status: int, payload: dict, headers: dict | None = None) -> httpx2.Response:
    data = json.dumps(payload).encode("utf-8")
    return httpx2.Response(status, headers={"content-type": "application/json", **(headers or {})}, content=data)


class SimTransport(httpx2.AsyncBaseTransport):
    """What the SDK sends through: the request handed to the SimAPI, in this process."""

    def __init__(self, api: SimAPI):
        self.api = api

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        raw = await request.aread()
        if request.method == "GET" and request.url.path.startswith("/v1/models"):
            return self.api.listing(request.url.path, dict(request.url.params))
        response = await self.api.answer(request.url.path, request.headers, raw)
        return response
