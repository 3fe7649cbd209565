"""The disk: every operation Ever's memory makes on files, as one interface passed in.

SQLite writes every file through one OS layer (its VFS), so a test can put a layer of its own in
its place and fail or lose any operation; this module is that layer for Ever. `Disk` names the
operations the chat's files need, each as `os` spells it and with `os`'s errors (an OSError with
its errno: ENOSPC, EIO, ENOENT...), and `RealDisk` is the machine's, calling `os` and nothing
more. It also says whose process is writing (`process_id`, `os.getpid` on the machine): the lock
writes that id into a file, and a simulated machine runs many processes inside one real one.
Above it, harness/memory/logfile.py keeps the rules of a file that must survive a crash
(one write then fsync, a failed write cut back, a file replaced whole); the store, its day logs,
index, lock, inbox and damage record, the images, the subagents' logs and the usage log all reach
the disk through the one they were given (`Memory.open(home, ..., disk=...)`, `World.disk`), the
real one unless told otherwise.

A descriptor is whatever the disk's `open` returned: it is given back to the same disk only.
Outside the seam, by design: search's SQLite database (harness/memory/search.py, a cache rebuilt
from the logs), the home's listing of paths and modes (harness/memory/home.py), and files a
person names (an import's sessions), which the default disk reads.
"""

import fcntl
import os
from pathlib import Path
from typing import Protocol, Union

PathLike = Union[str, Path]


class Disk(Protocol):
    """The operations on files the memory makes; each behaves as the `os` function of its name."""

    def open(self, path: PathLike, flags: int, mode: int = 0o777) -> int: ...
    def close(self, fd: int) -> None: ...
    def read(self, fd: int, length: int) -> bytes: ...
    def pread(self, fd: int, length: int, offset: int) -> bytes: ...
    def write(self, fd: int, data: bytes) -> int: ...
    def pwrite(self, fd: int, data: bytes, offset: int) -> int: ...
    def fsync(self, fd: int) -> None: ...
    def ftruncate(self, fd: int, length: int) -> None: ...
    def fstat(self, fd: int) -> os.stat_result: ...
    def fchmod(self, fd: int, mode: int) -> None: ...
    def set_blocking(self, fd: int, blocking: bool) -> None: ...
    def flock(self, fd: int, operation: int) -> None: ...
    def stat(self, path: PathLike, follow_symlinks: bool = True) -> os.stat_result: ...
    def chmod(self, path: PathLike, mode: int) -> None: ...
    def mkdir(self, path: PathLike, mode: int) -> None: ...
    def listdir(self, path: PathLike) -> list[str]: ...
    def replace(self, source: PathLike, target: PathLike) -> None: ...
    def unlink(self, path: PathLike) -> None: ...
    def process_id(self) -> int: ...  # whose disk this is: the lock writes it for the next owner


class RealDisk:
    """The machine's disk: each operation is the `os` call of its name (`flock`, fcntl's)."""

    def open(self, path: PathLike, flags: int, mode: int = 0o777) -> int:
        return os.open(path, flags, mode)

    def close(self, fd: int) -> None:
        os.close(fd)

    def read(self, fd: int, length: int) -> bytes:
        return os.read(fd, length)

    def pread(self, fd: int, length: int, offset: int) -> bytes:
        return os.pread(fd, length, offset)

    def write(self, fd: int, data: bytes) -> int:
        return os.write(fd, data)

    def pwrite(self, fd: int, data: bytes, offset: int) -> int:
        return os.pwrite(fd, data, offset)

    def fsync(self, fd: int) -> None:
        os.fsync(fd)

    def ftruncate(self, fd: int, length: int) -> None:
        os.ftruncate(fd, length)

    def fstat(self, fd: int) -> os.stat_result:
        return os.fstat(fd)

    def fchmod(self, fd: int, mode: int) -> None:
        os.fchmod(fd, mode)

    def set_blocking(self, fd: int, blocking: bool) -> None:
        os.set_blocking(fd, blocking)

    def flock(self, fd: int, operation: int) -> None:
        fcntl.flock(fd, operation)

    def stat(self, path: PathLike, follow_symlinks: bool = True) -> os.stat_result:
        return os.stat(path, follow_symlinks=follow_symlinks)

    def chmod(self, path: PathLike, mode: int) -> None:
        os.chmod(path, mode)

    def mkdir(self, path: PathLike, mode: int) -> None:
        os.mkdir(path, mode)

    def listdir(self, path: PathLike) -> list[str]:
        return os.listdir(path)

    def replace(self, source: PathLike, target: PathLike) -> None:
        os.replace(source, target)

    def unlink(self, path: PathLike) -> None:
        os.unlink(path)

    def process_id(self) -> int:
        return os.getpid()


REAL_DISK = RealDisk()  # the default of every `disk=` argument: today's machine
