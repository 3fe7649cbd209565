"""The compactor's line: how the replies of one compaction become the node's text [gist §4]."""

from dataclasses import dataclass
from typing import Tuple

from model.view import LINE_BYTES_MAX, utf8_bytes

TRIES_MAX = 5  # [gist §4] "Try at most 5 times"
# [P16] the mark that opens a line the failure cap built from the node's input: the
# agent reads it as "zoom me", never as a summary
CAPPED_MARK = "(not summarized, cut: zoom it) "


@dataclass(frozen=True)
class Outcome:
    calls: int  # how many replies were asked for: the first call and its follow-ups
    text: str  # the node's text, 1 to 512 bytes; "" when no reply gave a line: a failed try
    follow_ups: Tuple[str, ...]  # the "Too long" messages sent, in order, one per over-long try


def cut(text: str, bytes_max: int) -> str:
    """The longest prefix of `text` of at most `bytes_max` bytes that splits no character."""
    return text.encode("utf-8")[:bytes_max].decode("utf-8", "ignore")


def too_long(line: str) -> str:
    """The follow-up sent in the same conversation for a line over 512 bytes [gist §4]; `line`
    is the trimmed reply, the one whose size the tries compare."""
    return (
        "Too long: your line is " + str(utf8_bytes(line)) + " bytes, over the 512-byte limit. Write\n"
        "the whole line again for the same <input>, cutting just enough of the\n"
        "least valuable items to fit before this cut:\n"
        + cut(line, LINE_BYTES_MAX)
        + "| ← LIMIT"
    )


def line(replies: Tuple[str, ...]) -> Outcome:
    """The kept line, given the replies the model would give in order [gist §4] [D9].

    - A reply is trimmed; one that fits in 512 bytes ends the tries.
    - One over 512 bytes gets the "Too long" follow-up, unless it was the fifth try.
    - A follow-up that is not shorter than the best line so far ends the tries: asking again
      asks the same.
    - An empty reply ends the tries.
    - The kept line is the shortest, cut to 512 bytes on a character boundary. With no line at
      all the text is "": the call failed, and the node's input never stands in for its summary
      [gist §7.5] [P16].
    """
    best = ""
    calls = 0
    follow_ups: Tuple[str, ...] = ()
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
        if calls < TRIES_MAX:
            follow_ups = follow_ups + (too_long(best),)
    return Outcome(calls, cut(best, LINE_BYTES_MAX), follow_ups)


def merge_input_cut(a: str, b: str, bytes_max: int) -> str:
    """A merge's input cut to `bytes_max`: both lines, each keeping at least half the room,
    joined by a newline [P9]. Cutting `a + "\\n" + b` as one text would lose b whole."""
    room_bytes = bytes_max - 1
    half_bytes = room_bytes >> 1
    a_cut = cut(a, max(half_bytes, room_bytes - utf8_bytes(b)))
    b_cut = cut(b, room_bytes - utf8_bytes(a_cut))
    return a_cut + "\n" + b_cut


def capped_line(node_input: str) -> str:
    """The text the failure cap gives a message's node: the mark, then its source cut so the
    whole stays within 512 bytes [D5] [P16]."""
    return CAPPED_MARK + cut(node_input, LINE_BYTES_MAX - utf8_bytes(CAPPED_MARK))


def capped_merge(a: str, b: str) -> str:
    """The same for a merge: the mark, then both halves cut [P9] within 512 bytes."""
    return CAPPED_MARK + merge_input_cut(a, b, LINE_BYTES_MAX - utf8_bytes(CAPPED_MARK))
