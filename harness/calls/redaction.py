"""The API key hidden in any text that leaves Ever's hands [H3]: a tool's result, an
error the API gave, a reply that repeats the key. Each secret, and each word that holds
REDACT_RUN_CHARS characters in a row of one, becomes `<API key hidden>`, so a command that prints
the key, or an error that echoes it cut short, does not put it in the log or on the screen.

The tools (harness/calls/tools.py), the SDK client (harness/calls/client.py) and the terminal use
it; it imports nothing of Ever.
"""

import re
from collections.abc import Iterable

HIDDEN = "<API key hidden>"

# A word sharing this many characters in a row with the key is taken for (a piece of) the key: an
# error that echoes the key cut short, or a line that breaks it in two, is hidden too. Shorter
# runs may be a key's public prefix (`sk-ant-api03-`, 13 characters).
REDACT_RUN_CHARS = 16
WORD = re.compile(r"[A-Za-z0-9_\-+/=]+")


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with each secret, and each word that holds REDACT_RUN_CHARS characters in a row of
    one, replaced by `<API key hidden>` [H3]."""
    runs: set[str] = set()
    for secret in secrets:
        if not secret:
            continue
        text = text.replace(secret, HIDDEN)
        if len(secret) < REDACT_RUN_CHARS:
            continue
        runs.update(secret[k:k + REDACT_RUN_CHARS] for k in range(len(secret) - REDACT_RUN_CHARS + 1))
    if not runs:
        return text

    def hidden(match: "re.Match[str]") -> str:
        word = match.group()
        for k in range(len(word) - REDACT_RUN_CHARS + 1):
            if word[k:k + REDACT_RUN_CHARS] in runs:
                return HIDDEN
        return word

    return WORD.sub(hidden, text)
