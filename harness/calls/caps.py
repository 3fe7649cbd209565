"""What one turn may spend, as a value of its own: the settings (harness/chat/config.py) read it
without loading the turn, and so without the SDK's neighbours or the planner.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class TurnCaps:
    """What one turn may spend; the config's `[turn]` overrides each. Generous: a turn reaches one
    only when something is wrong (a model that never stops calling tools, a reply without end)."""

    calls: int = 100  # requests sent, the tool loop's included
    tool_calls: int = 200
    tokens: int = 5_000_000  # prompt (cache reads included) and output, over all its calls
    seconds: float = 3600.0  # wall time from its start
    output_bytes: int = 4_000_000  # of text, thinking and tool input streamed, over all its calls
