"""The chat's socket, both ends: every request and every event as a typed value [gist §1] [R3].

The owner serves `$EVER_HOME/chat/socket` (0600, in the 0700 chat directory). Each request and
each event is one JSON line. A line becomes a value here, where it enters (`request_of`,
`event_of`), and the code past this point trusts it; a value becomes a line only by `line_of`.

One request a connection, one answer a line:

    {"op": "send", "text": "...", "yes": false, "key": "..."}
                                      -> {"accepted": true}, once the message is on disk,
                                         then {"reply": "...", "error": "", "logged": true,
                                               "id": 41}, the message's id (null if unknown)
    {"op": "view"}                               -> {"view": "<chat>\\n...</chat>"}
    {"op": "status"}                             -> {"status": {...}}
    {"op": "zoom", "id": 0, "n": 4, "page": 1}   -> {"text": "..."}
    {"op": "date", "id": 0}                      -> {"text": "2026-10-08T09:30:00+02:00"}
    {"op": "search", "query": "...", "page": 1}  -> {"found": {...}} or {"error": "..."}
    {"op": "messages", "last": 10}               -> {"messages": [{"id", "kind", "date", "text"}]}
    {"op": "messages", "ids": [4, 9]}            -> the same, for those ids (`ever log`)
    {"op": "forget", "ids": [20], "why": "..."}  -> {"forgotten": {"ids", "clean", "text"}} or
                                                   {"error": "..."}: `ever forget` while an owner runs
    {"op": "attach", "yes": false}               -> an attached terminal (below)

An attached terminal first hears `{"event": "attached", "messages": 12, "status": "..."}`, then the
owner's events,

    {"event": "text"|"thinking", "delta": "..."}     a reply streaming
    {"event": "tool", "name": "...", "input": {...}}
    {"event": "result", "text": "...", "is_error": false}
    {"event": "notice", "sentence": "...", "aside": false}   a line to show; an aside names another
                                                      sender's message, held while a reply streams
    {"event": "row", "text": "..."}                   a `memory:` row
    {"event": "wait", "what": "..." | null, "seconds": 12.0, "source": "call"}
    {"event": "end", "status": "mem 64K/128K · ..."}  a turn ended
    {"event": "question", "id": 3, "text": "Allow shell: ls? ..."}
    {"event": "answered", "id": 3}                    answered elsewhere: stop asking
    {"event": "reply", "text": "..."}                 the answer to this terminal's /command

and sends its own, one a line:

    {"op": "say", "text": "..."}                      a message, as typed
    {"op": "answer", "id": 3, "answer": "y"}
    {"op": "stop"}                                    Ctrl-C: the running call stops
    {"op": "slash", "text": "/memory"}

A message sent while a call runs joins it between tool calls [gist §6]; a key seen before gives
that message's answer and logs nothing [S9].

This module imports only the standard library: `ever send` handing a message to a running owner
loads it and harness/owner/socket.py's client end, nothing of the SDK, the line editor or the
planner.
"""

import dataclasses
import json
from typing import Any, Union

# a line on the socket, at most: a message at its limit [S12] escaped as ASCII JSON fits
LINE_BYTES_MAX = 64 << 20


def whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# ---- requests: one a connection ----


@dataclasses.dataclass(frozen=True)
class Send:
    text: str
    yes: bool = False
    key: str | None = None


@dataclasses.dataclass(frozen=True)
class View:
    pass


@dataclasses.dataclass(frozen=True)
class Status:
    pass


@dataclasses.dataclass(frozen=True)
class Zoom:
    id: int
    n: int
    page: int = 1


@dataclasses.dataclass(frozen=True)
class Date:
    id: int


@dataclasses.dataclass(frozen=True)
class Search:
    query: str
    page: int = 1
    per_page: int = 10


@dataclasses.dataclass(frozen=True)
class Messages:
    last: int | None = None
    ids: tuple[int, ...] | None = None


@dataclasses.dataclass(frozen=True)
class Forget:
    ids: tuple[int, ...]
    why: str


@dataclasses.dataclass(frozen=True)
class Attach:
    yes: bool = False


@dataclasses.dataclass(frozen=True)
class Refused:
    """A request that is not one: what its sender is told, in one sentence, under the field its
    answer would have had (`text` for a zoom or a date); a refused send says nothing was logged."""

    error: str
    field: str = "error"
    send: bool = False

    def answer(self) -> dict[str, Any]:
        if self.send:
            return {"reply": "", "error": self.error, "logged": False}
        return {self.field: self.error}


Request = Union[Send, View, Status, Zoom, Date, Search, Messages, Forget, Attach]
MEMORY_REQUESTS = (View, Status, Zoom, Date, Search, Messages)

# ---- an attached terminal's own requests ----


@dataclasses.dataclass(frozen=True)
class Say:
    text: str


@dataclasses.dataclass(frozen=True)
class Answer:
    id: int
    answer: str


@dataclasses.dataclass(frozen=True)
class Stop:
    pass


@dataclasses.dataclass(frozen=True)
class Slash:
    text: str


TerminalRequest = Union[Say, Answer, Stop, Slash]

# ---- events: what an attached terminal hears ----


@dataclasses.dataclass(frozen=True)
class Attached:
    messages: int
    status: str


@dataclasses.dataclass(frozen=True)
class Text:
    delta: str


@dataclasses.dataclass(frozen=True)
class Thinking:
    delta: str


@dataclasses.dataclass(frozen=True)
class Tool:
    name: str
    input: dict


@dataclasses.dataclass(frozen=True)
class Result:
    text: str
    is_error: bool = False


@dataclasses.dataclass(frozen=True)
class Notice:
    sentence: str
    aside: bool = False  # about another sender: a terminal may hold it while a reply streams


@dataclasses.dataclass(frozen=True)
class Row:
    text: str


@dataclasses.dataclass(frozen=True)
class Wait:
    what: str | None
    seconds: float | None = None
    source: str = "owner"  # what waits: the turn's call, or the memory; one countdown each


@dataclasses.dataclass(frozen=True)
class End:
    status: str


@dataclasses.dataclass(frozen=True)
class Question:
    id: int
    text: str


@dataclasses.dataclass(frozen=True)
class Answered:
    id: int


@dataclasses.dataclass(frozen=True)
class Reply:
    text: str


@dataclasses.dataclass(frozen=True)
class Took:
    """A `say` answered, in order: on disk in the inbox (`ok`), or refused with the sentence
    before it; a line never answered so was not taken."""

    ok: bool = True


Event = Union[Attached, Text, Thinking, Tool, Result, Notice, Row, Wait, End, Question, Answered, Reply, Took]

OPS: dict[str, type] = {"send": Send, "view": View, "status": Status, "zoom": Zoom, "date": Date,
                        "search": Search, "messages": Messages, "forget": Forget, "attach": Attach, "say": Say,
                        "answer": Answer, "stop": Stop, "slash": Slash}
EVENTS: dict[str, type] = {"attached": Attached, "text": Text, "thinking": Thinking, "tool": Tool,
                           "result": Result, "notice": Notice, "row": Row, "wait": Wait, "end": End,
                           "question": Question, "answered": Answered, "reply": Reply, "took": Took}
OP_OF = {kind: op for op, kind in OPS.items()}
EVENT_OF = {kind: name for name, kind in EVENTS.items()}


def line_of(value: Any) -> bytes:
    """A request or an event as its line. A request travels as ASCII JSON: a lone surrogate (argv,
    a pipe) crosses as its escape and is checked where the message enters."""
    fields = dataclasses.asdict(value)
    if type(value) in OP_OF:
        if isinstance(value, Messages):
            fields = {"last": value.last} if value.last is not None else {"ids": list(value.ids or ())}
        if isinstance(value, Forget):
            fields = {"ids": list(value.ids), "why": value.why}
        return json.dumps({"op": OP_OF[type(value)], **fields}).encode() + b"\n"
    return json.dumps({"event": EVENT_OF[type(value)], **fields}, ensure_ascii=False).encode() + b"\n"


def answer_line(answer: dict[str, Any]) -> bytes:
    """An answer to a request (a send's `accepted`, its reply, the memory's answers)."""
    return json.dumps(answer, ensure_ascii=False).encode() + b"\n"


def parsed(raw: bytes) -> dict[str, Any] | None:
    """A line's JSON object, or None for anything else."""
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def request_of(raw: bytes) -> Union[Request, Refused]:
    """A connection's first line as a request; Refused with the sentence its sender is told."""
    line = parsed(raw)
    return request_from(line if line is not None else {})


def request_from(line: dict[str, Any]) -> Union[Request, Refused]:
    """A request's JSON object (a line's, or a tool call's arguments) as a request."""
    op = line.get("op")
    if op == "send":
        key = line.get("key")
        if not isinstance(line.get("text"), str) or not (key is None or isinstance(key, str)):
            return Refused("send takes a text and, if any, a key (both text); nothing was logged.", send=True)
        return Send(line["text"], bool(line.get("yes")), key)
    if op in ("view", "status"):
        return OPS[op]()
    if op == "zoom":
        first, n, page = line.get("id"), line.get("n"), line.get("page", 1)
        if not all(whole(value) for value in (first, n, page)):
            return Refused("zoom: id, n and page are whole numbers", "text")
        return Zoom(first, n, page)
    if op == "date":
        if not whole(line.get("id")):
            return Refused("date: id is a whole number", "text")
        return Date(line["id"])
    if op == "search":
        query, page, per_page = line.get("query"), line.get("page", 1), line.get("per_page", 10)
        if not isinstance(query, str) or not whole(page) or not whole(per_page):
            return Refused("search takes a query (text) and a page (a whole number)")
        return Search(query, page, max(1, min(per_page, 100)))
    if op == "messages":
        last, ids = line.get("last"), line.get("ids")
        if whole(last) and last >= 0:
            return Messages(last=last)
        if isinstance(ids, list) and all(whole(i) for i in ids):
            return Messages(ids=tuple(ids))
        return Refused("messages takes last (a whole number) or ids (a list of them)")
    if op == "forget":
        ids, why = line.get("ids"), line.get("why")
        if not (isinstance(ids, list) and ids and all(whole(i) and i >= 0 for i in ids)
                and isinstance(why, str) and why.strip()):
            return Refused("forget takes ids (a list of message ids) and why (text); nothing was forgotten")
        return Forget(tuple(ids), why)
    if op == "attach":
        return Attach(bool(line.get("yes")))
    return Refused(f"no such request: {op!r}")


def terminal_request_of(raw: bytes) -> TerminalRequest | None:
    """An attached terminal's line; None for a line that is none of its requests (ignored)."""
    line = parsed(raw)
    op = None if line is None else line.get("op")
    if op == "say" and isinstance(line.get("text"), str) and line["text"].strip():
        return Say(line["text"])
    if op == "answer" and whole(line.get("id")) and isinstance(line.get("answer"), str):
        return Answer(line["id"], line["answer"])
    if op == "stop":
        return Stop()
    if op == "slash" and isinstance(line.get("text"), str):
        return Slash(line["text"])
    return None


def event_of(raw: bytes) -> Event | None:
    """An event the owner sent; None for a line that is none (an owner newer than this terminal)."""
    line = parsed(raw)
    kind = EVENTS.get(line.get("event")) if line is not None else None
    if kind is None:
        return None
    # a field the line lacks takes its default: an owner older than this terminal sent none
    fields = {field.name: line.get(field.name) for field in dataclasses.fields(kind)
              if field.name in line or field.default is dataclasses.MISSING}
    try:
        return kind(**{name: _typed(kind, name, value) for name, value in fields.items()})
    except (TypeError, ValueError):
        return None


def _typed(kind: type, name: str, value: Any) -> Any:
    """A field as its declared type, or ValueError: a terminal trusts what it decoded."""
    declared = {field.name: field.type for field in dataclasses.fields(kind)}[name]
    if declared is str or declared == "str":
        if not isinstance(value, str):
            raise ValueError(name)
    elif declared is int or declared == "int":
        if not whole(value):
            raise ValueError(name)
    elif declared is bool or declared == "bool":
        return bool(value)
    elif declared is dict or declared == "dict":
        return value if isinstance(value, dict) else {}
    elif name == "what":
        if value is not None and not isinstance(value, str):
            raise ValueError(name)
    elif name == "source":
        return value if isinstance(value, str) else "owner"
    elif name == "seconds":
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    return value
