"""The chat's Unix socket: one process owns a chat [gist §1], and another `ever` talks to it.

`serve` is the owner's end, `ask` a sender's; what travels is harness/owner/protocol.py's. The
memory's answers (`answer_memory`) are the same from the owner and from a chat opened read-only
by the process that asks when none runs. The tools that ask first are declined for a sender
without `yes` (nobody at the socket can be asked).

The client end (`ask`) imports only the standard library and the protocol: `ever send` to a
running owner loads nothing more.
"""

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from harness.owner import protocol
from harness.owner.protocol import LINE_BYTES_MAX

# the owner (harness/owner/owner.py), which imports this module: named, not imported
Owner = Any

# [S26] what one owner serves at once: a terminal past ATTACHED_MAX, or any connection past
# CONNECTIONS_MAX, is refused in one sentence and closed at once, so a flood of connections that
# stay cannot take every file descriptor the process has (EMFILE) from the chat's own files
ATTACHED_MAX = 64
CONNECTIONS_MAX = 256
FIRST_LINE_SECONDS = 30.0  # a connection's first line comes at once from every Ever
CROWDED_FIRST_LINE_SECONDS = 1.0  # past CONNECTIONS_MAX, a connection silent this long is shed
OPEN_FILES_WANTED = 65536  # the owner's soft limit on open files, where the hard limit allows


def open_files_raised() -> None:
    """[S26] A login shell gives a process 1,024 open files; a flood of connections that stay
    would take them all before the cap above sheds them, and the chat's own files with them.
    The hard limit is the system's word: the soft one is raised to it (at most OPEN_FILES_WANTED)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = OPEN_FILES_WANTED if hard == resource.RLIM_INFINITY else min(hard, OPEN_FILES_WANTED)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):
            pass  # a limit the system will not raise: the cap and the once-said EMFILE remain


class Said:
    """[S26] Each distinct failure of an entrance written once to the owner's error output (the
    service's journal), without a traceback; the same one again is only counted."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}

    def __call__(self, sentence: str) -> None:
        self.seen[sentence] = self.seen.get(sentence, 0) + 1
        if self.seen[sentence] == 1:
            print(f"ever: {sentence}", file=sys.stderr, flush=True)


def refused_answer(request: Any, sentence: str) -> dict[str, Any]:
    """A request the owner could not answer, in the shape its sender reads: a send's says
    nothing was logged, so the sender does not retry it as unanswered."""
    if isinstance(request, protocol.Send):
        return {"reply": "", "error": sentence, "logged": False}
    return {"error": sentence, "text": sentence}


def answer_memory(memory, request: "protocol.Request | protocol.Refused") -> dict[str, Any]:
    """The memory's answers, the same from the owner and from a chat opened here."""
    if isinstance(request, protocol.Refused):
        return request.answer()
    if isinstance(request, protocol.View):
        return {"view": memory.render()}
    if isinstance(request, protocol.Status):
        return {"status": memory.status()}
    if isinstance(request, protocol.Zoom):
        T, first, n = memory.planner.T, request.id, request.n
        # a line past the chat's end is none [gist §6]; an n not a power of 2 has its own sentence
        if 0 <= first < T and n >= 1 and n & (n - 1) == 0 and first + n > T:
            return {"text": f"zoom: no such line: {first}+{n} would cover messages {first} to {first + n - 1}, "
                            f"but the chat has messages 0 to {T - 1}."}
        return {"text": memory.zoom(request.id, request.n, request.page)}
    if isinstance(request, protocol.Date):
        return {"text": memory.date(request.id)}
    if isinstance(request, protocol.Search):
        return answer_search(memory, request)
    if isinstance(request, protocol.Messages):
        return answer_messages(memory.store, request)
    return {"error": f"no such request: {protocol.OP_OF.get(type(request))!r}"}  # attach, to a sender


def answer_messages(store, request: protocol.Messages) -> dict[str, Any]:
    """The last `last` messages, oldest first, or those of `ids`, in that order."""
    count = store.count
    if request.last is not None:
        wanted = list(range(max(0, count - request.last), count))
    else:
        wanted = [i for i in request.ids or () if 0 <= i < count]
    records = [store.message(i) for i in wanted]
    return {"messages": [{"id": i, "kind": r["kind"], "date": r.get("date", ""), "text": r["text"]}
                         for i, r in zip(wanted, records)]}


def answer_search(memory, request: protocol.Search) -> dict[str, Any]:
    from harness.memory.search import SearchError, run_search

    try:
        found = run_search(memory.store, memory.planner.view.lines(), request.query, request.page,
                           request.per_page)
    except SearchError as error:
        return {"error": str(error)}
    return {"found": found.as_dict()}


async def serve(owner: Owner, path: Path) -> asyncio.AbstractServer:
    """Serve the chat on its socket; a stale socket file (from a killed owner) is replaced."""
    from harness.memory.accepted import too_long_sentence

    path.unlink(missing_ok=True)

    said = Said()
    loop = asyncio.get_running_loop()
    if loop.get_exception_handler() is None:  # [S26] the accept loop's EMFILE, once, not a flood
        loop.set_exception_handler(lambda _, context: said(
            f"{context.get('message', 'the event loop failed')}: {context.get('exception', '')}"))

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        owner.busy.add(asyncio.current_task())
        request: Any = None
        try:
            # a crowd's silent connections are shed in a second, not thirty, so they cannot pile up
            waited = CROWDED_FIRST_LINE_SECONDS if len(owner.busy) > CONNECTIONS_MAX else FIRST_LINE_SECONDS
            try:
                raw = await asyncio.wait_for(reader.readline(), waited)
            except ValueError:  # a line past LINE_BYTES_MAX: one sentence, and nothing kept [S12]
                writer.write(protocol.answer_line({"reply": "", "error": too_long_sentence(LINE_BYTES_MAX),
                                                   "logged": False}))
                await writer.drain()
                return
            except TimeoutError:
                return  # [S26] a connection that says nothing holds no descriptor for long
            if len(owner.busy) > CONNECTIONS_MAX:  # read first: a socket closed unread is reset
                sentence = (f"The chat's owner is serving {CONNECTIONS_MAX} connections, its most; "
                            "nothing was taken: try again once some have closed.")
                said(sentence)
                writer.write(protocol.answer_line({"reply": "", "error": sentence, "logged": False}))
                await writer.drain()
                return
            request = protocol.request_of(raw)
            if isinstance(request, protocol.Attach) and owner.attachable:
                if len(owner.hub.clients) >= ATTACHED_MAX:
                    sentence = (f"The chat has {ATTACHED_MAX} terminals attached, its most: close one "
                                "to attach another.")
                    said(sentence)
                    writer.write(protocol.line_of(protocol.Notice(sentence)))
                    await writer.drain()
                    return
                await owner.hub.attach(owner, request, reader, writer)
                return
            if isinstance(request, protocol.Send):
                answer = await answer_send(owner, request, writer)
                if answer is None:
                    return  # the owner is going: the sender tries the next one
            elif isinstance(request, protocol.Forget):  # [S33] the owner rewrites its own files
                answer = await owner.forget(request.ids, request.why)
            else:
                answer = answer_memory(owner.memory, request)
            if owner.memory.store.damage:  # [S13] a sender hears the damage its owner found
                answer = dict(answer, damage=list(owner.memory.store.damage))
            writer.write(protocol.answer_line(answer))
            await writer.drain()
        except (ConnectionError, BrokenPipeError):
            pass  # the sender went away; what it sent is answered all the same
        except asyncio.CancelledError:
            raise  # the owner closes
        except Exception as error:  # [S26] whatever a request raises: one sentence, logged once
            sentence = (f"The chat's owner could not answer this request ({type(error).__name__}: {error}); "
                        "nothing of it was kept.")
            said(sentence)
            try:
                writer.write(protocol.answer_line(refused_answer(request, sentence)))
                await writer.drain()
            except (ConnectionError, RuntimeError):
                pass
        finally:
            owner.busy.discard(asyncio.current_task())
            writer.close()

    open_files_raised()
    old_umask = os.umask(0o177)
    try:
        server = await asyncio.start_unix_server(handle, path=str(path), limit=LINE_BYTES_MAX)
    finally:
        os.umask(old_umask)
    os.chmod(path, 0o600)
    return server


async def answer_send(owner: Owner, request: protocol.Send,
                      writer: asyncio.StreamWriter) -> dict[str, Any] | None:
    """A message handed over: `accepted` once it is on disk [S9], then its turn's reply."""
    from harness.calls.approval import Approval
    from harness.memory.accepted import TooLong
    from harness.memory.store import StoreError, checked_key

    try:
        key = None if request.key is None else checked_key(request.key)
    except ValueError as error:
        return {"reply": "", "error": f"{error}.", "logged": False}
    # nobody at the socket can be asked: without `yes`, the asking tools decline. The sender's
    # own approval [A8]: the config's, never one an "always" in a terminal widened
    approval = Approval(owner.approve, request.yes, None)
    try:
        message = owner.entering(request.text, key, "socket")
        # every attached terminal sees the turn a script asked for [R3]
        answered = owner.submit(message, None, approval)
    except Leaving:
        return None
    except TooLong as error:  # [S12]
        return {"reply": "", "error": str(error), "logged": False}
    except (OSError, StoreError) as error:
        return {"reply": "", "error": failed_append(error), "logged": False}
    writer.write(protocol.answer_line({"accepted": True}))
    # the person at the chat sees what a script adds to it
    first_line = message.text.strip().split("\n", 1)[0]
    owner.hub.notice(f"[ever send] {first_line[:160]}", aside=True)
    try:
        await writer.drain()
    except (ConnectionError, BrokenPipeError):
        pass
    if not answered.done():
        left = asyncio.ensure_future(owner.left.wait())
        await asyncio.wait({answered, left}, return_when=asyncio.FIRST_COMPLETED)
        left.cancel()
        if not answered.done():
            return None  # the owner is going, the message in its inbox: the next owner answers it
    return answer_of(owner, key, answered.result())


def answer_of(owner: Owner, key: str | None, result) -> dict[str, Any]:
    """A sent message's answer: its turn's reply, and the message's id, found by its key."""
    message_id = owner.memory.store.key_id(key) if key is not None else None
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


async def ask(path: Path, request: "protocol.Request") -> dict[str, Any]:
    """One request to the chat's owner; Unanswered or Dropped when it does not answer."""
    try:
        reader, writer = await asyncio.open_unix_connection(str(path), limit=LINE_BYTES_MAX)
    except OSError as error:
        raise Unanswered(error.strerror or str(error)) from None
    accepted = False
    try:
        writer.write(protocol.line_of(request))
        await writer.drain()
        while True:
            raw = await reader.readline()
            answer = protocol.parsed(raw) if raw.endswith(b"\n") else None
            if answer is None:
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
