"""Codex CLI's rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`.

Each line is `{"timestamp", "type", "payload"}`: `session_meta` (the session's id and working
directory), `response_item` (the conversation: a `message` with a role and `input_text` /
`output_text` parts, a `function_call` with its `name`, `arguments` and `call_id`, its
`function_call_output`, `custom_tool_call` and its output, `local_shell_call`, `reasoning`),
`event_msg` (what the screen showed, `user_message` and `agent_message` repeating the items),
`turn_context` and `compacted` (a compaction's summary in `message`, and the history it
replaced). Rollouts written before these wrappers held the items bare, after a first line of
session meta without a type.

Its traps, each met here: the `event_msg` copies of each message (only the items are read); a
reasoning item (a thought, encrypted: not imported [I2]); a `compacted` line (its summary is a
note; its `replacement_history` repeats what was said, and is not); a resumed or forked session
whose file repeats the earlier items with their times (the same time, role and text is the same
note [I3]); the instructions and environment a rollout repeats at every start (kept once, as
repeated pastes are).
"""

import hashlib
from pathlib import Path

from harness.imports.notes import Format, Note, Parsed, json_lines, tool_call, tool_result, utc_date

ITEM_TYPES = ("message", "function_call", "function_call_output", "custom_tool_call",
              "custom_tool_call_output", "local_shell_call", "reasoning", "web_search_call")


def message_text(content: object) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict):
            if block.get("type") in ("input_text", "output_text", "text"):
                parts.append(str(block.get("text", "")))
            elif block.get("type") in ("input_image", "image"):
                parts.append("[an image]")
    return "\n".join(parts)


def item_note(item: dict) -> tuple[str, str] | None:
    """(role, body) of a response item, or None for one that is not imported."""
    kind = item.get("type")
    if kind == "message":
        return str(item.get("role", "?")), message_text(item.get("content"))
    if kind in ("function_call", "custom_tool_call"):
        arguments = item.get("arguments", item.get("input", ""))
        return "tool call", tool_call(str(item.get("name", "?")), arguments)
    if kind == "local_shell_call":
        action = item.get("action") or {}
        return "tool call", tool_call("shell", action.get("command", action))
    if kind in ("function_call_output", "custom_tool_call_output"):
        output = item.get("output", "")
        if isinstance(output, dict):
            output = output.get("content", output)
        return "tool result", tool_result(output)
    return None  # reasoning (thoughts), web searches and kinds not known here


def parse(path: Path) -> Parsed:
    parsed = Parsed()
    session = "?"
    last_date = None  # an older rollout's items have no time of their own: the last one known
    for number, record in json_lines(path, parsed):
        if not isinstance(record, dict):
            parsed.skipped += 1
            continue
        kind = record.get("type")
        payload = record.get("payload")
        if kind is None and "id" in record and "timestamp" in record and number == 1:
            session = str(record["id"])  # the bare first line of an older rollout
            last_date = utc_date(record.get("timestamp"))
            continue
        if kind == "session_meta" and isinstance(payload, dict):
            session = str(payload.get("id", session))
            last_date = utc_date(payload.get("timestamp")) or utc_date(record.get("timestamp"))
            continue
        if kind == "compacted" and isinstance(payload, dict):
            role, body = "compaction summary", str(payload.get("message", ""))
        elif kind == "response_item" and isinstance(payload, dict):
            found = item_note(payload)
            if found is None:
                continue
            role, body = found
        elif kind in ITEM_TYPES and payload is None:
            found = item_note(record)  # an older rollout's bare item
            if found is None:
                continue
            role, body = found
        else:
            continue  # event_msg, turn_context, state lines
        if not body.strip():
            continue
        date = utc_date(record.get("timestamp")) or last_date
        last_date = date
        if date is None:
            parsed.skipped += 1
            continue
        digest = hashlib.sha256(f"{role}\0{body}".encode()).hexdigest()
        identity = f"codex:{date.isoformat()}:{digest}"
        parsed.notes.append(Note("codex", identity, date, role, body, str(path), f"line {number}", (),
                                 (f"session {session}",)))
    return parsed


def is_codex_line(record: dict) -> bool:
    return record.get("type") in ("session_meta", "response_item", "turn_context", "event_msg") or (
        "payload" in record and "timestamp" in record)


FORMAT = Format("codex", "Codex CLI", parse, record=is_codex_line)
