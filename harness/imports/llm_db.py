"""simonw/llm's `logs.db`: a SQLite database (`llm logs path` names it).

Its `conversations` table holds `id`, `name` and `model`; its `responses` table one exchange a
row: `id`, `model`, `prompt`, `system`, `response`, `conversation_id`, `datetime_utc` (UTC, ISO
without an offset) and more columns that later versions added. A continued conversation logs
only the new prompt in each row, so nothing repeats there; the system prompt does, at every row
of a conversation that keeps it, and is imported where it first appears or changes. The database
is opened read-only. From 0.32, llm writes new exchanges only to the tables of a new message
store, which are not read here: the `responses` table keeps everything older versions logged,
and a database whose `responses` table is empty gives no notes with a sentence saying so.
"""

import os
import sqlite3
from pathlib import Path

from harness.imports.notes import Format, ImportFailed, Note, Parsed, utc_date
from harness.memory.logfile import open_regular

NAME_CHARS_MAX = 80  # a conversation's name in a header: the header stays within HEADER_CHARS_MAX


def parse(path: Path) -> Parsed:
    os.close(open_regular(path))  # SQLite would wait on a FIFO: a regular file only
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as error:
        raise ImportFailed(f"{path} cannot be opened as SQLite: {error}") from None
    try:
        db.row_factory = sqlite3.Row
        tables = {row[0] for row in db.execute("select name from sqlite_master where type = 'table'")}
        if "responses" not in tables:
            raise ImportFailed(f"{path} has no responses table, so it is not llm's logs.db")
        names = {}
        if "conversations" in tables:
            names = {row["id"]: row["name"] for row in db.execute("select * from conversations")}
        rows = db.execute("select rowid as row_number, * from responses order by datetime_utc, rowid").fetchall()
    except sqlite3.DatabaseError as error:
        raise ImportFailed(f"{path} cannot be read as llm's logs.db: {error}") from None
    finally:
        db.close()
    parsed = Parsed()
    if not rows:
        parsed.empty_because = ("its responses table is empty: llm 0.32 and later log new exchanges "
                                "to the tables of its message store, which Ever does not read")
    system_of = {}
    for row in rows:
        columns = row.keys()
        date = utc_date(row["datetime_utc"]) if "datetime_utc" in columns else None
        if date is None:
            parsed.skipped += 1
            continue
        conversation = row["conversation_id"] if "conversation_id" in columns else None
        marks = []  # the conversation's name and the model say something; ids do not [I1]
        origin = ((f"conversation {conversation}",) if conversation else ()) + (f"id {row['id']}",)
        if conversation and names.get(conversation):
            marks.append(f"conversation {names[conversation][:NAME_CHARS_MAX]!r}")
        if "model" in columns and row["model"]:
            marks.append(f"model {row['model']}")
        where = f"row {row['row_number']}"
        system = row["system"] if "system" in columns else None
        if system and system_of.get(conversation or row["id"]) != system:
            system_of[conversation or row["id"]] = system
            parsed.notes.append(Note("llm", f"llm:{row['id']}:system", date, "system", str(system),
                                     str(path), where, tuple(marks), origin))
        for part, role in (("prompt", "user"), ("response", "assistant")):
            text = row[part] if part in columns else None
            if text:
                parsed.notes.append(Note("llm", f"llm:{row['id']}:{part}", date, role, str(text),
                                         str(path), where, tuple(marks), origin))
    return parsed


def is_sqlite(head: bytes) -> bool:
    return head.startswith(b"SQLite format 3\x00")


FORMAT = Format("llm", "llm logs.db", parse, head=is_sqlite)
