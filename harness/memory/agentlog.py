"""A subagent's own log [gist §6]: its steps stay there, out of the chat's log.

Each subagent of a chat has one file, `chat/agents/<Name>.jsonl` (harness/memory/home.py), of JSON
lines appended with one write each and fsync'd, never edited, like the chat's log [gist §1]
(harness/memory/logfile.py; written compact, shown spaced here):

    {"kind": "start", "name": "Scout", "task": "...", "turn": 41, "T": 42, "time": "...",
     "caps": {"tokens": 2000000, "seconds": 1800, "tool_calls": 100}}
    {"kind": "ever" | "tool" | "echo", "text": "...", "time": "..."}     # its steps, in order
    {"kind": "told", "by": "Ever" | "the user", "text": "[Ever tells you] ...", "time": "..."}
                                        # tell(): logged when told, read between its tool calls
    {"kind": "usage", "model": "...", "input_tokens": 0, ..., "time": "..."}  # each call's usage
    {"kind": "end", "how": "done", "said": "...", "report": "...", "T": 57, "time": "..."}
    {"kind": "reported", "id": 57, "time": "..."}

`turn` is the id of the user message whose turn started it; `T` in the start line is the chat's
message count then, and in the end line the count when it ended, so a restart that finds an end
line without its `reported` line looks for the `work` message `[Name] report` only in the messages
logged since: no report is lost or doubled by a kill between the two writes. `how` is one of
HOWS; a file with no end line belonged to a subagent that was running when its owner was killed.

The file is created with O_EXCL, so two subagents never share a name (a name is compared without
case, since some file systems do). A line cut off by a crash ends the file; it is skipped when
read, and the next line written starts on a line of its own.
"""

import json
import os
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from harness.memory.logfile import LogFile, encode_line, make_directory

AGENTS_DIR = "agents"
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,39}")
STEP_KINDS = ("ever", "tool", "echo")
# how a subagent ended: its final reply; an API error; a reply cut off in a tool call; a cap; a stop
# by the user or the chat's closing; its owner killed (found at the next start)
HOWS = ("done", "error", "tool call", "cap", "cancel", "cut off")


@dataclass(frozen=True)
class AgentCaps:
    """What one subagent may spend [A1]; the config's `[agents]` overrides each."""

    tokens: int = 2_000_000  # prompt (cache reads included) and output, over all its calls
    seconds: float = 1800.0  # wall time from its start
    tool_calls: int = 100

    def to_json(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "seconds": self.seconds, "tool_calls": self.tool_calls}


class NameTaken(Exception):
    """A subagent of that name exists in this chat; the message is one sentence."""


def name_error(name: Any) -> str | None:
    """None if `name` can name a subagent; else a sentence for the model."""
    if not isinstance(name, str) or not name:
        return "agent: name is missing; give a short name, like Scout."
    if not NAME.fullmatch(name):
        return (f"agent: {name!r} is not a name here: a letter, then letters, digits, - or _, "
                "at most 40 in all.")
    return None


def agents_dir(chat: Path) -> Path:
    return chat / AGENTS_DIR


def log_path(chat: Path, name: str) -> Path:
    return agents_dir(chat) / f"{name}.jsonl"


def now_text(now: datetime | None = None) -> str:
    return (now or datetime.now().astimezone()).isoformat(timespec="seconds")


def names(chat: Path) -> list[str]:
    """Every subagent of the chat, in the order they started."""
    directory = agents_dir(chat)
    if not directory.is_dir():
        return []
    starts = []
    for path in directory.glob("*.jsonl"):
        with open(path, "rb") as file:
            try:
                first = json.loads(file.readline())
            except ValueError:
                first = {}
        started = first.get("time", "") if isinstance(first, dict) else ""
        starts.append((started, path.stem))
    return [name for _, name in sorted(starts)]


def find(chat: Path, name: str) -> Path | None:
    """The log of the subagent named `name`, compared without case; None if there is none."""
    directory = agents_dir(chat)
    if not directory.is_dir():
        return None
    exact = log_path(chat, name)
    if exact.exists():
        return exact
    for path in directory.glob("*.jsonl"):
        if path.stem.lower() == name.lower():
            return path
    return None


def read_log(path: Path) -> list[dict]:
    """The file's records in order; a line a crash cut off (not JSON) is skipped."""
    records = []
    with open(path, "rb") as file:
        for line in file:
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                records.append(value)
    return records


class AgentLog:
    """One subagent's file, open for appending."""

    def __init__(self, file: LogFile):
        self.path = file.path
        self.file = file

    @classmethod
    def create(cls, chat: Path, name: str, start: dict[str, Any]) -> "AgentLog":
        """A new log whose first line is `start`; NameTaken if the chat has a subagent `name`."""
        make_directory(agents_dir(chat))
        if find(chat, name) is not None:
            raise NameTaken(f"agent: this chat already has a subagent named {name}; names are "
                            "unique in a chat, so choose another.")
        path = log_path(chat, name)
        try:
            file = LogFile(path, exclusive=True)
        except FileExistsError:
            raise NameTaken(f"agent: this chat already has a subagent named {name}; names are "
                            "unique in a chat, so choose another.") from None
        log = cls(file)
        log.append(dict(start, kind="start", name=name))
        return log

    @classmethod
    def reopen(cls, path: Path) -> "AgentLog":
        return cls(LogFile(path))

    def append(self, record: dict[str, Any]) -> None:
        """One line, one write, fsync'd; a failed one leaves nothing (harness/memory/logfile.py)."""
        record = dict(record)
        record.setdefault("time", now_text())
        self.file.append(encode_line(record))

    def close(self) -> None:
        self.file.close()


def summary(records: list[dict]) -> dict[str, Any]:
    """What a listing shows of one log: its start, its steps, its end, where its report went."""
    start = records[0] if records and records[0].get("kind") == "start" else {}
    steps = [r for r in records if r.get("kind") in STEP_KINDS]
    end = next((r for r in records if r.get("kind") == "end"), None)
    reported = next((r for r in records if r.get("kind") == "reported"), None)
    return {
        "name": start.get("name", ""),
        "task": start.get("task", ""),
        "started": start.get("time", ""),
        "turn": start.get("turn"),
        "steps": len(steps),
        "tool_calls": sum(1 for r in steps if r["kind"] == "tool"),
        "usage": [r for r in records if r.get("kind") == "usage"],
        "end": end,
        "reported": reported,
        "last": steps[-1] if steps else None,
    }


def where_it_ends(records: list[dict]) -> str:
    """Where a log ends, in words: its last step, numbered, and when."""
    steps = [r for r in records if r.get("kind") in STEP_KINDS]
    if not steps:
        start = records[0] if records else {}
        return f"its log ends at its start ({start.get('time', 'no time')}), before any step"
    last = steps[-1]
    text = " ".join(str(last.get("text", "")).split())
    if len(text) > 160:
        text = text[:160] + "…"
    return f"its log ends at step {len(steps)} ({last.get('time', '')}), {last['kind']}: {text}"


def conversation(records: list[dict]) -> str:
    """The whole conversation as `zoom("Name")` gives it: the task, each step, how it ended."""
    start = records[0] if records and records[0].get("kind") == "start" else {}
    parts = [f"[subagent {start.get('name', '?')}, started {start.get('time', '?')} by the turn of "
             f"message {start.get('turn', '?')}]", f"task: {start.get('task', '')}"]
    for record in records:
        if record.get("kind") in STEP_KINDS + ("told",):
            parts.append(f"{record['kind']}: {record.get('text', '')}")
    end = next((r for r in records if r.get("kind") == "end"), None)
    reported = next((r for r in records if r.get("kind") == "reported"), None)
    if end is None:
        parts.append("[running: no end yet]")
    else:
        parts.append(f"[ended ({end.get('how')}) {end.get('time', '')}: {end.get('said', '')}]")
        if end.get("unread"):
            unread = end["unread"]
            parts.append(f"[{unread} message{'' if unread == 1 else 's'} told to it came after its last tool "
                         "call: it never read them]")
    if reported is not None and reported.get("id") is not None:
        parts.append(f"[its report is message {reported['id']}]")
    return "\n\n".join(parts)


def last_record(path: Path) -> dict | None:
    """The file's last line, read from its end: a start reads no more of a finished log."""
    with open(path, "rb") as file:
        size = file.seek(0, os.SEEK_END)
        chunk = 4096
        while True:
            start = max(size - chunk, 0)
            file.seek(start)
            data = file.read(size - start).rstrip(b"\n")
            cut = data.rfind(b"\n")
            if cut >= 0 or start == 0:
                try:
                    value = json.loads(data[cut + 1:])
                except ValueError:
                    return None
                return value if isinstance(value, dict) else None
            chunk *= 4


def recover_list(chat: Path) -> list[tuple[Path, list[dict]]]:
    """Each log whose last line is not `reported`, with its records: the ones a start must
    finish (nothing is written after `reported`)."""
    found = []
    for name in names(chat):
        path = log_path(chat, name)
        last = last_record(path)
        if last is None or last.get("kind") != "reported":
            found.append((path, read_log(path)))
    return found
