"""Plain text and Markdown files: one note per file, split when long [I2]; its time is the
file's modification time, and its identity its content, so the same text under two names, or
imported twice, is one note [I3] [I4]."""

import hashlib
from datetime import UTC, datetime
from pathlib import Path

from harness.imports.notes import TEXT_FILE_BYTES_MAX, Format, ImportFailed, Note, Parsed
from harness.memory.logfile import read_regular


def parse(path: Path) -> Parsed:
    data = read_regular(path, TEXT_FILE_BYTES_MAX)  # a regular file, bounded: never a FIFO or /dev/zero
    if b"\x00" in data[:8192]:
        raise ImportFailed(f"{path} is binary, not text")
    text = data.decode("utf-8")
    if not text.strip():
        return Parsed()
    date = datetime.fromtimestamp(path.stat().st_mtime, UTC).replace(microsecond=0)
    identity = "text:" + hashlib.sha256(data).hexdigest()
    return Parsed([Note("text", identity, date, "file", text, str(path), "whole")])


FORMAT = Format("text", "text file", parse, suffixes=(".md", ".markdown", ".txt", ".text"))
