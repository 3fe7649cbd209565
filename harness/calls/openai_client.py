"""The one module that imports the official `openai` SDK: OpenAI's Responses API and any
OpenAI-compatible server's Chat Completions (Ollama, llama.cpp's `llama-server`, vLLM, LM Studio)
as providers of the seam (harness/calls/provider.py) [H14] [H26].

    provider = OpenAIProvider(settings, api="openai-chat", name="local")
    request = provider.request(call)           # harness/calls/openai.py's body, the model's name bare
    reply = await provider.stream(request, on_event)   # retried as harness/calls/client.py retries

Errors are sorted as the Messages client sorts them [C5], from this API's: 408, 409, 429 and
5xx, a timeout, a connection error, a stream cut or garbled, and an `error` event mid-stream are
transient; 401, 402, 403 and 404 (the key, billing, permission, the model or the URL) and a 429
whose code is `insufficient_quota` are unusable; any other 4xx is refused. What is done with each
is the one policy of every provider (harness/calls/retry.py) [C13]; the SDK's own retries are off.
Each error is one sentence naming the URL, with the key hidden. No prefix gate: OpenAI charges
nothing extra to write its cache, so calls on one new prefix need not wait for each other [H27].
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import random as random_module
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from typing import Any

import httpx2
import openai

from harness.calls.client import ClientSettings, OnWait, Silent, status_phrase, url_secrets, url_shown
from harness.calls.models import effort_problem, effort_sent, provider_model, window_problem
from harness.calls.openai import COUNTED_FIELDS, ChatStream, ResponsesStream, chat_body, effort_of, responses_body
from harness.calls.outcomes import Refused, Reply, Unusable, Usage
from harness.calls.provider import Call, OnStreamed, Streamed
from harness.calls.providers import provider_key
from harness.calls.redaction import redact
from harness.calls.retry import REFUSED, TRANSIENT, UNUSABLE, Billed, Retries, Retrying, Trouble
from harness.calls.retry import retry_after_seconds as header_wait

JSON = dict[str, Any]
DEFAULT_BASE_URL = "https://api.openai.com/v1"  # the SDK's, when no base URL is set
QUOTA_CODES = frozenset({"insufficient_quota", "billing_hard_limit_reached"})
SERVED_SECONDS = 5.0  # a local server's own endpoint answers within this, or is taken to have none
SHOWN_MAX = 16  # Ollama's /api/show asked of at most this many of its models at a start
CONTEXT_CODES = frozenset({"context_length_exceeded", "exceed_context_size_error"})  # OpenAI's, llama.cpp's
Sleep = Callable[[float], Awaitable[None]]


def classify(error: BaseException) -> str | None:
    """TRANSIENT, REFUSED or UNUSABLE; None for an error that is not the API's (a bug)."""
    if isinstance(error, openai.APIStatusError):
        status = error.status_code
        if (error.code or "") in QUOTA_CODES or status in (401, 402, 403, 404):
            return UNUSABLE
        if status in (408, 409, 429) or status >= 500:
            return TRANSIENT
        return REFUSED
    if isinstance(error, openai.APIError) and not isinstance(error, openai.APIConnectionError):
        return TRANSIENT  # an `error` event mid-stream, which the SDK raises without a status
    if isinstance(error, (openai.APIConnectionError, TimeoutError, json.JSONDecodeError,
                          httpx2.TransportError, httpx2.DecodingError)):
        return TRANSIENT
    return None


def describe(error: BaseException) -> str:
    if isinstance(error, openai.APIStatusError):
        code = error.code if isinstance(error.code, str) else None  # llama.cpp's is its status, a number
        kind = code or error.type or status_phrase(error.status_code)
        message = " ".join(str(getattr(error, "message", "") or "").split())
        if error.code == "context_length_exceeded":  # its first sentence, which names the window
            message = message.split(" - ", 1)[-1].split(". ", 1)[0]
        return f"{error.status_code} {kind}: {message}" if message else f"{error.status_code} {kind}"
    if isinstance(error, openai.APITimeoutError):
        return "the request timed out"
    if isinstance(error, openai.APIConnectionError):
        return "the connection failed"
    if isinstance(error, openai.APIError):
        return f"mid-stream {error.code or error.type or 'error'}: {' '.join(str(error.message).split())}"
    if isinstance(error, Silent):
        return f"nothing came for {error.seconds:g} s"
    if isinstance(error, TimeoutError):
        return "the attempt passed its deadline"
    if isinstance(error, json.JSONDecodeError):
        return "a stream event was not JSON"
    return f"the stream broke ({type(error).__name__})"


LLAMA_PROPS = "llama.cpp's /props n_ctx"


def props_window(props: Any) -> int | None:
    """llama.cpp's `/props` answer's `default_generation_settings.n_ctx`, or None."""
    settings = props.get("default_generation_settings") if isinstance(props, dict) else None
    n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
    return n_ctx if isinstance(n_ctx, int) and not isinstance(n_ctx, bool) and n_ctx > 0 else None


def props_names(props: JSON, model_id: str) -> bool:
    """Whether a `/props` answer is the model's own: its alias, or its file's name, is the id."""
    path = str(props.get("model_path") or "")
    stem = path.rsplit("/", 1)[-1].removesuffix(".gguf")
    return model_id in (props.get("model_alias"), path, stem)


def ollama_loaded(running: Any) -> dict[str, tuple[int, str]]:
    """Ollama's `/api/ps` answer: each loaded model's `context_length`, the window it runs at."""
    models = running.get("models") if isinstance(running, dict) else None
    found: dict[str, tuple[int, str]] = {}
    for entry in models if isinstance(models, list) else ():
        if not isinstance(entry, dict):
            continue
        length = entry.get("context_length")
        if isinstance(length, int) and not isinstance(length, bool) and length > 0:
            for name in {entry.get("model"), entry.get("name")} - {None}:
                found[str(name)] = (length, "Ollama's /api/ps context_length")
    return found


def ollama_window(show: Any) -> tuple[int, str] | None:
    """The window Ollama's `/api/show` answer gives: `num_ctx` in its `parameters` (what the model
    runs at, where its Modelfile sets it), else `model_info`'s `<architecture>.context_length`."""
    if not isinstance(show, dict):
        return None
    for line in str(show.get("parameters") or "").splitlines():
        name, _, value = line.strip().partition(" ")
        if name == "num_ctx" and value.strip().isdigit() and int(value) > 0:
            return int(value), "Ollama's /api/show num_ctx"
    info = show.get("model_info")
    if isinstance(info, dict):
        architecture = info.get("general.architecture")
        length = info.get(f"{architecture}.context_length")
        if isinstance(length, int) and not isinstance(length, bool) and length > 0:
            return length, (f"Ollama's /api/show {architecture}.context_length, the trained length: not loaded, "
                            "so the context Ollama runs it at is unknown and may be less")
    return None


def what_to_do(error: BaseException, model: str, key_env: str | None) -> str:
    status = getattr(error, "status_code", 0)
    if (getattr(error, "code", None) or "") in QUOTA_CODES:
        return "add credit or raise the limit on the provider's billing page"
    if status == 401:
        return f"check the API key ({key_env or 'the provider needs one: set key_env'})"
    if status == 403:
        return "the key may not do this: check its project and permissions"
    if status == 404:
        return f"check the model name ({model}) and the base URL"
    if getattr(error, "code", None) in CONTEXT_CODES or getattr(error, "type", None) in CONTEXT_CODES:
        return ("choose a model with a larger window, or run this one at a larger one (the chat's view alone is "
                "up to 128 KB), and set context_window in config.toml to what it runs at")
    return f"check the model ({model}) and its settings in config.toml"


class OpenAIProvider(Retries):
    """One OpenAI-wire provider: `api` "openai-chat" or "openai-responses"; `name` is the
    provider's name, the `NAME/` a model name carries."""

    gate = None

    def __init__(self, settings: ClientSettings, *, api: str, name: str, key_env: str | None = None,
                 sleep: Sleep = asyncio.sleep, random: Callable[[], float] = random_module.random,
                 wall_clock: Callable[[], float] = time.time,
                 on_retry: Callable[[Retrying], None] | None = None, on_wait: OnWait | None = None,
                 window: int | None = None, gate: Any = None,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.monotonic = monotonic
        self.api = api
        self.name = name
        self.key_env = key_env
        self.sleep = sleep
        self.random = random
        self.wall_clock = wall_clock
        self.on_retry = on_retry
        self.on_wait = on_wait
        self.window = window
        self.counter: str | None = None  # [H36] "llama.cpp" or "vllm": the token count its server offers
        self._http: Any = None  # for a local server's own endpoints, made when first asked
        timeout = httpx2.Timeout(settings.attempt_seconds, connect=settings.connect_seconds,
                                 read=settings.read_seconds)
        self.sdk = openai.AsyncOpenAI(api_key=settings.api_key or "none", base_url=settings.base_url,
                                      max_retries=0, timeout=timeout)

    # ---- the seam

    def wire_model(self, model: str) -> str:
        prefix = self.name + "/"
        return model[len(prefix):] if model.startswith(prefix) else model

    def request(self, call: Call) -> JSON:
        model = self.wire_model(call.model)
        effort = effort_sent(self.capabilities(call.model), call.thinking)
        if self.api == "openai-chat":
            return chat_body(call, model, effort)
        # [H27] one key per chat prefix: the system prompt and the tools, which every call shares
        shared = json.dumps([list(call.system), [tool.name for tool in call.tools]]).encode("utf-8")
        return responses_body(call, model, "ever-" + hashlib.sha256(shared).hexdigest()[:32], effort)

    def capabilities(self, model: str) -> Any:
        """[H30] The model's record: its provider's list's, OpenAI's row, else assumed with the
        config's window."""
        return provider_model(self.name, self.wire_model(model), self.window)

    # ---- a local server's own endpoints [H36]: its window and its token count

    def root_url(self) -> str:
        """The server's root: its OpenAI base URL without the `/v1` (llama.cpp's `/props`, vLLM's
        `/tokenize` and Ollama's `/api/show` are beside it, not under it)."""
        base = (self.settings.base_url or DEFAULT_BASE_URL).rstrip("/")
        return base[:-len("/v1")] if base.endswith("/v1") else base

    async def served(self, method: str, path: str, body: JSON | None = None) -> Any:
        """A local server's own endpoint's JSON answer; None when it has none, refuses or fails
        (then the list's window, the config's and the byte bound answer)."""
        if self._http is None:
            self._http = httpx2.AsyncClient(timeout=httpx2.Timeout(SERVED_SECONDS))
        headers = {"Authorization": f"Bearer {self.settings.api_key or 'none'}"}
        try:
            response = await self._http.request(method, self.root_url() + path, json=body, headers=headers)
            return response.json() if response.status_code == 200 else None
        except (httpx2.HTTPError, ValueError):
            return None

    async def served_windows(self, answer: list[JSON]) -> dict[str, tuple[int, str]]:
        """What a local server says of the windows its models run at, by model id, each with the
        words naming where it said it; and which token count the server offers, kept in `counter`.
        llama.cpp's `GET /props` gives `default_generation_settings.n_ctx`, the window it runs at
        (over its list's `n_ctx_train`, what the model was trained to), for the model it names: a
        router serving several is asked `/props?model=ID` for each. vLLM's list gives
        `max_model_len` and `POST /tokenize` counts. Ollama's `GET /api/ps` gives the
        `context_length` a loaded model runs at; `POST /api/show` gives `num_ctx` in `parameters`
        where the Modelfile sets one, else `model_info`'s `<architecture>.context_length`, the
        trained length, which Ollama's own default context may cut silently."""
        if self.api != "openai-chat":
            return {}
        ids = [entry["id"] for entry in answer if isinstance(entry, dict) and isinstance(entry.get("id"), str)]
        props = await self.served("GET", "/props")
        if props_window(props) is not None:
            self.counter = "llama.cpp"
            return await self.llama_windows(ids, props)
        if any(isinstance(entry, dict) and "max_model_len" in entry for entry in answer):
            self.counter = "vllm"
            return {}
        asked = ids[:SHOWN_MAX]
        running, *shown = await asyncio.gather(self.served("GET", "/api/ps"),
                                               *(self.served("POST", "/api/show", {"model": model_id})
                                                 for model_id in asked))
        loaded = ollama_loaded(running)
        found: dict[str, tuple[int, str]] = {}
        for model_id, show in zip(asked, shown):
            window = loaded.get(model_id) or ollama_window(show)
            if window is not None:
                found[model_id] = window
        return found

    async def llama_windows(self, ids: list[str], props: JSON) -> dict[str, tuple[int, str]]:
        """Each listed model's n_ctx from the `/props` that names it: the one answer when the
        server lists one model, else each model's own `/props?model=ID` (a router's), so one
        model's window is never taken for another's."""
        if len(ids) == 1:
            return {ids[0]: (props_window(props), LLAMA_PROPS)}
        found: dict[str, tuple[int, str]] = {}
        answers = await asyncio.gather(*(self.served("GET", "/props?" + urllib.parse.urlencode({"model": model_id}))
                                         for model_id in ids[:SHOWN_MAX]))
        for model_id, answer in zip(ids, answers):
            window = props_window(answer)
            if window is not None and props_names(answer, model_id):
                found[model_id] = (window, LLAMA_PROPS)
        return found

    async def served_count(self, request: JSON) -> int | None:
        """A Chat Completions body's prompt tokens as its server counts them: vLLM's `POST
        /tokenize` of its messages and tools (`count`), llama.cpp's `POST /apply-template` then
        `POST /tokenize` of the prompt with its BOS token (`tokens`); None where the server
        offers no count."""
        chat = {"messages": request.get("messages", [])}
        if "tools" in request:
            chat["tools"] = request["tools"]
        if self.counter == "vllm":
            counted = await self.served("POST", "/tokenize", {"model": request.get("model"), **chat})
            count = counted.get("count") if isinstance(counted, dict) else None
            return count if isinstance(count, int) and not isinstance(count, bool) else None
        if self.counter == "llama.cpp":
            templated = await self.served("POST", "/apply-template", chat)
            prompt = templated.get("prompt") if isinstance(templated, dict) else None
            if not isinstance(prompt, str):
                return None
            tokens = await self.served("POST", "/tokenize", {"content": prompt, "add_special": True})
            listed = tokens.get("tokens") if isinstance(tokens, dict) else None
            return len(listed) if isinstance(listed, list) else None
        return None

    async def count_tokens(self, request: JSON) -> int | None:
        """The body's input tokens as its API counts them: the Responses API's own count (`POST
        /v1/responses/input_tokens`, no charge), a local server's (`served_count`) on Chat
        Completions; None when there is no count or it fails."""
        if self.api == "openai-chat":
            return await self.served_count(request)
        try:
            counted = await self.sdk.responses.input_tokens.count(
                **{name: value for name, value in request.items() if name in COUNTED_FIELDS})
        except Exception:  # any failure: the bound counted without a call decides
            return None
        tokens = getattr(counted, "input_tokens", None)
        return tokens if isinstance(tokens, int) else None

    async def list_provider_models(self) -> list[JSON]:
        """The server's `GET /v1/models`, each model as its JSON; `Unusable` with one sentence when
        it cannot be had, never retried: the table and the config answer meanwhile."""
        try:
            return [info.model_dump(mode="json") async for info in self.sdk.models.list()]
        except Exception as error:
            if classify(error) is None:
                raise
            secrets = (self.settings.api_key, *url_secrets(self.settings.base_url)) if self.settings.api_key \
                else url_secrets(self.settings.base_url)
            url = url_shown(self.settings.base_url or DEFAULT_BASE_URL)
            raise Unusable(redact(f"{url} gave no model list ({describe(error)})", secrets)) from None

    async def problem(self, request: JSON) -> str | None:
        """Why this body is not sent, or None [H30] [H31]: an effort the model lacks, or its input
        and output cap past the model's window. Counted high (a token for every byte of the body
        as JSON), a body that could pass is counted again where its API or server counts (the
        Responses API, vLLM, llama.cpp); where nothing counts (Ollama, which cuts a long prompt
        silently, and others), the high count decides and the sentence says so."""
        full = f"{self.name}/{request.get('model', '')}"
        model = self.capabilities(full)
        refused = effort_problem(model, effort_of(request))
        if refused:
            return refused
        cap = request.get("max_tokens", request.get("max_output_tokens"))
        if isinstance(cap, int) and cap > model.output_cap:
            return f"max_tokens {cap:,} is above {full}'s output cap of {model.output_cap:,}"
        shaped = {"model": full, "max_tokens": cap if isinstance(cap, int) else 0,
                  **{name: value for name, value in request.items() if name in COUNTED_FIELDS + ("messages",)
                     and name != "model"}}
        where = model.window_from or model.source  # [H36] the server's own words, where it said
        found = window_problem(shaped, model.window, window_from=where)
        if found is None:
            return None
        counted = await self.count_tokens(request)
        if counted is not None:
            return window_problem(shaped, model.window, counted=counted, window_from=where)
        if self.api == "openai-chat":  # [H36] a server that counts nothing: its bytes decide, said so
            return window_problem(shaped, model.window, "this request (its server counts no tokens, so its bytes "
                                  "are counted high)", window_from=where)
        return found

    async def aclose(self) -> None:
        await self.sdk.close()
        if self._http is not None:
            await self._http.aclose()

    # ---- sending

    async def stream(self, request: JSON, on_event: OnStreamed | None = None) -> Reply:
        """Send `request` until an answer comes back; see the module docstring."""
        problem = await self.problem(request)
        if problem:
            raise Refused(problem, Usage(), 0)
        url = url_shown(self.settings.base_url or DEFAULT_BASE_URL)
        secrets = (self.settings.api_key, *url_secrets(self.settings.base_url)) if self.settings.api_key \
            else url_secrets(self.settings.base_url)
        model = request.get("model", "")

        def sort(error: BaseException) -> Trouble | None:
            kind = classify(error)
            if kind is None:
                return None
            description = redact(describe(error), secrets)
            if kind == TRANSIENT:
                sentence = f"{url} failed the call to {model} ({description}); it may pass later"
            else:
                sentence = (f"{url} refused the call to {model} ({description}): "
                            f"{what_to_do(error, model, self.key_env)}")
            response = getattr(error, "response", None)
            asked = (header_wait(response.headers, self.wall_clock())
                     if isinstance(error, openai.APIStatusError) and response is not None else None)
            return Trouble(kind, description, redact(sentence, secrets), asked)

        async def attempt(billed: Billed) -> Any:
            gathered = ChatStream() if self.api == "openai-chat" else ResponsesStream()
            try:
                await self._attempt(request, gathered, on_event)
            finally:
                billed.usage = gathered.usage
            if self.api != "openai-chat" and gathered.failure is not None:
                raise openai.APIError(gathered.failure, httpx2.Request("POST", url), body=None)
            return gathered

        gathered, spent, attempts = await self.retried(attempt, sort, url)
        return gathered.reply(spent, attempts)

    async def _attempt(self, request: JSON, gathered: Any, on_event: OnStreamed | None) -> None:
        loop = asyncio.get_running_loop()
        silence_seconds = self.settings.silence_seconds
        url = url_shown(self.settings.base_url or DEFAULT_BASE_URL)
        self._waiting(f"waiting for {url} to answer ({request.get('model', '')})", silence_seconds)
        create = (self.sdk.chat.completions.create if self.api == "openai-chat"
                  else self.sdk.responses.create)
        try:
            async with asyncio.timeout(self.settings.attempt_seconds):
                async with asyncio.timeout(silence_seconds) as silence:
                    stream = await create(**request)
                    async with stream:
                        async for event in stream:
                            silence.reschedule(loop.time() + silence_seconds)
                            self._waiting(None)
                            for kind, text in gathered.feed(event):
                                if on_event is not None:
                                    on_event(Streamed(kind, text))
                            if on_event is not None and getattr(event, "usage", None) is not None:
                                on_event(Streamed("usage", usage=gathered.usage))
        except TimeoutError:
            if silence.expired():
                raise Silent(silence_seconds) from None
            raise
        finally:
            self._waiting(None)


def openai_provider(settings: ClientSettings, config: Any, *, sleep: Sleep = asyncio.sleep,
                    random: Callable[[], float] = random_module.random,
                    monotonic: Callable[[], float] = time.monotonic, **changes: Any) -> OpenAIProvider:
    """A provider for `config` (harness/calls/providers.py's ProviderConfig) with the owner's
    settings and their changes (attempts, silence, window); its waits on the World's clock."""
    changes.pop("gate", None)  # [H27] no gate on this wire
    window = changes.pop("context_window", None) or config.context_window
    settings = dataclasses.replace(settings, **changes, context_window=window, api_key=provider_key(config),
                                   base_url=config.base_url)
    return OpenAIProvider(settings, api=config.api, name=config.name, key_env=config.key_env, window=window,
                          sleep=sleep, random=random, monotonic=monotonic)


__all__ = ["OpenAIProvider", "classify", "openai_provider"]
