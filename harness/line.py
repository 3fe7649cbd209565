"""The compactor's line: how the replies of one compaction become the node's text [gist §4].

Written apart from model/line.py (the bridge compares the two on seeded reply scripts); the
behaviour is the one docs/planner.md gives under "The compactor's line".
"""

from dataclasses import dataclass
from typing import Sequence

LINE_BYTES_MAX = 512  # [gist §2]
TRIES_MAX = 5  # [gist §4] "Try at most 5 times"


@dataclass(frozen=True)
class Outcome:
    calls: int  # replies asked for: the first call and its follow-ups
    text: str  # the node's text, 1 to 512 bytes unless the fallback is empty


def cut(text: str, bytes_max: int) -> str:
    """The longest prefix of `text` within `bytes_max` UTF-8 bytes that splits no character."""
    data = text.encode("utf-8")
    if len(data) <= bytes_max:
        return text
    end = bytes_max
    # A continuation byte (10xxxxxx) right after the cut means the cut is inside a character.
    while end > 0 and data[end] & 0xC0 == 0x80:
        end -= 1
    return data[:end].decode("utf-8")


def too_long(reply: str) -> str:
    """The follow-up sent in the same conversation when a reply is over 512 bytes [gist §4]."""
    size = len(reply.encode("utf-8"))
    return (
        f"Too long: your line is {size} bytes, over the 512-byte limit. Write\n"
        "the whole line again for the same <input>, cutting just enough of the\n"
        "least valuable items to fit before this cut:\n"
        f"{cut(reply, LINE_BYTES_MAX)}| ← LIMIT"
    )


def line(replies: Sequence[str], fallback: str) -> Outcome:
    """The kept line, given the replies the model gives in order [gist §4] [deliberate D9]."""
    best = None
    best_bytes = 0
    calls = 0
    for reply in replies:
        if calls >= TRIES_MAX:
            break
        calls += 1
        text = reply.strip()
        if not text:
            # [deliberate D9] an empty reply is the last try
            break
        size = len(text.encode("utf-8"))
        if best is not None and size >= best_bytes:
            # [deliberate D9] asking again would ask the same
            break
        best, best_bytes = text, size
        if size <= LINE_BYTES_MAX:
            break
    kept = fallback if best is None else best
    return Outcome(calls, cut(kept, LINE_BYTES_MAX))  # [decision P13]


def merge_input_cut(a: str, b: str) -> str:
    """A merge's input within 512 bytes: each line keeps at least half the room [decision P9]."""
    room_bytes = LINE_BYTES_MAX - 1  # the newline between them
    half_bytes = room_bytes // 2
    b_bytes = len(b.encode("utf-8"))
    a_cut = cut(a, max(half_bytes, room_bytes - b_bytes))
    b_cut = cut(b, room_bytes - len(a_cut.encode("utf-8")))
    return a_cut + "\n" + b_cut
