"""Claude Code's session files: `~/.claude/projects/<project>/<session>.jsonl`, one JSON object a line.

The format is Claude Code's own and not specified by it; what is read here is what its files
hold: `user` and `assistant` lines, each an envelope (`uuid`, `parentUuid`, `sessionId`,
`timestamp`, `isSidechain`, `isMeta`, `isCompactSummary`) around a Messages API `message` whose
`content` is a string or a list of blocks (`text`, `thinking`, `tool_use`, `tool_result`,
`image`); other lines (`summary`, `system`, `file-history-snapshot`, ...) are bookkeeping.

Its traps, each met here:
- one API response is written as several lines, one per content block, that share the message's
  `id`: they are one note, keyed by that id;
- a resumed session starts a new file that repeats the earlier lines: a response's message id, or
  a user line's time and text, seen before is the same note [I3] (whether the uuid was kept);
- a compaction writes a `user` line with `isCompactSummary`: a note of role "compaction summary";
- a subagent's lines have `isSidechain`: notes marked "sidechain";
- `isMeta` lines (the caveat before local commands) are the tool's boilerplate, not the user's.
"""

import hashlib
from pathlib import Path

from harness.imports.notes import Format, Note, Parsed, json_lines, tool_call, tool_result, utc_date


def content_text(content: object) -> list[str]:
    """The content's parts as text; thoughts are left out [I2]."""
    if isinstance(content, str):
        return [content]
    parts = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            parts.append(str(block.get("text", "")))
        elif kind == "tool_use":
            parts.append(tool_call(str(block.get("name", "?")), block.get("input", {}), "tool call "))
        elif kind == "tool_result":
            error = " (an error)" if block.get("is_error") else ""
            parts.append(tool_result(block.get("content", ""), f"tool result{error}: "))
        elif kind == "image":
            parts.append("[an image]")
    return parts


def role_of(record: dict, content: object) -> str:
    if record.get("isCompactSummary"):
        return "compaction summary"
    if record.get("type") == "assistant":
        return "assistant"
    blocks = content if isinstance(content, list) else []
    if blocks and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
        return "tool result"
    return "user"


def parse(path: Path) -> Parsed:
    parsed = Parsed()
    by_message_id: dict[str, int] = {}  # a split response's notes, by the API message id
    parts_seen: dict[str, set] = {}  # and the parts each holds, so a block written twice is once
    for number, record in json_lines(path, parsed):
        if not isinstance(record, dict) or record.get("type") not in ("user", "assistant"):
            continue
        if record.get("isMeta"):
            continue
        message = record.get("message")
        if not isinstance(message, dict):
            parsed.skipped += 1
            continue
        content = message.get("content", "")
        parts = content_text(content)
        body = "\n".join(p for p in parts if p)
        if not body.strip():
            continue  # a thought alone: nothing the chat would have logged
        date = utc_date(record.get("timestamp")) or utc_date(message.get("timestamp"))
        if date is None:
            parsed.skipped += 1
            continue
        marks = []  # shown in the header; the session and ids go to the log line's `from` [I1]
        origin = [f"session {record.get('sessionId', '?')}"]
        if record.get("isSidechain"):
            marks.append("sidechain")
        message_id: str | None = message.get("id") if record.get("type") == "assistant" else None
        if message_id and message_id in by_message_id:
            # [trap] the next block of a response already begun: joined to its note
            k = by_message_id[message_id]
            earlier = parsed.notes[k]
            if body not in parts_seen[message_id]:
                parts_seen[message_id].add(body)
                parsed.notes[k] = Note(earlier.source, earlier.identity, earlier.date, earlier.role,
                                       earlier.body + "\n" + body, earlier.file, earlier.position,
                                       earlier.marks, earlier.origin)
            continue
        if message_id:
            identity = f"claude-code:message:{message_id}"
        else:
            # a repeated line keeps its time and text, whether or not its uuid was kept
            digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
            identity = f"claude-code:{date.isoformat()}:{digest}"
        origin.append(f"id {message_id or record.get('uuid') or '?'}")
        if message_id:
            by_message_id[message_id] = len(parsed.notes)
            parts_seen[message_id] = {body}
        parsed.notes.append(Note("claude-code", identity, date, role_of(record, content), body,
                                 str(path), f"line {number}", tuple(marks), tuple(origin)))
    return parsed


def is_claude_code_line(record: dict) -> bool:
    return "parentUuid" in record or "sessionId" in record or "leafUuid" in record


FORMAT = Format("claude-code", "Claude Code", parse, record=is_claude_code_line)
