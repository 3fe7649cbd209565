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
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from harness.memory.disk import REAL_DISK, Disk
from harness.memory.logfile import (
    LogFile,
    encode_line,
    exists,
    is_directory,
    make_directory,
    names_in,
    read_at,
    read_file,
)

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


def logs_in(directory: Path, disk: Disk) -> list[Path]:
    """The logs in `directory`, as `glob("*.jsonl")` finds them (a name with a leading dot aside)."""
    return [directory / name for name in names_in(directory, disk)
            if name.endswith(".jsonl") and not name.startswith(".")]


def names(chat: Path, disk: Disk = REAL_DISK) -> list[str]:
    """Every subagent of the chat, in the order they started."""
    directory = agents_dir(chat)
    if not is_directory(directory, disk):
        return []
    starts = []
    for path in logs_in(directory, disk):
        try:
            first = json.loads(first_line(path, disk))
        except ValueError:
            first = {}
        started = first.get("time", "") if isinstance(first, dict) else ""
        starts.append((started, path.stem))
    return [name for _, name in sorted(starts)]


def first_line(path: Path, disk: Disk) -> bytes:
    """A log's first line, its newline kept: what a listing reads of each log."""
    fd = disk.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        data, at = b"", 0
        while b"\n" not in data:
            chunk = read_at(fd, 8192, at, disk)
            if not chunk:
                return data
            data += chunk
            at += len(chunk)
        return data[:data.index(b"\n") + 1]
    finally:
        disk.close(fd)


def find(chat: Path, name: str, disk: Disk = REAL_DISK) -> Path | None:
    """The log of the subagent named `name`, compared without case; None if there is none."""
    directory = agents_dir(chat)
    if not is_directory(directory, disk):
        return None
    exact = log_path(chat, name)
    if exists(exact, disk):
        return exact
    for path in logs_in(directory, disk):
        if path.stem.lower() == name.lower():
            return path
    return None


def read_log(path: Path, disk: Disk = REAL_DISK) -> list[dict]:
    """The file's records in order; a line a crash cut off (not JSON) is skipped."""
    records = []
    for line in read_file(path, disk).split(b"\n"):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            records.append(value)
    return records


class AgentLog:
    """One subagent's file, open for appending."""

    def __init__(self, file: LogFile, now: Callable[[], datetime] | None = None):
        self.path = file.path
        self.file = file
        self.now = now  # the chat's clock (the World's), which dates each line; the system's when None

    @classmethod
    def create(cls, chat: Path, name: str, start: dict[str, Any], disk: Disk = REAL_DISK,
               now: Callable[[], datetime] | None = None) -> "AgentLog":
        """A new log whose first line is `start`; NameTaken if the chat has a subagent `name`."""
        make_directory(agents_dir(chat), disk)
        if find(chat, name, disk) is not None:
            raise NameTaken(f"agent: this chat already has a subagent named {name}; names are "
                            "unique in a chat, so choose another.")
        path = log_path(chat, name)
        try:
            file = LogFile(path, exclusive=True, disk=disk)
        except FileExistsError:
            raise NameTaken(f"agent: this chat already has a subagent named {name}; names are "
                            "unique in a chat, so choose another.") from None
        log = cls(file, now)
        log.append(dict(start, kind="start", name=name))
        return log

    @classmethod
    def reopen(cls, path: Path, disk: Disk = REAL_DISK, now: Callable[[], datetime] | None = None) -> "AgentLog":
        return cls(LogFile(path, disk=disk), now)

    def append(self, record: dict[str, Any]) -> None:
        """One line, one write, fsync'd; a failed one leaves nothing (harness/memory/logfile.py)."""
        record = dict(record)
        record.setdefault("time", now_text(self.now() if self.now is not None else None))
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


def last_record(path: Path, disk: Disk = REAL_DISK) -> dict | None:
    """The file's last line, read from its end: a start reads no more of a finished log."""
    fd = disk.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        size = disk.fstat(fd).st_size
        chunk = 4096
        while True:
            start = max(size - chunk, 0)
            data = read_at(fd, size - start, start, disk).rstrip(b"\n")
            cut = data.rfind(b"\n")
            if cut >= 0 or start == 0:
                try:
                    value = json.loads(data[cut + 1:])
                except ValueError:
                    return None
                return value if isinstance(value, dict) else None
            chunk *= 4
    finally:
        disk.close(fd)


def recover_list(chat: Path, disk: Disk = REAL_DISK) -> list[tuple[Path, list[dict]]]:
    """Each log whose last line is not `reported`, with its records: the ones a start must
    finish (nothing is written after `reported`)."""
    found = []
    for name in names(chat, disk):
        path = log_path(chat, name)
        last = last_record(path, disk)
        if last is None or last.get("kind") != "reported":
            found.append((path, read_log(path, disk)))
    return found


def zoomed(chat: Path, name: Any, page: Any, page_chars: int, disk: Disk = REAL_DISK) -> tuple[str, str]:
    """`zoom("Name")` [gist §6]: (a page of the subagent's whole conversation, ""), or ("", the
    sentence saying why there is none). The model's tool and `ever memory zoom NAME` both read it."""
    from harness.memory.images import pages

    if isinstance(page, bool) or not isinstance(page, int) or page < 1:
        return "", f"zoom: page must be a whole number, 1 or more; got {page!r}."
    path = find(chat, name, disk) if name_error(name) is None else None
    if path is None:
        known = names(chat, disk)
        listed = f"; its subagents are {', '.join(known)}" if known else "; it has none yet"
        return "", f"zoom: this chat has no subagent named {name!r}{listed}."
    bodies = pages(conversation(read_log(path, disk)), page_chars)
    if page > len(bodies):
        return "", f"zoom: subagent {path.stem}'s conversation has {len(bodies)} pages, not page {page}"
    body = bodies[page - 1]
    if len(bodies) > 1:
        body = f"[subagent {path.stem}, page {page} of {len(bodies)}]\n{body}"
    return body, ""
