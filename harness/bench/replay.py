"""A scripted chat replayed against the local Messages API: what the prompt cache does for
compactions and turns, through the real SDK, the real compactor and the production planner
[gist §3.3]. docs/compactor.md's figures come from it.

    python -m harness.bench.replay --messages 3000                # compactions on their own model
    python -m harness.bench.replay --messages 3000 --same-model   # compactions on the turns' model

The chat: `messages` messages of the gist's sizes (the bridge's `gist_3000` mix: 2 % empty, 45 %
of 1–150 bytes, which are free nodes, 35 % of 300–1,500 and 18 % of 1,500–6,000), kinds drawn
from user, ever, tool and echo; the view 64–128 KB and the compaction view 16–32 KB (the planner's
defaults). The compactor is never late: after each message every call the planner starts runs (up
to 8 at once, in waves) before the next message. The model answers a compaction with a line of
380 to 512 bytes (lines use the space [gist §7.8]) and a turn with a short reply. Each user
message first makes a turn: `[tools] [system] [view] [message]` on the turns' model, the view in
blocks of 4 lines, a mark on its last whole block and one on the message [gist §3.3, §6]. The
server's clock moves `seconds_per_message` between messages (entries live 5 minutes).

Prices are Anthropic's published list prices per million tokens (input, output), 5-minute cache
writes at 1.25x input and reads at 0.1x [gist §3.3]. Thinking tokens are not modelled (the local
API does not think): the output counted is the line itself.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import random
from dataclasses import dataclass, field

from harness.calls.anthropic import marked, wire_system, wire_tools
from harness.calls.client import Client, ClientSettings, Usage
from harness.calls.compactor import Compactor, MemorySettings, job_for
from harness.calls.models import MODELS
from harness.calls.prompt import Prompt, chat_blocks, view_mark
from harness.localapi.server import LocalAPI, Reply, block_tokens
from harness.memory.events import Message
from harness.memory.planner import Config, Planner

# $ per million tokens: (input, output); Anthropic's list prices, from the capability table
# (harness/calls/models.py), for the models a replay may run on.
PRICES = {model: (MODELS[model].price.input / 100, MODELS[model].price.output / 100)
          for model in ("claude-haiku-4-5", "claude-sonnet-4-6", "claude-opus-4-6", "claude-opus-4-8")}
CACHE_WRITE_PRICE = 1.25  # x input, 5-minute entries
CACHE_READ_PRICE = 0.10  # x input
TURN_MODEL = "claude-sonnet-4-6"
COMPACTION_MODEL = "claude-haiku-4-5"
KINDS = ("user", "ever", "tool", "echo")
WORDS = ("the", "view", "merge", "line", "zoom", "cache", "tree", "node", "batch", "file", "error:", "ok",
         "user", "said", "fix", "path/to/src.py", "42", "0x1f", "test", "failed", "passed", "run")


def cost_dollars(model: str, usage: Usage) -> float:
    input_price, output_price = PRICES[model]
    input_side = (usage.input_tokens + CACHE_WRITE_PRICE * usage.cache_creation_input_tokens
                  + CACHE_READ_PRICE * usage.cache_read_input_tokens)
    return (input_side * input_price + usage.output_tokens * output_price) / 1_000_000


def share(usage: Usage) -> float:
    """The part of the prompt read from the cache."""
    return usage.cache_read_input_tokens / usage.prompt_tokens if usage.prompt_tokens else 0.0


def message_text(rng: random.Random) -> str:
    """A text of the gist scenario's sizes (bytes, ASCII)."""
    roll = rng.random()
    if roll < 0.02:
        return ""
    if roll < 0.47:
        size = rng.randint(1, 150)
    elif roll < 0.82:
        size = rng.randint(300, 1500)
    else:
        size = rng.randint(1500, 6000)
    words = []
    length = 0
    while length < size:
        word = rng.choice(WORDS)
        words.append(word)
        length += len(word) + 1
    return " ".join(words)[:size].strip()


def scripted_reply(body: dict) -> Reply:
    """A compaction gets a line of 380–512 bytes, the same for the same task; a turn gets "ok"."""
    last = body["messages"][-1]["content"]
    said = last if isinstance(last, str) else last[-1]["text"]
    if not said.startswith("Compaction:"):
        return Reply("ok")
    digest = hashlib.sha256(said.encode("utf-8")).hexdigest()
    size = 380 + int(digest[:8], 16) % 133
    return Reply(("summary " + digest * 12)[:size])


@dataclass
class Figures:
    messages: int
    compaction_model: str
    turn_model: str
    compactions: Usage = field(default_factory=Usage)
    compaction_calls: int = 0
    turns: Usage = field(default_factory=Usage)
    turn_calls: int = 0
    view_batches: int = 0
    task_tokens: int = 0  # the compactions' tasks and follow-ups: new text, never in the cache

    def compaction_dollars(self) -> float:
        return cost_dollars(self.compaction_model, self.compactions)

    def turn_dollars(self) -> float:
        return cost_dollars(self.turn_model, self.turns)

    def context_share(self) -> float:
        rest = self.compactions.prompt_tokens - self.task_tokens
        return self.compactions.cache_read_input_tokens / rest if rest else 0.0

    def report(self) -> str:
        c, t = self.compactions, self.turns
        return "\n".join([
            f"{self.messages} messages, {self.view_batches} batches of the view; compactions on "
            f"{self.compaction_model}, turns on {self.turn_model}",
            f"compactions: {self.compaction_calls} calls, prompt {c.prompt_tokens:,} tokens: read "
            f"{c.cache_read_input_tokens:,}, written {c.cache_creation_input_tokens:,}, uncached "
            f"{c.input_tokens:,}, output {c.output_tokens:,}; read share {share(c):.1%}; "
            f"${self.compaction_dollars():.2f}",
            f"  of which tasks (the input, new each call) {self.task_tokens:,} tokens; read share of "
            f"the rest (prefix and context) {self.context_share():.1%}",
            f"turns: {self.turn_calls} calls, prompt {t.prompt_tokens:,} tokens: read "
            f"{t.cache_read_input_tokens:,}, written {t.cache_creation_input_tokens:,}, uncached "
            f"{t.input_tokens:,}; read share {share(t):.1%}; ${self.turn_dollars():.2f}",
        ])


def turn_request(prompt: Prompt, planner: Planner, model: str, text: str) -> dict:
    """A turn's shape [gist §3.3, §6]: the view rendered before the message is logged, then it."""
    lines = [planner.rendered(l, i) for l, i in planner.view.lines()]
    content = chat_blocks(lines) + [marked({"type": "text", "text": text or "(empty)"})]
    at = view_mark(lines)
    if at is not None:
        content[at] = marked(content[at])
    return {"model": model, "max_tokens": 1024, "tools": wire_tools(prompt.tools), "system": wire_system(prompt.system),
            "messages": [{"role": "user", "content": content}]}


async def replay(api: LocalAPI, messages: int, *, seed: int = 1, compaction_model: str = COMPACTION_MODEL,
                 turn_model: str = TURN_MODEL, seconds_per_message: float = 10.0,
                 config: Config | None = None) -> Figures:
    """Replay `messages` messages; the cache's figures for compactions and turns."""
    rng = random.Random(f"replay/{seed}")
    api.responder = scripted_reply
    prompt = Prompt.build("")
    planner = Planner(config or Config())
    figures = Figures(messages, compaction_model, turn_model)
    settings = ClientSettings(api_key="replay", base_url=api.base_url, attempts_max=1)
    async with Client(settings) as client:
        compactor = Compactor(client, prompt, MemorySettings(model=compaction_model))
        for _ in range(messages):
            kind = rng.choice(KINDS)
            text = message_text(rng)
            if kind == "user":
                reply = await client.stream(turn_request(prompt, planner, turn_model, text))
                figures.turns = figures.turns + reply.spent
                figures.turn_calls += 1
            planner.apply(Message(kind, text))
            if planner.merges:
                figures.view_batches += 1
            while planner.running:
                jobs = [job_for(planner, l, i) for l, i in planner.running]
                results = await asyncio.gather(*(compactor.build(job) for job in jobs))
                for result in results:
                    assert not result.failed, result.failure
                    figures.compactions = figures.compactions + result.usage
                    figures.compaction_calls += result.calls
                    planner.apply(result.event())
            api.clock.advance(seconds_per_message)
    figures.task_tokens = sum(task_tokens(request.body) for request in api.requests
                              if request.body.get("tool_choice") == {"type": "none"})
    return figures


def task_tokens(body: dict) -> int:
    """A compaction request's tokens after its `</chat>` block: its task and any follow-ups, by
    the local API's token rule."""
    blocks = [block for message in body["messages"] for block in message["content"]]
    end = next(k for k, block in enumerate(blocks) if block["text"].endswith("</chat>"))
    return sum(block_tokens(block) for block in blocks[end + 1:])


def main(argv: list | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m harness.bench.replay", description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--turn-model", default=TURN_MODEL, choices=sorted(PRICES))
    parser.add_argument("--compaction-model", default=COMPACTION_MODEL, choices=sorted(PRICES))
    parser.add_argument("--same-model", action="store_true", help="compactions on the turns' model")
    parser.add_argument("--seconds-per-message", type=float, default=10.0)
    arguments = parser.parse_args(argv)
    compaction_model = arguments.turn_model if arguments.same_model else arguments.compaction_model
    with LocalAPI() as api:
        figures = asyncio.run(replay(api, arguments.messages, seed=arguments.seed,
                                     compaction_model=compaction_model, turn_model=arguments.turn_model,
                                     seconds_per_message=arguments.seconds_per_message))
    print(figures.report())


if __name__ == "__main__":
    main()
