"""What a line not summarized yet covers, said in its placeholder [P22] [gist §5].

The planner renders an unbuilt line as `id|not summarized yet: search or zoom it` and counts it
at PLACEHOLDER_BYTES_MAX bytes of text, whatever it says. The chat's turns send more within those
bytes: what the line covers, read from the logs, so that the first question after a big import
sees which messages the line holds, where they came from and when, before any of it is
summarized:

    notes 120–247, Claude Code, 2025-06-01 to 06-09, not summarized yet: search or zoom it

The ids come from the line's name, the kinds, sources and dates from every message under it (a
note imported says its tool in its header, "[imported: Claude Code · …]", harness/imports/rules.py),
so each word is true of the whole range. Each message is read once, and each line's text is kept:
a line's messages never change once logged. A text that would pass the bytes drops its source,
then its dates; the ids always fit (at most 63 bytes for a 64-bit T, 102 with the words after).
"""

import re
from collections.abc import Callable

from harness.memory.daylog import StoreError
from harness.memory.view_text import PLACEHOLDER, PLACEHOLDER_BYTES_MAX, shown

IMPORTED = re.compile(r"\[imported: ([^·\]\n]{1,40}?) ?[·\]]")
SOURCES_NAMED_MAX = 2  # more than this many tools in one line: their count instead

Facts = tuple[str, str, str]  # one message's kind, source ("" when written in the chat) and day


class Covers:
    """Placeholder texts for unbuilt lines, read through `message(i)` (a record: kind, text,
    date), each kept once made."""

    def __init__(self, message: Callable[[int], dict]):
        self.message = message
        self._facts: dict[int, Facts] = {}
        self._texts: dict[tuple[int, int, int], str] = {}

    def placeholder(self, l: int, i: int, T: int) -> str:
        """The text of node (l, i)'s line while it is not summarized, the chat at T messages."""
        first, last = i << l, min(((i + 1) << l), T) - 1
        key = (l, i, last)
        text = self._texts.get(key)
        if text is None:
            text = self._texts[key] = covered(first, last, [self.facts(j) for j in range(first, last + 1)])
            if len(self._texts) > 65_536:  # lines long built: their text is never asked again
                self._texts.clear()
        return text

    def facts(self, i: int) -> Facts:
        found = self._facts.get(i)
        if found is None:
            try:
                record = self.message(i)
            except (IndexError, StoreError):  # a message that cannot be read says nothing of itself
                return "", "", ""
            kind, text, date = (str(record.get(field, "")) for field in ("kind", "text", "date"))
            head = IMPORTED.match(text)
            found = self._facts[i] = (kind, head[1].strip() if head else "", date[:10])
            if len(self._facts) > 262_144:
                self._facts.clear()
        return found


def covered(first: int, last: int, facts: list[Facts]) -> str:
    """The placeholder of the messages first to last, each message's (kind, source, day) given,
    within PLACEHOLDER_BYTES_MAX bytes."""
    kinds = {kind for kind, _, _ in facts}
    if first == last:
        ids = f"{kind_word(next(iter(kinds)), 1)} {first:,}"
    else:
        ids = f"{kind_word(next(iter(kinds)), 2) if len(kinds) == 1 else 'messages'} {first:,}–{last:,}"
    sources = sorted({source or "this chat" for _, source, _ in facts})
    imported = [source for source in sources if source != "this chat"]
    if not imported:
        source = ""
    elif len(sources) <= SOURCES_NAMED_MAX:
        source = " and ".join(sources)
    else:
        source = f"{len(sources)} sources"
    days = sorted(day for _, _, day in facts if day)
    dates = span(days[0], days[-1]) if days else ""
    for parts in ((ids, source, dates), (ids, dates), (ids,)):
        # a source and a day are read from a message's own text, which any sender writes: shown
        # as a line's text is [P15] [P18], so no placeholder closes the view or starts a task
        text = shown(", ".join([part for part in parts if part] + [PLACEHOLDER]))
        if len(text.encode("utf-8")) <= PLACEHOLDER_BYTES_MAX:
            return text
    return PLACEHOLDER


def kind_word(kind: str, count: int) -> str:
    """`note`, `notes`, `echoes`; `user message`, `ever messages`; `message` for a kind not known."""
    word = {"note": "note", "echo": "echo"}.get(kind) or (
        f"{kind} message" if kind else "message")
    return word if count == 1 else word + ("es" if word.endswith("echo") else "s")


def span(first: str, last: str) -> str:
    """Two days as a person writes them: `2025-06-01`, `2025-06-01 to 06-09`, or both whole."""
    if first == last:
        return first
    if first[:4] == last[:4] and len(last) == 10:
        return f"{first} to {last[5:]}"
    return f"{first} to {last}"
