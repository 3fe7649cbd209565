"""Strategy: subagents as the chat runs them: `Owner.open` (the product's own wiring: memory, the
real compactor, turns, subagents) on a temporary EVER_HOME, every call through the real SDK over
real HTTP to the local Messages API. Replies are routed by what each request is: a subagent's
carries SUBAGENT_ROLE and "you are the subagent NAME" (the predicates below read the request, not
the code's state); a compaction starts "Compaction:"; anything else is the master's. Gates hold
replies so a report arrives exactly where a test wants it (during the master's call, or after its
turn). Expected logs and requests are written out here from the issue's rules: the view settled,
then the state, then the task; one `work` message "[Name] report" in the chat's log; the steps in
the subagent's own log only. The kill test runs `ever chat` in a pseudo-terminal and SIGKILLs it.
"""

import asyncio
import dataclasses
import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pexpect
import pytest

from harness.calls.agents import SUBAGENT_ROLE
from harness.calls.prompt import Prompt
from harness.calls.usage import read_usage, report
from harness.chat.agentlist import listing, listing_text
from harness.chat.config import load_settings
from harness.localapi.server import Reply, status_error, text, tool_use
from harness.memory import agentlog
from harness.memory.agentlog import AgentCaps
from harness.owner.owner import Owner
from tests.support.agents import (
    agent_records,
    chat_for,
    closed,
    compactions,
    is_master,
    is_sub,
    run,
    settings_for,
    until,
)
from tests.support.chat import EVER, environment, ever, logged

MARK = {"type": "ephemeral"}


def test_a_report_between_turns_is_logged_as_work_and_starts_a_turn(tmp_path, api):
    api.reset()
    api.responder = compactions
    gate = threading.Event()
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "List the files."}, id="a1")]),
                when=is_master)
    api.enqueue("Scout is on it.", when=is_master)
    api.enqueue(Reply([text("alpha, beta, gamma.")], gate=gate), when=is_sub("Scout"))
    api.enqueue("Scout found alpha, beta and gamma.", when=is_master)
    home = tmp_path / "home"

    async def go():
        chat = await chat_for(home, api)
        result = await chat.say("start a subagent Scout to list the files")
        assert result.reply == "Scout is on it."  # the turn ended; the subagent still runs
        assert chat.agents.newest_running() == "Scout"
        gate.set()
        await until(lambda: chat.agents.starter is not None and chat.agents.starter.done()
                    and not chat.agents.running)
        await closed(chat)

    run(go())
    started = ("Started the subagent Scout in the background. Its report will reach you as a message "
               "\"[Scout] report\"; zoom(\"Scout\") shows its steps so far. Do not wait for it: go on, "
               "or end your turn and tell the user it is running.")
    assert logged(home) == [
        ("user", "start a subagent Scout to list the files"),
        ("tool", 'agent {"name": "Scout", "task": "List the files."}'),
        ("echo", started),
        ("ever", "Scout is on it."),
        ("work", "[Scout] report\nalpha, beta, gamma."),
        ("ever", "Scout found alpha, beta and gamma."),
    ]
    bodies = [r.body for r in api.requests]
    sub = [b for b in bodies if is_sub("Scout")(b)]
    assert len(sub) == 1
    # its own system prompt: the turns' blocks, then the role, marked; the turns' tools less agent
    assert sub[0]["system"] == [{"type": "text", "text": Prompt.build().system[0]},
                                {"type": "text", "text": SUBAGENT_ROLE, "cache_control": MARK}]
    assert [t["name"] for t in sub[0]["tools"]] == ["zoom", "date", "search", "shell", "read", "write", "edit"]
    # the view, settled, as the turn would send it (the tool's result is logged before the
    # subagent's first step); then the state; then the task
    content = sub[0]["messages"][0]["content"]
    assert content[0] == {"type": "text", "text": "<chat>\n0+1|user: start a subagent Scout to list the files\n"
                          '1+1|tool: agent {"name": "Scout", "task": "List the files."}\n'
                          f"2+1|echo: {started}\n</chat>"}
    assert content[1]["text"].endswith(f"working directory: {os.getcwd()}; you are the subagent Scout]")
    assert content[2] == {"type": "text", "text": "List the files.", "cache_control": MARK}
    # the report turn: the work message is its message, after the view that does not hold it yet
    last = bodies[-1]["messages"][0]["content"]
    assert last[-1]["text"] == "[Scout] report\nalpha, beta, gamma."
    assert "alpha, beta" not in "".join(b["text"] for b in last[:-1])
    # its steps are in its own log only, and the log says where the report went
    records = agent_records(home, "Scout")
    assert [r["kind"] for r in records] == ["start", "usage", "ever", "end", "reported"]
    assert records[0]["task"] == "List the files." and records[0]["turn"] == 0
    assert records[3]["how"] == "done" and records[-1]["id"] == 4
    assert oct((home / "chat" / "agents" / "Scout.jsonl").stat().st_mode & 0o777) == "0o600"
    assert oct((home / "chat" / "agents").stat().st_mode & 0o777) == "0o700"


@pytest.mark.parametrize("report_turns", [True, False], ids=["chat", "send"])
def test_a_report_mid_turn_joins_between_the_masters_tool_calls(tmp_path, api, report_turns):
    api.reset()
    api.responder = compactions
    held = threading.Event()
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "Count to 42."}, id="a1")]), when=is_master)
    api.enqueue(Reply([tool_use("date", {"id": 0}, id="d1")], gate=held), when=is_master)
    api.enqueue("Scout says 42.", when=is_master)
    api.enqueue("Done: 42.", when=is_sub("Scout"))
    home = tmp_path / "home"

    async def go():
        chat = await chat_for(home, api, report_turns=report_turns)
        said = asyncio.create_task(chat.say("have Scout count"))
        await until(lambda: chat.agents.pending)  # the report arrived while the master's call runs
        assert chat.turn is not None
        held.set()
        result = await said
        assert result.reply == "Scout says 42."
        await until(lambda: chat.agents.starter is None or chat.agents.starter.done())
        await closed(chat)

    run(go())
    kinds = logged(home)
    assert [k for k, _ in kinds] == ["user", "tool", "echo", "tool", "echo", "work", "ever"]
    assert kinds[5] == ("work", "[Scout] report\nDone: 42.")
    master = [r.body for r in api.requests if is_master(r.body)]
    assert len(master) == 3  # no extra turn: the running one took the report
    joined = master[2]["messages"][-1]["content"]
    assert joined[0]["type"] == "tool_result" and joined[0]["tool_use_id"] == "d1"
    assert joined[1]["text"] == "[Scout] report\nDone: 42."
    assert agent_records(home, "Scout")[-1] == {"kind": "reported", "id": 5,
                                                "time": agent_records(home, "Scout")[-1]["time"]}


def test_two_subagents_run_at_once_and_each_reports_once_and_names_are_unique(tmp_path, api):
    api.reset()
    api.responder = compactions
    gates = {"Alpha": threading.Event(), "Beta": threading.Event()}
    api.enqueue(Reply([tool_use("agent", {"name": "Alpha", "task": "Do A."}, id="a1"),
                       tool_use("agent", {"name": "Beta", "task": "Do B."}, id="a2"),
                       tool_use("agent", {"name": "alpha", "task": "Again."}, id="a3")]), when=is_master)
    api.enqueue("Both started.", when=is_master)
    # Beta's first call waits for Alpha's response to start (the client's prefix gate: one cache write per prefix);
    # so Alpha answers its first call with a tool call, and then both hold a call open together
    api.enqueue(Reply([tool_use("date", {"id": 0}, id="ad")]), when=is_sub("Alpha"))
    for name in gates:
        api.enqueue(Reply(f"{name} finished.", gate=gates[name]), when=is_sub(name))
    home = tmp_path / "home"

    def calls(name):
        return sum(1 for r in api.requests if is_sub(name)(r.body))

    async def go():
        chat = await chat_for(home, api)
        await chat.say("run Alpha and Beta")
        await until(lambda: calls("Alpha") == 2 and calls("Beta") == 1)
        assert sorted(chat.agents.running) == ["Alpha", "Beta"]  # both running, a call each in flight
        gates["Beta"].set()
        gates["Alpha"].set()
        await until(lambda: not chat.agents.running and not chat.agents.pending
                    and (chat.agents.starter is None or chat.agents.starter.done()))
        await closed(chat)

    run(go())
    log = logged(home)
    echoes = [t for k, t in log if k == "echo"]
    assert echoes[2] == ("agent: this chat already has a subagent named alpha; names are unique in a "
                         "chat, so choose another.")
    works = sorted(t for k, t in log if k == "work")
    assert works == ["[Alpha] report\nAlpha finished.", "[Beta] report\nBeta finished."]
    assert sorted(p.name for p in (home / "chat" / "agents").iterdir()) == ["Alpha.jsonl", "Beta.jsonl"]
    for name in gates:
        kinds = [r["kind"] for r in agent_records(home, name)]
        assert kinds.count("end") == 1 and kinds.count("reported") == 1
    # each subagent's steps stay out of the chat's log: its reply is there only inside its report
    assert [t for _, t in log if "finished" in t] == [t for k, t in log if k == "work"]
    assert [r["kind"] for r in agent_records(home, "Alpha")][:6] == ["start", "usage", "tool", "echo", "usage", "ever"]
    # one constant prefix for every subagent: the second's first call reads what the first wrote
    firsts = [next(r.body for r in api.requests if is_sub(name)(r.body)) for name in ("Alpha", "Beta")]
    assert firsts[0]["tools"] == firsts[1]["tools"] and firsts[0]["system"] == firsts[1]["system"]
    beta_usage = next(r["record"] for r in agent_records(home, "Beta") if r["kind"] == "usage")
    alpha_usage = next(r["record"] for r in agent_records(home, "Alpha") if r["kind"] == "usage")
    assert alpha_usage["cache_creation_input_tokens"] > 0
    # Beta reads the shared tools and system (the view here is shorter than a block of 4 lines, so
    # it has no mark of its own) and writes only what follows them
    assert beta_usage["cache_read_input_tokens"] > 0
    assert beta_usage["cache_creation_input_tokens"] < alpha_usage["cache_creation_input_tokens"]


def test_a_subagent_ending_on_a_tool_call_reports_it_and_does_not_run_it(tmp_path, api):
    api.reset()
    api.responder = compactions
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "Make a file."}, id="a1")]), when=is_master)
    api.enqueue("Started.", when=is_master)
    api.enqueue(Reply([text("Making it."), tool_use("shell", {"command": "touch made.txt"}, id="s1")],
                      stop_reason="max_tokens"), when=is_sub("Scout"))
    home = tmp_path / "home"
    workdir = tmp_path / "work"
    workdir.mkdir()

    async def go():
        os.chdir(workdir)
        chat = await chat_for(home, api)
        await chat.say("make a file with a subagent")
        await until(lambda: not chat.agents.running and (chat.agents.starter is None or chat.agents.starter.done()))
        await closed(chat)

    cwd = os.getcwd()
    try:
        run(go())
    finally:
        os.chdir(cwd)
    works = [t for k, t in logged(home) if k == "work"]
    assert works == ['[Scout] report: it ended on a tool call: its last reply asked for shell '
                     '{"command": "touch made.txt"} and stopped there (max_tokens); it was not run. '
                     'zoom("Scout") gives its whole conversation.\nIts last reply before that:\nMaking it.']
    assert not (workdir / "made.txt").exists()
    assert agent_records(home, "Scout")[-2]["how"] == "tool call"


def test_a_subagent_ending_on_its_caps_and_on_an_error_still_reports(tmp_path, api):
    api.reset()
    api.responder = compactions
    api.enqueue(Reply([tool_use("agent", {"name": "Counter", "task": "Date things."}, id="a1"),
                       tool_use("agent", {"name": "Broken", "task": "Fail."}, id="a2")]), when=is_master)
    api.enqueue("Started two.", when=is_master)
    for k in range(3):
        api.enqueue(Reply([tool_use("date", {"id": 0}, id=f"d{k}")]), when=is_sub("Counter"))
    api.enqueue(status_error(400, "invalid_request_error", "bad request, on purpose"), when=is_sub("Broken"))
    never = threading.Event()
    home = tmp_path / "home"

    def all_ended(chat):
        return (not chat.agents.running and not chat.agents.pending
                and (chat.agents.starter is None or chat.agents.starter.done()))

    async def go():
        # Counter and Broken end on their own (two tool calls, an error) under a wall-time cap
        # that only stops a hang; Slow then starts alone under a cap of 1.5 s it always reaches
        # (its reply never comes), so no ending depends on how fast the machine runs the others.
        chat = await chat_for(home, api, AgentCaps(tokens=10**9, seconds=600, tool_calls=2))
        await chat.say("start the two")
        await until(lambda: all_ended(chat) and len(reports(chat.memory)) == 2, seconds=120)
        chat.agents.caps = AgentCaps(tokens=10**9, seconds=1.5, tool_calls=2)
        api.enqueue(Reply([tool_use("agent", {"name": "Slow", "task": "Take forever."}, id="a3")]),
                    when=is_master)
        api.enqueue("Started one.", when=is_master)
        api.enqueue(Reply("too late", gate=never), when=is_sub("Slow"))
        await chat.say("start the slow one")
        await until(lambda: all_ended(chat) and len(reports(chat.memory)) == 3, seconds=120)
        await closed(chat)

    try:
        run(go())
    finally:
        never.set()
    works = reports(home)
    assert sorted(works) == ["Broken", "Counter", "Slow"]
    assert works["Counter"].startswith('[Counter] report: it reached its cap of 2 tool calls; its last '
                                       'reply asked for date {"id": 0}, not run.')
    assert works["Broken"].startswith("[Broken] report: it ended on an error: the call failed: ")
    assert "bad request, on purpose" in works["Broken"]
    assert works["Slow"].startswith("[Slow] report: it reached its cap of 1.5 s of wall time; its log "
                                    "ends at its start")
    counter = agent_records(home, "Counter")
    assert [r["kind"] for r in counter].count("tool") == 2  # the third call was not run
    assert {agent_records(home, n)[-2]["how"] for n in works} == {"cap", "error"}


def reports(source) -> dict:
    """Each subagent's report in the chat's log (a home, or the open chat's memory), by name."""
    return {t.split("]")[0][1:]: t for k, t in logged(source) if k == "work"}


def test_the_token_cap_stops_a_subagent_before_its_next_call(tmp_path, api):
    api.reset()
    api.responder = compactions
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "Look."}, id="a1")]), when=is_master)
    api.enqueue("Started.", when=is_master)
    api.enqueue(Reply([tool_use("date", {"id": 0}, id="d1")]), when=is_sub("Scout"))
    home = tmp_path / "home"

    async def go():
        chat = await chat_for(home, api, AgentCaps(tokens=100, seconds=60, tool_calls=50))
        await chat.say("look with Scout")
        await until(lambda: not chat.agents.running and (chat.agents.starter is None or chat.agents.starter.done()))
        await closed(chat)

    run(go())
    sub_calls = [r for r in api.requests if is_sub("Scout")(r.body)]
    assert len(sub_calls) == 1  # its first call spent the cap; it made no second
    usage = agent_records(home, "Scout")[1]["record"]
    spent = sum(usage[k] for k in ("input_tokens", "cache_creation_input_tokens",
                                    "cache_read_input_tokens", "output_tokens"))
    assert spent > 100
    works = [t for k, t in logged(home) if k == "work"]
    assert works == [f"[Scout] report: it reached its cap of 100 tokens ({spent:,} used, 1 tool calls). "
                     'zoom("Scout") gives its whole conversation.']


def test_zoom_by_name_gives_the_whole_conversation_in_pages(tmp_path, api):
    api.reset()
    api.responder = compactions
    long_text = "x" * 20_000
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "Write a lot."}, id="a1")]), when=is_master)
    api.enqueue("Started.", when=is_master)
    api.enqueue(Reply([text(long_text), tool_use("date", {"id": 0}, id="d1")]), when=is_sub("Scout"))
    api.enqueue(Reply([text("y" * 20_000)]), when=is_sub("Scout"))
    api.enqueue(Reply([tool_use("zoom", {"id": "Scout"}, id="z1"), tool_use("zoom", {"id": "Scout", "page": 2}, id="z2"),
                       tool_use("zoom", {"id": "Nobody"}, id="z3"),
                       tool_use("zoom", {"id": "../agents/Scout"}, id="z4")]), when=is_master)
    home = tmp_path / "home"

    async def go():
        chat = await chat_for(home, api)
        await chat.say("write a lot with Scout")
        await until(lambda: not chat.agents.running and (chat.agents.starter is None or chat.agents.starter.done()))
        await closed(chat)

    run(go())
    zoomed = [r.body for r in api.requests if is_master(r.body)][-1]["messages"][-1]["content"]
    page1, page2, nobody = (block["content"][0]["text"] for block in zoomed[:3])
    assert page1.startswith("[subagent Scout, page 1 of 2]\n[subagent Scout, started ")
    assert "\n\ntask: Write a lot.\n\never: " + long_text in page1
    assert page2.startswith("[subagent Scout, page 2 of 2]\n")
    # the zoom ran in the report's own turn, before the turn ended and the report was noted as logged
    assert page2.endswith("\n\n[ended (done) " + agent_records(home, "Scout")[-2]["time"] + ": ended with its reply]")
    assert 'tool: date {"id": 0}' in page1 + page2
    assert nobody == "zoom: this chat has no subagent named 'Nobody'; its subagents are Scout."
    # a name is a name, never a path
    assert zoomed[3]["content"][0]["text"] == ("zoom: this chat has no subagent named '../agents/Scout'; "
                                               "its subagents are Scout.")
    assert zoomed[2]["is_error"]
    # `ever memory zoom Scout 1` (and a page) is the model's zoom("Scout"), for a person
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVER_"))}
    env["EVER_HOME"] = str(home)
    # the report logged since the model's zoom adds its line to the conversation's end
    page2 += "\n\n[its report is message 4]"
    for words, page in ((["Scout", "1"], page1), (["Scout"], page1), (["Scout", "1", "2"], page2)):
        shown = subprocess.run([EVER, "memory", "zoom", *words], env=env, capture_output=True, text=True, timeout=300)
        assert (shown.returncode, shown.stderr) == (0, ""), words
        assert shown.stdout == page + "\n", words
    refused = subprocess.run([EVER, "memory", "zoom", "Nobody", "1"], env=env, capture_output=True, text=True,
                             timeout=300)
    assert (refused.returncode, refused.stderr) == (1, "ever: " + nobody + "\n")


def test_the_report_is_summarized_by_the_compactor_like_any_message(tmp_path, api):
    api.reset()
    api.responder = compactions
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "Find names."}, id="a1")]), when=is_master)
    api.enqueue("Started.", when=is_master)
    found = "The three files are alpha, beta and gamma. " * 20  # over 512 bytes: a compaction
    api.enqueue(found, when=is_sub("Scout"))
    home = tmp_path / "home"

    async def go():
        chat = await chat_for(home, api)
        await chat.say("find names with Scout")
        await until(lambda: not chat.agents.running and (chat.agents.starter is None or chat.agents.starter.done()))
        await chat.memory.idle_or_stop(5.0)
        view = chat.memory.render()
        await closed(chat)
        return view

    view = run(go())
    work_id = [k for k, (kind, _) in enumerate(logged(home)) if kind == "work"][0]
    asked = [r.body for r in api.requests
             if f"Compaction: compress message {work_id} " in r.body["messages"][-1]["content"][-1].get("text", "")]
    assert asked and f"work: [Scout] report\n{found}" in asked[0]["messages"][-1]["content"][-1]["text"]
    assert f"\n{work_id}+1|summary of message {work_id}, as the compactor wrote it.\n" in view


def test_cost_and_the_list_keep_subagents_apart(tmp_path, api):
    api.reset()
    api.responder = compactions
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "Look."}, id="a1")]), when=is_master)
    api.enqueue("Started.", when=is_master)
    api.enqueue("Nothing there.", when=is_sub("Scout"))
    home = tmp_path / "home"

    async def go():
        chat = await Owner.open(settings_for(home, api, model="claude-haiku-4-5"), yes=True,
                               api_key="test-key")
        await chat.say("look with Scout")
        await until(lambda: not chat.agents.running and (chat.agents.starter is None or chat.agents.starter.done()))
        await closed(chat)

    run(go())
    records = read_usage(home).records
    kinds = [r.kind for r in records]
    assert kinds.count("agent") == 1 and kinds.count("turn") == 3  # two calls, then the report's turn
    result = report(records)
    assert result.all_agents.calls == 1 and result.all_turns.calls == 3
    rows = listing(home / "chat")
    assert [(r["name"], r["state"], r["calls"], r["tool_calls"], r["report"]) for r in rows] == [
        ("Scout", "ended (done)", 1, 0, 4)]
    assert rows[0]["tokens"] == sum(r.prompt_tokens + r.output_tokens for r in records if r.kind == "agent")
    # Haiku 4.5's list prices in cents per million tokens (input 100, cache write 125, cache read
    # 10, output 500), so tokens × cents is the cost in 10^-8 dollars
    (agent,) = [r for r in records if r.kind == "agent"]
    assert rows[0]["cost_e8"] == (agent.input_tokens * 100 + agent.cache_creation_input_tokens * 125
                                  + agent.cache_read_input_tokens * 10 + agent.output_tokens * 500) > 0
    assert listing_text(rows).splitlines()[1].startswith("Scout           ended (done)")
    from harness.calls.usage import format_report

    shown = format_report(result).splitlines()
    assert sum(line.startswith("subagents ") for line in shown) == 1
    assert [line.split()[1] for line in shown if line.startswith("turns ")] == ["3"]  # calls


def test_a_stopped_subagent_reports_that_it_was_stopped(tmp_path, api):
    api.reset()
    api.responder = compactions
    never = threading.Event()
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "Wait."}, id="a1")]), when=is_master)
    api.enqueue("Started.", when=is_master)
    api.enqueue(Reply("never seen", gate=never), when=is_sub("Scout"))
    home = tmp_path / "home"

    async def go():
        chat = await chat_for(home, api)
        await chat.say("start Scout")
        await until(lambda: any(is_sub("Scout")(r.body) for r in api.requests))
        assert chat.agents.stop("Scout") and not chat.agents.stop("Nobody")
        await until(lambda: not chat.agents.running and (chat.agents.starter is None or chat.agents.starter.done()))
        await closed(chat)

    try:
        run(go())
    finally:
        never.set()
    works = [t for k, t in logged(home) if k == "work"]
    assert works == ["[Scout] report: it was stopped by the user; its log ends at its start ("
                     + agent_records(home, "Scout")[0]["time"] + "), before any step. "
                     'zoom("Scout") gives its whole conversation.']


@pytest.mark.slow
def test_sigkill_of_the_owner_then_a_restart_reports_the_subagent_cut_off(tmp_path, api):
    api.reset()
    api.responder = compactions
    never = threading.Event()
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "Check the date twice."}, id="a1")]),
                when=is_master)
    api.enqueue("Scout is running.", when=is_master)
    api.enqueue(Reply([text("First, the date."), tool_use("date", {"id": 0}, id="d1")]), when=is_sub("Scout"))
    api.enqueue(Reply("never seen", gate=never), when=is_sub("Scout"))
    child = pexpect.spawn(EVER, ["chat", "--yes"], env=environment(tmp_path, api), encoding="utf-8",
                          timeout=60, dimensions=(40, 160))
    try:
        child.expect("/help")
        child.expect("›")
        child.sendline("start Scout")
        child.expect("Scout is running.")
        deadline = time.monotonic() + 20
        while sum(1 for r in api.requests if is_sub("Scout")(r.body)) < 2:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGKILL)
        child.expect(pexpect.EOF)
    finally:
        never.set()
        child.close(force=True)
    path = tmp_path / "chat" / "agents" / "Scout.jsonl"
    before = agentlog.read_log(path)
    assert [r["kind"] for r in before] == ["start", "usage", "ever", "tool", "echo"]  # its log survives
    assert [k for k, _ in logged(tmp_path)] == ["user", "tool", "echo", "ever"]
    listed = ever(["agents"], environment(tmp_path, api))
    assert "cut off (reported at the chat's next start)" in listed.stdout
    # the restart: the report is logged before the new turn, which sees it in its view
    api.enqueue("Scout was cut off; shall I start it again?", when=is_master)
    done = ever(["send", "what did Scout find?"], environment(tmp_path, api))
    assert done.returncode == 0, done.stderr
    log = logged(tmp_path)
    expected = ("[Scout] report: it was cut off: the chat's process ended while it ran, and its log ends "
                f"at step 3 ({before[-1]['time']}), echo: {before[-1]['text']}. zoom(\"Scout\") gives its "
                "whole conversation.\nIts last reply before that:\nFirst, the date.")
    assert log[4:] == [("work", expected), ("user", "what did Scout find?"),
                       ("ever", "Scout was cut off; shall I start it again?")]
    assert "[Scout] report: it was cut off" in json.dumps(api.requests[-1].body["messages"][0]["content"][:-2])
    after = agentlog.read_log(path)
    assert [r["kind"] for r in after[5:]] == ["end", "reported"] and after[-1]["id"] == 4
    # a second restart reports nothing again
    api.enqueue("Hello.", when=is_master)
    assert ever(["send", "hi"], environment(tmp_path, api)).returncode == 0
    assert [k for k, _ in logged(tmp_path)].count("work") == 1
    assert "ended (cut off)" in ever(["agents"], environment(tmp_path, api)).stdout


def test_the_agents_caps_come_from_the_config(tmp_path):
    from harness.chat.config import ConfigError

    assert load_settings({"EVER_HOME": str(tmp_path)}).agent_caps == AgentCaps(2_000_000, 1800, 100)
    (tmp_path / "config.toml").write_text("[agents]\ntokens_max = 5000\nseconds_max = 60\ntool_calls_max = 3\n")
    assert load_settings({"EVER_HOME": str(tmp_path)}).agent_caps == AgentCaps(5000, 60, 3)
    (tmp_path / "config.toml").write_text("[agents]\ntool_calls_max = 0\n")
    with pytest.raises(ConfigError) as caught:
        load_settings({"EVER_HOME": str(tmp_path)})
    assert str(caught.value).endswith("agents.tool_calls_max must be a whole number above 0; it is 0.")


@pytest.mark.slow
def test_ctrl_c_in_the_chat_stops_a_subagent_which_reports_it(tmp_path, api):
    api.reset()
    api.responder = compactions
    never = threading.Event()
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "Wait for ever."}, id="a1")]),
                when=is_master)
    api.enqueue("Scout is running.", when=is_master)
    api.enqueue(Reply("never seen", gate=never), when=is_sub("Scout"))
    api.enqueue("Scout was stopped before it found anything.", when=is_master)
    child = pexpect.spawn(EVER, ["chat", "--yes"], env=environment(tmp_path, api), encoding="utf-8",
                          timeout=60, dimensions=(40, 160))
    try:
        child.expect("/help")
        child.expect("›")
        child.sendline("start Scout")
        child.expect(r"\[Scout\] started in the background")
        child.expect("Scout is running.")
        deadline = time.monotonic() + 20
        while not any(is_sub("Scout")(r.body) for r in api.requests):
            assert time.monotonic() < deadline
            time.sleep(0.02)
        listed = ever(["agents"], environment(tmp_path, api)).stdout.splitlines()
        assert listed[1].startswith("Scout           running ")
        time.sleep(0.3)
        child.sendintr()  # no call runs: Ctrl-C stops the newest subagent
        child.expect(r"stopping the subagent Scout; its report follows")
        child.expect(r"\[Scout\] ended: cancel")
        child.expect("Scout was stopped before it found anything.")  # the report's own turn
        child.expect("›")
        time.sleep(0.2)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        never.set()
        child.close(force=True)
    log = logged(tmp_path)
    assert [k for k, _ in log] == ["user", "tool", "echo", "ever", "work", "ever"]
    assert log[4][1].startswith("[Scout] report: it was stopped by the user; its log ends at its start")


def test_a_kill_between_the_end_and_the_report_neither_loses_nor_doubles_it(tmp_path, api):
    """The two states a kill can leave between agentlog's `end` line and its `reported` line."""
    api.reset()
    api.responder = compactions
    home = tmp_path / "home"
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "Look."}, id="a1")]), when=is_master)
    api.enqueue("Started.", when=is_master)
    api.enqueue("Found it.", when=is_sub("Scout"))

    async def first():
        chat = await chat_for(home, api)
        await chat.say("look with Scout")
        await until(lambda: not chat.agents.running and (chat.agents.starter is None or chat.agents.starter.done()))
        await closed(chat)

    run(first())
    path = home / "chat" / "agents" / "Scout.jsonl"
    data = path.read_bytes()
    assert json.loads(data.splitlines()[-1])["kind"] == "reported"
    # killed after the report was logged, before its `reported` line: the log as the kill left it
    path.write_bytes(data[:data.rstrip(b"\n").rfind(b"\n") + 1])
    # and a second subagent killed after its `end` line, before its report reached the chat
    log = agentlog.AgentLog.create(home / "chat", "Other", {"task": "Other work.", "turn": 0, "T": 6})
    log.append({"kind": "ever", "text": "Other found nothing."})
    log.append({"kind": "end", "how": "done", "said": "ended with its reply",
                "report": "[Other] report\nOther found nothing.", "T": 6})
    log.close()

    async def again():
        chat = await Owner.open(settings_for(home, api), yes=True, api_key="test-key",
                               report_turns=False)
        await closed(chat)

    run(again())
    works = [(k, t) for k, t in logged(home) if k == "work"]
    assert works == [("work", "[Scout] report\nFound it."), ("work", "[Other] report\nOther found nothing.")]
    scout_id = [t for _, t in logged(home)].index("[Scout] report\nFound it.")
    assert agent_records(home, "Scout")[-1]["id"] == scout_id
    assert agent_records(home, "Other")[-1]["id"] == len(logged(home)) - 1


def test_a_subagent_has_the_chats_approvals(tmp_path, api):
    api.reset()
    api.responder = compactions
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "Make a file."}, id="a1")]), when=is_master)
    api.enqueue("Started.", when=is_master)
    api.enqueue(Reply([tool_use("shell", {"command": "touch made.txt"}, id="s1"),
                       tool_use("read", {"path": "nothing-here.txt"}, id="r1")]), when=is_sub("Scout"))
    api.enqueue("I was not allowed to make it.", when=is_sub("Scout"))
    home = tmp_path / "home"

    async def go():
        # as `ever send` without --yes: nobody can be asked, so shell is declined
        chat = await Owner.open(settings_for(home, api), yes=False, api_key="test-key")
        await chat.say("make a file with Scout")
        await until(lambda: not chat.agents.running and (chat.agents.starter is None or chat.agents.starter.done()))
        await closed(chat)

    run(go())
    echoes = [r["text"] for r in agent_records(home, "Scout") if r["kind"] == "echo"]
    assert echoes[0].startswith("Not run: shell asks the user first, and this run cannot ask")
    assert echoes[1].startswith("read failed: No such file or directory")  # read never asks
    assert not (Path.cwd() / "made.txt").exists()


def test_the_subagents_view_is_settled_before_its_first_call(tmp_path, api):
    api.reset()
    api.responder = compactions
    long_words = "Please look into the cache module and tell me what it does. " * 12  # over 512 bytes
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "Read it."}, id="a1")]), when=is_master)
    api.enqueue("Started.", when=is_master)
    api.enqueue("It caches.", when=is_sub("Scout"))
    held = threading.Event()
    api.enqueue(Reply("summary of message 0, as the compactor wrote it.", gate=held),
                when=lambda body: "Compaction: compress message 0 " in json.dumps(body))
    home = tmp_path / "home"

    async def go():
        chat = await chat_for(home, api)
        await chat.say(long_words)  # the master's view was rendered before its message: no wait
        await until(lambda: chat.memory.planner.waiting)  # the subagent waits for message 0's line
        assert not any(is_sub("Scout")(r.body) for r in api.requests)
        held.set()
        await until(lambda: not chat.agents.running and (chat.agents.starter is None or chat.agents.starter.done()))
        await closed(chat)

    try:
        run(go())
    finally:
        held.set()
    sub = next(r.body for r in api.requests if is_sub("Scout")(r.body))
    view = sub["messages"][0]["content"][0]["text"]
    # message 0 needed a compaction: the subagent waited for it, as a turn does, and sees its line
    assert view.startswith("<chat>\n0+1|summary of message 0, as the compactor wrote it.\n")
    assert "not summarized yet" not in view


@pytest.mark.slow
def test_ever_send_stops_its_subagent_when_it_ends_and_logs_its_report(tmp_path, api):
    api.reset()
    api.responder = compactions
    never = threading.Event()
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "Look."}, id="a1")]), when=is_master)
    api.enqueue("Scout started.", when=is_master)
    api.enqueue(Reply("never seen", gate=never), when=is_sub("Scout"))
    try:
        done = ever(["send", "look with Scout"], environment(tmp_path, api))
    finally:
        never.set()
    assert (done.returncode, done.stdout) == (0, "Scout started.\n")
    log = logged(tmp_path)
    assert [k for k, _ in log] == ["user", "tool", "echo", "ever", "work"]
    assert log[4][1].startswith("[Scout] report: it was stopped when the chat closed; its log ends at its start")
    assert agent_records(tmp_path, "Scout")[-1]["id"] == 4


def test_an_end_line_the_disk_refuses_still_gives_the_report_once_across_a_restart(tmp_path, api):
    # found by `make sim` (seed 50): the end line's fsync failed (EIO), the exception left the
    # subagent's task unretrieved and its report never reached the chat [A3]
    import errno

    from harness.owner.world import World
    from tests.support.disk import Fail, FailingDisk

    api.reset()
    api.responder = compactions
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "Look."}, id="a1")]), when=is_master)
    api.enqueue("Scout is on it.", when=is_master)
    api.enqueue("Scout looked.", when=is_sub("Scout"))
    api.enqueue("Scout's report is in.", when=is_master)
    home = tmp_path / "home"
    disk = FailingDisk(Fail("fsync", errno.EIO, on="agents/Scout.jsonl", nth=4))  # start, usage, ever, end

    async def go():
        chat = await Owner.open(settings_for(home, api, AgentCaps()), yes=True, api_key="test-key",
                                world=dataclasses.replace(World.real(), disk=disk))
        disk.arm()
        await chat.say("start Scout")
        await until(lambda: not chat.agents.running and chat.agents.starter is not None and chat.agents.starter.done())
        await closed(chat)
        again = await chat_for(home, api)  # a restart finds no end line, and the report in the chat's log
        await closed(again)

    run(go())
    assert disk.failures == 1
    reports = [text for kind, text in logged(home) if kind == "work"]
    assert reports == ["[Scout] report\nScout looked."]
    assert [r["kind"] for r in agentlog.read_log(home / "chat" / "agents" / "Scout.jsonl")] == [
        "start", "usage", "ever", "reported"]  # no end line: the disk refused it


def gated_scout_and_a_refusing_day_file(api, code: int):
    """Scout, started by the first message, replies once the gate opens; the disk, once armed,
    refuses every write to today's day file with `code`."""
    from tests.support.disk import Fail, FailingDisk

    api.reset()
    api.responder = compactions
    gate = threading.Event()
    api.enqueue(Reply([tool_use("agent", {"name": "Scout", "task": "Look."}, id="a1")]), when=is_master)
    api.enqueue("Scout is on it.", when=is_master)
    api.enqueue(Reply([text("Scout looked.")], gate=gate), when=is_sub("Scout"))
    api.enqueue("Scout's report is in.", when=is_master)
    return gate, FailingDisk(Fail("write", code, on="main/" + time.strftime("%Y-%m-%d") + ".jsonl", times=20))


async def owner_on(home, api, disk):
    from harness.owner.world import World

    return await Owner.open(settings_for(home, api, AgentCaps()), yes=True, api_key="test-key",
                            world=dataclasses.replace(World.real(), disk=disk))


def test_a_report_whose_line_the_disk_refuses_is_given_at_the_next_start_never_marked_given_before(tmp_path, api):
    # found by `make sim` (seed 65): the report's own turn could not log its `work` line (the disk
    # refused it), and the subagent's log was marked `reported` all the same: the report was lost
    import errno

    gate, disk = gated_scout_and_a_refusing_day_file(api, errno.EIO)
    home = tmp_path / "home"

    async def go():
        chat = await owner_on(home, api, disk)
        await chat.say("start Scout")
        disk.arm()  # from here the chat's day file refuses every line: the report's among them
        gate.set()
        await until(lambda: not chat.agents.running and chat.agents.starter is not None and chat.agents.starter.done())
        await closed(chat)
        path = home / "chat" / "agents" / "Scout.jsonl"
        assert [r["kind"] for r in agentlog.read_log(path)][-1] == "end"  # never marked reported
        disk.armed = False
        again = await chat_for(home, api)  # the next start gives it
        await until(lambda: again.agents.starter is None or again.agents.starter.done())
        await closed(again)

    run(go())
    assert disk.failures >= 1
    assert [text for kind, text in logged(home) if kind == "work"] == ["[Scout] report\nScout looked."]
    assert [r["kind"] for r in agentlog.read_log(home / "chat" / "agents" / "Scout.jsonl")][-2:] == [
        "end", "reported"]


def test_a_close_whose_reports_the_full_disk_refuses_ends_and_the_next_start_gives_them(tmp_path, api):
    # found by `make sim` (seed 3218): the chat closed while a subagent ran; the report of its stop
    # met a full disk (ENOSPC) and the StoreError came out of the owner's close [A3]
    import errno

    from harness.memory.store import StoreError

    gate, disk = gated_scout_and_a_refusing_day_file(api, errno.ENOSPC)
    home = tmp_path / "home"

    async def go():
        chat = await owner_on(home, api, disk)
        await chat.say("start Scout")
        disk.arm()  # from here the chat's day file refuses every line: the stop's report among them
        try:
            await closed(chat)  # Scout still runs: it is stopped, and its report is refused
        except StoreError as error:
            raise AssertionError(f"the close raised: {error}") from None
        gate.set()
        disk.armed = False
        again = await chat_for(home, api)  # the next start gives it
        await until(lambda: again.agents.starter is None or again.agents.starter.done())
        await closed(again)

    run(go())
    assert disk.failures >= 1
    reports = [text for kind, text in logged(home) if kind == "work"]
    assert len(reports) == 1 and reports[0].startswith("[Scout] ")
    assert [r["kind"] for r in agentlog.read_log(home / "chat" / "agents" / "Scout.jsonl")][-2:] == [
        "end", "reported"]


def test_a_turn_failing_in_the_scheduler_a_report_started_is_said_in_every_terminal(tmp_path, api):
    """Found by `make sim` (seed 54): a subagent's report starts the chat's scheduler [A6], which
    runs the queued messages' turns too; one that failed on the disk (its reply line refused)
    ended that task with its error, which nobody took: asyncio logged it as never retrieved, and
    no terminal was told. Now it is said as a failed turn of any scheduler is. The turn's failure
    is stood in for by the StoreError the disk's refusal raises."""
    from harness.memory.store import StoreError
    from harness.owner.hub import LocalClient

    api.reset()
    api.responder = compactions

    async def go():
        chat = await chat_for(tmp_path / "home", api)
        events = []
        chat.hub.clients.append(LocalClient(events.append))

        async def refused(delivery):
            raise StoreError("the line could not be written (Input/output error)")

        chat.message_turn = refused
        chat.queue.append(None)  # a message waiting for its turn
        starter = asyncio.get_running_loop().create_task(chat.agents.report_turns())  # as a report starts it
        await until(starter.done)
        await asyncio.sleep(0)
        chat.hub.clients.clear()
        await closed(chat)
        return [event.sentence for event in events if hasattr(event, "sentence")]

    assert run(go()) == ["The turn ended: StoreError: the line could not be written (Input/output error) "
                         "(a bug in Ever: please report it)"]
