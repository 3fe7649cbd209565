"""Disks for tests, passed where the product takes one (harness/memory/disk.py): the machine's disk
that notes every operation, and one that fails the Nth of an operation as a full or broken disk does.
"""

import errno
import os
from dataclasses import dataclass
from pathlib import Path

from harness.memory.disk import RealDisk

STRERROR = {errno.ENOSPC: "No space left on device", errno.EIO: "Input/output error"}


class RecordingDisk(RealDisk):
    """The real disk; `operations` holds each operation done through it, in order, as (name, path)
    or, for a write, (name, path, bytes). A descriptor's operations name the path it was opened on."""

    def __init__(self) -> None:
        self.operations: list[tuple] = []
        self.opened: dict[int, str] = {}  # descriptor -> path

    def note(self, *operation) -> None:
        self.operations.append(operation)

    def open(self, path, flags, mode=0o777):
        fd = super().open(path, flags, mode)
        self.opened[fd] = str(path)
        self.note("open", str(path))
        return fd

    def close(self, fd):
        self.note("close", self.opened.get(fd, str(fd)))
        super().close(fd)

    def write(self, fd, data):
        self.note("write", self.opened[fd], bytes(data))
        return super().write(fd, data)

    def pwrite(self, fd, data, offset):
        self.note("pwrite", self.opened[fd], bytes(data))
        return super().pwrite(fd, data, offset)

    def read(self, fd, length):
        self.note("read", self.opened[fd])
        return super().read(fd, length)

    def pread(self, fd, length, offset):
        self.note("pread", self.opened[fd])
        return super().pread(fd, length, offset)

    def fsync(self, fd):
        self.note("fsync", self.opened[fd])
        super().fsync(fd)

    def ftruncate(self, fd, length):
        self.note("ftruncate", self.opened[fd])
        super().ftruncate(fd, length)

    def replace(self, source, target):
        self.note("replace", str(source), str(target))
        super().replace(source, target)

    def unlink(self, path):
        self.note("unlink", str(path))
        super().unlink(path)

    def mkdir(self, path, mode):
        self.note("mkdir", str(path))
        super().mkdir(path, mode)

    def listdir(self, path):
        self.note("listdir", str(path))
        return super().listdir(path)

    def stat(self, path, follow_symlinks=True):
        self.note("stat", str(path))
        return super().stat(path, follow_symlinks=follow_symlinks)

    def names(self, *kinds: str) -> list[str]:
        """The paths operations of these kinds were done on, each once, in order."""
        seen: dict[str, None] = {}
        for operation in self.operations:
            if operation[0] in kinds:
                seen.setdefault(operation[-1] if operation[0] == "replace" else operation[1], None)
        return list(seen)


@dataclass
class Fail:
    """The `nth` call of `operation` on a path ending in `on` (counted from `FailingDisk.arm()`),
    and the `times` - 1 after it, raise OSError(`error`); with `half`, such a write first takes
    half its bytes and returns, and the next write on that descriptor fails."""

    operation: str
    error: int
    on: str = ""
    nth: int = 1
    times: int = 1
    half: bool = False
    calls: int = 0


class FailingDisk(RecordingDisk):
    """The real disk, failing as its `Fail`s say once armed; `failures` counts the errors raised."""

    def __init__(self, *fails: Fail) -> None:
        super().__init__()
        self.fails = fails
        self.armed = False
        self.failures = 0
        self.halved: tuple[int, Fail] | None = None  # the descriptor a half write was taken on

    def arm(self) -> None:
        self.armed, self.failures = True, 0
        for fail in self.fails:
            fail.calls = 0

    def failing(self, operation: str, path: str) -> Fail | None:
        if not self.armed:
            return None
        for fail in self.fails:
            if fail.operation == operation and path.endswith(fail.on):
                fail.calls += 1
                if fail.nth <= fail.calls < fail.nth + fail.times:
                    return fail
        return None

    def raise_it(self, fail: Fail, path: str):
        self.failures += 1
        raise OSError(fail.error, STRERROR.get(fail.error, os.strerror(fail.error)), path)

    def write(self, fd, data):
        path = self.opened[fd]
        if self.halved is not None and self.halved[0] == fd:
            fail = self.halved[1]
            self.halved = None
            self.raise_it(fail, path)
        fail = self.failing("write", path)
        if fail is not None:
            if fail.half:
                self.halved = (fd, fail)
                return super().write(fd, bytes(data)[:len(data) // 2])
            self.raise_it(fail, path)
        return super().write(fd, data)

    def fsync(self, fd):
        fail = self.failing("fsync", self.opened[fd])
        if fail is not None:
            self.raise_it(fail, self.opened[fd])
        super().fsync(fd)

    def ftruncate(self, fd, length):
        fail = self.failing("ftruncate", self.opened[fd])
        if fail is not None:
            self.raise_it(fail, self.opened[fd])
        super().ftruncate(fd, length)

    def pread(self, fd, length, offset):
        fail = self.failing("pread", self.opened[fd])
        if fail is not None:
            self.raise_it(fail, self.opened[fd])
        return super().pread(fd, length, offset)


def files_under(home: Path) -> set[str]:
    """Every regular file under `home`, as a path string."""
    return {str(path) for path in home.rglob("*") if path.is_file()}
