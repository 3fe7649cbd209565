"""A disk in memory that keeps only what was fsync'd, for the simulation.

It answers every operation of harness/memory/disk.py's `Disk` as Linux does for one file system,
with one difference that is the point: what a file or a directory holds is two things, what the
processes read (the page cache) and what is **durable** (what survives a power loss). A file's
bytes become durable at its fsync; a name made, renamed or removed in a directory becomes durable
at the directory's fsync (as SQLite's test6.c holds writes until a sync and tears them at a crash).

- `SimDisk.process()` is one process's view (its descriptors and its locks). `kill(process)` is
  SIGKILL: its descriptors close and its flocks go, and everything it wrote stays, since the page
  cache outlives a process. An operation started by a killed process raises `Killed`.
- `power_loss()` is the machine stopping: each file keeps its durable bytes plus, drawn from the
  disk's randomness, none, some (torn at any byte) or all of what it appended since; bytes
  overwritten or cut since the last fsync come back old or new; a directory keeps each name
  changed since its fsync as it was or as it is. Every process is killed.
- Faults, at the rates of `Faults`: ENOSPC and EIO on write (a write may first take part of its
  bytes), EIO on fsync (nothing more made durable), EIO on pread, a short write (fewer bytes
  taken, legal, no error), and a process killed at its Nth operation, inside it (a write torn at
  any byte). `flip_cold_bit()` changes one bit of a file no process has open for writing.
- `listdir` answers in an order drawn from the randomness: the product must not rely on one.

Every draw is from the `random.Random` it is given, so a seed replays the same bytes.
"""

import errno
import fcntl
import os
import random
import stat
from dataclasses import dataclass, field
from pathlib import Path

from sim.counts import Counts

FIRST_PID = 4100  # the first simulated process's id; the next ones count up from it

class Killed(BaseException):
    """The process that made this operation was killed: nothing of it, or after it, happens.
    A BaseException, as a SIGKILL is: no `except Exception` of the product catches it."""


def oserror(code: int, path: object = None) -> OSError:
    return OSError(code, os.strerror(code), None if path is None else str(path))


@dataclass
class Inode:
    number: int
    directory: bool
    mode: int
    data: bytearray = field(default_factory=bytearray)  # what is read (the page cache)
    durable: bytes = b""  # what a power loss leaves
    synced_since_cut: bool = True  # no overwrite or cut since the last fsync: only appends
    entries: dict = field(default_factory=dict)  # name -> Inode, for a directory
    durable_entries: dict = field(default_factory=dict)
    writers: int = 0  # descriptors open for writing, by any process


@dataclass
class Faults:
    """Rates per operation, each drawn from the run's probabilities."""

    write_enospc: float = 0.0
    write_eio: float = 0.0
    fsync_eio: float = 0.0
    read_eio: float = 0.0
    short_write: float = 0.0


@dataclass
class Open:
    inode: Inode
    path: str
    flags: int
    position: int = 0
    locked: int = 0  # 0, LOCK_SH or LOCK_EX


class SimDisk:
    """The machine's one file system, in memory; see the module docstring."""

    def __init__(self, rng: random.Random, counts: Counts, faults: Faults | None = None):
        self.rng = rng
        self.counts = counts
        self.faults = faults or Faults()
        self.armed = False  # faults are drawn only while armed (not while the checks read)
        self._numbers = 1
        self.root = self._inode(True, 0o755)
        self.processes: list[ProcessDisk] = []
        self.locks: dict[int, dict] = {}  # inode number -> {Open: mode}

    def _inode(self, directory: bool, mode: int) -> Inode:
        self._numbers += 1
        return Inode(self._numbers, directory, mode)

    def make_durable_directories(self, path: object) -> None:
        """`path` and the directories above it, there before the run and durable (a home's
        parent that the machine had long before)."""
        node = self.root
        for part in Path(path).parts[1:]:
            child = node.entries.get(part)
            if child is None:
                child = self._inode(True, 0o755)
                node.entries[part] = child
            node.durable_entries = dict(node.entries)
            node = child

    def process(self, name: str = "") -> "ProcessDisk":
        # Each simulated process has an id of its own, as the machine gives one: the lock writes
        # it, so the real process's id (its digits) would otherwise enter the seed's bytes.
        pid = FIRST_PID + len(self.processes)
        disk = ProcessDisk(self, name or f"process {len(self.processes) + 1}", pid)
        self.processes.append(disk)
        return disk

    # ---- paths

    def lookup(self, path: object) -> Inode | None:
        node = self.root
        for part in Path(path).parts[1:]:
            if not node.directory:
                return None
            node = node.entries.get(part)
            if node is None:
                return None
        return node

    def parent_of(self, path: object) -> tuple[Inode, str]:
        path = Path(path)
        parent = self.lookup(path.parent)
        if parent is None:
            raise oserror(errno.ENOENT, path)
        if not parent.directory:
            raise oserror(errno.ENOTDIR, path)
        return parent, path.name

    # ---- the machine stops

    def power_loss(self) -> None:
        """Every process killed; what was not fsync'd kept, torn or lost (module docstring)."""
        for process in self.processes:
            process.kill()
        seen: set[int] = set()
        self._lose(self.root, seen)
        self.counts.add("power loss")

    def _lose(self, directory: Inode, seen: set[int]) -> None:
        if directory.number in seen:
            return
        seen.add(directory.number)
        names = sorted(set(directory.entries) | set(directory.durable_entries))
        kept = {}
        for name in names:
            now, then = directory.entries.get(name), directory.durable_entries.get(name)
            if now is not then:
                chosen = now if self.rng.random() < 0.5 else then
                self.counts.add("directory entry " + ("kept" if chosen is now else "lost"))
            else:
                chosen = now
            if chosen is not None:
                kept[name] = chosen
        directory.entries = kept
        directory.durable_entries = dict(kept)
        for inode in kept.values():
            if inode.directory:
                self._lose(inode, seen)
            elif inode.number not in seen:
                seen.add(inode.number)
                self._lose_file(inode)

    def _lose_file(self, inode: Inode) -> None:
        data, durable = bytes(inode.data), inode.durable
        if data == durable:
            return
        if inode.synced_since_cut and data.startswith(durable):
            extra = len(data) - len(durable)
            draw = self.rng.random()
            if draw < 0.35:
                kept = 0
            elif draw < 0.7:
                kept = self.rng.randrange(0, extra + 1)
            else:
                kept = extra
            if 0 < kept < extra:
                self.counts.add("unsynced bytes torn")
            elif kept == 0:
                self.counts.add("unsynced bytes lost")
            result = data[:len(durable) + kept]
            if kept and self.rng.random() < 0.1:
                # a sector written as zeros, as a file system that extends first may leave it
                zeros = self.rng.randrange(1, kept + 1)
                result = result[:len(result) - zeros] + b"\0" * zeros
                self.counts.add("unsynced bytes zeroed")
        else:
            result = data if self.rng.random() < 0.5 else durable
            self.counts.add("unsynced cut or overwrite " + ("kept" if result is data else "undone"))
        inode.data = bytearray(result)
        inode.durable = bytes(result)
        inode.synced_since_cut = True

    def flip_cold_bit(self) -> tuple[str, bytes] | None:
        """One bit changed in a file no process writes (a cold day file): its path and the line
        the bit is in as it was before (a newline flipped is its line's end), or None."""
        files: list[tuple[str, Inode]] = []
        self._files(self.root, "", files)
        cold = [(path, inode) for path, inode in files
                if inode.writers == 0 and inode.durable and path.endswith(".jsonl") and "/main/" in path]
        if not cold:
            return None
        path, inode = self.rng.choice(cold)
        at = self.rng.randrange(len(inode.data))
        start = inode.data.rfind(b"\n", 0, at) + 1
        end = inode.data.find(b"\n", at)
        before = bytes(inode.data[start:end if end >= 0 else len(inode.data)])
        inode.data[at] ^= 1 << self.rng.randrange(8)
        inode.durable = bytes(inode.data)
        self.counts.add("bit flipped in a cold file")
        return path, before

    def _files(self, directory: Inode, prefix: str, found: list) -> None:
        for name, inode in sorted(directory.entries.items()):
            path = f"{prefix}/{name}"
            if inode.directory:
                self._files(inode, path, found)
            else:
                found.append((path, inode))

    def read_durable(self, path: object) -> bytes | None:
        inode = self.lookup(path)
        return None if inode is None or inode.directory else bytes(inode.data)

    def listing(self, path: object) -> list[str]:
        inode = self.lookup(path)
        return sorted(inode.entries) if inode is not None and inode.directory else []

    def draw(self, rate: float) -> bool:
        return self.armed and rate > 0 and self.rng.random() < rate


class ProcessDisk:
    """One process's disk: the `Disk` of harness/memory/disk.py, on a SimDisk."""

    def __init__(self, machine: SimDisk, name: str, pid: int = 0):
        self.machine = machine
        self.name = name
        self.pid = pid
        self.alive = True
        self.fds: dict[int, Open] = {}
        self._next_fd = 3
        self.operations = 0
        self.kill_at: int | None = None  # killed inside its Nth operation
        self.on_kill = None  # called once when killed (the simulation stops its loop)

    # ---- life

    def kill(self) -> None:
        if not self.alive:
            return
        self.alive = False
        for fd in list(self.fds):
            self._release(fd)
        if self.on_kill is not None:
            self.on_kill()

    def _step(self, what: str) -> bool:
        """Each operation: refused once killed; True when this one is where the kill falls."""
        if not self.alive:
            raise Killed(f"{self.name} was killed")
        self.operations += 1
        return self.kill_at is not None and self.operations >= self.kill_at

    def _killed_here(self) -> None:
        self.machine.counts.add("process killed inside a disk operation")
        self.kill()
        raise Killed(f"{self.name} was killed")

    def _open(self, fd: int) -> Open:
        found = self.fds.get(fd)
        if found is None:
            raise oserror(errno.EBADF)
        return found

    def _release(self, fd: int) -> None:
        handle = self.fds.pop(fd)
        holders = self.machine.locks.get(handle.inode.number)
        if holders is not None:
            holders.pop(id(handle), None)
        if handle.flags & (os.O_WRONLY | os.O_RDWR):
            handle.inode.writers -= 1

    # ---- descriptors

    def open(self, path, flags, mode=0o777):
        if self._step("open"):
            self._killed_here()
        machine = self.machine
        inode = machine.lookup(path)
        if inode is None:
            if not flags & os.O_CREAT:
                raise oserror(errno.ENOENT, path)
            parent, name = machine.parent_of(path)
            inode = machine._inode(False, mode & 0o777)
            parent.entries[name] = inode
        elif flags & os.O_CREAT and flags & os.O_EXCL:
            raise oserror(errno.EEXIST, path)
        if inode.directory and flags & (os.O_WRONLY | os.O_RDWR):
            raise oserror(errno.EISDIR, path)
        if flags & os.O_DIRECTORY and not inode.directory:
            raise oserror(errno.ENOTDIR, path)
        if flags & os.O_TRUNC and not inode.directory:
            del inode.data[:]
            inode.synced_since_cut = False
        fd = self._next_fd
        self._next_fd += 1
        self.fds[fd] = Open(inode, str(path), flags)
        if flags & (os.O_WRONLY | os.O_RDWR):
            inode.writers += 1
        return fd

    def close(self, fd):
        if not self.alive:
            raise Killed(f"{self.name} was killed")
        self._open(fd)
        self._release(fd)

    def read(self, fd, length):
        if not self.alive:
            raise Killed(f"{self.name} was killed")
        handle = self._open(fd)
        data = self.pread(fd, length, handle.position)
        handle.position += len(data)
        return data

    def pread(self, fd, length, offset):
        if self._step("pread"):
            self._killed_here()
        handle = self._open(fd)
        if handle.inode.directory:
            raise oserror(errno.EISDIR, handle.path)
        if self.machine.draw(self.machine.faults.read_eio):
            self.machine.counts.add("EIO on read")
            raise oserror(errno.EIO, handle.path)
        return bytes(handle.inode.data[offset:offset + length])

    def write(self, fd, data):
        if not self.alive:
            raise Killed(f"{self.name} was killed")
        handle = self._open(fd)
        offset = len(handle.inode.data) if handle.flags & os.O_APPEND else handle.position
        written = self._write_at(fd, bytes(data), offset)
        handle.position = offset + written
        return written

    def pwrite(self, fd, data, offset):
        if not self.alive:
            raise Killed(f"{self.name} was killed")
        handle = self._open(fd)
        if handle.flags & os.O_APPEND:  # Linux: pwrite on an O_APPEND file appends
            offset = len(handle.inode.data)
        return self._write_at(fd, bytes(data), offset)

    def _write_at(self, fd: int, data: bytes, offset: int) -> int:
        killed = self._step("write")
        handle = self._open(fd)
        machine, inode = self.machine, handle.inode
        if not handle.flags & (os.O_WRONLY | os.O_RDWR):
            raise oserror(errno.EBADF, handle.path)
        taken = len(data)
        error = None
        # the lock's line is the machine's pid, of a length no seed decides: no fault is drawn on it,
        # so that the draws after it are the same in every replay
        faultless = handle.path.endswith("/chat/lock")
        if killed:
            taken = 0 if faultless else machine.rng.randrange(0, len(data) + 1)
        elif faultless:
            pass
        elif machine.draw(machine.faults.write_enospc):
            error, taken = errno.ENOSPC, machine.rng.randrange(0, len(data) + 1) if machine.rng.random() < 0.3 else 0
        elif machine.draw(machine.faults.write_eio):
            error, taken = errno.EIO, 0
        elif len(data) > 1 and machine.draw(machine.faults.short_write):
            taken = machine.rng.randrange(1, len(data))
            machine.counts.add("short write")
        if taken:
            if offset < len(inode.data):
                inode.synced_since_cut = False
            if offset > len(inode.data):
                inode.data.extend(b"\0" * (offset - len(inode.data)))
            inode.data[offset:offset + taken] = data[:taken]
        if killed:
            self._killed_here()
        if error is not None:
            if taken:  # part of it taken, then the disk filled: Linux returns the part
                machine.counts.add("ENOSPC after part of a write")
                return taken
            machine.counts.add("ENOSPC on write" if error == errno.ENOSPC else "EIO on write")
            raise oserror(error, handle.path)
        return taken

    def fsync(self, fd):
        if self._step("fsync"):
            self._killed_here()
        handle = self._open(fd)
        inode = handle.inode
        if self.machine.draw(self.machine.faults.fsync_eio):
            self.machine.counts.add("EIO on fsync")
            raise oserror(errno.EIO, handle.path)
        if inode.directory:
            inode.durable_entries = dict(inode.entries)
        else:
            inode.durable = bytes(inode.data)
            inode.synced_since_cut = True

    def ftruncate(self, fd, length):
        if self._step("ftruncate"):
            self._killed_here()
        handle = self._open(fd)
        data = handle.inode.data
        if length < len(data):
            del data[length:]
            handle.inode.synced_since_cut = False
        else:
            data.extend(b"\0" * (length - len(data)))

    def fstat(self, fd):
        if not self.alive:
            raise Killed(f"{self.name} was killed")
        return stat_of(self._open(fd).inode)

    def fchmod(self, fd, mode):
        if not self.alive:
            raise Killed(f"{self.name} was killed")
        self._open(fd).inode.mode = mode & 0o7777

    def set_blocking(self, fd, blocking):
        self._open(fd)

    def flock(self, fd, operation):
        if self._step("flock"):
            self._killed_here()
        handle = self._open(fd)
        holders = self.machine.locks.setdefault(handle.inode.number, {})
        if operation & fcntl.LOCK_UN:
            holders.pop(id(handle), None)
            return
        wanted = fcntl.LOCK_EX if operation & fcntl.LOCK_EX else fcntl.LOCK_SH
        others = [mode for key, (owner, mode) in holders.items() if key != id(handle)]
        if others and (wanted == fcntl.LOCK_EX or fcntl.LOCK_EX in others):
            raise BlockingIOError(errno.EWOULDBLOCK, os.strerror(errno.EWOULDBLOCK))
        holders[id(handle)] = (handle, wanted)

    # ---- paths

    def stat(self, path, follow_symlinks=True):
        if not self.alive:
            raise Killed(f"{self.name} was killed")
        inode = self.machine.lookup(path)
        if inode is None:
            raise oserror(errno.ENOENT, path)
        return stat_of(inode)

    def chmod(self, path, mode):
        if self._step("chmod"):
            self._killed_here()
        inode = self.machine.lookup(path)
        if inode is None:
            raise oserror(errno.ENOENT, path)
        inode.mode = mode & 0o7777

    def mkdir(self, path, mode):
        if self._step("mkdir"):
            self._killed_here()
        parent, name = self.machine.parent_of(path)
        if name in parent.entries:
            raise oserror(errno.EEXIST, path)
        parent.entries[name] = self.machine._inode(True, mode & 0o777)

    def listdir(self, path):
        if not self.alive:
            raise Killed(f"{self.name} was killed")
        inode = self.machine.lookup(path)
        if inode is None:
            raise oserror(errno.ENOENT, path)
        if not inode.directory:
            raise oserror(errno.ENOTDIR, path)
        names = sorted(inode.entries)
        self.machine.rng.shuffle(names)
        return names

    def replace(self, source, target):
        if self._step("replace"):
            self._killed_here()
        machine = self.machine
        from_dir, from_name = machine.parent_of(source)
        to_dir, to_name = machine.parent_of(target)
        inode = from_dir.entries.get(from_name)
        if inode is None:
            raise oserror(errno.ENOENT, source)
        del from_dir.entries[from_name]
        to_dir.entries[to_name] = inode

    def unlink(self, path):
        if self._step("unlink"):
            self._killed_here()
        parent, name = self.machine.parent_of(path)
        inode = parent.entries.get(name)
        if inode is None:
            raise oserror(errno.ENOENT, path)
        if inode.directory:
            raise oserror(errno.EISDIR, path)
        del parent.entries[name]

    def process_id(self):
        return self.pid


def stat_of(inode: Inode) -> os.stat_result:
    kind = stat.S_IFDIR if inode.directory else stat.S_IFREG
    size = 4096 if inode.directory else len(inode.data)
    return os.stat_result((kind | inode.mode, inode.number, 1, 1, os.getuid(), os.getgid(), size, 0, 0, 0))
