"""The chat's process without its screen: the memory, the compactor, the turns and the socket.

`open_chat` owns the chat [gist §1] and builds what a turn needs; `Chat.say` runs a message's turn
(joining messages that arrive during a call); `send_once` is `ever send`; `local_answer` answers
`ever memory …` when no chat runs. The terminal (harness/chat/terminal.py) draws on it; a second
`ever` talks to the owner over the chat's Unix socket (harness/chat/owner.py).
"""

import asyncio
import dataclasses
import os
import time
from typing import TYPE_CHECKING, Any, Optional, Union

from harness.calls.agents import Agents
from harness.calls.approval import Approval, weakest
from harness.calls.compactor import Compactor, Compress, MemorySettings, Merge
from harness.calls.compactor import Job as CompactorJob
from harness.calls.prompt import Prompt
from harness.calls.redaction import redact
from harness.calls.tools import WorkTools
from harness.calls.turn import Output, Quiet, Turn, TurnResult, TurnSettings
from harness.calls.usage import dollars_text, record_usage, usage_record
from harness.chat import owner
from harness.chat.config import Secret, Settings, check_memory_setting, load_key
from harness.memory.accepted import Accepted, entering
from harness.memory.agentlog import AgentCaps
from harness.memory.planner import Config
from harness.memory.service import Job, JobResult, Memory
from harness.memory.store import DAMAGE_LISTENERS, ChatBusy, StoreError

if TYPE_CHECKING:  # the SDK (harness/calls/client.py) is imported only when a chat opens
    from harness.calls.client import Client


TURN_ATTEMPTS = 3
# how long a newcomer waits for the chat's owner to answer its socket; EVER_OWNER_WAIT_SECONDS
# sets it (a machine so loaded that an owner takes longer to start listening, or a test's hang guard)
OWNER_WAIT_SECONDS = 30.0


def owner_wait_seconds() -> float:
    try:
        seconds = float(os.environ.get("EVER_OWNER_WAIT_SECONDS", OWNER_WAIT_SECONDS))
    except ValueError:
        return OWNER_WAIT_SECONDS
    return seconds if seconds > 0 else OWNER_WAIT_SECONDS
OWNER_WAIT_SAID_SECONDS = 1.0  # a wait longer than this is said on stderr
STOPPED = "The call was stopped; your message is in the log."
# [C12] what a person waits at most, each shown with a countdown and ended by Ctrl-C:
# 40 s of silence per attempt, and a server's retry-after up to 60 s
TURN_SILENCE_SECONDS = 40.0
TURN_RETRY_AFTER_MAX_SECONDS = 60.0


def new_key() -> str:
    """A message's key when its sender gave none [S9]."""
    return "send=" + os.urandom(8).hex()


@dataclasses.dataclass
class Delivery:
    """A message the chat accepted (its inbox line is on disk), on its way to a call: where its
    turn's output goes, its approval, and the future its sender awaits."""

    message: Accepted
    output: Output | None = None
    approval: Approval | None = None
    answered: Optional["asyncio.Future[TurnResult]"] = None
    logged: bool = False  # in the log before a crash, never answered: answer it, log it not again


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
        self.turn: Turn | None = None
        self.turn_lock = asyncio.Lock()
        self.last: TurnResult | None = None
        self.joined: list[Delivery] = []
        self.queue: list[Delivery] = []  # accepted, waiting for a turn of their own
        self.compactor: Compactor | None = None
        self.agents: Agents | None = None  # harness/calls/agents.py; open_chat makes it
        self.answers: dict[str, asyncio.Future[TurnResult]] = {}  # key -> its turn, in flight
        self.busy: set = set()  # the turns started for the socket and the socket's requests
        self.left = asyncio.Event()  # set when the owner goes: the senders still waiting are let go
        self.leaving = False  # an `ever send` that owns the chat has its answer: no new turn starts
        self.leave_after: str | None = None  # the key of that `ever send`'s message
        self.queue_turn = False  # the running turn is one of the queue's (not a report's)
        self.turn_task: asyncio.Task | None = None  # the task running the queue's turns

    def stop_call(self) -> bool:
        """Ctrl-C, from any terminal: the running call stops (its message and what was shown of
        the reply are logged, as for a call stopped in the owner's terminal)."""
        if self.turn is None:
            return False
        for task in (self.turn_task, self.agents.starter if self.agents is not None else None):
            if task is not None and not task.done():
                task.cancel()
                return True
        return False

    def turn_ended(self) -> None:
        """The attached terminals end their reply and show the status line."""
        end = getattr(self.output, "end", None)
        if end is not None:
            end(self.status_line())

    def new_turn(self, output: Output | None = None, approval: Approval | None = None) -> Turn:
        tools = WorkTools(os.getcwd(), approval or self.approval, secrets=(self.client.settings.api_key,),
                          private=(self.settings.home,))
        turn_settings = TurnSettings(self.settings.model, self.settings.settle_timeout_seconds,
                                     home=self.settings.home, cache_marks=self.settings.cache_marks,
                                     caps=self.settings.turn_caps)
        return Turn(self.memory, self.client, self.prompt, tools, turn_settings, output or self.output,
                    agents=self.agents)

    # ---- accepting a message [S9] ----

    def hide(self, text: str) -> str:
        """`text` without the chat's API key [H3]."""
        return redact(text, (self.client.settings.api_key,))

    def entering(self, text: object, key: str | None, source: str) -> Accepted:
        """A user's message where it enters the chat: valid, the key hidden, once
        (harness/memory/accepted.py); a key of its own when its sender gave none."""
        return entering(text, key or new_key(), source, self.hide)

    def accept(self, message: Accepted, output: Output | None,
               approval: Approval | None) -> Delivery:
        """The message on disk in the inbox (an OSError, else), then on its way: only now may it
        be shown as accepted."""
        self.memory.inbox.accept(message)
        delivery = Delivery(message, output, approval, asyncio.get_running_loop().create_future())
        self.answers[message.key] = delivery.answered
        return delivery

    def submit(self, message: Accepted, output: Output | None = None,
               approval: Approval | None = None) -> "asyncio.Future[TurnResult]":
        """A message from the socket or `ever send`: accepted, then joined to the running call or
        given a turn; the future is the result of the turn that answers it. A key already seen
        gives that message's answer, and nothing is logged again."""
        if self.leaving:
            raise owner.Leaving()
        key = message.key
        if key in self.answers:
            return self.answers[key]
        if self.memory.store.key_id(key) is not None:
            done = asyncio.get_running_loop().create_future()
            done.set_result(self.logged_answer(self.memory.store.key_id(key)))
            return done
        delivery = self.accept(message, output, approval)
        self.route(delivery)
        return delivery.answered

    def route(self, delivery: Delivery) -> None:
        """Join the running call if nothing waits before it, else queue for a turn."""
        if self.joinable() and not delivery.logged:
            self.add_to_turn(delivery)
        else:
            self.queue.append(delivery)
            task = asyncio.get_running_loop().create_task(self.turns())
            self.busy.add(task)
            task.add_done_callback(self.busy.discard)

    def logged_answer(self, i: int) -> TurnResult:
        """What a retry of logged message i gets: the reply logged after it, if any."""
        store = self.memory.store
        for record in store.messages(i + 1, store.count):
            if record["kind"] == "ever":
                return TurnResult(record["text"])
        return TurnResult("", f"Message {i} is in the log already, not answered yet; it is not sent again.")

    def resume(self) -> None:
        """The inbox's messages a killed owner accepted and never answered: each answered once
        [S9]."""
        store = self.memory.store
        for key, text in self.memory.inbox.pending():
            i = store.key_id(key)
            if i is not None and any(r["kind"] == "ever" for r in store.messages(i + 1, store.count)):
                self.memory.inbox.done(key)  # answered; its `done` died with the process
                continue
            # text the inbox kept: as an older Ever may have written it, it enters again
            message = self.entering(text, key, "inbox")
            delivery = Delivery(message, None, None, asyncio.get_running_loop().create_future(),
                                logged=i is not None)
            first_line = message.text.strip().split("\n", 1)[0]
            self.output.notice(f"[accepted before a restart, answered now] {first_line[:160]}")
            self.answers[key] = delivery.answered
            self.route(delivery)

    def answered(self, delivery: Delivery, result: TurnResult) -> None:
        key = delivery.message.key
        if key == self.leave_after:
            self.leaving = True  # before the next turn can start
        settle_future(delivery.answered, result)
        self.answers.pop(key, None)
        self.memory.inbox.done(key)

    async def leave(self) -> None:
        """An `ever send` that owns the chat has its answer, and goes: no turn starts after the
        one running, and a sender still waiting is let go (its connection closed) with its
        message in the inbox, where the next owner, maybe that sender, answers it [S9]."""
        self.leaving = True
        for _ in range(3):  # an answer settled just now is written first
            await asyncio.sleep(0)
        self.left.set()
        while self.busy:
            await asyncio.wait(list(self.busy))

    # ---- turns [gist §6] ----

    async def say(self, message: Union[Accepted, str], output: Output | None = None,
                  approval: Approval | None = None) -> TurnResult:
        """A user message: it joins the running call, or starts a turn [gist §6]; the result is
        the turn that answered it. A str is a text typed at the terminal, entering here."""
        if isinstance(message, str):
            message = self.entering(message, None, "terminal")
        if self.joinable():
            return await self.join(message, output, approval)
        try:
            delivery = self.accept(message, output, approval)
        except (OSError, StoreError) as error:
            return self.refused(error, output)
        self.queue.append(delivery)
        await self.turns()
        return delivery.answered.result() if delivery.answered.done() else await delivery.answered

    async def turns(self) -> None:
        """A turn for each message queued, in the order accepted: a message that joined a call
        after its last tool call goes first, as it came before the ones queued meanwhile. Each
        sender's future is settled as its own turn ends. If a call is stopped or fails, every
        message not logged yet is logged unanswered, as the call's own message is."""
        async with self.turn_lock:
            self.turn_task = asyncio.current_task()
            while self.queue and not self.leaving:  # leaving: what waits stays in the inbox
                current = self.queue.pop(0)
                self.turn = turn = self.new_turn(current.output, current.approval)
                self.queue_turn = True
                self.joined = []
                try:
                    self.last = await turn.run(current.message, logged=current.logged)
                except BaseException as error:  # stopped, or failed: no message typed is lost
                    cut = [current] + self.joined + self.queue
                    for unseen in self.unseen(turn) + self.queue:
                        if not unseen.logged:
                            self.memory.append_accepted(unseen.message)
                    self.queue = []
                    for other in cut:
                        if isinstance(error, asyncio.CancelledError):
                            self.answered(other, TurnResult("", STOPPED))  # the person stopped it
                        else:  # left in the inbox: the next open answers it
                            settle_future(other.answered, TurnResult("", f"{STOPPED} ({error})"))
                    raise
                finally:
                    self.turn = None
                    self.queue_turn = False
                end_line = getattr(turn.output, "end_line", None)
                if end_line is not None:  # a turn nobody typed at the screen ends its last line too
                    end_line()
                unseen = self.unseen(turn)
                for joined in self.joined[:len(self.joined) - len(unseen)]:
                    self.answered(joined, self.last)  # the call took it: its reply answers it
                self.answered(current, self.last)
                self.turn_ended()
                self.queue[:0] = unseen

    def join(self, message: Accepted, output: Output | None = None,
             approval: Approval | None = None) -> "asyncio.Future[TurnResult]":
        """A message typed while a call runs joins it between tool calls [gist §6]; the future is
        the result of the turn that answers it."""
        try:
            delivery = self.accept(message, output, approval)
        except (OSError, StoreError) as error:
            refused = asyncio.get_running_loop().create_future()
            refused.set_result(self.refused(error, output))
            return refused
        self.route(delivery)  # a report's turn takes no message: it then waits for its own
        return delivery.answered

    def joinable(self) -> bool:
        """A message joins the running call if it is the queue's and nothing waits before it;
        a subagent report's turn settles no sender, so a message waits for a turn of its own."""
        return self.turn is not None and self.queue_turn and not self.queue

    def refused(self, error: BaseException, output: Output | None) -> TurnResult:
        """A message the disk would not take: one sentence, and nothing of it kept [S5]."""
        sentence = owner.failed_append(error)
        (output or self.output).notice(sentence)
        return TurnResult("", sentence)

    def add_to_turn(self, delivery: Delivery) -> None:
        """The message joins the running call, and so does its sender's approval: from here the
        call's tools run only where both allow them (the weakest wins)."""
        tools = self.turn.tools
        tools.approval = weakest(tools.approval, delivery.approval or self.approval)
        self.turn.add_message(delivery.message)
        self.joined.append(delivery)

    def unseen(self, turn: Turn) -> list[Delivery]:
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
        if self.memory.paused:  # [C11] what failed, where, what to do
            line += f" · the compactor is paused: {self.memory.paused}"
        return line


async def open_chat(settings: Settings, output: Output, ask=None, yes: bool = False,
                    on_change=None, api_key: str | None = None, report_turns: bool = True) -> Chat:
    """Own the chat and start its compactor; ChatBusy when another process owns it."""
    memory_ref: dict[str, Any] = {}

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
        # a compaction retries while its call runs [P16]; a turn, whose user waits, gives
        # up after a few tries with one clear sentence; both share the prefix gate [gist §3.3]
        compactor_client = Client(dataclasses.replace(client_settings, context_window=settings.memory_context_window))
        client = Client(dataclasses.replace(client_settings, attempts_max=TURN_ATTEMPTS,
                                            context_window=settings.context_window,
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
    chat.resume()
    memory.start()  # the compactor starts on what the logs imply now, not at the next message
    return chat


class OwnerSilent(StoreError):
    """Another process owns the chat and did not answer its socket in OWNER_WAIT_SECONDS."""


async def with_owner(settings: Settings, here, request: dict[str, Any], say=None) -> dict[str, Any]:
    """`here()` with the chat owned by this process, or `request` answered by the process that
    owns it. An owner answers its socket for as long as it holds the chat, but it takes the chat
    a moment before it listens and lets it go a moment after: meanwhile a newcomer tries again,
    for OWNER_WAIT_SECONDS at most, and says that it waits once it has waited a second."""
    wait_seconds = owner_wait_seconds()
    started = time.monotonic()
    said = False
    while True:
        try:
            return await here()
        except ChatBusy as busy:
            try:
                answer = await owner.ask(settings.chat_dir / "socket", request)
                for sentence in (answer.pop("damage", None) if isinstance(answer, dict) else None) or ():
                    for listener in DAMAGE_LISTENERS:  # [S13] said here as the owner found it
                        listener(sentence)
                return answer
            except (owner.Unanswered, owner.Dropped) as silent:
                # Dropped: the owner took the message (it is on disk) and went, or died; the
                # next owner (maybe this process) answers it, and the key makes the request
                # safe to repeat. An owner that took it was alive: the wait starts again.
                if isinstance(silent, owner.Dropped):
                    started = time.monotonic()
                waited = time.monotonic() - started
                if waited > wait_seconds:
                    raise OwnerSilent(f"{busy} It did not answer on {settings.chat_dir / 'socket'} for "
                                      f"{wait_seconds:.0f} s ({silent}); nothing was sent: try again.") from None
                if say is not None and not said and waited > OWNER_WAIT_SAID_SECONDS:
                    say(f"{busy} Waiting for it to answer (at most {wait_seconds:.0f} s).")
                    said = True
                await asyncio.sleep(0.05)


async def send_once(settings: Settings, text: str, yes: bool = False, key: str | None = None,
                    say=None) -> dict[str, Any]:
    """`ever send`: one turn here, or handed to the chat's owner [gist §1]. The answer's `logged`
    says whether the message is kept (in the log or the inbox) when there is an error."""
    key = key or new_key()  # a retry inside, or by the script with --key, is never logged twice

    async def here() -> dict[str, Any]:
        # one turn, then the process ends: a report is logged, never a turn of its own [A6]. A
        # setting to fix first (no key, a thinking the memory model lacks) is a ConfigError
        # here, before anything of the message is kept: `ever send` exits 1 (docs/reliability.md)
        chat = await open_chat(settings, Quiet(), ask=None, yes=yes, report_turns=False)
        return await send_here(chat, settings, text, key)

    return await with_owner(settings, here, {"op": "send", "text": text, "yes": yes, "key": key}, say)


async def send_here(chat: Chat, settings: Settings, text: str, key: str) -> dict[str, Any]:
    """This process owns the chat: it answers the socket for as long as it does, so that the
    sends and the `ever memory` that arrive meanwhile are answered, not refused (docs/reliability.md, [S9])."""
    server = None
    try:
        server = await owner.serve(chat, settings.chat_dir / "socket")
        chat.leave_after = key
        try:
            answered = chat.submit(chat.entering(text, key, "send"))
        except (OSError, StoreError) as error:
            return {"reply": "", "error": owner.failed_append(error), "logged": False}
        result = await answered
        server.close()
        server = None
        (settings.chat_dir / "socket").unlink(missing_ok=True)  # still ours: the lock is held
        await chat.leave()
        await chat.agents.close()  # a subagent it started stops, and reports so
        await chat.memory.idle_or_stop(5.0)
        return owner.answer_of(chat, key, result)
    finally:
        if server is not None:
            server.close()
            (settings.chat_dir / "socket").unlink(missing_ok=True)
        await chat.agents.close()
        chat.memory.close()
        await chat.close_clients()





async def local_answer(settings: Settings, request: dict[str, Any], say=None) -> dict[str, Any]:
    """`ever memory …`: answered by the chat's owner, or, when none runs, by opening the chat
    here (no key needed)."""

    async def here() -> dict[str, Any]:
        memory = Memory.open(settings.home, read_only=True)
        try:
            return owner.answer_memory(memory, request)
        finally:
            memory.close()

    return await with_owner(settings, here, request, say)
