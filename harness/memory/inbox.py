"""The chat's inbox: each message the chat accepts, on disk before it is shown as accepted, until a
call has taken it [S9].

    chat/inbox.jsonl    {"key":"...","text":"..."}   a message accepted (harness/memory/home.py)
                        {"done":"..."}               its turn ended (answered, or its error shown)

A message is accepted when its inbox line is fsync'd; it is delivered when the turn that takes it
logs it in `main/`, at the place the model sees it (after the tool results of the call it joins),
with the same key at the end of its line. So the log keeps the order the model saw things in, and
the inbox says what was promised. A turn that ends writes `done` for each message it answered.

At open, an entry with no `done` was accepted by a process that died: if its key is not in the
log, it was never delivered, and the next turn delivers it; if it is, and an `ever` line follows
it, it was answered; else it was delivered and not answered, and a turn answers it without
logging it again. When no entry is pending the file is emptied (replaced whole), so it holds only
what waits.
"""

import json
import os
from pathlib import Path

from harness.memory.accepted import Accepted
from harness.memory.disk import REAL_DISK, Disk
from harness.memory.logfile import LogFile, encode_line, read_file, write_whole


class Inbox:
    """The inbox of the chat in `chat` (the store's directory), owned with the store's lock."""

    def __init__(self, chat: Path, disk: Disk = REAL_DISK, durable: bool = False):
        """`durable`: the owner's, which builds on what it reads: the file is fsync'd [S34]."""
        self.path = chat / "inbox.jsonl"
        self.disk = disk
        self.entries: dict[str, str] = {}  # key -> text, accepted and not done, in order
        # [S36] the keys of those sent with --yes: a message answered after a restart runs its
        # tools under its own sender's leave, never the next owner's
        self.with_yes: set[str] = set()
        self.torn = 0
        try:
            data = read_file(self.path, disk)
        except FileNotFoundError:
            data = b""
        if durable and data:
            # [S34] its newest line may be in the page cache only (its writer killed between its
            # write and its fsync): a `done` read there names a message this owner never answers
            # again, and a power loss taking it would leave the message waiting with nobody to
            # answer it
            fd = disk.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
            try:
                disk.fsync(fd)
            finally:
                disk.close(fd)
        for raw in data.split(b"\n"):
            try:
                line = json.loads(raw)
            except ValueError:
                self.torn += bool(raw)  # a write cut by a kill: never acknowledged
                continue
            if isinstance(line, dict) and isinstance(line.get("key"), str) and isinstance(line.get("text"), str):
                self.entries[line["key"]] = line["text"]
                if line.get("yes") is True:
                    self.with_yes.add(line["key"])
            elif isinstance(line, dict) and isinstance(line.get("done"), str):
                self.entries.pop(line["done"], None)
        self._file: LogFile | None = None

    def pending(self) -> list[tuple[str, str]]:
        """(key, text) of every message accepted and not done, in the order accepted."""
        return list(self.entries.items())

    def accept(self, message: Accepted, yes: bool = False) -> None:
        """On disk, or an OSError: only then is the message accepted. Its text is the one its
        `entering` made, the key hidden: the inbox never holds the key. `yes`: sent with --yes,
        which the owner that answers it after a restart keeps to [S36]."""
        self._write({"key": message.key, "text": message.text, **({"yes": True} if yes else {})})
        self.entries[message.key] = message.text
        if yes:
            self.with_yes.add(message.key)

    def done(self, key: str) -> None:
        """The message's turn ended. A `done` lost to a failed write costs nothing but a check at
        the next open (an `ever` line after the message says it was answered)."""
        if self.entries.pop(key, None) is None:
            return
        try:
            self._write({"done": key})
        except OSError:
            pass
        if not self.entries:
            self.compact()

    def compact(self) -> None:
        """Empty the file once nothing waits; a failure leaves it as it was, still right."""
        if self.entries:
            return
        try:
            if self._size():
                self.close()
                write_whole(self.path, b"", self.disk)
        except OSError:
            pass

    def _size(self) -> int:
        try:
            return self.disk.stat(self.path).st_size
        except (FileNotFoundError, NotADirectoryError):
            return 0

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _write(self, line: dict) -> None:
        if self._file is None:
            self._file = LogFile(self.path, disk=self.disk)  # a torn tail is ended here, never glued onto
        self._file.append(encode_line(line))
