"""MCP tool calls in a run (`ever mcp`, as Claude Code reaches Ever's memory [R2]): the real MCP
server (harness/chat/mcp_server.py's `build_server`, the official SDK's tool manager) answering
from the owner over its socket while the owner serves, as `ever mcp` does when a chat runs. A
seed may make a call after some of its messages, drawn over `view`, `search`, `zoom` and `date`,
and from world 4 (sim/seeds.py) `send` too (`ever mcp --allow-send`), a message of its own.

The promise checked (`every MCP call answered in words`): each call returns text, never an
exception the SDK would hand the client as a crash; `view` is the view the owner's next turn
would send, byte for byte, when nothing was logged or built while it was asked (a disk's fault may
make any answer a sentence saying so). A `send` is one of the run's senders (sim/run.py `Sender`,
never sent again by the run, without --yes): its reply is its acknowledgement, so a message
answered is logged once (`acknowledged means kept`, `never doubled`), and one answered "nothing
was logged" is nowhere (`refused means not kept`). Drawn from its own randomness (seed * 7 + 9),
so the seed's other draws stay its own; none in a seed kept from an earlier world.

`ever mcp` is a process of its own, and two of its edges are the run's here (`separate`): the key
its `send` draws comes from the run's randomness (a replay writes the same bytes), and when no
owner answers it never opens the chat itself (on the machine's disk): the chat is the next
owner's, as the run's next life, so it waits for one as for a busy owner.
"""

import asyncio
import contextvars
import random

INVARIANT = "every MCP call answered in words"
TOOLS = ("view", "search", "zoom", "date")
SENDING = TOOLS + ("send",)  # from world 4
_key: contextvars.ContextVar[str | None] = contextvars.ContextVar("sim_mcp_key", default=None)


def rate(seed: int) -> float:
    from sim.seeds import part_rate

    return part_rate(seed, 9, 2, 0.1, 0.6)


def separate() -> None:
    """`ever mcp`'s own process, as the run sees it: its `send`'s key from the run's randomness
    (set in `_key` by the call), and, when no owner answers, the chat owned by another (the
    run's next owner) rather than opened here."""
    from harness.memory.store import ChatBusy
    from harness.owner import sender

    if getattr(sender, "_sim_separate", False):
        return
    new_key, with_owner = sender.new_key, sender.with_owner

    def drawn_key() -> str:
        return _key.get() or new_key()

    async def owned_elsewhere(settings, here, request, say=None):
        async def elsewhere():
            raise ChatBusy("The chat is owned by the run's next owner.")

        return await with_owner(settings, elsewhere, request, say)

    _ORIGINALS.update(new_key=new_key, with_owner=with_owner)
    sender.new_key, sender.with_owner, sender._sim_separate = drawn_key, owned_elsewhere, True


_ORIGINALS: dict = {}


def rejoined() -> None:
    """The sender's own key and owner again, at a run's end: a process that runs seeds in turn
    (pytest's) runs an `ever send` of its own after them."""
    from harness.owner import sender

    if getattr(sender, "_sim_separate", False):
        sender.new_key, sender.with_owner = _ORIGINALS["new_key"], _ORIGINALS["with_owner"]
        sender._sim_separate = False


class Calls:
    """One run's MCP calls: a server built once per owner's life, its calls drawn in order."""

    def __init__(self, run):
        from sim.seeds import world

        self.run = run
        self.chance = rate(run.seed)
        self.rng = random.Random(run.seed * 7 + 10)
        self.server = None  # the MCP server, built at the first call: it asks over the socket, so any owner's
        self.sending = world(run.seed) >= 4
        self.sends = 0
        separate()

    def after_send(self, owner) -> None:
        """Maybe an MCP call a while after this message is sent."""
        if self.chance <= 0 or self.rng.random() >= self.chance or owner.server is None:
            return
        tool = self.rng.choice(SENDING if self.sending else TOOLS)
        delay = self.rng.expovariate(1 / 20.0)
        task = asyncio.get_running_loop().create_task(self.call(owner, tool, delay))
        owner.busy.add(task)

    def new_sender(self):
        """An MCP `send`'s message, one of the run's senders; its key is set for the call."""
        from sim.run import Sender, words

        self.sends += 1
        key = f"send={self.rng.getrandbits(64):016x}"
        text = f"mcp send {self.sends}: " + words(self.rng, self.rng.randrange(1, 20))
        _key.set(key)
        return self.run.senders.setdefault(key, Sender(key, text, sent=True, vanished=True, yes=False))

    async def call(self, owner, tool: str, delay: float) -> None:
        from harness.chat.mcp_server import build_server, quiet_logs
        from harness.owner import protocol, socket

        run, process = self.run, self.run.process
        await asyncio.sleep(delay)
        if not process.alive or owner.server is None or owner.leaving:
            return
        if self.server is None:
            self.server = build_server(run.settings, allow_send=self.sending)
            quiet_logs()  # as `ever mcp` does: the SDK's logging set up at INFO would print every request
        server = self.server
        memory = owner.memory
        before = socket.answer_memory(memory, protocol.View())["view"] if tool == "view" else ""
        sent = self.new_sender() if tool == "send" else None
        arguments = {"view": {}, "search": {"query": "kept"}, "zoom": {"id": 0, "n": 1}, "date": {"id": 0},
                     "send": {"message": sent.text if sent else ""}}[tool]
        run.counts.add(f"MCP call: {tool}")
        try:
            result = await server.call_tool(tool, arguments)
        except Exception as error:  # the SDK's ToolError and the rest: what the client would see as a crash
            if process.alive and not owner.leaving:
                run.fail(INVARIANT, f"{tool} raised {type(error).__name__}: {error}"[:300])
            return
        finally:
            owner.busy.discard(asyncio.current_task())
        if not process.alive or owner.leaving:
            return
        text = "".join(getattr(block, "text", "") for block in getattr(result, "content", ()))
        if sent is not None:
            self.answered(sent, text)
        if not text.strip() or getattr(result, "is_error", False):
            run.fail(INVARIANT, f"{tool} answered {text[:120]!r}")
            return
        if tool == "view":
            own = socket.answer_memory(memory, protocol.View())["view"]
            if own == before:  # nothing logged or built meanwhile
                run.counts.add("MCP view compared with the next turn's")
            if own == before and text != own:
                run.fail(INVARIANT, f"view over MCP is {len(text):,} characters, the next turn's {len(own):,}")

    def answered(self, sent, text: str) -> None:
        """What the MCP client reads of its `send`: a reply is its acknowledgement (the turn that
        answered it logged it); "nothing was logged", a refusal; any other "[not answered: ...]"
        leaves it as a sender whose answer never came."""
        if "[not answered:" not in text:
            sent.acknowledged = True
            sent.answer = {"reply": text, "logged": True}
            self.run.counts.add("MCP send answered")
        elif "nothing was logged" in text:
            sent.answer = {"reply": "", "error": text, "logged": False}
            self.run.counts.add("MCP send refused")
            self.run.refused_left(sent)
        else:
            self.run.counts.add("MCP send not answered")
