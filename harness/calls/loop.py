"""The one tool loop [A7]: a turn (harness/calls/turn.py), a subagent (harness/calls/agents.py)
and the recall benchmark's turn (harness/chat/recall.py) are configurations of it.

    end = await loop.calls(first, view_at)     # the first user message's blocks, the view's mark
    end.how                                     # DONE, STOPPED, CAP or FAILED

Each call sends the prompt's tools and system, then the conversation, marked at the system's end,
at the view's last whole block and (but on a turn's first call without [H11]) at the end
[gist §3.3]; the provider puts the marks on the wire. A configuration says what it is offered
(its prompt), what it may spend (`over_cap`, `tool_cap`), where its lines go (`log`, `said`), what
joins between calls (`joined`), how it records a call (`answered`) and whether it watches the
stream (`on_streamed`).

**The stop policy**, decided once, for every configuration. A reply's text is logged whatever its
stop reason; then, by the stop reason in Ever's words (harness/calls/outcomes.py `Stop`):

- WHOLE (end_turn, stop_sequence): the loop ends, done. Tool calls run only on TOOLS.
- TOOLS (tool_use): its calls run, in order, their results and what joins go back, and the loop
  goes on; a tool_use reply without a tool call is done.
- PAUSED (pause_turn): the reply goes back as it is and the loop goes on, running none of its
  calls.
- LENGTH (max_tokens), REFUSED (refusal), WINDOW (model_context_window_exceeded), UNKNOWN (a
  reason this Ever does not know): the loop stops with one sentence; none of the reply's tool
  calls run (their input may be cut).

**[A7] — one stop policy.** Why these and not others. A tool call runs only when the reply asks
for it (`tool_use`): a call in a reply that ended otherwise was not meant to run, or was cut
inside its input. `pause_turn` is the API saying "send this back and I go on": a subagent that
took it for its end would report half its work as done. A refusal, a full window or a reason
nobody named is not the model's answer to the task: a subagent that called it "done" would hand
the master a refusal as its report, so it ends the way a turn does, with the sentence, and its
report says it ended without a whole reply. A reason not known stops rather than runs: a new
reason is safer shown than guessed. The subagent's own words for each end (its report, [A5]) come
from this one end; harness/calls/agents.py `Subagent.ending` says them.
"""

import asyncio
from dataclasses import dataclass
from typing import Any

from harness.calls.outcomes import Refused, Reply, RetriesExhausted, Stop, Unusable
from harness.calls.provider import SYSTEM, Call, Streamed
from harness.calls.requests import sent_back
from harness.memory.images import ToolResult

JSON = dict[str, Any]
DONE, STOPPED, CAP, FAILED = "done", "stopped", "cap", "failed"


class CapReached(Exception):
    """A cap is reached while a reply streams; the message is the sentence's middle: "its cap of
    3 calls"."""


@dataclass(frozen=True)
class End:
    """How the loop ended: `how`, the sentence saying why when it was not done, the stop reason as
    the provider named it, the last reply's tool calls that were not run."""

    how: str
    sentence: str = ""
    stop_reason: str | None = None
    asked: tuple[JSON, ...] = ()
    error: BaseException | None = None  # FAILED: the call's outcome
    stop: Stop | None = None  # STOPPED: the stop, in Ever's words
    cut: bool = False  # CAP: reached while a reply streamed


def stop_sentence(stop: Stop | None, stop_reason: str | None) -> str:
    """What a stop means when it ends the loop unfinished, in one sentence; "" when the reply is
    whole or goes on."""
    if stop in (Stop.WHOLE, Stop.TOOLS, Stop.PAUSED):
        return ""
    if stop is Stop.LENGTH:
        return (f"The reply was cut at {stop_reason} before it ended; its tool calls were not run "
                "(they may be incomplete).")
    if stop is Stop.REFUSED:
        return f"The model declined to answer this (stop reason: {stop_reason})."
    if stop is Stop.WINDOW:
        return "The request filled the model's context window; the reply was cut."
    return (f"The reply stopped for a reason Ever does not know (stop reason: {stop_reason}); its "
            "tool calls were not run.")


class ToolLoop:
    """The loop; a subclass configures it (see the module's text). It needs `provider`, `prompt`,
    `settings` (model, max_tokens, thinking, cache_marks, monotonic), `requests` and `spent`."""

    provider: Any
    prompt: Any
    settings: Any
    requests: list[Any]
    spent: dict[str, int]
    spend: Any = None  # the chat's window (harness/calls/budget.py `Spend`); None: no chat cap

    # ---- the configuration ----

    def over_cap(self) -> str:
        """The cap a next call would pass, as its sentence names it; "" if none."""
        return ""

    def tool_cap(self, uses: list[JSON]) -> str:
        """The cap running these calls would pass; "" if none."""
        return ""

    def chat_cap(self) -> str:
        """The chat's cap a next call would pass, whoever's loop this is [H15]; "" if none."""
        return self.spend.over() if self.spend is not None else ""

    def end_mark_first(self) -> bool:
        """Whether the first call marks its end as well as the view [H11]."""
        return True

    def on_streamed(self, piece: Streamed) -> None:
        """A piece of the reply as it streams; may raise CapReached."""

    def watches(self) -> bool:
        return True

    def answered(self, reply: Reply) -> None:
        """A call answered: count and record it."""

    def said(self, texts: list[str]) -> None:
        """The reply's texts, logged already."""

    def log(self, kind: str, text: str) -> None:
        """Where a line of the call goes: no default, as a turn logs to the chat and a subagent
        to its own log [gist §6]; each configuration says which."""
        raise NotImplementedError

    def joined(self) -> list[JSON]:
        """What joins the tool results between calls."""
        return []

    async def run_tool(self, name: str, tool_input: Any) -> ToolResult:
        """A tool call run: no default, as the tools offered are each configuration's own."""
        raise NotImplementedError

    def cancelled(self) -> None:
        """Stopped while a reply streamed."""

    # ---- the loop ----

    def marks(self, messages: list[JSON], view_at: int | None, first_call: bool) -> tuple[tuple[int, int], ...]:
        """Where the call's cached prefixes end [gist §3.3]: the system's end [C2], the view's last
        whole block, and the conversation's end; none with `cache.marks = false`."""
        if not self.settings.cache_marks:
            return ()
        places = [(SYSTEM, len(self.prompt.system) - 1)]
        if view_at is not None:
            places.append((0, view_at))
        if not first_call or self.end_mark_first():
            places.append((len(messages) - 1, len(messages[-1]["content"]) - 1))
        return tuple(places)

    def call(self, messages: list[JSON], marks: tuple[tuple[int, int], ...]) -> Call:
        s = self.settings
        return Call(s.model, s.max_tokens, tuple(self.prompt.system), tuple(self.prompt.tools),
                    tuple(messages), marks, thinking=s.thinking)

    async def calls(self, first: list[JSON], view_at: int | None) -> End:
        """Call, run the tools, call again, until the stop policy ends it."""
        messages: list[JSON] = [{"role": "user", "content": first}]
        first_call = True
        while True:
            over = self.over_cap() or self.chat_cap()
            if over:
                return End(CAP, over)
            request = self.provider.request(self.call(messages, self.marks(messages, view_at, first_call)))
            first_call = False
            self.requests.append(request)
            try:
                reply = await self.provider.stream(request, on_event=self.on_streamed if self.watches() else None)
            except asyncio.CancelledError:
                self.cancelled()
                raise
            except CapReached as cap:
                return End(CAP, str(cap), cut=True)
            except (Refused, Unusable, RetriesExhausted) as error:
                return End(FAILED, str(error), error=error)
            self.spent["calls"] += 1
            self.spent["tokens"] += reply.usage.prompt_tokens + reply.usage.output_tokens
            if self.spend is not None:  # [H15] every call of the chat counts in its window
                self.spend.record(self.settings.model, reply.spent)
            self.answered(reply)
            uses = [block for block in reply.content if block["type"] == "tool_use"]
            runs = reply.stop is Stop.TOOLS and bool(uses)
            over = self.tool_cap(uses) if runs else ""
            texts, results = [], []
            for block in reply.content:
                if block["type"] == "text" and block["text"].strip():
                    self.log("ever", block["text"])
                    texts.append(block["text"])
                elif block["type"] == "tool_use" and runs and not over:
                    self.spent["tool_calls"] += 1
                    result = await self.run_tool(block["name"], block.get("input", {}))
                    results.append(result.block(block["id"]))
            if texts:
                self.said(texts)
            if over:
                return End(CAP, over, reply.stop_reason, tuple(uses))
            sentence = stop_sentence(reply.stop, reply.stop_reason)
            if sentence:
                return End(STOPPED, sentence, reply.stop_reason, tuple(uses), stop=reply.stop)
            if reply.stop is Stop.PAUSED:
                messages.append({"role": "assistant", "content": sent_back(list(reply.content))})
                continue
            if not runs:
                return End(DONE, stop_reason=reply.stop_reason)
            messages.append({"role": "assistant", "content": sent_back(list(reply.content))})
            messages.append({"role": "user", "content": results + self.joined()})
