"""The chat's Unix socket: one process owns a chat [gist §1], and another `ever` talks to it.

The owner serves `$EVER_HOME/chat/socket` (0600, in the 0700 chat directory). A request is one
JSON line; the answer is one JSON line:

    {"op": "send", "text": "...", "yes": false} -> {"reply": "...", "error": ""}
    {"op": "view"}                               -> {"view": "<chat>\\n...</chat>"}
    {"op": "status"}                             -> {"status": {...}}
    {"op": "zoom", "id": 0, "n": 4}              -> {"text": "..."}

A message sent while a call runs joins it between tool calls [gist §6], and its answer is the reply
of the turn that took it; the owner's terminal shows its first line. The tools that ask first are
declined for a sender without `yes` (nobody at the socket can be asked).
"""

import asyncio
import json
import os
from pathlib import Path
from typing import Any, Dict

LINE_BYTES_MAX = 64 << 20


def answer_memory(memory, request: Dict[str, Any]) -> Dict[str, Any]:
    """The memory's answers, the same from the owner and from a chat opened here."""
    op = request.get("op")
    if op == "view":
        return {"view": memory.render()}
    if op == "status":
        return {"status": memory.status()}
    if op == "zoom":
        first, n = request.get("id"), request.get("n")
        if not isinstance(first, int) or not isinstance(n, int):
            return {"text": "zoom: id and n are whole numbers"}
        return {"text": memory.zoom(first, n)}
    return {"error": f"no such request: {op!r}"}


async def serve(chat, path: Path) -> asyncio.AbstractServer:
    """Serve the chat on its socket; a stale socket file (from a killed owner) is replaced."""
    path.unlink(missing_ok=True)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            raw = await reader.readline()
            try:
                request = json.loads(raw)
            except ValueError:
                request = {}
            if request.get("op") == "send" and isinstance(request.get("text"), str):
                from harness.calls.tools import Approval
                from harness.calls.turn import Quiet

                # nobody at the socket can be asked: without `yes`, the asking tools decline
                approval = None if request.get("yes") else Approval(chat.approval.allowed, False, None)
                # the person at the chat sees what a script adds to it
                first_line = request["text"].strip().split("\n", 1)[0]
                chat.output.notice(f"[ever send] {first_line[:160]}")
                result = await chat.say(request["text"], Quiet(), approval)
                answer = {"reply": result.reply, "error": result.error}
            else:
                answer = answer_memory(chat.memory, request)
            writer.write(json.dumps(answer, ensure_ascii=False).encode() + b"\n")
            await writer.drain()
        finally:
            writer.close()

    old_umask = os.umask(0o177)
    try:
        server = await asyncio.start_unix_server(handle, path=str(path), limit=LINE_BYTES_MAX)
    finally:
        os.umask(old_umask)
    os.chmod(path, 0o600)
    return server


async def ask(path: Path, request: Dict[str, Any]) -> Dict[str, Any]:
    """One request to the chat's owner."""
    try:
        reader, writer = await asyncio.open_unix_connection(str(path), limit=LINE_BYTES_MAX)
    except OSError as error:
        raise ConnectionError(f"another process owns the chat, but its socket {path} does not answer ({error.strerror})") from None
    # ASCII JSON: a lone surrogate (argv, a pipe) travels as its escape and is checked there
    writer.write(json.dumps(request).encode() + b"\n")
    await writer.drain()
    raw = await reader.readline()
    writer.close()
    return json.loads(raw)
