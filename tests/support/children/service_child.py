"""A chat that a test kills: `python tests/support/children/service_child.py HOME MESSAGES`.

It owns the chat under HOME, checks at open that the loaded view is the one the logs alone give
(the history folded from the messages and the nodes with the T they were built at), then appends
messages whose text is a function of their id and lets a compactor that answers at once (and
fails one call in ten) build nodes. It prints `open T ok R` (R: the messages replayed past the checkpoint), `ack I` once message I is on disk, and
`done` at the end.
"""

import asyncio
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from harness.memory.events import Message  # noqa: E402
from harness.memory.planner import Config, Planner  # noqa: E402
from harness.memory.service import Job, JobResult, Memory  # noqa: E402
from harness.memory.texts import MemoryTexts  # noqa: E402

CONFIG = Config(3_000, 1_500, 1_000, 500, 4)
KINDS = ("user", "ever", "tool", "echo")


def text_for(i: int) -> str:
    rng = random.Random(i)
    return f"message {i} " + "w" * rng.choice((4, 40, 400, 900, 2_000))


def kind_for(i: int) -> str:
    return KINDS[i % len(KINDS)]


async def answer(job: Job) -> JobResult:
    await asyncio.sleep(0)
    if random.Random(f"{job.l} {job.i}").random() < 0.1 and random.random() < 0.5:
        return JobResult("", "a refusal")
    return JobResult(f"line of {job.name}" + "." * (job.i % 50))


def folded(memory: Memory) -> tuple:
    """The views the logs alone give: each message in order, each logged node adopted before
    the message that followed its building."""
    store = memory.store
    nodes = []
    for path in sorted((store.chat / "tree").glob("*.jsonl")):
        for raw in path.read_bytes().split(b"\n"):
            try:
                nodes.append(json.loads(raw))
            except ValueError:
                continue  # a torn line: reported by the store, never a node
    planner = Planner(CONFIG, MemoryTexts())
    by_T = {}
    for node in nodes:
        by_T.setdefault(node["T"], []).append(node)
    for t in range(store.count + 1):
        for node in by_T.get(t, ()):
            planner._build(node["l"], node["i"], node["text"])
            planner._record_built()
        if t < store.count:
            record = store.message(t)
            planner.apply(Message(record["kind"], record["text"]))
    return planner.render(), planner.render(planner.cview.lines())


def say(line: str) -> None:
    """One line in one write: with PYTHONUNBUFFERED, print writes each piece apart, and a kill
    between them would leave half a line."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def replayed(home: str) -> int:
    """The messages logged past the checkpoint: what this open replays [P10]."""
    try:
        saved = json.loads((Path(home) / "chat" / "view.json").read_text())
    except FileNotFoundError:
        return 0
    logged = sum(len(path.read_bytes().splitlines()) for path in (Path(home) / "chat" / "main").glob("*.jsonl"))
    return logged - saved["T"]


async def main(home: str, messages: int) -> None:
    past_checkpoint = replayed(home)
    memory = Memory.open(home, CONFIG, build=answer)
    loaded = (memory.planner.render(), memory.render_cview())
    verdict = "ok" if loaded == folded(memory) else "MISMATCH"
    say(f"open {memory.planner.T} {verdict} {past_checkpoint}")
    while memory.planner.T < messages:
        i = memory.planner.T
        memory.append(kind_for(i), text_for(i))
        say(f"ack {i}")
        await asyncio.sleep(0)
        if i % 3 == 0:
            await memory.idle()
    await memory.idle()
    say("done")
    memory.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
