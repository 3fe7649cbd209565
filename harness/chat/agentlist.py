"""`ever agents` and `/agents`: each subagent of the chat, read from its own log, with its cost.

Light on purpose: no SDK, so `ever agents` starts as fast as `ever cost`.
"""

import os
from pathlib import Path
from typing import Any

from harness.calls.usage import UsageRecord, cost_e8, dollars_text
from harness.memory import agentlog


def owner_alive(chat: Path) -> bool:
    """Whether a live process holds the chat (its pid in the lock file)."""
    try:
        text = (chat / "lock").read_text().strip()
        pid = int(text)
    except (OSError, ValueError):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def listing(chat: Path) -> list[dict[str, Any]]:
    """Each subagent of the chat: its state, steps, tool calls, tokens and cost."""
    alive = owner_alive(chat)
    rows = []
    for name in agentlog.names(chat):
        records = agentlog.read_log(agentlog.log_path(chat, name))
        facts = agentlog.summary(records)
        usage = []
        for line in facts["usage"]:
            try:
                usage.append(UsageRecord.from_json(line.get("record")))
            except ValueError:  # a line not written by Ever: left out of the sums, not a crash
                pass
        costs = [cost_e8(record) for record in usage]
        end = facts["end"]
        if end is not None:
            state = f"ended ({end.get('how')})"
        else:
            state = "running" if alive else "cut off (reported at the chat's next start)"
        rows.append({
            "name": facts["name"] or name, "state": state, "started": facts["started"],
            "turn": facts["turn"], "steps": facts["steps"], "tool_calls": facts["tool_calls"],
            "calls": len(usage),
            "tokens": sum(r.prompt_tokens + r.output_tokens for r in usage),
            "cost_e8": None if any(c is None for c in costs) else sum(c for c in costs if c is not None),
            "report": (facts["reported"] or {}).get("id"),
            "task": facts["task"],
        })
    return rows


def listing_text(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "No subagents in this chat yet."
    lines = [f"{'name':<16}{'state':<24}{'calls':>6}{'tools':>6}{'tokens':>12}{'cost':>10}  started"]
    for row in rows:
        cost = "?" if row["cost_e8"] is None else dollars_text(row["cost_e8"])
        lines.append(f"{row['name']:<16}{row['state']:<24}{row['calls']:>6}{row['tool_calls']:>6}"
                     f"{row['tokens']:>12,}{cost:>10}  {row['started']}")
    return "\n".join(lines)
