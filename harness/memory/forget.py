"""`ever forget ID… --why TEXT`: messages removed from every place Ever keeps them, then proved gone.

The log is never edited, but for this [S22]: a leaked secret, or anything the person must remove.
With the chat's lock held, in this order; while an owner runs (`ever serve`, an open `ever chat`),
the owner does it (the socket's `forget`, the chat's `/forget`): between two turns, its memory
closed and its lock kept, then opened again [S33]:

1. **The day files.** Each file holding a forgotten message is written as a new generation (the
   whole file to `NAME.tmp`, fsync'd, renamed over it, the folder fsync'd: a kill leaves the old
   file or the new one): the forgotten line becomes a tombstone with the same id, kind, date and
   key, and every other line is byte for byte as it was, so no id moves.
2. **The tree.** Every node covering a forgotten message, every node whose line holds the text,
   and every node above those (merged from them) leaves its tree file, written the same way; the
   compactor builds them again from what remains at the next open [gist §2].
3. **What is made from the logs**: the store's index, the search database, the view's checkpoint
   and `ever browse`'s page are removed; each is made again at the first open.
4. **The other files**: the inbox, the subagents' logs, the usage, the damage record and what it
   set aside, and the terminal's history: a JSON line holding the text keeps its place with the
   text replaced by `(forgotten)`, another line holding it goes.
5. **The backups Ever manages** (the configured `[backup] dest` and every destination this home
   backed up into): a folder gets a new backup, whose new generations replace the files the old
   manifest named, which are then removed; a restic repository gets a new snapshot, then
   `restic forget --keep-last 1 --prune`.
6. **The pages** `ever browse --out` wrote (harness/memory/pages.py) are made anew from what
   remains [B5].
7. **The proof.** Every file under the home, under each backup (a restic snapshot restored to
   read it) and each page `ever browse --out` wrote (its compressed parts opened) is searched
   for each text and its encodings: as written, JSON-escaped, base64 (at each of the three
   alignments) and URL-encoded. A place that cannot be read is not clean. The key's
   file is the key's own place: a text found there is said, not counted.
8. **The record**: `chat/forgotten.jsonl` gets one line, appended and fsync'd: the ids, when, why
   and the SHA-256 of the removed lines, never the text [S23].

What is searched for: each message's whole text (at least `NEEDLE_CHARS_MIN` characters), and
each word of it that looks like a secret (`SECRET`: the patterns of API keys and tokens, and any
run of `LONG_WORD_CHARS` letters, digits or `-_+/=`), since a summary or a reply quotes a secret
without the sentence around it.
"""

import base64
import hashlib
import json
import os
import re
import stat
import tempfile
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from harness.memory import backup as backups
from harness.memory import home as table
from harness.memory.daylog import message_id, message_id_key, node_ids
from harness.memory.disk import REAL_DISK, Disk
from harness.memory.lock import ChatLock
from harness.memory.logfile import LogFile, encode_line, is_directory, is_file, read_file, remove, write_whole
from harness.memory.pages import opened, pages_written

FORGOTTEN = "(forgotten)"
RECORD = "chat/forgotten.jsonl"
NEEDLE_CHARS_MIN = 12
LONG_WORD_CHARS = 24
# what an API key or a token looks like: offered for forgetting the moment a message holds one
SECRET = re.compile(
    r"sk-ant-[A-Za-z0-9_-]{20,}"  # Anthropic
    r"|sk-(?:proj-)?[A-Za-z0-9_-]{32,}"  # OpenAI
    r"|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,}"  # GitHub
    r"|AKIA[0-9A-Z]{16}"  # AWS access key
    r"|xox[abpr]-[A-Za-z0-9-]{10,}"  # Slack
    r"|AIza[0-9A-Za-z_-]{35}"  # Google
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----"
)
LONG_WORD = re.compile(r"[A-Za-z0-9_\-+/=]{" + str(LONG_WORD_CHARS) + ",}")
CACHES = ("chat/view.json", "chat/search.sqlite", "chat/search.sqlite-journal", "chat/memory.html",
          "chat/index/meta.json")


class ForgetError(Exception):
    """A forget that cannot be done as asked: one sentence, and nothing was changed."""


@dataclass(frozen=True)
class Doomed:
    """A message to forget, as the question shows it."""

    i: int
    kind: str
    date: str
    text: str


@dataclass
class Report:
    """What a forget did, and what its proof found."""

    ids: tuple[int, ...]
    nodes_removed: int = 0
    files_rewritten: list[str] = field(default_factory=list)
    backups_rewritten: list[str] = field(default_factory=list)
    pages_rewritten: list[str] = field(default_factory=list)  # written by `ever browse --out`
    searched_files: int = 0
    searched_bytes: int = 0
    forms: int = 0
    found: list[str] = field(default_factory=list)  # places still holding a text: not clean
    unreadable: list[str] = field(default_factory=list)  # places not searched: not clean
    key_file: str = ""  # the key's own file holds a text

    @property
    def clean(self) -> bool:
        return not self.found and not self.unreadable


def secrets_in(text: str) -> list[str]:
    """The words of `text` that look like an API key or a token."""
    return [match.group() for match in SECRET.finditer(text)]


def needles(texts: list[str]) -> list[str]:
    """What the proof searches for: each text, and each of its words that may be a secret."""
    found: list[str] = []
    for text in texts:
        if len(text) >= NEEDLE_CHARS_MIN:
            found.append(text)
        found += secrets_in(text) + LONG_WORD.findall(text)
    return sorted(set(needle for needle in found if needle), key=len, reverse=True)


def forms(needle: str) -> list[bytes]:
    """The needle as a file may hold it: as written, JSON-escaped (both ways), base64 at each of
    the three alignments (the characters that depend on its neighbours cut off), URL-encoded."""
    raw = needle.encode("utf-8")
    found = {raw, json.dumps(needle)[1:-1].encode("ascii"),
             json.dumps(needle, ensure_ascii=False)[1:-1].encode("utf-8"),
             urllib.parse.quote(needle, safe="").encode("ascii"), urllib.parse.quote_plus(needle).encode("ascii")}
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + raw)
        start = (shift * 4 + 2) // 3  # the characters holding the padding's bits
        whole = (len(raw) + shift) // 3 * 4  # past it, the characters holding the next byte's
        end = whole if (len(raw) + shift) % 3 else len(encoded)
        piece = encoded[start:end]
        if len(piece) >= 8:
            found.add(piece)
            found.add(piece.replace(b"+", b"-").replace(b"/", b"_"))  # URL-safe base64
    return sorted(found, key=len, reverse=True)


def day_files(home: Path, log: str, disk: Disk) -> list[Path]:
    folder = home / "chat" / log
    try:
        names = sorted(name for name in disk.listdir(folder) if name.endswith(".jsonl"))
    except FileNotFoundError:
        return []
    return [folder / name for name in names]


def doomed(home: Path, ids: list[int], disk: Disk = REAL_DISK) -> list[Doomed]:
    """The messages `ids` name, as logged; ForgetError for an id the chat does not hold."""
    wanted = set(ids)
    found: dict[int, Doomed] = {}
    last = -1
    for path in day_files(home, "main", disk):
        for line in read_file(path, disk).split(b"\n"):
            i = message_id(line)
            if i is None:
                continue
            last = max(last, i)
            if i in wanted:
                record = json.loads(line)
                found[i] = Doomed(i, record["kind"], record["date"], record["text"])
    missing = sorted(wanted - set(found))
    if missing:
        have = f"0 to {last}" if last >= 0 else "no messages"
        raise ForgetError(f"the chat holds messages {have}; there is no message {missing[0]} to forget")
    return [found[i] for i in sorted(found)]


def tombstone(line: bytes, when: str) -> bytes:
    """A forgotten message's line: its id, kind, date and key, its text gone."""
    record = json.loads(line)
    text = f"(forgotten: removed by `ever forget` on {when[:10]})"
    kept = {"i": record["i"], "kind": record["kind"], "text": text, "size": len(text.encode("utf-8")),
            "date": record["date"]}
    key = message_id_key(line)
    if key is not None and key[1] is not None:
        kept["key"] = key[1]  # a retry of the same message is still known: logged once
    return encode_line(kept)[:-1]


def holds(data: bytes, patterns: list[bytes]) -> bool:
    return any(pattern in data for pattern in patterns)


def rewrite_days(home: Path, ids: set[int], when: str, disk: Disk) -> tuple[list[str], bytes]:
    """Each day file holding a forgotten message as a new generation; the removed lines."""
    rewritten, removed = [], []
    for path in day_files(home, "main", disk):
        data = read_file(path, disk)
        lines = data.split(b"\n")
        changed = False
        for k, line in enumerate(lines):
            i = message_id(line)
            if i is not None and i in ids:
                removed.append(line)
                lines[k] = tombstone(line, when)
                changed = True
        if changed:
            write_whole(path, b"\n".join(lines), disk)
            rewritten.append(str(path.relative_to(home)))
    return rewritten, b"\n".join(removed)


def rewrite_tree(home: Path, ids: set[int], patterns: list[bytes], disk: Disk) -> tuple[list[str], int]:
    """The nodes over a forgotten message, or holding its text, and every node above them, out
    of the tree files; the files rewritten and the nodes removed."""
    files = day_files(home, "tree", disk)
    contents = [read_file(path, disk).split(b"\n") for path in files]
    gone: set[tuple[int, int]] = set()
    for lines in contents:
        for line in lines:
            ids_of = node_ids(line)
            if ids_of is None:
                continue
            l, i = ids_of
            if any((i << l) <= j < ((i + 1) << l) for j in ids) or holds(line, patterns):
                gone.add((l, i))
    above = set()
    for l, i in gone:
        for up in range(1, 64 - l):
            above.add((l + up, i >> up))
    gone |= above
    rewritten, removed = [], 0
    for path, lines in zip(files, contents):
        kept = []
        for line in lines:
            ids_of = node_ids(line)
            if (ids_of is not None and ids_of in gone) or (ids_of is None and holds(line, patterns)):
                removed += ids_of is not None
                continue
            kept.append(line)
        if len(kept) != len(lines):
            write_whole(path, b"\n".join(kept), disk)
            rewritten.append(str(path.relative_to(home)))
    return rewritten, removed


def scrubbed(value, texts: list[str]):
    """A JSON value with each text in its strings replaced by `(forgotten)`."""
    if isinstance(value, str):
        for text in texts:
            value = value.replace(text, FORGOTTEN)
        return value
    if isinstance(value, list):
        return [scrubbed(item, texts) for item in value]
    if isinstance(value, dict):
        return {key: scrubbed(item, texts) for key, item in value.items()}
    return value


def scrub_lines(home: Path, relative: str, texts: list[str], patterns: list[bytes], disk: Disk) -> bool:
    """A file of lines with the texts out of it, as a new generation; whether it changed."""
    path = home / relative
    data = read_file(path, disk)
    if not holds(data, patterns):
        return False
    out = []
    for line in data.split(b"\n"):
        if not holds(line, patterns):
            out.append(line)
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue  # not a record: the line goes
        line = encode_line(scrubbed(record, texts))[:-1]
        if not holds(line, patterns):
            out.append(line)
    write_whole(path, b"\n".join(out), disk)
    return True


def other_files(home: Path, disk: Disk) -> list[str]:
    """The files of lines besides the day files that may quote a message: the inbox, the logs of
    the subagents and the usage, the damage record and what it set aside, the history."""
    found = []
    for relative, place in backups.live_files(home, disk):
        if place.name in ("inbox", "subagents", "usage", "damage", "set aside"):
            found.append(relative)
    if is_file(home / "history", disk):
        found.append("history")
    return found


def managed_dests(home: Path, configured: str | None, disk: Disk = REAL_DISK) -> list[str]:
    """The backups a forget rewrites: `[backup] dest`, and every destination this home backed up into."""
    from harness.memory.backup_state import load_state

    return sorted(set(load_state(home, disk)) | ({configured} if configured else set()))


def forget(home: Path, ids: list[int], why: str, disk: Disk = REAL_DISK, dests: list[str] = (),
           now: datetime | None = None, page: Callable[[Path], None] | None = None) -> Report:
    """Forget messages `ids` of the chat in `home`, and in each backup of `dests`; the report of
    what was done and of the proof. ChatBusy while an owner runs (the owner forgets through
    `forget_home` and `finish`, with its own lock). `page(path)` writes `ever browse`'s page anew
    at each path a page was written with `--out` (None: they are searched, not rewritten)."""
    report, patterns = forget_home(home, ids, why, disk, now)
    finish(home, dests, report, patterns, disk, page=page)
    return report


def forget_home(home: Path, ids: list[int], why: str, disk: Disk = REAL_DISK, now: datetime | None = None,
                lock: ChatLock | None = None) -> tuple[Report, list[bytes]]:
    """Steps 1 to 4 and 7, under the chat's lock (`lock`: held already, by an owner whose memory is
    closed meanwhile); the report so far and the patterns the proof searches for."""
    when = (now or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")
    held = lock is not None
    if lock is None:
        lock = ChatLock(home / "chat", disk)
        lock.take(read_only=False)
    try:
        messages = doomed(home, ids, disk)
        texts = [message.text for message in messages]
        searched = needles(texts)
        if any(needle in why for needle in searched):
            raise ForgetError("--why holds the text being forgotten; say why in other words")
        patterns = [form for needle in searched for form in forms(needle)]
        report = Report(tuple(m.i for m in messages), forms=len(patterns))
        days, removed = rewrite_days(home, set(report.ids), when, disk)
        tree, report.nodes_removed = rewrite_tree(home, set(report.ids), patterns, disk)
        report.files_rewritten = days + tree
        for relative in other_files(home, disk):
            if scrub_lines(home, relative, texts + searched, patterns, disk):
                report.files_rewritten.append(relative)
        for relative in CACHES:
            remove(home / relative, disk)
        index = home / "chat" / "index"
        for name in disk.listdir(index) if is_directory(index, disk) else ():
            remove(index / name, disk)
        for relative, _ in table.walk(home):
            if relative.endswith(".tmp"):
                remove(home / relative, disk)
        record = {"ids": list(report.ids), "when": when, "why": why,
                  "sha256": hashlib.sha256(removed).hexdigest()}
        log = LogFile(home / RECORD, disk=disk)
        try:
            log.append(encode_line(record))
        finally:
            log.close()
    finally:
        if not held:
            lock.release()
    return report, patterns


def finish(home: Path, dests, report: Report, patterns: list[bytes], disk: Disk = REAL_DISK,
           at=None, page: Callable[[Path], None] | None = None) -> None:
    """Steps 5 to 7: each backup rewritten (`at`: the owner's `quiesce`), each page `ever browse
    --out` wrote made anew by `page(path)`, then the proof."""
    for dest in dests:
        try:
            backups.backup(home, dest, disk, at, history=False)  # [S32] no older snapshot holds it
            if backups.is_restic(dest):
                backups.restic(dest[len(backups.RESTIC):], "forget", "--tag", "ever", "--group-by", "host,tags",
                                 "--keep-last", "1", "--prune")
            report.backups_rewritten.append(dest)
        except (backups.BackupError, OSError) as error:
            report.unreadable.append(f"{dest} (its backup could not be rewritten: {error})")
    pages = pages_written(home, disk)
    for path in pages:
        if page is None or not os.path.lexists(path):
            continue
        try:
            page(path)
            report.pages_rewritten.append(str(path))
        except (OSError, ValueError) as error:
            said = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
            report.unreadable.append(f"{path} (a page `ever browse` wrote, not rewritten: {said})")
    prove(home, dests, patterns, report, pages)


def search_file(path: Path, patterns: list[bytes], report: Report, shown: str) -> None:
    """One file searched in pieces that overlap by the longest pattern."""
    overlap = max((len(p) for p in patterns), default=0)
    try:
        status = os.lstat(path)
        if stat.S_ISSOCK(status.st_mode):
            return  # the owner's socket holds no bytes
        if not stat.S_ISREG(status.st_mode):
            report.unreadable.append(f"{shown} (not a regular file)")
            return
        if path.suffix == ".html":  # a page: its parts are gzip'd and base64'd [B5]
            with open(path, "rb") as f:
                if holds(opened(f.read()), patterns):
                    report.found.append(shown)
                    return
            report.searched_files += 1
            report.searched_bytes += status.st_size
            return
        with open(path, "rb") as f:
            tail = b""
            while chunk := f.read(1 << 20):
                data = tail + chunk
                if holds(data, patterns):
                    report.found.append(shown)
                    return
                tail = data[-overlap:] if overlap else b""
        report.searched_files += 1
        report.searched_bytes += status.st_size
    except OSError as error:
        report.unreadable.append(f"{shown} ({error.strerror or error})")


def search_tree(root: Path, patterns: list[bytes], report: Report, label: str, key: Path | None = None) -> None:
    """Every file under `root`, links not followed (each is said as not searched)."""
    def failed(error: OSError) -> None:
        report.unreadable.append(f"{error.filename} ({error.strerror})")

    for folder, names, files in os.walk(root, onerror=failed):
        for name in files + [n for n in names if os.path.islink(os.path.join(folder, n))]:
            path = Path(folder) / name
            shown = f"{label}/{path.relative_to(root)}" if label else str(path)
            if key is not None and path == key:
                found = Report(())
                search_file(path, patterns, found, shown)
                report.key_file = shown if found.found else ""
                continue
            search_file(path, patterns, report, shown)


def prove(home: Path, dests, patterns: list[bytes], report: Report, pages: list[Path] = ()) -> None:
    search_tree(home, patterns, report, str(home), key=home / "key")
    for path in pages:
        if os.path.lexists(path):
            search_file(path, patterns, report, str(path))
    if os.path.exists(home / "chat" / "search.sqlite"):
        # its words are kept split and lowercased, where no search of bytes finds them
        report.unreadable.append(f"{home / 'chat' / 'search.sqlite'} (a search database, whose words no byte "
                                 "search finds: it should have been removed)")
    for dest in dests:
        if backups.is_restic(dest):
            repository = dest[len(backups.RESTIC):]
            try:
                snapshots = backups.restic_snapshots(repository)
                for snapshot in snapshots:
                    with tempfile.TemporaryDirectory(prefix="ever-forget-") as scratch:
                        folder = backups.restic_restored(repository, Path(scratch), snapshot)
                        search_tree(folder, patterns, report, f"{dest} snapshot {snapshot[:8]}")
            except (backups.BackupError, OSError) as error:
                report.unreadable.append(f"{dest} ({error})")
            if os.path.isdir(repository):
                search_tree(Path(repository), patterns, report, repository)  # encrypted: as a last look
        elif os.path.isdir(dest):
            search_tree(Path(dest), patterns, report, str(Path(dest)))
        else:
            report.unreadable.append(f"{dest} (not found)")


def report_text(report: Report) -> str:
    """The outcome for a person: what was done, and whether the proof found the text anywhere."""
    ids = ", ".join(str(i) for i in report.ids)
    said = [f"Forgot message{'' if len(report.ids) == 1 else 's'} {ids}: each line is now a tombstone with "
            f"the same id, and no other line of the log changed.",
            f"{report.nodes_removed:,} line{'' if report.nodes_removed == 1 else 's'} of the tree over it "
            "were removed, and the indexes, the search database and the view's checkpoint: the next open "
            "builds them again from what remains (the compactor summarizes the removed lines anew)."]
    if report.backups_rewritten:
        said.append("Rewritten: " + ", ".join(report.backups_rewritten) + ".")
    if report.pages_rewritten:
        said.append("Made anew from what remains: " + ", ".join(report.pages_rewritten) + " (`ever browse --out`).")
    searched = (f"Searched {report.searched_files:,} files ({report.searched_bytes:,} bytes) under the home"
                f"{' and the backups' if report.backups_rewritten else ''} for the text in {report.forms} forms")
    if report.clean:
        said.append(f"{searched}: none holds it.")
    else:
        places = report.found + report.unreadable
        said.append(f"{searched}: NOT clean: {'; '.join(places[:5])}"
                    f"{f' and {len(places) - 5} more' if len(places) > 5 else ''}"
                    f"{' (still holding it' if report.found else ''}"
                    f"{'' if not report.found else '; forget the messages that hold it too)'}.")
    if report.key_file:
        said.append(f"{report.key_file} holds it: it is the key's own file; if the key leaked, make a new one.")
    return "\n".join(said)
