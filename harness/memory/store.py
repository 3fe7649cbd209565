"""The store: the chat's log on disk, the saved view, and lookups by id [gist §1].

The log is the user's life. Every line is appended with one write and fsync'd before the call
returns; no line is ever edited or deleted. One process owns a chat.

Every path under the home `$EVER_HOME` (default `~/.ever`), with what writes it, its kind and
its mode, is a row of harness/memory/home.py's table. The store makes `chat/` and writes the day
files `main/YYYY-MM-DD.jsonl` and `tree/YYYY-MM-DD.jsonl` and the checkpoint `view.json`, checked
against the logs at open (docs/reliability.md, [S10]).

A message line: these keys in this order, no spaces, UTF-8 with non-ASCII written as is:

    {"i":0,"kind":"user","text":"Hi, Ever","size":8,"date":"2026-10-08T09:30:00+02:00"}

- `i`: the message's permanent id: dense from 0 across the files in name (date) order.
- `kind`: user, ever, tool, echo, work or note [gist §1] [P12].
- `text`: made valid once, here: each lone surrogate becomes U+FFFD [P14].
- `size`: the text's UTF-8 bytes.
- `date`: local time with its UTC offset, to the second.
- `from` (only on an import's notes, before `key`): where the note was read, in words (the
  file, its line or row, the session and the original id): provenance for a person or a tool
  that reads the log. No request carries it: the planner and the view see `kind` and `text`
  alone, so it costs no byte of any view (harness/imports/rules.py, [I1]).
- `key` (only on some lines, last): a name the writer gave the message so that it is logged once
  however often the writing is tried again (an import's note, [S8]); letters, digits and
  `._:+/=-`, at most 128 of them. `keys()` reads them back.

A node line [gist §2], with `T`, the message count when the node was logged, so that the logs
alone can replay the planner's history (an extra field, as eukhe's [D2] adds `key`):

    {"l":1,"i":3,"text":"...","size":412,"T":9}

Decisions the gist leaves open:

- **[S1], the day of a line.** `now` (a timezone-aware datetime, default the system clock in its
  local zone) gives `date`, and its calendar day in its own offset names the file. If the clock
  went back to a day before the newest file, the line goes to the newest file: ids then ascend in
  file-name order, which is the order the files are read in, while `date` keeps the clock's word.
- **[S2], a torn line.** A line that is not JSON (a write cut by a crash) is reported in `warnings`
  (file and line number) and skipped, at every open. A file that does not end in a newline gets one
  at open, before anything else is appended, so a torn tail never glues onto the next line.
- **[S3], a gap or a repeat in the message ids** raises `LogCorrupt` naming the file and line, and
  the chat does not open: opened, it would give an id out twice or renumber messages. A gap whose
  ids the damage record names lost is accepted, and a line it sets aside is skipped [S13].
- **[S13], damage.** A damaged line is never edited: `ever doctor --repair` sets it aside in a
  record the index consults (harness/memory/damage.py), and an id is never given twice: ids found
  given and lost at open (a day file cut short) are recorded before any id past them is given.
  A lost id reads as a note saying so; a message or node whose line is damaged inside its text
  alone reads as far as it can. Each is said once, in one sentence, to `DAMAGE_LISTENERS`.
- **[S4], a node logged twice.** The first line is kept, the repeat reported: the first is the one
  the live chat read and may have shown in a view [gist §2: built once, never again].
  `append_node` refuses a node already built, so a repeat only comes from outside the store.
- **[S5], a failed write.** If an append fails after its write may have begun (a full disk), the
  bytes it wrote are cut off again (`ftruncate` to the file's last whole line, which the store
  knows): the line was never acknowledged, so no acknowledged byte is touched, and no
  unterminated line is left for the next to glue onto. The error is one sentence, and the next
  append tries again. If the cut itself fails, appends are refused (each retrying the cut) until
  it succeeds. A chat on a read-only disk (or opened `read_only`) is read under a shared lock and
  writes nothing: no index save, no newline after a torn tail, no view.json.
- **[S6], view.json** is written to `view.json.tmp`, fsync'd, renamed over `view.json`, and the
  directory fsync'd: a crash leaves the old file or the new one, whole [P10].
- **[S8], a message's key** is checked by the writer, not the store: `keys()` scans the logs' line
  tails (no JSON parse) and the writer appends only what is missing. One process owns the chat,
  so nothing appends between the scan and the writes; a crash between two appends leaves the
  keys logged so far, and the next run adds the rest.
- **[S7], the index** is a cache: the logs are the truth. It is saved at close and every
  `INDEX_SAVE_LINES` appended lines; what the logs hold beyond it is parsed at open.

The store is four parts, each with one job, behind `Store`: the day files and their lines
(harness/memory/daylog.py), the index (harness/memory/index.py), the lock
(harness/memory/lock.py), and one way to append and replace files (harness/memory/logfile.py);
each reads and writes through the disk the store was opened on (harness/memory/disk.py). Here are
the appends, the reads and the saved view.
"""

import errno
import json
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Union

from harness.memory import DAMAGE_LISTENERS  # who hears damage found in the logs [S13]
from harness.memory.damage import ids_text
from harness.memory.daylog import (
    MESSAGE_HEAD,
    MESSAGE_TAIL,
    NODE_HEAD,
    READ_CHUNK_BYTES,
    TEXT_END,
    DayLog,
    LogCorrupt,
    StoreError,
    message_id,
    message_id_key,
    node_ids,
)
from harness.memory.disk import REAL_DISK, Disk
from harness.memory.events import KINDS
from harness.memory.index import (
    INDEX_SAVE_LINES,
    LEVELS_MAX,
    LOST,
    OFFSET_BITS,
    OFFSET_MASK,
    UNBUILT,
    Index,
    pack,
)
from harness.memory.lock import ChatBusy, ChatLock
from harness.memory.logfile import (
    DIRECTORY_MODE,
    NotReadable,
    encode_line,
    exists,
    make_directory,
    make_parents,
    read_at,
    read_regular,
    remove,
    write_whole,
)
from harness.memory.text import utf8_bytes, valid_text

MESSAGE_FIELDS = frozenset(("i", "kind", "text", "size", "date", "from", "key"))  # a message line's, as logged

__all__ = ["Store", "StoreError", "ChatBusy", "LogCorrupt", "checked_key", "checked_text", "encode_line",
           "ever_home", "message_id", "message_id_key", "node_ids", "INDEX_SAVE_LINES"]

LINE_GUESS_BYTES = 4096  # a node is at most 512 bytes of text; one read nearly always holds it
READERS_MAX = 64  # read descriptors kept open
VIEW_BYTES_MAX = 64 << 20  # view.json holds both views' places and counts: far less than this
KEY = re.compile(r"[A-Za-z0-9._:+/=-]{1,128}\Z")
KIND_AND_DATE = (re.compile(rb'"kind":"([a-z]+)"'), re.compile(rb'"date":"([^"\\]*)"'))
Record = dict[str, object]


def ever_home() -> Path:
    return Path(os.environ.get("EVER_HOME") or Path.home() / ".ever")


def checked_text(text: object) -> str:
    """Text as it enters the log: a str, made valid once [P14]."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return valid_text(text)


def checked_key(key: object) -> str:
    """A message's key [S8]: what a retry names it by."""
    if not isinstance(key, str) or not KEY.match(key):
        raise ValueError(f"a key is 1 to 128 letters, digits or ._:+/=-; got {key!r}")
    return key


def local_now(now: datetime | None) -> datetime:
    if now is None:
        return datetime.now().astimezone()
    if not isinstance(now, datetime) or now.utcoffset() is None:
        raise ValueError(f"now must be a timezone-aware datetime, got {now!r}")
    return now


def keyed(record: Record, key: str | None) -> Record:
    """A damaged line's record with the key its line still holds [S13]: the key the index keeps
    for it [S8], so a long message's pieces still end at their key and belong to it [S11]."""
    if key is not None:
        record["key"] = key
    return record


class Store:
    """A chat's store, owned by this process from `open` to `close`.

    `append_message` and `append_node` return once the line is on disk. `message`, `messages`
    and `node` read a line by its index entry (`index`, harness/memory/index.py): one `pread`,
    whatever the chat's length.
    """

    def __init__(self, home: Path, disk: Disk = REAL_DISK):
        self.home = home
        self.chat = home / "chat"
        self.disk = disk  # every file of the chat is read and written through it
        self.warnings: list[str] = []
        self.main = DayLog(self.chat / "main", "main", disk)
        self.tree = DayLog(self.chat / "tree", "tree", disk)
        self.index = Index(self.chat, self.main, self.tree, self.warnings, disk)
        self._readers: OrderedDict[tuple[str, int], int] = OrderedDict()
        self._lock = ChatLock(self.chat, disk)
        self._failed: BaseException | None = None
        self._closed = False
        self._read_only = False
        self._mutex = threading.RLock()
        self.damage: list[str] = []  # the sentences said about damage, each once
        self._damaged_spans: set[tuple[int, int]] = set()  # messages under a line read damaged
        # the date a line gets when its writer names none: the World's clock (harness/owner/world.py)
        # when the memory was given one, else the system's
        self.now: Callable[[], datetime] | None = None

    # ---- opening and closing ----

    @classmethod
    def open(cls, home: Union[str, Path, None] = None, read_only: bool = False,
             disk: Disk = REAL_DISK, lock: ChatLock | None = None) -> "Store":
        """Own the chat under `home` (default `$EVER_HOME`, else ~/.ever), making it if new, on
        `disk` (harness/memory/disk.py; the machine's by default).

        Raises ChatBusy if a live process owns it, LogCorrupt if its message ids have a gap or a
        repeat. Torn lines, a rebuilt index and a taken-over lock are reported in `warnings`.
        `read_only` (or a chat on a read-only disk) reads the chat and writes nothing, under a
        shared lock; its appends are refused in one sentence [S5]. `lock`: the chat's lock,
        already held by this process (a store closed with `keep_lock`), which it takes over.
        """
        if home is not None and not str(home):
            raise ValueError("home must name a directory, got an empty path")
        store = cls(Path(home) if home is not None else ever_home(), disk)
        store._read_only = read_only and exists(store.chat / "lock", disk)  # a new chat is made
        if not store._read_only:
            try:
                make_parents(store.home.parent, disk)
                make_directory(store.home, disk)
                make_directory(store.chat, disk)
            except OSError as error:
                if error.errno not in (errno.EROFS, errno.EACCES) or not exists(store.chat / "lock", disk):
                    raise
                store._read_only = True
        if not store._read_only and disk.stat(store.chat).st_mode & 0o777 != DIRECTORY_MODE:
            disk.chmod(store.chat, DIRECTORY_MODE)
            store.warnings.append(f"{store.chat} was open to others; it is now 0700")
        if lock is not None:  # held already: the chat was never free between two stores
            store._lock, taken_over = lock, None
        else:
            taken_over = store._lock.take(store._read_only)
        store._read_only = store._lock.read_only
        if taken_over:
            store.warnings.append(taken_over)
        try:
            if not store._read_only:
                for directory in (store.main.directory, store.tree.directory, store.chat / "index"):
                    make_directory(directory, disk)
                for leftover in (store.chat / "view.json.tmp", store.chat / "index" / "meta.json.tmp"):
                    remove(leftover, disk)
            store.index.load(store._read_only)
        except BaseException:
            store._release()
            raise
        store._say_damage_at_open()
        return store

    def _say_damage_at_open(self) -> None:
        """One sentence for what is damaged [S13]: the lines the reader skips, and ids found lost."""
        lines = [(path, line, why) for path, line, why in self.index.skipped
                 if why.startswith(("not JSON", "JSON but not"))]
        said = []
        if lines:
            path, line, why = lines[0]
            more = f" and {len(lines) - 1} more line{'' if len(lines) == 2 else 's'}" if len(lines) > 1 else ""
            said.append(f"{self.chat / path} line {line} is damaged, {why}{more}")
        if self.index.lost_now is not None:
            first, last, cut = self.index.lost_now
            said.append(f"{ids_text(first, last)} {'was' if first == last else 'were'} lost ({cut}); no id is "
                        f"given twice, and the next message is {len(self.index.messages)}")
        if said:
            self._say_damage("; ".join(said) + ": `ever doctor` says what is damaged, and "
                             "`ever doctor --repair` sets it aside")

    def _say_damage(self, sentence: str) -> None:
        if sentence in self.damage:
            return
        self.damage.append(sentence)
        for listener in DAMAGE_LISTENERS:
            listener(sentence)

    def close(self, keep_lock: bool = False) -> ChatLock | None:
        """Save the index and give the chat up. Closing twice does nothing. `keep_lock`: the
        files close and the lock stays held, returned, for the next `open(lock=...)` or a
        `ever forget` run by this owner (no other process can take the chat meanwhile)."""
        with self._mutex:
            if self._closed:
                return None
            self._closed = True
            try:
                if self._failed is None and (self.index.unsaved_lines or self.index.changed):
                    self.index.save_or_warn()
            finally:
                self._release(keep_lock)
        return self._lock if keep_lock else None

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _release(self, keep_lock: bool = False) -> None:
        for fd in self._readers.values():
            self.disk.close(fd)
        self._readers.clear()
        self.main.close()
        self.tree.close()
        if not keep_lock:
            self._lock.release()
    @property
    def socket_path(self) -> Path:
        """Where the owner listens for other processes of the same chat (not served here)."""
        return self.chat / "socket"

    # ---- appending ----

    @property
    def count(self) -> int:
        """The number of messages, T."""
        return len(self.index.messages)

    def append_message(self, kind: str, text: str, now: datetime | None = None,
                       key: str | None = None, origin: str | None = None) -> Record:
        """Log one message; return its record once it is on disk [gist §1]. A key, if given,
        ends the line [S8]; `origin`, if given, is its `from` field, before the key."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
        if key is not None:
            checked_key(key)
        text = checked_text(text)
        now = local_now(now if now is not None or self.now is None else self.now())
        with self._mutex:
            self._check_writable()
            record = {
                "i": len(self.index.messages),
                "kind": kind,
                "text": text,
                "size": utf8_bytes(text),
                "date": now.isoformat(timespec="seconds"),
            }
            if origin is not None:
                record["from"] = checked_text(origin)
            if key is not None:
                record["key"] = key
            number, offset = self._append(self.main, now, encode_line(record))
            if key is not None:
                self.index.keys[key] = record["i"]
            self.index.messages.append(pack(number, offset))
            self.index.appended()
        return record

    def append_node(self, l: int, i: int, text: str, T: int, now: datetime | None = None) -> Record:
        """Log node (l, i), built when the chat had T messages; return its record once on disk.

        A node is built once [gist §2]: logging one already built is refused.
        """
        for name, value in (("l", l), ("i", i), ("T", T)):
            if type(value) is not int or value < 0:
                raise ValueError(f"{name} must be a non-negative int, got {value!r}")
        if l > LEVELS_MAX:
            raise ValueError(f"l must be at most {LEVELS_MAX}, got {l}")
        text = checked_text(text)
        now = local_now(now if now is not None or self.now is None else self.now())
        with self._mutex:
            self._check_writable()
            covered_end = (i + 1) << l
            if not covered_end <= T <= len(self.index.messages):
                raise ValueError(
                    f"node ({l}, {i}) covers messages {i << l} to {covered_end - 1}, so T must be "
                    f"from {covered_end} to the {len(self.index.messages)} messages logged; got T={T}"
                )
            if self.index.node_entry(l, i) != UNBUILT:
                raise ValueError(f"node ({l}, {i}) is already built, and a node is built once")
            record = {"l": l, "i": i, "text": text, "size": utf8_bytes(text), "T": T}
            number, offset = self._append(self.tree, now, encode_line(record))
            self.index.level(l, i)[i] = pack(number, offset)
            self.index.last_node = (l, i)
            self.index.appended()
        return record

    def date_now(self) -> datetime:
        """The local date a line written now gets: the World's clock when the memory was given
        one (harness/owner/world.py), else the system's."""
        return local_now(None if self.now is None else self.now())

    def _check_writable(self) -> None:
        if self._closed:
            raise StoreError("the store is closed")
        if self._read_only:
            raise StoreError(f"the chat in {self.chat} is open read only (its disk is read-only); nothing was logged")
        if self._failed is not None:
            self._recover()

    def _recover(self) -> None:
        """After a failed append whose bytes could not be taken back: take them back now, so
        the file ends where its last whole line does [S5]; until then, refuse."""
        for log in (self.main, self.tree):
            if log.appender is not None and log.appender.cut_pending:
                try:
                    log.appender.cut_back()
                except OSError as error:
                    raise StoreError(f"an earlier append failed and {log.path(len(log.names) - 1)} could not "
                                     f"be cut back to its last whole line ({error.strerror}); nothing was "
                                     "logged: try again") from None
        self._failed = None

    def _append(self, log: DayLog, now: datetime, line: bytes) -> tuple[int, int]:
        """Append one whole line to the day's file: one write, then fsync [gist §1, §7.12]."""
        try:
            # [S5] on an error the line was never acknowledged: no part of it stays
            return log.append(now, line)
        except OSError as error:
            if log.appender is not None and log.appender.cut_pending:
                self._failed = error
            where = log.path(len(log.names) - 1) if log.names else str(log.directory)
            raise StoreError(f"the line could not be written to {where} ({error.strerror or error}); "
                             "nothing of it was logged, and the next one tries again") from None
        except BaseException as error:
            if log.appender is not None and log.appender.cut_pending:
                self._failed = error  # [S5]
            raise

    # ---- reading ----

    def message(self, i: int) -> Record:
        """Message i's record, as logged."""
        with self._mutex:
            if not 0 <= i < len(self.index.messages):
                raise IndexError(f"no message {i}: the chat has {len(self.index.messages)}")
            return self._read_message(i, retry=True)

    def messages(self, start: int, stop: int) -> list[Record]:
        """The records of messages start to stop - 1 (stop is cut to the chat's length)."""
        with self._mutex:
            if start < 0 or stop < start:
                raise ValueError(f"no messages {start} to {stop}")
            return [self._read_message(i, retry=True) for i in range(start, min(stop, len(self.index.messages)))]

    def node(self, l: int, i: int) -> str | None:
        """Node (l, i)'s text, or None if it is not built."""
        with self._mutex:
            if l < 0 or i < 0:
                raise ValueError(f"no node ({l}, {i})")
            entry = self.index.node_entry(l, i)
            if entry == UNBUILT:
                return None
            record = self._read_record(self.tree, entry, None)
            if record is None:
                line = self._read_line(self.tree, entry >> OFFSET_BITS, entry & OFFSET_MASK, None)
                if node_ids(line) == (l, i):
                    self._damaged_spans.add((i << l, ((i + 1) << l) - 1))
                    return self._damaged_text(self.tree, entry, line, f"node ({l}, {i})", NODE_HEAD)
            if record is None or record.get("l") != l or record.get("i") != i:
                self._rebuild(f"the index pointed node ({l}, {i}) at another line")
                entry = self.index.node_entry(l, i)
                if entry == UNBUILT:
                    return None
                record = self._read_record(self.tree, entry, None)
                if record is None or record.get("l") != l or record.get("i") != i:
                    raise StoreError(f"node ({l}, {i}) cannot be read back from {self._where(self.tree, entry)}")
            return record["text"]

    def keys(self) -> set:
        """Every key on a message line [S8], read from the lines' tails."""
        found = set()
        with self._mutex:
            for number in range(len(self.main.names)):
                size = self.main.sizes[number]
                offset = 0
                while offset < size:
                    data = read_at(self._reader(self.main, number), min(READ_CHUNK_BYTES, size - offset), offset,
                                   self.disk)
                    if not data:
                        break
                    cut = data.rfind(b"\n") + 1 if offset + len(data) < size else len(data)
                    if cut == 0:  # a line longer than the chunk: read it whole
                        cut = len(self._read_line(self.main, number, offset, None)) + 1
                        data = read_at(self._reader(self.main, number), cut, offset, self.disk)
                    for line in data[:cut].split(b"\n"):
                        if line.endswith(b'"}') and b',"key":"' in line:
                            tail = line.rfind(TEXT_END)
                            match = MESSAGE_TAIL.fullmatch(line, tail) if tail >= 0 else None
                            if match and match[1]:
                                found.add(match[1].decode("ascii"))
                    offset += cut
        return found

    def built_levels(self) -> list[list]:
        """Which nodes are built, for the planner: each level's watermark (every node below it is
        built) and the indexes built beyond it. The scan runs at C speed to the first unbuilt
        entry; past it, only the frontier is read."""
        with self._mutex:
            found = []
            for level in self.index.levels:
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
        """False when read only, or after a failed append not yet taken back [S5]."""
        return self._failed is None and not self._read_only

    def lost(self, i: int) -> bool:
        """Whether id `i` was given and is in no whole line of the logs (a torn write) [S13]."""
        with self._mutex:
            return self.index.messages[i] == LOST

    def key_id(self, key: str) -> int | None:
        """The id of the message logged with `key`, among the latest KEYS_KEPT keys, else None."""
        with self._mutex:
            return self.index.keys.get(key)

    def last_node(self) -> tuple[int, int] | None:
        """The node logged last (the last first-logged one), or None before the first."""
        return self.index.last_node

    def nodes_after(self, last: tuple[int, int] | None) -> list[tuple[int, int, str, int]]:
        """The nodes logged after node `last` (every node if None), in log order, each as
        (l, i, text, T): what a restart replays past its checkpoint [P10]. A line the
        index does not point at (torn, or a repeat) is not a node; a node without T counts as
        built before any message."""
        with self._mutex:
            number, offset = 0, 0
            if last is not None:
                l, i = last
                entry = self.index.node_entry(l, i)
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
                data = read_at(self._reader(self.tree, n), size - start, start, self.disk)
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
                            or self.index.node_entry(l, i) != pack(n, here)):
                        continue
                    T = record.get("T")
                    found.append((l, i, record["text"], T if type(T) is int else 0))
            return found

    def _rebuild(self, reason: str) -> None:
        """The index thrown away and made again from the logs, read through new descriptors."""
        for fd in self._readers.values():
            self.disk.close(fd)
        self._readers.clear()
        self.index.rebuild(reason)

    def _read_message(self, i: int, retry: bool) -> Record:
        entry = self.index.messages[i]
        if entry == LOST:
            return self._lost_record(i)
        end = None
        if i + 1 < len(self.index.messages) and self.index.messages[i + 1] >> OFFSET_BITS == entry >> OFFSET_BITS:
            end = self.index.messages[i + 1] & OFFSET_MASK
        record = self._read_record(self.main, entry, end)
        if record is None:
            line = self._read_line(self.main, entry >> OFFSET_BITS, entry & OFFSET_MASK, end)
            found = message_id_key(line)
            if found is not None and found[0] == i:
                return self._damaged_record(i, entry, line, found[1])
        if record is not None and record.get("i") == i and (record.get("kind") not in KINDS
                                                            or not isinstance(record.get("text"), str)
                                                            or not MESSAGE_FIELDS.issuperset(record)):
            # [S13] still JSON, but its kind, its text or a field's name no longer reads as one
            # (a byte changed on disk: a "key" read as "jey" would let its message be logged
            # again): damaged, and said, as a line that is not JSON is; never raised to the replay
            line = self._read_line(self.main, entry >> OFFSET_BITS, entry & OFFSET_MASK, end)
            key = record.get("key") if isinstance(record.get("key"), str) else None
            if MESSAGE_HEAD.match(line) and line.rfind(TEXT_END) > 0:
                return self._damaged_record(i, entry, line, key)
            self._damaged_spans.add((i, i))
            self._say_damage(f"{self.chat}/{self.index.line_of(self.main, entry)} is damaged: message {i} has no "
                             "kind or text that reads: `ever doctor` says what is damaged, and `ever doctor "
                             "--repair` sets it aside")
            text = f"(message {i} is damaged in the log: `ever doctor` says more)"
            return keyed({"i": i, "kind": "note", "text": text, "size": utf8_bytes(text),
                          "date": str(record.get("date", ""))}, key)
        if record is None or record.get("i") != i:
            if not retry:
                raise StoreError(f"message {i} cannot be read back from {self._where(self.main, entry)}")
            self._rebuild(f"the index pointed message {i} at another line")
            return self._read_message(i, retry=False)
        return record

    def damaged_between(self, first: int, last: int) -> bool:
        """Whether a message from first to last is lost, or under a line read damaged [S13]."""
        with self._mutex:
            return (any(low <= last and first <= high for low, high in self._damaged_spans)
                    or LOST in self.index.messages[first:last + 1])

    def _lost_record(self, i: int) -> Record:
        """What stands for a lost id [S13], dated as the message before it."""
        text = f"(message {i} was lost to damage in the log: `ever doctor` says more)"
        date = ""
        for j in range(i - 1, max(-1, i - 1000), -1):
            if self.index.messages[j] != LOST:
                date = self._read_message(j, retry=True)["date"]
                break
        return {"i": i, "kind": "note", "text": text, "size": utf8_bytes(text), "date": date}

    def changed_under(self, l: int, i: int, name: str) -> None:
        """[S29] Node (l, i), replayed from its messages, gives another text than its line: a
        message under it changed since it was logged, its line still JSON (a byte changed on
        disk). The logged line is kept, the messages under it are taken as damaged, and it is said."""
        first, last = i << l, ((i + 1) << l) - 1
        with self._mutex:
            self._damaged_spans.add((first, last))
        self._say_damage(f"node {name} was logged from {ids_text(first, last)} as they read then, and "
                         "they read otherwise now (a byte changed on disk?): its logged line is kept")

    def _damaged_record(self, i: int, entry: int, line: bytes, key: str | None) -> Record:
        """A message whose line has its ids and its tail but not whole JSON inside its text
        (a byte changed on disk): its text as far as it reads, its key, and one sentence [S13].
        The rest of the chat reads on."""
        head, tail = MESSAGE_HEAD.match(line), line.rfind(TEXT_END)
        kind, date = (found[1].decode("utf-8", "replace") if found else "" for found in
                      (KIND_AND_DATE[0].search(line, 0, head.end()), KIND_AND_DATE[1].search(line, tail)))
        self._damaged_spans.add((i, i))
        text = self._damaged_text(self.main, entry, line, f"message {i}", MESSAGE_HEAD)
        return keyed({"i": i, "kind": kind if kind in KINDS else "note", "text": text, "size": utf8_bytes(text),
                      "date": date}, key)

    def _damaged_text(self, log: DayLog, entry: int, line: bytes, what: str, head_shape) -> str:
        """The text of a line whose ids and tail are whole and whose text is not (a byte changed
        on disk), as far as it reads; said once [S13]."""
        raw = line[head_shape.match(line).end():line.rfind(TEXT_END)].decode("utf-8", "replace")
        try:
            text = json.loads(f'"{raw}"')
        except ValueError:
            text = raw
        self._say_damage(f"{self.chat}/{self.index.line_of(log, entry)} is damaged inside {what}'s text, shown as far "
                         "as it reads: `ever doctor` says what is damaged, and `ever doctor --repair` sets it aside")
        return checked_text(text)

    def _read_record(self, log: DayLog, entry: int, end: int | None) -> Record | None:
        number, offset = entry >> OFFSET_BITS, entry & OFFSET_MASK
        if number >= len(log.names):
            return None
        line = self._read_line(log, number, offset, end)
        try:
            record = json.loads(line.decode("utf-8"))
        except ValueError:
            return None
        return record if isinstance(record, dict) else None

    def _read_line(self, log: DayLog, number: int, offset: int, end: int | None) -> bytes:
        limit = log.sizes[number]
        if offset >= limit:
            return b""
        fd = self._reader(log, number)
        if end is None or end <= offset:
            end = offset + LINE_GUESS_BYTES
        end = min(end, limit)
        while True:
            data = read_at(fd, end - offset, offset, self.disk)
            cut = data.find(b"\n")
            if cut >= 0:
                return data[:cut]
            if end >= limit or len(data) < end - offset:
                return data
            end = min(offset + 4 * (end - offset), limit)

    def _reader(self, log: DayLog, number: int) -> int:
        """A read descriptor, the least recently used closed past READERS_MAX: a long chat has
        hundreds of day files, more than a process may hold open."""
        key = (log.label, number)
        fd = self._readers.get(key)
        if fd is not None:
            self._readers.move_to_end(key)
            return fd
        if len(self._readers) >= READERS_MAX:
            self.disk.close(self._readers.popitem(last=False)[1])
        fd = self.disk.open(log.path(number), os.O_RDONLY | os.O_CLOEXEC)
        self._readers[key] = fd
        return fd

    def _where(self, log: DayLog, entry: int) -> str:
        number = entry >> OFFSET_BITS
        name = log.relative(number) if number < len(log.names) else f"{log.label}/(file {number})"
        return f"{name} byte {entry & OFFSET_MASK}"

    # ---- the saved view ----

    def save_view(self, view: dict) -> None:
        """Replace view.json with `view` (JSON-able), atomically [S6]."""
        if not isinstance(view, dict):
            raise TypeError(f"the view must be a dict, got {type(view).__name__}")
        data = json.dumps(view, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        with self._mutex:
            if self._closed:
                raise StoreError("the store is closed")
            if self._read_only:
                raise StoreError("the chat is open read only")
            write_whole(self.chat / "view.json", data.encode("utf-8"), self.disk)

    def load_view(self) -> dict | None:
        """The saved view, or None if none was ever saved."""
        path = self.chat / "view.json"
        try:
            # a FIFO or a link to /dev/zero put there never hangs a command: a file Ever writes
            data = read_regular(path, VIEW_BYTES_MAX, follow=False, disk=self.disk)
        except FileNotFoundError:
            return None
        except NotReadable as refused:
            raise StoreError(f"{path} {refused}") from None
        except OSError as error:
            raise StoreError(f"{path} cannot be read ({error.strerror or error})") from None
        try:
            view = json.loads(data)
        except (ValueError, RecursionError) as error:
            raise StoreError(f"{path} is not valid JSON ({error}): it is only ever replaced whole") from None
        if not isinstance(view, dict):
            raise StoreError(f"{path} holds a {type(view).__name__}, not the saved view")
        return view
