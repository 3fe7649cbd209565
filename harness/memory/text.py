"""Text made valid once, where it enters Ever: every later part may assume it encodes as UTF-8.

A `str` from a terminal, a file decoded with `surrogateescape`, a JSON `\\ud800` escape or a tool's
output can hold a lone surrogate, which no UTF-8 encoder accepts. The planners count bytes with
`str.encode("utf-8")` and would crash on it, so the boundary that takes text in (a user's message
where it enters, harness/memory/accepted.py; the store's append; the compactor's reply) replaces
each lone surrogate with U+FFFD, the replacement character, and nothing after it cleans again: it
may assert `is_valid_text` [P14].

Here too are the rules for long texts, which the chat's tools and an import both follow: a
tool's output is clipped to its head and tail (`clip_output`), any other long text is split,
never cut (`split_long`).
"""


OUTPUT_CHARS_MAX = 30_000  # [gist §1] a tool's output, head and tail, in all
MESSAGE_CHARS_MAX = 30_000  # [H2] the longest piece split_long makes


def valid_text(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD; any other text unchanged."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    # A surrogate pair written as two code points is a real character once re-joined; a lone one
    # is not, and UTF-16's decoder replaces exactly those.
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def is_valid_text(text: str) -> bool:
    """The planners' precondition on every text they are given."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def clip_note(chars_cut: int, chars_total: int, bytes_unread: int = 0) -> str:
    if bytes_unread:
        # the characters of the bytes never read are unknown, so no total is given
        return (f"\n[... {chars_cut:,} characters cut here, and {bytes_unread:,} more bytes "
                "that were never read ...]\n")
    return f"\n[... {chars_cut:,} of {chars_total:,} characters cut here ...]\n"


def clip_output(text: str, chars_max: int = OUTPUT_CHARS_MAX, bytes_unread: int = 0) -> str:
    """`text` if it fits in `chars_max`; else its head and tail around a note saying what was cut,
    the whole `chars_max` characters at most [gist §1]. `bytes_unread` counts bytes already gone
    from the middle (a stream too long to keep), so the note can say so."""
    total = len(text)
    if total <= chars_max and not bytes_unread:
        return text
    # The note's length depends on the number it prints, which depends on the room the note
    # leaves: grow the cut until it is stable (at most a few rounds, as the digits settle).
    cut = max(total - chars_max, 0)
    while True:
        note = clip_note(cut, total, bytes_unread)
        keep = max(chars_max - len(note), 0)
        wanted = max(total - keep, 0)
        if wanted <= cut:
            break
        cut = wanted
    keep = total - cut
    head = keep - keep // 2
    tail = keep // 2
    return text[:head] + note + text[total - tail:]


def split_long(text: str, chars_max: int = MESSAGE_CHARS_MAX) -> list[str]:
    """`text` as pieces of at most `chars_max` characters that join back to it exactly
    [gist §1] [H2]. A piece ends after a line break in its second half when it can."""
    pieces = []
    start = 0
    while len(text) - start > chars_max:
        end = start + chars_max
        # a line break at or after the window's middle: end the piece just after it
        newline = text.rfind("\n", start + chars_max // 2, end)
        if newline != -1:
            end = newline + 1
        pieces.append(text[start:end])
        start = end
    pieces.append(text[start:])
    return pieces


def utf8_bytes(text: str) -> int:
    """The bytes of valid `text` in UTF-8, without encoding it when it is ASCII."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))
