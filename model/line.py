"""The compactor's line: how the replies of one compaction become the node's text [gist §4]."""

from dataclasses import dataclass
from typing import Tuple

from model.view import LINE_BYTES_MAX, utf8_bytes

TRIES_MAX = 5  # [gist §4] "Try at most 5 times"


@dataclass(frozen=True)
class Outcome:
    calls: int  # how many replies were asked for: the first call and its follow-ups
    text: str  # the node's text, 1 to 512 bytes


def cut(text: str, bytes_max: int) -> str:
    """The longest prefix of `text` of at most `bytes_max` bytes that splits no character."""
    return text.encode("utf-8")[:bytes_max].decode("utf-8", "ignore")


def line(replies: Tuple[str, ...], fallback: str) -> Outcome:
    """The kept line, given the replies the model would give in order [gist §4] [deliberate D9].

    - A reply that fits in 512 bytes ends the tries ("Too long" is sent only for an over-long one).
    - At most 5 tries; the shortest line is kept.
    - A follow-up that is not shorter than the best line so far ends the tries: asking again
      asks the same.
    - An empty reply is the last try.
    - The kept line is cut to 512 bytes on a character boundary; with no line at all, the
      fallback (the node's input, cut) is the text.
    """
    best = ""
    calls = 0
    for reply in replies:
        if calls == TRIES_MAX:
            break
        calls = calls + 1
        text = reply.strip()
        if text == "":
            break
        if best != "" and utf8_bytes(text) >= utf8_bytes(best):
            break
        best = text
        if utf8_bytes(best) <= LINE_BYTES_MAX:
            break
    if best == "":
        return Outcome(calls, cut(fallback, LINE_BYTES_MAX))
    return Outcome(calls, cut(best, LINE_BYTES_MAX))


def merge_input_cut(a: str, b: str) -> str:
    """A merge's input cut to 512 bytes: both lines, each keeping at least half the room, joined
    by a newline [decision P9]. Cutting `a + "\\n" + b` as one text would lose b whole."""
    half_bytes = (LINE_BYTES_MAX - 1) >> 1
    a_cut = cut(a, max(half_bytes, LINE_BYTES_MAX - 1 - utf8_bytes(b)))
    b_cut = cut(b, LINE_BYTES_MAX - 1 - utf8_bytes(a_cut))
    return a_cut + "\n" + b_cut
