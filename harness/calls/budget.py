"""What the chat may spend, whoever's words started the work [H15]: caps over a window for the
whole chat, and a chain's budget that every turn and subagent of one message shares.

    spend = Spend(ChatCaps(), monotonic)   # the chat's: calls, tokens and dollars per hour and day
    chain = Chain(root_id)                  # one user message and all its words lead to
    spend.over()                            # the sentence of the cap a next call would pass, or ""
    spend.record(model, usage)              # a call answered, counted in its window
    spend.resume()                          # the user's next message: the windows count from now

A chain is a user message and everything it leads to: its turn, the subagents that turn starts,
the turns their reports start, their subagents, and so on. A report's turn is the chain's, never
a fresh one: it shares the chain's `spent` (the `[turn]` caps count over all of them) and its
count of subagents started. Nothing here reads a clock of its own: the owner gives the monotonic
one (harness/owner/world.py).
"""

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.calls.usage import cost_e8, usage_record

HOUR_SECONDS = 3600.0
DAY_SECONDS = 86400.0
E8 = 100_000_000  # 10^-8 dollars in a dollar


@dataclass(frozen=True)
class ChatCaps:
    """[H15] What the whole chat may spend; the config's `[chat]` overrides each. Far above a day
    of a person's own work (a busy day is a few hundred calls), far below a runaway's (one message
    whose every report starts a subagent made 1,229 requests in 40 s)."""

    calls_per_hour: int = 600
    calls_per_day: int = 3000
    tokens_per_hour: int = 30_000_000  # prompt (cache reads included) and output
    tokens_per_day: int = 150_000_000
    dollars_per_hour: int = 20  # priced by the capability table; an unpriced call counts 0
    dollars_per_day: int = 100
    subagents_alive: int = 8  # running at once, in the whole chat
    subagents_per_message: int = 8  # started by one turn (a message's, or a report's)
    subagents_per_chain: int = 24  # started by one user message and all its words lead to


@dataclass
class Chain:
    """One user message and everything it leads to; `root` is its message id (-1 until its
    turn logs it)."""

    root: int = -1
    spent: dict[str, int] = field(default_factory=lambda: {"calls": 0, "tool_calls": 0, "tokens": 0,
                                                            "output_bytes": 0})
    subagents: int = 0  # started in the whole chain


@dataclass
class Window:
    calls: int = 0
    tokens: int = 0
    cost_e8: int = 0


class Spend:
    """The chat's calls over the last hour and day, the subagents' included; past a cap the work
    stops (`stopped` says why) until the user's next message."""

    def __init__(self, caps: ChatCaps, monotonic: Callable[[], float],
                 on_stop: Callable[[str], None] | None = None):
        self.caps = caps
        self.monotonic = monotonic
        self.on_stop = on_stop
        self.calls: deque[tuple[float, int, int]] = deque()  # (when, tokens, cost in 10^-8 $)
        self.since = float("-inf")  # the user's last resume: only calls after it count
        self.stopped = ""  # the sentence, while the work is stopped
        self.cap = ""  # the cap that stopped it: "the chat's cap of 600 calls per hour"

    def record(self, model: str, usage: Any) -> None:
        record = usage_record("agent", None, model, usage)
        self.calls.append((self.monotonic(), record.prompt_tokens + record.output_tokens,
                           cost_e8(record) or 0))

    def window(self, seconds: float) -> Window:
        now = self.monotonic()
        while self.calls and self.calls[0][0] < now - DAY_SECONDS:
            self.calls.popleft()
        start = max(now - seconds, self.since)
        counted = [(tokens, cost) for when, tokens, cost in self.calls if when > start]
        return Window(len(counted), sum(t for t, _ in counted), sum(c for _, c in counted))

    def over(self) -> str:
        """The chat's cap a next call would pass ("the chat's cap of 600 calls per hour"); "" if
        none. The first time, the chat stops and `on_stop` hears it once."""
        if self.stopped:
            return self.cap
        caps = self.caps
        for seconds, per, calls_max, tokens_max, dollars_max in (
                (HOUR_SECONDS, "hour", caps.calls_per_hour, caps.tokens_per_hour, caps.dollars_per_hour),
                (DAY_SECONDS, "day", caps.calls_per_day, caps.tokens_per_day, caps.dollars_per_day)):
            spent = self.window(seconds)
            cap = (f"{calls_max:,} calls" if spent.calls >= calls_max
                   else f"{tokens_max:,} tokens" if spent.tokens >= tokens_max
                   else f"${dollars_max:,}" if spent.cost_e8 >= dollars_max * E8 else "")
            if cap:
                self.stop(f"the chat's cap of {cap} per {per}")
                return self.cap
        return ""

    def stop(self, cap: str) -> None:
        self.cap = cap
        self.stopped = (f"The chat stopped its work: it reached {cap} (chat.* in config.toml); "
                        "your next message resumes it.")
        if self.on_stop is not None:
            self.on_stop(self.stopped)

    def resume(self) -> None:
        """The user's message: the work may go on, the windows counting from now."""
        if self.stopped:
            self.stopped = self.cap = ""
            self.since = self.monotonic()
