"""The view's text rules [gist §2, §3, §5]: a line's name (`id+n`), its text as the view shows it
(flattened, escaped), what a built line and a waiting one cost in bytes, and the sizes counted
without building the shown text. The production planner (planner.py), the compactor's tasks and
the trace use them.

The mirror of these rules in the reference model is model/view.py (`name`, `flatten`, `escaped`,
`built_line`, `waiting_line`, `PLACEHOLDER`, `PLACEHOLDER_BYTES_MAX`); the bridge compares the two byte for byte, and a
change here is a change there.
"""

import re

from harness.memory.line import LINE_BYTES_MAX

Entry = tuple[str, int, int, int]  # a built node's text, its UTF-8, shown and line bytes
# [P22] what an unbuilt line shows, after what it covers (its ids, source and dates), all of it
# within PLACEHOLDER_BYTES_MAX, the bytes its line counts
PLACEHOLDER = "not summarized yet: search or zoom it"
PLACEHOLDER_BYTES_MAX = 128



def node_name(l: int, i: int) -> str:
    """`id+n` [gist §2]."""
    return f"{i << l}+{1 << l}"


# Every line break and control character: C0, DEL, C1 (U+0085 among them), U+2028, U+2029.
_BREAKS = {code: " " for code in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)}


def flatten(text: str) -> str:
    """Each line break and control character as one space, "\r\n" one break [gist §3] [P15]."""
    return text.replace("\r\n", " ").translate(_BREAKS)


# What a line's text may not show as it is [P18]: "<" (a tag of the view or of a task
# would open or close), "|" (a line's head `id+n|` would show), each as one look-alike character;
# and the colon of the mark that starts a task, `Compaction:` [gist §4], in lower case and in
# capitals too.
_ESCAPES = {ord("<"): "\u2039", ord("|"): "\u00a6"}  # ‹ ¦
_TASK_MARK = re.compile("(Compaction|compaction|COMPACTION):")
_TASK_MARK_COLON = "\ua789"  # ꞉


def escaped(text: str) -> str:
    """The text with "<", "|" and a task mark's colon shown as their look-alikes [P18]: a
    message's text in its compression task, whose line breaks the task keeps [gist §4]."""
    text = text.translate(_ESCAPES)
    if "n:" in text or "N:" in text:
        text = _TASK_MARK.sub("\\1" + _TASK_MARK_COLON, text)
    return text


def shown(text: str) -> str:
    """A line's text as the view shows it: flattened, then escaped [P15] [P18]."""
    return escaped(flatten(text))


def has_lone_surrogate(text: str) -> bool:
    """The one thing that makes a `str` invalid text [P14]. UTF-32 refuses a lone
    surrogate exactly as UTF-8 does, and encodes about twice as fast: each character is four
    bytes, whatever it is."""
    if text.isascii():
        return False
    try:
        text.encode("utf-32-le")
    except UnicodeEncodeError:
        return True
    return False


# The breaks wider than the space they become: C1 controls (2 bytes) and U+2028, U+2029 (3).
_WIDE_BREAKS = re.compile("[\x80-\x9f\u2028\u2029]")


def text_sizes(text: str) -> tuple[int, int]:
    """The text's UTF-8 bytes and its shown bytes (what `shown` renders), counted in one encoding
    without building the shown text; (−1, −1) for a text with a lone surrogate. Each break becomes
    one space, so only "\r\n" and the breaks wider than a byte shrink; each escape grows: "<" by 2
    bytes (‹), "|" by 1 (¦), a task mark's colon by 2 (꞉). None of them touches another's
    characters, so each counts on the text as it is; "\r\n", "<" and "|" are ASCII, so they count
    the same in the text as in its UTF-8.

    Every event counts a text, so the searches are the cheap ones: a rare part is first looked
    for by one character of the text (`in` on a str), and counted only if found. (`in` on bytes
    first tries its operand as an integer and formats the error it raises: several times slower.)"""
    wide = False
    if text.isascii():
        size = len(text)
    else:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            return -1, -1
        size = len(data)
        # a C1 control is 0xC2 0x80..0x9F in UTF-8: the byte 0xC2 starts printable characters too
        # (U+00A0..U+00BF), which the count below finds out
        wide = data.partition(b"\xc2")[1] or "\u2028" in text or "\u2029" in text
    shown_size = size
    if "<" in text:
        shown_size += 2 * text.count("<")
    if "|" in text:
        shown_size += text.count("|")
    if "\r" in text:
        shown_size -= text.count("\r\n")
    if wide:
        for found in _WIDE_BREAKS.finditer(text):
            shown_size -= 1 if found.group() < "\u0100" else 2
    # a task mark ends in "ction:" whatever its case (`_TASK_MARK`)
    if ":" in text and ("ction:" in text or "CTION:" in text):
        shown_size += 2 * len(_TASK_MARK.findall(text))
    return size, shown_size


def joined_sizes(left: Entry, right: Entry) -> tuple[int, int]:
    """The `text_sizes` of two node texts joined by a newline, from their entries (text, UTF-8
    bytes, shown bytes, line bytes): the newline is shown as one space, but after a "\r" the two
    are one break [P15]; no escape reaches across it (a task mark has no break) [P18]."""
    shown_size = left[2] + 1 + right[2]
    if left[0].endswith("\r"):
        shown_size -= 1
    return left[1] + 1 + right[1], shown_size


# A line's bytes besides its id and its text: `+n`, `|` and the newline, by level.
HEAD_TAIL_BYTES = tuple(len(f"+{1 << l}|\n") for l in range(64))


def built_line_bytes(l: int, i: int, shown_bytes: int) -> int:
    """A built line's cost: `id+n|text` as shown, and its newline [P1], given the text's
    shown bytes (`text_sizes`)."""
    return len(str(i << l)) + HEAD_TAIL_BYTES[l] + shown_bytes


def waiting_line_bytes(i: int) -> int:
    """An unsummarized line shows its placeholder but costs the most its built line can weigh:
    `i+1|`, 512 bytes and the newline; so the view never outweighs its count [P1]."""
    return len(str(i)) + 3 + LINE_BYTES_MAX + 1
