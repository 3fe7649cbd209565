"""`ever import`: old sessions from other tools become `note` messages [gist §1], oldest first.

A parser per format (`claude_code`, `codex`, `pi`, `llm_db`, `text_files` in this package, each
registered in `formats`) turns a file into `Note`s (`notes`: the note, the times, a tool's text,
which every parser shares): a source identity, the original time, a role and a body. This module
then applies the rules every format shares, and writes the notes once:

- **[I1], a header per note**: `[imported: SOURCE · ROLE · TIME]` (with a mark such as
  "sidechain" or "side branch" before the role), the body on the next line. No path, session or
  id: they would weigh on every view and tell the model nothing. They stay on the log line, in
  its `from` field, which no request carries (harness/memory/store.py's format), and the note's
  key is the hash of its source identity [I4].
- **[I2], long texts are split, never cut** [gist §1]: a body too long for one page of zoom
  (30,000 characters, `note: ` and the header included) becomes several notes in a row, `part k
  of n` in each header, each but the last filling its page exactly (`split_pieces`). A tool's
  output is clipped to its head and tail, as in the chat, less room for the header (`clip_output`,
  `NOTE_OUTPUT_CHARS_MAX`); a thought is not imported, as the chat never logs one [gist §1].
- **[I3], repeated history and repeated pastes are kept once.** A note whose source identity was
  seen (a resumed session repeating its history, one API response split over several lines)
  is one note; a body of at least `PASTE_CHARS_MIN` characters met again becomes a short note
  naming the first.
- **[I4], idempotent**: each note's key is a hash of its source identity (and its part); a key
  already on a message line of the chat [S8] is not written again. Importing the same
  file twice adds nothing; an import killed half-way adds, when run again, what it had not.
- **[I5], the date** of a note is its original time, so `date(id)` and `ever browse` give when it
  was said; the log's file is named by the store's rule [S1] (the clock "went back").

**Hostile inputs.** Only regular files are read, opened without blocking and checked on the
descriptor (`open_regular`): a FIFO, a device, a link that loops is one sentence and is passed
over in a directory; reads are bounded (notes.JSON_LINE_BYTES_MAX, notes.TEXT_FILE_BYTES_MAX); a line
nested too deep or not JSON is a line not read; a byte that is not UTF-8 becomes U+FFFD, its line
kept; a folder that cannot be listed is named among those passed over.

The planner and the compactor treat the notes as any messages. Before writing, the import
counts them (`Plan`) and estimates the compactions they will cost from their sizes and the
chat's length (`estimate_compactions`), then the tokens and dollars (`estimate_cost`).
"""

import hashlib
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path

from harness.imports.formats import NAMED, detect, parse
from harness.imports.notes import ImportFailed, Note
from harness.memory.line import LINE_BYTES_MAX
from harness.memory.text import valid_text

PASTE_CHARS_MIN = 1_000  # a body this long met again is a repeated paste [I3]
SIDE_DIRECTORIES = ("tool-results",)  # Claude Code's copies of long tool output: noise, not sessions


def source_files(paths: Sequence[str], own: Path | None = None,
                 passed_over: list[tuple[Path, str]] | None = None) -> list[tuple[Path, bool]]:
    """Each path given (True: named), and the files under each directory given (False), in name
    order; never the files of the chat itself (`own`, its directory). A folder that cannot be
    read is added to `passed_over` with why, never passed over silently."""
    found: list[tuple[Path, bool]] = []

    def unreadable(error: OSError) -> None:
        if passed_over is not None:
            passed_over.append((Path(error.filename or "?"), f"cannot be read: {error.strerror or error}"))

    for given in paths:
        path = Path(given).expanduser()
        if path.is_dir():
            for root, directories, files in os.walk(path, onerror=unreadable):
                directories.sort()
                if own is not None and Path(root).resolve().is_relative_to(own.resolve()):
                    directories.clear()
                    continue
                directories[:] = [d for d in directories if d not in SIDE_DIRECTORIES]
                for name in sorted(files):
                    if not name.lower().endswith((".jsonl", ".md", ".markdown", ".txt", ".db")):
                        continue
                    file = Path(root) / name
                    left = leaves(file, path)
                    if left is not None:  # [H16] a link out of the folder named: said, not followed
                        if passed_over is not None:
                            passed_over.append((file, f"it is a link to {left}, outside {given}; to import "
                                                      f"that file on purpose, name it: ever import {left}"))
                        continue
                    found.append((file, False))
        elif path.is_file():
            found.append((path, True))
        else:
            raise ImportFailed(f"{given} is neither a file nor a directory")
    return found


def leaves(file: Path, folder: Path) -> Path | None:
    """Where a link under `folder` leads when that is outside it; None for a file of the folder."""
    if not file.is_symlink():
        return None
    target = Path(os.path.realpath(file))
    if not target.is_file():
        return None  # a device, a FIFO, a folder: refused as what it is, where the file is read
    return None if target.is_relative_to(Path(os.path.realpath(folder))) else target


@dataclass(frozen=True)
class Message:
    """A note as it will be logged: its key, its time and its whole text."""

    key: str
    date: datetime
    text: str
    origin: str = ""  # the log line's `from`: the file, the place in it, the session and the id [I1]
    file: str = ""  # the file its note came from: the per-file counts add up to the total
    parts: int = 1  # how many pages its note was split into [I2]


def key_of(identity: str, part: int) -> str:
    return f"import:{hashlib.sha256(identity.encode('utf-8')).hexdigest()[:40]}.{part}"


def header(note: Note, part: int, parts: int) -> str:
    """What the model needs of a note's origin [I1]: the tool, the role (after a mark such as
    "sidechain") and the original time; never a path or an id, which would cost bytes in every
    view and say nothing (the key names the note, [I4])."""
    pieces = [f"imported: {NAMED[note.source].source_name}", *note.marks, note.role,
              note.date.isoformat(timespec="seconds")]
    if parts > 1:
        pieces.append(f"part {part} of {parts}")
    return "[" + " · ".join(piece for piece in pieces if piece) + "]"


def messages_of(notes: Iterable[Note]) -> list[Message]:
    """The notes, oldest first, as the messages to log [I1]–[I3] [I5]."""
    # of the same note in two files (a resumed session), the first file in name order is named
    ordered = sorted(enumerate(notes), key=lambda pair: (pair[1].date, pair[1].file, pair[0]))
    seen_identities = set()
    first_paste: dict[str, str] = {}
    messages: list[Message] = []
    for _, note in ordered:
        if note.identity in seen_identities:
            continue  # [I3] repeated history
        seen_identities.add(note.identity)
        body = valid_text(note.body)
        if len(body) >= PASTE_CHARS_MIN:
            digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
            first = first_paste.get(digest)
            if first is not None:
                body = f"(the same {len(body):,} characters as the note headed {first})"
            else:
                first_paste[digest] = header(note, 1, 1)
        pieces = split_pieces(body, partial(header, note))
        for k, piece in enumerate(pieces, 1):
            origin = " · ".join((f"{note.file} {note.position}", *note.origin))
            messages.append(Message(key_of(note.identity, k), note.date,
                                    header(note, k, len(pieces)) + "\n" + piece, origin, str(note.file),
                                    len(pieces)))
    return messages


ZOOM_CHARS = 30_000  # a message zoom shows whole on one page (harness/memory/service.py PAGE_CHARS)


def split_pieces(body: str, header_of: Callable[[int, int], str] = lambda k, n: "") -> list[str]:
    """The body in pieces such that each note, `note: ` and its header on top, fits one page of
    zoom, and every note of a split but the last fills its page exactly [I2]. A piece's room
    depends on its header's "part k of n": the count is the least n whose rooms hold the body
    (the first n - 1 rooms at n hold less than the body, as a header only grows with n, so the
    last piece is never empty)."""
    def room(k: int, parts: int) -> int:
        return ZOOM_CHARS - len("note: ") - len(header_of(k, parts)) - len("\n")

    parts = 1
    while sum(room(k, parts) for k in range(1, parts + 1)) < len(body):
        parts += 1
    pieces, start = [], 0
    for k in range(1, parts):
        pieces.append(body[start:start + room(k, parts)])
        start += room(k, parts)
    pieces.append(body[start:])
    return pieces


SUMMARY_LINE_BYTES = 480  # what a compactor's line is taken to weigh: near the 512 it may use


def estimate_compactions(sizes: Sequence[int], first: int = 0) -> tuple[int, int]:
    """(summaries, merges) the compactor will be asked for, estimated from the sizes of notes
    logged from message `first` on (the chat's count before the import).

    The planner builds the whole tree over the notes in time [gist §2]: a note of at most 512
    bytes with its kind is its own line for free, a longer one costs a summary call; two lines
    whose join fits 512 bytes make their parent for free, any other pair costs a merge call. The
    notes' nodes are the tree's, aligned on the chat's ids: a node whose range holds a note and
    ends by the last one is the import's, and one that starts before `first` joins a line of the
    chat's own. The sizes of the compactor's lines and of the chat's are not known before it
    writes them: each is taken to weigh SUMMARY_LINE_BYTES. tests/chat/test_import.py compares
    the figure with what a planner asks.
    """
    summaries = 0
    level: dict[int, int] = {}  # the import's nodes of one level, by their index
    for k, size in enumerate(sizes):
        source = size + len("note: ")
        if source > LINE_BYTES_MAX:
            summaries += 1
            source = SUMMARY_LINE_BYTES
        level[first + k] = source
    end = first + len(sizes)
    merges, l = 0, 1
    while (end >> l) > (first >> l):  # the level's whole nodes that hold a note: first >> l to end >> l
        parents = {}
        for i in range(first >> l, end >> l):
            joined = level.get(2 * i, SUMMARY_LINE_BYTES) + 1 + level.get(2 * i + 1, SUMMARY_LINE_BYTES)
            if joined <= LINE_BYTES_MAX:
                parents[i] = joined
            else:
                merges += 1
                parents[i] = SUMMARY_LINE_BYTES
        level, l = parents, l + 1
    return summaries, merges


CONTEXT_BYTES_MAX = 32_000  # [gist §4] a compaction's <chat>, tags apart
CONTEXT_TAGS_BYTES = len("<chat>\n") + len("</chat>")
TASK_BYTES = 900  # a task's words and its 512-dash ruler, without the text it gives (harness/calls/prompt.py)
CALL_SECONDS = 5  # what one compaction is taken to last, waiting included: an assumption, said so


@dataclass(frozen=True)
class Cost:
    """What the compactions an import causes will cost, estimated before a byte is written.

    The rule, every figure counted high: a token stands for at least one byte (harness/calls/
    models.py's `input_tokens_max`), so bytes are taken as tokens. Each compaction reads from the
    cache the prefix every call shares (tools and system prompt, `prefix_bytes`) and its `<chat>`
    context at its ceiling (32,000 bytes and the tags); it writes to the cache what follows its
    cached part: its task (TASK_BYTES and the text it gives: a note's bytes for a summary, two
    lines of SUMMARY_LINE_BYTES for a merge) and the line the call before it added to the
    context; the first call also writes the prefix and the context. Each answers at most a line
    of 512 bytes. Dollars are the table's list prices (5-minute cache writes); the time is the
    calls, `jobs_max` at once, CALL_SECONDS each.
    """

    calls: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    cents: float | None  # None: the model is not in the table, so no price is known
    seconds: int


def estimate_cost(sizes: Sequence[int], price, prefix_bytes: int, jobs_max: int, first: int = 0,
                  weight=None) -> Cost:
    """The `Cost` of notes of these UTF-8 sizes (their whole text, header included) logged from
    message `first` on, at `price` (harness/calls/models.py's `Price`, or None). With no `weight`,
    the bound: bytes as tokens, each answer a whole line. With one (harness/imports/tokens.py's
    `Weight`, the API's count of a sample) the likely figure [I6]: the prefix its counted tokens,
    every other byte at the notes' bytes per token, each answer a line of SUMMARY_LINE_BYTES."""
    summaries, merges = estimate_compactions(sizes, first)
    calls = summaries + merges
    long_bytes = sum(size + len("note: ") for size in sizes if size + len("note: ") > LINE_BYTES_MAX)
    context = CONTEXT_BYTES_MAX + CONTEXT_TAGS_BYTES
    if weight is None:
        def tokens(nbytes: int) -> int:
            return nbytes
        prefix, answer = prefix_bytes, LINE_BYTES_MAX
    else:
        def tokens(nbytes: int) -> int:
            return round(nbytes / weight.bytes_per_token)
        prefix, answer = weight.prefix_tokens, SUMMARY_LINE_BYTES
    read = calls * (prefix + tokens(context))
    written = (tokens(calls * (TASK_BYTES + SUMMARY_LINE_BYTES) + long_bytes + merges * 2 * SUMMARY_LINE_BYTES)
               + (prefix + tokens(context) if calls else 0))
    output = calls * tokens(answer)
    cents = None
    if price is not None:
        # a float: a price may be a Fraction of a cent (Haiku 5.5's $0.125 write)
        cents = float(read * price.cache_read + written * price.cache_write_5m + output * price.output) / 1_000_000
    seconds = -(-calls // max(jobs_max, 1)) * CALL_SECONDS
    return Cost(calls, read, written, output, cents, seconds)


@dataclass
class Plan:
    """What an import will do: the messages to add, and those already in the chat."""

    files: list[tuple[Path, str, int, int, str]]  # path, format, notes, lines skipped, why none
    messages: list[Message]
    present: int
    passed_over: list[tuple[Path, str]] = field(default_factory=list)  # a directory's files not read, and why

    @property
    def sizes(self) -> list[int]:
        """Each message's UTF-8 bytes, header included: what the estimates take."""
        return [len(m.text.encode("utf-8")) for m in self.messages]


def plan(paths: Sequence[str], fmt: str | None, present_keys: set, own: Path | None = None) -> Plan:
    files = []
    passed_over: list[tuple[Path, str]] = []
    notes: list[Note] = []
    for path, named in source_files(paths, own, passed_over):
        try:
            this = fmt or detect(path)
            parsed = parse(path, this)
        except ImportFailed as error:
            if named:
                raise
            passed_over.append((path, str(error)))  # a stray file in a directory stops nothing
            continue
        files.append((path, this, len(parsed.notes), parsed.skipped, parsed.empty_because))
        notes.extend(parsed.notes)
    every = messages_of(notes)
    todo = [m for m in every if m.key not in present_keys]
    return Plan(files, todo, len(every) - len(todo), passed_over)


def write(memory, messages: Sequence[Message], progress: Callable[[int], None] = lambda n: None) -> int:
    """Log each message once, in order [I4]; a key logged meanwhile is skipped."""
    present = memory.store.keys()
    written = 0
    for message in messages:
        if message.key not in present:
            memory.append("note", message.text, now=message.date, key=message.key,
                          origin=message.origin or None)
            present.add(message.key)
            written += 1
        progress(1)
    return written
