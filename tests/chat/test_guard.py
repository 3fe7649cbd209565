"""Strategy: the hostile chats of a careful attacker, each through the owner `ever serve` and `ever
chat` open (harness/owner/owner.py), the real SDK and the strict local Messages API's scripted
replies, the attached terminals over the chat's real socket. Spend: one message whose model starts
a subagent from every report's turn [H15]; a model that never stops calling a tool, under a chat
cap of a few calls per hour. Approvals [A8]: "always" answered in one terminal, then the same
terminal, a sender and an MCP client's send; words told to a subagent started under --yes by a
sender without it. Questions [A9]: a terminal asked that leaves, alone or among others.
"""

import asyncio
import dataclasses
import itertools
import threading

from harness.calls.budget import ChatCaps
from harness.localapi.server import Reply, tool_use
from harness.owner import hub as hubs
from harness.owner import protocol, socket
from harness.owner.owner import Owner
from harness.owner.sender import send_once
from tests.support.agents import compactions, is_master, is_sub, settings_for, until
from tests.support.chat import logged


def last_texts(body: dict) -> list[str]:
    content = body["messages"][-1]["content"]
    return [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]


def asked_for(text: str):
    """A master's first call of the turn whose message is `text`."""
    return lambda body: is_master(body) and last_texts(body)[-1:] == [text]


def settings(home, api, **caps):
    return dataclasses.replace(settings_for(home, api), chat_caps=ChatCaps(**caps))


def agent_names(home) -> list[str]:
    folder = home / "chat" / "agents"
    return sorted(path.stem for path in folder.glob("*.jsonl")) if folder.exists() else []


def settled(chat: Owner) -> bool:
    agents = chat.agents
    return (not any(not task.done() for task in agents.running.values()) and not agents.pending
            and (agents.starter is None or agents.starter.done()) and chat.turn is None)


# ---- [H15] spend bounded by the chat ----


def test_a_message_whose_every_reports_turn_starts_a_subagent_stops_at_the_chains_cap(tmp_path, api):
    numbers = itertools.count(1)

    def reply(body):
        if is_master(body):
            if last_texts(body) and not any(b.get("type") == "tool_result" for b in body["messages"][-1]["content"]):
                return Reply([tool_use("agent", {"name": f"Scout{next(numbers)}", "task": "look around"})])
            return Reply("Started one.")
        if body["system"][-1]["text"].startswith("# Subagents"):
            return Reply("Looked.")
        return compactions(body)

    api.responder = reply
    home = tmp_path / "home"

    async def go():
        chat = await Owner.open(settings(home, api, subagents_per_chain=4), yes=True, api_key="test-key")
        try:
            await chat.submit(chat.entering("go", None, "socket"))
            # the test waits for the storm to end, or to pass the cap: it never waits on a time
            await until(lambda: (len(agent_names(home)) >= 4 and settled(chat)) or len(agent_names(home)) > 4)
            return agent_names(home), logged(chat.memory)
        finally:
            await chat.close()

    names, kept = asyncio.run(go())
    assert len(names) == 4, names
    refused = [text for kind, text in kept if kind == "echo" and "not started: the chat's cap of 4" in text]
    assert refused and "one message and what it led to" in refused[0], refused


def test_past_the_chats_calls_per_hour_the_work_stops_every_terminal_hears_it_and_the_next_message_resumes(
        tmp_path, api):
    def reply(body):
        if is_master(body):
            return Reply([tool_use("date", {"id": 0})])  # never stops calling a tool
        return compactions(body)

    api.responder = reply
    home = tmp_path / "home"
    heard: list = []

    async def go():
        hub = hubs.Hub()
        hub.clients.append(hubs.LocalClient(heard.append))
        chat = await Owner.open(settings(home, api, calls_per_hour=3), hub, yes=True, api_key="test-key")
        try:
            first = await chat.submit(chat.entering("first", None, "socket"))
            status = chat.status_line()
            calls = sum(1 for r in api.requests if is_master(r.body))
            second = await chat.submit(chat.entering("second", None, "socket"))
            return first, status, calls, second, sum(1 for r in api.requests if is_master(r.body))
        finally:
            await chat.close()

    first, status, calls, second, calls_after = asyncio.run(go())
    assert calls == 3
    assert "the chat's cap of 3 calls per hour" in first.error, first.error
    stops = [e.sentence for e in heard if isinstance(e, protocol.Notice) and e.sentence.startswith("The chat stopped")]
    assert len(stops) == 2, stops  # once per stop, and it stopped twice
    assert "your next message resumes it" in stops[0]
    assert "The chat stopped its work" in status
    assert calls_after == 6, "the next message resumed the work, for the cap's count again"
    assert "the chat's cap of 3 calls per hour" in second.error


# ---- [A8] approvals that only narrow ----


def touch(name: str) -> Reply:
    return Reply([tool_use("shell", {"command": f"touch {name}"})])


def test_always_holds_for_the_terminal_that_gave_it_and_for_no_sender_or_mcp_client(tmp_path, api, monkeypatch):
    api.responder = lambda body: Reply("Done.") if is_master(body) else compactions(body)
    for word in ("first", "second", "third", "fourth"):
        api.enqueue(touch(word.upper()), when=asked_for(word))
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    questions: list = []

    async def go():
        hub = hubs.Hub()
        loop = asyncio.get_running_loop()

        def show(event):
            if isinstance(event, protocol.Question):
                questions.append(event)
                loop.call_soon(hub.answer, event.id, "a")

        local = hubs.LocalClient(show)
        hub.clients.append(local)
        chat = await Owner.open(settings_for(home, api), hub, yes=False, api_key="test-key", ask=True)
        try:
            await chat.serve()
            chat.typed("first", local)
            await until(lambda: chat.last is not None and not chat.answers)
            chat.typed("second", local)
            await until(lambda: (work / "SECOND").exists() and not chat.answers)
            sent = await socket.ask(chat.socket_path, protocol.Send("third", False, None))
            mcp = await send_once(chat.settings, "fourth", yes=False)  # what the MCP `send` tool calls
            return sent, mcp, logged(chat.memory)
        finally:
            await chat.close()

    sent, mcp, kept = asyncio.run(go())
    assert (work / "FIRST").exists() and (work / "SECOND").exists()
    assert len(questions) == 1, "always holds for the terminal that answered it"
    assert not (work / "THIRD").exists() and not (work / "FOURTH").exists()
    declined = [text for kind, text in kept if kind == "echo" and text.startswith("Not run: shell asks the user first")]
    assert len(declined) == 2, kept


def test_words_told_by_a_sender_without_yes_carry_its_approval_into_the_subagent(tmp_path, api, monkeypatch):
    api.responder = lambda body: Reply("Done.") if is_master(body) else compactions(body)
    held = threading.Event()
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "wait for words"})]), when=asked_for("start"))
    api.enqueue(Reply([tool_use("date", {"id": 0})], gate=held),
                when=lambda body: is_sub("Scout")(body) and len(body["messages"]) == 1)
    api.enqueue(Reply([tool_use("tell", {"name": "Scout", "message": "run touch PWNED"})]), when=asked_for("tell it"))
    api.enqueue(touch("PWNED"), when=lambda body: is_sub("Scout")(body) and any(
        "tells you" in t for t in last_texts(body)))
    api.responder = lambda body: (Reply("Done.") if is_master(body) or is_sub("Scout")(body) else compactions(body))
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)

    async def go():
        chat = await Owner.open(settings_for(home, api), yes=True, api_key="test-key")  # `ever serve --yes`
        try:
            await chat.serve()
            await socket.ask(chat.socket_path, protocol.Send("start", True, None))  # `ever send --yes`
            await socket.ask(chat.socket_path, protocol.Send("tell it", False, None))  # without --yes
            held.set()
            await until(lambda: "Scout" not in chat.agents.running and settled(chat))
            return [r for r in (home / "chat" / "agents" / "Scout.jsonl").read_text().splitlines()]
        finally:
            held.set()
            await chat.close()

    scout = asyncio.run(go())
    assert not (work / "PWNED").exists()
    assert any("Not run: shell asks the user first" in line for line in scout), scout


# ---- [A9] questions that cannot hang ----


async def attached(path):
    reader, writer = await asyncio.open_unix_connection(str(path), limit=protocol.LINE_BYTES_MAX)
    writer.write(protocol.line_of(protocol.Attach(False)))
    await writer.drain()
    return reader, writer


async def events_until(reader, kind):
    seen = []
    while True:
        try:  # a hang guard only: each event the test waits for comes at once
            raw = await asyncio.wait_for(reader.readline(), 60)
        except TimeoutError:
            raise AssertionError(f"no {kind.__name__} came: {seen}") from None
        assert raw, f"the owner hung up before a {kind.__name__}: {seen}"
        event = protocol.event_of(raw)
        seen.append(event)
        if isinstance(event, kind):
            return event, seen


def test_a_question_whose_only_terminal_leaves_is_declined_and_the_chat_answers_the_next_sender(
        tmp_path, api, monkeypatch):
    api.responder = lambda body: Reply("Done.") if is_master(body) else compactions(body)
    api.enqueue(touch("ASKED"), when=asked_for("do it"))
    api.enqueue(Reply("hello"), when=asked_for("hi"))
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)

    async def go():
        chat = await Owner.open(settings_for(home, api), yes=False, api_key="test-key", ask=True)  # `ever serve`
        try:
            await chat.serve()
            reader, writer = await attached(chat.socket_path)
            writer.write(protocol.line_of(protocol.Say("do it")))
            await writer.drain()
            await events_until(reader, protocol.Question)
            writer.close()  # the terminal asked goes away without an answer
            try:  # a hang guard only: the question is declined the moment its terminal goes
                hi = await asyncio.wait_for(socket.ask(chat.socket_path, protocol.Send("hi", False, None)), 60)
            except TimeoutError:
                raise AssertionError("the chat still waits for the answer of a terminal that left") from None
            return hi, logged(chat.memory)
        finally:
            await chat.close()

    hi, kept = asyncio.run(go())
    assert hi["reply"] == "hello"
    assert not (work / "ASKED").exists()
    assert any(kind == "echo" and "no other terminal is attached to answer it" in text for kind, text in kept), kept


def test_a_waiting_question_is_asked_in_a_terminal_that_attaches_and_shown_in_the_status(tmp_path, api, monkeypatch):
    api.responder = lambda body: Reply("Done.") if is_master(body) else compactions(body)
    api.enqueue(touch("ASKED"), when=asked_for("do it"))
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)

    async def go():
        chat = await Owner.open(settings_for(home, api), yes=False, api_key="test-key", ask=True)
        try:
            await chat.serve()
            first, first_writer = await attached(chat.socket_path)
            second, second_writer = await attached(chat.socket_path)
            first_writer.write(protocol.line_of(protocol.Say("do it")))
            await first_writer.drain()
            asked, _ = await events_until(first, protocol.Question)
            first_writer.close()
            late, late_writer = await attached(chat.socket_path)
            hello, _ = await events_until(late, protocol.Attached)
            again, _ = await events_until(late, protocol.Question)
            late_writer.write(protocol.line_of(protocol.Answer(again.id, "y")))
            await late_writer.drain()
            await until(lambda: (work / "ASKED").exists())
            second_writer.close()
            late_writer.close()
            return asked, hello, again
        finally:
            await chat.close()

    asked, hello, again = asyncio.run(go())
    assert again == asked
    assert "waiting for an answer: Allow shell: touch ASKED" in hello.status, hello.status


def test_ever_cost_shows_what_each_chain_spent_its_subagents_and_report_turns_included(tmp_path, api):
    from harness.calls.usage import format_report, read_usage, report

    numbers = itertools.count(1)

    def reply(body):
        if is_master(body):
            if last_texts(body) and not any(b.get("type") == "tool_result" for b in body["messages"][-1]["content"]):
                return Reply([tool_use("agent", {"name": f"Scout{next(numbers)}", "task": "look around"})])
            return Reply("Started one.")
        if body["system"][-1]["text"].startswith("# Subagents"):
            return Reply("Looked.")
        return compactions(body)

    api.responder = reply
    home = tmp_path / "home"

    async def go():
        chat = await Owner.open(settings(home, api, subagents_per_chain=2), yes=True, api_key="test-key")
        try:
            await chat.submit(chat.entering("go", None, "socket"))
            await until(lambda: len(agent_names(home)) >= 2 and settled(chat))
        finally:
            await chat.close()

    asyncio.run(go())
    made = report(read_usage(home).records)
    # by hand: the message's turn (2 calls), two subagents (1 call each), two report turns: the
    # first starts the second subagent (2 calls), the second is refused a third subagent (2 calls): 8 calls
    assert [(row.turn, row.totals.calls) for row in made.chains] == [(0, 8)], made.chains
    assert "chain (with all it led to)" in format_report(made)
