"""The production planner's events: what the chat, the compactor and the turn loop tell it.

Time, completions and failures arrive as events, so the planner reads no clock, file or
randomness [gist §3, §4, §6]. A restart is not an event of a live planner: the process ends, and
the next one loads what was saved (`Planner.load`) [fix F1].
"""

from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True)
class Message:
    kind: str
    text: str


@dataclass(frozen=True)
class Built:
    l: int
    i: int
    text: str


@dataclass(frozen=True)
class Failed:
    l: int
    i: int


@dataclass(frozen=True)
class Wait:
    """A user message arrived and its turn waits until the view is summarized [gist §6]."""


@dataclass(frozen=True)
class TurnEnd:
    """The waiting turn gave up or ended [decision P8]."""


@dataclass(frozen=True)
class Restart:
    """The process restarted. Not an event for `Planner.apply`: the old planner is dropped and
    a new one is built from what it saved (`Planner.load(planner.save())`) [fix F1]."""


Event = Union[Message, Built, Failed, Wait, TurnEnd]
