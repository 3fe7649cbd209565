"""One way to write a file that must survive a crash: JSON lines appended, and files replaced whole.

Every log of Ever (the chat's day files, the inbox, each subagent's log, the usage log) appends
through `LogFile`, and every file replaced whole (view.json, the index's meta.json, config.toml,
the key, an image) goes through `write_whole`, so each gets the same rules [gist §1]:

- **One encoding.** A line is compact JSON (no spaces), UTF-8 with non-ASCII written as is, keys
  in the record's order, then a newline; a lone surrogate becomes U+FFFD [P14].
- **One write, then fsync.** A line is written by one `write` (looped only if the disk takes
  part of it) and fsync'd before `append` returns: only then is it acknowledged.
- **A failed write is cut back.** If the write or the fsync fails (a full disk), the file is cut
  back (`ftruncate`) to the length it had before, so no part of the unacknowledged line stays for
  the next line to glue onto. If the cut itself fails, the next `append` retries it first and
  writes nothing until it succeeds.
- **A torn tail is ended.** A file whose last line has no newline was cut by a kill mid-write: the
  line was never acknowledged. Opening the file to append ends it with a newline (one write,
  fsync'd), so the next line stands alone; every reader skips a line that is not JSON.
- **A file replaced whole** is written to `NAME.tmp` beside it, fsync'd, renamed over it and the
  directory fsync'd: a crash leaves the old file or the new one, never a mix.
- **A new file's name** is on disk before its first line is acknowledged: the directory is
  fsync'd when a file is made. Files are 0600 and directories 0700, whatever the umask.

Every operation goes to the disk it is given (harness/memory/disk.py, the real one by default), so
a test or a simulation can fail or lose any of them under these same rules.
"""

import errno
import json
import os
import stat
from pathlib import Path

from harness.memory.disk import REAL_DISK, Disk
from harness.memory.text import valid_text

DIRECTORY_MODE = 0o700
FILE_MODE = 0o600


def encode_line(record: dict) -> bytes:
    """One line of a log: compact JSON, UTF-8, keys in the record's order, and the newline."""
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
    try:
        return line.encode("utf-8")
    except UnicodeEncodeError:
        return valid_text(line).encode("utf-8")


def make_directory(path: Path, disk: Disk = REAL_DISK) -> bool:
    """A directory of mode 0700 whatever the umask, its name durable in its parent; True if it
    was made."""
    try:
        disk.mkdir(path, DIRECTORY_MODE)
    except FileExistsError:
        # made by a process that may have died before it fsync'd the parent: a power loss would
        # then take the directory, and every line under it, with it
        fsync_directory(path.parent, disk)
        return False
    disk.chmod(path, DIRECTORY_MODE)
    fsync_directory(path.parent, disk)
    return True


def make_parents(path: Path, disk: Disk = REAL_DISK, mode: int = 0o777) -> None:
    """`path` and every missing directory above it, as `Path.mkdir(parents=True, exist_ok=True)`
    makes them: `mode` for `path` itself, the default for the ones above, under the umask."""
    try:
        disk.mkdir(path, mode)
    except FileNotFoundError:
        if path.parent == path:
            raise
        make_parents(path.parent, disk)
        try:
            disk.mkdir(path, mode)
        except OSError:
            if not is_directory(path, disk):
                raise
    except OSError:
        # a directory already there is what was asked for; anything else is the error
        if not is_directory(path, disk):
            raise


def is_directory(path: Path, disk: Disk = REAL_DISK) -> bool:
    try:
        return stat.S_ISDIR(disk.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False


def exists(path: Path, disk: Disk = REAL_DISK) -> bool:
    try:
        disk.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    return True


def names_in(directory: Path, disk: Disk = REAL_DISK) -> list[str]:
    """The names in `directory`, in the order the disk lists them."""
    return disk.listdir(directory)


def is_file(path: Path, disk: Disk = REAL_DISK) -> bool:
    """A regular file, following a symbolic link; a link to nothing is not one."""
    try:
        return stat.S_ISREG(disk.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False


def remove(path: Path, disk: Disk = REAL_DISK) -> None:
    """`path` unlinked, if it was there."""
    try:
        disk.unlink(path)
    except FileNotFoundError:
        pass


def fsync_directory(path: Path, disk: Disk = REAL_DISK) -> None:
    fd = disk.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        disk.fsync(fd)
    finally:
        disk.close(fd)


def open_file(path: Path, flags: int, disk: Disk = REAL_DISK) -> int:
    """A descriptor on a file that is 0600 whatever the umask."""
    fd = disk.open(path, flags | os.O_CLOEXEC, FILE_MODE)
    if disk.fstat(fd).st_mode & 0o777 != FILE_MODE:
        disk.fchmod(fd, FILE_MODE)
    return fd


def write_all(fd: int, data: bytes, disk: Disk = REAL_DISK) -> None:
    """All of `data`: one write, more only if the disk took part of it."""
    written = disk.write(fd, data)
    while written < len(data):
        written += disk.write(fd, data[written:])


def read_at(fd: int, length: int, offset: int, disk: Disk = REAL_DISK) -> bytes:
    """Up to `length` bytes from `offset`: fewer only at the end of the file (one `pread` may
    give less than asked, past 2 GiB)."""
    data = disk.pread(fd, length, offset)
    if len(data) == length or not data:
        return data
    parts = [data]
    got = len(data)
    while got < length:
        more = disk.pread(fd, length - got, offset + got)
        if not more:
            break
        parts.append(more)
        got += len(more)
    return b"".join(parts)


def read_file(path: Path, disk: Disk = REAL_DISK, bytes_max: int | None = None) -> bytes:
    """The whole file `path` (at most `bytes_max` bytes of it), as `Path.read_bytes` reads it."""
    fd = disk.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        if bytes_max is not None:
            return read_at(fd, bytes_max, 0, disk)
        parts = []
        while True:
            chunk = disk.read(fd, 1 << 20)
            if not chunk:
                return b"".join(parts)
            parts.append(chunk)
    finally:
        disk.close(fd)


def write_whole(path: Path, data: bytes, disk: Disk = REAL_DISK) -> None:
    """Replace `path` with `data`: a new file, fsync'd, renamed over the old, directory fsync'd."""
    temporary = path.with_name(path.name + ".tmp")
    fd = open_file(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, disk)
    try:
        write_all(fd, data, disk)
        disk.fsync(fd)
    finally:
        disk.close(fd)
    disk.replace(temporary, path)
    fsync_directory(path.parent, disk)


def ends_torn(fd: int, size: int, disk: Disk = REAL_DISK) -> bool:
    """Whether a file of `size` bytes ends inside a line (its last byte is not a newline)."""
    return size > 0 and disk.pread(fd, 1, size - 1) != b"\n"


class LogFile:
    """One file of lines, open for appending, with the rules above.

    `size` is where the file's last whole line ends: where the next line starts. `torn` says
    whether opening it ended a torn tail. `exclusive` makes a new file or raises FileExistsError.
    """

    def __init__(self, path: Path, exclusive: bool = False, disk: Disk = REAL_DISK):
        self.path = path
        self.disk = disk
        self.torn = False
        self._cut_pending = False
        created = True
        try:
            fd = open_file(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_EXCL, disk)
        except FileExistsError:
            if exclusive:
                raise
            created = False
            fd = open_file(path, os.O_RDWR | os.O_APPEND, disk)
        self.fd: int | None = fd
        try:
            self.size = disk.fstat(fd).st_size
            if created or self.size == 0:
                # an empty file found may be one whose maker died (or whose directory fsync
                # failed) before its name was durable: its name is made durable before a line [S30]
                fsync_directory(path.parent, disk)
            elif ends_torn(fd, self.size, disk):
                self.append(b"\n")
                self.torn = True
        except BaseException:
            self.close()
            raise

    def append(self, data: bytes) -> int:
        """Write `data` (whole lines) and fsync it; return the offset where it starts. On an
        error nothing of it stays in the file (or the next append cuts it first)."""
        if self._cut_pending:
            self.cut_back()
        offset = self.size
        try:
            write_all(self.fd, data, self.disk)
            self.disk.fsync(self.fd)
        except BaseException:
            # The line was never acknowledged: leave no part of it.
            self._cut_pending = True
            try:
                self.cut_back()
            except OSError:
                pass
            raise
        self.size += len(data)
        return offset

    @property
    def cut_pending(self) -> bool:
        """A failed append's bytes could not be cut off yet; `append` refuses until they are."""
        return self._cut_pending

    def cut_back(self) -> None:
        """Cut the file back to its last whole line, on disk; an OSError if that fails."""
        if self.disk.fstat(self.fd).st_size != self.size:
            self.disk.ftruncate(self.fd, self.size)
            self.disk.fsync(self.fd)  # the cut on disk before the next line
        self._cut_pending = False

    def close(self) -> None:
        if self.fd is not None:
            self.disk.close(self.fd)
            self.fd = None


class NotReadable(Exception):
    """A file Ever was asked to read is not one it reads: the message is one sentence's end
    ("is a FIFO, not a regular file")."""


def open_regular(path: Path, follow: bool = True, disk: Disk = REAL_DISK) -> int:
    """A descriptor open for reading on the regular file `path`. Opened without blocking, so a
    FIFO never hangs the open, and checked on the descriptor, so a link swapped meanwhile changes
    nothing; `follow=False` refuses a symbolic link itself (a file only Ever writes)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = disk.open(path, flags)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise NotReadable("is a symbolic link that loops" if follow else
                              "is a symbolic link, and Ever writes it only as a file") from None
        raise
    status = disk.fstat(fd)
    if not stat.S_ISREG(status.st_mode):
        disk.close(fd)
        raise NotReadable(f"is {kind_of(status.st_mode)}, not a regular file")
    disk.set_blocking(fd, True)
    return fd


def kind_of(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a file"


def read_regular(path: Path, bytes_max: int, follow: bool = True, disk: Disk = REAL_DISK) -> bytes:
    """The whole regular file `path` (see `open_regular`), if it holds at most `bytes_max` bytes;
    `NotReadable` otherwise. A file that grows while it is read is still read at most so far."""
    fd = open_regular(path, follow, disk)
    try:
        data = read_at(fd, bytes_max + 1, 0, disk)
    finally:
        disk.close(fd)
    if len(data) > bytes_max:
        raise NotReadable(f"holds over {bytes_max:,} bytes, more than Ever reads from it")
    return data
