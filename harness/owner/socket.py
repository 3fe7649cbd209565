"""The chat's Unix socket: one process owns a chat [gist §1], and another `ever` talks to it.

The owner serves `$EVER_HOME/chat/socket` (0600, in the 0700 chat directory). A request is one
JSON line; the answer is one JSON line:

    {"op": "send", "text": "...", "yes": false, "key": "..."}
                                      -> {"accepted": true}, once the message is on disk,
                                         then {"reply": "...", "error": "", "logged": true,
                                               "id": 41}, the message's id (null if unknown)
    {"op": "view"}                               -> {"view": "<chat>\\n...</chat>"}
    {"op": "status"}                             -> {"status": {...}}
    {"op": "zoom", "id": 0, "n": 4, "page": 1}   -> {"text": "..."}
    {"op": "attach", "yes": false}               -> a terminal attached: harness/chat/hub.py
    {"op": "date", "id": 0}                      -> {"text": "2026-10-08T09:30:00+02:00"}
    {"op": "search", "query": "...", "page": 1}  -> {"found": {...}} or {"error": "..."}
    {"op": "messages", "last": 10}               -> {"messages": [{"id", "kind", "date", "text"}]}
    {"op": "messages", "ids": [4, 9]}            -> the same, for those ids (`ever log`)

A message sent while a call runs joins it between tool calls [gist §6], and its answer is the reply
of the turn that took it, sent as that turn ends; a key seen before gives that message's answer and
logs nothing [S9]; the owner's terminal shows its first line. The tools that ask first are
declined for a sender without `yes` (nobody at the socket can be asked).
"""

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from harness.memory.accepted import TooLong, too_long_sentence

LINE_BYTES_MAX = 64 << 20


def answer_memory(memory, request: dict[str, Any]) -> dict[str, Any]:
    """The memory's answers, the same from the owner and from a chat opened here."""
    op = request.get("op")
    if op == "view":
        return {"view": memory.render()}
    if op == "status":
        return {"status": memory.status()}
    if op == "zoom":
        first, n, page = request.get("id"), request.get("n"), request.get("page", 1)
        if not all(isinstance(value, int) and not isinstance(value, bool) for value in (first, n, page)):
            return {"text": "zoom: id, n and page are whole numbers"}
        return {"text": memory.zoom(first, n, page)}
    if op == "date":
        first = request.get("id")
        if not isinstance(first, int) or isinstance(first, bool):
            return {"text": "date: id is a whole number"}
        return {"text": memory.date(first)}
    if op == "search":
        return answer_search(memory, request)
    if op == "messages":
        return answer_messages(memory.store, request)
    return {"error": f"no such request: {op!r}"}


def answer_messages(store, request: dict[str, Any]) -> dict[str, Any]:
    """The last `last` messages, oldest first, or those of `ids`, in that order."""
    last, ids = request.get("last"), request.get("ids")
    count = store.count
    if isinstance(last, int) and not isinstance(last, bool) and last >= 0:
        wanted = list(range(max(0, count - last), count))
    elif isinstance(ids, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        wanted = [i for i in ids if 0 <= i < count]
    else:
        return {"error": "messages takes last (a whole number) or ids (a list of them)"}
    records = [store.message(i) for i in wanted]
    return {"messages": [{"id": i, "kind": r["kind"], "date": r.get("date", ""), "text": r["text"]}
                         for i, r in zip(wanted, records)]}


def answer_search(memory, request: dict[str, Any]) -> dict[str, Any]:
    from harness.memory.search import SearchError, run_search

    query, page = request.get("query"), request.get("page", 1)
    per_page = request.get("per_page", 10)
    if not isinstance(query, str) or not isinstance(page, int) or not isinstance(per_page, int):
        return {"error": "search takes a query (text) and a page (a whole number)"}
    try:
        found = run_search(memory.store, memory.planner.view.lines(), query, page, max(1, min(per_page, 100)))
    except SearchError as error:
        return {"error": str(error)}
    return {"found": found.as_dict()}


async def serve(chat, path: Path) -> asyncio.AbstractServer:
    """Serve the chat on its socket; a stale socket file (from a killed owner) is replaced."""
    path.unlink(missing_ok=True)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        chat.busy.add(asyncio.current_task())
        try:
            try:
                raw = await reader.readline()
            except ValueError:  # a line past LINE_BYTES_MAX: one sentence, and nothing kept [S12]
                writer.write(json.dumps({"reply": "", "error": too_long_sentence(LINE_BYTES_MAX),
                                         "logged": False}).encode() + b"\n")
                await writer.drain()
                return
            try:
                request = json.loads(raw)
            except ValueError:
                request = {}
            if not isinstance(request, dict):
                request = {}
            if request.get("op") == "attach" and getattr(chat, "hub", None) is not None:
                await chat.hub.attach(chat, request, reader, writer)
                return
            if request.get("op") == "send" and isinstance(request.get("text"), str):
                answer = await answer_send(chat, request, writer)
                if answer is None:
                    return  # the owner is going: the sender tries the next one
            else:
                answer = answer_memory(chat.memory, request)
            if chat.memory.store.damage:  # [S13] a sender hears the damage its owner found
                answer = dict(answer, damage=list(chat.memory.store.damage))
            writer.write(json.dumps(answer, ensure_ascii=False).encode() + b"\n")
            await writer.drain()
        except (ConnectionError, BrokenPipeError):
            pass  # the sender went away; what it sent is answered all the same
        finally:
            chat.busy.discard(asyncio.current_task())
            writer.close()

    old_umask = os.umask(0o177)
    try:
        server = await asyncio.start_unix_server(handle, path=str(path), limit=LINE_BYTES_MAX)
    finally:
        os.umask(old_umask)
    os.chmod(path, 0o600)
    return server


async def answer_send(chat, request: dict[str, Any], writer: asyncio.StreamWriter) -> dict[str, Any] | None:
    """A message handed over: `accepted` once it is on disk [S9], then its turn's reply."""
    from harness.calls.approval import Approval
    from harness.calls.turn import Quiet
    from harness.memory.store import StoreError, checked_key

    key = request.get("key")
    try:
        key = None if key is None else checked_key(key)
    except ValueError as error:
        return {"reply": "", "error": f"{error}.", "logged": False}
    # nobody at the socket can be asked: without `yes`, the asking tools decline
    approval = None if request.get("yes") else Approval(chat.approval.allowed, False, None)
    try:
        message = chat.entering(request["text"], key, "socket")
        # every attached terminal sees the turn a script asked for [R3]; with none, nobody does
        output = None if getattr(chat, "hub", None) is not None else Quiet()
        answered = chat.submit(message, output, approval)
    except Leaving:
        return None
    except TooLong as error:  # [S12]
        return {"reply": "", "error": str(error), "logged": False}
    except (OSError, StoreError) as error:
        return {"reply": "", "error": failed_append(error), "logged": False}
    writer.write(json.dumps({"accepted": True}).encode() + b"\n")
    # the person at the chat sees what a script adds to it
    first_line = message.text.strip().split("\n", 1)[0]
    chat.output.notice(f"[ever send] {first_line[:160]}")
    try:
        await writer.drain()
    except (ConnectionError, BrokenPipeError):
        pass
    if not answered.done():
        left = asyncio.ensure_future(chat.left.wait())
        await asyncio.wait({answered, left}, return_when=asyncio.FIRST_COMPLETED)
        left.cancel()
        if not answered.done():
            return None  # the owner is going, the message in its inbox: the next owner answers it
    return answer_of(chat, key, answered.result())


def answer_of(chat, key: str | None, result) -> dict[str, Any]:
    """A sent message's answer: its turn's reply, and the message's id, found by its key."""
    message_id = chat.memory.store.key_id(key) if key is not None else None
    return {"reply": result.reply, "error": result.error, "logged": True, "id": message_id}


def failed_append(error: BaseException) -> str:
    what = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    return f"The message could not be written to the chat's disk ({what}); nothing was logged: try again."


class Leaving(Exception):
    """The owner is going: a message is not taken now; its sender tries the next owner."""


class Unanswered(Exception):
    """The owner did not take the request: nothing of it was kept, and it may be sent again."""


class Dropped(Exception):
    """The owner took the message (it is on disk) and ended before answering."""


async def ask(path: Path, request: dict[str, Any]) -> dict[str, Any]:
    """One request to the chat's owner; Unanswered or Dropped when it does not answer."""
    try:
        reader, writer = await asyncio.open_unix_connection(str(path), limit=LINE_BYTES_MAX)
    except OSError as error:
        raise Unanswered(error.strerror or str(error)) from None
    accepted = False
    try:
        # ASCII JSON: a lone surrogate (argv, a pipe) travels as its escape and is checked there
        writer.write(json.dumps(request).encode() + b"\n")
        await writer.drain()
        while True:
            raw = await reader.readline()
            try:
                answer = json.loads(raw) if raw.endswith(b"\n") else None
            except ValueError:
                answer = None
            if not isinstance(answer, dict):
                break
            if answer == {"accepted": True}:
                accepted = True
                continue
            return answer
    except OSError:
        pass
    finally:
        writer.close()
    if accepted:
        raise Dropped("the chat's owner ended before it answered")
    raise Unanswered("the chat's owner closed the connection before it took the request")
