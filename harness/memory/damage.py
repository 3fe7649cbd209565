"""Damage in the logs: which lines are damaged, the ids lost, and the record that sets them aside
[S13].

The day files are never edited, so a damaged line stays where it is. What is decided about it is
appended to a record of its own, which the index consults at every parse:

    chat/damage/record.jsonl           one JSON object a line, appended and fsync'd, never edited:
        {"lost":[4,6],"why":"..."}     ids 4 to 6 were given once and are in no line the reader
                                       takes: a gap over them is accepted, and no id is given twice
        {"set_aside":"main/2026-10-08.jsonl","line":5,"at":312,"bytes":87,"sha256":"...",
         "copy":"damage/main-2026-10-08.jsonl"}
                                       the line of `bytes` bytes at byte `at` of that day file is
                                       skipped without a word; its bytes are in `copy`
    chat/damage/main-2026-10-08.jsonl  the lines set aside from main/2026-10-08.jsonl, byte for
                                       byte, each followed by a newline

The record is written in two places only: by the store at open, before it gives an id past ids it
finds lost (a day file cut short: the highest id ever given is the most of the index's last saved
count, the record's lost ids, and the id a damaged line still shows when it is the next one), and
by `ever doctor --repair`, which `examine`s the logs and `repair`s them here.
"""

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from harness.memory.daylog import DAY_FILE, READ_CHUNK_BYTES, message_id
from harness.memory.disk import REAL_DISK, Disk
from harness.memory.logfile import (
    LogFile,
    encode_line,
    fsync_directory,
    is_file,
    make_directory,
    names_in,
    read_at,
    read_file,
    remove,
)

RECORD = "damage/record.jsonl"
RECORD_BYTES_MAX = 64 << 20  # a record of lines set aside: far smaller than this
# [S13] a lost range is ids a cut day file held: one day's messages at most, far under this. A
# line naming more is not believed (it would make the index hold billions of ids)
LOST_IDS_MAX = 1_000_000
VISIBLE_ID = re.compile(rb'\{"i":(0|[1-9][0-9]{0,17}),')


@dataclass
class Record:
    """The record as read: the lost ranges and the lines set aside, by (file, byte offset)."""

    lost: list[tuple[int, int]] = field(default_factory=list)
    set_aside: dict[tuple[str, int], int] = field(default_factory=dict)  # -> the line's bytes
    # the record's own lines not believed (a checksum that does not match, a range past the
    # bound) and not set aside yet: (line number, byte offset, bytes, why)
    bad: list[tuple[int, int, bytes, str]] = field(default_factory=list)

    def covers(self, first: int, last: int) -> bool:
        """Whether every id from first to last is recorded lost."""
        at = first
        for low, high in sorted(self.lost):
            if low <= at <= high:
                at = high + 1
            if at > last:
                return True
        return at > last

    @property
    def given(self) -> int:
        """Past the highest id the record names."""
        return max((high + 1 for _, high in self.lost), default=0)


def read_record(chat: Path, disk: Disk = REAL_DISK) -> Record:
    """The record under `chat`, empty if there is none; a line that is not the record's (a torn
    last write) names nothing."""
    record = Record()
    try:
        data = read_file(chat / RECORD, disk, RECORD_BYTES_MAX)
    except FileNotFoundError:
        return record
    except OSError as error:
        from harness.memory.daylog import StoreError

        raise StoreError(f"{chat / RECORD} cannot be read ({error.strerror or error})") from None
    entries, offset = [], 0
    for number, line in enumerate(data.split(b"\n"), 1):
        at, offset = offset, offset + len(line) + 1
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            entries.append((number, at, line, entry))
    for _, _, _, entry in entries:  # what is set aside first: a record line may be, by a later one
        where, at, size = entry.get("set_aside"), entry.get("at"), entry.get("bytes")
        if isinstance(where, str) and type(at) is int and type(size) is int and entry_sum_holds(entry):
            record.set_aside[(where, at)] = size
    for number, at, line, entry in entries:
        if (RECORD, at) in record.set_aside:
            continue
        why = record_line_damage(entry)
        if why:
            record.bad.append((number, at, line, why))
            continue
        lost = entry.get("lost")
        if (isinstance(lost, list) and len(lost) == 2 and all(type(n) is int and n >= 0 for n in lost)
                and lost[0] <= lost[1]):
            record.lost.append((lost[0], lost[1]))
    return record


def entry_sum(entry: dict) -> str:
    """[S13] A record line's checksum: the SHA-256 of its other fields as canonical JSON, cut to 16
    hex digits (it finds damage; whoever can write the record could forge a line and its sum)."""
    fields = {name: value for name, value in entry.items() if name != "sum"}
    return hashlib.sha256(json.dumps(fields, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def entry_sum_holds(entry: dict) -> bool:
    """A line without a sum is an older Ever's, taken on its bounds alone."""
    return "sum" not in entry or entry["sum"] == entry_sum(entry)


def record_line_damage(entry: dict) -> str:
    """Why a record line is not believed; "" when it is."""
    if not entry_sum_holds(entry):
        return "its checksum does not match its fields"
    lost = entry.get("lost")
    if lost is not None:
        if not (isinstance(lost, list) and len(lost) == 2 and all(type(n) is int and n >= 0 for n in lost)
                and lost[0] <= lost[1]):
            return "its lost range is not two ids, the first at most the second"
        if lost[1] - lost[0] + 1 > LOST_IDS_MAX:
            return (f"it says {lost[1] - lost[0] + 1:,} ids were lost at once, more than a day file holds "
                    f"({LOST_IDS_MAX:,} at most)")
    return ""


def append_record(chat: Path, entries: list[dict], disk: Disk = REAL_DISK) -> None:
    """Append entries to the record: one write, fsync'd [S13]."""
    if not entries:
        return
    make_directory(chat / "damage", disk)
    log = LogFile(chat / RECORD, disk=disk)
    try:
        log.append(b"".join(encode_line(dict(entry, sum=entry_sum(entry))) for entry in entries))
    finally:
        log.close()


def ids_text(first: int, last: int) -> str:
    return f"message {first}" if first == last else f"messages {first} to {last}"


# ---- ever doctor ----


@dataclass
class Damaged:
    """One damaged line: its day file (main/... or tree/...), line number, byte offset, bytes, and why."""

    file: str
    line: int
    at: int
    data: bytes
    why: str


@dataclass
class Examination:
    """What `examine` found: the damaged lines not yet set aside, the ids lost and not yet
    recorded, and the figures."""

    damaged: list[Damaged]
    lost: list[tuple[int, int, str]]  # (first, last, why) not yet in the record
    recorded_lost: list[tuple[int, int]]
    set_aside: int  # lines set aside before
    given: int  # past the highest id ever given: the ids the chat holds, in the logs or lost

    @property
    def whole(self) -> bool:
        return not self.damaged and not self.lost


def line_damage(line: bytes, integers: tuple[str, ...], what: str) -> str:
    """Why a log line is damaged, or "" if it is a whole `what`: JSON whose `integers` are ints and
    whose text is a string."""
    try:
        entry = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        return "not UTF-8"
    except (ValueError, RecursionError):
        return "not JSON (a torn or damaged write)"
    if (not isinstance(entry, dict) or any(type(entry.get(name)) is not int for name in integers)
            or not isinstance(entry.get("text"), str)):
        return f"JSON but not a {what}"
    return ""


def message_damage(line: bytes) -> str:
    """Why a message line is damaged, or "" if it is a whole message."""
    return line_damage(line, ("i",), "message")


def node_damage(line: bytes) -> str:
    """Why a tree line is damaged, or "" if it is a whole node."""
    return line_damage(line, ("l", "i"), "node")


def day_lines(directory: Path, disk: Disk = REAL_DISK):
    """(file name, line number, byte offset, line) of every line of every day file, in order."""
    names = sorted(name for name in names_in(directory, disk)
                   if DAY_FILE.match(name) and is_file(directory / name, disk))
    for name in names:
        fd = disk.open(directory / name, os.O_RDONLY | os.O_CLOEXEC)
        try:
            at, number, rest, read = 0, 0, b"", 0
            while True:
                chunk = read_at(fd, READ_CHUNK_BYTES, read, disk)
                if not chunk:
                    break
                read += len(chunk)
                parts = (rest + chunk).split(b"\n")
                rest = parts.pop()
                for part in parts:
                    number += 1
                    yield name, number, at, part
                    at += len(part) + 1
            if rest:
                yield name, number + 1, at, rest
        finally:
            disk.close(fd)


def saved_count(chat: Path, disk: Disk = REAL_DISK) -> int:
    """The message count the index last saved, stale or not: ids below it were given."""
    try:
        meta = json.loads(read_file(chat / "index" / "meta.json", disk))
        count = meta.get("messages") if isinstance(meta, dict) else None
    except (OSError, ValueError):
        return 0
    return count if type(count) is int and count >= 0 else 0


def examine(chat: Path, disk: Disk = REAL_DISK) -> Examination:
    """Read every line of the logs as the index does, and say what is damaged: the whole JSON of
    each line is read, so damage inside a message's text is found too."""
    record = read_record(chat, disk)
    damaged: list[Damaged] = []
    lost: list[tuple[int, int, str]] = []
    expected = 0
    since: list[Damaged] = []  # damaged lines since the last whole message
    given = max(saved_count(chat, disk), record.given)
    for name, number, at, line in day_lines(chat / "main", disk):
        where = f"main/{name}"
        if (where, at) in record.set_aside:
            continue
        why = message_damage(line)
        i = message_id(line) if not why else None
        if i is None and not why:
            i = json.loads(line)["i"]
        if why or i < expected:
            if not why:
                why = f"message id {i} again, where {expected} comes next: a repeat"
            else:
                seen = VISIBLE_ID.match(line)
                if seen and int(seen[1]) == expected:
                    given = max(given, expected + 1)
            found = Damaged(where, number, at, line, why)
            damaged.append(found)
            since.append(found)
            continue
        if i > expected and not record.covers(expected, i - 1):
            cause = (f"{where} line {since[0].line} was damaged" if since else
                     f"no line of {where} before line {number} holds them")
            lost.append((expected, i - 1, cause))
        expected = i + 1
        since = []
    if given > expected and not record.covers(expected, given - 1):
        lost.append((expected, given - 1, "they were given once and the newest day file was cut short"))
    for name, number, at, line in day_lines(chat / "tree", disk):
        where = f"tree/{name}"
        if (where, at) in record.set_aside:
            continue
        why = node_damage(line)
        if why:
            damaged.append(Damaged(where, number, at, line, why))
    for number, at, line, why in record.bad:  # [S13] the record's own bad lines, set aside like any
        damaged.append(Damaged(RECORD, number, at, line, f"a line of the damage record: {why}"))
    return Examination(damaged, lost, sorted(record.lost), len(record.set_aside), max(expected, given))


def repair_logs(chat: Path, found: Examination, now: datetime | None = None, disk: Disk = REAL_DISK) -> list[str]:
    """Set the damaged lines aside and record the lost ids [S13]: each line's bytes appended to
    its copy, then the record; the day files are not touched. The index is a cache [S7]: its meta
    is removed so the next open parses the logs with the record. view.json is a checkpoint of the
    logs' replay as they read before [P10]: a message set aside or lost replays as its note, of
    another size, and the views' choices made over its old text are not the logs' any more; it is
    removed, durably, before the record, so no open takes up a checkpoint the recorded logs would
    not give, and the view is rebuilt from the logs [S10]. Returns the copies' paths."""
    date = (now or datetime.now().astimezone()).isoformat(timespec="seconds")
    remove(chat / "view.json", disk)
    fsync_directory(chat, disk)
    make_directory(chat / "damage", disk)
    entries: list[dict] = []
    copies: list[str] = []
    for where in sorted({d.file for d in found.damaged}):
        copy = "damage/" + where.replace("/", "-")
        lines = [d for d in found.damaged if d.file == where]
        log = LogFile(chat / copy, disk=disk)
        try:
            log.append(b"".join(d.data + b"\n" for d in lines))
        finally:
            log.close()
        copies.append(copy)
        for d in lines:
            entries.append({"set_aside": d.file, "line": d.line, "at": d.at, "bytes": len(d.data),
                            "sha256": hashlib.sha256(d.data).hexdigest(), "why": d.why, "copy": copy,
                            "date": date})
    for first, last, why in found.lost:
        entries.append({"lost": [first, last], "why": f"{ids_text(first, last)}: {why}", "date": date})
    append_record(chat, entries, disk)
    remove(chat / "index" / "meta.json", disk)
    return copies


def report_text(chat: Path, found: Examination) -> str:
    """What `ever doctor` says: one sentence a line."""
    said = []
    if found.given:
        said.append(f"The chat in {chat} holds ids 0 to {found.given - 1}, in its logs or lost: the highest id "
                    f"ever given is {found.given - 1}, and the next message is {found.given}.")
    else:
        said.append(f"The chat in {chat} holds no message yet.")
    for d in found.damaged:
        said.append(f"Damaged: {d.file} line {d.line} (byte {d.at}, {len(d.data):,} bytes): {d.why}.")
    for first, last, why in found.lost:
        said.append(f"Lost: {ids_text(first, last)}: {why}.")
    if found.set_aside or found.recorded_lost:
        lost = ", ".join(ids_text(first, last) for first, last in found.recorded_lost) or "no id"
        said.append(f"Set aside before: {found.set_aside} line{'' if found.set_aside == 1 else 's'} "
                    f"(in {chat / 'damage'}); recorded as lost: {lost}.")
    if found.whole:
        said.append("Nothing is damaged that is not set aside.")
    else:
        said.append("`ever doctor --repair` sets the damaged lines aside in chat/damage/, byte for byte, and "
                    "records the lost ids; the day files stay as they are.")
    return "\n".join(said)
