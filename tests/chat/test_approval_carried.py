"""Strategy: a call carries the approval of whoever asked for it, the weakest when several did.
Through the installed command and the real SDK against the local Messages API: a chat owned by
`ever send --yes`, whose first call is held back until a second `ever send` without `--yes` has
joined it; the model then asks for a shell command. And, with the chat opened as `ever chat` opens
it (its reports start turns), a sender without `--yes` whose subagent's report starts a turn
in which the model asks for a shell command. Each checks the file the command would make, and the
result the model was given.
"""

import asyncio
import dataclasses
import json
import subprocess
import threading
import time

import pytest

from harness.calls.approval import Approval
from harness.chat.config import load_settings
from harness.localapi.server import Reply, tool_use
from harness.owner.owner import Owner
from tests.support.agents import closed, until
from tests.support.chat import EVER, environment, logged

TURN_MODEL = "claude-sonnet-4-6"
TOUCH = {"command": "touch PWNED"}


def last_texts(body: dict) -> list:
    blocks = body["messages"][-1]["content"]
    return [b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]


def answer(body: dict) -> Reply:
    """A summary line for the compactor; "Done." for any turn's call not scripted."""
    return Reply("a summary line" if body["model"] != TURN_MODEL else "Done.")


@pytest.mark.slow
def test_a_message_without_yes_that_joins_a_call_started_with_yes_runs_no_shell(tmp_path, api):
    api.responder = answer
    held = threading.Event()
    api.enqueue(Reply([tool_use("date", {"id": 0})], gate=held),
                when=lambda body: body["model"] == TURN_MODEL and last_texts(body)[-1:] == ["first"])
    api.enqueue(Reply([tool_use("shell", TOUCH)]),
                when=lambda body: body["model"] == TURN_MODEL and "second" in last_texts(body))
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    env = environment(home, api)
    owner = subprocess.Popen([EVER, "send", "--yes", "first"], env=env, cwd=work, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        api.wait_for_requests(1, timeout_seconds=60)
        sender = subprocess.Popen([EVER, "send", "second"], env=env, cwd=work, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        inbox = home / "chat" / "inbox.jsonl"
        deadline = time.monotonic() + 60  # only stops a hang: the test waits for the message, not a time
        while not (inbox.exists() and '"second"' in inbox.read_text()):
            assert time.monotonic() < deadline, "the second message never reached the inbox"
            time.sleep(0.05)
    finally:
        held.set()
    owner_out, owner_err = owner.communicate(timeout=120)
    sender_out, sender_err = sender.communicate(timeout=120)
    assert (owner.returncode, sender.returncode) == (0, 0), (owner_err, sender_err)
    assert not (work / "PWNED").exists()
    echoes = [text for kind, text in logged(home) if kind == "echo"]
    assert any(text.startswith("Not run: shell asks the user first") for text in echoes), echoes


def test_a_subagent_asked_for_without_yes_reports_into_a_turn_that_runs_no_shell(tmp_path, api, monkeypatch):
    api.responder = answer
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "look around"})]),
                when=lambda body: body["model"] == TURN_MODEL and last_texts(body)[-1:] == ["start a scout"])
    api.enqueue(Reply("Nothing to see."),
                when=lambda body: body["model"] == TURN_MODEL and "look around" in last_texts(body))
    api.enqueue(Reply([tool_use("shell", TOUCH)]),
                when=lambda body: body["model"] == TURN_MODEL
                and any(text.startswith("[Scout] report") for text in last_texts(body)))
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)  # the shell's working directory

    def shell_answered(chat) -> bool:
        kept = logged(chat.memory)
        return any(kind == "tool" and text.startswith("shell ") for kind, text in kept[:-1]) \
            and kept[-1][0] in ("echo", "ever")

    async def go():
        settings = dataclasses.replace(load_settings(environment(home, api)), settle_timeout_seconds=120)
        chat = await Owner.open(settings, yes=True, api_key="test-key")  # `ever chat --yes`
        try:
            without_yes = Approval(chat.approval.allowed, False, None)  # as the socket gives a sender
            await chat.submit(chat.entering("start a scout", None, "socket"), None, without_yes)
            await until(lambda: shell_answered(chat))
            await until(lambda: chat.agents.starter is not None and chat.agents.starter.done())
            return logged(chat.memory)
        finally:
            await closed(chat)

    kept = asyncio.run(go())
    assert any(kind == "work" and text.startswith("[Scout] report") for kind, text in kept), kept
    assert any(kind == "tool" and text.startswith("shell ") for kind, text in kept), kept
    assert not (work / "PWNED").exists()
    shell_at = max(k for k, (kind, text) in enumerate(kept) if kind == "tool" and text.startswith("shell "))
    assert kept[shell_at + 1][1].startswith("Not run: shell asks the user first"), kept[shell_at + 1]
    assert json.loads(kept[shell_at][1][len("shell "):]) == TOUCH


def test_a_message_sent_without_yes_and_answered_after_a_restart_runs_no_shell_under_the_next_owners_yes(
        tmp_path, api, monkeypatch):
    # found by `make sim` (seed 1): a message accepted from a sender without --yes, its owner
    # killed before its turn, was answered by the next owner under that owner's own approval:
    # `ever chat --yes` ran its shell without asking anyone [S36]
    from harness.memory.accepted import Accepted
    from harness.memory.inbox import Inbox

    api.responder = answer
    api.enqueue(Reply([tool_use("shell", TOUCH)]),
                when=lambda body: body["model"] == TURN_MODEL and last_texts(body)[-1:] == ["make a file"])
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    (home / "chat").mkdir(parents=True)
    Inbox(home / "chat").accept(Accepted("make a file", "key-without-yes", "socket"))  # as the killed owner did
    with_yes = Inbox(home / "chat")
    assert with_yes.with_yes == set()

    def answered(chat) -> bool:
        kept = logged(chat.memory)
        return any(kind == "tool" for kind, _ in kept) and kept[-1][0] == "ever"

    async def go():
        settings = dataclasses.replace(load_settings(environment(home, api)), settle_timeout_seconds=120)
        chat = await Owner.open(settings, yes=True, api_key="test-key")  # the next owner: `ever chat --yes`
        try:
            await until(lambda: answered(chat))
            return logged(chat.memory)
        finally:
            await closed(chat)

    kept = asyncio.run(go())
    assert not (work / "PWNED").exists()
    shell_at = next(k for k, (kind, text) in enumerate(kept) if kind == "tool")
    assert kept[shell_at + 1][1].startswith("Not run: shell asks the user first"), kept[shell_at + 1]
    Inbox(home / "chat").accept(Accepted("with yes", "key-with-yes", "socket"), yes=True)
    assert "key-with-yes" in Inbox(home / "chat").with_yes  # kept on disk for the next owner
