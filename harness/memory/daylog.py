"""The chat's logs on disk: a directory of day files, and the shapes of their lines [gist §1].

`main/` and `tree/` are each a `DayLog`: files named `YYYY-MM-DD.jsonl`, read in name order, the
newest one appended to through harness/memory/logfile.py (one write, fsync'd; a failed write cut
back). The day of a line is [S1]'s (harness/memory/store.py). A line in the shape the
store writes is read by its two ends (`message_id_key`, `node_ids`) without a JSON parse; a
message line's tail may hold an import's `from` (any JSON string) before its key.
"""

import re
from datetime import datetime
from pathlib import Path

from harness.memory.disk import REAL_DISK, Disk
from harness.memory.logfile import LogFile

READ_CHUNK_BYTES = 4 << 20

DAY_FILE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\.jsonl\Z")
# The shapes written below, read by their two ends: the ids at the head, and at the tail the
# fields after the text. Inside a JSON string every '"' follows a backslash, so '","size":' is
# found only where the text ends; and a prefix of a line (a torn write) never has the tail, whose
# last byte is the line's closing brace.
MESSAGE_HEAD = re.compile(rb'\{"i":(0|[1-9][0-9]*),"kind":"[a-z]+","text":"')
MESSAGE_TAIL = re.compile(rb'","size":[0-9]+,"date":"[^"\\]*"(?:,"from":"(?:[^"\\]|\\.)*")?'
                          rb'(?:,"key":"([A-Za-z0-9._:+/=-]{1,128})")?\}')
NODE_HEAD = re.compile(rb'\{"l":(0|[1-9][0-9]*),"i":(0|[1-9][0-9]*),"text":"')
NODE_TAIL = re.compile(rb'","size":[0-9]+,"T":[0-9]+\}')
TEXT_END = b'","size":'


class StoreError(Exception):
    """The store cannot do what was asked; the message says why."""


class LogCorrupt(StoreError):
    """The logs would lose or renumber messages if opened; the message names the file and line."""


def message_id(line: bytes) -> int | None:
    """The id of a message line in the shape written here (without its newline), else None."""
    found = message_id_key(line)
    return None if found is None else found[0]


def message_id_key(line: bytes) -> tuple[int, str | None] | None:
    """The id and key (None without one) of a message line in the shape written here."""
    head = MESSAGE_HEAD.match(line)
    tail = line.rfind(TEXT_END)
    if head:
        ended = tail >= head.end() and MESSAGE_TAIL.fullmatch(line, tail)
        if ended:
            return int(head[1]), ended[1].decode("ascii") if ended[1] else None
    return None


def node_ids(line: bytes) -> tuple[int, int] | None:
    """(l, i) of a node line in the shape written here (without its newline), else None."""
    head = NODE_HEAD.match(line)
    tail = line.rfind(TEXT_END)
    if head and tail >= head.end() and NODE_TAIL.fullmatch(line, tail):
        return int(head[1]), int(head[2])
    return None


class DayLog:
    """One directory of day files: their names in order, the bytes and lines of each, and the
    descriptor that appends to the newest."""

    def __init__(self, directory: Path, label: str, disk: Disk = REAL_DISK):
        self.directory = directory
        self.label = label  # "main" or "tree", for paths in messages
        self.disk = disk
        self.names: list[str] = []
        self.sizes: list[int] = []
        self.lines: list[int] = []
        self.appender: LogFile | None = None  # the newest file, once appended to

    def path(self, number: int) -> str:
        return f"{self.directory}/{self.names[number]}"  # a str: a Path costs more than the read

    def relative(self, number: int) -> str:
        return f"{self.label}/{self.names[number]}"

    def close(self) -> None:
        if self.appender is not None:
            self.appender.close()
            self.appender = None

    def append(self, now: datetime, line: bytes) -> tuple[int, int]:
        """Append one whole line to the day's file: one write, then fsync [gist §1, §7.12];
        return (file number, offset). An OSError leaves no part of it [S5]."""
        name = now.strftime("%Y-%m-%d") + ".jsonl"
        if self.names and name < self.names[-1]:
            name = self.names[-1]  # [S1] the clock went back
        if not self.names or name != self.names[-1]:
            self._new_file(name)
        number = len(self.names) - 1
        if self.appender is None:
            self.appender = LogFile(Path(self.path(number)), disk=self.disk)
        offset = self.appender.append(line)
        self.sizes[number] = self.appender.size
        self.lines[number] += 1
        return number, offset

    def _new_file(self, name: str) -> None:
        self.close()
        path = self.directory / name
        try:
            appender = LogFile(path, exclusive=True, disk=self.disk)  # its name fsync'd in the directory
        except FileExistsError:
            if self.disk.stat(path).st_size:
                raise StoreError(f"{path} appeared while the chat was open; open the chat again to read it") from None
            appender = LogFile(path, disk=self.disk)  # empty: its name fsync'd there [S30]
        self.appender = appender
        self.names.append(name)
        self.sizes.append(0)
        self.lines.append(0)
