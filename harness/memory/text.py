"""Text made valid once, where it enters Ever: every later part may assume it encodes as UTF-8.

A `str` from a terminal, a file decoded with `surrogateescape`, a JSON `\\ud800` escape or a tool's
output can hold a lone surrogate, which no UTF-8 encoder accepts. The planners count bytes with
`str.encode("utf-8")` and would crash on it, so the boundary that takes text in (the store's append,
the compactor's reply) replaces each lone surrogate with U+FFFD, the replacement character, and
nothing after it checks again [decision P14].
"""


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
