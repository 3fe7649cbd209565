"""`ever bench recall`: does the memory remember? Facts planted at known places, a fresh turn
asked about each, the answer scored exactly [M1] [M2] [M3].

    ever bench recall --messages 10000 --questions 30 --seed 7      # Anthropic's API, your key
    ever bench recall --file longmemeval_s.json --questions 20      # a published benchmark
    ever bench recall --json                                         # every answer, for scripts

The chat (harness/bench/planted.py makes it) is written into a chat of its own under
`$EVER_HOME/bench/` (never the user's), as turns or as notes, and the chat's own compactor
(harness/memory/service.py, harness/calls/compactor.py) builds its tree on the compaction model,
all of it, before any question. A built chat is kept and used again by the next run with the same
chat, size, seed and compaction model, so its compactions are paid once.

Each model is called on its own provider's wire [H25] [H35]: a `NAME/MODEL` through config.toml's
`[providers.NAME]` (harness/calls/providers.py, an OpenAI wire or a named Messages API), anything
else through the Messages API; the answering model and the compaction model pick theirs apart.
Every call the bench makes itself (the baseline's, the judge's) is a neutral `Call` that the
provider puts on its wire, as the Turn's and the compactor's are.

Each question is asked in three arms, on the same built chat [M3]:

- `zoom`: a fresh turn (harness/calls/turn.py) with the chat's tools less `search`: the gist's
  zoom and date alone. The system prompt's line on `search` goes with it.
- `search`: the same turn with `search` [R1].
- `baseline`: one call that sees a single summary of the whole chat, what a tool that compacts
  its context keeps: the compaction model reads the chat in chunks, each time writing one summary
  of all it has read so far, and the question is answered from the last one, with no tools. A
  chunk is sized from the summarizer's window (`baseline_chunk_bytes`) and the summary carried is
  held to BASELINE_SUMMARY_BYTES_MAX, so every call stays within the window at any chat size.
- `search-alone`: no model at all: is the planted message among the search tool's first 10 hits
  for the question's own words (`search_alone`)? What a person's search starts from; it costs
  nothing and runs in `make test` on the synthetic chat (tests/bench/test_recall_search_alone.py).

Each answer is asked in a copy of the built chat, made afresh, so no arm and no question sees
another's words. A turn's work tools are the chat's, in an empty working directory, with nobody to
approve `shell`, `write` or `edit` (declined, as for `ever send` without --yes) and no subagents:
what it knows it must take from the memory. Per answer: the score, the zooms, the searches, the
calls, the tokens, the dollars (harness/calls/models.py's list prices) and the seconds.

A build stopped half-way (Ctrl-C, a lost connection) goes on where it stopped when run again.

A figure is only as good as what answers: against a server on this machine (the tests run the
command on the local Messages API, whose replies are scripted), or on a chat whose view still
holds every message's own line, the output says that the figures measure nothing about memory.
"""

import dataclasses
import hashlib
import ipaddress
import json
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from harness.bench.planted import ANSWER_ALONE, Chat, Fact, logged, score
from harness.calls.anthropic import provider_of
from harness.calls.approval import Approval
from harness.calls.compactor import Compactor, Compress, MemorySettings, Merge
from harness.calls.compactor import Job as CompactorJob
from harness.calls.models import lookup
from harness.calls.outcomes import Refused, RetriesExhausted, Unusable, Usage
from harness.calls.prompt import SYSTEM_PROMPT, Prompt
from harness.calls.provider import Call
from harness.calls.providers import ProviderConfig, route
from harness.calls.tools import WorkTools
from harness.calls.turn import Turn, TurnSettings
from harness.calls.usage import cost_e8, dollars_text, record_usage, usage_record
from harness.memory.disk import RealDisk
from harness.memory.images import ToolResult, error_result
from harness.memory.planner import Config
from harness.memory.search import run_search
from harness.memory.service import Job, JobResult, Memory

ARMS = ("zoom", "search", "baseline", "search-alone")
SEARCH_LINE = "- search(query) finds the messages holding words, each with the line that covers it\n"
BASELINE_CHUNK_BYTES = 400_000  # at most: about 100,000 tokens of the chat per summary call
# The summary carried from one call to the next is cut to this many bytes (a summarizer that
# writes past its words is held to them), so the call's size never grows with the chat.
BASELINE_SUMMARY_BYTES_MAX = 48_000
BASELINE_OVERHEAD_BYTES = 4_000  # the system prompt, the task, the tags and the JSON around them
BASELINE_SUMMARY_WORDS = 2_000
BASELINE_MAX_TOKENS = 8_000
ANSWER_MAX_TOKENS = 4_000
BASELINE_SYSTEM = ("You keep the memory of a long chat between a user and Ever, an AI agent that works on "
                   "the user's computer. You will be given the summary so far and the next messages; "
                   "write the new summary of the whole chat.")
BASELINE_TASK = (f"Summary: write one summary of the whole chat so far (the summary above and these "
                 f"messages), at most {BASELINE_SUMMARY_WORDS:,} words, so that the work can go on from it "
                 "alone: decisions and their reasons, the user's standing instructions (the latest word on "
                 "each), files, commands, figures, findings, open questions. Output only the summary.")
ANSWER_SYSTEM = ("You are Ever, an AI agent that works for one user in a single chat. All you remember of "
                 "the chat is the summary below; answer the user's question from it.")
MEASURES_NOTHING_LOCAL = ("This ran against a server on this machine ({url}). From Ever's local stand-ins "
                          "(harness/localapi/: the tests', whose replies are scripted or echoed) these figures "
                          "test the harness and measure nothing about memory.")
MEASURES_NOTHING_SMALL = ("The view still shows each of the chat's {count:,} messages as a line of its own (no "
                          "two lines merged): on so small a chat these figures measure nothing about memory.")


class BenchFailed(Exception):
    """The bench cannot go on, said in one sentence."""


@dataclass(frozen=True)
class BenchSettings:
    """What a run needs: where the API is, the two models, what to ask. A model named
    `NAME/MODEL` is called through its provider (harness/calls/providers.py, config.toml's
    `[providers.NAME]`), each on its own wire [H25]; `api_key` and `base_url` are the Messages
    API's, for the models that stay Anthropic's."""

    api_key: str = field(repr=False)
    base_url: str | None
    model: str  # the answering model
    memory_model: str  # the compaction model, also the baseline's summarizer
    home: Path  # the bench's own directory; the chat lives in home/chat
    arms: tuple[str, ...] = ARMS
    as_notes: bool = False
    judge: str | None = None  # a model that judges each answer, only when asked
    cache_marks: bool = True
    keep_copies: bool = False
    providers: Mapping[str, ProviderConfig] = field(default_factory=dict)
    context_window: int | None = None  # config.toml's, for an answering model no list knows
    memory_context_window: int | None = None  # the same for the compaction model

    def url_of(self, model: str) -> str:
        """Where `model` is called: its provider's base URL, else the SDK's default."""
        provider = route(model, self.providers).provider
        if provider.api == "anthropic":
            return provider.base_url or self.base_url or "https://api.anthropic.com"
        return provider.base_url or "https://api.openai.com/v1"


@dataclass
class Answer:
    arm: str
    kind: str
    fact_id: int
    question: str
    expected: tuple[str, ...]
    reply: str
    score: str  # right, wrong, superseded, or failed (the call failed: the sentence is `error`)
    zooms: int = 0
    searches: int = 0
    calls: int = 0
    usage: Usage = field(default_factory=Usage)
    cost_e8: int | None = None
    seconds: float = 0.0
    error: str = ""
    judged: bool | None = None
    label: str = ""

    def as_dict(self) -> dict[str, Any]:
        value = dataclasses.asdict(self)
        value["usage"] = dataclasses.asdict(self.usage)
        value["dollars"] = None if self.cost_e8 is None else self.cost_e8 / 1e8
        return value


class Metered:
    """A provider (harness/calls/provider.py) that adds up what its calls spent: the Turn, the
    compactor and the baseline's calls go through it onto the wire of `client`, whichever that is."""

    def __init__(self, client: Any):
        self.client = client
        self.provider = provider_of(client)  # a Messages API client wrapped; another provider as it is
        self.settings = client.settings
        self.spent = Usage()
        self.calls = 0

    def request(self, call: Call) -> Any:
        return self.provider.request(call)

    def capabilities(self, model: str) -> Any:
        return self.provider.capabilities(model)

    async def count_tokens(self, request: Any) -> int | None:
        return await self.provider.count_tokens(request)

    async def stream(self, request: Any, on_event: Callable[[Any], None] | None = None):
        try:
            reply = await self.provider.stream(request, on_event=on_event)
        except (Refused, Unusable, RetriesExhausted) as error:
            self.spent = self.spent + getattr(error, "spent", Usage())
            raise
        self.spent = self.spent + reply.spent
        self.calls += 1
        return reply

    async def aclose(self) -> None:
        await self.provider.aclose()


class BenchTurn(Turn):
    """A turn that counts its memory calls and runs only the tools its arm offers."""

    def __init__(self, *args: Any, offered: Sequence[str], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.offered = set(offered)
        self.called: list[str] = []

    async def _call(self, name: str, tool_input: Any) -> ToolResult:
        self.called.append(name)
        if name not in self.offered:  # a model that calls a tool it was not given runs nothing
            return error_result(f"There is no tool {name!r}.")
        return await super()._call(name, tool_input)


def arm_prompt(arm: str) -> Prompt:
    """The chat's prompt for an arm: no `agent` nor `tell` (no subagents in a bench), and no
    `search` in the zoom arm, nor its line in the system prompt."""
    base = Prompt.build()
    drop = {"agent", "tell"} | ({"search"} if arm == "zoom" else set())
    tools = tuple(tool for tool in base.tools if tool.name not in drop)
    system = base.system
    if arm == "zoom":
        if SEARCH_LINE not in SYSTEM_PROMPT:
            raise BenchFailed("the system prompt's line on search is not where the zoom arm removes it "
                              "(a bug in Ever: please report it)")
        system = tuple(text.replace(SEARCH_LINE, "") for text in system)
    return Prompt(tools=tools, system=system)


def loopback(base_url: str | None) -> bool:
    host = urlparse(base_url or "").hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def priced(model: str, usage: Usage) -> int | None:
    return cost_e8(usage_record("compaction", None, model, usage))  # kind and turn price nothing


# ---------------------------------------------------------------- the run


class Bench:
    """One chat's run: build it, then ask each question in each arm."""

    def __init__(self, settings: BenchSettings, say: Callable[[str], None] = lambda sentence: None):
        self.settings = settings
        self.say = say
        self.clients: list[Any] = []
        self.answers_client: Any = None  # one client for every answer, metered answer by answer
        self.judge_client: Any = None

    def secrets(self) -> tuple[str, ...]:
        """What no tool's output shows: the Messages API's key and each provider's in use."""
        from harness.calls.providers import provider_key

        s = self.settings
        keys = [s.api_key]
        for model in (s.model, s.memory_model, s.judge):
            provider = route(model or "", s.providers).provider
            if provider.key_env:
                keys.append(provider_key(provider))
        return tuple(key for key in keys if key)

    def client(self, attempts_max: int | None, model: str, window: int | None = None) -> Metered:
        """A metered client of the API `model` is called through: the Messages API, or its
        provider's wire (the owner's own choice, harness/owner/world.py's `real_clients`)."""
        from harness.calls.client import ClientSettings  # the SDK: only a run that calls
        from harness.owner.world import real_clients

        s = self.settings
        settings = ClientSettings(api_key=s.api_key, base_url=s.base_url, route=route(model, s.providers))
        client = real_clients(settings, attempts_max=attempts_max, context_window=window)
        self.clients.append(client)
        return Metered(client)

    async def learn(self, metered: Metered) -> None:
        """[H30] An OpenAI wire's windows from its own model list, before a request is sized
        (the table and the config answer when it gives none)."""
        from harness.calls.capabilities import refresh_provider

        if hasattr(metered.client, "list_provider_models"):
            problem = await refresh_provider(metered.client)
            if problem:
                self.say(f"({problem}; its window is the config's or the smallest known.)")

    def window(self, metered: Metered, model: str) -> int:
        """The model's window as its provider says (its list, the table, the config), else assumed."""
        known = metered.capabilities(model)
        window = self.settings.memory_context_window if model == self.settings.memory_model else None
        return (known or lookup(model, window)).window

    async def close(self) -> None:
        for client in self.clients:
            await client.aclose()

    # ---- building the chat's tree, once ----

    def marker(self, chat: Chat) -> dict[str, Any]:
        """What a kept chat must match to be used again: its messages byte for byte (a digest),
        how they were written, and the compaction model."""
        digest = hashlib.sha256()
        for kind, text, date in chat.messages:
            digest.update(f"{kind}\0{date.isoformat()}\0{text}\0".encode("utf-8", "surrogatepass"))
        return {"chat": chat.name, "messages": len(chat.messages), "sha256": digest.hexdigest(),
                "as_notes": self.settings.as_notes, "memory_model": self.settings.memory_model}

    async def build(self, chat: Chat) -> dict[str, Any]:
        """The chat written and its view built by the compaction model; what it cost. A chat
        built before with the same marker is used again, and costs nothing."""
        s = self.settings
        for folder in (s.home.parent, s.home):  # the chat's files are the user's alone (harness/memory/home.py)
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        marker_path = s.home / "bench.json"
        marker = self.marker(chat)
        if marker_path.exists():
            kept = json.loads(marker_path.read_text())
            if kept.get("marker") != marker:
                raise BenchFailed(f"{s.home} holds another bench chat ({kept.get('marker')}); give another "
                                  "--home, or remove it")
            if kept.get("built"):
                self.say(f"The chat in {s.home} is built already: its compactions are not paid again.")
                return kept["built"]
        elif (s.home / "chat").exists():
            raise BenchFailed(f"{s.home / 'chat'} exists and is not a bench chat; give another --home")
        else:
            marker_path.write_text(json.dumps({"marker": marker, "built": None}, indent=2))
        metered = self.client(None, s.memory_model, s.memory_context_window)  # a compaction retries while it runs [P16]
        await self.learn(metered)
        compactor = Compactor(metered, Prompt.build(), MemorySettings(model=s.memory_model), marks=s.cache_marks)
        memory_ref: dict[str, Memory] = {}

        async def build_node(job: Job) -> JobResult:
            task = Compress(job.kind, job.text) if job.l == 0 else Merge(*job.halves)
            result = await compactor.build(CompactorJob(job.l, job.i, job.context, task))
            record_usage(s.home, usage_record("compaction", memory_ref["m"].planner.T - 1, s.memory_model,
                                              result.usage))
            return JobResult(result.text, result.failure or "")

        started = time.monotonic()
        memory = Memory.open(s.home, Config(), build=build_node)
        memory_ref["m"] = memory
        self.say(f"Writing {len(chat.messages):,} messages; the compactor summarizes them on {s.memory_model} "
                 "as they come.")
        try:
            # as in a live chat the compactor keeps up: each batch of messages is summarized
            # before the next is written, so the view merges as it grows and stays within its
            # ceiling (written at once, it would reach the first question unmerged)
            # a build stopped half-way goes on from the first message not logged: the chat is the seed's
            for at in range(memory.store.count, len(chat.messages)):
                memory.append(*logged(chat, at, s.as_notes))
                if (at + 1) % memory.planner.config.jobs_max == 0:
                    await memory.idle()
                    if memory.paused:
                        raise BenchFailed(f"the compactor stopped: {memory.paused}")
                if (at + 1) % 1000 == 0:
                    self.say(f"{at + 1:,} of {len(chat.messages):,} messages written and summarized.")
            await settled(memory)
            run_search(memory.store, memory.planner.view.lines(), "ever")  # the index, made once
            view_lines = len(memory.planner.view.lines())
            built = {"messages": memory.planner.T, "view_lines": view_lines,
                     "view_bytes": memory.planner.view.bytes, "compaction_calls": metered.calls,
                     "usage": dataclasses.asdict(metered.spent),
                     "cost_e8": priced(s.memory_model, metered.spent),
                     "seconds": round(time.monotonic() - started, 1)}
        finally:
            memory.close()
        marker_path.write_text(json.dumps({"marker": marker, "built": built}, indent=2))
        return built

    # ---- the baseline's one summary ----

    async def summary(self, chat: Chat) -> tuple[str, dict[str, Any]]:
        """One summary of the whole chat by the compaction model, rolling over chunks; kept in
        the bench's directory and used again."""
        s = self.settings
        path = s.home / f"baseline-{s.memory_model.replace('/', '+')}.json"
        if path.exists():
            kept = json.loads(path.read_text())
            return kept["summary"], kept["cost"]
        metered = self.client(None, s.memory_model, s.memory_context_window)
        await self.learn(metered)
        summary = ""
        budget = baseline_budget(self.window(metered, s.memory_model))
        lines = [f"{at} {kind}: {text}" for at, (kind, text, _) in enumerate(chat.messages)]
        for piece in chunks(lines, budget.chunk_bytes):
            summary = clipped(await self.summarize(metered, summary, piece, budget.max_tokens),
                              budget.summary_bytes)
        cost = {"calls": metered.calls, "usage": dataclasses.asdict(metered.spent),
                "cost_e8": priced(s.memory_model, metered.spent)}
        path.write_text(json.dumps({"summary": summary, "cost": cost}))
        return summary, cost

    async def summarize(self, client: Metered, summary: str, messages: str,
                        max_tokens: int = BASELINE_MAX_TOKENS) -> str:
        """One rolling step: the summary so far and the next messages in, the new summary out."""
        s = self.settings
        request = client.request(baseline_call(s.memory_model, summary, messages, max_tokens))
        try:
            reply = await client.stream(request)
        except (Refused, Unusable, RetriesExhausted) as error:
            raise BenchFailed(f"the baseline's summary failed: {error}") from None
        return reply.text.strip() or summary

    # ---- one answer ----

    async def ask(self, fact: Fact, arm: str, summary: str = "") -> Answer:
        s = self.settings
        question = f"{fact.question} {ANSWER_ALONE}"
        answer = Answer(arm, fact.kind, fact.id, fact.question, fact.expected, "", "failed", label=fact.label)
        started = time.monotonic()
        if self.answers_client is None:
            self.answers_client = self.client(3, s.model, s.context_window).client
            await self.learn(Metered(self.answers_client))
        metered = Metered(self.answers_client)
        if arm == "baseline":
            request = metered.request(Call(s.model, ANSWER_MAX_TOKENS, (ANSWER_SYSTEM,), (), ({
                "role": "user", "content": [{"type": "text", "text": f"<summary>\n{summary}\n</summary>"},
                                            {"type": "text", "text": question}]},)))
            try:
                reply = await metered.stream(request)
                answer.reply = reply.text.strip()
            except (Refused, Unusable, RetriesExhausted) as error:
                answer.error = str(error)
        else:
            answer.reply, answer.error, called = await self.turn(question, arm, metered)
            answer.zooms, answer.searches = called.count("zoom"), called.count("search")
        answer.seconds = round(time.monotonic() - started, 2)
        answer.calls, answer.usage = metered.calls, metered.spent
        answer.cost_e8 = priced(s.model, metered.spent)
        if not answer.error:
            answer.score = score(fact, answer.reply)
        if s.judge and not answer.error:
            answer.judged = await self.judged(fact, answer.reply)
        return answer

    async def turn(self, question: str, arm: str, metered: Metered) -> tuple[str, str, list[str]]:
        """A fresh turn in a copy of the built chat: (reply, error sentence, tools called)."""
        s = self.settings
        scratch = Path(tempfile.mkdtemp(prefix=f"recall-{arm}-", dir=s.home))
        try:
            shutil.copytree(s.home / "chat", scratch / "chat")
            workdir = scratch / "work"
            workdir.mkdir(mode=0o700)
            memory = Memory.open(scratch)  # no compactor: nothing in the copy outlives the answer
            try:
                prompt = arm_prompt(arm)
                tools = WorkTools(workdir, Approval(), secrets=self.secrets())
                turn_settings = TurnSettings(s.model, settle_timeout_seconds=5.0, workdir=str(workdir), home=s.home,
                                             cache_marks=s.cache_marks)
                turn = BenchTurn(memory, metered, prompt, tools, turn_settings,
                                 offered=[tool.name for tool in prompt.tools])
                result = await turn.run(question)
                return result.reply, result.error, turn.called
            finally:
                memory.close()
        finally:
            if not s.keep_copies:
                shutil.rmtree(scratch, ignore_errors=True)

    async def judged(self, fact: Fact, reply: str) -> bool | None:
        """The judge model's yes or no: only when the user asks for one."""
        s = self.settings
        expected = " and ".join(fact.expected)
        older = f" An older value that no longer holds: {', '.join(fact.superseded)}." if fact.superseded else ""
        if self.judge_client is None:
            self.judge_client = self.client(3, s.judge)
        metered = Metered(self.judge_client.client)
        request = metered.request(Call(s.judge, 16, (), (), ({"role": "user", "content": [{"type": "text", "text":
            f"Question: {fact.question}\nExpected answer: {expected}.{older}\nGiven answer: {reply}\n"
            "Is the given answer correct? Reply with one word: yes or no."}]},)))
        try:
            verdict = await metered.stream(request)
        except (Refused, Unusable, RetriesExhausted):
            return None
        word = verdict.text.strip().lower()
        return True if word.startswith("yes") else False if word.startswith("no") else None


async def settled(memory: Memory) -> None:
    """Every line of the view built: the compactor's running calls end, and a wait (as a turn
    waits) starts what failed again, until each node is built or marked [P16]."""
    while True:
        await memory.idle()
        if memory.paused:
            raise BenchFailed(f"the compactor stopped: {memory.paused}")
        planner = memory.planner
        if all(planner.built(l, i) for l, i in planner.view.lines()):
            return
        await memory.settle(600.0)


# ---- the model-free arm ----

SEARCH_ALONE = "search-alone"
SEARCH_ALONE_TOP = 10  # a hit on the search tool's first page [R1]


class ScratchDisk(RealDisk):
    """The machine's disk without fsync: for a chat written only to be searched and thrown away
    (`search_alone`), whose loss at a crash loses nothing; never a chat a person keeps."""

    def fsync(self, fd: int) -> None:
        pass


def search_alone(chat: Chat, facts: Sequence[Fact], as_notes: bool = False,
                 where: Path | None = None) -> dict[str, Any]:
    """The model-free arm: is each fact's planted message (its latest word, `Fact.id`) among the
    first SEARCH_ALONE_TOP hits of the search tool (harness/memory/search.py) given the
    question's own words? No model, no key, no tree: the chat's messages are logged into a
    scratch chat and searched. The figure a person's search would start from, beside the arms
    that ask a model."""
    started = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix="recall-search-alone-", dir=where))
    try:
        memory = Memory.open(scratch / "chat-home", build=None, disk=ScratchDisk())
        try:
            for at in range(len(chat.messages)):
                memory.append(*logged(chat, at, as_notes))
            lines = memory.planner.view.lines()
            found = []
            for fact in facts:
                hits = run_search(memory.store, lines, fact.question, per_page=SEARCH_ALONE_TOP)
                ranked = [hit.id for hit in hits.hits] if hits is not None else []
                found.append({"fact_id": fact.id, "kind": fact.kind, "question": fact.question,
                              "rank": ranked.index(fact.id) + 1 if fact.id in ranked else None})
        finally:
            memory.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    kinds = sorted({one["kind"] for one in found})
    return {"asked": len(found), "right": sum(one["rank"] is not None for one in found),
            "by_kind": {kind: [sum(one["rank"] is not None for one in found if one["kind"] == kind),
                               sum(one["kind"] == kind for one in found)] for kind in kinds},
            "top": SEARCH_ALONE_TOP, "seconds": round(time.monotonic() - started, 1), "found": found}


@dataclass(frozen=True)
class BaselineBudget:
    chunk_bytes: int  # the chat's bytes one call reads, as sent
    summary_bytes: int  # the summary carried to the next call, at most
    max_tokens: int  # the summary's output


def baseline_budget(window_tokens: int) -> BaselineBudget:
    """What one baseline call may hold so that, counted high (a token for every byte as sent,
    harness/calls/models.py's `input_tokens_max`), it stays within the summarizer's window at
    any chat size: the summary's output and the summary carried take at most an eighth and a
    quarter of the window (BASELINE_MAX_TOKENS and BASELINE_SUMMARY_BYTES_MAX on a large one),
    the prompt around them BASELINE_OVERHEAD_BYTES, the chat's chunk the rest, at most
    BASELINE_CHUNK_BYTES."""
    max_tokens = min(BASELINE_MAX_TOKENS, window_tokens // 8)
    summary_bytes = min(BASELINE_SUMMARY_BYTES_MAX, window_tokens // 4)
    room = window_tokens - max_tokens - summary_bytes - BASELINE_OVERHEAD_BYTES
    if room < 1_024:
        raise BenchFailed(f"the summarizer's window of {window_tokens:,} tokens leaves no room for the "
                          "baseline's rolling summary; give --memory-model a model with a larger one")
    return BaselineBudget(min(BASELINE_CHUNK_BYTES, room), summary_bytes, max_tokens)


def baseline_call(model: str, summary: str, messages: str, max_tokens: int) -> Call:
    """The baseline's rolling call: the summary so far, the next messages, the task; no tools,
    no marks, thinking off. Its provider puts it on its own wire."""
    return Call(model, max_tokens, (BASELINE_SYSTEM,), (), ({"role": "user", "content": [
        {"type": "text", "text": f"<summary>\n{summary or '(nothing yet)'}\n</summary>"},
        {"type": "text", "text": f"<messages>\n{messages}\n</messages>"},
        {"type": "text", "text": BASELINE_TASK}]},))


def sent_bytes(text: str) -> int:
    """The bytes `text` takes in a request's JSON (its escapes counted), as the window's high
    count counts them."""
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass")) - 2


def chunks(lines: Sequence[str], chunk_bytes: int) -> list[str]:
    """The lines joined by newlines into pieces of at most `chunk_bytes` bytes each as sent
    (`sent_bytes`), in order; a line longer than that is cut into pieces of its own."""
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    for line in lines:
        for part in cut(line, chunk_bytes):
            grown = size + sent_bytes(part) + (2 if current else 0)  # "\n" is two bytes as sent
            if current and grown > chunk_bytes:
                pieces.append("\n".join(current))
                current, grown = [], sent_bytes(part)
            current.append(part)
            size = grown
    if current:
        pieces.append("\n".join(current))
    return pieces


def cut(text: str, bytes_max: int) -> list[str]:
    """`text` in pieces of at most `bytes_max` bytes as sent, none splitting a character."""
    parts: list[str] = []
    while sent_bytes(text) > bytes_max:
        head = clipped(text, bytes_max)
        parts.append(head)
        text = text[len(head):]
    return parts + [text]


def clipped(text: str, bytes_max: int) -> str:
    """The longest start of `text` within `bytes_max` bytes as sent (at least one character, so
    that cutting always moves on)."""
    if sent_bytes(text) <= bytes_max:
        return text
    low, high = 1, len(text)  # sent_bytes(text[:high]) > bytes_max
    while low < high:
        middle = (low + high + 1) // 2
        if sent_bytes(text[:middle]) <= bytes_max:
            low = middle
        else:
            high = middle - 1
    return text[:low]


def spread(facts: Sequence[Fact], count: int) -> list[Fact]:
    """`count` of the facts, spread evenly over the chat (facts are in the chat's order)."""
    if count >= len(facts):
        return list(facts)
    return [facts[j * len(facts) // count] for j in range(count)]


async def run(settings: BenchSettings, chats: Sequence[Chat], questions: int,
              say: Callable[[str], None] = lambda sentence: None) -> dict[str, Any]:
    """Every chat built, then up to `questions` questions in each arm; the whole report."""
    bench_runs = []
    left = questions
    for number, chat in enumerate(chats):
        if left <= 0:
            break
        home = settings.home if len(chats) == 1 else settings.home / f"chat-{number}"
        bench = Bench(dataclasses.replace(settings, home=home), say)
        try:
            built = await bench.build(chat)
            summary, baseline_cost = ("", None)
            if "baseline" in settings.arms:
                summary, baseline_cost = await bench.summary(chat)
            answers = []
            asked = spread(chat.facts, left)
            alone = search_alone(chat, asked, settings.as_notes, home) if SEARCH_ALONE in settings.arms else None
            for fact in asked:
                for arm in (arm for arm in settings.arms if arm != SEARCH_ALONE):
                    answer = await bench.ask(fact, arm, summary)
                    say(f"{arm:8} {fact.kind:11} {answer.score:10} {fact.question}")
                    answers.append(answer)
            left -= min(left, len(chat.facts))
        finally:
            await bench.close()
        bench_runs.append({"chat": chat.name, "home": str(home), "built": built, "baseline_summary": baseline_cost,
                           "passed_over": chat.passed_over, "answers": answers, "search_alone": alone})
    return report(settings, bench_runs)


def report(settings: BenchSettings, runs: list[dict[str, Any]]) -> dict[str, Any]:
    answers: list[Answer] = [answer for one in runs for answer in one["answers"]]
    notes = []
    urls = list(dict.fromkeys(settings.url_of(model) for model in (settings.model, settings.memory_model)))
    local = [url for url in urls if loopback(url)]
    if local:
        notes.append(MEASURES_NOTHING_LOCAL.format(url=", ".join(local)))
    for one in runs:
        if one["built"]["view_lines"] >= one["built"]["messages"]:
            notes.append(MEASURES_NOTHING_SMALL.format(count=one["built"]["messages"]))
            break
    arms = {}
    for arm in settings.arms:
        if arm == SEARCH_ALONE:
            arms[arm] = alone_row([one["search_alone"] for one in runs if one.get("search_alone")])
            continue
        mine = [a for a in answers if a.arm == arm]
        costs = [a.cost_e8 for a in mine]
        kinds = sorted({a.kind for a in mine})
        arms[arm] = {
            "asked": len(mine),
            "right": sum(a.score == "right" for a in mine),
            "superseded": sum(a.score == "superseded" for a in mine),
            "failed": sum(a.score == "failed" for a in mine),
            "by_kind": {kind: [sum(a.score == "right" for a in mine if a.kind == kind),
                               sum(a.kind == kind for a in mine)] for kind in kinds},
            "judged_right": sum(a.judged is True for a in mine) if settings.judge else None,
            "zooms": sum(a.zooms for a in mine), "searches": sum(a.searches for a in mine),
            "calls": sum(a.calls for a in mine),
            "usage": dataclasses.asdict(sum((a.usage for a in mine), Usage())),
            "cost_e8": None if None in costs else sum(costs),
            "seconds": round(sum(a.seconds for a in mine), 1),
        }
    return {"api": settings.url_of(settings.model), "memory_api": settings.url_of(settings.memory_model),
            "model": settings.model, "memory_model": settings.memory_model, "judge": settings.judge, "as_notes": settings.as_notes,
            "notes": notes, "arms": arms,
            "chats": [dict(one, answers=[a.as_dict() for a in one["answers"]]) for one in runs]}


def alone_row(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The search-alone arm's row, in the other arms' shape: no calls, no tokens, no dollars."""
    by_kind: dict[str, list[int]] = {}
    for result in results:
        for kind, (right, asked) in result["by_kind"].items():
            by_kind.setdefault(kind, [0, 0])
            by_kind[kind][0] += right
            by_kind[kind][1] += asked
    return {"asked": sum(r["asked"] for r in results), "right": sum(r["right"] for r in results),
            "superseded": 0, "failed": 0, "by_kind": dict(sorted(by_kind.items())), "judged_right": None,
            "zooms": 0, "searches": sum(r["asked"] for r in results), "calls": 0,
            "usage": dataclasses.asdict(Usage()), "cost_e8": 0,
            "seconds": round(sum(r["seconds"] for r in results), 1), "top": SEARCH_ALONE_TOP}


def table(result: dict[str, Any]) -> str:
    """The short table: one row an arm, then the notes."""
    if result["memory_api"] == result["api"]:
        lines = [f"Recall: answers by {result['model']}, tree by {result['memory_model']}, at {result['api']}."]
    else:
        lines = [f"Recall: answers by {result['model']} at {result['api']}, tree by {result['memory_model']} "
                 f"at {result['memory_api']}."]
    lines += result["notes"]  # first, so that nobody reads a figure without them
    for one in result["chats"]:
        built = one["built"]
        cost = "?" if built["cost_e8"] is None else dollars_text(built["cost_e8"])
        line = (f"{one['chat']}: view {built['view_lines']:,} lines ({built['view_bytes']:,} bytes); the tree "
                f"took {built['compaction_calls']:,} calls, {cost}")
        summary = one.get("baseline_summary")
        if summary:
            summary_cost = "?" if summary["cost_e8"] is None else dollars_text(summary["cost_e8"])
            line += f"; the baseline's summary {summary['calls']:,} calls, {summary_cost}"
        if one["passed_over"]:
            line += f"; {one['passed_over']} questions with no answer passed over"
        lines.append(line)
    kinds = sorted({kind for arm in result["arms"].values() for kind in arm["by_kind"]})
    head = f"{'arm':9}{'right':>9}  " + "".join(f"{kind[:11]:>12}" for kind in kinds) + \
        f"{'zooms':>7}{'searches':>9}{'tokens':>11}{'dollars':>10}{'seconds':>9}"
    lines += ["", head]
    for arm, row in result["arms"].items():
        usage = row["usage"]
        tokens = sum(usage.values())
        cost = "?" if row["cost_e8"] is None else dollars_text(row["cost_e8"])
        cells = "".join(f"{f'{r}/{n}':>12}" for r, n in (row["by_kind"].get(kind, [0, 0]) for kind in kinds))
        lines.append(f"{arm[:8]:9}{str(row['right']) + '/' + str(row['asked']):>9}  {cells}{row['zooms']:>7}{row['searches']:>9}"
                     f"{tokens:>11,}{cost:>10}{row['seconds']:>9.1f}")
        extra = []
        if row["superseded"]:
            extra.append(f"{row['superseded']} gave a superseded instruction")
        if row["failed"]:
            extra.append(f"{row['failed']} calls failed")
        if row["judged_right"] is not None:
            extra.append(f"the judge says {row['judged_right']} right")
        if arm == SEARCH_ALONE:
            extra.append(f"no model: right is the planted message in the search tool's top {row['top']} "
                         "for the question's words")
        if extra:
            lines.append(f"{'':9}{'; '.join(extra)}")
    return "\n".join(lines)
