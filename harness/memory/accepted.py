"""A user's message as one value, from where its text enters Ever to its line in the log
[S9].

Text enters at three places: the terminal (`ever chat`), `ever send` in the process that owns
the chat, and the socket that hands `ever send` to a running chat. Each makes an `Accepted` with
`entering`, which makes the text valid (harness/memory/text.py) and hides the API key in it
[P14] [H3], once. What takes the value after (the inbox, the line editor's history, the
turn, the log) keeps `text` as it is: it is already the text Ever keeps, sends and shows. The key
rides with the text, and ends the message's last log line [S8] [S11]: nothing matches a
logged text back to its key.
"""

from collections.abc import Callable
from dataclasses import dataclass

from harness.memory.store import checked_key
from harness.memory.text import is_valid_text, utf8_bytes, valid_text

# [S12] the most one message may hold, in UTF-8 bytes: what `read` takes of a file [H7]. A
# message past it is refused in one sentence where it enters, before anything of it is kept, so
# no message takes longer to log than this much, and none blocks the ones after it.
MESSAGE_BYTES_MAX = 10_000_000

SOURCES = ("terminal", "send", "socket", "inbox")  # the inbox: accepted before a restart


@dataclass(frozen=True)
class Accepted:
    """A user's message: its text as Ever keeps it, the key a retry names it by, where it came from."""

    text: str
    key: str
    source: str

    def __post_init__(self) -> None:
        assert is_valid_text(self.text), "a message's text is made valid by `entering`, where it enters"
        assert self.source in SOURCES, f"a message comes from one of {SOURCES}, not {self.source!r}"
        checked_key(self.key)


class TooLong(ValueError):
    """A message past MESSAGE_BYTES_MAX; the text is the sentence to show."""


def too_long_sentence(size_bytes: int) -> str:
    return (f"the message is more than {MESSAGE_BYTES_MAX:,} bytes ({size_bytes:,} or more), the most "
            "one message may hold; nothing was logged: put it in a file and ask Ever to read it")


def entering(text: object, key: str, source: str, hide: Callable[[str], str]) -> Accepted:
    """The message `text` as it enters Ever from `source`: valid, then passed through `hide`, which
    hides the API key (harness/calls/redaction.py's `redact`, with the chat's key) [P14] [H3].
    A text that is not a str is a TypeError; a key that is not a key, a ValueError; a text past
    MESSAGE_BYTES_MAX, TooLong [S12]."""
    if not isinstance(text, str):
        raise TypeError(f"a message's text must be a str, got {type(text).__name__}")
    valid = valid_text(text)
    size_bytes = len(valid) if len(valid) > MESSAGE_BYTES_MAX else utf8_bytes(valid)  # no encoding past it
    if size_bytes > MESSAGE_BYTES_MAX:
        raise TooLong(too_long_sentence(size_bytes))
    return Accepted(hide(valid), key, source)
