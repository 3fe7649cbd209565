"""The store: the chat's log on disk, the saved view, and lookups by id [gist §1].

The log is the user's life. Every line is appended with one write and fsync'd before the call
returns; no line is ever edited or deleted. One process owns a chat.

Layout, under the home `$EVER_HOME` (default `~/.ever`):

    chat/                    0700, as is each directory in it (and the home, if made here);
                             every file is 0600
      lock                   flock'd by the owning process, which writes its pid in it
      socket                 the owner's Unix socket: only its path is fixed here
      main/YYYY-MM-DD.jsonl  the messages, one per line
      tree/YYYY-MM-DD.jsonl  the tree's nodes, one per line
      view.json              the planner's checkpoint [decision P10], replaced whole; checked
                             against the logs at open (docs/reliability.md, S10)
      inbox.jsonl            messages accepted and not yet answered (harness/memory/inbox.py, S9)
      images/<sha256>.<ext>  images from tool results, kept for zoom (harness/memory/images.py)
      index/                 where each line starts; rebuilt from the logs when lost or stale

A message line: these keys in this order, no spaces, UTF-8 with non-ASCII written as is:

    {"i":0,"kind":"user","text":"Hi, Ever","size":8,"date":"2026-10-08T09:30:00+02:00"}

- `i`: the message's permanent id: dense from 0 across the files in name (date) order.
- `kind`: user, ever, tool, echo, work or note [gist §1] [decision P12].
- `text`: made valid once, here: each lone surrogate becomes U+FFFD [decision P14].
- `size`: the text's UTF-8 bytes.
- `date`: local time with its UTC offset, to the second.
- `key` (only on some lines, last): a name the writer gave the message so that it is logged once
  however often the writing is tried again (an import's note, [decision S8]); letters, digits and
  `._:+/=-`, at most 128 of them. `keys()` reads them back.

A node line [gist §2], with `T`, the message count when the node was logged, so that the logs
alone can replay the planner's history (an extra field, as eukhe's D2 adds `key`):

    {"l":1,"i":3,"text":"...","size":412,"T":9}

Decisions the gist leaves open:

- **S1, the day of a line.** `now` (a timezone-aware datetime, default the system clock in its
  local zone) gives `date`, and its calendar day in its own offset names the file. If the clock
  went back to a day before the newest file, the line goes to the newest file: ids then ascend in
  file-name order, which is the order the files are read in, while `date` keeps the clock's word.
- **S2, a torn line.** A line that is not JSON (a write cut by a crash) is reported in `warnings`
  (file and line number) and skipped, at every open. A file that does not end in a newline gets one
  at open, before anything else is appended, so a torn tail never glues onto the next line.
- **S3, a gap or a repeat in the message ids** raises `LogCorrupt` naming the file and line, and
  the chat does not open: opened, it would give an id out twice or renumber messages.
- **S4, a node logged twice.** The first line is kept, the repeat reported: the first is the one
  the live chat read and may have shown in a view [gist §2: built once, never again].
  `append_node` refuses a node already built, so a repeat only comes from outside the store.
- **S5, a failed write.** If an append fails after its write may have begun (a full disk), the
  bytes it wrote are cut off again (`ftruncate` to the file's last whole line, which the store
  knows): the line was never acknowledged, so no acknowledged byte is touched, and no
  unterminated line is left for the next to glue onto. The error is one sentence, and the next
  append tries again. If the cut itself fails, appends are refused (each retrying the cut) until
  it succeeds. A chat on a read-only disk (or opened `read_only`) is read under a shared lock and
  writes nothing: no index save, no newline after a torn tail, no view.json.
- **S6, view.json** is written to `view.json.tmp`, fsync'd, renamed over `view.json`, and the
  directory fsync'd: a crash leaves the old file or the new one, whole [decision P10].
- **S8, a message's key** is checked by the writer, not the store: `keys()` scans the logs' line
  tails (no JSON parse) and the writer appends only what is missing. One process owns the chat,
  so nothing appends between the scan and the writes; a crash between two appends leaves the
  keys logged so far, and the next run adds the rest.
- **S7, the index** (below) is a cache: the logs are the truth. It is saved at close and every
  `INDEX_SAVE_LINES` appended lines; what the logs hold beyond it is parsed at open.

The index:

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
"""

import errno
import fcntl
import json
import os
import re
import sys
import threading
import time
from array import array
from collections import OrderedDict
from datetime import datetime
from pathlib import Path
from typing import Dict, List, Optional, Tuple, Union

from harness.memory.events import KINDS
from harness.memory.logfile import (DIRECTORY_MODE, FILE_MODE, LogFile, encode_line,
                                    fsync_directory, make_directory, open_file, write_whole)
from harness.memory.text import utf8_bytes, valid_text

INDEX_FORMAT = 1
INDEX_SAVE_LINES = 16_384  # lines appended between index saves: the most an open parses after a crash
OPEN_SAVE_LINES = 1_024  # an open that parsed this many lines saves the index at once
LEVELS_MAX = 62  # node (l, i) covers 2^l messages: more than any chat will hold
OFFSET_BITS = 40  # a log file up to 1 TiB; 2^23 files per directory
OFFSET_MASK = (1 << OFFSET_BITS) - 1
UNBUILT = -1
READ_CHUNK_BYTES = 4 << 20
LINE_GUESS_BYTES = 4096  # a node is at most 512 bytes of text; one read nearly always holds it
READERS_MAX = 64  # read descriptors kept open
KEYS_KEPT = 10_000  # the latest message keys the index remembers: how far back a retry is known

DAY_FILE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\.jsonl\Z")
# The shapes written below, read by their two ends: the ids at the head, and at the tail the
# fields after the text. Inside a JSON string every '"' follows a backslash, so '","size":' is
# found only where the text ends; and a prefix of a line (a torn write) never has the tail, whose
# last byte is the line's closing brace.
MESSAGE_HEAD = re.compile(rb'\{"i":(0|[1-9][0-9]*),"kind":"[a-z]+","text":"')
MESSAGE_TAIL = re.compile(rb'","size":[0-9]+,"date":"[^"\\]*"(?:,"key":"([A-Za-z0-9._:+/=-]{1,128})")?\}')
KEY = re.compile(r"[A-Za-z0-9._:+/=-]{1,128}\Z")
NODE_HEAD = re.compile(rb'\{"l":(0|[1-9][0-9]*),"i":(0|[1-9][0-9]*),"text":"')
NODE_TAIL = re.compile(rb'","size":[0-9]+,"T":[0-9]+\}')
TEXT_END = b'","size":'

Record = Dict[str, object]


class StoreError(Exception):
    """The store cannot do what was asked; the message says why."""


class ChatBusy(StoreError):
    """Another live process owns the chat."""


class LogCorrupt(StoreError):
    """The logs would lose or renumber messages if opened; the message names the file and line."""


def ever_home() -> Path:
    return Path(os.environ.get("EVER_HOME") or Path.home() / ".ever")


def checked_text(text: object) -> str:
    """Text as it enters the log: a str, made valid once [decision P14]."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return valid_text(text)


def message_id(line: bytes) -> Optional[int]:
    """The id of a message line in the shape written here (without its newline), else None."""
    found = message_id_key(line)
    return None if found is None else found[0]


def message_id_key(line: bytes) -> Optional[Tuple[int, Optional[str]]]:
    """The id and key (None without one) of a message line in the shape written here."""
    head = MESSAGE_HEAD.match(line)
    tail = line.rfind(TEXT_END)
    if head:
        ended = tail >= head.end() and MESSAGE_TAIL.fullmatch(line, tail)
        if ended:
            return int(head[1]), ended[1].decode("ascii") if ended[1] else None
    return None


def checked_key(key: object) -> str:
    """A message's key [decision S8]: what a retry names it by."""
    if not isinstance(key, str) or not KEY.match(key):
        raise ValueError(f"a key is 1 to 128 letters, digits or ._:+/=-; got {key!r}")
    return key


def node_ids(line: bytes) -> Optional[Tuple[int, int]]:
    """(l, i) of a node line in the shape written here (without its newline), else None."""
    head = NODE_HEAD.match(line)
    tail = line.rfind(TEXT_END)
    if head and tail >= head.end() and NODE_TAIL.fullmatch(line, tail):
        return int(head[1]), int(head[2])
    return None


def pack(file_number: int, offset: int) -> int:
    return file_number << OFFSET_BITS | offset


def local_now(now: Optional[datetime]) -> datetime:
    if now is None:
        return datetime.now().astimezone()
    if not isinstance(now, datetime) or now.utcoffset() is None:
        raise ValueError(f"now must be a timezone-aware datetime, got {now!r}")
    return now


class _Log:
    """One directory of day files: their names in order, the bytes and lines of each, and the
    descriptor that appends to the newest."""

    def __init__(self, directory: Path, label: str):
        self.directory = directory
        self.label = label  # "main" or "tree", for paths in messages
        self.names: List[str] = []
        self.sizes: List[int] = []
        self.lines: List[int] = []
        self.appender: Optional[LogFile] = None  # the newest file, once appended to

    def path(self, number: int) -> str:
        return f"{self.directory}/{self.names[number]}"  # a str: a Path costs more than the read

    def relative(self, number: int) -> str:
        return f"{self.label}/{self.names[number]}"

    def close(self) -> None:
        if self.appender is not None:
            self.appender.close()
            self.appender = None


class Store:
    """A chat's store, owned by this process from `open` to `close`.

    `append_message` and `append_node` return once the line is on disk. `message`, `messages`
    and `node` read a line by its index entry: one `pread`, whatever the chat's length.
    """

    def __init__(self, home: Path):
        self.home = home
        self.chat = home / "chat"
        self.warnings: List[str] = []
        self.main = _Log(self.chat / "main", "main")
        self.tree = _Log(self.chat / "tree", "tree")
        self._messages = array("q")
        self._levels: List[array] = []
        self._skipped: List[List[object]] = []
        self._skipped_seen: set = set()
        self._last_node: Optional[Tuple[int, int]] = None
        self._keys: Dict[str, int] = {}  # a message's key -> its id [decision S8]
        self._generation = 0
        self._unsaved_lines = 0
        self._index_changed = False
        self._readers: "OrderedDict[Tuple[str, int], int]" = OrderedDict()
        self._lock_fd: Optional[int] = None
        self._failed: Optional[BaseException] = None
        self._closed = False
        self._read_only = False
        self._index_failure = ""
        self._mutex = threading.RLock()

    # ---- opening and closing ----

    @classmethod
    def open(cls, home: Union[str, Path, None] = None, read_only: bool = False) -> "Store":
        """Own the chat under `home` (default `$EVER_HOME`, else ~/.ever), making it if new.

        Raises ChatBusy if a live process owns it, LogCorrupt if its message ids have a gap or a
        repeat. Torn lines, a rebuilt index and a taken-over lock are reported in `warnings`.
        `read_only` (or a chat on a read-only disk) reads the chat and writes nothing, under a
        shared lock; its appends are refused in one sentence [decision S5].
        """
        if home is not None and not str(home):
            raise ValueError("home must name a directory, got an empty path")
        store = cls(Path(home) if home is not None else ever_home())
        store._read_only = read_only and (store.chat / "lock").exists()  # a new chat is made
        if not store._read_only:
            try:
                store.home.parent.mkdir(parents=True, exist_ok=True)
                make_directory(store.home)
                make_directory(store.chat)
            except OSError as error:
                if error.errno not in (errno.EROFS, errno.EACCES) or not (store.chat / "lock").exists():
                    raise
                store._read_only = True
        if not store._read_only and os.stat(store.chat).st_mode & 0o777 != DIRECTORY_MODE:
            os.chmod(store.chat, DIRECTORY_MODE)
            store.warnings.append(f"{store.chat} was open to others; it is now 0700")
        store._take_lock()
        try:
            if not store._read_only:
                for directory in (store.main.directory, store.tree.directory, store.chat / "index"):
                    make_directory(directory)
                for leftover in (store.chat / "view.json.tmp", store.chat / "index" / "meta.json.tmp"):
                    leftover.unlink(missing_ok=True)
            store._load()
        except BaseException:
            store._release()
            raise
        return store

    def close(self) -> None:
        """Save the index and give the chat up. Closing twice does nothing."""
        with self._mutex:
            if self._closed:
                return
            self._closed = True
            try:
                if self._failed is None and (self._unsaved_lines or self._index_changed):
                    self._save_index_or_warn()
            finally:
                self._release()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _release(self) -> None:
        for fd in self._readers.values():
            os.close(fd)
        self._readers.clear()
        self.main.close()
        self.tree.close()
        if self._lock_fd is not None:
            # An empty lock file says the last owner closed the chat; a pid left in it says the
            # owner died holding it.
            try:
                if not self._read_only:
                    os.ftruncate(self._lock_fd, 0)
            except OSError:
                pass  # a full disk cannot fail a close: the next owner overwrites the pid
            os.close(self._lock_fd)
            self._lock_fd = None

    def _take_lock(self) -> None:
        """flock dies with its process, so a lock left by a killed owner is simply free. A
        reader takes it shared: readers read together, and never while an owner writes."""
        if not self._read_only:
            try:
                fd = open_file(self.chat / "lock", os.O_RDWR | os.O_CREAT)
            except OSError as error:
                if error.errno not in (errno.EROFS, errno.EACCES):
                    raise
                self._read_only = True
        if self._read_only:
            fd = os.open(self.chat / "lock", os.O_RDONLY | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if self._read_only else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = self._lock_owner(fd, wait=True)
            os.close(fd)
            who = f"process {owner}" if owner else "another process (its pid is not written yet)"
            raise ChatBusy(f"The chat in {self.chat} is in use by {who}, and one chat has one owner.") from None
        except BaseException:
            os.close(fd)
            raise
        if self._read_only:
            self._lock_fd = fd
            return
        previous = self._lock_owner(fd, wait=False)
        if previous:
            self.warnings.append(
                f"process {previous} ended without closing the chat; process {os.getpid()} took it over"
            )
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._lock_fd = fd

    @staticmethod
    def _lock_owner(fd: int, wait: bool) -> str:
        # The owner writes its pid just after it takes the lock: give it a moment.
        for _ in range(50 if wait else 1):
            text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            if text or not wait:
                return text
            time.sleep(0.01)
        return ""

    @property
    def socket_path(self) -> Path:
        """Where the owner listens for other processes of the same chat (not served here)."""
        return self.chat / "socket"

    # ---- appending ----

    @property
    def count(self) -> int:
        """The number of messages, T."""
        return len(self._messages)

    def append_message(self, kind: str, text: str, now: Optional[datetime] = None,
                       key: Optional[str] = None) -> Record:
        """Log one message; return its record once it is on disk [gist §1]. A key, if given,
        ends the line [decision S8]."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
        if key is not None:
            checked_key(key)
        text = checked_text(text)
        now = local_now(now)
        with self._mutex:
            self._check_writable()
            record = {
                "i": len(self._messages),
                "kind": kind,
                "text": text,
                "size": utf8_bytes(text),
                "date": now.isoformat(timespec="seconds"),
            }
            if key is not None:
                record["key"] = key
            number, offset = self._append(self.main, now, encode_line(record))
            if key is not None:
                self._keys[key] = record["i"]
            self._messages.append(pack(number, offset))
            self._appended()
        return record

    def append_node(self, l: int, i: int, text: str, T: int, now: Optional[datetime] = None) -> Record:
        """Log node (l, i), built when the chat had T messages; return its record once on disk.

        A node is built once [gist §2]: logging one already built is refused.
        """
        for name, value in (("l", l), ("i", i), ("T", T)):
            if type(value) is not int or value < 0:
                raise ValueError(f"{name} must be a non-negative int, got {value!r}")
        if l > LEVELS_MAX:
            raise ValueError(f"l must be at most {LEVELS_MAX}, got {l}")
        text = checked_text(text)
        now = local_now(now)
        with self._mutex:
            self._check_writable()
            covered_end = (i + 1) << l
            if not covered_end <= T <= len(self._messages):
                raise ValueError(
                    f"node ({l}, {i}) covers messages {i << l} to {covered_end - 1}, so T must be "
                    f"from {covered_end} to the {len(self._messages)} messages logged; got T={T}"
                )
            if self._node_entry(l, i) != UNBUILT:
                raise ValueError(f"node ({l}, {i}) is already built, and a node is built once")
            record = {"l": l, "i": i, "text": text, "size": utf8_bytes(text), "T": T}
            number, offset = self._append(self.tree, now, encode_line(record))
            self._level(l, i)[i] = pack(number, offset)
            self._last_node = (l, i)
            self._appended()
        return record

    def _check_writable(self) -> None:
        if self._closed:
            raise StoreError("the store is closed")
        if self._read_only:
            raise StoreError(f"the chat in {self.chat} is open read only (its disk is read-only); nothing was logged")
        if self._failed is not None:
            self._recover()

    def _recover(self) -> None:
        """After a failed append whose bytes could not be taken back: take them back now, so
        the file ends where its last whole line does [decision S5]; until then, refuse."""
        for log in (self.main, self.tree):
            if log.appender is not None and log.appender.cut_pending:
                try:
                    log.appender.cut_back()
                except OSError as error:
                    raise StoreError(f"an earlier append failed and {log.path(len(log.names) - 1)} could not "
                                     f"be cut back to its last whole line ({error.strerror}); nothing was "
                                     "logged: try again") from None
        self._failed = None

    def _append(self, log: _Log, now: datetime, line: bytes) -> Tuple[int, int]:
        """Append one whole line to the day's file: one write, then fsync [gist §1, §7.12]."""
        name = now.strftime("%Y-%m-%d") + ".jsonl"
        if log.names and name < log.names[-1]:
            name = log.names[-1]  # [decision S1] the clock went back
        try:
            if not log.names or name != log.names[-1]:
                self._new_file(log, name)
            number = len(log.names) - 1
            if log.appender is None:
                log.appender = LogFile(Path(log.path(number)))
            # [decision S5] on an error the line was never acknowledged: no part of it stays
            offset = log.appender.append(line)
        except OSError as error:
            if log.appender is not None and log.appender.cut_pending:
                self._failed = error
            where = log.path(len(log.names) - 1) if log.names else str(log.directory)
            raise StoreError(f"the line could not be written to {where} ({error.strerror or error}); "
                             "nothing of it was logged, and the next one tries again") from None
        except BaseException as error:
            if log.appender is not None and log.appender.cut_pending:
                self._failed = error  # [decision S5]
            raise
        log.sizes[number] = log.appender.size
        log.lines[number] += 1
        return number, offset

    def _new_file(self, log: _Log, name: str) -> None:
        log.close()
        path = log.directory / name
        try:
            appender = LogFile(path, exclusive=True)  # its name fsync'd in the directory
        except FileExistsError:
            if path.stat().st_size:
                raise StoreError(f"{path} appeared while the chat was open; open the chat again to read it") from None
            appender = LogFile(path)
            fsync_directory(log.directory)
        log.appender = appender
        log.names.append(name)
        log.sizes.append(0)
        log.lines.append(0)

    def _appended(self) -> None:
        self._unsaved_lines += 1
        if self._unsaved_lines >= INDEX_SAVE_LINES:
            self._save_index_or_warn()

    # ---- reading ----

    def message(self, i: int) -> Record:
        """Message i's record, as logged."""
        with self._mutex:
            if not 0 <= i < len(self._messages):
                raise IndexError(f"no message {i}: the chat has {len(self._messages)}")
            return self._read_message(i, retry=True)

    def messages(self, start: int, stop: int) -> List[Record]:
        """The records of messages start to stop - 1 (stop is cut to the chat's length)."""
        with self._mutex:
            if start < 0 or stop < start:
                raise ValueError(f"no messages {start} to {stop}")
            return [self._read_message(i, retry=True) for i in range(start, min(stop, len(self._messages)))]

    def node(self, l: int, i: int) -> Optional[str]:
        """Node (l, i)'s text, or None if it is not built."""
        with self._mutex:
            if l < 0 or i < 0:
                raise ValueError(f"no node ({l}, {i})")
            entry = self._node_entry(l, i)
            if entry == UNBUILT:
                return None
            record = self._read_record(self.tree, entry, None)
            if record is None or record.get("l") != l or record.get("i") != i:
                self._rebuild(f"the index pointed node ({l}, {i}) at another line")
                entry = self._node_entry(l, i)
                if entry == UNBUILT:
                    return None
                record = self._read_record(self.tree, entry, None)
                if record is None or record.get("l") != l or record.get("i") != i:
                    raise StoreError(f"node ({l}, {i}) cannot be read back from {self._where(self.tree, entry)}")
            return record["text"]

    def keys(self) -> set:
        """Every key on a message line [decision S8], read from the lines' tails."""
        found = set()
        with self._mutex:
            for number in range(len(self.main.names)):
                size = self.main.sizes[number]
                offset = 0
                while offset < size:
                    data = os.pread(self._reader(self.main, number), min(READ_CHUNK_BYTES, size - offset), offset)
                    if not data:
                        break
                    cut = data.rfind(b"\n") + 1 if offset + len(data) < size else len(data)
                    if cut == 0:  # a line longer than the chunk: read it whole
                        cut = len(self._read_line(self.main, number, offset, None)) + 1
                        data = os.pread(self._reader(self.main, number), cut, offset)
                    for line in data[:cut].split(b"\n"):
                        if line.endswith(b'"}') and b',"key":"' in line:
                            tail = line.rfind(TEXT_END)
                            match = MESSAGE_TAIL.fullmatch(line, tail) if tail >= 0 else None
                            if match and match[1]:
                                found.add(match[1].decode("ascii"))
                    offset += cut
        return found

    def built_levels(self) -> List[List]:
        """Which nodes are built, for the planner: each level's watermark (every node below it is
        built) and the indexes built beyond it. The scan runs at C speed to the first unbuilt
        entry; past it, only the frontier is read."""
        with self._mutex:
            found = []
            for level in self._levels:
                try:
                    mark = level.index(UNBUILT)
                except ValueError:
                    mark = len(level)
                beyond = [k for k in range(mark, len(level)) if level[k] != UNBUILT]
                found.append([mark, beyond])
            return found

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def read_only(self) -> bool:
        return self._read_only

    @property
    def writable(self) -> bool:
        """False when read only, or after a failed append not yet taken back [decision S5]."""
        return self._failed is None and not self._read_only

    def key_id(self, key: str) -> Optional[int]:
        """The id of the message logged with `key`, among the latest KEYS_KEPT keys, else None."""
        with self._mutex:
            return self._keys.get(key)

    def last_node(self) -> Optional[Tuple[int, int]]:
        """The node logged last (the last first-logged one), or None before the first."""
        return self._last_node

    def nodes_after(self, last: Optional[Tuple[int, int]]) -> List[Tuple[int, int, str, int]]:
        """The nodes logged after node `last` (every node if None), in log order, each as
        (l, i, text, T): what a restart replays past its checkpoint [decision P10]. A line the
        index does not point at (torn, or a repeat) is not a node; a node without T counts as
        built before any message."""
        with self._mutex:
            number, offset = 0, 0
            if last is not None:
                l, i = last
                entry = self._node_entry(l, i)
                if entry == UNBUILT:
                    raise StoreError(f"view.json names node ({l}, {i}) as the last logged, but the tree "
                                     "has no such node; the chat is not opened")
                number, offset = entry >> OFFSET_BITS, entry & OFFSET_MASK
                offset += len(self._read_line(self.tree, number, offset, None)) + 1
            found = []
            for n in range(number, len(self.tree.names)):
                start = offset if n == number else 0
                size = self.tree.sizes[n]
                if start >= size:
                    continue
                data = os.pread(self._reader(self.tree, n), size - start, start)
                at = start
                for line in data.split(b"\n"):
                    here, at = at, at + len(line) + 1
                    ids = node_ids(line)
                    try:
                        record = json.loads(line)
                    except ValueError:
                        continue
                    if not isinstance(record, dict):
                        continue
                    l, i = (ids if ids is not None else (record.get("l"), record.get("i")))
                    if (type(l) is not int or type(i) is not int or l < 0 or i < 0
                            or self._node_entry(l, i) != pack(n, here)):
                        continue
                    T = record.get("T")
                    found.append((l, i, record["text"], T if type(T) is int else 0))
            return found

    def _read_message(self, i: int, retry: bool) -> Record:
        entry = self._messages[i]
        end = None
        if i + 1 < len(self._messages) and self._messages[i + 1] >> OFFSET_BITS == entry >> OFFSET_BITS:
            end = self._messages[i + 1] & OFFSET_MASK
        record = self._read_record(self.main, entry, end)
        if record is None or record.get("i") != i:
            if not retry:
                raise StoreError(f"message {i} cannot be read back from {self._where(self.main, entry)}")
            self._rebuild(f"the index pointed message {i} at another line")
            return self._read_message(i, retry=False)
        return record

    def _read_record(self, log: _Log, entry: int, end: Optional[int]) -> Optional[Record]:
        number, offset = entry >> OFFSET_BITS, entry & OFFSET_MASK
        if number >= len(log.names):
            return None
        line = self._read_line(log, number, offset, end)
        try:
            record = json.loads(line.decode("utf-8"))
        except ValueError:
            return None
        return record if isinstance(record, dict) else None

    def _read_line(self, log: _Log, number: int, offset: int, end: Optional[int]) -> bytes:
        limit = log.sizes[number]
        if offset >= limit:
            return b""
        fd = self._reader(log, number)
        if end is None or end <= offset:
            end = offset + LINE_GUESS_BYTES
        end = min(end, limit)
        while True:
            data = os.pread(fd, end - offset, offset)
            cut = data.find(b"\n")
            if cut >= 0:
                return data[:cut]
            if end >= limit or len(data) < end - offset:
                return data
            end = min(offset + 4 * (end - offset), limit)

    def _reader(self, log: _Log, number: int) -> int:
        """A read descriptor, the least recently used closed past READERS_MAX: a long chat has
        hundreds of day files, more than a process may hold open."""
        key = (log.label, number)
        fd = self._readers.get(key)
        if fd is not None:
            self._readers.move_to_end(key)
            return fd
        if len(self._readers) >= READERS_MAX:
            os.close(self._readers.popitem(last=False)[1])
        fd = os.open(log.path(number), os.O_RDONLY | os.O_CLOEXEC)
        self._readers[key] = fd
        return fd

    def _node_entry(self, l: int, i: int) -> int:
        if l >= len(self._levels) or i >= len(self._levels[l]):
            return UNBUILT
        return self._levels[l][i]

    def _level(self, l: int, i: int) -> array:
        """Level l's entries, long enough to hold node i."""
        while len(self._levels) <= l:
            self._levels.append(array("q"))
        level = self._levels[l]
        if len(level) <= i:
            level.extend(array("q", [UNBUILT]) * (i + 1 - len(level)))
        return level

    def _where(self, log: _Log, entry: int) -> str:
        number = entry >> OFFSET_BITS
        name = log.relative(number) if number < len(log.names) else f"{log.label}/(file {number})"
        return f"{name} byte {entry & OFFSET_MASK}"

    # ---- the saved view ----

    def save_view(self, view: dict) -> None:
        """Replace view.json with `view` (JSON-able), atomically [decision S6]."""
        if not isinstance(view, dict):
            raise TypeError(f"the view must be a dict, got {type(view).__name__}")
        data = json.dumps(view, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        with self._mutex:
            if self._closed:
                raise StoreError("the store is closed")
            if self._read_only:
                raise StoreError("the chat is open read only")
            write_whole(self.chat / "view.json", data.encode("utf-8"))

    def load_view(self) -> Optional[dict]:
        """The saved view, or None if none was ever saved."""
        path = self.chat / "view.json"
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        try:
            view = json.loads(data)
        except ValueError as error:
            raise StoreError(f"{path} is not valid JSON ({error}): it is only ever replaced whole") from None
        if not isinstance(view, dict):
            raise StoreError(f"{path} holds a {type(view).__name__}, not the saved view")
        return view

    # ---- the index ----

    def _load(self) -> None:
        listings = {self.main.label: self._listing(self.main), self.tree.label: self._listing(self.tree)}
        meta, reason = self._read_index(listings)
        if meta is None:
            if reason:
                self.warnings.append(f"the index was rebuilt from the logs: {reason}")
            self._reset_index()
            self._adopt_listing(self.main, listings["main"], [])
            self._adopt_listing(self.tree, listings["tree"], [])
        for report in self._skipped:
            self.warnings.append(self._skip_text(*report))
        self._parse_tails([] if meta is None else meta["main"], [] if meta is None else meta["tree"])
        # A new chat gets its index at once, so a missing one is always news. A long tail is
        # saved at once, so a chat that keeps crashing does not parse a growing tail at each open.
        if meta is None or self._unsaved_lines >= OPEN_SAVE_LINES:
            self._save_index_or_warn()

    def _listing(self, log: _Log) -> List[Tuple[str, int]]:
        """The day files in name order, with their sizes; strays are reported and left alone."""
        files = []
        with os.scandir(log.directory) as entries:
            for entry in entries:
                if not DAY_FILE.match(entry.name) or not entry.is_file():
                    self.warnings.append(f"{entry.path} is not a day file of the log; ignored")
                    continue
                stat = entry.stat()
                if stat.st_mode & 0o777 != FILE_MODE:
                    os.chmod(entry.path, FILE_MODE)
                    self.warnings.append(f"{entry.path} had mode {stat.st_mode & 0o777:o}; it is now 600")
                files.append((entry.name, stat.st_size))
        files.sort()
        return files

    def _adopt_listing(self, log: _Log, files: List[Tuple[str, int]], covered: list) -> None:
        log.names = [name for name, _ in files]
        log.sizes = [size for _, size in files]
        log.lines = [covered[n][2] if n < len(covered) else 0 for n in range(len(files))]

    def _read_index(self, sizes: Dict[str, List[Tuple[str, int]]]) -> Tuple[Optional[dict], str]:
        """The saved index if it still describes the logs, else (None, why not)."""
        index = self.chat / "index"
        has_logs = bool(sizes["main"] or sizes["tree"])
        try:
            meta = json.loads((index / "meta.json").read_bytes())
        except FileNotFoundError:
            return None, "it was missing" if has_logs else ""
        except ValueError:
            return None, "its meta.json was unreadable"
        try:
            reason = self._stale(meta, sizes)
            if reason:
                return None, reason
            messages = array("q")
            levels = []
            with open(index / f"index-{meta['generation']}.bin", "rb") as f:
                messages.fromfile(f, meta["messages"])
                for length in meta["levels"]:
                    level = array("q")
                    level.fromfile(f, length)
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
        self._messages = messages
        self._levels = levels
        self._generation = generation
        self._skipped = skipped
        self._skipped_seen = {(path, line) for path, line, _ in skipped}
        self._last_node = last_node
        self._keys = keys
        self._adopt_listing(self.main, sizes["main"], meta["main"])
        self._adopt_listing(self.tree, sizes["tree"], meta["tree"])
        reason = self._spot_check()
        if reason:
            return None, reason
        return meta, ""

    @staticmethod
    def _stale(meta: dict, sizes: Dict[str, List[Tuple[str, int]]]) -> str:
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
        for i in sorted({0, len(self._messages) - 1} if self._messages else ()):
            record = self._read_record(self.main, self._messages[i], None)
            if record is None or record.get("i") != i:
                return f"message {i} was not where it pointed"
        if self._last_node is not None:
            l, i = self._last_node
            entry = self._node_entry(l, i)
            record = None if entry == UNBUILT else self._read_record(self.tree, entry, None)
            if record is None or record.get("l") != l or record.get("i") != i:
                return f"node ({l}, {i}) was not where it pointed"
        return ""

    def _reset_index(self) -> None:
        self._messages = array("q")
        self._levels = []
        self._skipped = []
        self._skipped_seen = set()
        self._last_node = None
        self._keys = {}
        self._index_changed = True

    def _rebuild(self, reason: str) -> None:
        """Throw the index away and parse the logs whole, as at an open without one."""
        self.warnings.append(f"the index was rebuilt from the logs: {reason}")
        for fd in self._readers.values():
            os.close(fd)
        self._readers.clear()
        self._reset_index()
        self.main.lines = [0] * len(self.main.names)
        self.tree.lines = [0] * len(self.tree.names)
        self._parse_tails([], [])
        self._save_index_or_warn()

    def _parse_tails(self, covered_main: list, covered_tree: list) -> None:
        """Index every line past what the index covered: messages first, so nodes can be checked
        against the message count."""
        for log, covered, parse in (
            (self.main, covered_main, self._index_message),
            (self.tree, covered_tree, self._index_node),
        ):
            if log is self.tree:
                # Every node the messages allow has its entry from the start, so the parse
                # below only sets entries.
                for l in range(len(self._messages).bit_length()):
                    self._level(l, (len(self._messages) >> l) - 1)
            for number in range(len(log.names)):
                start = covered[number][1] if number < len(covered) else 0
                if start < log.sizes[number]:
                    self._parse_file(log, number, start, parse)
                    self._index_changed = True

    def _parse_file(self, log: _Log, number: int, start: int, parse) -> None:
        offset = start
        line_number = log.lines[number]
        rest = b""
        with open(log.path(number), "rb") as f:
            f.seek(start)
            while True:
                chunk = f.read(READ_CHUNK_BYTES)
                if not chunk:
                    break
                parts = (rest + chunk if rest else chunk).split(b"\n")
                rest = parts.pop()
                for part in parts:
                    line_number += 1
                    parse(log, number, offset, line_number, part)
                    offset += len(part) + 1
                self._unsaved_lines += len(parts)
        if rest:
            line_number += 1
            parse(log, number, offset, line_number, rest)
            offset += len(rest)
            self._terminate(log, number)  # [decision S2]
            offset += 1
        log.sizes[number] = offset
        log.lines[number] = line_number

    def _terminate(self, log: _Log, number: int) -> None:
        if self._read_only:
            self.warnings.append(f"{log.path(number)} does not end with a newline (read only: left as it is)")
            return
        LogFile(Path(log.path(number))).close()  # ends the torn tail
        self.warnings.append(f"{log.path(number)} did not end with a newline; one was appended")

    def _index_message(self, log: _Log, number: int, offset: int, line_number: int, line: bytes) -> None:
        found = message_id_key(line)
        if found is not None:
            i, key = found
        else:
            record = self._json_line(log, number, line_number, line)
            if record is None:
                return
            i, key = record.get("i"), record.get("key")
            if type(i) is not int or not isinstance(record.get("text"), str):
                raise LogCorrupt(
                    f"{log.path(number)} line {line_number} is JSON but not a message "
                    "(no integer i or no text); the chat is not opened"
                )
        expected = len(self._messages)
        if i != expected:
            if i < expected:
                what = f"message id {i} again, where {expected} comes next: a repeat"
            else:
                what = f"message id {i} where {expected} comes next: a gap"
            raise LogCorrupt(
                f"{log.path(number)} line {line_number} has {what}; the chat is not opened, "
                "so that no message is lost or renumbered"
            )
        if isinstance(key, str):
            self._keys[key] = i
        self._messages.append(number << OFFSET_BITS | offset)

    def _index_node(self, log: _Log, number: int, offset: int, line_number: int, line: bytes) -> None:
        ids = node_ids(line)
        if ids is not None:
            l, i = ids
        else:
            record = self._json_line(log, number, line_number, line)
            if record is None:
                return
            l, i = record.get("l"), record.get("i")
            if type(l) is not int or type(i) is not int or l < 0 or i < 0 or not isinstance(record.get("text"), str):
                raise LogCorrupt(
                    f"{log.path(number)} line {line_number} is JSON but not a node "
                    "(no integers l and i or no text); the chat is not opened"
                )
        if l > LEVELS_MAX or (i + 1) << l > len(self._messages):
            self._skip(log.relative(number), line_number,
                       f"node ({l}, {i}) covers messages past the {len(self._messages)} logged")
            return
        levels = self._levels
        level = levels[l] if l < len(levels) and i < len(levels[l]) else self._level(l, i)
        entry = number << OFFSET_BITS | offset
        if level[i] == UNBUILT:
            level[i] = entry
            self._last_node = (l, i)
        elif level[i] != entry:
            self._skip(log.relative(number), line_number,
                       f"node ({l}, {i}) again, first logged at {self._line_of(log, level[i])}; "
                       "the first is kept")  # [decision S4]

    def _json_line(self, log: _Log, number: int, line_number: int, line: bytes) -> Optional[dict]:
        """A line off the fast path: its JSON object, or None once reported as torn."""
        try:
            record = json.loads(line)
        except ValueError:
            self._skip(log.relative(number), line_number, "not JSON (a torn write)")  # [decision S2]
            return None
        if not isinstance(record, dict):
            raise LogCorrupt(f"{log.path(number)} line {line_number} is JSON but not an object; the chat is not opened")
        return record

    def _line_of(self, log: _Log, entry: int) -> str:
        number, offset = entry >> OFFSET_BITS, entry & OFFSET_MASK
        with open(log.path(number), "rb") as f:
            line_number = f.read(offset).count(b"\n") + 1
        return f"{log.relative(number)} line {line_number}"

    def _skip(self, path: str, line_number: int, why: str) -> None:
        if (path, line_number) in self._skipped_seen:
            return
        self._skipped_seen.add((path, line_number))
        self._skipped.append([path, line_number, why])
        self.warnings.append(self._skip_text(path, line_number, why))

    def _skip_text(self, path: str, line_number: int, why: str) -> str:
        return f"{self.chat / path} line {line_number}: {why}; skipped"

    def _save_index_or_warn(self) -> None:
        """The index is a cache [decision S7]: a save that fails (a full disk) is said in
        `warnings` and tried again at the next save; what it covers is parsed at open."""
        if self._read_only:
            return
        try:
            self._save_index()
        except OSError as error:
            self._index_failure = f"the index was not saved ({error.strerror or error}); the logs are whole"
            self.warnings.append(self._index_failure)
            for leftover in (self.chat / "index" / f"index-{self._generation + 1}.bin",
                             self.chat / "index" / "meta.json.tmp"):
                try:
                    leftover.unlink(missing_ok=True)
                except OSError:
                    pass

    def _save_index(self) -> None:
        """A new generation of the index, then meta.json renamed onto it [decision S7]."""
        index = self.chat / "index"
        generation = self._generation + 1
        path = index / f"index-{generation}.bin"
        fd = open_file(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        with os.fdopen(fd, "wb") as f:
            self._messages.tofile(f)
            for level in self._levels:
                level.tofile(f)
            f.flush()
            os.fsync(f.fileno())
        meta = {
            "format": INDEX_FORMAT,
            "byteorder": sys.byteorder,
            "generation": generation,
            "messages": len(self._messages),
            "levels": [len(level) for level in self._levels],
            "main": [[n, s, c] for n, s, c in zip(self.main.names, self.main.sizes, self.main.lines)],
            "tree": [[n, s, c] for n, s, c in zip(self.tree.names, self.tree.sizes, self.tree.lines)],
            "skipped": self._skipped,
            "last_node": list(self._last_node) if self._last_node else None,
            "keys": [[key, i] for key, i in list(self._keys.items())[-KEYS_KEPT:]],
        }
        write_whole(index / "meta.json", json.dumps(meta, ensure_ascii=False).encode("utf-8"))
        self._generation = generation
        self._unsaved_lines = 0
        self._index_changed = False
        for old in index.glob("index-*.bin"):
            if old != path:
                old.unlink(missing_ok=True)
