"""Subagents [gist §5, §6]: a fresh call in the background whose report always reaches the chat.

    agent(name, task)               the master's tool; the result says the subagent started
    tell(name, message)             the master's tool, and `/tell NAME TEXT` in the chat [gist §9]:
                                    logged in the subagent's log at once, read by it between its
                                    tool calls; a subagent that has ended is told nothing, and the
                                    answer says how it ended
    first message = [view] [state] [task]     the view settled, as a turn would send it
    system = the turns' prompt + SUBAGENT_ROLE; tools = the turns' without `agent` and `tell`
    its steps -> chat/agents/<Name>.jsonl (harness/memory/agentlog.py), never the chat's log
    its end   -> one `work` message "[Name] report", logged, then given to the master

The report is logged before the master reads it, by whoever gives it to the master: a running
turn takes it between its tool calls, as it takes a message the user typed [gist §6]; when no turn
runs (or the one running makes no further call) it starts a turn of its own, whose message it is.
The master never waits or polls: nothing here is awaited by a turn.

Every end reports, and says how it ended (agentlog.HOWS): its final reply ("done"); an API error; a
reply cut off inside a tool call; a cap (tokens, wall time, tool calls: `AgentCaps`, from the
config's `[agents]`); a stop (`/stop NAME` or Ctrl-C in the chat, or the chat closing: its report is
then logged at once, as no turn will run). An owner killed while a subagent ran leaves a log with
no end line: the next start ends it as cut off, saying where its log ends, and reports it. The end
line is written before the report is logged, and a `reported` line after, so a kill between the
two neither loses the report nor doubles it (agentlog's docstring).

Its system prompt is the turns' with one more block, SUBAGENT_ROLE, constant, so every subagent
call of a chat shares one cached prefix; its tools are the turns' less `agent`, so a subagent
starts none. Its calls are recorded in the usage files as kind "agent" (`ever cost` shows them
apart) and in its own log, from which `ever agents` gives each one's cost (harness/chat/agentlist.py).
"""

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.calls.approval import Approval, weakest
from harness.calls.budget import Chain, ChatCaps
from harness.calls.loop import CAP, DONE, FAILED, End
from harness.calls.outcomes import Reply, Stop
from harness.calls.prompt import Prompt, chat_blocks, view_mark
from harness.calls.redaction import redact
from harness.calls.tool import SUBAGENT
from harness.calls.tools import WorkTools
from harness.calls.turn import JSON, Output, Quiet, Turn, TurnSettings
from harness.calls.usage import record_usage, usage_record
from harness.memory import agentlog
from harness.memory.agentlog import AgentCaps, AgentLog, NameTaken
from harness.memory.disk import REAL_DISK, Disk
from harness.memory.images import ToolResult, error_result, text_result, with_images
from harness.memory.service import PAGE_CHARS, Memory
from harness.memory.store import StoreError
from harness.memory.text import split_long, valid_text

if TYPE_CHECKING:  # the SDK is imported only where a call is made
    from harness.calls.client import Client

SUBAGENT_ROLE = """\
# Subagents

This call is a subagent's, not a turn: Ever started you in the background, and
the message after the view is your task, not the user's words. Do it yourself,
with your tools; you start no subagents. Nobody reads your steps as you work,
and nobody answers a question: decide, and say what you decided. Your final
reply is your report: it reaches Ever as a message "[Name] report", and it is
all Ever learns from you, so make it whole: what you did, what you found, what
is left, with names, paths, numbers and errors exactly. Your steps stay in your
own log, which zoom("Name") opens."""

log = logging.getLogger("ever.agents")


@dataclass(frozen=True)
class Ending:
    how: str  # one of agentlog.HOWS [A5]
    said: str  # how it ended, in words: "reached its cap of 3 tool calls"
    last_text: str = ""  # its last reply's text


def report_text(name: str, ending: Ending) -> str:
    """The `work` message: "[Name] report", then the final reply, or how it ended and its last
    words."""
    if ending.how == "done":
        return f"[{name}] report\n{ending.last_text}"
    text = f"[{name}] report: it {ending.said}. zoom(\"{name}\") gives its whole conversation."
    if ending.last_text:
        text += f"\nIts last reply before that:\n{ending.last_text}"
    return text


def subagent_prompt(prompt: Prompt) -> Prompt:
    """The turns' tools less `agent` and `tell` (the registry's: a subagent is not offered them),
    their system blocks and SUBAGENT_ROLE, the system's end mark on it [A4]."""
    tools = tuple(tool for tool in prompt.tools if SUBAGENT in tool.offered_to)
    return Prompt(tools=tools, system=tuple(prompt.system) + (SUBAGENT_ROLE,))


@dataclass
class Report:
    """A subagent's report, not yet logged in the chat."""

    name: str
    text: str
    path: Path
    # the approval of whoever asked for the subagent, which the turn the report starts carries;
    # None: not known (a report found at a restart), and that turn asks nobody and runs nothing
    # that asks
    approval: Approval | None = None
    disk: Disk = REAL_DISK  # the disk the agent's log is on
    # the chain of the turn that started it: the turn the report starts is the chain's [H15];
    # None (a report found at a restart): a chain of its own
    chain: Chain | None = None
    now: Callable[[], datetime] | None = None  # the chat's clock, which dates the `reported` line

    def logged(self, message_id: int | None) -> None:
        """The report is in the chat's log as message `message_id`: note it in the agent's log. A
        disk that refuses the note loses nothing: the next start finds the report in the chat's
        log and does not give it again [A3]."""
        try:
            agent_log = AgentLog.reopen(self.path, self.disk, self.now)
            try:
                agent_log.append({"kind": "reported", "id": message_id})
            finally:
                agent_log.close()
        except OSError as error:
            log.warning("%s: its report is logged, but its log could not note so (%s); the next start "
                                "finds it in the chat's log", self.name, error.strerror or error)


class Subagent(Turn):
    """A subagent's conversation: a turn's tool loop, logging to its own log, within its caps."""

    starts_agents = False

    def __init__(self, agents: "Agents", name: str, log: AgentLog, started_by: int, tools: WorkTools):
        super().__init__(agents.memory, agents.client, agents.prompt, tools, agents.settings, Quiet(),
                         agents=agents)
        self.name = name
        self.agent_log = log
        self.started_by = started_by
        self.last_text = ""
        self.told: list[str] = []  # told while it works, logged already, read between its tool calls
        self.chain = Chain()  # the starting turn's, set by `Agents.start` [H15]
        self.spend = agents.spend

    @property
    def tokens(self) -> int:
        return self.spent["tokens"]

    @property
    def tool_calls(self) -> int:
        return self.spent["tool_calls"]

    def read_told(self) -> list[JSON]:
        """What it was told since its last tool calls, joined after their results."""
        blocks = [{"type": "text", "text": text} for text in self.told]
        self.told = []
        return blocks

    def log(self, kind: str, text: str) -> None:
        self.agent_log.append({"kind": kind, "text": text})  # never the chat's log [gist §6]

    # ---- the tool loop's configuration (harness/calls/loop.py) ----

    def over_cap(self) -> str:
        caps = self.agents.caps
        if self.tokens >= caps.tokens:
            return f"reached its cap of {caps.tokens:,} tokens ({self.tokens:,} used, {self.tool_calls} tool calls)"
        return ""

    def chat_cap(self) -> str:
        cap = super().chat_cap()
        return f"reached {cap}" if cap else ""

    def tool_cap(self, uses: list[JSON]) -> str:
        caps = self.agents.caps
        if self.tool_calls + len(uses) <= caps.tool_calls:
            return ""
        return f"reached its cap of {caps.tool_calls} tool calls; its last reply asked for {asked(uses)}, not run"

    def end_mark_first(self) -> bool:
        return True

    def watches(self) -> bool:
        return False  # its caps are its own (`AgentCaps`), its steps shown to nobody

    def answered(self, reply: Reply) -> None:
        record = usage_record("agent", self.started_by, self.settings.model, reply.usage,
                              self.memory.store.date_now(), chain=self.chain.root)
        self.agent_log.append({"kind": "usage", "record": record.to_json()})
        if self.settings.home:
            record_usage(self.settings.home, record, self.memory.store.disk)

    def said(self, texts: list[str]) -> None:
        self.last_text = "\n\n".join(texts)  # the last reply's words, all of them

    def joined(self) -> list[JSON]:
        return self.read_told()

    def cancelled(self) -> None:
        pass  # its end says it was stopped, and where its log ends (`Agents._life`)

    async def work(self, task: str) -> Ending:
        # one wait at a time: the memory keeps one settle event, which a second waiter would replace
        async with self.agents.settling:
            view_text = await self.memory.settle(self.settings.settle_timeout_seconds)
        lines = view_text.split("\n")[1:-1]
        now = self.settings.clock()
        state = (f"[{now:%Y-%m-%d %H:%M} {now.tzname() or ''}; working directory: "
                 f"{self.settings.workdir}; you are the subagent {self.name}]")
        first = chat_blocks(lines) + [{"type": "text", "text": state}, {"type": "text", "text": task}]
        return self.ending(await self.calls(first, view_mark(lines)))

    def ending(self, end: End) -> Ending:
        """The loop's end as the report says it [A5]."""
        if end.how == DONE:
            return Ending("done", "ended with its reply", self.last_text)
        if end.how == CAP:
            return Ending("cap", end.sentence, self.last_text)
        if end.how == FAILED:
            return Ending("error", f"ended on an error: the call failed: {end.error}", self.last_text)
        if end.asked:
            # a reply cut off inside its tool call: the call's input may be partial, so it is not run
            return Ending("tool call", f"ended on a tool call: its last reply asked for {asked(end.asked)} and "
                                       f"stopped there ({end.stop_reason}); it was not run", self.last_text)
        if end.stop is Stop.LENGTH:
            return Ending("cap", f"stopped at the reply's cap of {self.settings.max_tokens:,} output tokens",
                          self.last_text)
        return Ending("error", "ended without a whole reply: " + end.sentence.rstrip("."), self.last_text)


def asked(uses: Sequence[JSON]) -> str:
    """The tool calls a reply asked for, each with the head of its input."""
    return ", ".join(f"{b['name']} {json.dumps(b.get('input', {}), ensure_ascii=False)[:200]}" for b in uses)


class Agents:
    """The subagents of one chat process, and their reports on their way to the master."""

    def __init__(self, memory: Memory, client: "Client", prompt: Prompt, settings: TurnSettings,
                 caps: AgentCaps = AgentCaps(), output: Output | None = None):
        self.memory = memory
        self.client = client
        self.prompt = subagent_prompt(prompt)
        self.settings = settings
        self.caps = caps
        self.output = output or Quiet()
        self.running: dict[str, asyncio.Task] = {}
        self.subs: dict[str, Subagent] = {}  # the running ones, for `tell`
        self.stopping: dict[str, str] = {}  # name -> why it was stopped
        self.pending: list[Report] = []
        # the chat's: runs turns for pending reports; None: a report waits for a running turn's
        # next tool call, or is logged at close (`ever send`: one turn, then the process ends)
        self.report_turns: Callable[[], Awaitable[None]] | None = None
        self.starter: asyncio.Task | None = None
        self.closing = False
        self.settling = asyncio.Lock()
        self.chat_caps = ChatCaps()  # [H15] the chat's caps on subagents, the owner's settings
        self.spend = None  # the chat's window (harness/calls/budget.py), the owner's

    @property
    def chat(self) -> Path:
        return self.memory.store.chat

    def now(self) -> datetime:
        """The chat's clock (the World's, through the store), which dates every line of the logs."""
        clock = self.memory.store.now
        return clock() if clock is not None else datetime.now().astimezone()

    @property
    def disk(self) -> Disk:
        return self.memory.store.disk

    # ---- the master's tools ----

    def start(self, tool_input: Any, turn: Turn) -> ToolResult:
        """`agent(name, task)`: the subagent starts now, in the background."""
        if not isinstance(tool_input, dict):
            return error_result("agent: the input must be a JSON object.")
        name, task = tool_input.get("name"), tool_input.get("task")
        problem = agentlog.name_error(name)
        if problem:
            return error_result(problem)
        if not isinstance(task, str) or not task.strip():
            return error_result("agent: task is missing; give the subagent its task in words.")
        if self.closing:
            return error_result("agent: the chat is closing; no subagent can start now.")
        capped = self.start_cap(turn)
        if capped:
            return error_result(capped)
        started_by = turn.turn_id
        start = {"task": task, "turn": started_by, "T": self.memory.planner.T, "caps": self.caps.to_json()}
        try:
            log = AgentLog.create(self.chat, name, start, self.disk, self.now)
        except NameTaken as taken:
            return error_result(str(taken))
        tools = WorkTools(turn.tools.workdir, turn.tools.approval, secrets=turn.tools.secrets,
                          environ=turn.tools.environ, private=turn.tools.private)
        sub = Subagent(self, name, log, started_by, tools)
        sub.chain = turn.chain
        turn.chain.subagents += 1
        turn.subagents_started += 1
        self.subs[name] = sub
        self.running[name] = asyncio.get_running_loop().create_task(self._life(sub, task))
        self.output.notice(f"[{name}] started in the background")
        return text_result(f"Started the subagent {name} in the background. Its report will reach you "
                           f"as a message \"[{name}] report\"; zoom(\"{name}\") shows its steps so far. "
                           "Do not wait for it: go on, or end your turn and tell the user it is running.")

    def start_cap(self, turn: Turn) -> str:
        """[H15] Why no subagent may start now, or "": the chat stopped its work, or a cap on
        subagents alive in the chat, started by this turn or by its whole chain."""
        caps = self.chat_caps
        if self.spend is not None and self.spend.stopped:
            return f"agent: not started: {self.spend.stopped}"
        alive = sum(1 for task in self.running.values() if not task.done())
        for count, cap, what in ((alive, caps.subagents_alive, "subagents running at once in the chat"),
                                 (turn.subagents_started, caps.subagents_per_message, "subagents started by one turn"),
                                 (turn.chain.subagents, caps.subagents_per_chain,
                                  "subagents started by one message and what it led to")):
            if count >= cap:
                sentence = (f"agent: not started: the chat's cap of {cap:,} {what} is reached "
                            "(chat.subagents_* in config.toml). Do the work yourself, or tell the user.")
                self.output.notice(sentence)
                return sentence
        return ""

    def tell_tool(self, tool_input: Any, turn: Turn | None = None) -> ToolResult:
        """`tell(name, message)`: the master's words to a running subagent. The words carry the
        teller's approval: from here the subagent's tools run only where both allow [A8]."""
        if not isinstance(tool_input, dict):
            return error_result("tell: the input must be a JSON object.")
        message = tool_input.get("message")
        if not isinstance(message, str) or not message.strip():
            return error_result("tell: message is missing; give the words to tell the subagent.")
        told, said = self.tell(tool_input.get("name"), message, "Ever",
                               turn.tools.approval if turn is not None else None)
        return text_result(said) if told else error_result(said)

    def tell(self, name: Any, message: str, by: str, approval: Approval | None = None) -> tuple[bool, str]:
        """Log `message` in the running subagent `name`'s log and hand it over; it reads it between
        its tool calls. (False, why) when there is no such subagent running."""
        path = agentlog.find(self.chat, name, self.disk) if agentlog.name_error(name) is None else None
        if path is None:
            known = agentlog.names(self.chat, self.disk)
            listed = f"; its subagents are {', '.join(known)}" if known else "; it has none"
            return False, f"tell: this chat has no subagent named {name!r}{listed}."
        sub = self.subs.get(path.stem)
        if sub is None or self.closing:
            end = next((r for r in agentlog.read_log(path, self.disk) if r.get("kind") == "end"), None)
            how = f" ({end.get('how')}: it {end.get('said', '')})" if end else ""
            return False, (f"tell: the subagent {path.stem} has ended{how}, so it reads nothing more; "
                           "nothing was told.")
        text = f"[{by} tells you] {redact(valid_text(message), sub.tools.secrets)}"
        if approval is not None:  # [A8] told words carry their teller's approval: it only narrows
            sub.tools.approval = weakest(sub.tools.approval, approval)
        sub.agent_log.append({"kind": "told", "by": by, "text": text})
        sub.told.append(text)
        return True, (f"Told {path.stem}: it reads this between its tool calls; its report comes as a "
                      f"message \"[{path.stem}] report\".")

    def zoom(self, tool_input: dict[str, Any]) -> ToolResult:
        """`zoom("Name")`: the subagent's whole conversation, in pages like a long message."""
        body, error = agentlog.zoomed(self.chat, tool_input.get("id"), tool_input.get("page", 1), PAGE_CHARS,
                                      self.disk)
        if error:
            return error_result(error)
        return ToolResult(with_images(body, self.chat, self.disk), False)

    # ---- a subagent's life ----

    async def _life(self, sub: Subagent, task: str) -> None:
        name = sub.name
        try:
            ending = await asyncio.wait_for(sub.work(task), self.caps.seconds)
        except TimeoutError:
            ending = Ending("cap", f"reached its cap of {self.caps.seconds:g} s of wall time; "
                                   f"{agentlog.where_it_ends(agentlog.read_log(sub.agent_log.path, self.disk))}",
                            sub.last_text)
        except asyncio.CancelledError:
            # stopped: it still reports, so the cancel ends here
            ending = Ending("cancel", self.stopping.get(name, "was stopped") + "; "
                            + agentlog.where_it_ends(agentlog.read_log(sub.agent_log.path, self.disk)), sub.last_text)
        except Exception as error:  # whatever went wrong, the report says it and reaches the master
            ending = Ending("error", f"ended on an error: {type(error).__name__}: {error}", sub.last_text)
        self._end(sub, ending)

    def _end(self, sub: Subagent, ending: Ending) -> None:
        name = sub.name
        text = report_text(name, ending)
        try:
            sub.agent_log.append({"kind": "end", "how": ending.how, "said": ending.said, "report": text,
                                  "T": self.memory.planner.T, "tokens": sub.tokens,
                                  "tool_calls": sub.tool_calls, "unread": len(sub.told)})
        except OSError as error:  # [A3] the report still reaches the chat; a start finds it there
            self.output.notice(f"[{name}] its log could not record its end ({error.strerror or error}); "
                               "its report is given all the same")
        finally:
            sub.agent_log.close()
            self.running.pop(name, None)
            self.subs.pop(name, None)
        self.output.notice(f"[{name}] ended: {ending.how}")
        self._arrive(Report(name, text, sub.agent_log.path, sub.tools.approval, self.disk, sub.chain, self.now))

    def _arrive(self, report: Report) -> None:
        self.pending.append(report)
        if self.closing or self.report_turns is None:
            return  # a running turn takes it, or close logs it
        if self.starter is None or self.starter.done():
            self.starter = asyncio.get_running_loop().create_task(self.report_turns())

    # ---- delivery ----

    def joined(self, turn: Turn) -> list[JSON]:
        """The reports that arrived since, logged by the turn and given to it between its tool
        calls [gist §6] [A2]."""
        blocks = []
        while self.pending:
            report = self.pending.pop(0)
            message_id = self.memory.planner.T
            turn.log("work", report.text)
            report.logged(message_id)
            if report.approval is not None:  # its asker's approval joins the call, as a message's does
                turn.tools.approval = weakest(turn.tools.approval, report.approval)
            blocks.append({"type": "text", "text": report.text})
        return blocks

    def flush(self) -> None:
        """Log every pending report at once: no turn will take them (the chat closes, or none runs
        turns here)."""
        while self.pending:
            report = self.pending[0]
            message_id = self.memory.planner.T
            try:
                for piece in split_long(report.text):
                    self.memory.append("work", piece)
            except (StoreError, OSError) as error:
                # a full disk cannot fail a close: each report left is in its subagent's log, not
                # noted as given, so the next start logs it [A3]
                self.output.notice(f"[{report.name}] its report could not be logged ({error}); the next start "
                                   "logs it")
                return
            self.pending.pop(0)
            report.logged(message_id)

    def stop(self, name: str, why: str = "was stopped by the user") -> bool:
        task = self.running.get(name)
        if task is None or task.done():
            return False
        self.stopping[name] = why
        task.cancel()
        return True

    def newest_running(self) -> str | None:
        names = [name for name, task in self.running.items() if not task.done()]
        return names[-1] if names else None

    async def close(self) -> None:
        """The chat closes: stop each running subagent (it reports that it was stopped), and log
        every report no turn took."""
        self.closing = True
        tasks = list(self.running.values())
        for name in list(self.running):
            self.stop(name, "was stopped when the chat closed")
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        if self.starter is not None and not self.starter.done():
            self.starter.cancel()
            await asyncio.gather(self.starter, return_exceptions=True)
        self.flush()

    def recover(self) -> None:
        """At a start: a subagent that was running when its owner died ends as cut off; an end
        whose report never reached the chat's log is reported now [A3]."""
        for path, records in agentlog.recover_list(self.chat, self.disk):
            if not records or records[0].get("kind") != "start":
                continue
            name = records[0].get("name", path.stem)
            end = next((r for r in records if r.get("kind") == "end"), None)
            given = self._logged_since(name, int(records[0].get("T", 0))) if end is None else None
            if given is not None:  # its end line was refused, its report logged all the same [A3]
                Report(name, "", path, disk=self.disk, now=self.now).logged(given)
                continue
            if end is None:
                last = [r for r in records if r.get("kind") == "ever"]
                ending = Ending("cut off", "was cut off: the chat's process ended while it ran, and "
                                           + agentlog.where_it_ends(records),
                                last[-1]["text"] if last else "")
                text = report_text(name, ending)
                log = AgentLog.reopen(path, self.disk, self.now)
                try:
                    log.append({"kind": "end", "how": ending.how, "said": ending.said, "report": text,
                                "T": self.memory.planner.T})
                finally:
                    log.close()
            else:
                text = str(end.get("report", ""))
                logged = self._logged_since(name, int(end.get("T", 0)))
                if logged is not None:
                    Report(name, text, path, disk=self.disk, now=self.now).logged(logged)
                    continue
            self.pending.append(Report(name, text, path, disk=self.disk, now=self.now))
        if self.pending:
            if self.report_turns is None:
                self.flush()
            else:
                self.starter = asyncio.get_running_loop().create_task(self.report_turns())

    def _logged_since(self, name: str, since: int) -> int | None:
        store = self.memory.store
        head = f"[{name}] report"
        for offset, record in enumerate(store.messages(min(since, store.count), store.count)):
            if record["kind"] == "work" and record["text"].startswith(head):
                return min(since, store.count) + offset
        return None
