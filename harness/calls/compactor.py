"""The compactor: one model call builds one node of the tree [gist §4].

    compactor = Compactor(client, Prompt.load(ever_home), MemorySettings.from_config(memory, turns_model))
    result = await compactor.build(job_for(planner, l, i))
    planner.apply(result.event())              # Built(l, i, line) or Failed(l, i)

A compaction is a call like a turn, with the turns' own tools and system prompt (never called), so
it reads them from the same cache entry; then its view and its task [gist §4]:

    [tools] [system prompt] [<chat> its context </chat>] [task]

all in one user message: the context in blocks of 4 lines, a cache mark on the last whole block and
one on the request's end, with the one on the system prompt's end, so at most 3 of the API's 4
marks, all 5-minute ones [gist §3.3] [C1]. Tools are never called: `tool_choice` is
`none` [C3]. If the line is over 512 bytes the "Too long" follow-up goes in the same
conversation, the end mark moving to it (harness/memory/line.py's `Tries`: at most 5 tries, the shortest
line kept, cut to 512 bytes).

The result is the line (made valid text, [P14]) or a content failure: the model answered and no
line could be made of it (an empty reply, a refusal) [P16]. Transient trouble never comes
back here: the client retries it while the call stays running. Anything else the API says — a
request it refuses (`Refused`: a 400, a setting the model does not take), `Unusable` (the key,
billing, permission, the model, a spend limit, an organization on hold) or `RetriesExhausted` — is
no node's failure: `build` raises `Paused` with the client's sentence (what failed, the URL, what
to do), and the service pauses the compactor [C11]. Cancelling `build` (the service stops a
call) raises `asyncio.CancelledError` through it and leaves nothing behind: the compactor keeps no
state between calls, and the client's prefix gate lets its waiters go.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

from harness.calls.anthropic import provider_of
from harness.calls.models import EFFORTS, THINKING_OFF, setting_problem
from harness.calls.outcomes import Refused, RetriesExhausted, SettingsError, Stop, Unusable, Usage
from harness.calls.prompt import Prompt, chat_blocks, compress_task, merge_task, view_mark
from harness.calls.provider import SYSTEM, Call
from harness.calls.requests import thinking_fields
from harness.memory.events import Built, Failed
from harness.memory.line import Tries
from harness.memory.planner import last_message
from harness.memory.service import Paused
from harness.memory.text import valid_text
from harness.memory.view_text import escaped, node_name, shown

if TYPE_CHECKING:  # the SDK is imported only where a call is made
    from harness.calls.client import Client

JSON = dict
# [C8] a cheap model of its own by default: see docs/compactor.md for the measured costs
DEFAULT_MODEL = "claude-haiku-5-5"  # [H32]
TURNS_MODEL = "turns"  # memory.model = "turns": compactions on the turns' model, sharing its cache
MAX_TOKENS_DEFAULT = 16_000


@dataclass(frozen=True)
class MemorySettings:
    """The chat config's `memory.*` keys that shape a compaction [C8] [C9].

    - `model`: the compaction model; "turns" means the turns' model.
    - `thinking`: "off" (no thinking), an effort level (low, medium, high, xhigh, max: adaptive
      thinking with `output_config.effort`, for models that take effort), or a whole number of
      tokens (extended thinking with that budget, for models that take only a budget).
    - `max_tokens`: the reply's limit, thinking included.
    """

    model: str = DEFAULT_MODEL
    thinking: Union[str, int] = THINKING_OFF
    max_tokens: int = MAX_TOKENS_DEFAULT

    def __post_init__(self) -> None:
        if not isinstance(self.model, str) or not self.model or self.model == TURNS_MODEL:
            raise SettingsError(f"memory.model must name a model, not {self.model!r}.")
        if not isinstance(self.max_tokens, int) or isinstance(self.max_tokens, bool) or self.max_tokens < 1:
            raise SettingsError(f"memory.max_tokens must be a positive whole number, not {self.max_tokens!r}.")
        thinking = self.thinking
        if isinstance(thinking, bool) or not (thinking == THINKING_OFF or thinking in EFFORTS
                                               or isinstance(thinking, int)):
            raise SettingsError(f"memory.thinking must be off, one of {', '.join(EFFORTS)}, or a token "
                                f"budget, not {thinking!r}.")
        if isinstance(thinking, int) and not 1024 <= thinking < self.max_tokens:
            raise SettingsError(f"memory.thinking as a budget must be at least 1024 and below "
                                f"memory.max_tokens ({self.max_tokens}), not {thinking}.")
        # the capability table refuses what the model lacks, before any call (harness/calls/models.py)
        problem = setting_problem(self.model, thinking, self.max_tokens)
        if problem:
            raise SettingsError(problem)

    @classmethod
    def from_config(cls, memory: Mapping[str, Any], turns_model: str) -> "MemorySettings":
        """From the config's `memory` table; unknown keys are an error, so a typo is not silent."""
        known = {"model", "thinking", "max_tokens"}
        unknown = sorted(set(memory) - known)
        if unknown:
            raise SettingsError(f"unknown memory setting {unknown[0]!r} (known: {', '.join(sorted(known))}).")
        model = memory.get("model", DEFAULT_MODEL)
        if model == TURNS_MODEL:
            model = turns_model
        return cls(model=model, thinking=memory.get("thinking", THINKING_OFF),
                   max_tokens=memory.get("max_tokens", MAX_TOKENS_DEFAULT))

    def thinking_options(self) -> JSON:
        """The request fields for `thinking` [C9], as the capability table has them for
        the model (off is `disabled` where thinking is on by default): the same on every
        compaction, since a change breaks the message part of the cached prefix."""
        return thinking_fields(self.model, self.thinking)


# ---------------------------------------------------------------- jobs and results


@dataclass(frozen=True)
class Compress:
    """A message's node: its kind and its whole text [gist §4]."""

    kind: str
    text: str


@dataclass(frozen=True)
class Merge:
    """A merge's node: the texts of its two halves, node(l−1, 2i) and node(l−1, 2i+1)."""

    a: str
    b: str


@dataclass(frozen=True)
class Job:
    """One node to build: (l, i), its context (the compaction view's lines before it, rendered
    `id+n|text`, oldest first, built lines only [gist §4]) and its input."""

    l: int
    i: int
    context: tuple[str, ...]
    input: Union[Compress, Merge]

    def __post_init__(self) -> None:
        if (self.l == 0) != isinstance(self.input, Compress):
            raise ValueError(f"node {node_name(self.l, self.i)}: a message's node compresses, a merge merges")

    def task(self) -> str:
        if isinstance(self.input, Compress):
            # [P18] the message whole, but no tag or task mark of its own
            return compress_task(self.i, self.input.kind, escaped(self.input.text))
        l, i = self.l, self.i
        a_name, b_name = node_name(l - 1, 2 * i), node_name(l - 1, 2 * i + 1)
        # [C4] each half as the view shows it, `id+n|text`
        return merge_task(a_name, b_name, i << l, last_message(l, i),
                          a_name + "|" + shown(self.input.a), b_name + "|" + shown(self.input.b))


def job_for(planner: Any, l: int, i: int) -> Job:
    """The job for a node the planner runs: its context from `Planner.context`, its input from the
    planner's texts."""
    context = tuple(planner.rendered(line_l, line_i) for line_l, line_i in planner.context(l, i))
    if l == 0:
        kind, text = planner.texts.message(i)
        return Job(l, i, context, Compress(kind, text))
    a, b = planner.text(l - 1, 2 * i), planner.text(l - 1, 2 * i + 1)
    if a is None or b is None:
        raise ValueError(f"node {node_name(l, i)} is not ready: a half is not built")
    return Job(l, i, context, Merge(a, b))


@dataclass(frozen=True)
class Result:
    """A node's line, or a content failure with its reason [P16]."""

    l: int
    i: int
    text: str  # the line, 1 to 512 bytes; "" when failed
    failure: str | None  # None when built
    calls: int  # replies asked for: the first and its follow-ups
    attempts: int  # HTTP attempts, retries of transient trouble included
    usage: Usage  # every attempt's tokens
    follow_ups: tuple[str, ...] = field(default=())

    @property
    def failed(self) -> bool:
        return self.failure is not None

    def event(self) -> Union[Built, Failed]:
        return Failed(self.l, self.i) if self.failed else Built(self.l, self.i, self.text)


# ---------------------------------------------------------------- the compactor


class Compactor:
    """Builds nodes through a `Client`; see the module docstring. One per chat; `build` may run up
    to jobs_max times at once."""

    def __init__(self, client: "Client", prompt: Prompt, settings: MemorySettings,
                 marks: bool = True) -> None:
        self.client = client
        self.provider = provider_of(client)  # the Messages API's, unless a provider is given
        self.prompt = prompt
        self.settings = settings
        self.marks = marks  # the config's cache.marks

    def request(self, job: Job, exchanges: tuple[tuple[str, str], ...] = ()) -> JSON:
        """The request for a job's first try, or, after `exchanges` (each a reply and the follow-up
        it got), for the next one. Only the last user block carries the end mark [C1]."""
        s = self.settings
        first: list[JSON] = chat_blocks(job.context)
        first.append({"type": "text", "text": job.task()})
        messages: list[JSON] = [{"role": "user", "content": first}]
        for reply, follow_up in exchanges:
            messages.append({"role": "assistant", "content": [{"type": "text", "text": reply}]})
            messages.append({"role": "user", "content": [{"type": "text", "text": follow_up}]})
        view_at = view_mark(job.context)
        marks = ((SYSTEM, len(self.prompt.system) - 1),) + (((0, view_at),) if view_at is not None else ()) \
            + ((len(messages) - 1, len(messages[-1]["content"]) - 1),)
        call = Call(s.model, s.max_tokens, tuple(self.prompt.system), tuple(self.prompt.tools), tuple(messages),
                    marks if self.marks else (), tools_off=True, thinking=s.thinking)  # [C3]
        return self.provider.request(call)

    async def build(self, job: Job) -> Result:
        """Ask for the line, with follow-ups while it is too long; the line or a content failure."""
        tries = Tries()
        exchanges: tuple[tuple[str, str], ...] = ()
        usage = Usage()
        attempts = 0
        failure = "the reply was empty"
        while True:
            try:
                reply = await self.provider.stream(self.request(job, exchanges))
            except (Refused, Unusable, RetriesExhausted) as error:
                # [C11] not the model's answer: no try is counted
                raise Paused(str(error)) from None
            usage = usage + reply.spent
            attempts += reply.attempts
            if reply.stop is Stop.REFUSED:
                failure = "the model refused"
                break
            text = valid_text(reply.text)  # [P14]
            follow_up = tries.take(text)
            if follow_up is None:
                break
            exchanges = exchanges + ((text.strip(), follow_up),)
        outcome = tries.outcome()
        if outcome.text:
            return Result(job.l, job.i, outcome.text, None, outcome.calls, attempts, usage, outcome.follow_ups)
        return Result(job.l, job.i, "", failure, outcome.calls, attempts, usage, outcome.follow_ups)
