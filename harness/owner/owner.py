"""The process that holds the chat [gist §1] [R5]: the memory, the compactor, the turns, the socket.

`Owner.open` takes the chat (ChatBusy when another process holds it), resumes the work its logs
imply (the inbox's unanswered messages, a subagent cut off, the compactor's due lines), and serves
the socket; `accept`/`submit` take a message (on disk first); one scheduler, `turns`, runs every
turn, a report's too; `close` is the one way it stops. `ever chat` (its own terminal attached as
the hub's local output), `ever serve` (no terminal), an `ever send` that finds no owner, and the
benchmarks all hold the chat through it. Its edges (clock, randomness, provider) come in as one
`World` (harness/owner/world.py).
"""

import asyncio
import dataclasses
import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

from harness.calls.agents import Agents
from harness.calls.approval import Approval, weakest
from harness.calls.budget import Chain, ChatCaps, Spend
from harness.calls.capabilities import refresh, refresh_provider
from harness.calls.compactor import Compactor, Compress, MemorySettings, Merge
from harness.calls.compactor import Job as CompactorJob
from harness.calls.prompt import Prompt
from harness.calls.providers import route
from harness.calls.redaction import redact
from harness.calls.tools import WorkTools
from harness.calls.turn import Output, Turn, TurnResult, TurnSettings
from harness.calls.usage import dollars_text, record_usage, usage_record, use_provider_prices
from harness.chat.config import Secret, Settings, check_memory_setting, load_key
from harness.memory.accepted import Accepted, TooLong, entering
from harness.memory.agentlog import AgentCaps
from harness.memory.service import Job, JobResult, Memory
from harness.memory.store import StoreError
from harness.owner import commands, protocol, socket
from harness.owner import hub as hubs
from harness.owner.hub import Hub
from harness.owner.world import World

if TYPE_CHECKING:  # the SDK (harness/calls/client.py) is imported only when a chat opens
    from harness.calls.client import Client
    from harness.memory.backup import Frozen


TURN_ATTEMPTS = 3
STOPPED = "The call was stopped; your message is in the log."
STOPPED_SHOWN = "(the call was stopped; your message and what was shown of the reply are in the log)"
# [C12] what a person waits at most, each shown with a countdown and ended by Ctrl-C:
# 40 s of silence per attempt, and a server's retry-after up to 60 s
TURN_SILENCE_SECONDS = 40.0
TURN_RETRY_AFTER_MAX_SECONDS = 60.0
# how long a closing owner gives the compactor's running call, and the socket's handlers, to end
CLOSE_SETTLE_SECONDS = 2.0
ANOTHER_TERMINAL = "[another terminal] "  # how the other terminals hear a line one typed


@dataclasses.dataclass
class Delivery:
    """A message the chat accepted (its inbox line is on disk), on its way to a call: where its
    turn's output goes, its approval, and the future its sender awaits."""

    message: Accepted
    output: Output | None = None
    approval: Approval | None = None
    answered: Optional["asyncio.Future[TurnResult]"] = None
    logged: bool = False  # in the log before a crash, never answered: answer it, log it not again


@dataclasses.dataclass
class Backups:
    """The owner's backups [S24]: the one running, whether another is due after it, the timer."""

    task: asyncio.Task | None = None
    timer: asyncio.Task | None = None
    again: bool = False
    checked: float | None = None  # the clock's time of the last restore test
    said: str = ""  # the last failure told, not told twice

    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    async def stop(self, settle_seconds: float) -> None:
        """The timer stops; a backup copying gets `settle_seconds` (a backup cut off leaves the
        last one whole, harness/memory/backup.py)."""
        if self.timer is not None:
            self.timer.cancel()
        if self.running():  # with the one a turn just asked for: the last turn is in it
            await asyncio.wait([self.task], timeout=settle_seconds)


def counted(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def settle_future(answered: Optional["asyncio.Future[TurnResult]"], result: TurnResult) -> None:
    if answered is not None and not answered.done():
        answered.set_result(result)


class Owner:
    """Everything one owning process holds, and the one way it runs turns."""

    def __init__(self, settings: Settings, world: World, memory: Memory, client: "Client", prompt: Prompt,
                 approval: Approval, hub: Hub, clients: tuple = ()):
        self.settings = settings
        self.world = world
        self.memory = memory
        self.client = client
        self.clients = clients or (client,)  # every client to close: the turns' and the compactor's
        self.prompt = prompt
        self.approval = approval  # this process's own: its flags, its terminal's "always" [A8]
        # [A8] the config's `approve`: the start of every other sender's approval, never widened
        # by an "always" given here
        self.approve = tuple(settings.approve)
        self.hub = hub
        self.output: Output = hub
        self.attachable = True  # an `ever send`'s owner takes no terminal: it goes once answered
        self.server: asyncio.AbstractServer | None = None
        self.turn: Turn | None = None
        self.turn_lock = asyncio.Lock()
        self.last: TurnResult | None = None
        self.joined: list[Delivery] = []
        self.queue: list[Delivery] = []  # accepted, waiting for a turn of their own
        self.compactor: Compactor | None = None
        self.agents: Agents | None = None
        self.report_turns = True  # a report no running turn takes gets a turn of its own [A6]
        self.answers: dict[str, asyncio.Future[TurnResult]] = {}  # key -> its turn, in flight
        self.busy: set = set()  # the turns started for the socket and the socket's requests
        self.left = asyncio.Event()  # set when the owner goes: the senders still waiting are let go
        self.leaving = False  # the owner goes: no new turn starts, no message is taken
        self.leave_after: str | None = None  # an `ever send`'s owner goes once this key is answered
        self.queue_turn = False  # the running turn is one of the queue's (not a report's)
        self.turn_task: asyncio.Task | None = None  # the task running the turns
        # [H15] the chat's spend over the hour and the day: past a cap the work stops, one line
        # says so in every terminal and the status, and the user's next message resumes it
        self.spend = Spend(getattr(settings, "chat_caps", None) or ChatCaps(), world.clock.monotonic,
                           on_stop=lambda sentence: self.hub.notice(sentence))
        self.backups = Backups()  # [S24] `[backup] dest`: backed up after each turn, on a timer
        self.memory_ref: dict[str, Any] = {}  # the memory the compactor's usage is counted against
        self.forgetting = False  # [S33] one `ever forget` at a time
        # [B5] what writes `ever browse`'s page of a memory, given by whoever opened the owner
        # (harness/chat/: the owner imports nothing of the page); None: pages are searched only
        self.page_writer: Callable[[Memory], Callable[[Path], None]] | None = None

    # ---- opening and closing ----

    @classmethod
    async def open(cls, settings: Settings, hub: Hub | None = None, yes: bool = False,
                   api_key: str | None = None, report_turns: bool = True, ask: bool = False,
                   world: World | None = None) -> "Owner":
        """Own the chat, start its compactor and resume what its logs imply; ChatBusy when another
        process owns it. `ask`: a tool's question goes to the hub's terminals (`ever chat`, `ever
        serve`); else nobody can be asked, and the tools that ask first decline. The socket is
        served by `serve`."""
        world = world or World.real()
        hub = hub or Hub()
        hub.loop = asyncio.get_running_loop()
        memory_ref: dict[str, Any] = {}
        unrecorded: list = []  # [S28] compactions' usage the disk refused, recorded with the next

        async def build(job: Job) -> JobResult:
            compactor = memory_ref["compactor"]
            task = Compress(job.kind, job.text) if job.l == 0 else Merge(*job.halves)
            result = await compactor.build(CompactorJob(job.l, job.i, job.context, task))
            unrecorded.append(usage_record("compaction", memory_ref["m"].planner.T - 1,
                                           compactor.settings.model, result.usage, world.clock.now()))
            try:
                while unrecorded:
                    record_usage(settings.home, unrecorded[0], world.disk)
                    unrecorded.pop(0)
            except OSError as error:  # the line is the compaction's; its usage waits for the disk
                if len(unrecorded) == 1:
                    hub.row(f"memory: the usage of {job.name} could not be recorded ({error.strerror or error}); "
                            "it is recorded with the next compaction's")
            return JobResult(result.text, result.failure or "")

        # owned first: a process that finds the chat owned (ChatBusy) never loads the SDK
        memory = Memory.open(settings.home, world.planner, build=build, on_change=hub.row, disk=world.disk,
                             clock=world.clock)
        memory_ref["m"] = memory
        try:
            check_memory_setting(settings)  # a thinking setting the model lacks: refused at the start
            prompt = Prompt.load(str(settings.home))
            memory_settings = MemorySettings.from_config(
                {"model": settings.memory_model, "thinking": settings.memory_thinking}, settings.model)
            # [H25] Anthropic's key only when a model is Anthropic's; another provider's is its own
            anthropic = any(route(model, settings.providers).provider.api == "anthropic"
                            for model in (settings.model, memory_settings.model))
            key = Secret(api_key) if api_key is not None else load_key(settings.home) if anthropic else Secret("")
            use_provider_prices(settings.providers)  # [H29]
            from harness.calls.client import ClientSettings

            client_settings = ClientSettings(api_key=key.reveal(), base_url=settings.base_url)
            # a compaction retries while its call runs [P16]; a turn, whose user waits, gives
            # up after a few tries with one clear sentence; both share the prefix gate [gist §3.3]
            # [H25] each picks its provider by its model's name
            compactions = dataclasses.replace(client_settings, route=route(memory_settings.model, settings.providers))
            turns = dataclasses.replace(client_settings, route=route(settings.model, settings.providers))
            compactor_client = world.provider(compactions, clock=world.clock, random=world.random,
                                              context_window=settings.memory_context_window)
            client = world.provider(turns, clock=world.clock, random=world.random, attempts_max=TURN_ATTEMPTS,
                                    context_window=settings.context_window,
                                    silence_seconds=TURN_SILENCE_SECONDS,
                                    retry_after_max_seconds=TURN_RETRY_AFTER_MAX_SECONDS,
                                    gate=compactor_client.gate)
            # each model's window, output cap and thinking from the Models API, kept a day under
            # the home; offline, the table answers (harness/calls/capabilities.py)
            # (of the clients, the one that has a Models API: the turns' or the compactor's)
            listing_client = next((one for one in (client, compactor_client) if hasattr(one, "list_models")), client)
            await refresh(listing_client, settings.home, settings.base_url, world.clock.now(), world.disk)
            # [H30] an OpenAI wire's models as its own list gives them (a local server's windows)
            for one in {one.name: one for one in (client, compactor_client)
                        if hasattr(one, "list_provider_models")}.values():
                await refresh_provider(one)
        except BaseException:
            memory.close()
            raise
        compactor = Compactor(compactor_client, prompt, memory_settings, marks=settings.cache_marks)
        memory_ref["compactor"] = compactor
        approval = Approval(allowed=tuple(settings.approve), yes=yes, ask=hub.ask if ask else None)
        owner = cls(settings, world, memory, client, prompt, approval, hub, (client, compactor_client))
        owner.compactor = compactor
        owner.memory_ref = memory_ref
        hub.slash = lambda text: commands.answer(owner, text)
        client.on_wait = hub.waiting("call")
        memory.on_wait = hub.waiting("memory")
        owner.agents = Agents(memory, client, prompt, TurnSettings(settings.model, settings.settle_timeout_seconds,
                                                                   workdir=world.workdir, home=settings.home,
                                                                   cache_marks=settings.cache_marks,
                                                                   clock=world.clock.now,
                                                                   monotonic=world.clock.monotonic),
                              settings.agent_caps or AgentCaps(), hub)
        owner.agents.spend = owner.spend
        owner.agents.chat_caps = owner.spend.caps
        owner.report_turns = report_turns
        if report_turns:  # a report no running turn takes starts a turn of this chat
            owner.agents.report_turns = owner.report_started_turns
        owner.agents.recover()  # a subagent cut off by a kill of the last owner reports now
        owner.resume()
        memory.start()  # the compactor starts on what the logs imply now, not at the next message
        owner.back_up_on_timer()
        return owner

    @property
    def socket_path(self) -> Path:
        return self.settings.chat_dir / "socket"

    async def serve(self) -> None:
        """Answer the chat's socket, for as long as this process holds the chat."""
        self.server = await socket.serve(self, self.socket_path)

    async def close(self, stop_turns: bool = True, settle_seconds: float = CLOSE_SETTLE_SECONDS) -> None:
        """The one way an owner stops, in this order: the socket no longer answers; no message is
        taken and no turn starts; a question waiting is answered no; the senders still waiting are
        let go (their messages in the inbox, for the next owner [S9]) and the attached terminals
        hear the owner go; the running turn is stopped (`stop_turns`; else the turns running end
        first, as an `ever send`'s owner lets other senders' turns end); each subagent stops and
        reports; the compactor's running call gets `settle_seconds`; the files and the clients
        close."""
        if self.server is not None:
            self.server.close()
            self.server = None
            self.socket_path.unlink(missing_ok=True)  # still ours: the lock is held
        self.leaving = True
        self.hub.decline_all()
        for _ in range(3):  # an answer settled just now is written first
            await asyncio.sleep(0)
        self.left.set()
        self.hub.close_all()
        if stop_turns and self.turn_task is not None and not self.turn_task.done():
            self.turn_task.cancel()  # what it had accepted stays in the inbox for the next owner
        while self.busy:
            busy = list(self.busy)
            if not stop_turns:
                await asyncio.wait(busy)
                continue
            _, pending = await asyncio.wait(busy, timeout=settle_seconds)
            for task in pending:
                task.cancel()
            await asyncio.gather(*busy, return_exceptions=True)
            self.busy.difference_update(busy)
        await self.agents.close()  # each running subagent stops and its report is logged
        await self.backups.stop(settle_seconds)
        await self.memory.idle_or_stop(settle_seconds)
        self.memory.close()
        for client in self.clients:
            await client.aclose()

    def stop_call(self) -> bool:
        """Ctrl-C, from any terminal: the running call stops (its message and what was shown of
        the reply are logged, as for a call stopped in the owner's terminal)."""
        if self.turn is None or self.turn_task is None or self.turn_task.done():
            return False
        self.turn_task.cancel()
        return True

    def new_turn(self, output: Output | None = None, approval: Approval | None = None,
                 chain: Chain | None = None) -> Turn:
        tools = WorkTools(self.world.workdir, approval or self.approval, secrets=(self.client.settings.api_key,),
                          private=(self.settings.home,))
        turn_settings = TurnSettings(self.settings.model, self.settings.settle_timeout_seconds,
                                     workdir=self.world.workdir, home=self.settings.home,
                                     cache_marks=self.settings.cache_marks,
                                     caps=self.settings.turn_caps, clock=self.world.clock.now,
                                     monotonic=self.world.clock.monotonic)
        turn = Turn(self.memory, self.client, self.prompt, tools, turn_settings, output or self.output,
                    agents=self.agents)
        turn.spend = self.spend
        if chain is not None:  # [H15] a report's turn spends its chain's budget, never a fresh one
            turn.chain, turn.spent = chain, chain.spent
        return turn

    # ---- accepting a message [S9] ----

    def new_key(self) -> str:
        """A message's key when its sender gave none [S9]."""
        return "send=" + self.world.random.token(8)

    def hide(self, text: str) -> str:
        """`text` without the chat's API key [H3]."""
        return redact(text, (self.client.settings.api_key,))

    def entering(self, text: object, key: str | None, source: str) -> Accepted:
        """A user's message where it enters the chat: valid, the key hidden, once
        (harness/memory/accepted.py); a key of its own when its sender gave none."""
        return entering(text, key or self.new_key(), source, self.hide)

    def accept(self, message: Accepted, output: Output | None,
               approval: Approval | None) -> Delivery:
        """The message on disk in the inbox (an OSError, else), then on its way: only now may it
        be shown as accepted."""
        self.memory.inbox.accept(message, yes=(approval or self.approval).yes)
        delivery = Delivery(message, output, approval, asyncio.get_running_loop().create_future())
        self.answers[message.key] = delivery.answered
        return delivery

    def submit(self, message: Accepted, output: Output | None = None,
               approval: Approval | None = None) -> "asyncio.Future[TurnResult]":
        """A message from any terminal, the socket or `ever send`: accepted, then joined to the
        running call or given a turn; the future is the result of the turn that answers it. A key
        already seen gives that message's answer, and nothing is logged again."""
        if self.leaving:
            raise socket.Leaving()
        self.spend.resume()  # [H15] the user's message: the chat's work may go on
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
            self.schedule()

    def schedule(self) -> None:
        """A task that runs the turns waiting, once the running one ends."""
        task = asyncio.get_running_loop().create_task(self.turns())
        self.busy.add(task)
        task.add_done_callback(self.scheduled_ended)

    def scheduled_ended(self, task: asyncio.Task) -> None:
        """A turn that failed settled its senders with its error; every terminal hears it once."""
        self.busy.discard(task)
        if not task.cancelled() and task.exception() is not None:
            error = task.exception()
            self.hub.notice(f"The turn ended: {type(error).__name__}: {error} (a bug in Ever: please report it)")

    def interrupt(self) -> str:
        """Ctrl-C in any terminal: a question waiting is answered no, and the running call stops;
        with no call running, the newest subagent stops (it reports). The sentence every terminal
        is told, or "" when nothing ran."""
        self.hub.decline_all()
        if self.stop_call():
            return "(stopped)"
        name = self.agents.newest_running() if self.agents is not None else None
        if name is not None:
            self.agents.stop(name)
            return f"(stopping the subagent {name}; its report follows)"
        return ""

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
            # [S36] under its sender's leave as the inbox kept it, never this owner's: nobody is
            # asked for it now, and only --yes passes what asks
            leave = Approval(self.approve, key in self.memory.inbox.with_yes, None)
            delivery = Delivery(message, None, leave, asyncio.get_running_loop().create_future(),
                                logged=i is not None)
            first_line = message.text.strip().split("\n", 1)[0]
            self.output.notice(f"[accepted before a restart, answered now] {first_line[:160]}")
            self.answers[key] = delivery.answered
            self.route(delivery)

    def typed(self, text: str, client: hubs.Client | hubs.LocalClient) -> None:
        """A message typed in a terminal, this process's or attached: accepted, then it joins the
        running call or waits for its turn, under that terminal's approval; the other terminals
        see its first line. A message past its limit, or one the disk would not take, gets one
        sentence in that terminal, which stays as it was [S12] [S5]."""
        approval = self.approval_of(client)
        refused = ""
        try:
            self.submit(self.entering(text, None, "terminal"), None, approval)
        except TooLong as error:
            refused = f"{error}."
        except socket.Leaving:
            refused = "The chat's owner is leaving; nothing was logged: send it again."
        except (OSError, StoreError) as error:
            refused = socket.failed_append(error)
        if refused:
            client.send(protocol.Notice(refused))
        if isinstance(client, hubs.Client):  # [S25] an attached terminal hears its line was taken
            client.send(protocol.Took(ok=not refused))
        if refused:
            return
        first_line = text.strip().split("\n", 1)[0]
        self.hub.notice(f"{ANOTHER_TERMINAL}{first_line[:160]}", skip=client, aside=True)

    def approval_of(self, client: hubs.Client | hubs.LocalClient) -> Approval:
        """[A8] A terminal's approval, its own for as long as it is attached: an "always" answered
        for its messages holds for its later ones, and for no other sender's."""
        if client.approval is None:
            client.approval = Approval(self.approve, yes=client.yes, ask=self.hub.ask)
        return client.approval

    def answered(self, delivery: Delivery, result: TurnResult) -> None:
        key = delivery.message.key
        if key == self.leave_after:
            self.leaving = True  # before the next turn can start
        settle_future(delivery.answered, result)
        self.answers.pop(key, None)
        self.memory.inbox.done(key)

    # ---- turns [gist §6] ----

    async def say(self, message: Union[Accepted, str], output: Output | None = None,
                  approval: Approval | None = None) -> TurnResult:
        """A user message: it joins the running call, or waits for its turn [gist §6]; the result
        is the turn that answered it. A str is a text typed at the terminal, entering here."""
        if isinstance(message, str):
            message = self.entering(message, None, "terminal")
        try:
            answered = self.submit(message, output, approval)
        except (OSError, StoreError) as error:
            return self.refused(error, output)
        return await answered

    async def turns(self) -> None:
        """The one scheduler: a turn for each message queued, in the order accepted, then one for
        each subagent report no running turn took [gist §6] [A2]. A message that joined a call
        after its last tool call goes first, as it came before the ones queued meanwhile. Each
        sender's future is settled as its own turn ends. If a call is stopped or fails, every
        message not logged yet is logged unanswered, as the call's own message is."""
        async with self.turn_lock:
            self.turn_task = asyncio.current_task()
            while not self.leaving:  # leaving: what waits stays in the inbox
                if self.queue:
                    await self.message_turn(self.queue.pop(0))
                elif self.report_turns and self.agents is not None and self.agents.pending:
                    await self.report_turn(self.agents.pending.pop(0))
                else:
                    return

    async def report_started_turns(self) -> None:
        """The scheduler as a subagent's report starts it [A6]: a turn of it that fails is said in
        every terminal and its error taken, as for the scheduler `schedule` starts, never an
        exception nobody retrieves (found by `make sim`, seed 54)."""
        asyncio.current_task().add_done_callback(self.scheduled_ended)
        await self.turns()

    async def message_turn(self, current: Delivery) -> None:
        self.turn = turn = self.new_turn(current.output, current.approval)
        self.queue_turn = True
        self.joined = []
        try:
            self.last = await turn.run(current.message, logged=current.logged)
        except BaseException as error:  # stopped, or failed: no message typed is lost
            cut = [current] + self.joined + self.queue
            refused = []
            for unseen in self.unseen(turn) + self.queue:
                if not unseen.logged:
                    try:
                        self.memory.append_accepted(unseen.message)
                        unseen.logged = True
                    except (OSError, StoreError):
                        refused.append(unseen)  # [S9] it stays in the inbox: the next open logs and answers it
            self.queue = []  # each logged once here or kept in the inbox: never taken again by a turn
            for other in cut:
                if other in refused:
                    settle_future(other.answered, TurnResult("", f"{STOPPED} (the disk refused its line; it waits "
                                                                 "in the inbox for the next open)"))
                elif isinstance(error, asyncio.CancelledError):
                    self.answered(other, TurnResult("", STOPPED))  # the person stopped it
                else:  # left in the inbox: the next open answers it
                    settle_future(other.answered, TurnResult("", f"{STOPPED} ({error})"))
            if isinstance(error, asyncio.CancelledError) and not self.leaving:
                self.hub.notice(STOPPED_SHOWN)
                self.hub.end(self.status_line())
            raise
        finally:
            self.turn = None
            self.queue_turn = False
        end_line = getattr(turn.output, "end_line", None)  # Quiet has no line to end
        if end_line is not None:
            end_line()
        unseen = self.unseen(turn)
        for joined in self.joined[:len(self.joined) - len(unseen)]:
            self.answered(joined, self.last)  # the call took it: its reply answers it
        self.answered(current, self.last)
        self.hub.end(self.status_line())
        self.queue[:0] = unseen
        self.offer_forget(current.message)
        self.back_up_soon()

    async def report_turn(self, report) -> None:
        """A report no running turn took, in a turn of its own; it carries the approval of whoever
        asked for the subagent. A message typed meanwhile waits for a turn of its own."""
        if self.spend.stopped:  # [H15] the work stopped: the report is logged, no call is made
            self.agents.pending.insert(0, report)
            self.agents.flush()
            return
        approval = report.approval or Approval(self.approve, False, None)
        self.turn = turn = self.new_turn(approval=approval, chain=report.chain)
        try:
            self.last = await turn.run(report.text, kind="work")
            self.hub.end_line()
            self.hub.end(self.status_line())
            self.back_up_soon()
        except asyncio.CancelledError:  # stopped: the other reports are logged, for the next view
            self.agents.flush()
            raise
        except (OSError, StoreError) as error:  # its line refused: said, and given at the next start [A3]
            self.hub.notice(f"[{report.name}] its report could not be logged ({error}); the chat's next start "
                            "gives it")
        finally:
            self.turn = None
            if self.logged_at(report, turn.turn_id):
                report.logged(turn.turn_id)
            # else [A3]: the disk refused its line, so its log keeps no `reported` line, and the
            # next start, finding the end line and no report since, gives it then

    def logged_at(self, report, message_id: int) -> bool:
        """Whether the chat's message `message_id` is the report's `work` line."""
        try:
            record = self.memory.store.message(message_id) if message_id >= 0 else None
        except (IndexError, OSError, StoreError):
            return False
        return (record is not None and record.get("kind") == "work"
                and str(record.get("text", "")).startswith(f"[{report.name}] report"))

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
        sentence = socket.failed_append(error)
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

    # ---- backups [S24] ----

    def quiesce(self) -> "Frozen":
        """The chat's files at this instant, between two appends: every append is one write then
        fsync on this thread, so each log's size taken here ends a whole, acknowledged line. A
        backup reads no byte past these sizes, so it copies beside the turns and holds none up."""
        from harness.memory.backup import frozen

        return frozen(self.settings.home, self.world.disk)

    def back_up_soon(self) -> None:
        """One backup into `[backup] dest` at a time, off the turn's path; a turn ending while one
        runs makes another follow it."""
        if not self.settings.backup_dest:
            return
        if self.backups.running():
            self.backups.again = True
            return
        self.backups.task = asyncio.get_running_loop().create_task(self.back_up())

    def back_up_on_timer(self) -> None:
        if not self.settings.backup_dest:
            return

        async def every() -> None:
            while not self.leaving:  # the first after a period: a turn's comes sooner
                await self.world.clock.sleep(self.settings.backup_every_seconds)
                self.back_up_soon()

        self.backups.timer = asyncio.get_running_loop().create_task(every())

    async def back_up(self) -> None:
        """Back up, and run the restore test when one is due (first, then once a timer's period),
        against the live view as it stood at the quiesce. A failure is one notice, said once."""
        from harness.memory import backup

        home, dest, disk = self.settings.home, self.settings.backup_dest, self.world.disk
        while True:
            self.backups.again = False
            at = self.quiesce()
            now = self.world.clock.monotonic()
            due = self.backups.checked is None or now - self.backups.checked >= self.settings.backup_every_seconds
            live = (self.memory.planner.T, self.memory.render()) if due else None
            try:
                await asyncio.to_thread(backup.backup, home, dest, disk, at)
                said = ""
                if live is not None:
                    verdict = await asyncio.to_thread(backup.check, home, dest, disk, functools.partial(tuple, live),
                                                    self.memory.planner.config)
                    self.backups.checked = now
                    said = "" if verdict.passed else verdict.sentence
            except (backup.BackupError, OSError) as error:
                said = f"The backup into {dest} failed: {error}."
                backup.record_state(home, dest, disk, error=said)
            if said and said != self.backups.said:
                self.hub.notice(said)
            self.backups.said = said
            if not self.backups.again:  # an owner leaving still backs its last turn up
                return

    # ---- forgetting [S33] ----

    async def forget(self, ids: tuple[int, ...], why: str) -> dict[str, Any]:
        """`ever forget` while this process owns the chat: between two turns (none runs, no backup
        copies), the memory closes with its lock kept, the home is rewritten
        (harness/memory/forget.py), the memory opens again on the same lock, so no other process
        takes the chat meanwhile and no message is taken while its files are rewritten; then,
        beside the turns, the backups are rewritten, the pages `ever browse --out` wrote made
        anew, and the proof runs. The answer: `forgotten` (`clean`, `text`) or `error`."""
        from harness.memory import forget as forgetting
        from harness.memory.pages import pages_written

        running = sorted(name for name, task in self.agents.running.items() if not task.done())
        if running:
            return {"error": f"The subagent{'' if len(running) == 1 else 's'} {', '.join(running)} still "
                             f"run{'s' if len(running) == 1 else ''}, writing its log: stop it (`/stop NAME`) or "
                             "let it end, then forget; nothing was forgotten."}
        if self.forgetting or self.leaving:
            return {"error": "The chat's owner is already forgetting, or leaving; nothing was forgotten: "
                             "run it again in a moment."}
        self.forgetting = True
        try:
            async with self.turn_lock:  # no turn runs, and none starts until the home is rewritten
                while self.backups.running():  # a backup reads the files being rewritten: it ends first
                    await asyncio.wait([self.backups.task])
                home, disk = self.settings.home, self.world.disk
                lock = self.memory.close(keep_lock=True)
                try:
                    report, patterns = forgetting.forget_home(home, list(ids), why, disk, self.world.clock.now(),
                                                              lock=lock)
                except forgetting.ForgetError as error:
                    return {"error": f"{error}; nothing was forgotten."}
                finally:
                    self.reopen(lock)
            writer = self.page_writer(self.memory) if pages_written(home, disk) and self.page_writer else None
            dests = forgetting.managed_dests(home, self.settings.backup_dest, disk)
            self.backups.task = asyncio.get_running_loop().create_task(asyncio.to_thread(
                forgetting.finish, home, dests, report, patterns, disk, self.quiesce(), writer))
            await self.backups.task
            if self.backups.again:  # a turn ended meanwhile: its backup follows
                self.backups.task = None
                self.back_up_soon()
            return {"forgotten": {"ids": list(report.ids), "clean": report.clean,
                                  "text": forgetting.report_text(report)}}
        finally:
            self.forgetting = False

    def reopen(self, lock) -> None:
        """The memory opened again on the lock this process kept: the view rebuilt from the logs
        as they are now, the compactor started on the lines that left the tree."""
        old = self.memory
        memory = Memory.open(self.settings.home, old.planner.config, build=old.build, on_change=old.on_change,
                             disk=self.world.disk, clock=self.world.clock, lock=lock)
        memory.on_wait = old.on_wait
        self.memory = self.memory_ref["m"] = memory
        if self.agents is not None:
            self.agents.memory = memory
        memory.start()

    def offer_forget(self, message: Accepted) -> None:
        """A message holding what looks like a key or a token is offered for forgetting at once."""
        from harness.memory.forget import secrets_in

        i = self.memory.store.key_id(message.key)
        if i is not None and secrets_in(message.text):
            self.hub.notice(f"Message {i} holds what looks like a secret (an API key or a token). To remove it from "
                            f"every place Ever keeps it: `/forget {i} --why a leaked secret` here, or `ever forget {i} "
                            "--why \"a leaked secret\"`; then change the secret.")

    def status_line(self) -> str:
        view_bytes = self.memory.planner.view.bytes
        ceiling = self.memory.planner.config.view_bytes_ceiling
        last = self.last if self.last and self.last.calls else None
        share = f"{last.cache_read_share:.0%}" if last else "-"
        # [H29] an unpriced model's tokens, never a dollar figure made up for it
        cost = ("-" if last is None else f"{last.tokens:,} tokens, unpriced" if last.cost_e8 is None
                else dollars_text(last.cost_e8))
        if last is not None and not self.settings.priced:
            cost = "free: a local echo"  # the demo's model name has a price; its echo costs nothing
        line = f"mem {view_bytes // 1000}K/{ceiling // 1000}K · cache {share} · {cost}"
        if self.spend.stopped:
            line += f" · {self.spend.stopped}"
        if self.hub.waiting_question():  # [A9] on every screen that shows the status
            line += f" · waiting for an answer: {self.hub.waiting_question()}"
        if self.memory.paused:  # [C11] what failed, where, what to do
            line += f" · the compactor is paused: {self.memory.paused}"
        return line


async def send_here(owner: Owner, text: str, key: str) -> dict[str, Any]:
    """`ever send` found no owner and holds the chat itself: one turn, then it goes [A6]. It
    answers the socket meanwhile, so that the sends and the `ever memory` that arrive are answered,
    not refused (docs/reliability.md, [S9])."""
    try:
        owner.attachable = False
        await owner.serve()
        owner.leave_after = key
        try:
            answered = owner.submit(owner.entering(text, key, "send"))
        except (OSError, StoreError) as error:
            return {"reply": "", "error": socket.failed_append(error), "logged": False}
        answer = socket.answer_of(owner, key, await answered)
        await owner.close(stop_turns=False, settle_seconds=5.0)
        return answer
    finally:
        if not owner.left.is_set():
            await owner.close(stop_turns=True)


OpenOwner = Callable[..., "asyncio.Future[Owner]"]
