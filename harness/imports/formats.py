"""The formats `ever import` reads, one registry: `--format`'s choices, the detection, the parsing
and a note's header all read `FORMATS`. A format is a `Format` value its parser module defines.

A file is told to be a format in three steps, each over the formats in the registry's order:
its name (`suffixes`), its first bytes (`head`), then its first JSON lines (`record`, each line
against every format before the next line). A line two formats would claim is the first's.
Past them, a `.jsonl` file is of no format Ever knows, and any other file is text.
"""

import json
import os
from pathlib import Path

from harness.imports import claude_code, codex, llm_db, pi, text_files
from harness.imports.notes import Format, ImportFailed, Parsed
from harness.memory.logfile import NotReadable, open_regular

FORMATS: tuple[Format, ...] = (codex.FORMAT, pi.FORMAT, claude_code.FORMAT, llm_db.FORMAT, text_files.FORMAT)
NAMED = {format.name: format for format in FORMATS}
OTHERWISE = text_files.FORMAT  # a file no step tells, unless it says it is JSON Lines
HEAD_BYTES = 1 << 16
HEAD_LINES = 20


def detect(path: Path) -> str:
    """The format of `path`, from its name and its first lines."""
    name = path.name.lower()
    for format in FORMATS:
        if name.endswith(format.suffixes):
            return format.name
    try:
        with os.fdopen(open_regular(path), "rb") as f:  # never a FIFO's wait or /dev/zero's end
            head = f.read(HEAD_BYTES)
    except NotReadable as refused:
        raise ImportFailed(f"{path} {refused}") from None
    except OSError as error:
        raise ImportFailed(f"{path} cannot be read: {error.strerror or error}") from None
    for format in FORMATS:
        if format.head(head):
            return format.name
    for raw in head.split(b"\n")[:HEAD_LINES]:
        try:
            record = json.loads(raw.decode("utf-8", "replace"))  # one bad byte spoils no session
        except (ValueError, RecursionError):
            continue
        if not isinstance(record, dict):
            continue
        for format in FORMATS:
            if format.record(record):
                return format.name
    if name.endswith(".jsonl"):
        raise ImportFailed(f"{path} is JSON Lines of no format Ever knows; name one with --format")
    return OTHERWISE.name


def parse(path: Path, name: str) -> Parsed:
    """The notes of `path` read as the format named `name`; a failure is one sentence."""
    format = NAMED[name]
    try:
        return format.parse(path)
    except ImportFailed:
        raise
    except UnicodeDecodeError:
        raise ImportFailed(f"{path} is not UTF-8 text, so it is not a {format.source_name} file") from None
    except NotReadable as refused:
        raise ImportFailed(f"{path} {refused}") from None
    except RecursionError:
        raise ImportFailed(f"{path} nests its brackets deeper than Ever reads") from None
    except OSError as error:
        raise ImportFailed(f"{path} cannot be read: {error.strerror or error}") from None
