"""Strategy: `tell(name, message)` and `/tell NAME TEXT` as the chat runs them: `Owner.open` on a
temporary EVER_HOME, every call through the real SDK to the local Messages API, requests routed by
what they are (tests/calls/test_agents.py's predicates). A gate holds the subagent's first call
open, so the message is told while it works; the test then reads the subagent's next request: the
told words must come after its tool results, as the gist has the user's words reach a running call
[gist §6, §9]. The expected texts are the tool's promises, written out here."""

import threading
import time

import pexpect
import pytest

from harness.localapi.server import Reply, tool_use
from harness.memory import agentlog
from harness.owner.commands import answer as slash
from tests.support.agents import agent_records, chat_for, closed, compactions, is_master, is_sub, run, until
from tests.support.chat import EVER, environment, logged


def sub_bodies(api, name):
    return [r.body for r in api.requests if is_sub(name)(r.body)]


def test_tell_reaches_a_running_subagent_between_its_tool_calls_and_is_in_its_log(tmp_path, api):
    api.reset()
    api.responder = compactions
    held = threading.Event()
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "Count."}, id="a1")]), when=is_master)
    api.enqueue("Scout is counting.", when=is_master)
    api.enqueue(Reply([tool_use("date", {"id": 0}, id="s1")], gate=held), when=is_sub("Scout"))
    api.enqueue(Reply([tool_use("tell", {"name": "Scout", "message": "Count to 7 too."}, id="t1")]),
                when=is_master)
    api.enqueue("Told it.", when=is_master)
    api.enqueue("Counted to 7.", when=is_sub("Scout"))
    home = tmp_path / "home"

    async def go():
        chat = await chat_for(home, api)
        await chat.say("start Scout")
        await until(lambda: len(sub_bodies(api, "Scout")) == 1)  # its first call is open
        await chat.say("tell Scout to count to 7 too")
        answer = slash(chat, "/tell Scout   and hurry, please", None)
        held.set()
        await until(lambda: not chat.agents.running and not chat.agents.pending
                    and (chat.agents.starter is None or chat.agents.starter.done()))
        after = slash(chat, "/tell Scout are you there?", None)
        await closed(chat)
        return answer, after

    answer, after = run(go())
    assert answer == 'Told Scout: it reads this between its tool calls; its report comes as a message "[Scout] report".'
    bodies = sub_bodies(api, "Scout")
    assert len(bodies) == 2
    joined = bodies[1]["messages"][-1]["content"]
    assert joined[0]["type"] == "tool_result" and joined[0]["tool_use_id"] == "s1"
    assert [b["text"] for b in joined[1:]] == ["[Ever tells you] Count to 7 too.",
                                               "[the user tells you] and hurry, please"]
    log = logged(home)
    assert ("tool", 'tell {"message": "Count to 7 too.", "name": "Scout"}') in log
    assert ("echo", answer) in log  # the model's tool gets the same sentence
    records = agent_records(home, "Scout")
    told = [(r["by"], r["text"]) for r in records if r["kind"] == "told"]
    assert told == [("Ever", "[Ever tells you] Count to 7 too."),
                    ("the user", "[the user tells you] and hurry, please")]
    kinds = [r["kind"] for r in records]
    assert kinds.index("told") < kinds.index("end")
    assert "told: [the user tells you] and hurry, please" in agentlog.conversation(records)
    # once it has ended, nothing more is told, and the answer says how it ended
    assert after == ("the subagent Scout has ended (done: it ended with its reply), so it reads nothing more; "
                     "nothing was told.")
    assert [r["kind"] for r in agent_records(home, "Scout")].count("told") == 2


def test_tell_names_no_stranger_and_a_late_word_is_marked_unread(tmp_path, api):
    api.reset()
    api.responder = compactions
    held = threading.Event()
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "Answer."}, id="a1")]), when=is_master)
    api.enqueue("Started.", when=is_master)
    api.enqueue(Reply("Answered.", gate=held), when=is_sub("Scout"))  # its last call: no tool call follows
    home = tmp_path / "home"

    async def go():
        chat = await chat_for(home, api)
        await chat.say("start Scout")
        await until(lambda: len(sub_bodies(api, "Scout")) == 1)
        stranger = slash(chat, "/tell Nobody hello", None)
        usage = slash(chat, "/tell Scout", None)
        slash(chat, "/tell scout too late", None)  # names compare without case
        held.set()
        await until(lambda: not chat.agents.running and not chat.agents.pending
                    and (chat.agents.starter is None or chat.agents.starter.done()))
        await closed(chat)
        return stranger, usage

    stranger, usage = run(go())
    assert stranger == "this chat has no subagent named 'Nobody'; its subagents are Scout."
    assert usage == "usage: /tell NAME TEXT"
    records = agent_records(home, "Scout")
    end = next(r for r in records if r["kind"] == "end")
    assert end["unread"] == 1
    assert ("[1 message told to it came after its last tool call: it never read them]"
            in agentlog.conversation(records))
    assert len(sub_bodies(api, "Scout")) == 1


@pytest.mark.parametrize("where", ["owner", "attached"])
@pytest.mark.slow
def test_slash_tell_typed_in_a_terminal_reaches_the_subagent(tmp_path, api, where):
    api.reset()
    api.responder = compactions
    held = threading.Event()
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "Count."}, id="a1")]), when=is_master)
    api.enqueue("Scout started.", when=is_master)
    api.enqueue(Reply([tool_use("date", {"id": 0}, id="s1")], gate=held), when=is_sub("Scout"))
    api.enqueue("Counted, and the tests too.", when=is_sub("Scout"))
    api.enqueue("Scout reported back.", when=is_master)
    env = environment(tmp_path, api)
    owner = None
    if where == "attached":
        owner = pexpect.spawn(EVER, ["serve"], env=env, encoding="utf-8", timeout=60)
        owner.expect("ever chat")
    child = pexpect.spawn(EVER, ["chat"], env=env, encoding="utf-8", timeout=60, dimensions=(40, 200))
    try:
        child.expect("›")
        child.sendline("start a subagent Scout")
        child.expect("Scout started.")
        deadline = time.monotonic() + 60
        while not sub_bodies(api, "Scout") and time.monotonic() < deadline:
            time.sleep(0.05)
        child.sendline("/tell Scout count the tests too")
        child.expect_exact("Told Scout: it reads this between its tool calls")
        held.set()
        child.expect("Scout reported back.")
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    finally:
        held.set()
        child.close(force=True)
        if owner is not None:
            owner.kill(15)
            owner.expect(pexpect.EOF)
            owner.close(force=True)
    bodies = sub_bodies(api, "Scout")
    assert [b["text"] for b in bodies[1]["messages"][-1]["content"][1:]] == [
        "[the user tells you] count the tests too"]
    told = [r for r in agent_records(tmp_path, "Scout") if r["kind"] == "told"]
    assert [(r["by"], r["text"]) for r in told] == [("the user", "[the user tells you] count the tests too")]
