"""The chat's process without its screen: the memory, the compactor, the turns and the socket.

`open_chat` owns the chat [gist §1] and builds what a turn needs; `Chat.say` runs a message's turn
(joining messages that arrive during a call); `send_once` is `ever send`; `local_answer` answers
`ever memory …` when no chat runs. The terminal (harness/chat/terminal.py) draws on it; a second
`ever` talks to the owner over the chat's Unix socket (harness/chat/owner.py).
"""

import asyncio
import dataclasses
import os
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple
from harness.calls.agents import Agents
from harness.memory.agentlog import AgentCaps
from harness.chat import owner
from harness.calls.compactor import Compactor, Compress, Job as CompactorJob, Merge, MemorySettings
from harness.chat.config import ConfigError, Secret, Settings, check_memory_setting, load_key
from harness.memory.planner import Config
from harness.calls.prompt import Prompt
from harness.memory.service import Job, JobResult, Memory
from harness.memory.store import ChatBusy
from harness.calls.tools import Approval, WorkTools
from harness.calls.turn import Output, Quiet, Turn, TurnResult, TurnSettings
from harness.calls.usage import dollars_text, record_usage, usage_record

if TYPE_CHECKING:  # the SDK (harness/calls/client.py) is imported only when a chat opens
    from harness.calls.client import Client


TURN_ATTEMPTS = 3
# [decision C12] what a person waits at most, each shown with a countdown and ended by Ctrl-C:
# 40 s of silence per attempt, and a server's retry-after up to 60 s
TURN_SILENCE_SECONDS = 40.0
TURN_RETRY_AFTER_MAX_SECONDS = 60.0


# a message that joined a running call: its text, where its turn's output goes, its approval,
# and the future its sender awaits (None for the message that started the turns)
Joined = Tuple[str, Optional[Output], Optional[Approval], Optional["asyncio.Future[TurnResult]"]]


def counted(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def settle_future(answered: Optional["asyncio.Future[TurnResult]"], result: TurnResult) -> None:
    if answered is not None and not answered.done():
        answered.set_result(result)


class Chat:
    """Everything one owning process holds."""

    def __init__(self, settings: Settings, memory: Memory, client: "Client", prompt: Prompt,
                 approval: Approval, output: Output):
        self.settings = settings
        self.memory = memory
        self.client = client
        self.prompt = prompt
        self.approval = approval
        self.output = output
        self.turn: Optional[Turn] = None
        self.turn_lock = asyncio.Lock()
        self.last: Optional[TurnResult] = None
        self.joined: List[Joined] = []
        self.compactor: Optional[Compactor] = None
        self.agents: Optional[Agents] = None  # harness/calls/agents.py; open_chat makes it

    def new_turn(self, output: Optional[Output] = None, approval: Optional[Approval] = None) -> Turn:
        tools = WorkTools(os.getcwd(), approval or self.approval, secrets=(self.client.settings.api_key,))
        turn_settings = TurnSettings(self.settings.model, self.settings.settle_timeout_seconds,
                                     home=self.settings.home, cache_marks=self.settings.cache_marks)
        return Turn(self.memory, self.client, self.prompt, tools, turn_settings, output or self.output,
                    agents=self.agents)

    async def say(self, text: str, output: Optional[Output] = None,
                  approval: Optional[Approval] = None) -> TurnResult:
        """A user message: it joins the running call, or starts a turn [gist §6]; the result is
        the turn that answered it. A call sees a joined message only at its next tool call; one
        that joined after the last never reached it, so it starts the next turn; if the call is
        stopped or fails, it is logged unanswered, as the call's own message is."""
        if self.turn is not None:
            return await self.join(text, output, approval)
        first: Optional[TurnResult] = None
        async with self.turn_lock:
            waiting: List[Joined] = [(text, output, approval, None)]
            while waiting:
                message, message_output, message_approval, answered = waiting.pop(0)
                self.turn = turn = self.new_turn(message_output, message_approval)
                self.joined = []
                try:
                    self.last = await turn.run(message)
                except BaseException:  # stopped, or failed: no message typed is lost
                    for unseen, _, _, _ in waiting + self.unseen(turn):
                        turn.log("user", unseen)
                    stopped = TurnResult("", "The call was stopped; your message is in the log.")
                    for *_, other in waiting + self.joined:
                        settle_future(other, stopped)
                    raise
                finally:
                    self.turn = None
                first = first or self.last
                unseen = self.unseen(turn)
                for joined in self.joined[:len(self.joined) - len(unseen)]:
                    settle_future(joined[3], self.last)  # the call took it: its reply answers it
                settle_future(answered, self.last)
                waiting += unseen
        return first

    def join(self, text: str, output: Optional[Output] = None,
             approval: Optional[Approval] = None) -> "asyncio.Future[TurnResult]":
        """A message typed while a call runs joins it between tool calls [gist §6]; the future is
        the result of the turn that answers it."""
        assert self.turn is not None, "join a running turn only"
        self.turn.add_message(text)
        answered: "asyncio.Future[TurnResult]" = asyncio.get_running_loop().create_future()
        self.joined.append((text, output, approval, answered))
        return answered

    def unseen(self, turn: Turn) -> List["Joined"]:
        """The joined messages the turn's call never took: the last ones, still in its inbox."""
        return self.joined[len(self.joined) - len(turn.inbox):] if turn.inbox else []

    def set_memory_model(self, settings: Settings) -> None:
        """The compactions from now on use the config's memory model and effort."""
        if self.compactor is not None:
            self.compactor.settings = MemorySettings.from_config(
                {"model": settings.memory_model, "thinking": settings.memory_thinking}, settings.model)

    async def close_clients(self) -> None:
        for client in getattr(self, "clients", (self.client,)):
            await client.aclose()

    def status_line(self) -> str:
        view_bytes = self.memory.planner.view.bytes
        ceiling = self.memory.planner.config.view_bytes_ceiling
        last = self.last if self.last and self.last.calls else None
        share = f"{last.cache_read_share:.0%}" if last else "-"
        cost = "-" if last is None else "?" if last.cost_e8 is None else dollars_text(last.cost_e8)
        line = f"mem {view_bytes // 1000}K/{ceiling // 1000}K · cache {share} · {cost}"
        if self.memory.paused:  # [decision C11] what failed, where, what to do
            line += f" · the compactor is paused: {self.memory.paused}"
        return line


async def open_chat(settings: Settings, output: Output, ask=None, yes: bool = False,
                    on_change=None, api_key: Optional[str] = None, report_turns: bool = True) -> Chat:
    """Own the chat and start its compactor; ChatBusy when another process owns it."""
    memory_ref: Dict[str, Any] = {}

    async def build(job: Job) -> JobResult:
        compactor = memory_ref["compactor"]
        task = Compress(job.kind, job.text) if job.l == 0 else Merge(*job.halves)
        result = await compactor.build(CompactorJob(job.l, job.i, job.context, task))
        record_usage(settings.home, usage_record("compaction", memory_ref["m"].planner.T - 1,
                                                      compactor.settings.model, result.usage))
        return JobResult(result.text, result.failure or "")

    # owned first: an `ever send` handed to a running chat (ChatBusy) never loads the SDK
    memory = Memory.open(settings.home, Config(), build=build, on_change=on_change)
    memory_ref["m"] = memory
    try:
        check_memory_setting(settings)  # a thinking setting the model lacks: refused at the start
        key = load_key(settings.home) if api_key is None else Secret(api_key)
        prompt = Prompt.load(str(settings.home))
        memory_settings = MemorySettings.from_config(
            {"model": settings.memory_model, "thinking": settings.memory_thinking}, settings.model)
        from harness.calls.client import Client, ClientSettings  # the SDK: only a chat that calls

        client_settings = ClientSettings(api_key=key.reveal(), base_url=settings.base_url)
        # a compaction retries while its call runs [decision P16]; a turn, whose user waits, gives
        # up after a few tries with one clear sentence; both share the prefix gate [gist §3.3]
        compactor_client = Client(client_settings)
        client = Client(dataclasses.replace(client_settings, attempts_max=TURN_ATTEMPTS,
                                            silence_seconds=TURN_SILENCE_SECONDS,
                                            retry_after_max_seconds=TURN_RETRY_AFTER_MAX_SECONDS),
                        gate=compactor_client.gate)
    except BaseException:
        memory.close()
        raise
    compactor = Compactor(compactor_client, prompt, memory_settings, marks=settings.cache_marks)
    memory_ref["compactor"] = compactor
    approval = Approval(allowed=tuple(settings.approve), yes=yes, ask=ask)
    chat = Chat(settings, memory, client, prompt, approval, output)
    chat.clients = (client, compactor_client)
    chat.compactor = compactor
    chat.agents = Agents(memory, client, prompt, TurnSettings(settings.model, settings.settle_timeout_seconds,
                                                              home=settings.home,
                                                              cache_marks=settings.cache_marks),
                         settings.agent_caps or AgentCaps(), output)
    if report_turns:  # a report no running turn takes starts a turn of this chat
        chat.agents.report_turns = lambda: chat.agents.turns_for_reports(chat)
    chat.agents.recover()  # a subagent cut off by a kill of the last owner reports now
    return chat


async def send_once(settings: Settings, text: str, yes: bool = False) -> Dict[str, Any]:
    """`ever send`: one turn here, or handed to the chat's owner [gist §1]."""
    try:
        # one turn, then the process ends: a report is logged, never a turn of its own [decision A6]
        chat = await open_chat(settings, Quiet(), ask=None, yes=yes, report_turns=False)
    except ChatBusy:
        return await owner.ask(settings.chat_dir / "socket", {"op": "send", "text": text, "yes": yes})
    except ConfigError as error:
        # the message stays in the log, unanswered: the next turn sees it [gist §1]
        memory = Memory.open(settings.home)
        try:
            memory.append("user", text)
        finally:
            memory.close()
        return {"reply": "", "error": f"{error} Your message is in the log; the next turn will see it."}
    try:
        result = await chat.say(text)
        await chat.agents.close()  # a subagent it started stops, and reports so
        await chat.memory.idle_or_stop(5.0)
        return {"reply": result.reply, "error": result.error}
    finally:
        await chat.agents.close()
        chat.memory.close()
        await chat.close_clients()


async def local_answer(settings: Settings, request: Dict[str, Any]) -> Dict[str, Any]:
    """`ever memory …` when no chat runs: open the chat here (no key needed) and answer."""
    memory = Memory.open(settings.home)
    try:
        return owner.answer_memory(memory, request)
    finally:
        memory.close()
