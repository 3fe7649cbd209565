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

A Chat Completions stand-in may also be a named local server (`server=`), with that server's own
endpoints beside the OpenAI ones, each refusing fields it does not document (400) [H36]:

- `"llama.cpp"` (llama.cpp's `llama-server`): `GET /v1/models` gives each model's trained window
  only (`meta.n_ctx_train`); `GET /props` the window it runs at (`default_generation_settings.n_ctx`,
  the model's `context_window`); `POST /apply-template` (`messages`, `tools`) the prompt as text,
  `{"prompt"}`; `POST /tokenize` (`content`, `add_special`) its tokens, `{"tokens": [...]}`, a BOS
  token more with `add_special`. So `/tokenize` of `/apply-template`'s prompt with `add_special`
  counts a body's prompt exactly as a completion counts it (its parts, then one BOS token), and a
  completion whose prompt passes `n_ctx` is a 400 `exceed_context_size_error` ("request (N tokens)
  exceeds the available context size (W tokens), try increasing it", with `n_prompt_tokens` and
  `n_ctx`). As a router serves several models, `GET /props?model=ID` gives that model's (its
  `model_alias`), and `/props` alone the first model's.
- `"vllm"`: `GET /v1/models` gives `max_model_len`; `POST /tokenize` (`model`, `messages`, `tools`,
  `add_generation_prompt`, `add_special_tokens`, …, or `prompt`) answers `{"count", "max_model_len",
  "tokens"}`, the count as a completion's.
- `"ollama"`: `GET /v1/models` gives no window; `POST /api/show` (`model`) gives `model_info`'s
  `<architecture>.context_length` (the model's trained window) and, when the model runs at less,
  `num_ctx N` in `parameters` where its Modelfile sets it (`num_ctx_set`); `GET /api/ps` lists the
  loaded models (`loaded`), each with the `context_length` it runs at; a completion past the window
  is not refused (Ollama cuts the prompt silently) and there is no token count.

These endpoints are at the server's root (`http://host:port/props`), not under `/v1`.

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
import urllib.parse
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
    context_window: int  # the window the server runs the model at
    max_output_tokens: int
    efforts: tuple[str, ...] = ()  # `reasoning_effort` / `reasoning.effort`; (): no reasoning field
    # the window the model was trained to (llama.cpp's `n_ctx_train`, Ollama's `context_length`),
    # which a local server may run below; None: the same as context_window
    trained_window: int | None = None
    # Ollama only: whether its Modelfile sets `num_ctx` (else it runs at the server's default,
    # which /api/show does not say), and whether it is loaded (/api/ps lists what is, and at what)
    num_ctx_set: bool = True
    loaded: bool = True

    @property
    def trained(self) -> int:
        return self.trained_window or self.context_window


SERVERS = ("llama.cpp", "vllm", "ollama")
VLLM_TOKENIZE_FIELDS = frozenset({"model", "messages", "tools", "add_generation_prompt", "return_token_strs",
                                  "continue_final_message", "add_special_tokens", "chat_template",
                                  "chat_template_kwargs", "media_io_kwargs", "mm_processor_kwargs"})
VLLM_TOKENIZE_PROMPT_FIELDS = frozenset({"model", "prompt", "add_special_tokens", "return_token_strs"})
LLAMA_TOKENIZE_FIELDS = frozenset({"content", "add_special"})
LLAMA_TEMPLATE_FIELDS = frozenset({"messages", "tools"})
OLLAMA_SHOW_FIELDS = frozenset({"model", "name", "verbose"})


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


def rendered(part: JSON) -> str:
    """A part as llama.cpp's `/apply-template` stand-in writes it: its canonical JSON, padded with
    spaces to a whole number of 4-byte tokens, so that the prompt's tokens are its parts' tokens."""
    text = canonical_json(part).decode("utf-8")
    return text + " " * (-len(canonical_json(part)) % 4)


class LlamaContextError(Exception):
    """llama.cpp's refusal of a prompt past its n_ctx."""

    def __init__(self, tokens: int, window: int) -> None:
        super().__init__(tokens, window)
        self.tokens = tokens
        self.window = window
        self.message = (f"request ({tokens} tokens) exceeds the available context size ({window} tokens), "
                        "try increasing it")


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


def openai_echo(body: JSON) -> Reply:
    """`python -m harness.localapi --api openai-chat` (or openai-responses)'s reply, as the Messages
    stand-in's `echo`: the last user text, quoted back."""
    said = ""
    if isinstance(body.get("messages"), list):
        turns = [message for message in body["messages"] if message.get("role") == "user"]
        content = turns[-1].get("content") if turns else ""
        texts = [content] if isinstance(content, str) else [part.get("text", "") for part in content or []
                                                           if part.get("type") == "text"]
    else:
        items = body.get("input")
        items = [{"role": "user", "content": items}] if isinstance(items, str) else items or []
        turns = [item for item in items if item.get("type", "message") == "message" and item.get("role") == "user"]
        content = turns[-1].get("content") if turns else ""
        texts = [content] if isinstance(content, str) else [part.get("text", "") for part in content or []
                                                           if part.get("type") == "input_text"]
    said = texts[-1] if texts else ""  # a turn's message is its last part, after the view
    return Reply(f"(local API, no model) You said: {said}")


def openai_stop(reply: Reply) -> str:
    """A script's stop reason (the Messages stand-in's words) in this API's: see the docstring."""
    return reply.final_stop_reason()


class OpenAILocalAPI(LocalAPI):
    """A local OpenAI-wire API on 127.0.0.1; `api` is "openai-chat" or "openai-responses"."""

    def __init__(self, api: str = "openai-chat", *, models: tuple[LocalModel, ...] = MODELS,
                 responder: Callable[[JSON], Any] | None = None, server: str | None = None,
                 **options: Any) -> None:
        super().__init__(responder=responder, **options)
        assert api in ("openai-chat", "openai-responses"), api
        assert server is None or (server in SERVERS and api == "openai-chat"), server
        self.api = api
        self.server = server  # a named local server's own endpoints too (the module docstring)
        self.models = {model.id: model for model in models}
        self.prefixes = PrefixCache()
        self._served: list[RecordedRequest] = []

    @property
    def base_url(self) -> str:
        return super().base_url + "/v1"

    @property
    def path(self) -> str:
        return "/v1/chat/completions" if self.api == "openai-chat" else "/v1/responses"

    @property
    def served_requests(self) -> list[RecordedRequest]:
        """The requests to a server's own endpoints (anything outside `/v1/`, answered or a 404),
        apart from `requests`, as the Messages stand-in keeps its model listings apart."""
        with self._lock:
            return list(self._served)

    def _record(self, request: RecordedRequest) -> None:
        if self.recording and not request.path.startswith("/v1/"):
            with self._lock:
                self._served.append(request)
            return
        super()._record(request)

    def reset(self) -> None:
        super().reset()
        with self._lock:
            self.prefixes = PrefixCache()
            self._served = []

    def listed(self, model: LocalModel) -> JSON:
        """A model as this server's `GET /v1/models` gives it."""
        entry: JSON = {"id": model.id, "object": "model", "created": 0}
        if self.server == "llama.cpp":
            return dict(entry, owned_by="llamacpp", meta={"n_ctx_train": model.trained, "n_vocab": 151_936})
        if self.server == "vllm":
            return dict(entry, owned_by="vllm", root=model.id, parent=None, max_model_len=model.context_window)
        if self.server == "ollama":
            return dict(entry, owned_by="library")
        return dict(entry, owned_by="local", context_window=model.context_window,
                    max_output_tokens=model.max_output_tokens)

    def served(self, method: str, path: str, body: Any, query: dict[str, str]) -> JSON:
        """A named local server's own endpoints (the module docstring); ApiError as it refuses."""
        first = next(iter(self.models.values()))
        if (self.server, method, path) == ("llama.cpp", "GET", "/props"):
            named = query.get("model", first.id)  # a router's `?model=`; without it, the first model's
            model = self.models.get(named)
            if model is None:
                raise ApiError(404, "invalid_request_error", f"model '{named}' not found")
            return {"default_generation_settings": {"n_ctx": model.context_window, "params": {}},
                    "total_slots": 1, "model_alias": model.id, "model_path": f"/models/{model.id}.gguf",
                    "build_info": "local stand-in"}
        if (self.server, method, path) == ("ollama", "GET", "/api/ps"):
            return {"models": [{"name": model.id, "model": model.id, "size": 1, "digest": "0" * 64,
                                "details": {"format": "gguf", "family": "qwen3"}, "expires_at": "",
                                "size_vram": 0, "context_length": model.context_window}
                               for model in self.models.values() if model.loaded]}
        if method != "POST" or (self.server, path) not in (("llama.cpp", "/tokenize"), ("llama.cpp", "/apply-template"),
                                                            ("vllm", "/tokenize"), ("ollama", "/api/show")):
            raise ApiError(404, "invalid_request_error", f"Invalid URL ({method} {path})")
        if not isinstance(body, dict):
            raise invalid("We could not parse the JSON body of your request.")
        if self.server == "llama.cpp" and path == "/apply-template":
            unknown = sorted(set(body) - LLAMA_TEMPLATE_FIELDS)
            if unknown or "messages" not in body:
                raise invalid(f"/apply-template takes messages and tools, not {unknown or 'no messages'}")
            parts, _ = check_chat(dict(body, model=first.id), self.models)
            return {"prompt": "".join(rendered(part) for part in parts)}
        if self.server == "llama.cpp":
            unknown = sorted(set(body) - LLAMA_TOKENIZE_FIELDS)
            if unknown or not isinstance(body.get("content"), str) or \
                    not isinstance(body.get("add_special", False), bool):
                raise invalid(f"/tokenize takes content (a string) and add_special (a boolean), not {unknown}")
            count = math.ceil(len(body["content"].encode("utf-8")) / 4) + (1 if body.get("add_special") else 0)
            return {"tokens": list(range(count))}
        if self.server == "vllm":
            fields = VLLM_TOKENIZE_PROMPT_FIELDS if "prompt" in body else VLLM_TOKENIZE_FIELDS
            unknown = sorted(set(body) - fields)
            if unknown:
                raise invalid(f"Extra inputs are not permitted: {unknown[0]}")
            model = self.models.get(body.get("model", first.id))
            if model is None:
                raise ApiError(404, "invalid_request_error", f"The model `{body.get('model')}` does not exist.")
            if "prompt" in body:
                if not isinstance(body["prompt"], str):
                    raise invalid("prompt: Input should be a valid string")
                count = math.ceil(len(body["prompt"].encode("utf-8")) / 4)
            else:
                parts, _ = check_chat({"model": model.id, "messages": body.get("messages"),
                                       **({"tools": body["tools"]} if "tools" in body else {})}, self.models)
                count = sum(part_tokens(part) for part in parts)
            return {"count": count, "max_model_len": model.context_window, "tokens": list(range(count))}
        unknown = sorted(set(body) - OLLAMA_SHOW_FIELDS)
        if unknown:
            raise invalid(f"/api/show takes model, not {unknown[0]}")
        model = self.models.get(body.get("model", body.get("name")))
        if model is None:
            raise ApiError(404, "not_found", f"model '{body.get('model', body.get('name'))}' not found")
        return {"modelfile": f"FROM {model.id}", "template": "{{ .Prompt }}",
                "parameters": f"num_ctx                        {model.context_window}"
                if model.trained_window and model.num_ctx_set else "",
                "details": {"format": "gguf", "family": "qwen3"},
                "model_info": {"general.architecture": "qwen3", "qwen3.context_length": model.trained},
                "capabilities": ["completion", "tools"]}

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
                handler.send_json(200, {"object": "list", "data": [self.listed(model) for model in
                                                                   self.models.values()]}, request_id)
                return
            if self.server is not None and not path.startswith("/v1/"):
                query = dict(urllib.parse.parse_qsl(handler.path.partition("?")[2]))
                answer = self.served(handler.command, path, body, query)
                record(200, path.strip("/"))
                handler.send_json(200, answer, request_id)
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
            prompt_tokens = sum(part_tokens(part) for part in parts)
            if self.server == "llama.cpp":  # its prompt alone against n_ctx, a BOS token with it
                if prompt_tokens + 1 > model.context_window:
                    raise LlamaContextError(prompt_tokens + 1, model.context_window)
            elif self.server != "ollama":  # Ollama cuts a prompt past its window silently
                check_window(prompt_tokens, body.get("max_completion_tokens", body.get("max_tokens",
                                                                                       body.get("max_output_tokens"))),
                             model)
            item = self._take(body)
        except LlamaContextError as error:
            record(400, "invalid")
            handler.send_json(400, {"error": {"code": 400, "message": error.message,
                                              "type": "exceed_context_size_error",
                                              "n_prompt_tokens": error.tokens, "n_ctx": error.window}}, request_id)
            return
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
