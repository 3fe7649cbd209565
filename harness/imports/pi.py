"""pi's sessions (badlogic/pi-mono's coding agent): `~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`.

The first line is the header `{"type":"session","version","id","timestamp","cwd"}`; every other
line is an entry with `id`, `parentId` and `timestamp`, so the entries form a tree: a branch
made from an earlier entry is a second child of it. The session's current position, the leaf, is
the last entry written, and the conversation is the path from the root to it. Entries:
`message` (its `message.role`: user, assistant with `text`, `thinking` and `toolCall` parts,
toolResult, bashExecution, custom, branchSummary, compactionSummary), `compaction` and
`branch_summary` (a summary), `custom_message` (an extension's text), and bookkeeping
(`model_change`, `thinking_level_change`, `label`, `session_info`, `custom`). Version 1 files
have no ids: their entries are one line in file order.

The active branch is imported as it is; each entry on a side branch is imported too, nothing
being lost, with the mark "side branch" in its header. A thought is not imported [I2].
"""

from pathlib import Path

from harness.imports.notes import Format, ImportFailed, Note, Parsed, json_lines, tool_call, tool_result, utc_date


def parts_text(content: object) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif block.get("type") == "toolCall":
            parts.append(tool_call(str(block.get("name", "?")), block.get("arguments", {}), "tool call "))
        elif block.get("type") == "image":
            parts.append("[an image]")
    return "\n".join(parts)


def entry_note(entry: dict) -> tuple[str, str] | None:
    kind = entry.get("type")
    if kind in ("compaction", "branch_summary"):
        return kind.replace("_", " ") + (" summary" if kind == "compaction" else ""), str(entry.get("summary", ""))
    if kind == "custom_message":
        return "extension message", parts_text(entry.get("content"))
    if kind != "message" or not isinstance(entry.get("message"), dict):
        return None
    message = entry["message"]
    role = message.get("role")
    if role in ("user", "assistant", "custom"):
        return str(role), parts_text(message.get("content"))
    if role == "toolResult":
        error = " (an error)" if message.get("isError") else ""
        return f"tool result{error}", tool_result(message.get("content", ""), f"{message.get('toolName', '?')}: ")
    if role == "bashExecution":
        return "shell", tool_result(f"$ {message.get('command', '')}\n{message.get('output', '')}")
    if role in ("branchSummary", "compactionSummary"):
        return ("branch summary" if role == "branchSummary" else "compaction summary"), str(message.get("summary", ""))
    return None


def parse(path: Path) -> Parsed:
    parsed = Parsed()
    entries: list[tuple[int, dict]] = []
    session = "?"
    for number, record in json_lines(path, parsed):
        if not isinstance(record, dict):
            parsed.skipped += 1
        elif record.get("type") == "session":
            session = str(record.get("id", session))
        else:
            entries.append((number, record))
    if session == "?" and not entries:
        raise ImportFailed(f"{path} has no pi session header")
    by_id: dict[str, dict] = {}
    for _, entry in entries:
        if isinstance(entry.get("id"), str):
            by_id[entry["id"]] = entry
    active = set()
    if by_id:
        leaf = next((e for _, e in reversed(entries) if isinstance(e.get("id"), str)), None)
        while leaf is not None and leaf["id"] not in active:
            active.add(leaf["id"])
            leaf = by_id.get(leaf.get("parentId")) if leaf.get("parentId") else None
    for position, (number, entry) in enumerate(entries):
        found = entry_note(entry)
        if found is None:
            continue
        role, body = found
        if not body.strip():
            continue
        message = entry.get("message") if isinstance(entry.get("message"), dict) else {}
        date = utc_date(entry.get("timestamp")) or utc_date(message.get("timestamp"))
        if date is None:
            parsed.skipped += 1
            continue
        entry_id = entry.get("id") if isinstance(entry.get("id"), str) else f"entry {position}"
        marks = ["side branch"] if by_id and entry_id not in active else []
        origin = (f"session {session}", f"id {entry_id}")  # the log line's `from`, never the header [I1]
        parsed.notes.append(Note("pi", f"pi:{session}:{entry_id}", date, role, body, str(path),
                                 f"line {number}", tuple(marks), origin))
    return parsed


def is_pi_line(record: dict) -> bool:
    return record.get("type") == "session" and "id" in record


FORMAT = Format("pi", "pi", parse, record=is_pi_line)
