"""The chats `ever simulate` replays: each a list of messages with a kind, a size in bytes and the
second it was logged. The texts are made up (of the given size); only sizes, kinds and timing
shape what a chat costs, so a user's own chat is read for nothing else.

- `seeded(n, seed)`: the gist's sizes, as the bridge's `gist_3000` scenario and the cache replay
  draw them [gist §3.3]: 2 % empty, 45 % of 1–150 bytes (short enough to be their own line, with
  no call [gist §2]), 35 % of 300–1,500 and 18 % of 1,500–6,000; kinds drawn evenly from user,
  ever, tool and echo. Its timing: a person answers 20 to 160 s after the last message, the agent's
  own messages follow 2 to 12 s apart, so no gap outlives the cache's 5 minutes [gist §3.3]; a
  day is `MESSAGES_PER_DAY` messages (about 8 hours at that pace).
- `bulk_import(n, notes, seed)`: `notes` notes of the same sizes logged one second apart (an
  `ever import` of old sessions, on the first day), then `n − notes` messages of `seeded`.
- `full_lines(n, seed)`: the gist's own simulation as its figures imply it [gist §3.3]: every
  message long enough to be summarized (600 to 6,000 bytes) into a line that uses the space
  (490 to 512 bytes [gist §7.8]), so a 96 KB view holds about 192 lines; the seeded timing.
- `from_log(path)`: the kinds, sizes and dates of a chat's own log (`main/*.jsonl` [gist §1]),
  every line that reads; a torn or foreign line is skipped and counted.
"""

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

KINDS = ("user", "ever", "tool", "echo")
MESSAGES_PER_DAY = 1_000  # the seeded chat's day: 30,000 messages are a month
USER_GAP_SECONDS = (20, 160)  # a person reads, thinks and types
AGENT_GAP_SECONDS = (2, 12)  # the agent's replies, tool calls and results
IMPORT_GAP_SECONDS = 1
LINE_BYTES = (380, 512)  # a compaction's line: the space mostly used [gist §7.8]
FULL_LINE_BYTES = (490, 512)
WORDS = ("the", "view", "merge", "line", "zoom", "cache", "tree", "node", "batch", "file", "error:", "ok",
         "user", "said", "fix", "path/to/src.py", "42", "0x1f", "test", "failed", "passed", "run")
FILLER = " ".join(WORDS * 400)  # 28,000 bytes of words: every made-up text is a cut of it


@dataclass(frozen=True)
class Message:
    kind: str
    size_bytes: int
    seconds: float  # when it was logged, from the chat's start
    image: bool = False  # an echo that carries an image (it breaks the messages' cache [gist §3.3])


@dataclass(frozen=True)
class Workload:
    name: str
    messages: tuple[Message, ...]
    messages_per_day: float
    skipped_lines: int = 0  # lines of a log that did not read
    line_bytes: tuple[int, int] = LINE_BYTES  # the compactor's lines: from, to (bytes)

    def text(self, i: int) -> str:
        """Message i's made-up text: ASCII words of its size, shifted by its id so that texts
        differ, never ending in a space (a whitespace-only text is no message)."""
        size = self.messages[i].size_bytes
        if size == 0:
            return ""
        start = (i * 7) % 1_000
        text = FILLER[start:start + size]
        while len(text) < size:  # longer than the filler: repeat it
            text += " " + FILLER[:size - len(text) - 1]
        return text[:-1] + "x" if text.endswith(" ") else text


def gist_size(rng: random.Random) -> int:
    """A size of the gist scenario's mix (bytes)."""
    roll = rng.random()
    if roll < 0.02:
        return 0
    if roll < 0.47:
        return rng.randint(1, 150)
    if roll < 0.82:
        return rng.randint(300, 1500)
    return rng.randint(1500, 6000)


def seeded(n: int, seed: int = 1, start_seconds: float = 0.0, name: str = "seeded") -> Workload:
    rng = random.Random(f"simulate/{seed}")
    messages = []
    seconds = start_seconds
    for k in range(n):
        kind = rng.choice(KINDS)
        gap = USER_GAP_SECONDS if kind == "user" else AGENT_GAP_SECONDS
        if k:
            seconds += rng.uniform(*gap)
        messages.append(Message(kind, gist_size(rng), seconds))
    return Workload(name, tuple(messages), MESSAGES_PER_DAY)


def full_lines(n: int, seed: int = 1) -> Workload:
    rng = random.Random(f"simulate-full/{seed}")
    messages = tuple(Message(message.kind, rng.randint(600, 6000), message.seconds)
                     for message in seeded(n, seed).messages)
    return Workload("full-lines", messages, MESSAGES_PER_DAY, line_bytes=FULL_LINE_BYTES)


def bulk_import(n: int, notes: int, seed: int = 1) -> Workload:
    """A first day that starts with an import of `notes` notes, then the seeded chat."""
    notes = min(notes, n)
    rng = random.Random(f"simulate-import/{seed}")
    imported = [Message("note", gist_size(rng), k * IMPORT_GAP_SECONDS) for k in range(notes)]
    start = notes * IMPORT_GAP_SECONDS + USER_GAP_SECONDS[0]
    chat = seeded(n - notes, seed, start).messages
    return Workload("import", tuple(imported) + chat, MESSAGES_PER_DAY)


def log_files(path: Path) -> list[Path]:
    """A chat's message files, oldest first: the files themselves, or those in `main/` under a
    chat directory or an EVER_HOME."""
    if path.is_file():
        return [path]
    for folder in (path / "main", path / "chat" / "main", path):
        found = sorted(folder.glob("*.jsonl"))
        if found:
            return found
    return []


def from_log(path: Path, limit: int | None = None) -> Workload:
    """The chat's own kinds, sizes and timing; see the module's text."""
    files = log_files(path)
    if not files:
        raise ValueError(f"{path} holds no chat log (main/YYYY-MM-DD.jsonl files)")
    records: list[tuple[str, int, datetime, bool]] = []
    skipped = 0
    for file in files:
        with open(file, "rb") as lines:
            for raw in lines:
                try:
                    record = json.loads(raw)
                    kind, text = record["kind"], record["text"]
                    date = datetime.fromisoformat(record["date"])
                    size = len(text.encode("utf-8", "surrogatepass"))
                    if not isinstance(kind, str) or date.tzinfo is None:
                        raise ValueError("not a message Ever logs: a kind, and a date with its offset")
                except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
                    skipped += 1  # [H16] a hostile line (nested past the parser, a naive date) is a line skipped
                    continue
                # [gist §1] an echo names each image it carried on a line of its own
                image = kind == "echo" and "[image " in text and "images/" in text
                records.append((kind, size, date, image))
                if limit is not None and len(records) >= limit:
                    break
        if limit is not None and len(records) >= limit:
            break
    if not records:
        raise ValueError(f"{path} holds no message that reads")
    first = records[0][2]
    messages = tuple(Message(kind, size, max(0.0, (date - first).total_seconds()), image)
                     for kind, size, date, image in records)
    days = len({date.date() for _, _, date, _ in records})
    return Workload(f"log {path}", messages, len(messages) / max(days, 1), skipped)


def with_pauses(workload: Workload, pause_seconds: float) -> Workload:
    """The same messages, each user message after a pause of `pause_seconds`: the agent's own
    messages keep their gaps."""
    messages = []
    seconds = 0.0
    previous: Message | None = None
    for message in workload.messages:
        if previous is not None:
            gap = message.seconds - previous.seconds
            seconds += max(gap, pause_seconds) if message.kind == "user" else gap
        messages.append(Message(message.kind, message.size_bytes, seconds, message.image))
        previous = message
    return Workload(workload.name + " with pauses", tuple(messages), workload.messages_per_day,
                    workload.skipped_lines, workload.line_bytes)


def kinds_of(workload: Workload) -> Sequence[str]:
    return [message.kind for message in workload.messages]
