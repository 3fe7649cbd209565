"""The compactor's line: how the replies of one compaction become the node's text [gist §4].

Written apart from model/line.py (the bridge compares the two on seeded reply scripts); the
behaviour is the one docs/planner.md gives under "The compactor's line". The compactor drives
`Tries` one reply at a time: each reply either ends the tries or gives the "Too long" follow-up
to send in the same conversation.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from harness.memory.text import utf8_bytes

LINE_BYTES_MAX = 512  # [gist §2]
TRIES_MAX = 5  # [gist §4] "Try at most 5 times"
CAPPED_MARK = "(not summarized, cut: zoom it) "  # [P16]


@dataclass(frozen=True)
class Outcome:
    calls: int  # replies asked for: the first call and its follow-ups
    text: str  # the node's text, 1 to 512 bytes; "" when no reply gave a line: a failed try
    follow_ups: tuple[str, ...] = ()  # the "Too long" messages sent, in order


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


def too_long(line: str) -> str:
    """The follow-up for a trimmed line over 512 bytes, sent in the same conversation [gist §4]."""
    return (
        f"Too long: your line is {utf8_bytes(line)} bytes, over the 512-byte limit. Write\n"
        "the whole line again for the same <input>, cutting just enough of the\n"
        "least valuable items to fit before this cut:\n"
        f"{cut(line, LINE_BYTES_MAX)}| ← LIMIT"
    )


@dataclass
class Tries:
    """One compaction's tries [gist §4] [D9]: feed each reply to `take`."""

    calls: int = 0
    best: str | None = None
    follow_ups: list[str] = field(default_factory=list)
    done: bool = False

    def take(self, reply: str) -> str | None:
        """Count one reply; return the follow-up to send next, or None when the tries are over."""
        assert not self.done
        self.calls += 1
        text = reply.strip()
        size = utf8_bytes(text)
        if not text or (self.best is not None and size >= utf8_bytes(self.best)):
            # [D9] an empty reply ends the tries; a follow-up that is not shorter
            # would be asked the same again
            self.done = True
            return None
        self.best = text
        if size <= LINE_BYTES_MAX or self.calls >= TRIES_MAX:
            self.done = True
            return None
        follow_up = too_long(text)
        self.follow_ups.append(follow_up)
        return follow_up

    def outcome(self) -> Outcome:
        # [P13] the kept line is cut; with none, "" is a failed try [P16]
        text = "" if self.best is None else cut(self.best, LINE_BYTES_MAX)
        return Outcome(self.calls, text, tuple(self.follow_ups))


def line(replies: Sequence[str]) -> Outcome:
    """The kept line, given the replies the model gives in order."""
    tries = Tries()
    for reply in replies:
        if tries.take(reply) is None:
            break
    return tries.outcome()


def merge_input_cut(a: str, b: str, bytes_max: int = LINE_BYTES_MAX) -> str:
    """A merge's input within `bytes_max`: each line keeps at least half the room [P9]."""
    room_bytes = bytes_max - 1  # the newline between them
    half_bytes = room_bytes // 2
    a_cut = cut(a, max(half_bytes, room_bytes - utf8_bytes(b)))
    b_cut = cut(b, room_bytes - utf8_bytes(a_cut))
    return a_cut + "\n" + b_cut


def capped_line(source: str) -> str:
    """A message's text after its last allowed failure: the mark, then its source cut, within
    512 bytes [D5] [P16]."""
    return CAPPED_MARK + cut(source, LINE_BYTES_MAX - utf8_bytes(CAPPED_MARK))


def capped_merge(a: str, b: str) -> str:
    """A merge's text after its last allowed failure: the mark, then both halves cut [P9]."""
    return CAPPED_MARK + merge_input_cut(a, b, LINE_BYTES_MAX - utf8_bytes(CAPPED_MARK))
