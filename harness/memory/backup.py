"""A backup of the chat, its restore test, and a restore into a new home [gist §1: "the log is
your life"].

**What is copied.** The rows of harness/memory/home.py's table whose kind is truth or settings:
the day files, the tree, the damage record, the subagents' logs, the usage, the inbox, the
images, the forget record, config.toml and instructions.md. Never the key (a secret), never a
checkpoint or a cache (view.json, the indexes, the search database, the history): each is made
again from the truth at the first open.

**A folder backup** (`DEST` a folder, a mounted drive) is laid out as

    DEST/manifest.json          what the backup holds, replaced whole (write, fsync, rename)
    DEST/data/<path>[~G]        an append-only file of the home (a day file, a log), generation G
    DEST/objects/<sha256>       a file replaced whole (config.toml, an image), by its hash

and the manifest names, for each file of the home, its size, the SHA-256 of its first `size`
bytes and where it is stored [S20]. The logs only grow, so a backup is incremental: for a file
the last manifest holds, the live file's first `size` bytes and the stored copy's are hashed, and
when both match the last manifest only the bytes past them are appended to the stored copy;
otherwise (a file rewritten by `ever forget`, a copy damaged) the file is written whole under a
new generation's name. A stored file may run longer than its manifest says (a backup killed
while it appended): only its first `size` bytes are read. A new manifest replaces the old once
everything it names is fsync'd; only then are the files no manifest names removed. A backup
killed at any instant leaves the last manifest and every byte it names [S21].

**A restic backup** (`DEST` written `restic:REPOSITORY`, restic's own repository syntax after the
colon) is the same layout made in a temporary folder, then `restic backup`: restic's encryption,
deduplication and `restic check` on top. The password is restic's: RESTIC_PASSWORD,
RESTIC_PASSWORD_FILE or RESTIC_PASSWORD_COMMAND; Ever keeps none, so a lost home loses no way
into its backup.

**The files read** are taken as they stand at one instant (`frozen`): every append of the chat is
one write then fsync, made on the owner's thread, so the owner's `quiesce` (harness/owner/owner.py)
takes each log's size between two appends and the copy runs beside the turns, reading no byte past
those sizes. A backup made by another process reads each log up to its last newline.

**The check** (`check`, `ever backup --check`) restores the backup into a temporary home,
verifying every stored file against the manifest, then each against the live file (an
append-only file must be a prefix of the live one), then opens the restored home, which rebuilds
the view from the logs alone, and compares it with the live view byte for byte when the live chat
holds the backup's messages. Its outcome is one sentence, and a `Verdict`.

**A restore** (`restore`) goes into an empty home only (the key alone may be there), never while
an owner runs, and only from a backup whose every file matches its manifest; `upto` cuts it at a
message id (the tree keeps the nodes built by then; the compactor builds the rest).

Every file operation on either side goes through the disk it is given (harness/memory/disk.py),
so the simulation can kill or fail any of them; restic's own are restic's.
"""

import hashlib
import json
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from harness.memory import home as table
from harness.memory.backup_state import record_state
from harness.memory.daylog import StoreError, message_id, node_ids
from harness.memory.disk import REAL_DISK, Disk
from harness.memory.logfile import (
    exists,
    fsync_directory,
    is_directory,
    make_directory,
    make_parents,
    open_file,
    read_at,
    read_file,
    remove,
    write_all,
    write_whole,
)
from harness.memory.planner import Config

MANIFEST = "manifest.json"
FORMAT = 1
CHUNK_BYTES = 1 << 20
RESTIC = "restic:"
# the rows a backup copies, and of those the ones that only grow (appended, never rewritten but by
# `ever forget`)
COPIED = (table.TRUTH, table.SETTINGS)
APPENDED = ("messages", "nodes", "damage", "set aside", "subagents", "usage", "forgotten")


class BackupError(Exception):
    """A backup, check or restore that cannot be done, or found the backup wrong: one sentence."""


@dataclass(frozen=True)
class Entry:
    """One file of the home in a backup: `size` bytes, whose SHA-256 is `sha256`, at `stored`."""

    path: str  # relative to the home
    size: int
    sha256: str
    stored: str  # relative to the backup's folder
    appended: bool  # the live file only grows: it must start with these bytes

    def as_dict(self) -> dict:
        return {"path": self.path, "size": self.size, "sha256": self.sha256, "stored": self.stored,
                "appended": self.appended}


@dataclass(frozen=True)
class Manifest:
    taken: str  # when, in UTC, to the second
    messages: int  # the messages the backup's logs hold (the last id + 1)
    entries: tuple[Entry, ...]

    def by_path(self) -> dict[str, Entry]:
        return {entry.path: entry for entry in self.entries}

    @property
    def bytes(self) -> int:
        return sum(entry.size for entry in self.entries)

    def encode(self) -> bytes:
        return json.dumps({"format": FORMAT, "taken": self.taken, "messages": self.messages,
                           "files": [entry.as_dict() for entry in self.entries]},
                          ensure_ascii=False, indent=1).encode("utf-8") + b"\n"


@dataclass(frozen=True)
class Verdict:
    """What a check found: `passed`, and one sentence saying what passed or what is wrong."""

    passed: bool
    sentence: str
    manifest: Manifest | None = None


@dataclass
class Frozen:
    """The size of each append-only file of the home at one instant, between two appends."""

    sizes: dict[str, int] = field(default_factory=dict)


# ---- the home's side ----


def copied(place: table.Place | None) -> bool:
    return place is not None and not place.folder and not place.holds and place.kind in COPIED


def live_files(home: Path, disk: Disk = REAL_DISK) -> list[tuple[str, table.Place]]:
    """Every file of the home a backup copies, relative to the home, in name order."""
    found = []
    folders = [""]
    while folders:
        folder = folders.pop()
        try:
            names = disk.listdir(home / folder) if folder else disk.listdir(home)
        except FileNotFoundError:
            continue
        for name in names:
            relative = folder + name
            status = disk.stat(home / relative, follow_symlinks=False)
            if stat.S_ISDIR(status.st_mode):
                place = table.place_of(relative + "/")
                if place is not None and not place.holds and place.kind in COPIED:
                    folders.append(relative + "/")
            elif stat.S_ISREG(status.st_mode):
                place = table.place_of(relative)
                if copied(place):
                    found.append((relative, place))
    return sorted(found)


def frozen(home: Path, disk: Disk = REAL_DISK) -> Frozen:
    """The append-only files' sizes now: called where no append runs (the owner's thread, between
    two appends), each size ends a whole, fsync'd line."""
    sizes = {}
    for relative, place in live_files(home, disk):
        if place.name in APPENDED:
            sizes[relative] = disk.stat(home / relative).st_size
    return Frozen(sizes)


def whole_lines_end(fd: int, size: int, disk: Disk) -> int:
    """Where the last whole line of a file's first `size` bytes ends: a line being written (by a
    process that owns the chat while another backs it up) is left for the next backup."""
    end = size
    while end > 0:
        start = max(0, end - 65536)
        data = read_at(fd, end - start, start, disk)
        cut = data.rfind(b"\n")
        if cut >= 0:
            return start + cut + 1
        end = start
    return 0


def hash_range(fd: int, start: int, end: int, disk: Disk, digest=None):
    """The digest fed the bytes from `start` to `end` of `fd`; None if the file ends before `end`."""
    digest = digest or hashlib.sha256()
    at = start
    while at < end:
        data = read_at(fd, min(CHUNK_BYTES, end - at), at, disk)
        if not data:
            return None
        digest.update(data)
        at += len(data)
    return digest


def hash_file(path: Path, size: int, disk: Disk) -> str | None:
    """The SHA-256 of the first `size` bytes of `path`; None when it is missing or shorter."""
    try:
        fd = disk.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        digest = hash_range(fd, 0, size, disk)
    finally:
        disk.close(fd)
    return None if digest is None else digest.hexdigest()


def messages_in(home: Path, disk: Disk = REAL_DISK, sizes: dict[str, int] | None = None) -> int:
    """The messages the day files hold, as far as `sizes` says: the last line's id + 1."""
    main = home / "chat" / "main"
    try:
        names = sorted(name for name in disk.listdir(main) if name.endswith(".jsonl"))
    except FileNotFoundError:
        return 0
    for name in reversed(names):
        path = main / name
        if sizes is not None and f"chat/main/{name}" not in sizes:
            continue  # made after the instant the backup stands for
        size = disk.stat(path).st_size if sizes is None else sizes[f"chat/main/{name}"]
        data = read_file(path, disk, bytes_max=size)
        for line in reversed(data.split(b"\n")):
            i = message_id(line)
            if i is not None:
                return i + 1
    return 0


# ---- the backup's side ----


def make_folders(root: Path, relative: str, disk: Disk) -> None:
    """Every folder of `relative` (a file's path under `root`), each 0700; `root` must exist."""
    at = root
    for part in Path(relative).parent.parts:
        at = at / part
        # made, or found made (by a backup killed before it fsync'd the parent): durable either way
        make_directory(at, disk)


def load_manifest(dest: Path, disk: Disk = REAL_DISK) -> Manifest:
    """The manifest of the folder backup in `dest`; BackupError saying why there is none."""
    try:
        return load_manifest_file(dest / MANIFEST, disk)
    except FileNotFoundError:
        raise BackupError(f"there is no backup in {dest} (no {MANIFEST})") from None


def load_manifest_file(path: Path, disk: Disk = REAL_DISK) -> Manifest:
    """A manifest (the last, or a snapshot's); FileNotFoundError, or BackupError saying what is wrong."""
    try:
        data = read_file(path, disk, bytes_max=256 << 20)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise BackupError(f"{path} cannot be read ({error.strerror or error})") from None
    try:
        raw = json.loads(data)
        if raw.get("format") != FORMAT:
            raise ValueError(f"format {raw.get('format')!r}, where this Ever reads {FORMAT}")
        entries = tuple(Entry(str(e["path"]), int(e["size"]), str(e["sha256"]), str(e["stored"]),
                              bool(e["appended"])) for e in raw["files"])
        for entry in entries:
            if entry.size < 0 or ".." in Path(entry.stored).parts or entry.stored.startswith("/") \
                    or ".." in Path(entry.path).parts or entry.path.startswith("/"):
                raise ValueError(f"a file named {entry.path!r} stored at {entry.stored!r}")
        return Manifest(str(raw["taken"]), int(raw["messages"]), entries)
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise BackupError(f"{path} is damaged ({error}): the backup cannot be read") from None


def stored_name(relative: str, generation: int) -> str:
    return f"data/{relative}" + (f"~{generation}" if generation else "")


def generation_of(stored: str) -> int:
    head, tilde, tail = stored.rpartition("~")
    return int(tail) if tilde and tail.isdigit() else 0


def copy_appended(home: Path, dest: Path, relative: str, size: int | None, last: Entry | None,
                  disk: Disk) -> Entry:
    """One append-only file: the bytes past the last backup appended to its stored copy when both
    still start as the last manifest says, else the file written whole under a new generation."""
    source = disk.open(home / relative, os.O_RDONLY | os.O_CLOEXEC)
    try:
        end = whole_lines_end(source, disk.fstat(source).st_size if size is None else size, disk)
        if last is not None and last.appended and last.size <= end:
            digest = hash_range(source, 0, last.size, disk)
            if digest is not None and digest.hexdigest() == last.sha256 \
                    and hash_file(dest / last.stored, last.size, disk) == last.sha256:
                target = open_file(dest / last.stored, os.O_RDWR, disk)
                try:
                    if disk.fstat(target).st_size != last.size:
                        disk.ftruncate(target, last.size)  # what a killed backup appended
                    copy_range(source, target, last.size, end, disk, digest)
                    disk.fsync(target)
                finally:
                    disk.close(target)
                return Entry(relative, end, digest.hexdigest(), last.stored, True)
        generation = generation_of(last.stored) + 1 if last is not None else 0
        stored = stored_name(relative, generation)
        make_folders(dest, stored, disk)
        target = open_file(dest / stored, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, disk)
        try:
            digest = hashlib.sha256()
            copy_range(source, target, 0, end, disk, digest)
            disk.fsync(target)
        finally:
            disk.close(target)
        fsync_directory((dest / stored).parent, disk)
        return Entry(relative, end, digest.hexdigest(), stored, True)
    finally:
        disk.close(source)


def copy_range(source: int, target: int, start: int, end: int, disk: Disk, digest) -> None:
    """Bytes `start` to `end` of `source` written at `start` of `target`, and fed to `digest`."""
    at = start
    while at < end:
        data = read_at(source, min(CHUNK_BYTES, end - at), at, disk)
        if not data:
            raise BackupError(f"a file of the home ended at byte {at:,} while it was copied")
        written = disk.pwrite(target, data, at)
        while written < len(data):
            written += disk.pwrite(target, data[written:], at + written)
        digest.update(data)
        at += len(data)


def copy_whole(home: Path, dest: Path, relative: str, disk: Disk) -> Entry:
    """A file replaced whole: stored by its hash, once."""
    data = read_file(home / relative, disk)
    sha = hashlib.sha256(data).hexdigest()
    stored = f"objects/{sha}"
    if hash_file(dest / stored, len(data), disk) != sha or disk.stat(dest / stored).st_size != len(data):
        make_folders(dest, stored, disk)
        write_whole(dest / stored, data, disk)
    return Entry(relative, len(data), sha, stored, False)


def folder_backup(home: Path, dest: Path, disk: Disk = REAL_DISK, at: Frozen | None = None,
                  now: datetime | None = None, history: bool = True) -> Manifest:
    """Back the home up into the folder `dest` (made if missing); the new manifest. `history`:
    the snapshots the policy keeps stay (`ever forget`'s backup keeps none but the new one)."""
    try:  # made, or found made: its name durable in its parent either way
        make_directory(dest, disk)
    except FileNotFoundError:
        raise BackupError(f"{dest.parent} does not exist: make it, or mount the drive, first") from None
    try:
        last = load_manifest_file(dest / MANIFEST, disk).by_path()
    except FileNotFoundError:
        last = {}  # a new folder, or one whose first backup was killed before its manifest
    except BackupError as error:
        # taken for a folder with no backup, every file would be written anew under its first
        # name, cut to nothing as it opens: the copies the last manifest and the snapshots name,
        # and a kill then would leave no backup valid [S21]
        raise BackupError(f"{error}: nothing was written; back up again, or into a new folder") from None
    entries = []
    for relative, place in live_files(home, disk):
        if place.name in APPENDED:
            size = at.sizes.get(relative) if at is not None else None
            if at is not None and size is None:
                continue  # made after the instant the backup stands for: the next one takes it
            entries.append(copy_appended(home, dest, relative, size, last.get(relative), disk))
        else:
            entries.append(copy_whole(home, dest, relative, disk))
    if any(not entry.appended for entry in entries):
        # an object found whole may be one a killed backup wrote and never made durable in its folder
        fsync_directory(dest / "objects", disk)
    sizes = {entry.path: entry.size for entry in entries}
    taken = (now or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")
    manifest = Manifest(taken, messages_in(home, disk, sizes), tuple(entries))
    write_whole(dest / MANIFEST, manifest.encode(), disk)
    kept = keep_history(dest, manifest, disk, history)
    if kept is not None:
        sweep(dest, kept, disk)
    return manifest


def stored_files(dest: Path, disk: Disk) -> Iterator[str]:
    """Every file under the backup's `data/` and `objects/`, relative to `dest`."""
    folders = ["data", "objects"]
    while folders:
        folder = folders.pop()
        try:
            names = disk.listdir(dest / folder)
        except (FileNotFoundError, NotADirectoryError):
            continue
        for name in names:
            relative = f"{folder}/{name}"
            if is_directory(dest / relative, disk):
                folders.append(relative)
            else:
                yield relative


def sweep(dest: Path, kept: list[Manifest], disk: Disk) -> None:
    """The stored files no kept manifest names removed: the last manifest is on disk."""
    named = {entry.stored for manifest in kept for entry in manifest.entries}
    for relative in list(stored_files(dest, disk)):
        if relative not in named:
            remove(dest / relative, disk)
    remove(dest / (MANIFEST + ".tmp"), disk)


# ---- the folder's history [S32] ----

SNAPSHOTS = "snapshots"
# which snapshots stay, as `restic forget --keep-last 10 --keep-hourly 24 --keep-daily 30` keeps them
KEEP_LAST, KEEP_HOURLY, KEEP_DAILY = 10, 24, 30


@dataclass(frozen=True)
class Snapshot:
    """One backup of a folder's history: `id` (its name in `snapshots/`), its manifest."""

    id: str
    manifest: Manifest


def snapshot_id(taken: str, taken_ids: set[str]) -> str:
    """A snapshot's name: when it was taken, in UTC, to the second (another in the same second gets
    `-002`, ...: the names sort as the snapshots were taken)."""
    base = taken.replace("+00:00", "Z").replace(":", "")
    name, k = base, 1
    while name in taken_ids:
        k += 1
        name = f"{base}-{k:03d}"
    return name


def snapshot_ids(dest: Path, disk: Disk = REAL_DISK) -> list[str]:
    """The snapshots of the folder backup in `dest`, oldest first."""
    try:
        names = disk.listdir(dest / SNAPSHOTS)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(name[:-5] for name in names if name.endswith(".json"))


def load_snapshot(dest: Path, snapshot: str, disk: Disk = REAL_DISK) -> Manifest:
    """The manifest of snapshot `snapshot` ("latest": the last manifest); BackupError naming the
    snapshots there are when there is no such one."""
    if snapshot == "latest":
        return load_manifest(dest, disk)
    ids = snapshot_ids(dest, disk)
    found = [one for one in ids if one == snapshot] or [one for one in ids if one.startswith(snapshot)]
    if len(found) != 1:
        have = f"{ids[0]} to {ids[-1]}" if ids else "none"
        raise BackupError(f"{dest} has {'no' if not found else 'more than one'} snapshot {snapshot!r} "
                          f"(its {len(ids)} snapshot{'' if len(ids) == 1 else 's'}: {have}; `ever backup "
                          f"--snapshots {dest}` lists them)")
    folder = dest / SNAPSHOTS
    try:
        return load_manifest_file(folder / f"{found[0]}.json", disk)
    except FileNotFoundError:
        raise BackupError(f"the snapshot {found[0]} of {dest} is gone") from None


def snapshots(dest: Path, disk: Disk = REAL_DISK) -> list[Snapshot]:
    """Every snapshot of the folder backup in `dest` that reads, oldest first."""
    found = []
    for one in snapshot_ids(dest, disk):
        try:
            found.append(Snapshot(one, load_manifest_file(dest / SNAPSHOTS / f"{one}.json", disk)))
        except (BackupError, FileNotFoundError):
            continue
    return found


def kept_ids(ids: list[str]) -> set[str]:
    """The snapshots the policy keeps: the last KEEP_LAST, the newest of each of the last
    KEEP_HOURLY hours and of each of the last KEEP_DAILY days that hold one."""
    kept = set(ids[-KEEP_LAST:])
    for width, count in ((len("2026-01-01T12"), KEEP_HOURLY), (len("2026-01-01"), KEEP_DAILY)):
        newest: dict[str, str] = {}
        for one in ids:  # oldest first: the last one of a period wins
            newest[one[:width]] = one
        kept |= set(sorted(newest.values())[-count:])
    return kept


def keep_history(dest: Path, manifest: Manifest, disk: Disk, history: bool) -> list[Manifest] | None:
    """The new manifest kept as a snapshot, the ones the policy no longer keeps removed (all others
    without `history`); the manifests that stay, or None when one cannot be read (then no stored
    file is removed: what it names is not known)."""
    ids = snapshot_ids(dest, disk)
    name = snapshot_id(manifest.taken, set(ids))
    make_directory(dest / SNAPSHOTS, disk)  # its name durable, if a killed backup made it
    write_whole(dest / SNAPSHOTS / f"{name}.json", manifest.encode(), disk)
    ids = sorted(ids + [name])
    keep = kept_ids(ids) if history else {name}
    for one in ids:
        if one not in keep:
            remove(dest / SNAPSHOTS / f"{one}.json", disk)
    for leftover in disk.listdir(dest / SNAPSHOTS):
        if leftover.endswith(".tmp"):  # a snapshot a killed backup was writing
            remove(dest / SNAPSHOTS / leftover, disk)
    kept = [manifest]
    for one in sorted(keep - {name}):
        try:
            kept.append(load_manifest_file(dest / SNAPSHOTS / f"{one}.json", disk))
        except (BackupError, FileNotFoundError):
            return None
    return kept


# ---- restic ----


def is_restic(dest: str) -> bool:
    return dest.startswith(RESTIC)


def restic_command(repository: str, *args: str) -> list[str]:
    return ["restic", "--repo", repository, "--no-cache", "--quiet", *args]


def restic(repository: str, *args: str, cwd: str | None = None) -> str:
    """restic's output; BackupError with its last line when it fails or is missing."""
    if shutil.which("restic") is None:
        raise BackupError("restic is not installed (apt-get install restic); a folder backup needs nothing")
    if not any(os.environ.get(name) for name in ("RESTIC_PASSWORD", "RESTIC_PASSWORD_FILE",
                                                   "RESTIC_PASSWORD_COMMAND")):
        raise BackupError("a restic repository needs its password: set RESTIC_PASSWORD_FILE (or "
                          "RESTIC_PASSWORD); Ever keeps none, so a lost home loses no way into the backup")
    done = subprocess.run(restic_command(repository, *args), capture_output=True, text=True, cwd=cwd)
    if done.returncode != 0:
        said = (done.stderr.strip() or done.stdout.strip() or f"exit {done.returncode}").splitlines()[-1]
        raise BackupError(f"restic {args[0]} on {repository} failed: {said}")
    return done.stdout


def restic_ready(repository: str) -> None:
    """The repository, made when it does not exist yet."""
    try:
        restic(repository, "cat", "config")
    except BackupError as error:
        if "restic is not installed" in str(error) or "needs its password" in str(error):
            raise
        restic(repository, "init")


def restic_backup(home: Path, repository: str, disk: Disk, at: Frozen | None, now: datetime | None) -> Manifest:
    restic_ready(repository)
    with tempfile.TemporaryDirectory(prefix="ever-backup-") as staging:
        folder = Path(staging) / "ever"
        manifest = folder_backup(home, folder, disk, at, now, history=False)  # restic keeps the history
        restic(repository, "backup", "--host", "ever", "--tag", "ever", ".", cwd=str(folder))
    return manifest


def restic_restored(repository: str, into: Path, snapshot: str = "latest") -> Path:
    """The snapshot restored under `into`; the folder holding its manifest."""
    restic(repository, "restore", snapshot, "--target", str(into))
    for folder, _, names in os.walk(into):
        if MANIFEST in names:
            return Path(folder)
    raise BackupError(f"the snapshot {snapshot} of {repository} holds no {MANIFEST}: it is not Ever's")


def restic_snapshots(repository: str) -> list[str]:
    raw = restic(repository, "snapshots", "--tag", "ever", "--json")
    return [snapshot["id"] for snapshot in json.loads(raw or "[]")]


# ---- what the commands call ----


def backup(home: Path, dest: str, disk: Disk = REAL_DISK, at: Frozen | None = None,
           now: datetime | None = None, history: bool = True) -> Manifest:
    """Back the home up into `dest` (a folder, or `restic:REPOSITORY`); the manifest written. `at`:
    the instant it stands for (the owner's `quiesce`); else each log up to its last newline.
    `history`: a folder's older snapshots stay, as its policy says [S32] (`ever forget`: none)."""
    if not table_home(home, disk):
        raise BackupError(f"there is no chat in {home} to back up")
    if is_restic(dest):
        manifest = restic_backup(home, dest[len(RESTIC):], disk, at, now)
    else:
        manifest = folder_backup(home, Path(dest).absolute(), disk, at, now, history)
    record_state(home, dest, disk, taken=manifest.taken, messages=manifest.messages)
    return manifest


def table_home(home: Path, disk: Disk) -> bool:
    return is_directory(home / "chat" / "main", disk)


def verified(dest: Path, manifest: Manifest, disk: Disk) -> str:
    """"" when every stored file holds what the manifest says, else the sentence for the first
    that does not."""
    for entry in manifest.entries:
        path = dest / entry.stored
        try:
            size = disk.stat(path).st_size
        except (FileNotFoundError, NotADirectoryError):
            return f"{path} is missing: the manifest names it for {entry.path}"
        if size < entry.size or (not entry.appended and size != entry.size):
            return (f"{path} is cut: {size:,} bytes where the manifest says {entry.size:,} for "
                    f"{entry.path}")
        if hash_file(path, entry.size, disk) != entry.sha256:
            return f"{path} has changed: its bytes are not the ones the manifest hashed for {entry.path}"
    return ""


def unpack(dest: Path, manifest: Manifest, home: Path, source_disk: Disk, disk: Disk,
           upto: int | None = None) -> None:
    """Each stored file's first `size` bytes (checked already) written into `home`, each fsync'd,
    its folder too; `upto` cuts the logs at that message. A restic snapshot, restored into a
    temporary folder, is read from the machine's disk (`source_disk`)."""
    if not is_directory(home, disk):
        make_directory(home, disk)
    for entry in manifest.entries:
        data = read_file(dest / entry.stored, source_disk, bytes_max=entry.size)
        if upto is not None:
            if entry.path == "chat/inbox.jsonl":
                continue  # what waited then is not what the cut chat waits for
            data = cut_at(entry.path, data, upto)
            if data is None:
                continue
        make_folders(home, entry.path, disk)
        fd = open_file(home / entry.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, disk)
        try:
            write_all(fd, data, disk)
            disk.fsync(fd)
        finally:
            disk.close(fd)
        fsync_directory((home / entry.path).parent, disk)


def cut_at(relative: str, data: bytes, upto: int) -> bytes | None:
    """A day file cut at message `upto`: messages up to it, nodes built from them alone by then;
    None for a file that holds none of them. Other files as they are."""
    if relative.startswith("chat/main/"):
        kept = []
        for line in data.split(b"\n"):
            i = message_id(line)
            if i is not None and i > upto:
                break
            if line:
                kept.append(line + b"\n")
        return b"".join(kept) or None
    if relative.startswith("chat/tree/"):
        kept = []
        for line in data.split(b"\n"):
            ids = node_ids(line)
            if ids is None:
                continue
            l, i = ids
            T = json.loads(line).get("T", 0)
            if ((i + 1) << l) <= upto + 1 and T <= upto + 1:
                kept.append(line + b"\n")
        return b"".join(kept) or None
    return data


def empty_home_problem(home: Path, disk: Disk) -> str:
    """"" when `home` is empty enough to restore into (missing, empty, or the key alone)."""
    from harness.memory.lock import ChatBusy, ChatLock

    if is_directory(home / "chat", disk) and exists(home / "chat" / "lock", disk):
        lock = ChatLock(home / "chat", disk)
        try:
            lock.take(read_only=True)
        except ChatBusy as busy:
            return f"{busy} A restore goes into an empty home only, and never while an owner runs"
        finally:
            lock.release()
    try:
        names = disk.listdir(home)
    except FileNotFoundError:
        return ""
    others = sorted(name for name in names if name != "key")
    if others:
        return (f"{home} is not empty (it holds {', '.join(others[:3])}"
                f"{' and more' if len(others) > 3 else ''}): a restore goes into an empty home only, "
                "so nothing of a chat is overwritten; set EVER_HOME to a new folder")
    return ""


def restore(src: str, home: Path, upto: int | None = None, disk: Disk = REAL_DISK,
            snapshot: str = "latest") -> Manifest:
    """The backup in `src` (a folder or `restic:REPOSITORY`) into the empty `home`, each file
    checked against the manifest first; `upto` cuts it at that message id; `snapshot`: an older
    one (a folder's snapshot id [S32], or restic's)."""
    problem = empty_home_problem(home, disk)
    if problem:
        raise BackupError(problem)
    if is_restic(src):
        with tempfile.TemporaryDirectory(prefix="ever-restore-") as staging:
            folder = restic_restored(src[len(RESTIC):], Path(staging), snapshot)
            return restore_folder(folder, home, upto, REAL_DISK, disk)
    return restore_folder(Path(src).absolute(), home, upto, disk, disk, snapshot)


def restore_folder(dest: Path, home: Path, upto: int | None, source_disk: Disk, disk: Disk,
                   snapshot: str = "latest") -> Manifest:
    manifest = load_snapshot(dest, snapshot, source_disk)
    wrong = verified(dest, manifest, source_disk)
    if wrong:
        raise BackupError(f"{wrong}; nothing was restored")
    if upto is not None and not 0 <= upto < manifest.messages:
        raise BackupError(f"the backup holds messages 0 to {manifest.messages - 1}; there is no message {upto} "
                          "to restore up to")
    if not is_directory(home, disk):
        make_parents(home.parent, disk)
        make_directory(home, disk)
    make_directory(home / "chat", disk)
    from harness.memory.lock import ChatLock

    lock = ChatLock(home / "chat", disk)
    lock.take(read_only=False)  # no owner opens the chat while it is written
    try:
        unpack(dest, manifest, home, source_disk, disk, upto)
    finally:
        lock.release()
    return manifest


def check(home: Path, dest: str, disk: Disk = REAL_DISK,
          live_view: Callable[[], tuple[int, str]] | None = None, config: Config = Config()) -> Verdict:
    """The restore test: the latest backup in `dest` restored into a temporary home, each file
    checked against the manifest and the live file, the view rebuilt and compared with the live
    one (`live_view()` gives the live (messages, view); None: the live home opened read only), both
    at the sizes the live planner works at (`config`)."""
    try:
        verdict = checked(home, dest, disk, live_view, config)
    except BackupError as error:
        verdict = Verdict(False, f"The backup in {dest} is not sound: {error}.")
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        verdict = Verdict(False, f"The backup in {dest} could not be checked: {where}{error.strerror or error}.")
    record_state(home, dest, disk, checked=datetime.now(UTC).isoformat(timespec="seconds"),
                 check="passed" if verdict.passed else "failed", sentence=verdict.sentence)
    return verdict


def checked(home: Path, dest: str, disk: Disk, live_view, config: Config) -> Verdict:
    with tempfile.TemporaryDirectory(prefix="ever-check-") as scratch:
        if is_restic(dest):
            repository = dest[len(RESTIC):]
            restic(repository, "check")
            folder, source_disk = restic_restored(repository, Path(scratch) / "snapshot"), REAL_DISK
        else:
            folder, source_disk = Path(dest).absolute(), disk
        manifest = load_manifest(folder, source_disk)
        wrong = verified(folder, manifest, source_disk)
        if wrong:
            raise BackupError(wrong)
        for entry in manifest.entries:
            live = home / entry.path
            if not entry.appended:
                continue  # a setting changed since is the person's; an image never changes
            if hash_file(live, entry.size, disk) != entry.sha256:
                raise BackupError(f"the live {live} does not start with the backup's {entry.size:,} bytes "
                                  "of it: the manifest is stale, or the live file was rewritten since "
                                  "(back up again)")
        restored = Path(scratch) / "home"
        unpack(folder, manifest, restored, source_disk, REAL_DISK)
        try:
            messages, view = rebuilt_view(restored, config=config)
        except StoreError as error:
            # the copy's logs hash as the manifest says and still do not open: they were backed up
            # so from a chat that does not open either (its restored folder is gone by now)
            raise BackupError(f"its logs, restored, do not open: {str(error).replace(f'{restored}/', '')}") from error
        if messages != manifest.messages:
            raise BackupError(f"its logs give {messages:,} messages where the manifest says {manifest.messages:,}")
        if live_view is not None:
            live_messages, live_text = live_view()
        else:
            live_messages, live_text = rebuilt_view(home, read_only=True, config=config)
        files = f"{len(manifest.entries):,} files ({manifest.bytes:,} bytes)"
        if live_messages == messages:
            if live_text != view:
                raise BackupError(f"the view rebuilt from its {messages:,} messages is not the live view "
                                  f"(they differ from byte {first_difference(view, live_text):,})")
            compared = (f"the view rebuilt from its {messages:,} messages is the live view, byte for byte")
        else:
            compared = (f"the live chat has {live_messages - messages:,} messages more, so the view rebuilt "
                        f"from its {messages:,} was not compared with the live one")
        return Verdict(True, f"The backup in {dest} of {manifest.taken} passed its check: {files} match their "
                             f"manifest and the live files, and {compared}.", manifest)


def first_difference(a: str, b: str) -> int:
    ab, bb = a.encode(), b.encode()
    for k, (x, y) in enumerate(zip(ab, bb)):
        if x != y:
            return k
    return min(len(ab), len(bb))


def rebuilt_view(home: Path, read_only: bool = False, config: Config = Config()) -> tuple[int, str]:
    """The messages and the view of the chat in `home`, from its logs (and checkpoint)."""
    from harness.memory.service import Memory

    memory = Memory.open(home, config, read_only=read_only)
    try:
        return memory.planner.T, memory.render()
    finally:
        memory.close()
