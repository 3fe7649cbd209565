"""A turn: one user message, a fresh call that sees the view, the tools it calls [gist §6].

    view  = await memory.settle(timeout)      # [P17] wait, then render, then log
    record = memory.append("user", m)
    call [tools] [system] [view] [state] [m]  # nothing carried over from earlier turns
    log each reply, tool call and tool result as it happens

The request's prefix is the compactions' own: the same tools and system prompt (`harness/calls/prompt.py`),
then the view in blocks of 4 lines with a cache mark on the last whole block [gist §3.3]. The
per-turn state (the local date and time, the working directory) goes after the view, before the
user's words, never in the system prompt [gist §6, §7.10]. A second mark sits on the request's
end; inside the tool loop it moves with the conversation, so a turn never carries more than the
system's, the view's and the end's: 3 of the 4 the API allows. The loop is harness/calls/loop.py's,
which a turn configures (its caps, its log, what joins between calls); the provider
(harness/calls/anthropic.py) puts the marks on the wire.

Thoughts are shown, never logged [gist §1]; they go back to the API inside the tool loop only, as
the API requires. A tool's output is clipped by the tools; any other long text (a long reply, a
long user message) is logged as several messages in a row, never cut [gist §1] [H2].

An image in a tool's result is kept in the chat's directory before its `echo` is logged, and the
echo names it; `zoom(id, 1)` on that echo gives the image back (harness/memory/images.py) [H8].

A turn has caps, as a subagent has (`TurnCaps`, from the config's `[turn]`): its calls, its tool
calls, its tokens, its wall time and the bytes its replies stream (text, thinking and tool input).
A cap reached ends the turn: what was shown of the reply so far is logged with a mark saying which
cap ended it, its cost is recorded, and the sentence is the turn's error. A model that keeps calling
a tool, or a reply that streams without end, so costs at most what the caps allow.
"""

import asyncio
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Union

from harness.calls.anthropic import provider_of
from harness.calls.arguments import date_error, page_error, zoom_error
from harness.calls.budget import Chain
from harness.calls.caps import TurnCaps
from harness.calls.loop import CAP, FAILED, STOPPED, CapReached, ToolLoop
from harness.calls.outcomes import Reply, Usage
from harness.calls.prompt import Prompt, chat_blocks, view_mark
from harness.calls.provider import Streamed
from harness.calls.redaction import redact
from harness.calls.tool import AGENTS, MEMORY, TOOLS_BY_NAME
from harness.calls.tools import WorkTools
from harness.calls.usage import cost_e8, record_usage, usage_record
from harness.memory.accepted import Accepted
from harness.memory.images import ToolResult, error_result, kept, text_result, with_images
from harness.memory.search import SearchError, found_text, run_search
from harness.memory.service import Memory
from harness.memory.text import split_long, valid_text
from harness.memory.view_text import PLACEHOLDER

if TYPE_CHECKING:  # the SDK is imported only where a call is made
    from harness.calls.client import Client

JSON = dict[str, Any]
MAX_TOKENS = 16_000
STOPPED_MARK = "\n[stopped: the user stopped this reply here]"




class Output(Protocol):
    """Where a turn shows itself: the terminal, or a client of the chat's socket."""

    def text(self, delta: str) -> None: ...
    def thinking(self, delta: str) -> None: ...
    def tool(self, name: str, tool_input: JSON) -> None: ...
    def result(self, text: str, is_error: bool) -> None: ...
    def notice(self, sentence: str) -> None: ...


class Quiet:
    """An output that shows nothing (tests, and `ever send` keeps only the final reply)."""

    def text(self, delta: str) -> None:
        pass

    def thinking(self, delta: str) -> None:
        pass

    def tool(self, name: str, tool_input: JSON) -> None:
        pass

    def result(self, text: str, is_error: bool) -> None:
        pass

    def notice(self, sentence: str) -> None:
        pass


def unbuilt_sentence(lines: list[str]) -> str:
    """[H34] When a quarter or more of the view's lines are placeholders (history imported or
    written faster than the compactor summarizes it), how many, and that search reads the log
    itself: the model and the person know the view is thin and what still finds any word."""
    unbuilt = sum(1 for line in lines if line.endswith(("|" + PLACEHOLDER, ", " + PLACEHOLDER)))
    if not lines or unbuilt * 4 < len(lines):
        return ""
    return (f"{unbuilt:,} of the view's {len(lines):,} lines are not summarized yet, the compactor "
            "at work on them; search finds any word of the whole chat now")


@dataclass
class TurnSettings:
    model: str
    settle_timeout_seconds: float = 20.0
    max_tokens: int = MAX_TOKENS
    workdir: str = field(default_factory=os.getcwd)
    home: Path | None = None  # EVER_HOME, for the usage records
    thinking: Union[str, int] = "off"  # as harness/calls/models.py has it for the model
    cache_marks: bool = True  # the config's cache.marks
    # [H11] the end mark on the user's message in a turn's first call: measured against
    # none there (tests/calls/test_turn_cache.py); it pays when more than about a fifth of turns call a tool
    end_mark_first_call: bool = True
    clock: Callable[[], datetime] = lambda: datetime.now().astimezone()
    caps: TurnCaps = TurnCaps()
    monotonic: Callable[[], float] = time.monotonic  # the seconds cap's clock; a test's own


@dataclass
class TurnResult:
    reply: str  # the turn's last text, "" when it failed
    error: str = ""  # one sentence, when the call could not be made
    calls: int = 0
    cache_read_share: float = 0.0  # of the turn's last call
    cost_e8: int | None = None  # the last call's cost in 10^-8 dollars; None if unpriced
    tokens: int = 0  # the last call's prompt and output tokens, shown when it is unpriced


class Turn(ToolLoop):
    """One user message's call and its tool loop (harness/calls/loop.py); see the module's text."""

    starts_agents = True  # the master's turns; a subagent starts none (harness/calls/agents.py)

    def __init__(self, memory: Memory, client: "Client", prompt: Prompt, tools: WorkTools,
                 settings: TurnSettings, output: Output | None = None, agents: Any = None):
        self.memory = memory
        self.client = client
        self.provider = provider_of(client)  # the Messages API's, unless a provider is given
        self.prompt = prompt
        self.tools = tools
        self.settings = settings
        self.output = output or Quiet()
        self.inbox: list[Accepted] = []  # messages the user typed while the call runs [gist §6]
        self.requests: list[JSON] = []  # each request sent, for status and tests
        self.turn_id = -1
        self._shown: list[str] = []  # the running call's text as shown so far
        self._usage: Usage | None = None  # the running call's usage as the API told it
        self.agents = agents  # the chat's subagents: `agent`, zoom("Name"), their reports
        self.chain = Chain()  # [H15] its message's chain; a report's turn gets its chain's
        self.spent = self.chain.spent  # against the caps: the chain's, shared by its report turns
        self.subagents_started = 0
        self.started = 0.0  # the monotonic time the turn's first call was about to be sent
        self.result = TurnResult("")

    def add_message(self, message: Accepted) -> None:
        """A message typed while the call runs joins it between tool calls [gist §6]."""
        self.inbox.append(message)

    def checked(self, text: str) -> str:
        """A text from inside Ever (a reply, a tool's result, a report) as Ever keeps, sends and
        shows it: valid UTF-8 and without the key [P14] [H3]. A user's message is made so
        where it enters (harness/memory/accepted.py), not here."""
        return redact(valid_text(text), self.tools.secrets)

    def log(self, kind: str, text: str) -> None:
        for piece in split_long(self.checked(text)):
            self.memory.append(kind, piece)

    def log_accepted(self, message: Accepted) -> None:
        """A user's message as it entered, its key ending its last line [S8] [S9] [S11]."""
        self.memory.append_accepted(message)

    async def run(self, message: Union[Accepted, str], kind: str = "user", logged: bool = False) -> TurnResult:
        """The turn of `message`: a user's message, or a text from inside Ever (a subagent's report,
        `work`, that no turn took). `logged`: the message is in the log already (delivered before
        a crash, never answered: the chat's inbox [S9]); the turn answers it without
        logging it again."""
        memory = self.memory
        if isinstance(message, Accepted):
            text = message.text  # made valid and the key hidden where it entered
        else:
            text = self.checked(message)  # the same text logged and sent

        def log_it() -> None:
            if isinstance(message, Accepted):
                self.log_accepted(message)
            else:
                self.log(kind, text)

        try:
            view_text = await memory.settle(self.settings.settle_timeout_seconds)
        except asyncio.CancelledError:
            if not logged:
                log_it()  # stopped while it waited: the message is kept, unanswered
            raise
        lines = view_text.split("\n")[1:-1]  # between "<chat>" and "</chat>"
        self.turn_id = memory.planner.T  # the user message's id: the turn's name in usage records
        if self.chain.root < 0:
            self.chain.root = self.turn_id  # [H15] a message's turn roots its chain
        if not logged:
            log_it()  # [P17] after the view is rendered
        now = self.settings.clock()
        state = f"[{now:%Y-%m-%d %H:%M} {now.tzname() or ''}; working directory: {self.settings.workdir}"
        unbuilt = unbuilt_sentence(lines)
        if unbuilt:  # [H34] said to the model beside the view, and to the person before the reply
            state += "; " + unbuilt
            self.output.notice(f"(memory: {unbuilt}.)")
        state += "]"
        first = chat_blocks(lines) + [
            {"type": "text", "text": state},
            {"type": "text", "text": text},
        ]
        self.result = result = TurnResult("")
        self.started = self.settings.monotonic()
        end = await self.calls(first, view_mark(lines))
        if end.how == CAP:
            return self._capped(end.sentence, result, self._shown if end.cut else None)
        if end.how == FAILED:
            # every attempt that was billed counts in `ever cost`, the failed ones too
            self._record(getattr(end.error, "spent", Usage()))
            result.error = (f"The call failed: {end.error}. Your message is in the log, so do not send it "
                            "again: the next turn will see it.")
            self.output.notice(result.error)
        elif end.how == STOPPED:
            result.error = end.sentence
            self.output.notice(end.sentence)
        return result

    # ---- the tool loop's configuration (harness/calls/loop.py) ----

    def over_cap(self) -> str:
        self._shown, self._usage = [], None
        return self._over_cap()

    def tool_cap(self, uses: list[JSON]) -> str:
        if self.spent["tool_calls"] + len(uses) <= self.settings.caps.tool_calls:
            return ""
        asked = ", ".join(block["name"] for block in uses)
        return (f"its cap of {self.settings.caps.tool_calls:,} tool calls; "
                f"its last reply asked for {asked}, not run")

    def end_mark_first(self) -> bool:
        return self.settings.end_mark_first_call

    def answered(self, reply: Reply) -> None:
        result = self.result
        result.calls += 1
        prompt_tokens = reply.usage.prompt_tokens or 1
        result.cache_read_share = reply.usage.cache_read_input_tokens / prompt_tokens
        result.cost_e8 = self._record(reply.spent, answered=True)
        result.tokens = reply.spent.prompt_tokens + reply.spent.output_tokens

    def said(self, texts: list[str]) -> None:
        self.result.reply = self.checked(texts[-1])

    def joined(self) -> list[JSON]:
        joined = []
        while self.inbox:
            typed = self.inbox.pop(0)
            self.log_accepted(typed)
            joined.append({"type": "text", "text": typed.text})
        if self.agents is not None and self.starts_agents:
            joined += self.agents.joined(self)  # subagents' reports, logged as `work` [gist §6]
        return joined

    async def run_tool(self, name: str, tool_input: Any) -> ToolResult:
        return await self._call(name, tool_input)

    def cancelled(self) -> None:
        self._stopped()

    def _over_cap(self) -> str:
        """Which cap a next call would pass, as the sentence names it; "" if none."""
        caps, spent = self.settings.caps, self.spent
        if spent["calls"] >= caps.calls:
            return f"its cap of {caps.calls:,} calls"
        if spent["tokens"] >= caps.tokens:
            return f"its cap of {caps.tokens:,} tokens ({spent['tokens']:,} used)"
        if self.settings.monotonic() - self.started >= caps.seconds:
            return f"its cap of {caps.seconds:g} s of wall time"
        return ""

    def _capped(self, cap: str, result: TurnResult, shown: list[str] | None = None) -> TurnResult:
        """The turn ends at a cap: the reply shown so far (a reply cut at the cap) and a mark
        saying which cap are logged, its cost recorded; the sentence is the turn's error."""
        sentence = (f"The turn stopped: it reached {cap} ({self.spent['calls']} calls, "
                    f"{self.spent['tool_calls']} tool calls). What it did so far is in the log.")
        kept = "".join(shown or []).rstrip("\n")
        if shown is not None and self._usage is not None:
            self._record(self._usage)
        self.log("ever", (kept + "\n" if kept.strip() else "") + f"[stopped: the turn reached {cap}]")
        if kept.strip():
            result.reply = self.checked(kept)
        result.error = sentence
        self.output.notice(sentence)
        return result

    def _turn_id(self) -> int:
        return self.turn_id

    def _record(self, spent: Usage, answered: bool = False) -> int | None:
        """Record a call's usage, all its attempts (a failed call only if it was billed); its
        cost in 10^-8 dollars, None if unpriced."""
        record = usage_record("turn", self._turn_id(), self.settings.model, spent,
                              self.memory.store.date_now(), chain=self.chain.root)
        if self.settings.home and (answered or spent.prompt_tokens or spent.output_tokens):
            record_usage(self.settings.home, record, self.memory.store.disk)
        return cost_e8(record)

    def _stopped(self) -> None:
        """Ctrl-C during a reply: what was shown of it is logged, marked, and what the API said it
        cost is recorded, so the log and `ever cost` match what happened [gist §1]."""
        shown = "".join(self._shown)
        if shown.strip():
            self.log("ever", shown.rstrip("\n") + STOPPED_MARK)
        if self._usage is not None:
            self._record(self._usage)

    def on_streamed(self, piece: Streamed) -> None:
        if piece.kind == "usage":
            self._usage = piece.usage
            return
        self.spent["output_bytes"] += len(piece.text.encode("utf-8", "surrogatepass"))
        caps = self.settings.caps
        if self.spent["output_bytes"] > caps.output_bytes:
            raise CapReached(f"its cap of {caps.output_bytes:,} output bytes")
        if self.settings.monotonic() - self.started >= caps.seconds:
            raise CapReached(f"its cap of {caps.seconds:g} s of wall time")
        if piece.kind == "text":
            self._shown.append(piece.text)
            self.output.text(piece.text)
        elif piece.kind == "thinking":
            self.output.thinking(piece.text)

    async def _call(self, name: str, tool_input: Any) -> ToolResult:
        """Run one tool call; log it and its result as they happen [gist §1, §6]."""
        self.log("tool", f"{name} {json.dumps(tool_input, ensure_ascii=False, sort_keys=True)}")
        self.output.tool(name, tool_input if isinstance(tool_input, dict) else {})
        tool = TOOLS_BY_NAME.get(name)
        runs_in = tool.runs_in if tool is not None else None
        if runs_in == AGENTS and self.agents is not None and self.starts_agents:
            result = (self.agents.start(tool_input, self) if name == "agent"
                      else self.agents.tell_tool(tool_input, self))
        elif name == "zoom" and isinstance(tool_input, dict) and isinstance(tool_input.get("id"), str) \
                and self.agents is not None:
            result = self.agents.zoom(tool_input)  # zoom("Name") [gist §6]
        elif runs_in == MEMORY and name in ("zoom", "date", "search"):
            result = self._memory_tool(name, tool_input)
        else:
            result = await asyncio.to_thread(self.tools.run, name, tool_input)
            if result.images():
                # [H8] on disk before the echo that names it
                result = await asyncio.to_thread(kept, result, self.memory.store.chat, self.memory.store.disk)
        text = result.text()
        self.log("echo", text)
        self.output.result(text, result.is_error)
        return result

    def _search(self, tool_input: dict) -> ToolResult:
        query, page = tool_input.get("query"), tool_input.get("page", 1)
        if not isinstance(query, str):
            return error_result("search: query must be text, the words to find.")
        if isinstance(page, bool) or not isinstance(page, int) or page < 1:
            return error_result(f"search: page must be a whole number, 1 or more; got {page!r}.")
        try:
            found = run_search(self.memory.store, self.memory.planner.view.lines(), query, page)
        except SearchError as error:
            return error_result(f"search: {error}.")
        return text_result(found_text(found))

    def _memory_tool(self, name: str, tool_input: Any) -> ToolResult:
        T = self.memory.planner.T
        if not isinstance(tool_input, dict):
            return error_result(f"{name}: the input must be a JSON object.")
        if name == "zoom":
            first, n, page = tool_input.get("id"), tool_input.get("n"), tool_input.get("page", 1)
            problem = zoom_error(first, n, T) or page_error(n, page)
            if problem:
                return error_result(problem)
            text = self.memory.zoom(first, n, page)
            if text.startswith(f"zoom: message {first} has "):  # a page past the message's last
                return error_result(text)
            if n == 1:  # the message whole, with its images [gist §6] [H8]
                return ToolResult(with_images(text, self.memory.store.chat, self.memory.store.disk), False)
            return ToolResult(({"type": "text", "text": text},), False)
        if name == "search":
            return self._search(tool_input)
        first = tool_input.get("id")
        problem = date_error(first, T)
        if problem:
            return error_result(problem)
        return ToolResult(({"type": "text", "text": self.memory.date(first)},), False)
