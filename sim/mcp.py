"""MCP tool calls in a run (`ever mcp`, as Claude Code reaches Ever's memory [R2]): the real MCP
server (harness/chat/mcp_server.py's `build_server`, the official SDK's tool manager) answering
from the owner over its socket while the owner serves, as `ever mcp` does when a chat runs. A
seed may make a call after some of its messages, drawn over `view`, `search`, `zoom` and `date`.

The promise checked (`every MCP call answered in words`): each call returns text, never an
exception the SDK would hand the client as a crash; `view` is the view the owner's next turn
would send, byte for byte, when nothing was logged or built while it was asked (a disk's fault may
make any answer a sentence saying so). Drawn from its own randomness (seed * 7 + 9),
so the seed's other draws stay its own; none in a seed kept from an earlier world.
"""

import asyncio
import random

INVARIANT = "every MCP call answered in words"
TOOLS = ("view", "search", "zoom", "date")


def rate(seed: int) -> float:
    from sim.seeds import part_rate

    return part_rate(seed, 9, 2, 0.1, 0.6)


class Calls:
    """One run's MCP calls: a server built once per owner's life, its calls drawn in order."""

    def __init__(self, run):
        self.run = run
        self.chance = rate(run.seed)
        self.rng = random.Random(run.seed * 7 + 10)
        self.server = None  # the MCP server, built at the first call: it asks over the socket, so any owner's

    def after_send(self, owner) -> None:
        """Maybe an MCP call a while after this message is sent."""
        if self.chance <= 0 or self.rng.random() >= self.chance or owner.server is None:
            return
        tool = self.rng.choice(TOOLS)
        delay = self.rng.expovariate(1 / 20.0)
        task = asyncio.get_running_loop().create_task(self.call(owner, tool, delay))
        owner.busy.add(task)

    async def call(self, owner, tool: str, delay: float) -> None:
        from harness.chat.mcp_server import build_server, quiet_logs
        from harness.owner import protocol, socket

        run, process = self.run, self.run.process
        await asyncio.sleep(delay)
        if not process.alive or owner.server is None or owner.leaving:
            return
        if self.server is None:
            self.server = build_server(run.settings, allow_send=False)
            quiet_logs()  # as `ever mcp` does: the SDK's logging set up at INFO would print every request
        server = self.server
        memory = owner.memory
        before = socket.answer_memory(memory, protocol.View())["view"] if tool == "view" else ""
        arguments = {"view": {}, "search": {"query": "kept"}, "zoom": {"id": 0, "n": 1}, "date": {"id": 0}}[tool]
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
        if not text.strip() or getattr(result, "is_error", False):
            run.fail(INVARIANT, f"{tool} answered {text[:120]!r}")
            return
        if tool == "view":
            own = socket.answer_memory(memory, protocol.View())["view"]
            if own == before:  # nothing logged or built meanwhile
                run.counts.add("MCP view compared with the next turn's")
            if own == before and text != own:
                run.fail(INVARIANT, f"view over MCP is {len(text):,} characters, the next turn's {len(own):,}")
