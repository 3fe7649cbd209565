"""Seeded, named scenarios: the events the bridge sends to the model and the production planner.

A scenario is a function of (name, seed, scale). Compactor outcomes name running calls, or on
purpose calls that no longer run [P7], so they are generated on the fly from the running
list of one side (the bridge uses the model's, through `probe`, which gives nothing else: the
scenarios hold whatever the planner's rules); both sides still get the identical event list, and
the same (name, seed, scale) always gives the same events. Events are plain tuples, the scenario
format of bridge/FORMAT.md:

    ("message", kind, text)  ("built", l, i, text)  ("failed", l, i)
    ("retry",)  ("wait",)  ("turn_end",)  ("restart",)
"""

import json
import random
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from harness.memory.line import cut, line

KINDS = ("user", "ever", "tool", "echo", "work", "note")
GIST_CONFIG = (128_000, 64_000, 32_000, 16_000, 8, 3)  # [gist §3.2, §4]
SMALL_CONFIG = (6_000, 3_000, 2_000, 1_000, 8, 3)

Event = tuple
Config = tuple[int, int, int, int, int, int]
# (running nodes in start order, a turn is waiting, T) of the side that drives generation
Probe = Callable[[], tuple[tuple[tuple[int, int], ...], bool, int]]


# ---- texts ----

_WORDS = (
    "the", "view", "merge", "line", "zoom", "cache", "tree", "node", "batch", "file",
    "error:", "ok", "user", "said", "fix", "path/to/src.py", "42", "0x1f", "naïve", "café",
    "Größe", "日本語", "中文", "слово", "😀", "🚀", "ünïcödé", "λ", "€100", "→",
)
_BREAKS = (" ", " ", " ", " ", " ", "\n", "\n\n", "\r\n", "\t", ", ", ". ")


def _corpus() -> str:
    rng = random.Random("ever-bridge-corpus")
    parts = []
    for _ in range(60_000):
        parts.append(rng.choice(_WORDS))
        parts.append(rng.choice(_BREAKS))
    text = "".join(parts)
    return text + text  # so a slice from any offset below the half never wraps


CORPUS = _corpus()
_HALF = len(CORPUS) // 2


def text_of_bytes(rng: random.Random, bytes_target: int) -> str:
    """A text of about `bytes_target` UTF-8 bytes (never more), with newlines and multibyte
    characters from the corpus."""
    if bytes_target <= 0:
        return ""
    start = rng.randrange(_HALF)
    text = CORPUS[start : start + bytes_target]
    data = text.encode("utf-8")
    if len(data) > bytes_target:
        text = data[:bytes_target].decode("utf-8", "ignore")
    return text


def message_text(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.02:
        return ""
    if roll < 0.47:
        return text_of_bytes(rng, rng.randint(1, 150))  # most are free nodes [gist §2]
    if roll < 0.82:
        return text_of_bytes(rng, rng.randint(300, 1500))
    return text_of_bytes(rng, rng.randint(1500, 6000))


def built_text(rng: random.Random) -> str:
    text = text_of_bytes(rng, rng.randint(1, 512))
    return text if text else "x"


# ---- the compactor's replies, for the line algorithm ----


def reply_script(rng: random.Random) -> tuple[str, ...]:
    """Replies the model could give in order: over-long, not shorter, empty, blank, exactly at
    the limit, and with a multibyte character across byte 512."""
    replies = []
    for _ in range(rng.randint(0, 7)):
        roll = rng.random()
        if roll < 0.3:
            replies.append(text_of_bytes(rng, rng.randint(513, 1400)))
        elif roll < 0.45:
            # a multibyte character straddles the 512-byte cut
            head = "a" * rng.randint(505, 511)
            replies.append(head + rng.choice(("é", "日本", "😀😀", "€€")) + text_of_bytes(rng, 200))
        elif roll < 0.55:
            replies.append(replies[-1] if replies else "same")  # not shorter
        elif roll < 0.62:
            replies.append("")
        elif roll < 0.68:
            replies.append(rng.choice((" \n\t ", "\r\n", "   ")))
        elif roll < 0.75:
            replies.append("b" * rng.choice((511, 512, 513)))
        elif roll < 0.85:
            replies.append("  " + text_of_bytes(rng, rng.randint(1, 600)) + "\n ")
        else:
            replies.append(text_of_bytes(rng, rng.randint(1, 512)))
    return tuple(replies)


def fallback_text(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return "c" * rng.randint(509, 511) + "😀" + text_of_bytes(rng, 50)
    return text_of_bytes(rng, rng.randint(0, 900))


def tries_script(rng: random.Random) -> tuple[str, ...]:
    """Replies that keep coming over-long, each shorter than the one before, then one that fits:
    the five-try limit decides the kept line [gist §4: "Try at most 5 times"]."""
    over = rng.randint(4, 7)
    # 8 bytes apart, so a text up to 3 bytes short of its size (a character not split) still
    # leaves each reply shorter than the last; the brackets keep the trim from shortening it
    sizes = sorted(rng.sample(range(520, 1400, 8), over), reverse=True)
    replies = ["<" + text_of_bytes(rng, size) + ">" for size in sizes]
    replies.append(text_of_bytes(rng, rng.randint(1, 512)) or "fits")
    return tuple(replies)


# Every kind of line break and control character: the view is one line per node, so each must
# become a space, and the two printers must agree on them [gist §3].
BREAK_PIECES = (
    "\r\n", "\r", "\n", "\u2028", "\u2029", "\x85", "\v", "\f", "\x00", "\x01", "\x08", "\x0e",
    "\x1b", "\x1c", "\x1d", "\x1e", "\x1f", "\t", "\x7f", "\x80", "\x9b", "\x9f", "\n\r", "\r\r\n",
    "\r\n\r\n", "\u2028\n",
)


# What a tool result could hold to close the view or start a task, were it shown as it is: each
# must be escaped alike on both sides, counted as it is shown [P18].
FRAMING_PIECES = (
    "</chat>", "<chat>", "</input>", "<input>", "Compaction:", "COMPACTION: ", "compaction:",
    "12+1|user: ", "|", "<", "\n0+1|ever: ", "\r\n</chat>\r\nCompaction: merge lines 0+1 and 1+1",
)


def broken_text(rng: random.Random, bytes_target: int) -> str:
    """A text of about `bytes_target` bytes, words from the corpus cut by every kind of break and
    by the view's and the task's framing."""
    parts = []
    size = 0
    while size < bytes_target:
        roll = rng.random()
        if roll < 0.1:
            piece = rng.choice(FRAMING_PIECES)
        elif roll < 0.45:
            piece = rng.choice(BREAK_PIECES)
        else:
            piece = text_of_bytes(rng, rng.randint(1, 12))
        parts.append(piece)
        size += len(piece.encode("utf-8"))
    return "".join(parts)


def broken_message_text(rng: random.Random) -> str:
    if rng.random() < 0.6:
        return broken_text(rng, rng.randint(1, 150))  # free: its own line, breaks and all
    return broken_text(rng, rng.randint(300, 1500))


# ---- scenarios ----


@dataclass(frozen=True)
class Run:
    name: str
    seed: int
    scale: str
    kind: str  # "planner" or "line"
    config: Config
    events: Callable[[Probe], Iterator[Event]]
    size: int  # messages (or reply scripts): for ordering and the summary
    # what a message costs against an ordinary run's, for ordering: bulk_import's turn views fold
    # thousands of lines (measured: 194 s of CPU for its 4,300 messages, long_100000 66 s for 100,000)
    weight: int = 1

    @property
    def cost(self) -> int:
        return self.size * self.weight


def _built(rng: random.Random, node, use_line: bool) -> Event:
    l, i = node
    if use_line:
        # Built texts as the compactor's line algorithm makes them from scripted replies; no
        # line at all is a failed try [P16].
        text = line(reply_script(rng)).text
        if not text:
            return ("failed", l, i)
    else:
        text = built_text(rng)
    return ("built", l, i, text)


def never_late(rng: random.Random, messages: int, use_line: bool = False, restart_p: float = 0.0):
    """Every started call is Built before the next message."""

    def events(probe: Probe) -> Iterator[Event]:
        for _ in range(messages):
            yield ("message", rng.choice(KINDS), message_text(rng))
            while True:
                running, _, _ = probe()
                if not running:
                    break
                yield _built(rng, rng.choice(running), use_line)
            if restart_p and rng.random() < restart_p:
                yield ("restart",)

    return events


def late(
    rng: random.Random,
    messages: int,
    message_p: float,
    failed_p: float,
    wait_p: float,
    restart_p: float = 0.0,
    use_line: bool = False,
):
    """Calls finish and fail in random order while messages go on; turns wait and end."""

    def events(probe: Probe) -> Iterator[Event]:
        sent = 0
        while sent < messages:
            running, waiting, _ = probe()
            if waiting and (not running or rng.random() < 0.05) and rng.random() < 0.7:
                # the compactor's backoff passed: failed lines are tried again [P8]
                yield ("retry",)
                continue
            roll = rng.random()
            if not running or roll < message_p:
                sent += 1
                yield ("message", rng.choice(KINDS), message_text(rng))
                continue
            if waiting and rng.random() < 0.08:
                # the turn gives up before the view is settled [P8]
                yield ("turn_end",)
                continue
            roll = rng.random()
            if roll < wait_p:
                yield ("wait",)
            elif roll < wait_p + restart_p:
                yield ("restart",)
            elif roll < wait_p + restart_p + failed_p:
                l, i = rng.choice(running)
                yield ("failed", l, i)
            else:
                yield _built(rng, rng.choice(running), use_line)
        # drain: the compactor catches up
        for _ in range(100_000):
            running, _, _ = probe()
            if not running:
                break
            yield _built(rng, rng.choice(running), use_line)

    return events


@dataclass(frozen=True)
class Weather:
    """How the user, the chat and the compactor behave in a `chat` scenario."""

    message_p: float = 0.3  # a step is a message, else a compactor outcome
    long_p: float = 0.4  # a message is too long to be its own node: its line waits for a call
    failed_p: float = 0.05  # an outcome is a content failure (the model gave no usable line)
    refused_p: float = 0.0  # a node the model always refuses: every call for it fails
    stale_p: float = 0.0  # an outcome for a call that ran and runs no more [P7]
    turn_p: float = 0.0  # a message is the user's: a turn waits, then sends it [gist §6]
    give_up_p: float = 0.05  # per outcome while a turn waits: the turn gives up
    restart_p: float = 0.0
    outage_p: float = 0.0  # per message: an outage starts (calls run, no outcome comes)
    outage_messages: tuple[int, int] = (10, 30)
    texts: str = "corpus"  # or "breaks": every kind of line break and control character
    built: str = "any"  # or "terse" (1 to 16 bytes), "line" (the line algorithm), "breaks"


def chat(rng: random.Random, messages: int, weather: Weather):
    """A chat as a user, a compactor and a process live it, driven by one side's running list.

    Turns wait before their user message and give up when the compactor does not settle the
    view; outages hold every call running for many messages; refused nodes fail until the
    failure cap; replies of calls that no longer run (stopped by a waiting turn, forgotten at a
    restart, already built or failed) still arrive. Only the probe is read, so the scenario
    stays valid whatever the planner's rules.
    """
    w = weather

    def text_of_message() -> str:
        if w.texts == "breaks":
            return broken_message_text(rng)
        if rng.random() < w.long_p:
            return text_of_bytes(rng, rng.randint(520, 3000))  # never its own node [gist §2]
        return text_of_bytes(rng, rng.randint(1, 150))

    def text_of_line() -> str:
        if w.built == "terse":
            return text_of_bytes(rng, rng.randint(1, 16)) or "x"
        if w.built == "line":
            script = tries_script(rng) if rng.random() < 0.2 else reply_script(rng)
            return line(script).text  # "" when no reply gave a line: a failed try [P16]
        if w.built == "breaks":
            return cut(broken_text(rng, rng.randint(1, 500)), 512)  # a framing piece may overshoot
        return built_text(rng)

    def built_or_failed(l: int, i: int) -> Event:
        text = text_of_line()
        return ("built", l, i, text) if text else ("failed", l, i)

    def events(probe: Probe) -> Iterator[Event]:
        stopped: deque = deque(maxlen=32)  # calls that ran and no longer run, latest last
        refused = set()
        seen = set()
        answered: dict = {}  # node -> 1 when a Failed was sent for its last call, 2 for a Built
        just_stopped: list = []  # the calls the last event stopped
        last_running: tuple = ()

        def look():
            nonlocal last_running
            running, waiting, T = probe()
            just_stopped.clear()
            for node in last_running:
                if node not in running:
                    just_stopped.append(node)
                    if node not in stopped:
                        stopped.append(node)
            for node in running:
                if node not in last_running:
                    answered[node] = 0  # a new call
                if node not in seen:
                    seen.add(node)
                    if rng.random() < w.refused_p:
                        refused.add(node)
            last_running = running
            return running, waiting, T

        def stale_node(running, T):
            """A node whose call does not run, picked evenly among the ways that happens: a
            waiting turn or a restart stopped it (no outcome was sent), it failed, it was built,
            or it never ran."""
            groups = ([], [], [])
            for node in stopped:
                if node not in running:
                    groups[answered.get(node, 0)].append(node)
            never = (0, rng.randrange(T))
            groups = [group for group in groups if group] + ([[never]] if never not in seen else [])
            if groups:
                return rng.choice(rng.choice(groups))
            return never

        def outcome(running, T) -> Event:
            """One compactor outcome: a stale one, a content failure, or a line."""
            if w.stale_p and rng.random() < w.stale_p:
                l, i = stale_node(running, T)
                if (l, i) not in running:
                    return ("failed", l, i) if rng.random() < 0.5 else built_or_failed(l, i)
            l, i = rng.choice(running)
            if (l, i) in refused or rng.random() < w.failed_p:
                answered[(l, i)] = 1
                return ("failed", l, i)
            answered[(l, i)] = 2
            return built_or_failed(l, i)

        def in_flight() -> Iterator[Event]:
            """A call just stopped by a waiting turn or a restart still reports, late."""
            running, _, _ = look()
            unanswered = [node for node in just_stopped if answered.get(node, 0) == 0]
            if unanswered and rng.random() < w.stale_p * 2:
                l, i = rng.choice(unanswered)
                yield ("failed", l, i) if rng.random() < 0.5 else built_or_failed(l, i)

        def catch_up() -> Iterator[Event]:
            """The replies held back by an outage arrive at once, before the next message."""
            for _ in range(10_000):
                running, waiting, T = look()
                if not running:
                    return
                yield outcome(running, T)

        def turn() -> Iterator[Event]:
            """[gist §6] the turn waits before its message is logged, or gives up."""
            yield ("wait",)
            yield from in_flight()
            while True:
                running, waiting, T = look()
                if not waiting:
                    break
                if not running or outage or rng.random() < w.give_up_p:
                    yield ("turn_end",)
                    break
                yield outcome(running, T)
            yield ("message", "user", text_of_message())

        sent = 0
        outage = 0
        while sent < messages:
            running, waiting, T = look()
            if waiting:
                if not running or outage or rng.random() < w.give_up_p:
                    yield ("turn_end",)
                else:
                    yield outcome(running, T)
                continue
            if running and w.restart_p and rng.random() < w.restart_p:
                yield ("restart",)
                yield from in_flight()
                continue
            if outage or not running or rng.random() < w.message_p:
                if outage:
                    outage -= 1
                    if outage == 0:
                        yield from catch_up()
                elif w.outage_p and rng.random() < w.outage_p:
                    outage = rng.randint(*w.outage_messages)
                sent += 1
                if w.turn_p and rng.random() < w.turn_p:
                    yield from turn()
                else:
                    yield ("message", rng.choice(KINDS), text_of_message())
                if w.restart_p and rng.random() < w.restart_p:
                    # the new message's line may wait for a slot a merge holds: after the
                    # restart it takes the slot, and the merge is forgotten
                    yield ("restart",)
                    yield from in_flight()
                continue
            yield outcome(running, T)
        # drain: the compactor catches up; refused nodes fail until their cap
        for _ in range(100_000):
            running, _, T = look()
            if not running:
                break
            yield outcome(running, T)

    return events


def bulk_import(rng: random.Random, chat_messages: int, short_notes: int, long_notes: int, turn_every: int):
    """A chat, then an import of notes while the compactor is paused, then turns while it catches
    up: short notes are their own lines but too long to join [gist §2], so no pair can merge until
    the compactor builds their parents, and long ones wait for their own line [P19]."""

    def outcome(running) -> Event:
        l, i = rng.choice(running)
        return ("built", l, i, built_text(rng))

    def turn(outcomes_max: int) -> Iterator[Event]:
        yield ("wait",)
        for _ in range(outcomes_max):
            running, waiting, _ = probe_now()
            if not waiting or not running:
                break
            yield outcome(running)
        if probe_now()[1]:
            yield ("turn_end",)
        yield ("message", "user", text_of_bytes(rng, rng.randint(1, 150)))

    probe_now: Probe = lambda: ((), False, 0)  # noqa: E731 (set by `events`)

    def events(probe: Probe) -> Iterator[Event]:
        nonlocal probe_now
        probe_now = probe
        for _ in range(chat_messages):
            yield ("message", rng.choice(KINDS), message_text(rng))
            while True:
                running, _, _ = probe()
                if not running:
                    break
                yield outcome(running)
        notes = ["short"] * short_notes + ["long"] * long_notes
        rng.shuffle(notes)
        for note in notes:
            size = rng.randint(260, 500) if note == "short" else rng.randint(600, 3000)
            yield ("message", "note", text_of_bytes(rng, size))
        yield from turn(20)
        # the compactor catches up, a turn now and then, until nothing runs
        for step in range(1_000_000):
            running, _, _ = probe()
            if not running:
                break
            if step % turn_every == turn_every - 1:
                yield from turn(10)
            else:
                yield outcome(running)
        yield from turn(20)

    return events


def random_config(rng: random.Random) -> Config:
    view_ceiling = rng.randint(700, 30_000)
    view_floor = max(1, int(view_ceiling * rng.uniform(0.2, 0.95)))
    cview_ceiling = rng.randint(max(1, view_floor // 8), view_floor)
    cview_floor = max(1, int(cview_ceiling * rng.uniform(0.2, 0.95)))
    return (view_ceiling, view_floor, cview_ceiling, cview_floor, rng.randint(1, 8), rng.randint(1, 4))


def _rng(name: str, seed: int, scale: str) -> random.Random:
    return random.Random(f"{name}/{seed}/{scale}")


def _pick(scale: str, tiny: int, full: int) -> int:
    return tiny if scale == "tiny" else full


def make_gist(name, seed, scale) -> Run:
    rng = _rng(name, seed, scale)
    n = _pick(scale, 120, 3000)
    config = GIST_CONFIG if scale == "full" else (12_000, 6_000, 3_000, 1_500, 8, 3)
    return Run(name, seed, scale, "planner", config, never_late(rng, n), n)


def make_deep(name, seed, scale) -> Run:
    rng = _rng(name, seed, scale)
    n = _pick(scale, 300, 4000)
    return Run(name, seed, scale, "planner", SMALL_CONFIG, never_late(rng, n), n)


def make_late(messages_full: int):
    def make(name, seed, scale) -> Run:
        rng = _rng(name, seed, scale)
        n = _pick(scale, 200, messages_full)
        config = SMALL_CONFIG if scale == "full" else (3_000, 1_500, 1_000, 500, 8, 3)
        return Run(name, seed, scale, "planner", config, late(rng, n, 0.3, 0.08, 0.04), n)

    return make


def make_random(name, seed, scale) -> Run:
    rng = _rng(name, seed, scale)
    n = rng.randint(50, 200) if scale == "tiny" else rng.randint(300, 2500)
    config = random_config(rng)
    restart_p = rng.choice((0.0, 0.0, 0.005, 0.02))
    if rng.random() < 0.3:
        events = never_late(rng, n, use_line=rng.random() < 0.3, restart_p=restart_p)
    else:
        events = late(
            rng,
            n,
            # above about 0.45 the compactor falls behind for good: the view then grows without
            # bound and the model's O(view) steps make the run quadratic
            message_p=rng.uniform(0.1, 0.42),
            failed_p=rng.uniform(0.0, 0.2),
            wait_p=rng.uniform(0.0, 0.1),
            restart_p=restart_p,
            use_line=rng.random() < 0.3,
        )
    return Run(name, seed, scale, "planner", config, events, n)


def make_restarts(name, seed, scale) -> Run:
    rng = _rng(name, seed, scale)
    n = _pick(scale, 200, 2000)
    config = SMALL_CONFIG if scale == "full" else (3_000, 1_500, 1_000, 500, 8, 3)
    return Run(name, seed, scale, "planner", config, late(rng, n, 0.3, 0.1, 0.04, restart_p=0.02), n)


def make_line_built(name, seed, scale) -> Run:
    rng = _rng(name, seed, scale)
    n = _pick(scale, 150, 2000)
    config = SMALL_CONFIG if scale == "full" else (3_000, 1_500, 1_000, 500, 8, 3)
    return Run(name, seed, scale, "planner", config, late(rng, n, 0.3, 0.05, 0.03, use_line=True), n)


def make_long(name, seed, scale) -> Run:
    rng = _rng(name, seed, scale)
    n = _pick(scale, 1000, 100_000)
    config = (4_000, 2_000, 1_500, 750, 8, 3)
    return Run(name, seed, scale, "planner", config, never_late(rng, n), n)


def short_messages(rng: random.Random, messages: int, bytes_max: int):
    """Messages of 1 to `bytes_max` bytes, every call built before the next message: a cheap
    chat that reaches high levels and T past 2^14, where the due order's ties between levels
    decide the merges [gist §3.2]."""

    def events(probe: Probe) -> Iterator[Event]:
        for _ in range(messages):
            yield ("message", rng.choice(KINDS), text_of_bytes(rng, rng.randint(1, bytes_max)))
            while True:
                running, _, _ = probe()
                if not running:
                    break
                l, i = rng.choice(running)
                yield ("built", l, i, text_of_bytes(rng, rng.randint(8, 120)))

    return events


def make_high_levels(name, seed, scale) -> Run:
    rng = _rng(name, seed, scale)
    n = _pick(scale, 17_000, 70_000)
    # a view of a few lines: each message costs little, and the lines' levels reach 14; ties
    # between an older pair of level ≥ 5 and a newer one come within the first few thousand
    config = (2_500, 1_250, 1_000, 500, 8, 3)
    return Run(name, seed, scale, "planner", config, short_messages(rng, n, 30), n)


def make_line_scripts(name, seed, scale) -> Run:
    rng = _rng(name, seed, scale)
    n = _pick(scale, 300, 5000)

    def events(probe: Probe) -> Iterator[Event]:
        for _ in range(n):
            if rng.random() < 0.2:
                yield ("merge_input", text_of_bytes(rng, rng.randint(0, 700)), fallback_text(rng))
            else:
                yield ("line", reply_script(rng), fallback_text(rng))

    return Run(name, seed, scale, "line", (0, 0, 0, 0, 0, 0), events, n)


def make_line_tries(name, seed, scale) -> Run:
    rng = _rng(name, seed, scale)
    n = _pick(scale, 40, 1000)

    def events(probe: Probe) -> Iterator[Event]:
        for _ in range(n):
            yield ("line", tries_script(rng), fallback_text(rng))

    return Run(name, seed, scale, "line", (0, 0, 0, 0, 0, 0), events, n)


def _jobs(seed: int, choices: tuple[int, ...]) -> int:
    return choices[(seed - 1) % len(choices)]


def make_chat(weather: Weather, tiny: int, full: int, config: Config, jobs: tuple[int, ...] = (8,)):
    """A `chat` scenario of `tiny` or `full` messages; the job count by seed."""

    def make(name, seed, scale) -> Run:
        rng = _rng(name, seed, scale)
        n = _pick(scale, tiny, full)
        run_config = config[:4] + (_jobs(seed, jobs), config[5])
        return Run(name, seed, scale, "planner", run_config, chat(rng, n, weather), n)

    return make


STALE = Weather(
    message_p=0.3, long_p=0.5, failed_p=0.15, stale_p=0.2, turn_p=0.2, give_up_p=0.1,
    restart_p=0.08, outage_p=0.02,
)
# Replies far shorter than their source: a line is built smaller than it was counted, so a
# shrinking view can reach its floor between messages, with no merge. The floor sits near the
# ceiling, and outages let the view pass its ceiling with lines no batch can merge.
TERSE = Weather(
    message_p=0.35, long_p=0.95, failed_p=0.02, built="terse", turn_p=0.05, outage_p=0.04,
    outage_messages=(20, 40),
)
SMALL_JOBS = Weather(
    message_p=0.3, long_p=0.5, failed_p=0.15, refused_p=0.05, turn_p=0.1, outage_p=0.03,
    stale_p=0.05,
)
TURNS = Weather(message_p=0.4, long_p=0.5, failed_p=0.05, turn_p=0.5, give_up_p=0.1, stale_p=0.05)
BREAKS = Weather(message_p=0.35, texts="breaks", built="breaks", failed_p=0.05, turn_p=0.1)
OUTAGES = Weather(
    message_p=0.4, long_p=0.5, failed_p=0.1, refused_p=0.03, turn_p=0.1, outage_p=0.05,
    built="line", restart_p=0.01, stale_p=0.05,
)
CHAT_CONFIG = (3_000, 1_500, 1_000, 500, 8, 3)
# Old messages failing for good: messages come much faster than the compactor answers, most too
# long to be their own node, and one node in six is refused for good. Old messages then fail their third try while
# the lines after them have merged: the failure cap's line must come from the message itself,
# never from a merged line of the same index [P16].
FAILING_BEHIND = Weather(message_p=0.6, long_p=0.9, failed_p=0.05, refused_p=0.17, stale_p=0.02)
# A compactor hundreds of messages behind: most steps are messages, long ones wait for a call,
# turns give up at their settle timeout, and outages pause it for hundreds of messages.
BEHIND = Weather(
    message_p=0.85, long_p=0.7, failed_p=0.05, turn_p=0.1, give_up_p=0.3, outage_p=0.01,
    outage_messages=(100, 300),
)


def make_bulk_import(name, seed, scale) -> Run:
    rng = _rng(name, seed, scale)
    if scale == "tiny":
        sizes, config, turn_every = (40, 120, 12), CHAT_CONFIG, 97
    else:
        # the first day: 1,000 messages, then 3,300 notes; a turn every 500 outcomes, as the
        # model's fold of a turn's view is quadratic in its lines [M5]
        sizes, config, turn_every = (1000, 3000, 300), GIST_CONFIG, 500
    return Run(name, seed, scale, "planner", config, bulk_import(rng, *sizes, turn_every), sum(sizes), weight=50)


# name -> (maker, default seeds at tiny scale, default seeds at full scale)
SCENARIOS: dict[str, tuple[Callable[[str, int, str], Run], tuple[int, ...], tuple[int, ...]]] = {
    # tiny seeds chosen by what they catch: 1, 2 and 5 each reach a context at its exact budget
    "long_100000": (make_long, (1, 2, 5), (1,)),
    "high_levels": (make_high_levels, (1,), (1, 2)),
    "gist_3000": (make_gist, (1,), (1, 2, 3)),
    "deep_4000": (make_deep, (1,), (1, 2)),
    "late_1500": (make_late(1500), (1,), (1, 2, 3)),
    "late_2500": (make_late(2500), (1,), (1, 2, 3)),
    "restarts": (make_restarts, (1, 2), (1, 2, 3, 4)),
    "line_built": (make_line_built, (1,), (1, 2)),
    "line_scripts": (make_line_scripts, (1,), (1, 2, 3)),
    "random": (make_random, tuple(range(1, 9)), tuple(range(1, 151))),
    "line_tries": (make_line_tries, (1,), (1,)),
    # seeds 1 to 4 run 1, 2, 3 and 8 jobs
    "stale_outcomes": (make_chat(STALE, 120, 1500, CHAT_CONFIG, (1, 2, 3, 8)), (1, 2, 3, 4), tuple(range(1, 9))),
    "terse_compactor": (make_chat(TERSE, 200, 2000, (2_000, 1_800, 1_000, 900, 8, 3)), (1, 4), (1, 2, 3, 4)),
    "small_jobs": (make_chat(SMALL_JOBS, 120, 1500, CHAT_CONFIG, (1, 2, 3)), (1, 2, 3), tuple(range(1, 7))),
    "turns": (make_chat(TURNS, 150, 1500, CHAT_CONFIG), (1,), (1, 2, 3)),
    "breaks": (make_chat(BREAKS, 150, 1500, CHAT_CONFIG), (1,), (1, 2)),
    "outages": (make_chat(OUTAGES, 150, 1500, CHAT_CONFIG, (2, 8)), (1,), (1, 2, 3, 4)),
    "failing_behind": (make_chat(FAILING_BEHIND, 150, 1000, CHAT_CONFIG, (2, 8)), (4, 12), (1, 2, 3, 4)),
    "bulk_import": (make_bulk_import, (1,), (1,)),
    # tiny seeds 1 to 4 each fold a turn's view past built parents into coarse placeholders
    "behind": (make_chat(BEHIND, 300, 1500, CHAT_CONFIG), (1, 2, 3, 4), (1, 2)),
}


def runs(scale: str, name: str | None = None, seed: int | None = None) -> list[Run]:
    chosen = [name] if name else list(SCENARIOS)
    out = []
    for scenario in chosen:
        maker, tiny_seeds, full_seeds = SCENARIOS[scenario]
        seeds = (seed,) if seed is not None else (tiny_seeds if scale == "tiny" else full_seeds)
        for s in seeds:
            out.append(maker(scenario, s, scale))
    return out


# ---- the scenario format (bridge/FORMAT.md) ----


def format_event(event: Event) -> str:
    head = event[0]
    if head == "message":
        return f"message {event[1]} {json.dumps(event[2])}"
    if head == "built":
        return f"built {event[1]} {event[2]} {json.dumps(event[3])}"
    if head == "failed":
        return f"failed {event[1]} {event[2]}"
    if head in ("retry", "wait", "turn_end", "restart"):
        return head
    if head == "line":
        return f"line {json.dumps(list(event[1]))} {json.dumps(event[2])}"
    if head == "merge_input":
        return f"merge_input {json.dumps(event[1])} {json.dumps(event[2])}"
    raise ValueError(event)


def parse_event(text: str) -> Event:
    head, _, rest = text.partition(" ")
    if head == "message":
        kind, _, body = rest.partition(" ")
        return ("message", kind, json.loads(body))
    if head == "built":
        l, i, body = rest.split(" ", 2)
        return ("built", int(l), int(i), json.loads(body))
    if head == "failed":
        l, i = rest.split(" ")
        return ("failed", int(l), int(i))
    if head in ("retry", "wait", "turn_end", "restart"):
        return (head,)
    decoder = json.JSONDecoder()
    first, end = decoder.raw_decode(rest)
    second = json.loads(rest[end + 1 :])
    if head == "line":
        return ("line", tuple(first), second)
    if head == "merge_input":
        return ("merge_input", first, second)
    raise ValueError(text)
