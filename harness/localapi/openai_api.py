"""Local stand-ins for OpenAI's Chat Completions and Responses APIs, as strict as the Messages one
(harness/localapi/server.py) and built on it: the same HTTP server, queue, faults, records and clock.

    with OpenAILocalAPI("openai-chat") as api:             # or "openai-responses"
        api.enqueue("Hello.")                              # the Messages stand-in's scripts, as they are
        api.enqueue([tool_use("read", {"path": "a"})])     # becomes a function call on this wire
        client = openai.OpenAI(base_url=api.base_url, api_key="test-key", max_retries=0)
        api.requests[0].body["messages"]; api.requests[0].cache.cache_read_input_tokens

It serves `POST /v1/chat/completions` (API "openai-chat") or `POST /v1/responses`
("openai-responses"), JSON or SSE with `"stream": true`, and `GET /v1/models` (the models it knows,
each with its window). A scripted reply is written in the Messages stand-in's words (text and
tool_use blocks, a stop reason) and goes out in this API's shape: `end_turn` → finish `stop` /
status `completed`; `tool_use` → `tool_calls` / `completed` with function calls; `max_tokens` →
`length` / `incomplete` (`max_output_tokens`); `refusal` → a refusal (`message.refusal` / a
`refusal` part).

Refused as the APIs refuse them (400 `invalid_request_error`, OpenAI's error body
`{"error": {"message", "type", "param", "code"}}`): a body that is not an object; a field the API
does not take, which names Anthropic's (`system`, `cache_control` anywhere, `max_tokens` on
Responses, `input` on Chat, `messages` on Responses); an empty `messages` / `input`; a role the API
has not; a message content part of another API's type; a `tool` message (a `function_call_output`)
that answers no call before it, or a call left unanswered when the next message comes; a call's
`arguments` that are not a string of JSON; tools not `{"type": "function", …}`; `max_tokens` /
`max_output_tokens` not a whole number above 0 or past the model's output cap; a reasoning effort
(`reasoning_effort`, `reasoning.effort`) on a model that does not reason (`unsupported_parameter`)
or one the model does not take (`unsupported_value`); a prompt whose tokens and output cap pass
the model's window (`context_length_exceeded`, "This model's maximum context length is N
tokens"). A model the server does not list is a 404 `model_not_found`; a request without
`Authorization: Bearer` a 401. The Responses stand-in also counts a body's input tokens
(`POST /v1/responses/input_tokens`), as the real one does, free.

Tokens: as the Messages stand-in counts them, ceil(UTF-8 bytes of a part's canonical JSON / 4), over
each tool, then each message's parts (a string content is one text part), in order.

Prompt cache (OpenAI's published rules, automatic): no marks; every prompt of 1,024 tokens or more
is kept, by the model and the request's `prompt_cache_key`, for 5 minutes from its last use; a
request reads the longest prefix, at a part boundary, that an earlier request's response (once it
started) made, rounded down to 128 tokens, and only when at least 1,024; nothing is charged to
write. Usage: `prompt_tokens` (`input_tokens`) whole, of which `prompt_tokens_details.cached_tokens`
(`input_tokens_details.cached_tokens`) were read.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.localapi.cache import CacheOutcome
from harness.localapi.faults import Fault, status_error
from harness.localapi.replies import Reply
from harness.localapi.server import LocalAPI, RecordedRequest, _Handler, pieces, redacted_headers
from harness.localapi.validation import ApiError, canonical_json, invalid

JSON = dict[str, Any]

CACHE_MIN_TOKENS = 1024
CACHE_STEP_TOKENS = 128
CACHE_TTL_SECONDS = 300.0


@dataclass(frozen=True)
class LocalModel:
    id: str
    context_window: int
    max_output_tokens: int
    efforts: tuple[str, ...] = ()  # `reasoning_effort` / `reasoning.effort`; (): no reasoning field


RECENT_EFFORTS = ("none", "low", "medium", "high", "xhigh")
# gpt-5.5's window here is not its page's (1,050,000): a list that disagrees with the table is
# what a test of "the list over the table" needs
MODELS = (LocalModel("gpt-5.5", 400_000, 128_000, RECENT_EFFORTS),
          LocalModel("gpt-5.5-mini", 400_000, 128_000, RECENT_EFFORTS),
          LocalModel("qwen3-coder", 262_144, 65_536))

CHAT_FIELDS = frozenset({"model", "messages", "max_tokens", "max_completion_tokens", "stream", "stream_options",
                         "tools", "tool_choice", "temperature", "top_p", "stop", "n", "seed",
                         "parallel_tool_calls", "response_format", "user", "prompt_cache_key",
                         "reasoning_effort", "frequency_penalty", "presence_penalty", "logprobs", "metadata",
                         "store", "service_tier"})
RESPONSES_FIELDS = frozenset({"model", "input", "instructions", "max_output_tokens", "stream", "store", "tools",
                              "tool_choice", "temperature", "top_p", "parallel_tool_calls", "prompt_cache_key",
                              "reasoning", "text", "metadata", "previous_response_id", "include", "truncation",
                              "service_tier", "user", "prompt_cache_retention", "stream_options"})
# what `POST /v1/responses/input_tokens` takes (the SDK's `responses.input_tokens.count`)
COUNT_FIELDS = frozenset({"model", "input", "instructions", "tools", "tool_choice", "reasoning", "parallel_tool_calls",
                          "conversation", "previous_response_id", "text", "truncation"})
CHAT_ROLES = ("system", "developer", "user", "assistant", "tool")
CHAT_PARTS = {"system": ("text",), "developer": ("text",), "user": ("text", "image_url"),
              "assistant": ("text", "refusal")}
RESPONSES_PARTS = {"system": ("input_text",), "developer": ("input_text",),
                   "user": ("input_text", "input_image"), "assistant": ("output_text", "refusal")}


def error_body(error: ApiError, code: str | None = None, param: str | None = None) -> JSON:
    return {"error": {"message": error.message, "type": error.error_type, "param": param, "code": code}}


def has_anthropic_mark(value: Any) -> bool:
    if isinstance(value, dict):
        return "cache_control" in value or any(has_anthropic_mark(inner) for inner in value.values())
    if isinstance(value, list):
        return any(has_anthropic_mark(inner) for inner in value)
    return False


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_arguments(value: Any, where: str) -> None:
    if not isinstance(value, str):
        raise invalid(f"Invalid type for '{where}': expected a string, but got {type(value).__name__} instead.")
    try:
        json.loads(value)
    except ValueError:
        raise invalid(f"Invalid '{where}': the function's arguments must be a JSON string.") from None


def check_parts(content: Any, allowed: tuple[str, ...], where: str, may_be_empty: bool = False) -> list[JSON]:
    if isinstance(content, str):
        if not content and not may_be_empty:
            raise invalid(f"Invalid '{where}': empty content.")
        return [{"type": allowed[0], "text": content}]
    if content is None and may_be_empty:
        return []
    if not isinstance(content, list) or (not content and not may_be_empty):
        raise invalid(f"Invalid '{where}': expected a string or a non-empty array of content parts.")
    for index, part in enumerate(content):
        if not isinstance(part, dict) or part.get("type") not in allowed:
            kind = part.get("type") if isinstance(part, dict) else type(part).__name__
            raise invalid(f"Invalid value for '{where}[{index}].type': {kind!r}; expected one of "
                          f"{', '.join(allowed)}.")
    return content


def check_chat(body: JSON, models: dict[str, LocalModel]) -> tuple[list[JSON], LocalModel]:
    """The Chat Completions body checked; its parts in the cache's order."""
    unknown = sorted(set(body) - CHAT_FIELDS)
    if unknown:
        raise invalid(f"Unrecognized request argument supplied: {unknown[0]}")
    if has_anthropic_mark(body):
        raise invalid("Unrecognized request argument supplied: cache_control")
    model = model_of(body, models)
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise invalid("Invalid 'messages': empty array. Expected an array with minimum length 1.")
    cap = body.get("max_completion_tokens", body.get("max_tokens"))
    if cap is not None and (not is_int(cap) or cap < 1 or cap > model.max_output_tokens):
        raise invalid(f"Invalid 'max_tokens': must be a whole number from 1 to {model.max_output_tokens}.")
    if "reasoning_effort" in body:
        check_effort(body["reasoning_effort"], model, "reasoning_effort")
    check_functions([tool.get("function") if isinstance(tool, dict) and tool.get("type") == "function" else None
                     for tool in body.get("tools", [])], "tools")
    if "stream_options" in body and not body.get("stream"):
        raise invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.")
    parts: list[JSON] = [{"tool": tool} for tool in body.get("tools", [])]
    awaited: list[str] = []  # the calls of the last assistant message not answered yet
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, dict) or message.get("role") not in CHAT_ROLES:
            raise invalid(f"Invalid value for '{where}.role': expected one of {', '.join(CHAT_ROLES)}.")
        role = message["role"]
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id in awaited:
                awaited.remove(call_id)
            else:
                raise invalid(f"Invalid parameter: messages with role 'tool' must be a response to a preceeding "
                              f"message with 'tool_calls' ({where}.tool_call_id {call_id!r} answers no call).")
            content = check_parts(message.get("content"), ("text",), f"{where}.content", may_be_empty=True)
            parts += [{"role": "tool", "id": call_id, "part": part} for part in content]
            continue
        if awaited:
            raise invalid("An assistant message with 'tool_calls' must be followed by tool messages responding "
                          f"to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                          f"{', '.join(awaited)}")
        content = check_parts(message.get("content"), CHAT_PARTS[role], f"{where}.content",
                              may_be_empty=role == "assistant")
        parts += [{"role": role, "part": part} for part in content]
        if role == "assistant":
            for number, call in enumerate(message.get("tool_calls") or []):
                call_where = f"{where}.tool_calls[{number}]"
                if not isinstance(call, dict) or call.get("type") != "function" or not isinstance(call.get("id"), str):
                    raise invalid(f"Invalid '{call_where}': a call is {{id, type: function, function}}.")
                check_arguments((call.get("function") or {}).get("arguments"), f"{call_where}.function.arguments")
                awaited.append(call["id"])
                parts.append({"role": "assistant", "call": call})
            if not content and not message.get("tool_calls"):
                raise invalid(f"Invalid '{where}': an assistant message needs content or tool_calls.")
    if awaited:
        raise invalid("An assistant message with 'tool_calls' must be followed by tool messages responding to "
                      f"each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                      f"{', '.join(awaited)}")
    return parts, model


def check_functions(functions: list[Any], where: str) -> None:
    for index, function in enumerate(functions):
        if not isinstance(function, dict) or not isinstance(function.get("name"), str) \
                or not isinstance(function.get("parameters", {}), dict):
            raise invalid(f"Invalid '{where}[{index}]': a tool is {{type: function, name, parameters}}.")


def check_responses(body: JSON, models: dict[str, LocalModel]) -> tuple[list[JSON], LocalModel]:
    unknown = sorted(set(body) - RESPONSES_FIELDS)
    if unknown:
        raise invalid(f"Unknown parameter: '{unknown[0]}'.")
    if has_anthropic_mark(body):
        raise invalid("Unknown parameter: 'cache_control'.")
    model = model_of(body, models)
    items = body.get("input")
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    if not isinstance(items, list) or not items:
        raise invalid("Invalid 'input': empty array. Expected an array with minimum length 1.")
    cap = body.get("max_output_tokens")
    if cap is not None and (not is_int(cap) or cap < 16 or cap > model.max_output_tokens):
        raise invalid(f"Invalid 'max_output_tokens': must be a whole number from 16 to {model.max_output_tokens}.")
    if "reasoning" in body:
        reasoning = body["reasoning"]
        if not isinstance(reasoning, dict) or set(reasoning) - {"effort", "summary"}:
            raise invalid("Invalid 'reasoning': expected an object of effort and summary.")
        if "effort" in reasoning:
            check_effort(reasoning["effort"], model, "reasoning.effort")
    tools = body.get("tools", [])
    if any(not isinstance(tool, dict) or tool.get("type") != "function" for tool in tools):
        raise invalid("Invalid 'tools': this server takes function tools only.")
    check_functions(tools, "tools")
    parts: list[JSON] = [{"tool": tool} for tool in tools]
    called: set[str] = set()
    answered: set[str] = set()
    for index, item in enumerate(items):
        where = f"input[{index}]"
        kind = item.get("type", "message") if isinstance(item, dict) else None
        if kind == "message":
            role = item.get("role")
            if role not in RESPONSES_PARTS:
                raise invalid(f"Invalid value for '{where}.role': expected one of {', '.join(RESPONSES_PARTS)}.")
            if called - answered and role != "assistant":
                missing = sorted(called - answered)[0]
                raise invalid(f"No tool output found for function call {missing}.")
            content = check_parts(item.get("content"), RESPONSES_PARTS[role], f"{where}.content")
            parts += [{"role": role, "part": part} for part in content]
        elif kind == "function_call":
            if not isinstance(item.get("call_id"), str) or not isinstance(item.get("name"), str):
                raise invalid(f"Invalid '{where}': a function call has call_id and name.")
            check_arguments(item.get("arguments"), f"{where}.arguments")
            called.add(item["call_id"])
            parts.append({"call": item})
        elif kind == "function_call_output":
            call_id = item.get("call_id")
            if call_id not in called or call_id in answered:
                raise invalid(f"No tool call found for function call output with call_id {call_id}.")
            if not isinstance(item.get("output"), str):
                raise invalid(f"Invalid '{where}.output': expected a string.")
            answered.add(call_id)
            parts.append({"output": item})
        else:
            raise invalid(f"Invalid value for '{where}.type': {kind!r}.")
    if called - answered:
        raise invalid(f"No tool output found for function call {sorted(called - answered)[0]}.")
    return parts, model


def check_effort(effort: Any, model: LocalModel, field: str) -> None:
    """OpenAI's refusals of a reasoning effort: on a model that does not reason, and a value the
    model does not take."""
    if not model.efforts:
        raise ApiError(400, "invalid_request_error",
                       f"Unsupported parameter: '{field}' is not supported with this model.")
    if effort not in model.efforts:
        shown = ", ".join(f"'{level}'" for level in model.efforts[:-1]) + f", and '{model.efforts[-1]}'"
        raise ApiError(400, "invalid_request_error", f"Unsupported value: {effort!r} is not supported with the "
                                                     f"'{model.id}' model. Supported values are: {shown}.")


def check_window(tokens: int, cap: int | None, model: LocalModel) -> None:
    """A prompt and its output cap past the model's window: "This model's maximum context length
    is N tokens" (code `context_length_exceeded`)."""
    if tokens + (cap or 0) > model.context_window:
        raise ApiError(400, "invalid_request_error",
                       f"This model's maximum context length is {model.context_window} tokens. However, you "
                       f"requested {tokens + (cap or 0)} tokens ({tokens} in the messages, {cap or 0} in the "
                       f"completion). Please reduce the length of the messages or completion.")


def model_of(body: JSON, models: dict[str, LocalModel]) -> LocalModel:
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise invalid("you must provide a model parameter")
    if model not in models:
        raise ApiError(404, "invalid_request_error",
                       f"The model `{model}` does not exist or you do not have access to it.")
    return models[model]


def part_tokens(part: JSON) -> int:
    return math.ceil(len(canonical_json(part)) / 4)


@dataclass
class PrefixCache:
    """OpenAI's automatic prefix cache (module docstring): prefix digest → when last used."""

    entries: dict[bytes, float] = field(default_factory=dict)

    def look(self, model: str, key: str | None, parts: list[JSON], now: float) -> tuple[int, int, list[bytes]]:
        """(prompt tokens, cached tokens, the prefixes this request makes)."""
        digest = hashlib.sha256(canonical_json({"model": model, "key": key})).digest()
        tokens = 0
        cached = 0
        made = []
        for part in parts:
            tokens += part_tokens(part)
            digest = hashlib.sha256(digest + canonical_json(part)).digest()
            used = self.entries.get(digest)
            if used is not None and now < used + CACHE_TTL_SECONDS and tokens >= CACHE_MIN_TOKENS:
                cached = tokens - tokens % CACHE_STEP_TOKENS
                self.entries[digest] = now
            if tokens >= CACHE_MIN_TOKENS:
                made.append(digest)
        return tokens, cached, made

    def commit(self, made: list[bytes], now: float) -> None:
        for digest in made:
            self.entries[digest] = now


def openai_stop(reply: Reply) -> str:
    """A script's stop reason (the Messages stand-in's words) in this API's: see the docstring."""
    return reply.final_stop_reason()


class OpenAILocalAPI(LocalAPI):
    """A local OpenAI-wire API on 127.0.0.1; `api` is "openai-chat" or "openai-responses"."""

    def __init__(self, api: str = "openai-chat", *, models: tuple[LocalModel, ...] = MODELS,
                 responder: Callable[[JSON], Any] | None = None, **options: Any) -> None:
        super().__init__(responder=responder, **options)
        assert api in ("openai-chat", "openai-responses"), api
        self.api = api
        self.models = {model.id: model for model in models}
        self.prefixes = PrefixCache()

    @property
    def base_url(self) -> str:
        return super().base_url + "/v1"

    def reset(self) -> None:
        super().reset()
        with self._lock:
            self.prefixes = PrefixCache()

    @property
    def path(self) -> str:
        return "/v1/chat/completions" if self.api == "openai-chat" else "/v1/responses"

    def _handle(self, handler: _Handler) -> None:
        number = self._next_id()
        request_id = f"req_local_{number:06d}"
        now = self.clock.now()
        path = handler.path.split("?", 1)[0]
        headers = {name.lower(): ("<redacted>" if name.lower() in redacted_headers else value)
                   for name, value in handler.headers.items()}
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length) if length else b""
        received = time.perf_counter()
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")

        def record(status: int | None, answer: str, outcome: CacheOutcome | None = None) -> None:
            self._record(RecordedRequest(handler.command, path, headers, body, now, status, answer, outcome,
                                         received))

        code = None
        try:
            if "authorization" not in headers:
                raise ApiError(401, "invalid_request_error", "You didn't provide an API key.")
            if handler.command == "GET" and path == "/v1/models":
                record(200, "models")
                handler.send_json(200, {"object": "list", "data": [
                    {"id": model.id, "object": "model", "created": 0, "owned_by": "local",
                     "context_window": model.context_window, "max_output_tokens": model.max_output_tokens}
                    for model in self.models.values()]}, request_id)
                return
            counting = self.api == "openai-responses" and path == "/v1/responses/input_tokens"
            if handler.command != "POST" or (path != self.path and not counting):
                raise ApiError(404, "invalid_request_error", f"Invalid URL ({handler.command} {path})")
            if not isinstance(body, dict):
                raise invalid("We could not parse the JSON body of your request.")
            if counting:
                unknown = sorted(set(body) - COUNT_FIELDS)
                if unknown:
                    raise invalid(f"Unknown parameter: '{unknown[0]}'.")
                parts, _ = check_responses(dict(body, max_output_tokens=16), self.models)
                record(200, "count")
                handler.send_json(200, {"object": "response.input_tokens",
                                        "input_tokens": sum(part_tokens(part) for part in parts)}, request_id)
                return
            checker = check_chat if self.api == "openai-chat" else check_responses
            parts, model = checker(body, self.models)
            check_window(sum(part_tokens(part) for part in parts),
                         body.get("max_completion_tokens", body.get("max_tokens", body.get("max_output_tokens"))),
                         model)
            item = self._take(body)
        except ApiError as error:
            if error.status == 404 and "model" in error.message:
                code = "model_not_found"
            elif error.message.startswith("This model's maximum context length"):
                code = "context_length_exceeded"
            elif error.message.startswith("Unsupported parameter"):
                code = "unsupported_parameter"
            elif error.message.startswith("Unsupported value"):
                code = "unsupported_value"
            record(error.status, "invalid" if error.status == 400 else "error")
            handler.send_json(error.status, error_body(error, code), request_id)
            return
        except Exception as error:  # a predicate or responder failed: say so, loudly
            record(500, "error")
            handler.send_json(500, error_body(ApiError(500, "server_error", f"The local API failed: {error!r}")),
                              request_id)
            return

        streaming = bool(body.get("stream"))
        if isinstance(item, Fault) and item.kind == "stream_error" and not streaming:
            item = status_error(500, "server_error", item.message)
        if isinstance(item, Fault) and item.reply is None:
            if item.kind == "status":
                record(item.status, "status")
                error = ApiError(item.status, item.error_type, item.message)
                handler.send_json(item.status, error_body(error, item.error_code or None), request_id,
                                  item.headers)
            else:
                self._answer_fault(handler, item, request_id, record)
            return
        reply = item.reply if isinstance(item, Fault) else item
        fault = item if isinstance(item, Fault) else None
        with self._lock:
            tokens, cached, made = self.prefixes.look(body["model"], body.get("prompt_cache_key"), parts, now)
        outcome = CacheOutcome(tokens, tokens - cached, 0, cached, 0, 0, 0, ())
        record(200, "reply" if fault is None else fault.kind, outcome)
        if reply.gate is not None:
            while not reply.gate.wait(0.02):
                if self._stopping.is_set():
                    handler.close_connection = True
                    return
        with self._lock:
            self.prefixes.commit(made, now)
        if self.api == "openai-chat":
            events = chat_events(body, reply, number, tokens, cached)
        else:
            events = responses_events(body, reply, number, tokens, cached)
        if not streaming:
            handler.send_json(200, events[-1][2], request_id)
            return
        handler.start_stream(request_id)
        stop_after = len(events) - 1 if fault is None else min(fault.after_events, len(events) - 1)
        for name, data, _ in events[:stop_after]:
            prefix = f"event: {name}\n" if name else ""
            handler.send_chunk(f"{prefix}data: {json.dumps(data, ensure_ascii=False)}\n\n".encode())
        if fault is None:
            if self.api == "openai-chat":
                handler.send_chunk(b"data: [DONE]\n\n")
            handler.end_stream()
        elif fault.kind == "stream_error":
            error = {"message": fault.message, "type": fault.error_type, "param": None, "code": fault.error_type}
            if self.api == "openai-chat":
                handler.send_chunk(f"data: {json.dumps({'error': error})}\n\n".encode())
            else:
                data = {"type": "error", "code": fault.error_type, "message": fault.message, "param": None,
                        "sequence_number": stop_after}
                handler.send_chunk(f"event: error\ndata: {json.dumps(data)}\n\n".encode())
            handler.end_stream()
        elif fault.kind == "malformed_event":
            handler.send_chunk(b'data: {"id": "chatcmpl", "choices": [\n\n')
            handler.end_stream()
        elif fault.kind == "stream_cut":
            handler.hang_up()


def _calls(reply: Reply, number: int) -> list[JSON]:
    out = []
    for index, block in enumerate(reply.blocks()):
        if block["type"] == "tool_use":
            out.append({"id": block.get("id") or f"call_local_{number:06d}_{index}", "name": block["name"],
                        "arguments": json.dumps(block["input"], ensure_ascii=False)})
    return out


def _text(reply: Reply) -> str:
    return "".join(block["text"] for block in reply.blocks() if block["type"] == "text")


def _output_tokens(reply: Reply) -> int:
    return max(1, sum(part_tokens(block) for block in reply.blocks()))


def chat_events(body: JSON, reply: Reply, number: int, tokens: int, cached: int) -> list[tuple[str, JSON, JSON]]:
    """The stream's chunks (name "", data), the last entry the whole completion (its third item)."""
    stop = openai_stop(reply)
    refused = stop == "refusal"
    finish = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls", "max_tokens": "length",
              "refusal": "stop"}.get(stop, stop)
    text, calls = _text(reply), _calls(reply, number)
    output = _output_tokens(reply)
    usage = {"prompt_tokens": tokens, "completion_tokens": output, "total_tokens": tokens + output,
             "prompt_tokens_details": {"cached_tokens": cached}}
    head = {"id": f"chatcmpl-local-{number:06d}", "object": "chat.completion.chunk", "created": 0,
            "model": body["model"]}

    def chunk(delta: JSON, finish_reason: str | None = None) -> tuple[str, JSON, JSON]:
        return ("", dict(head, choices=[{"index": 0, "delta": delta, "finish_reason": finish_reason}]), {})

    events = [chunk({"role": "assistant", "content": ""})]
    for piece in pieces(text, 24):
        events.append(chunk({"refusal": piece} if refused else {"content": piece}))
    for index, call in enumerate(calls):
        events.append(chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                             "function": {"name": call["name"], "arguments": ""}}]}))
        for piece in pieces(call["arguments"], 16):
            events.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    events.append(chunk({}, finish))
    if body.get("stream_options", {}).get("include_usage"):
        events.append(("", dict(head, choices=[], usage=usage), {}))
    message: JSON = {"role": "assistant", "content": None if refused else (text or None),
                     "refusal": text if refused else None}
    if calls:
        message["tool_calls"] = [{"id": call["id"], "type": "function",
                                  "function": {"name": call["name"], "arguments": call["arguments"]}}
                                 for call in calls]
    whole = {"id": head["id"], "object": "chat.completion", "created": 0, "model": body["model"],
             "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage}
    events.append(("", {}, whole))
    return events


def responses_events(body: JSON, reply: Reply, number: int, tokens: int,
                     cached: int) -> list[tuple[str, JSON, JSON]]:
    stop = openai_stop(reply)
    status, reason = "completed", None
    if stop == "max_tokens":
        status, reason = "incomplete", "max_output_tokens"
    refused = stop == "refusal"
    output = _output_tokens(reply)
    usage = {"input_tokens": tokens, "input_tokens_details": {"cached_tokens": cached, "cache_write_tokens": 0},
             "output_tokens": output, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": tokens + output}
    response_id = f"resp_local_{number:06d}"
    base = {"id": response_id, "object": "response", "created_at": 0, "model": body["model"], "output": [],
            "status": "in_progress", "incomplete_details": None, "error": None, "usage": None,
            "parallel_tool_calls": True, "tool_choice": body.get("tool_choice", "auto"), "tools": []}
    events: list[tuple[str, JSON, JSON]] = []

    def event(kind: str, **data: Any) -> None:
        events.append((kind, dict(data, type=kind, sequence_number=len(events)), {}))

    event("response.created", response=base)
    items: list[JSON] = []
    text = _text(reply)
    if text:
        index = len(items)
        item_id = f"msg_local_{number:06d}"
        part_type = "refusal" if refused else "output_text"
        event("response.output_item.added", output_index=index,
              item={"id": item_id, "type": "message", "role": "assistant", "status": "in_progress", "content": []})
        for piece in pieces(text, 24):
            if refused:
                event("response.refusal.delta", item_id=item_id, output_index=index, content_index=0, delta=piece)
            else:
                event("response.output_text.delta", item_id=item_id, output_index=index, content_index=0,
                      delta=piece, logprobs=[])
        part = {"type": "refusal", "refusal": text} if refused else \
            {"type": "output_text", "text": text, "annotations": []}
        del part_type
        item = {"id": item_id, "type": "message", "role": "assistant", "status": "completed", "content": [part]}
        event("response.output_item.done", output_index=index, item=item)
        items.append(item)
    for call in _calls(reply, number):
        index = len(items)
        item_id = f"fc_local_{number:06d}_{index}"
        added = {"id": item_id, "type": "function_call", "call_id": call["id"], "name": call["name"],
                 "arguments": "", "status": "in_progress"}
        event("response.output_item.added", output_index=index, item=added)
        for piece in pieces(call["arguments"], 16):
            event("response.function_call_arguments.delta", item_id=item_id, output_index=index, delta=piece)
        event("response.function_call_arguments.done", item_id=item_id, output_index=index,
              arguments=call["arguments"], name=call["name"])
        item = dict(added, arguments=call["arguments"], status="completed")
        event("response.output_item.done", output_index=index, item=item)
        items.append(item)
    whole = dict(base, output=items, status=status, usage=usage,
                 incomplete_details={"reason": reason} if reason else None)
    event("response.completed" if status == "completed" else "response.incomplete", response=whole)
    events.append(("", {}, whole))
    return events
