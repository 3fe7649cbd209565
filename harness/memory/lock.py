"""The chat's lock: one process owns a chat [gist §1].

`chat/lock` is flock'd by the owner, which writes its pid in it; a reader (`read_only`, or a chat
on a read-only disk) takes it shared, so readers read together and never while an owner writes.
flock dies with its process, so a lock left by a killed owner is simply free; the pid it left says
who died holding it. An empty lock file says the last owner closed the chat.
"""

import errno
import fcntl
import os
import time
from pathlib import Path

from harness.memory.daylog import StoreError
from harness.memory.disk import REAL_DISK, Disk
from harness.memory.logfile import open_file


class ChatBusy(StoreError):
    """Another live process owns the chat."""


class ChatLock:
    """The lock of the chat in `chat`, from `take` to `release`."""

    def __init__(self, chat: Path, disk: Disk = REAL_DISK):
        self.chat = chat
        self.disk = disk
        self.fd: int | None = None
        self.read_only = False

    def take(self, read_only: bool) -> str | None:
        """Own the chat (share it when `read_only`, or when its disk is read-only: then
        `read_only` is set). ChatBusy if a live process owns it; else a warning when a dead
        owner's pid was left, or None."""
        self.read_only = read_only
        if not self.read_only:
            try:
                fd = open_file(self.chat / "lock", os.O_RDWR | os.O_CREAT, self.disk)
            except OSError as error:
                if error.errno not in (errno.EROFS, errno.EACCES):
                    raise
                self.read_only = True
        if self.read_only:
            fd = self.disk.open(self.chat / "lock", os.O_RDONLY | os.O_CLOEXEC)
        try:
            self.disk.flock(fd, (fcntl.LOCK_SH if self.read_only else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = lock_owner(fd, self.disk, wait=True)
            self.disk.close(fd)
            who = f"process {owner}" if owner else "another process (its pid is not written yet)"
            raise ChatBusy(f"The chat in {self.chat} is in use by {who}, and one chat has one owner.") from None
        except BaseException:
            self.disk.close(fd)
            raise
        self.fd = fd
        if self.read_only:
            return None
        previous = lock_owner(fd, self.disk, wait=False)
        self.disk.ftruncate(fd, 0)
        pid = self.disk.process_id()
        self.disk.pwrite(fd, f"{pid}\n".encode(), 0)
        if previous:
            return f"process {previous} ended without closing the chat; process {pid} took it over"
        return None

    def release(self) -> None:
        if self.fd is not None:
            # An empty lock file says the last owner closed the chat; a pid left in it says the
            # owner died holding it.
            try:
                if not self.read_only:
                    self.disk.ftruncate(self.fd, 0)
            except OSError:
                pass  # a full disk cannot fail a close: the next owner overwrites the pid
            self.disk.close(self.fd)
            self.fd = None


def lock_owner(fd: int, disk: Disk, wait: bool) -> str:
    # The owner writes its pid just after it takes the lock: give it a moment.
    for _ in range(50 if wait else 1):
        text = disk.pread(fd, 32, 0).decode("ascii", "replace").strip()
        if text or not wait:
            return text
        time.sleep(0.01)
    return ""
