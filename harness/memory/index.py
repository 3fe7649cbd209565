"""The store's index: where each message and node starts, so that a lookup is one `pread`
[S7]. It is a cache: the logs are the truth. It is saved at close and every
`INDEX_SAVE_LINES` appended lines; what the logs hold beyond it is parsed at open.

    index/meta.json       {"format", "byteorder", "generation", "messages": n, "levels": [n0, ...],
                           "main": [[name, bytes, lines], ...], "tree": [...],
                           "skipped": [[path, line, why], ...], "last_node": [l, i] or null,
                           "keys": [[key, id], ...] (the latest KEYS_KEPT message keys)}
    index/index-G.bin     int64s: n for the messages, then n0 for level 0, n1 for level 1, ...

An entry is `file_number << 40 | byte_offset`, the file number being the file's position in its
directory's name order, or -1 for a node not built. Each save writes a new generation and then
renames meta.json onto it, so the two always agree. At open the index is trusted only if every
file it covered is still there, in the same order, at least as long as it was, and the first and
last message and the last node read back with the right ids; otherwise it is rebuilt from the logs
with a warning. Either way only the bytes past what it covered are parsed. A line in the shape
written here is read by its two ends (its ids, and the fields after its text), any other line by
`json.loads`; the inside of a text is trusted there, and `json.loads` reads it at every lookup.

`Index` holds the index's state and its work (load, check, parse the logs' tails, rebuild, save);
`Store` (harness/memory/store.py) has one, and reads and appends through its own descriptors.
"""

import json
import os
import re
import sys
from array import array
from pathlib import Path

from harness.memory.damage import RECORD, VISIBLE_ID, append_record, ids_text, read_record
from harness.memory.damage import Record as DamageRecord
from harness.memory.daylog import (
    DAY_FILE,
    READ_CHUNK_BYTES,
    DayLog,
    LogCorrupt,
    StoreError,
    message_id_key,
    node_ids,
)
from harness.memory.disk import REAL_DISK, Disk
from harness.memory.logfile import (
    FILE_MODE,
    LogFile,
    fsync_directory,
    is_file,
    names_in,
    open_file,
    read_at,
    read_file,
    remove,
    write_all,
    write_whole,
)

INDEX_FORMAT = 1
INDEX_SAVE_LINES = 16_384  # lines appended between index saves: the most an open parses after a crash
OPEN_SAVE_LINES = 1_024  # an open that parsed this many lines saves the index at once
LEVELS_MAX = 62  # node (l, i) covers 2^l messages: more than any chat will hold
OFFSET_BITS = 40  # a log file up to 1 TiB; 2^23 files per directory
OFFSET_MASK = (1 << OFFSET_BITS) - 1
UNBUILT = -1
LOST = -2  # the entry of an id given once and in no line the reader takes [S13]
LINE_READ_BYTES = 8192  # a spot check's read: one holds a node, and most messages
KEYS_KEPT = 10_000  # the latest message keys the index remembers: how far back a retry is known


OLD_GENERATION = re.compile(r"index-.*\.bin\Z", re.DOTALL)  # what `glob("index-*.bin")` matches


def pack(file_number: int, offset: int) -> int:
    return file_number << OFFSET_BITS | offset


class Entries:
    """An index file's bytes, taken as int64 arrays in turn, as `array.fromfile` takes them: a
    file too short for the next array is EOFError."""

    def __init__(self, data: bytes) -> None:
        self.data = memoryview(data)
        self.at = 0

    def take(self, entries: array, count: int) -> None:
        if count < 0:
            raise ValueError("negative count")
        size = count * entries.itemsize
        entries.frombytes(self.data[self.at:self.at + size])
        self.at += size
        if len(entries) < count:
            raise EOFError("the index file is shorter than its meta.json says")


class Index:
    """The index of one chat's logs, which the store holds: the entries of messages (`messages`)
    and of each level's nodes (`levels`), the lines skipped, the last node, the latest keys and the
    damage record; `load` fills it at open, the store's appends add to it."""

    def __init__(self, chat: Path, main: DayLog, tree: DayLog, warnings: list[str], disk: Disk = REAL_DISK) -> None:
        self.chat = chat
        self.disk = disk
        self.main = main
        self.tree = tree
        self.warnings = warnings  # the store's: what an open says
        self.read_only = False
        self.messages = array("q")
        self.levels: list[array] = []
        self.skipped: list[list[object]] = []
        self._skipped_seen: set = set()
        self.last_node: tuple[int, int] | None = None
        self.keys: dict[str, int] = {}  # a message's key -> its id [S8]
        self._generation = 0
        self.unsaved_lines = 0
        self.changed = False
        self.failure = ""
        self.record = DamageRecord()  # [S13] lines set aside, ids lost
        self._damaged: list[tuple[str, int]] = []  # lines parsed here that are damaged
        self._torn_given = 0  # past a damaged line's id, when it was the next one
        self._saved_entries: array | None = None  # a stale index's messages, a day file cut since
        self._cut = ""  # why that index is stale: which file was cut
        self.lost_now: tuple[int, int, str] | None = None  # ids found lost at this open, and why

    def appended(self) -> None:
        self.unsaved_lines += 1
        if self.unsaved_lines >= INDEX_SAVE_LINES:
            self.save_or_warn()

    def node_entry(self, l: int, i: int) -> int:
        if l >= len(self.levels) or i >= len(self.levels[l]):
            return UNBUILT
        return self.levels[l][i]

    def level(self, l: int, i: int) -> array:
        """Level l's entries, long enough to hold node i."""
        while len(self.levels) <= l:
            self.levels.append(array("q"))
        level = self.levels[l]
        if len(level) <= i:
            level.extend(array("q", [UNBUILT]) * (i + 1 - len(level)))
        return level

    def load(self, read_only: bool) -> None:
        """Read the saved index, or rebuild it, then parse what the logs hold past it."""
        self.read_only = read_only
        self.record = read_record(self.chat, self.disk)  # [S13] lines set aside, ids lost
        listings = {self.main.label: self._listing(self.main), self.tree.label: self._listing(self.tree)}
        meta, reason = self._read_index(listings)
        if meta is None:
            if reason:
                self.warnings.append(f"the index was rebuilt from the logs: {reason}")
            self._reset()
            self._adopt_listing(self.main, listings["main"], [])
            self._adopt_listing(self.tree, listings["tree"], [])
        for report in self.skipped:
            self.warnings.append(self._skip_text(*report))
        self._parse_tails([] if meta is None else meta["main"], [] if meta is None else meta["tree"])
        if not read_only:
            self._make_durable_what_it_builds_on()
        # A new chat gets its index at once, so a missing one is always news. A long tail is
        # saved at once, so a chat that keeps crashing does not parse a growing tail at each open.
        if meta is None or self.unsaved_lines >= OPEN_SAVE_LINES:
            self.save_or_warn()

    def _make_durable_what_it_builds_on(self) -> None:
        """[S34] The newest line of each log may be in the page cache only: a process killed
        between its write and its fsync leaves it there, whole, for this open to read. This open
        builds on it (the next id follows it, a merge reads it), and may write the next line to
        another day's file, whose fsync does not cover this one: so it is made durable first, with
        its file's name, or a power loss takes it and leaves a gap past it that keeps the chat
        shut. One process writes at a time and fsyncs each line before the next, so only the
        newest line can be unsynced: its file (and the newest day file) is the one fsync'd."""
        for log, entries in ((self.main, self.messages), (self.tree, None)):
            numbers = {len(log.names) - 1} - {-1}
            newest = next((entry for entry in reversed(entries) if entry >= 0), None) if entries else None
            if newest is not None:
                numbers.add(newest >> OFFSET_BITS)
            for number in sorted(numbers):
                fd = self.disk.open(log.path(number), os.O_RDONLY | os.O_CLOEXEC)
                try:
                    self.disk.fsync(fd)
                finally:
                    self.disk.close(fd)
            if numbers:
                fsync_directory(Path(log.directory), self.disk)
        if self.record.lost or self.record.set_aside:
            # [S13] so may the record's newest line be (its writer, an open that found an id lost,
            # killed before its fsync), and this open builds on it too: it gives the ids past the
            # gap the line accepts, and a power loss that took the line and kept theirs would leave
            # the gap unrecorded, shutting every open that parses the logs (a restored backup's first)
            fd = self.disk.open(self.chat / RECORD, os.O_RDONLY | os.O_CLOEXEC)
            try:
                self.disk.fsync(fd)
            finally:
                self.disk.close(fd)
            fsync_directory(self.chat / "damage", self.disk)
            fsync_directory(self.chat, self.disk)

    def _listing(self, log: DayLog) -> list[tuple[str, int]]:
        """The day files in name order, with their sizes; strays are reported and left alone."""
        files = []
        for name in names_in(log.directory, self.disk):
            path = os.path.join(log.directory, name)
            if not DAY_FILE.match(name) or not is_file(Path(path), self.disk):
                self.warnings.append(f"{path} is not a day file of the log; ignored")
                continue
            stat = self.disk.stat(path)
            if stat.st_mode & 0o777 != FILE_MODE:
                self.disk.chmod(path, FILE_MODE)
                self.warnings.append(f"{path} had mode {stat.st_mode & 0o777:o}; it is now 600")
            files.append((name, stat.st_size))
        files.sort()
        return files

    def _adopt_listing(self, log: DayLog, files: list[tuple[str, int]], covered: list) -> None:
        log.names = [name for name, _ in files]
        log.sizes = [size for _, size in files]
        log.lines = [covered[n][2] if n < len(covered) else 0 for n in range(len(files))]

    def _read_index(self, sizes: dict[str, list[tuple[str, int]]]) -> tuple[dict | None, str]:
        """The saved index if it still describes the logs, else (None, why not)."""
        index = self.chat / "index"
        has_logs = bool(sizes["main"] or sizes["tree"])
        try:
            meta = json.loads(read_file(index / "meta.json", self.disk))
        except FileNotFoundError:
            return None, "it was missing" if has_logs else ""
        except ValueError:
            return None, "its meta.json was unreadable"
        try:
            reason = self._stale(meta, sizes)
            if reason:
                if reason.endswith((" is gone", "shorter than when it was indexed")):
                    self._saved_entries = self._saved_messages(meta)
                    self._cut = reason
                return None, reason
            messages = array("q")
            levels = []
            entries = Entries(read_file(index / f"index-{meta['generation']}.bin", self.disk))
            entries.take(messages, meta["messages"])
            for length in meta["levels"]:
                level = array("q")
                entries.take(level, length)
                levels.append(level)
            skipped = [[str(path), int(line), str(why)] for path, line, why in meta["skipped"]]
            last_node = (int(meta["last_node"][0]), int(meta["last_node"][1])) if meta["last_node"] else None
            keys = {str(key): int(i) for key, i in meta["keys"]}
            generation = int(meta["generation"])
        except FileNotFoundError:
            return None, f"its index-{meta.get('generation')}.bin was missing"
        except EOFError:
            return None, f"its index-{meta['generation']}.bin was cut short"
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return None, "its meta.json was not the index's"
        self.messages = messages
        self.levels = levels
        self._generation = generation
        self.skipped = skipped
        self._skipped_seen = {(path, line) for path, line, _ in skipped}
        self.last_node = last_node
        self.keys = keys
        self._adopt_listing(self.main, sizes["main"], meta["main"])
        self._adopt_listing(self.tree, sizes["tree"], meta["tree"])
        reason = self._spot_check()
        if reason:
            return None, reason
        return meta, ""

    def _saved_messages(self, meta: dict) -> array | None:
        """A stale index's message entries, when a day file was cut short since: ids below its
        count were given [S13]."""
        entries = array("q")
        try:
            Entries(read_file(self.chat / "index" / f"index-{int(meta['generation'])}.bin", self.disk)).take(
                entries, int(meta["messages"]))
        except (OSError, EOFError, KeyError, TypeError, ValueError):
            return None
        return entries

    @staticmethod
    def _stale(meta: dict, sizes: dict[str, list[tuple[str, int]]]) -> str:
        if meta.get("format") != INDEX_FORMAT or meta.get("byteorder") != sys.byteorder:
            return "it was written in another format"
        for label in ("main", "tree"):
            covered, files = meta[label], sizes[label]
            if len(covered) > len(files):
                return f"{label}/{covered[len(files)][0]} is gone"
            for (name, size, _lines), (file_name, file_size) in zip(covered, files):
                if name != file_name:
                    return f"{label}/ holds {label}/{file_name} where {label}/{name} was"
                if file_size < size:
                    return f"{label}/{name} is shorter than when it was indexed"
        return ""

    def _spot_check(self) -> str:
        """A few lookups that a stale or foreign index gets wrong."""
        for i in sorted({0, len(self.messages) - 1} if self.messages else ()):
            if self.messages[i] == LOST:
                continue
            record = self._record_at(self.main, self.messages[i])
            if record is None or record.get("i") != i:
                return f"message {i} was not where it pointed"
        if self.last_node is not None:
            l, i = self.last_node
            entry = self.node_entry(l, i)
            record = None if entry == UNBUILT else self._record_at(self.tree, entry)
            if record is None or record.get("l") != l or record.get("i") != i:
                return f"node ({l}, {i}) was not where it pointed"
        return ""

    def _record_at(self, log: DayLog, entry: int) -> dict | None:
        """The JSON object of the line an entry points at, or None: what a spot check reads."""
        number, offset = entry >> OFFSET_BITS, entry & OFFSET_MASK
        if number >= len(log.names) or offset >= log.sizes[number]:
            return None
        line = self._line_at(log.path(number), offset)
        try:
            record = json.loads(line.decode("utf-8"))
        except ValueError:
            return None
        return record if isinstance(record, dict) else None

    def _line_at(self, path: str, offset: int) -> bytes:
        """The line starting at `offset`, without its newline: what a spot check reads."""
        fd = self.disk.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            parts = []
            at = offset
            while True:
                chunk = read_at(fd, LINE_READ_BYTES, at, self.disk)
                cut = chunk.find(b"\n")
                if cut >= 0:
                    parts.append(chunk[:cut])
                    return b"".join(parts)
                parts.append(chunk)
                if len(chunk) < LINE_READ_BYTES:
                    return b"".join(parts)
                at += len(chunk)
        finally:
            self.disk.close(fd)

    def _reset(self) -> None:
        self.messages = array("q")
        self.levels = []
        self.skipped = []
        self._skipped_seen = set()
        self.last_node = None
        self.keys = {}
        self._damaged = []
        self._torn_given = 0
        self.changed = True

    def rebuild(self, reason: str) -> None:
        """Throw the index away and parse the logs whole, as at an open without one."""
        self.warnings.append(f"the index was rebuilt from the logs: {reason}")
        self._reset()
        self.main.lines = [0] * len(self.main.names)
        self.tree.lines = [0] * len(self.tree.names)
        self._parse_tails([], [])
        self.save_or_warn()

    def _settle_given(self) -> None:
        """[S13] An id is never given twice: past the messages parsed, the ids given once and
        found in no line (a day file cut short) are lost, recorded before any id past them is
        given. The highest id given is the most of the index's last saved count, the record's
        lost ids, and a damaged line's id when it was the next one."""
        count = len(self.messages)
        saved = self._saved_entries
        self._saved_entries = None
        # the stale index is this chat's, cut short, only if it agrees on the messages still there
        agrees = saved is not None and all(saved[k] == self.messages[k] for k in {0, min(len(saved), count) - 1}
                                           if 0 <= k < min(len(saved), count))
        given = max(count, len(saved) if agrees else 0, self.record.given, self._torn_given)
        if given <= count:
            return
        if not self.record.covers(count, given - 1):
            cut = self._cut if agrees else "a day file was cut short"
            why = (f"{ids_text(count, given - 1)} {'was' if given - count == 1 else 'were'} given once and "
                   f"{'is' if given - count == 1 else 'are'} in no whole line of the logs ({cut})")
            if not self.read_only:
                try:
                    append_record(self.chat, [{"lost": [count, given - 1], "why": why}], self.disk)
                except OSError as error:
                    raise StoreError(f"{self.chat / 'damage'} could not record the lost ids "
                                     f"({error.strerror or error}); the chat is not opened, so that no id "
                                     "is given twice") from None
                self.record.lost.append((count, given - 1))
            self.lost_now = (count, given - 1, cut)
        self.messages.extend(array("q", [LOST]) * (given - count))
        self.changed = True

    def _parse_tails(self, covered_main: list, covered_tree: list) -> None:
        """Index every line past what the index covered: messages first, so nodes can be checked
        against the message count."""
        for log, covered, parse in (
            (self.main, covered_main, self._index_message),
            (self.tree, covered_tree, self._index_node),
        ):
            if log is self.tree:
                # [S13] the ids lost past the last whole message are the chat's too, and a node
                # over them was logged (a free node of the placeholder): counted before the nodes
                # are checked, or a whole node line is skipped as covering messages never logged
                self._settle_given()
                # Every node the messages allow has its entry from the start, so the parse
                # below only sets entries.
                for l in range(len(self.messages).bit_length()):
                    self.level(l, (len(self.messages) >> l) - 1)
            for number in range(len(log.names)):
                start = covered[number][1] if number < len(covered) else 0
                if start < log.sizes[number]:
                    self._parse_file(log, number, start, parse)
                    self.changed = True

    def _parse_file(self, log: DayLog, number: int, start: int, parse) -> None:
        offset = start
        line_number = log.lines[number]
        rest = b""
        fd = self.disk.open(log.path(number), os.O_RDONLY | os.O_CLOEXEC)
        try:
            at = start
            while True:
                chunk = read_at(fd, READ_CHUNK_BYTES, at, self.disk)
                if not chunk:
                    break
                at += len(chunk)
                parts = (rest + chunk if rest else chunk).split(b"\n")
                rest = parts.pop()
                for part in parts:
                    line_number += 1
                    parse(log, number, offset, line_number, part)
                    offset += len(part) + 1
                self.unsaved_lines += len(parts)
        finally:
            self.disk.close(fd)
        if rest:
            line_number += 1
            parse(log, number, offset, line_number, rest)
            offset += len(rest)
            self._terminate(log, number)  # [S2]
            offset += 1
        log.sizes[number] = offset
        log.lines[number] = line_number

    def _terminate(self, log: DayLog, number: int) -> None:
        if self.read_only:
            self.warnings.append(f"{log.path(number)} does not end with a newline (read only: left as it is)")
            return
        LogFile(Path(log.path(number)), disk=self.disk).close()  # ends the torn tail
        self.warnings.append(f"{log.path(number)} did not end with a newline; one was appended")

    def _index_message(self, log: DayLog, number: int, offset: int, line_number: int, line: bytes) -> None:
        if self.record.set_aside and (log.relative(number), offset) in self.record.set_aside:
            return  # [S13] set aside by `ever doctor --repair`: its bytes are in chat/damage/
        expected = len(self.messages)
        found = message_id_key(line)
        if found is not None:
            i, key = found
        else:
            record = self._json_line(log, number, line_number, line)
            if record is not None and (type(record.get("i")) is not int or not isinstance(record.get("text"), str)):
                self._skip(log.relative(number), line_number, "JSON but not a message")
                record = None
            if record is None:
                self._damaged.append((log.relative(number), line_number))
                seen = VISIBLE_ID.match(line)
                # [S13] its id was given if it was the next one: past the whole lines, the torn
                # lines before it (a writer killed twice in a row) and the ids recorded lost
                after = max(expected, self._torn_given)
                shown = int(seen[1]) if seen else -1
                if shown == after or shown > after and self.record.covers(after, shown - 1):
                    self._torn_given = shown + 1
                return
            i, key = record["i"], record.get("key")
        if i != expected:
            if i > expected and self.record.covers(expected, i - 1):
                self.messages.extend(array("q", [LOST]) * (i - expected))  # [S13] a recorded gap
                expected = i
            else:
                if i < expected:
                    what = f"message id {i} again, where {expected} comes next: a repeat"
                else:
                    what = f"message id {i} where {expected} comes next: a gap"
                before = (f" after the damaged {self._damaged[-1][0]} line {self._damaged[-1][1]}"
                          if self._damaged else "")
                raise LogCorrupt(
                    f"{log.path(number)} line {line_number} has {what}{before}; the chat is not opened, "
                    "so that no message is lost or renumbered: `ever doctor` says what is damaged, and "
                    "`ever doctor --repair` sets it aside"
                )
        if isinstance(key, str):
            self.keys[key] = i
        self.messages.append(number << OFFSET_BITS | offset)

    def _index_node(self, log: DayLog, number: int, offset: int, line_number: int, line: bytes) -> None:
        if self.record.set_aside and (log.relative(number), offset) in self.record.set_aside:
            return  # [S13]
        ids = node_ids(line)
        if ids is not None:
            l, i = ids
        else:
            record = self._json_line(log, number, line_number, line)
            if record is None:
                return
            l, i = record.get("l"), record.get("i")
            if type(l) is not int or type(i) is not int or l < 0 or i < 0 or not isinstance(record.get("text"), str):
                self._skip(log.relative(number), line_number, "JSON but not a node")
                return
        if l > LEVELS_MAX or (i + 1) << l > len(self.messages):
            self._skip(log.relative(number), line_number,
                       f"node ({l}, {i}) covers messages past the {len(self.messages)} logged")
            return
        levels = self.levels
        level = levels[l] if l < len(levels) and i < len(levels[l]) else self.level(l, i)
        entry = number << OFFSET_BITS | offset
        if level[i] == UNBUILT:
            level[i] = entry
            self.last_node = (l, i)
        elif level[i] != entry:
            self._skip(log.relative(number), line_number,
                       f"node ({l}, {i}) again, first logged at {self.line_of(log, level[i])}; "
                       "the first is kept")  # [S4]

    def _json_line(self, log: DayLog, number: int, line_number: int, line: bytes) -> dict | None:
        """A line off the fast path: its JSON object, or None once reported as torn."""
        try:
            record = json.loads(line)
        except ValueError:
            self._skip(log.relative(number), line_number, "not JSON (a torn write)")  # [S2]
            return None
        if not isinstance(record, dict):
            self._skip(log.relative(number), line_number, "JSON but not an object")
            return None
        return record

    def line_of(self, log: DayLog, entry: int) -> str:
        number, offset = entry >> OFFSET_BITS, entry & OFFSET_MASK
        fd = self.disk.open(log.path(number), os.O_RDONLY | os.O_CLOEXEC)
        try:
            line_number = read_at(fd, offset, 0, self.disk).count(b"\n") + 1
        finally:
            self.disk.close(fd)
        return f"{log.relative(number)} line {line_number}"

    def _skip(self, path: str, line_number: int, why: str) -> None:
        if (path, line_number) in self._skipped_seen:
            return
        self._skipped_seen.add((path, line_number))
        self.skipped.append([path, line_number, why])
        self.warnings.append(self._skip_text(path, line_number, why))

    def _skip_text(self, path: str, line_number: int, why: str) -> str:
        return f"{self.chat / path} line {line_number}: {why}; skipped"

    def save_or_warn(self) -> None:
        """The index is a cache [S7]: a save that fails (a full disk) is said in
        `warnings` and tried again at the next save; what it covers is parsed at open."""
        if self.read_only:
            return
        try:
            self._save()
        except OSError as error:
            self.failure = f"the index was not saved ({error.strerror or error}); the logs are whole"
            self.warnings.append(self.failure)
            for leftover in (self.chat / "index" / f"index-{self._generation + 1}.bin",
                             self.chat / "index" / "meta.json.tmp"):
                try:
                    remove(leftover, self.disk)
                except OSError:
                    pass

    def _save(self) -> None:
        """A new generation of the index, then meta.json renamed onto it [S7]."""
        index = self.chat / "index"
        generation = self._generation + 1
        path = index / f"index-{generation}.bin"
        fd = open_file(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, self.disk)
        try:
            for entries in (self.messages, *self.levels):
                if entries:
                    write_all(fd, memoryview(entries).cast("B"), self.disk)
            self.disk.fsync(fd)
        finally:
            self.disk.close(fd)
        meta = {
            "format": INDEX_FORMAT,
            "byteorder": sys.byteorder,
            "generation": generation,
            "messages": len(self.messages),
            "levels": [len(level) for level in self.levels],
            "main": [[n, s, c] for n, s, c in zip(self.main.names, self.main.sizes, self.main.lines)],
            "tree": [[n, s, c] for n, s, c in zip(self.tree.names, self.tree.sizes, self.tree.lines)],
            "skipped": self.skipped,
            "last_node": list(self.last_node) if self.last_node else None,
            "keys": [[key, i] for key, i in list(self.keys.items())[-KEYS_KEPT:]],
        }
        write_whole(index / "meta.json", json.dumps(meta, ensure_ascii=False).encode("utf-8"), self.disk)
        self._generation = generation
        self.unsaved_lines = 0
        self.changed = False
        for name in names_in(index, self.disk):
            if OLD_GENERATION.match(name) and index / name != path:
                remove(index / name, self.disk)
