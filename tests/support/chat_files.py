"""A chat written straight in the store's file format, fast: for the browse page's tests.

`Store.append_message` fsyncs each line, which is right for a chat and too slow to make 100,000
messages in a test; the lines written here are the ones it writes (harness/memory/store.py's
docstring), so `Store.open` indexes them as any chat's. Every node is logged as built the moment
its range is whole, with that T; as the planner does, a message of at most 512 bytes (with its
kind) is its own line and two lines that fit 512 bytes together are joined, the rest summarized
here by a few words [gist §2].
"""

import os
import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from harness.memory.store import encode_line

WORDS = ("memory view line merge zoom chat river stone lamp garden window paper orange music "
         "north winter kettle harbor violin letter bridge meadow copper lantern").split()


def words(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(count))


def write_chat(home: Path, messages: int, seed: int = 7,
               text: Callable[[int, random.Random], str] | None = None,
               start: datetime = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)) -> None:
    rng = random.Random(seed)
    chat = home / "chat"
    for directory in (home, chat, chat / "main", chat / "tree"):
        directory.mkdir(mode=0o700, exist_ok=True)
    kinds = ("user", "ever", "tool", "ever")
    main_lines, tree_lines = [], []
    last_two = {}  # per level, the texts of its last two nodes
    for i in range(messages):
        body = text(i, rng) if text else words(rng, rng.randint(8, 60))
        date = start + timedelta(minutes=3 * i)
        main_lines.append(encode_line({"i": i, "kind": kinds[i % 4], "text": body,
                                       "size": len(body.encode()), "date": date.isoformat(timespec="seconds")}))
        T = i + 1
        l = 0
        while (T >> l) << l == T:  # every node whose range ends at message i
            node_i = (T >> l) - 1
            if l == 0:
                source = f"{kinds[i % 4]}: {body}"
                line = source if len(source.encode()) <= 512 else "summary: " + words(rng, 40)
            else:
                left, right = last_two[l - 1]
                joined = left + "\n" + right
                line = joined if len(joined.encode()) <= 512 else f"merged {node_name_of(l, node_i)}: " + words(rng, 40)
            last_two[l] = (last_two.get(l, ("", ""))[1], line)
            tree_lines.append(encode_line({"l": l, "i": node_i, "text": line, "size": len(line.encode()), "T": T}))
            l += 1
    for name, lines in (("main", main_lines), ("tree", tree_lines)):
        path = chat / name / f"{start:%Y-%m-%d}.jsonl"
        with open(path, "wb") as f:
            f.write(b"".join(lines))
        os.chmod(path, 0o600)


def node_name_of(l: int, i: int) -> str:
    return f"{i << l}+{1 << l}"
