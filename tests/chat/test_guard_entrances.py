"""Strategy: every entrance of a running owner met with what a hostile client sends, over the
chat's real socket (harness/owner/socket.py) and through the MCP server's own tools [S26] [S27]:
search text SQLite cannot bind, a request whose answer raises, more terminals and connections than
the owner serves, a zoom past the chat's end, an attached terminal's line and its acknowledgement
[S25], and the model's own search with a NUL. Each must be answered in one sentence, the owner
going on; a failure is written once to the owner's error output, however often it is sent.
"""

import asyncio

from harness.chat.attached import AttachedSink
from harness.chat.mcp_server import build_server
from harness.localapi.server import Reply, tool_use
from harness.owner import protocol, socket
from harness.owner.owner import Owner
from tests.support.agents import compactions, is_master, settings_for
from tests.support.chat import logged


async def next_event(reader):
    try:  # a hang guard only: the owner answers each line at once
        return protocol.event_of(await asyncio.wait_for(reader.readline(), 60))
    except TimeoutError:
        raise AssertionError("the owner never answered the line") from None


async def one_line(path, line: bytes, then: bytes = b"") -> list[bytes]:
    """What the owner answers a connection that sends `line` (then `then`), until it closes."""
    reader, writer = await asyncio.open_unix_connection(str(path), limit=protocol.LINE_BYTES_MAX)
    writer.write(line + then)
    await writer.drain()
    got = []
    try:
        while raw := await asyncio.wait_for(reader.readline(), 60):  # a hang guard only
            got.append(raw)
    except TimeoutError:
        raise AssertionError(f"the owner neither answered nor closed: {got}") from None
    finally:
        writer.close()
    return got


def owned(tmp_path, api, go, **open_options):
    api.responder = lambda body: Reply("Done.") if is_master(body) else compactions(body)

    async def run():
        chat = await Owner.open(settings_for(tmp_path / "home", api), api_key="test-key", **open_options)
        try:
            await chat.serve()
            return await go(chat)
        finally:
            await chat.close()

    return asyncio.run(run())


def test_search_text_sqlite_cannot_bind_is_answered_and_a_request_that_raises_is_one_sentence_logged_once(
        tmp_path, api, capfd):
    async def go(chat):
        surrogate = await one_line(chat.socket_path, b'{"op": "search", "query": "\\udcff"}\n')
        nul = await one_line(chat.socket_path, b'{"op": "search", "query": "a\\u0000b"}\n')

        def broken():
            raise RuntimeError("the disk said no")

        chat.memory.status = broken
        raised = [await one_line(chat.socket_path, b'{"op": "status"}\n') for _ in range(3)]
        return surrogate, nul, raised

    surrogate, nul, raised = owned(tmp_path, api, go)
    assert len(surrogate) == 1 and protocol.parsed(surrogate[0])["found"]["total"] == 0, surrogate
    assert protocol.parsed(nul[0]) == {"error": "a search cannot hold a NUL character; search for the words around it"}
    assert all(len(lines) == 1 for lines in raised), f"a request that raised was not answered: {raised}"
    answers = [protocol.parsed(lines[0]) for lines in raised]
    assert all(a["error"].startswith("The chat's owner could not answer this request (RuntimeError: "
                                     "the disk said no)") for a in answers), answers
    err = capfd.readouterr().err
    assert err.count("the disk said no") == 1, err  # once, however often it is sent
    assert "Traceback" not in err


def test_past_the_most_terminals_and_connections_each_is_refused_in_a_sentence_and_the_owner_goes_on(
        tmp_path, api, monkeypatch):
    monkeypatch.setattr(socket, "ATTACHED_MAX", 3)
    monkeypatch.setattr(socket, "CONNECTIONS_MAX", 8)

    async def go(chat):
        kept = []
        for _ in range(3):
            reader, writer = await asyncio.open_unix_connection(str(chat.socket_path))
            writer.write(protocol.line_of(protocol.Attach(False)))
            await writer.drain()
            assert isinstance(protocol.event_of(await reader.readline()), protocol.Attached)
            kept.append(writer)
        fourth = await one_line(chat.socket_path, protocol.line_of(protocol.Attach(False)))
        idle = []
        for _ in range(8):  # connections that say nothing and stay
            idle.append((await asyncio.open_unix_connection(str(chat.socket_path)))[1])
        await asyncio.sleep(0)
        crowded = await one_line(chat.socket_path, b'{"op": "status"}\n')
        # one more that says nothing is shed within seconds, not after the first line's 30 s
        silent_reader, silent = await asyncio.open_unix_connection(str(chat.socket_path))
        try:
            shed = await asyncio.wait_for(silent_reader.read(), 15)  # a hang guard only
        except TimeoutError:
            shed = None
        silent.close()
        for writer in idle:
            writer.close()
        await asyncio.sleep(0.1)
        after = await one_line(chat.socket_path, b'{"op": "status"}\n')
        for writer in kept:
            writer.close()
        return fourth, crowded, after, shed

    fourth, crowded, after, shed = owned(tmp_path, api, go)
    assert shed == b"", f"a silent connection past the most was kept open: {shed!r}"
    assert protocol.event_of(fourth[0]) == protocol.Notice(
        "The chat has 3 terminals attached, its most: close one to attach another.")
    assert "serving 8 connections, its most" in protocol.parsed(crowded[0])["error"], crowded
    assert "status" in protocol.parsed(after[0]), after


def test_a_zoom_past_the_chats_end_is_no_such_line_over_the_socket_and_through_mcp(tmp_path, api):
    async def go(chat):
        await chat.submit(chat.entering("one message", None, "socket"))
        raw = await one_line(chat.socket_path, protocol.line_of(protocol.Zoom(0, 2**62)))
        server = build_server(chat.settings, False)
        through_mcp = await server.call_tool("zoom", {"id": 0, "n": 2**62})
        return protocol.parsed(raw[0])["text"], through_mcp

    text, through_mcp = owned(tmp_path, api, go)
    assert text.startswith("zoom: no such line: 0+4611686018427387904 would cover messages 0 to"), text
    assert "no such line" in str(through_mcp)


def test_an_mcp_tool_whose_answer_raises_says_one_sentence(tmp_path, api):
    async def raising(request):
        raise OSError(24, "Too many open files")

    async def go():
        server = build_server(settings_for(tmp_path / "home", api), False, ask=raising)
        return await server.call_tool("view", {}), await server.call_tool("zoom", {"id": 0, "n": 1})

    view, zoom = asyncio.run(go())
    for result in (view, zoom):
        assert "the chat could not answer (OSError: [Errno 24] Too many open files)" in str(result), result


def test_an_attached_terminals_line_is_acknowledged_and_one_never_taken_is_said_not_sent(tmp_path, api):
    async def go(chat):
        reader, writer = await asyncio.open_unix_connection(str(chat.socket_path), limit=protocol.LINE_BYTES_MAX)
        writer.write(protocol.line_of(protocol.Attach(False)) + protocol.line_of(protocol.Say("hello there")))
        await writer.drain()
        events = []
        while not any(isinstance(e, protocol.Took) for e in events):
            events.append(await next_event(reader))
        writer.close()
        return events

    events = owned(tmp_path, api, go, ask=True)
    assert protocol.Took(True) in events
    sink = AttachedSink(writer=None)
    sink.send = lambda request: None
    sink.say("first line\nand more")
    sink.say("second")
    sink.took()  # the owner took the first, then died
    assert sink.not_sent() == ["(not sent: the chat's owner ended before it said it took \"second\"; "
                               "`ever log` shows whether it is there before you send it again)"]


def test_a_blank_slash_and_a_100_mb_line_from_an_attached_terminal_are_answered(tmp_path, api):
    async def go(chat):
        attach = protocol.line_of(protocol.Attach(False))
        reader, writer = await asyncio.open_unix_connection(str(chat.socket_path), limit=protocol.LINE_BYTES_MAX)
        writer.write(attach + b'{"op": "slash", "text": ""}\n' + b'{"op": "slash", "text": "/"}\n'
                     + b'{"op": "say", "text": "' + b"a" * (100 * 1024 * 1024) + b'"}\n')
        await writer.drain()
        events = []
        while len([e for e in events if isinstance(e, (protocol.Reply, protocol.Took))]) < 3:
            events.append(await next_event(reader))
        writer.close()
        return events, chat.memory.store.count

    events, count = owned(tmp_path, api, go)
    replies = [e.text for e in events if isinstance(e, protocol.Reply)]
    assert replies == ["unknown command: /help lists them", "unknown command /: /help lists them"]
    assert protocol.Took(False) in events
    assert any(isinstance(e, protocol.Notice) and "the most one message may hold" in e.sentence for e in events)
    assert count == 0


def test_a_nul_in_the_models_search_is_a_tool_error_and_the_turn_goes_on(tmp_path, api):
    api.enqueue(Reply([tool_use("search", {"query": "a\u0000b"})]),
                when=lambda body: is_master(body) and body["messages"][-1]["content"][-1].get("text") == "find it")

    async def go(chat):
        result = await chat.submit(chat.entering("find it", None, "socket"))
        return result, logged(chat.memory)

    result, kept = owned(tmp_path, api, go)
    assert result.error == "" and result.reply == "Done."
    assert ("echo", "search: a search cannot hold a NUL character; search for the words around it.") in kept, kept


def test_a_full_disk_when_the_index_is_made_is_a_tool_error_and_the_turn_goes_on(tmp_path, api, monkeypatch):
    import sqlite3

    from harness.memory.search import SearchIndex

    def full(self):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(SearchIndex, "sync", full)
    api.enqueue(Reply([tool_use("search", {"query": "anything"})]),
                when=lambda body: is_master(body) and body["messages"][-1]["content"][-1].get("text") == "find it")

    async def go(chat):
        result = await chat.submit(chat.entering("find it", None, "socket"))
        return result, logged(chat.memory)

    result, kept = owned(tmp_path, api, go)
    assert result.error == "" and result.reply == "Done."
    assert ("echo", "search: the search index could not be made (database or disk is full); the log is whole, "
                    "and zoom still reads it.") in kept, kept


def test_a_line_past_the_limit_from_an_attached_terminal_is_refused_once_and_the_next_line_is_its_own(tmp_path, api):
    # [S12] [S25] a line of 150 MB, past the limit twice over, is read to its newline and dropped:
    # one sentence, one `took` not ok, and the line after it is a message of its own, not the long
    # line's tail read as a request (each part past the limit was answered once, the second `took`
    # taken by the terminal for its next message's)
    async def go(chat):
        reader, writer = await asyncio.open_unix_connection(str(chat.socket_path), limit=protocol.LINE_BYTES_MAX)
        writer.write(protocol.line_of(protocol.Attach(False)))
        writer.write(b'{"op": "say", "text": "' + b"a" * (150 * 1024 * 1024) + b'"}\n')
        writer.write(protocol.line_of(protocol.Say("after the long one")))
        await writer.drain()
        events = []
        while protocol.Took(True) not in events:
            events.append(await next_event(reader))
        writer.close()
        return events, logged(chat.memory)

    events, lines = owned(tmp_path, api, go)
    notices = [e.sentence for e in events if isinstance(e, protocol.Notice)]
    assert len(notices) == 1 and "the most one message may hold" in notices[0], notices
    assert [e for e in events if isinstance(e, protocol.Took)] == [protocol.Took(False), protocol.Took(True)]
    assert [text for kind, text in lines if kind == "user"] == ["after the long one"]
