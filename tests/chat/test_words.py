"""Strategy: the words people already type, through the installed `ever` in subprocesses and
pseudo-terminals, against the local Messages API: `--version` (its golden value read from
pyproject.toml), `-m/--model` (the model named must be the model in the request the API got),
`ever send --json` (the usage figures summed here from the usage files' own lines, the cost from
Anthropic's published Sonnet 4.6 prices, $3 / $3.75 / $0.30 / $15 a million tokens), and a bare
`exit` that asks before it becomes a message kept forever."""

import json
import time
import tomllib
from pathlib import Path

import pexpect
import pytest

from harness.localapi.server import Reply, tool_use
from tests.support.chat import EVER, environment, ever, is_compaction, lines
from tests.support.terminal import spawn_chat

ROOT = Path(__file__).resolve().parents[2]


def test_ever_version_says_the_packages_version():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    done = ever(["--version"], {"PATH": "/usr/bin:/bin"})
    assert (done.returncode, done.stdout, done.stderr) == (0, f"ever {version}\n", "")


def hand_usage(home: Path, turn: int) -> dict:
    """The turn's calls from the usage files' lines, and their cost at Sonnet 4.6's prices."""
    calls = [r for r in lines(home, "usage") if r["kind"] == "turn" and r["turn"] == turn]
    fields = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")
    sums = {name: sum(r[name] for r in calls) for name in fields}
    dollars = (sums["input_tokens"] * 3 + sums["cache_creation_input_tokens"] * 3.75
               + sums["cache_read_input_tokens"] * 0.30 + sums["output_tokens"] * 15) / 1e6
    return {"calls": len(calls), **sums, "cost_usd": dollars}


def check_json(done, home: Path, reply: str, message_id: int, calls: int) -> None:
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert (answer["reply"], answer["id"], answer["error"]) == (reply, message_id, None)
    assert [r["kind"] for r in lines(home) if r["i"] == message_id] == ["user"]
    hand = hand_usage(home, message_id)
    prompt = hand["input_tokens"] + hand["cache_creation_input_tokens"] + hand["cache_read_input_tokens"]
    assert hand["calls"] == calls and prompt > 0 and hand["output_tokens"] > 0
    usage = answer["usage"]
    for name in ("calls", "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
                 "output_tokens"):
        assert usage[name] == hand[name], name
    assert abs(usage["cost_usd"] - hand["cost_usd"]) < 1e-8


@pytest.mark.slow
def test_ever_send_json_gives_the_reply_the_id_and_the_turns_usage_and_cost(tmp_path, api):
    api.reset()
    api.enqueue(Reply([tool_use("date", {"id": 0}, id="d1")]))  # two calls in the turn
    api.enqueue("It is today.")
    done = ever(["send", "--json", "what day is it?"], environment(tmp_path, api))
    check_json(done, tmp_path, "It is today.", 0, 2)
    api.enqueue("Second.")
    done = ever(["send", "--json", "again"], environment(tmp_path, api))
    check_json(done, tmp_path, "Second.", 4, 1)  # user, tool, echo, ever, then this one


@pytest.mark.slow
def test_ever_send_json_handed_to_a_running_chat_says_the_same(tmp_path, api):
    api.reset()
    child = spawn_chat(tmp_path, api)
    try:
        api.enqueue("Answered by the owner.")
        done = ever(["send", "--json", "from a script"], environment(tmp_path, api))
        check_json(done, tmp_path, "Answered by the owner.", 0, 1)
        child.expect("Answered by the owner.")  # the terminal shows it too
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)


@pytest.mark.slow
def test_model_on_send_and_chat_is_the_model_the_api_is_asked_for(tmp_path, api):
    api.reset()
    api.enqueue("From Opus.")
    done = ever(["send", "-m", "claude-opus-4-5", "which model?"], environment(tmp_path, api))
    assert (done.returncode, done.stdout) == (0, "From Opus.\n")
    turns = [r.body for r in api.requests if r.body.get("tool_choice") != {"type": "none"}]
    assert turns[-1]["model"] == "claude-opus-4-5"
    api.enqueue("From the configured one.")
    ever(["send", "and now?"], environment(tmp_path, api))
    turns = [r.body for r in api.requests if r.body.get("tool_choice") != {"type": "none"}]
    assert turns[-1]["model"] == "claude-sonnet-4-6"  # environment() configures it
    child = pexpect.spawn(EVER, ["chat", "--model", "claude-haiku-4-5"], env=environment(tmp_path, api),
                          encoding="utf-8", timeout=60, dimensions=(40, 160))
    try:
        child.expect("›")
        api.enqueue("From Haiku.")
        child.sendline("and here?")
        child.expect("From Haiku.")
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    turns = [r.body for r in api.requests if r.body.get("tool_choice") != {"type": "none"}]
    assert turns[-1]["model"] == "claude-haiku-4-5"


def bare_exit(child, home: Path, api) -> None:
    """`exit` asks; Enter then sends it; `quit` asks and /exit leaves: one message in the log."""
    child.sendline("exit")
    child.expect_exact("Leave? /exit leaves; Enter sends 'exit' as a message")
    time.sleep(0.3)
    assert [r["text"] for r in lines(home) if r["kind"] == "user"] == []
    api.enqueue("You said exit.")
    child.sendline("")
    child.expect("You said exit.")
    child.expect("›")
    child.sendline("quit")
    child.expect_exact("Leave? /exit leaves; Enter sends 'quit' as a message")
    child.sendline("/exit")
    child.expect(pexpect.EOF)


@pytest.mark.slow
def test_a_bare_exit_asks_before_it_becomes_a_message(tmp_path, api):
    api.reset()
    child = spawn_chat(tmp_path, api)
    try:
        bare_exit(child, tmp_path, api)
    finally:
        child.close(force=True)
    assert [(r["kind"], r["text"]) for r in lines(tmp_path)] == [("user", "exit"), ("ever", "You said exit.")]


@pytest.mark.slow
def test_a_bare_exit_asks_in_an_attached_terminal_too(tmp_path, api):
    api.reset()
    env = environment(tmp_path, api)
    owner = pexpect.spawn(EVER, ["serve"], env=env, encoding="utf-8", timeout=60)
    try:
        owner.expect("ever chat")  # it says how to attach
        child = spawn_chat(tmp_path, api)
        try:
            bare_exit(child, tmp_path, api)
        finally:
            child.close(force=True)
    finally:
        owner.kill(15)
        owner.expect(pexpect.EOF)
        owner.close(force=True)
    assert [(r["kind"], r["text"]) for r in lines(tmp_path)] == [("user", "exit"), ("ever", "You said exit.")]


@pytest.mark.slow
def test_ever_log_shows_the_newest_messages_finds_words_and_says_where_the_files_are(tmp_path, api):
    api.reset()
    env = environment(tmp_path, api)
    for said, reply in (("plant the word xylophone", "Planted."), ("what else?", "Nothing else."),
                        ("last one", "Done.")):
        api.enqueue(reply)
        assert ever(["send", said], env).returncode == 0
    logged = lines(tmp_path)  # the log's own lines: ids, kinds, dates and texts
    assert len(logged) == 6

    def shown(records):
        return "\n\n".join(f"## {r['i']} · {r['kind']} · {r['date']}\n\n{r['text']}" for r in records) + "\n"

    done = ever(["log", "-n", "3"], env)
    assert (done.returncode, done.stdout, done.stderr) == (0, shown(logged[3:]), "")
    assert ever(["log"], env).stdout == shown(logged)  # ten by default: all six here
    as_json = json.loads(ever(["log", "-n", "2", "--json"], env).stdout)
    assert as_json == [{"id": r["i"], "kind": r["kind"], "date": r["date"], "text": r["text"]} for r in logged[4:]]
    found = ever(["log", "-q", "xylophone"], env)
    assert (found.returncode, found.stdout) == (0, shown(logged[:1]))
    assert ever(["log", "-q", "harpsichord"], env).stdout == ""
    files = ever(["files"], env).stdout
    assert files == ever(["log", "--paths"], env).stdout
    assert f"messages:  {tmp_path / 'chat' / 'main'}/YYYY-MM-DD.jsonl\n" in files


@pytest.mark.slow
def test_memory_status_speaks_in_sentences_and_json_gives_the_figures(tmp_path, api):
    api.reset()
    env = environment(tmp_path, api)
    api.enqueue("Hello back.")
    ever(["send", "hello"], env)
    printed = ever(["memory", "view"], env).stdout
    view_bytes = len(printed.encode()) - 1  # what it prints, less the last line break echo adds
    figures = json.loads(ever(["memory", "status", "--json"], env).stdout)
    assert (figures["messages"], figures["view_bytes"], figures["view_lines"]) == (2, view_bytes, 2)
    said = ever(["memory", "status"], env).stdout.splitlines()
    assert said[0] == "The chat holds 2 messages."
    assert said[1] == (f"The view the next turn sends (`ever memory view`) is {view_bytes:,} bytes in 2 lines, "
                       "every one summarized.")
    assert said[-1].startswith("The compactor is not running: no chat is open")
    assert all(line.endswith(".") for line in said) and not any(": " in line.split(" ")[0] for line in said)


def is_turn(body: dict) -> bool:
    return not is_compaction(body)


LONG = "a long message, over one line's 512 bytes, so the compactor summarizes it. " * 10


@pytest.mark.parametrize("where", ["owner", "attached"])
@pytest.mark.slow
def test_memory_rows_stay_quiet_by_the_setting_and_slash_quiet_shows_them_again(tmp_path, api, where):
    api.reset()
    (tmp_path / "config.toml").write_text("[memory]\nquiet = true\n")
    env = environment(tmp_path, api)
    owner = None
    if where == "attached":
        owner = pexpect.spawn(EVER, ["serve"], env=env, encoding="utf-8", timeout=60)
        owner.expect("ever chat")
    child = spawn_chat(tmp_path, api)
    try:
        api.enqueue("first summary", when=is_compaction)
        api.enqueue("Got the first.", when=is_turn)
        child.sendline("one " + LONG)
        child.expect("Got the first.")
        deadline = time.monotonic() + 60
        while not lines(tmp_path, "tree") and time.monotonic() < deadline:
            time.sleep(0.1)
        assert lines(tmp_path, "tree"), "the compactor summarized nothing"
        child.expect(pexpect.TIMEOUT, timeout=1.5)  # whatever the terminal shows meanwhile
        assert "memory:" not in child.before
        child.sendline("/quiet")
        child.expect_exact("(memory: rows shown again)")
        api.enqueue("second summary", when=is_compaction)
        api.enqueue("Got the second.", when=is_turn)
        child.sendline("two " + LONG)
        child.expect(r"memory: message 2 summarized")
        child.sendline("/quiet")
        child.expect_exact("(memory: rows hidden here; /quiet shows them again)")
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
        if owner is not None:
            owner.kill(15)
            owner.expect(pexpect.EOF)
            owner.close(force=True)
