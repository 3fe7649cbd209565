"""Seeded, named scenarios: the events the bridge sends to the model and the production planner.

A scenario is a function of (name, seed, scale). Compactor outcomes must name running calls, so
they are generated on the fly from the running list of one side (the bridge uses the model's,
through `probe`); both sides still get the identical event list, and the same (name, seed, scale)
always gives the same events. Events are plain tuples, the scenario format of bridge/FORMAT.md:

    ("message", kind, text)  ("built", l, i, text)  ("failed", l, i)
    ("retry",)  ("wait",)  ("turn_end",)  ("restart",)
"""

import json
import random
from dataclasses import dataclass
from typing import Callable, Dict, Iterator, List, Optional, Tuple

from harness.line import line

KINDS = ("user", "ever", "tool", "echo", "work", "note")
GIST_CONFIG = (128_000, 64_000, 32_000, 16_000, 8, 3)  # [gist §3.2, §4]
SMALL_CONFIG = (6_000, 3_000, 2_000, 1_000, 8, 3)

Event = Tuple
Config = Tuple[int, int, int, int, int, int]
# (running nodes in start order, a turn is waiting, T) of the side that drives generation
Probe = Callable[[], Tuple[Tuple[Tuple[int, int], ...], bool, int]]


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


def reply_script(rng: random.Random) -> Tuple[str, ...]:
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


def _built(rng: random.Random, node, use_line: bool) -> Event:
    l, i = node
    if use_line:
        # Built texts as the compactor's line algorithm makes them from scripted replies; no
        # line at all is a failed try [decision P16].
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
                # the compactor's backoff passed: failed lines are tried again [decision P8]
                yield ("retry",)
                continue
            roll = rng.random()
            if not running or roll < message_p:
                sent += 1
                yield ("message", rng.choice(KINDS), message_text(rng))
                continue
            if waiting and rng.random() < 0.08:
                # the turn gives up before the view is settled [decision P8]
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


# name -> (maker, default seeds at tiny scale, default seeds at full scale)
SCENARIOS: Dict[str, Tuple[Callable[[str, int, str], Run], Tuple[int, ...], Tuple[int, ...]]] = {
    "long_100000": (make_long, (1,), (1,)),
    "gist_3000": (make_gist, (1,), (1, 2, 3)),
    "deep_4000": (make_deep, (1,), (1, 2)),
    "late_1500": (make_late(1500), (1,), (1, 2, 3)),
    "late_2500": (make_late(2500), (1,), (1, 2, 3)),
    "restarts": (make_restarts, (1, 2), (1, 2, 3, 4)),
    "line_built": (make_line_built, (1,), (1, 2)),
    "line_scripts": (make_line_scripts, (1,), (1, 2, 3)),
    "random": (make_random, tuple(range(1, 9)), tuple(range(1, 151))),
}


def runs(scale: str, name: Optional[str] = None, seed: Optional[int] = None) -> List[Run]:
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
