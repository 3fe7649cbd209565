"""Attached terminals in a run (`ever chat` attached to `ever serve` [R3]): a seed may attach up
to three to each owner's life, over the chat's socket as the command does (`{"op": "attach"}`),
each staying a drawn while or to the life's end, and reading every event the owner sends.

From world 4 (sim/seeds.py) a terminal also talks, as a person at `ever chat` does: it may be
started with `--yes`, it may say up to five messages of its own (`{"op": "say"}`) at drawn
instants, each answered `took` once on disk, and it answers every question a tool puts to it
(`{"op": "answer"}`) a drawn while later: yes, no or always, or it leaves without answering, or
is killed mid-question (its socket cut). Which, from its own randomness, as the question comes.
One talking terminal in LONG_SAY_ONE_IN also sends a line past the socket's 64 MB limit, up to
three times it, as a script on the socket may, then at once a message of its own: the long one
is answered once (a notice to it alone, `took` not ok) and the next `took` is the message's.

The promises checked here:

- `every attached terminal saw every turn`: what a terminal reads, from its `attached` event on,
  is every event the hub fanned out from then, in order, none missing, none added: all of them
  when the owner closes (its socket ends after its last event), a prefix of them when the
  terminal leaves or the owner is killed (what was in flight goes with it). The hub's fan-out is
  recorded at its Output methods, before it reaches any terminal, with the terminal each event
  skips. A skip is honoured only where the product may skip (one that typed does not hear its own
  line named to the others, `heard`), so a terminal dropped, skipped elsewhere or fed out of order
  shows as a difference. A refusal of its own line (a notice, then `took` not ok) is
  the terminal's alone.
- `a terminal killed mid-question never hangs the chat`: when the last terminal goes with a
  question unanswered, the question is settled at once (every terminal would hear `answered`),
  and its call is declined, not run (sim/invariants.py checks the log).

What a terminal said and what was answered are kept on the run (`Typed`, `Asked`), for
sim/invariants.py: `a terminal's acknowledged message is logged once and whole` and `a tool that
asks runs only with its senders' leave`. The hub's answers are recorded as they reach it
(`Hub.answer`), the first one a question gets being the one that counts.

Attaches are taken one at a time (a lock held until the `attached` event), so each terminal's
start is the fan-out's length when the hub took it. Drawn from its own randomness (seed * 7 + 8;
what a terminal says and answers, from its own: seed, life and number), so the seed's other
draws stay its own; none in a seed kept from an earlier world.
"""

import asyncio
import dataclasses
import json
import random

from harness.owner import hub as hub_module
from harness.owner.owner import ANOTHER_TERMINAL
from harness.owner.protocol import LINE_BYTES_MAX, line_of

INVARIANT = "every attached terminal saw every turn"
HANG = "a terminal killed mid-question never hangs the chat"
OUTPUTS = ("text", "thinking", "tool", "result", "notice", "end", "row")
ANSWERS = ("y", "n", "a", "leave", "kill")  # what a terminal does with a question
ANSWER_WEIGHTS = (0.3, 0.2, 0.25, 0.1, 0.15)
SETTLED_SECONDS = 1.0  # a question its last terminal left is settled within this
LONG_SAY_ONE_IN = 25  # terminals that talk, for one that sends a line past the socket's limit
LONG_SAY_CHUNK_BYTES = 4 << 20  # written a part at a time: no copy of the line is ever whole

_fanned: list = []  # the life's hub fan-out: (event line, the writer of the terminal it skipped), in order
_taken: list = []  # at each attach, in order: (the fan-out's length, the attached socket's writer)
_closed: list = []  # the fan-out's length when the owner closed the terminals' sockets
_record: dict = {}  # the run's record: "questions" (Asked), "life" (the life's number)


@dataclasses.dataclass
class Typed:
    """A message a terminal said: taken (`took`, ok) is its acknowledgement; refused if not ok."""

    text: str
    life: int
    terminal: str  # "life.n"
    yes: bool
    acknowledged: bool = False
    refused: bool = False
    past_the_limit: bool = False  # a line past the socket's limit: refused, in one sentence


@dataclasses.dataclass
class Asked:
    """A question the hub put to the terminals, and the first answer handed to it, if any."""

    life: int
    number: int
    text: str
    answer: str | None = None
    abandoned: bool = False  # its last terminal went without answering


def watch() -> None:
    """Record every event the hub fans out, where each attach starts, and every answer the hub
    is handed."""
    Hub = hub_module.Hub
    if getattr(Hub, "_sim_watched", False):
        return
    each, attach, close_all, answer = Hub._each, Hub.attach, Hub.close_all, Hub.answer

    def _each(self, event, skip=None):
        _fanned.append((line_of(event), getattr(skip, "writer", None)))
        if isinstance(event, hub_module.protocol.Question) and "questions" in _record:
            _record["questions"].append(Asked(_record["life"], event.id, event.text))
            _record["counts"].add("question asked")
        return each(self, event, skip)

    def _close_all(self):
        _closed.append(len(_fanned))  # what the terminals are sent before their sockets end
        return close_all(self)

    async def _attach(self, owner, request, reader, writer):
        _taken.append((len(_fanned), writer))
        return await attach(self, owner, request, reader, writer)

    def _answer(self, number, reply):
        asked = next((one for one in reversed(_record.get("questions", ())) if one.life == _record["life"]
                      and one.number == number), None)
        if asked is not None and asked.answer is None:
            asked.answer = reply
        return answer(self, number, reply)

    Hub._each, Hub.attach, Hub.close_all, Hub.answer = _each, _attach, _close_all, _answer
    Hub._sim_watched = True


def start_run(run) -> None:
    """A run's record, empty: its questions, answers and the terminals' messages."""
    watch()
    run.typed, run.questions = [], []
    _record.clear()
    _record.update(questions=run.questions, life=0, counts=run.counts)


def plan(seed: int) -> list[tuple[float, float | None]]:
    """Each terminal of a life: (seconds after the life starts it attaches, seconds it stays or
    None: to the life's end)."""
    from sim.seeds import world

    draw = random.Random(seed * 7 + 8)
    if world(seed) < 2 or draw.random() < 0.4:
        return []
    return [(draw.uniform(0, 120), None if draw.random() < 0.5 else draw.expovariate(1 / 600))
            for _ in range(draw.randrange(1, 4))]


def talking_rate(seed: int) -> float:
    """The chance a terminal of the seed says messages of its own."""
    from sim.seeds import part_rate

    return part_rate(seed, 13, 4, 0.3, 1.0)


@dataclasses.dataclass
class Talk:
    """What one terminal does besides reading: drawn from its own randomness."""

    yes: bool  # attached with --yes: its messages' tools run without asking
    says: list[float]  # seconds after it attaches, each a message of its own
    rng: random.Random  # its answers, drawn as each question comes


def talk(seed: int, life: int, n: int, stays: float | None) -> Talk | None:
    """None in a world before terminals talk: the terminal only reads."""
    from sim.seeds import world

    if world(seed) < 4:
        return None
    rng = random.Random(f"terminal {seed} {life} {n}")
    span = stays if stays is not None else 900.0
    count = rng.randrange(1, 6) if rng.random() < talking_rate(seed) else 0
    says = sorted(rng.uniform(0, span / 2) for _ in range(count))  # its turns mostly come while it stays
    return Talk(rng.random() < 0.25, says, rng)


def long_say(seed: int, life: int, n: int, talking: Talk | None, stays: float | None) -> tuple[float, int] | None:
    """A terminal that talks may also send one line past the socket's limit, as a script on the
    socket may (the command refuses a message past 10 MB before it sends): (seconds after it
    attaches, the text's bytes, from just past the limit to three times it), in 1 terminal of
    LONG_SAY_ONE_IN, from its own randomness, so its other draws stay its own; from world 6."""
    from sim.seeds import world

    if talking is None or world(seed) < 6:
        return None
    rng = random.Random(f"terminal long line {seed} {life} {n}")
    if rng.random() >= 1 / LONG_SAY_ONE_IN:
        return None
    span = stays if stays is not None else 900.0
    return rng.uniform(0, span / 2), rng.randrange(LINE_BYTES_MAX + 1, 3 * LINE_BYTES_MAX)


def said_text(rng: random.Random, name: str, k: int) -> str:
    from sim.run import words

    return f"[terminal {name}, message {k}] " + words(rng, rng.randrange(1, 20))


def heard(raw: bytes, skipped, mine) -> bool:
    """Whether a terminal should read an event the hub fanned out: every output, but the notice
    naming a line it typed itself to the others. The hub's skip is honoured there alone, so a
    terminal skipped at any other event (a turn's end, say) shows as a difference."""
    event = json.loads(raw)
    if event.get("event") not in OUTPUTS:
        return False
    own = event.get("event") == "notice" and str(event.get("sentence", "")).startswith(ANOTHER_TERMINAL)
    return skipped is None or skipped is not mine or not own


class Terminals:
    """One life's attached terminals."""

    def __init__(self, run, owner):
        self.run = run
        self.owner = owner
        self.lock = asyncio.Lock()
        self.attached = 0  # terminals of the run's attached now
        self.attaches = 0  # every attach so far
        _fanned.clear()
        _taken.clear()
        _closed.clear()
        _record["life"] = run.lives

    def start(self, seed: int) -> None:
        loop = asyncio.get_running_loop()
        for n, (after, stays) in enumerate(plan(seed)):
            task = loop.create_task(self.terminal(n, after, stays))
            self.owner.busy.add(task)

    async def terminal(self, n: int, after: float, stays: float | None) -> None:
        run, process = self.run, self.run.process
        name = f"{run.lives}.{n}"
        talking = talk(run.seed, run.lives, n, stays)
        await asyncio.sleep(after)
        async with self.lock:
            if not process.alive or self.owner.server is None:
                return
            reader, writer = await asyncio.open_unix_connection(str(self.owner.socket_path), limit=LINE_BYTES_MAX)
            run.connections.append(writer)
            yes = talking is not None and talking.yes
            writer.write(json.dumps({"op": "attach", "yes": yes}).encode() + b"\n")
            await writer.drain()
            first = await reader.readline()
            if not first or json.loads(first).get("event") != "attached":
                if process.alive and first:
                    run.fail(INVARIANT, f"terminal {n} got {first[:120]!r} for its attach")
                return
            start, mine = _taken[-1] if _taken else (0, None)
            self.attached += 1
            self.attaches += 1
        run.counts.add("terminal attached")
        received: list[bytes] = []
        pending: list[Typed] = []  # said, not yet taken, oldest first
        asking: dict[int, str] = {}  # the questions put to it, not yet answered anywhere
        went = asyncio.Event()  # it left, or was killed, on a question
        how = ""
        ended = False
        loop = asyncio.get_running_loop()
        tasks: list[asyncio.Task] = []
        writing = asyncio.Lock()  # one line at a time on its socket

        def leave(cut: bool) -> None:
            nonlocal how
            how = "killed" if cut else "left"
            if cut:
                writer.transport.abort()
            else:
                writer.close()
            went.set()

        async def answer(number: int, choice: str, delay: float) -> None:
            await asyncio.sleep(delay)
            if went.is_set() or number not in asking:
                return
            if choice in ("leave", "kill"):
                run.counts.add(f"terminal {'killed' if choice == 'kill' else 'left'} mid-question")
                leave(choice == "kill")
                return
            async with writing:
                if went.is_set():
                    return
                run.counts.add(f"question answered {choice}")
                writer.write(json.dumps({"op": "answer", "id": number, "answer": choice}).encode() + b"\n")

        def said(text: str) -> None:
            """A message of its own on its socket, recorded as said (the caller holds `writing`)."""
            typed = Typed(text, run.lives, name, yes)
            run.typed.append(typed)
            pending.append(typed)
            run.counts.add("terminal said a message")
            writer.write(json.dumps({"op": "say", "text": text}).encode() + b"\n")

        async def say(text: str, at: float) -> None:
            await asyncio.sleep(at)
            if went.is_set() or ended or not process.alive:
                return
            async with writing:
                if went.is_set() or ended or not process.alive:
                    return
                said(text)

        async def say_long(at: float, size: int) -> None:
            """A say whose line is past the limit, then at once a message of its own: the first is
            answered once, a notice and `took` not ok, and the second is the terminal's, its
            `took` its own [S12] [S25]."""
            await asyncio.sleep(at)
            if went.is_set() or ended or not process.alive:
                return
            k = len(talking.says)  # after the messages it says drawn
            tag = f"[terminal {name}, message {k}] "
            after = said_text(random.Random(f"terminal long line {run.seed} {name}"), name, k + 1)
            chunk = b"a" * LONG_SAY_CHUNK_BYTES
            async with writing:  # its other lines wait: none goes inside this one
                typed = Typed(tag + f"(a line of {size:,} bytes)", run.lives, name, yes, past_the_limit=True)
                run.typed.append(typed)
                pending.append(typed)
                run.counts.add("terminal: a line past 64 MB")
                try:
                    writer.write(json.dumps({"op": "say", "text": tag})[:-2].encode())  # to the text's closing quote
                    for _ in range(size // len(chunk)):
                        if went.is_set() or not process.alive:
                            return  # it left, or its owner was killed, with the line on its way
                        writer.write(chunk)
                        await writer.drain()
                    writer.write(b"a" * (size % len(chunk)) + b'"}\n')
                    await writer.drain()
                except ConnectionError:
                    return
                if went.is_set() or ended or not process.alive:
                    return
                said(after)

        async def read() -> None:
            nonlocal ended
            previous = ""
            while True:
                raw = await reader.readline()
                if not raw:
                    ended = not went.is_set()  # the owner ended it, not its own leaving
                    return
                event = json.loads(raw)
                kind = event.get("event")
                if kind == "took" and pending:
                    typed = pending.pop(0)
                    typed.acknowledged, typed.refused = bool(event.get("ok")), not event.get("ok")
                    if typed.refused and previous == "notice":  # its own refusal: said to it alone
                        received.pop()
                        if typed.past_the_limit:
                            run.counts.add("a terminal's line past 64 MB refused in one sentence")
                elif kind == "question":
                    asking[event["id"]] = event["text"]
                    if talking is not None:
                        choice = talking.rng.choices(ANSWERS, ANSWER_WEIGHTS)[0]
                        tasks.append(loop.create_task(answer(event["id"], choice,
                                                             talking.rng.expovariate(1 / 5.0))))
                elif kind == "answered":
                    asking.pop(event["id"], None)
                if kind in OUTPUTS:
                    received.append(raw)
                previous = kind

        reading = loop.create_task(read())
        for k, at in enumerate(talking.says if talking is not None else ()):
            tasks.append(loop.create_task(say(said_text(talking.rng, name, k), at)))
        long = long_say(run.seed, run.lives, n, talking, stays)
        if long is not None:
            tasks.append(loop.create_task(say_long(*long)))
        gone = loop.create_task(went.wait())
        try:
            await asyncio.wait({reading, gone}, timeout=stays, return_when=asyncio.FIRST_COMPLETED)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            reading.cancel()
            gone.cancel()
            for task in tasks:
                task.cancel()
        self.attached -= 1
        if not process.alive:
            return  # killed with its owner: what it read is checked nowhere
        closed = _closed[0] if _closed else None
        expected = [raw for raw, skipped in _fanned[start:closed] if heard(raw, skipped, mine)]
        if ended and closed is not None:
            whole = received == expected
        else:
            whole = received == expected[:len(received)]
            if not how:
                writer.close()
            run.counts.add("terminal left")
        if not whole:
            at = next((k for k, (a, b) in enumerate(zip(received, expected)) if a != b), min(len(received),
                                                                                            len(expected)))
            run.fail(INVARIANT, f"terminal {n} read {len(received)} events of the {len(expected)} fanned out "
                     f"since it attached, differing at {at}: "
                     f"{received[at][:80] if at < len(received) else b'(none)'!r} for "
                     f"{expected[at][:80] if at < len(expected) else b'(none)'!r}")
        elif ended:
            run.counts.add("terminal saw its owner close, every turn read")
        if asking and not ended:  # it went (its while over, or on the question) with questions waiting
            await self.settled(name, dict(asking))

    async def settled(self, name: str, asking: dict[int, str]) -> None:
        """The terminal went with questions unanswered: if it was the last one, each is settled
        within SETTLED_SECONDS (the hub says `answered` to all), the call declined."""
        if self.attached > 0:
            return  # asked in the others still [A9]
        self.run.counts.add("last terminal gone with a question waiting")
        attaches = self.attaches
        await asyncio.sleep(SETTLED_SECONDS)
        if not self.run.process.alive or self.owner.leaving or self.attaches != attaches:
            return
        settled = {json.loads(raw).get("id") for raw, _ in _fanned if json.loads(raw).get("event") == "answered"}
        for number, text in asking.items():
            for asked in self.run.questions:
                if asked.life == self.run.lives and asked.number == number and asked.answer is None:
                    asked.abandoned = True  # no answer reached the hub: nobody gave its leave
            if number not in settled:
                self.run.fail(HANG, f"terminal {name} went with question {number} ({text[:60]!r}) unanswered, "
                              f"and {SETTLED_SECONDS:.0f} s later it still waits")
                return
        self.run.counts.add("question its last terminal left, settled")
