"""Strategy: `entering` is where a user's message becomes the value the chat keeps: the text made
valid, then the key hidden, once, by the function the chat gives it. Expected texts are written by
hand from the rules (a lone surrogate is U+FFFD [P14]; the key is `<API key hidden>` [H3])."""

import pytest

from harness.memory.accepted import Accepted, entering

HIDDEN = "<API key hidden>"


def test_a_message_enters_valid_then_hidden_and_the_hiding_sees_it_once():
    seen = []

    def hide(text: str) -> str:
        seen.append(text)
        return text.replace("SECRET", HIDDEN)

    message = entering("caf\ud800 SECRET", "job-1", "send", hide)
    assert message == Accepted("caf\ufffd " + HIDDEN, "job-1", "send")
    assert seen == ["caf\ufffd SECRET"]  # hidden after it was made valid, and only once


def test_a_text_that_is_not_a_str_or_a_key_that_is_not_a_key_is_refused():
    with pytest.raises(TypeError, match="must be a str"):
        entering(b"bytes", "job-1", "send", str)
    with pytest.raises(ValueError, match="a key is 1 to 128"):
        entering("hello", "no spaces please", "socket", str)
