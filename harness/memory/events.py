"""The production planner's events: what the chat, the compactor and the turn loop tell it.

Time, completions and failures arrive as events, so the planner reads no clock, file or
randomness [gist §3, §4, §6]. A restart is not an event of a live planner: the process ends, and
the next one loads what was saved (`Planner.load`) [F1].

Every text an event carries is valid (no lone surrogate: `harness.memory.text.valid_text` made it so
where it entered) [P14]; a `Built` text is a line of 1 to 512 bytes.

**The failure contract** [P16]. `Failed` is a content failure only: the model answered
but gave no usable line (an empty or whitespace reply, a refusal), or the API refused this
request in a way that retrying cannot fix (a 400 for this request). Transient trouble (429, 500,
529, a timeout, a connection reset, a broken or malformed stream) is the compactor's to retry
with backoff while the call stays running: it never reaches the planner.

**A turn's events, in order** [gist §6] [P17]:

1. `Wait` — the user's message m arrived; it is not logged yet. Only the view's unbuilt lines
   start; while they wait for a retry the service sends `Retry` after its backoff.
2. The wait ends when the view is settled (the planner ends it after any event) or with
   `TurnEnd` when the settle timeout passes or the turn is cancelled.
3. The view is rendered, then `Message("user", m)` is logged and the call sent.
4. Each reply, tool call and tool result is a `Message` as it happens.

So a turn never waits for its own message, and the view it sends is the one rendered before m.
"""

from dataclasses import dataclass
from typing import NamedTuple, Union

KINDS = ("user", "ever", "tool", "echo", "work", "note")  # [gist §1] [P12]


# The events with fields are named tuples: as immutable as a frozen dataclass, and made in a
# third of its time (one of each per message, at the planner's rate).


class Message(NamedTuple):
    kind: str
    text: str


class Built(NamedTuple):
    l: int
    i: int
    text: str


class Failed(NamedTuple):
    """A content failure of the running call for node (l, i) (above)."""

    l: int
    i: int


@dataclass(frozen=True)
class Retry:
    """The compactor's backoff after a failure has passed: failed nodes are candidates again
    [P8]."""


@dataclass(frozen=True)
class Wait:
    """A user message arrived and its turn waits until the view is summarized [gist §6]."""


@dataclass(frozen=True)
class TurnEnd:
    """The waiting turn gave up or ended [P8]."""


@dataclass(frozen=True)
class Restart:
    """The process restarted. Not an event for `Planner.apply`: the old planner is dropped and
    a new one is built from what it saved (`Planner.load(planner.save())`) [F1]."""


Event = Union[Message, Built, Failed, Retry, Wait, TurnEnd]
