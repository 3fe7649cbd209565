"""What every parser of `ever import` makes and uses: a `Note`, its `Format`, the times, a tool's text."""

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from harness.memory.logfile import open_regular
from harness.memory.text import OUTPUT_CHARS_MAX, clip_output

JSON_LINE_BYTES_MAX = 64 << 20  # a session's line longer than this is skipped, never held whole
TEXT_FILE_BYTES_MAX = 64 << 20  # a text file longer than this is refused, in one sentence


# A tool's output is clipped as the chat clips it, less room for the note's header and `note: `
# (HEADER_CHARS_MAX), so that a clipped output is one note that zoom shows on one page [I1] [I2].
HEADER_CHARS_MAX = 256
NOTE_OUTPUT_CHARS_MAX = OUTPUT_CHARS_MAX - HEADER_CHARS_MAX


class ImportFailed(Exception):
    """A source cannot be imported; the message says why, in one sentence."""


@dataclass(frozen=True)
class Note:
    """One message of an old session, as a parser read it."""

    source: str  # its Format's name
    identity: str  # what makes it the same note in another file or another run [I4]
    date: datetime  # the original time, timezone-aware
    role: str  # user, assistant, tool call, tool result, compaction summary, ...
    body: str
    file: str  # the file it came from, as the user named it
    position: str  # where in the file: "line 12", "row 3"
    marks: tuple[str, ...] = ()  # shown in the header: sidechain, side branch, ...
    origin: tuple[str, ...] = ()  # logged in `from`, never shown: the session, the original id, ...


@dataclass
class Parsed:
    notes: list[Note] = field(default_factory=list)
    skipped: int = 0  # lines or rows that were not JSON, or not a message
    empty_because: str = ""  # a known format that gave no notes: why, in words


def never(_: object) -> bool:
    return False


@dataclass(frozen=True)
class Format:
    """A format `ever import` reads, as one value: harness/imports/formats.py's `FORMATS` lists
    each, and `--format`, the detection, the parsing and a note's header read them from there."""

    name: str  # what `--format` takes, and each of its notes' `source`
    source_name: str  # what a note's header calls the tool [I1]
    parse: Callable[[Path], Parsed]
    suffixes: tuple[str, ...] = ()  # a file named so is this format, before a byte of it is read
    head: Callable[[bytes], bool] = never  # the file's first bytes say it is this format
    record: Callable[[dict], bool] = never  # one of its first JSON lines says it is this format


def json_lines(path: Path, parsed: Parsed) -> Iterator[tuple[int, object]]:
    """Each JSON line of a regular file with its line number; a blank line is passed over, and one
    that is not JSON (a torn last line, say), too deep for a parser or over JSON_LINE_BYTES_MAX, is
    counted in `parsed.skipped`, read through in bounded pieces. A byte that is not UTF-8 spoils
    only its own character (U+FFFD), never its line or the file."""
    with os.fdopen(open_regular(path), "rb") as f:
        number = 0
        while True:
            raw = f.readline(JSON_LINE_BYTES_MAX + 1)
            if not raw:
                return
            number += 1
            if len(raw) > JSON_LINE_BYTES_MAX and not raw.endswith(b"\n"):
                while raw and not raw.endswith(b"\n"):  # the rest of the long line, unread
                    raw = f.readline(1 << 20)
                parsed.skipped += 1
                continue
            text = raw.decode("utf-8", "replace")
            if not text.strip():
                continue
            try:
                yield number, json.loads(text)
            except (ValueError, RecursionError):
                parsed.skipped += 1


def utc_date(value: object) -> datetime | None:
    """An ISO 8601 string (a Z or an offset; none means UTC) or Unix milliseconds, as an aware time."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return datetime.fromtimestamp(value / 1000, UTC)
    if not isinstance(value, str) or not value:
        return None
    text = value.strip().replace(" ", "T", 1)
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        date = datetime.fromisoformat(text)
    except ValueError:
        return None
    return date if date.utcoffset() is not None else date.replace(tzinfo=UTC)


def tool_text(value: object) -> str:
    """A tool call's input or a result's content as text: strings as they are, else JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for block in value:
            if isinstance(block, dict) and block.get("type") in ("text", "input_text", "output_text"):
                parts.append(str(block.get("text", "")))
            elif isinstance(block, dict) and block.get("type") in ("image", "input_image"):
                parts.append("[an image]")
            else:
                parts.append(tool_text(block))
        return "\n".join(parts)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def tool_call(name: str, arguments: object, prefix: str = "") -> str:
    """A tool call as text, clipped as the chat clips a tool's output [I2]."""
    return prefix + clip_output(f"{name} {tool_text(arguments)}", NOTE_OUTPUT_CHARS_MAX - len(prefix))


def tool_result(value: object, prefix: str = "") -> str:
    """A tool's result as text, `prefix` and all within NOTE_OUTPUT_CHARS_MAX characters [I2]."""
    return prefix + clip_output(tool_text(value), NOTE_OUTPUT_CHARS_MAX - len(prefix))
