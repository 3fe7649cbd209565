"""Strategy: `ever send` as scripts use it, many at once and interrupted, through the installed
command and the real SDK against the local Messages API served here (an echo: each reply quotes
the message it answers, so a reply names the message it belongs to). Each test checks what a
script sees (exit code, stdout, one sentence on stderr, never a traceback) and what the logs hold,
read with plain `json.loads`: every accepted message once, in id order, each answered once.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from harness.localapi.server import LocalAPI, Reply, status_error, tool_use
from tests.support.chat import EVER, environment, handed_over
from tests.support.chat import lines as logged
from tests.support.full_disk import Disk

ECHO = "You said: "


def echo(body: dict) -> Reply:
    """The reply to a request: its last text block (the new message, or the last one joined)
    quoted back, so a reply names the message it answers."""
    blocks = body["messages"][-1]["content"]
    said = [block["text"] for block in blocks if isinstance(block, dict) and block.get("type") == "text"]
    return Reply(ECHO + said[-1] if said else "The tool ran.")

# the exit codes of `ever send`, as the README documents them
ANSWERED, LOGGED_UNANSWERED, NOT_LOGGED = 0, 3, 4


@pytest.fixture
def echo_api(api):
    """The suite's local API, answering every request it has no scripted reply for with an echo."""
    api.reset()
    api.responder = echo
    yield api
    api.reset()


def answering(text: str):
    """A scripted reply's condition: the request is the turn of the message `text` (not a
    compaction, which the echo answers)."""
    def is_turn(body: dict) -> bool:
        blocks = body["messages"][-1]["content"]
        return isinstance(blocks, list) and blocks[-1].get("text") == text
    return is_turn


def start(args, env) -> subprocess.Popen:
    return subprocess.Popen([EVER, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def assert_no_traceback(*streams: str) -> None:
    for stream in streams:
        assert "Traceback" not in stream and "Error:" not in stream.replace("ever: ", ""), stream


@pytest.mark.slow
def test_twenty_sends_at_once_with_no_chat_running_are_all_answered_and_logged_once(tmp_path, echo_api):
    env = environment(tmp_path, echo_api)
    senders = {k: start(["send", f"m{k}"], env) for k in range(20)}
    results = {k: (p.wait(timeout=240), *p.communicate()) for k, p in senders.items()}
    for k, (code, out, err) in results.items():
        assert_no_traceback(out, err)
        assert (code, out) == (ANSWERED, f"{ECHO}m{k}\n"), (k, code, out, err)
    records = logged(tmp_path)
    assert [r["i"] for r in records] == list(range(len(records)))  # contiguous ids
    users = [r["text"] for r in records if r["kind"] == "user"]
    assert sorted(users) == sorted(f"m{k}" for k in range(20))  # each once
    # each answered once, right after it: the echo names the message it answers
    for at, record in enumerate(records):
        if record["kind"] == "user":
            assert records[at + 1] == {**records[at + 1], "kind": "ever", "text": ECHO + record["text"]}
    assert sum(r["kind"] == "ever" for r in records) == 20


@pytest.mark.slow
def test_memory_status_answers_during_a_slow_send(tmp_path, echo_api):
    gate = threading.Event()
    echo_api.enqueue(Reply([tool_use("date", {"id": 0}, id="d1")], gate=gate))  # held: the call runs
    env = environment(tmp_path, echo_api)
    sender = start(["send", "slow one"], env)
    try:
        echo_api.wait_for_requests(1, timeout_seconds=60)
        status = subprocess.run([EVER, "memory", "status"], env=env, capture_output=True, text=True,
                                timeout=60)
        assert_no_traceback(status.stdout, status.stderr)
        assert status.returncode == 0 and "The chat holds 1 message." in status.stdout, status
        view = subprocess.run([EVER, "memory", "view"], env=env, capture_output=True, text=True,
                              timeout=60)
        assert view.returncode == 0 and "0+1|user: slow one" in view.stdout, view
    finally:
        gate.set()
    out, err = sender.communicate(timeout=60)
    assert (sender.returncode, err) == (ANSWERED, ""), err
    assert out == "The tool ran.\n"


def wait_until(predicate, what: str, timeout_seconds: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_seconds
    while not predicate():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.02)


def inbox_holds(home: Path, text: str) -> bool:
    path = home / "chat" / "inbox.jsonl"
    return path.exists() and any(json.loads(line).get("text") == text
                                 for line in path.read_text().splitlines() if line.endswith("}"))


@pytest.mark.slow
def test_a_message_handed_over_during_a_call_survives_the_owners_kill_and_is_answered_once(tmp_path, echo_api):
    gate = threading.Event()
    echo_api.enqueue(Reply([tool_use("date", {"id": 0}, id="d1")], gate=gate))  # held: the call runs
    env = environment(tmp_path, echo_api)
    owner = start(["send", "first"], env)
    joined = None
    try:
        echo_api.wait_for_requests(1, timeout_seconds=60)
        joined = start(["send", "second"], env)
        # accepted: on disk in the inbox, waiting for the call's next tool boundary
        wait_until(lambda: inbox_holds(tmp_path, "second"), "the second message accepted")
        owner.send_signal(signal.SIGKILL)
        owner.wait(timeout=60)
        # the sender finds its owner gone, owns the chat itself, and answers what was accepted
        out, err = joined.communicate(timeout=120)
    finally:
        gate.set()
        for process in (owner, joined):
            if process is not None and process.poll() is None:
                process.kill()
    assert_no_traceback(out, err)
    assert (joined.returncode, out) == (ANSWERED, f"{ECHO}second\n"), err
    records = logged(tmp_path)
    assert [(r["kind"], r["text"]) for r in records] == [
        ("user", "first"), ("ever", f"{ECHO}first"), ("user", "second"), ("ever", f"{ECHO}second")]
    keys = [r["key"] for r in records if r["kind"] == "user"]
    assert len(set(keys)) == 2
    assert (tmp_path / "chat" / "inbox.jsonl").read_bytes() == b""  # nothing waits any more
    # the first was delivered before the kill: it was answered without being logged again
    sent = [request.body["messages"][-1]["content"][-1]["text"] for request in echo_api.requests]
    assert sent.count("first") == 2 and sent.count("second") == 1


@pytest.mark.slow
def test_a_sender_gets_its_reply_when_its_own_turn_ends_not_after_the_next(tmp_path, echo_api):
    first_call, second_call = threading.Event(), threading.Event()
    echo_api.enqueue(Reply("Yours, first.", gate=first_call), when=answering("first"))
    echo_api.enqueue(Reply("Yours, second.", gate=second_call), when=answering("second"))
    env = environment(tmp_path, echo_api)
    first = start(["send", "first"], env)
    second = None
    try:
        wait_until(lambda: any(answering("first")(r.body) for r in echo_api.requests), "the first's turn")
        second = start(["send", "second"], env)
        wait_until(lambda: inbox_holds(tmp_path, "second"), "the second message accepted")
        first_call.set()  # the call ends with a reply: the second message never reached it
        wait_until(lambda: any(answering("second")(r.body) for r in echo_api.requests),
                   "the second's own turn, held")
        out, err = first.communicate(timeout=60)
        assert (first.returncode, out, err) == (ANSWERED, "Yours, first.\n", "")
        assert second.poll() is None
        second_call.set()
        out, err = second.communicate(timeout=60)
        assert (second.returncode, out, err) == (ANSWERED, "Yours, second.\n", "")
    finally:
        first_call.set()
        second_call.set()
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.kill()


def run_ever(args, env, stdin=None):
    return subprocess.run([EVER, *args], env=env, input=stdin, capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_the_exit_codes_tell_a_message_to_send_again_from_one_kept(tmp_path, echo_api):
    env = environment(tmp_path, echo_api)
    empty = run_ever(["send", "  "], env)
    assert (empty.returncode, empty.stdout) == (NOT_LOGGED, "")
    assert empty.stderr.count("\n") == 1 and "nothing was logged" in empty.stderr
    bad_key = run_ever(["send", "--key", "no spaces please", "hi"], env)
    assert bad_key.returncode == NOT_LOGGED and bad_key.stderr.count("\n") == 1
    assert not (tmp_path / "chat" / "main").exists() or logged(tmp_path) == []
    for _ in range(3):  # a 5xx may pass: a turn tries three times, then the message stays logged
        echo_api.enqueue(status_error(503, "overloaded", "overloaded_error"), when=answering("kept for later"))
    kept = run_ever(["send", "kept for later"], env)
    assert kept.returncode == LOGGED_UNANSWERED and kept.stderr.count("\n") == 1
    # exit 3 means: do not send it again; its sentence says the same, never "try again"
    assert "do not send it again" in kept.stderr and "try again" not in kept.stderr, kept.stderr
    assert [(r["kind"], r["text"]) for r in logged(tmp_path)] == [("user", "kept for later")]
    for done in (empty, bad_key, kept):
        assert_no_traceback(done.stdout, done.stderr)


@pytest.mark.slow
def test_a_retry_with_the_same_key_is_logged_once_and_gets_the_same_reply(tmp_path, echo_api):
    env = environment(tmp_path, echo_api)
    once = run_ever(["send", "--key", "job-17", "do it once"], env)
    again = run_ever(["send", "--key", "job-17", "do it once"], env)
    other = run_ever(["send", "--key", "job-18", "do it once"], env)
    assert [(d.returncode, d.stdout) for d in (once, again, other)] == [(ANSWERED, f"{ECHO}do it once\n")] * 3
    records = logged(tmp_path)
    assert [(r["kind"], r.get("key")) for r in records] == [
        ("user", "job-17"), ("ever", None), ("user", "job-18"), ("ever", None)]
    assert len(echo_api.requests) == 2


@pytest.fixture
def disks():
    made = []

    def make(path: Path, size: str = "256k") -> Disk:
        made.append(Disk(path, size))
        return made[-1]

    yield make
    for disk in reversed(made):
        disk.unmount()


@pytest.mark.slow
def test_a_full_disk_under_the_index_does_not_fail_a_send_whose_lines_were_logged(tmp_path, echo_api, disks):
    env = environment(tmp_path, echo_api)
    assert run_ever(["send", "before"], env).returncode == ANSWERED
    index = tmp_path / "chat" / "index"
    shutil.rmtree(index)
    disk = disks(index, "16k")
    disk.fill()
    done = run_ever(["send", "while the index cannot be saved"], env)
    assert_no_traceback(done.stdout, done.stderr)
    assert (done.returncode, done.stdout) == (ANSWERED, f"{ECHO}while the index cannot be saved\n"), done.stderr
    assert [r["text"] for r in logged(tmp_path)][-2:] == [
        "while the index cannot be saved", f"{ECHO}while the index cannot be saved"]
    disk.free()
    again = run_ever(["send", "and after"], env)
    assert (again.returncode, again.stdout) == (ANSWERED, f"{ECHO}and after\n")
    assert (index / "meta.json").exists()  # saved again once there was room


@pytest.mark.slow
def test_a_message_typed_during_a_call_survives_a_kill_of_the_chat_and_is_answered_once(tmp_path, echo_api):
    import pexpect

    gate = threading.Event()
    echo_api.enqueue(Reply([tool_use("date", {"id": 0}, id="d1")], gate=gate), when=answering("check the date"))
    env = dict(environment(tmp_path, echo_api), PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm")
    chat = pexpect.spawn(EVER, ["chat"], env=env, encoding="utf-8", timeout=60, dimensions=(40, 160))
    try:
        chat.expect("›")
        chat.sendline("check the date")
        wait_until(lambda: any(answering("check the date")(r.body) for r in echo_api.requests), "the call")
        chat.sendline("typed meanwhile")
        wait_until(lambda: inbox_holds(tmp_path, "typed meanwhile"), "the typed message accepted")
        os.kill(chat.pid, signal.SIGKILL)
        chat.expect(pexpect.EOF)
    finally:
        gate.set()
        chat.close(force=True)
    # the next owner answers what the killed one accepted, each once, before its own message
    done = run_ever(["send", "after"], env)
    assert (done.returncode, done.stdout) == (ANSWERED, f"{ECHO}after\n"), done.stderr
    assert [(r["kind"], r["text"]) for r in logged(tmp_path)] == [
        ("user", "check the date"), ("ever", f"{ECHO}check the date"),
        ("user", "typed meanwhile"), ("ever", f"{ECHO}typed meanwhile"),
        ("user", "after"), ("ever", f"{ECHO}after")]


def saved_view(home: Path) -> dict:
    return json.loads((home / "chat" / "view.json").read_text())


DAMAGES = {
    "message 0 left out": (lambda v: dict(v, view=v["view"][1:]), "messages 0 to 0 are in no line"),
    "T past the log": (lambda v: dict(v, T=v["T"] + 5), "not a message count within"),
    "an empty object": (lambda v: {}, "it has no config"),
    "jobs_max 0": (lambda v: dict(v, config=v["config"][:4] + [0] + v["config"][5:]), "not six whole numbers"),
    "a line never logged": (lambda v: dict(v, view=v["view"][:2] + [[1, 1]]), "which the tree has not logged"),
    "a view of the wrong shape": (lambda v: dict(v, view="0+1"), "is not a list of lines"),
    "not JSON": (lambda v: "{not json", "is not valid JSON"),
}


@pytest.fixture(scope="module")
def four_messages(tmp_path_factory):
    """A chat of two sends, each message summarized by the echo: its home and its view."""
    home = tmp_path_factory.mktemp("four")
    with LocalAPI(responder=echo) as api:
        env = environment(home, api)
        for text in ("one", "two"):
            assert run_ever(["send", text], env).returncode == ANSWERED
    from harness.memory.service import Memory

    memory = Memory.open(home)
    try:
        assert memory.planner.T == 4 and memory.store.node(0, 3) is not None  # every message a line
        view = memory.render()
    finally:
        memory.close()
    return home, view


@pytest.mark.parametrize("damage", sorted(DAMAGES))
@pytest.mark.slow
def test_a_damaged_view_json_is_set_aside_and_the_view_rebuilt_from_the_logs(tmp_path, echo_api, four_messages, damage):
    from harness.memory.service import Memory

    source, view = four_messages
    home = tmp_path / "home"
    shutil.copytree(source, home, ignore=shutil.ignore_patterns("socket"))
    change, named = DAMAGES[damage]

    def damage_it() -> None:
        if damage == "a line never logged":  # and the tree without node 2+2's line
            tree = sorted((home / "chat" / "tree").glob("*.jsonl"))[-1]
            tree.write_bytes(b"".join(line for line in tree.read_bytes().splitlines(keepends=True)
                                      if not line.startswith(b'{"l":1,"i":1,')))
        damaged = change(saved_view(source))
        (home / "chat" / "view.json").write_text(damaged if isinstance(damaged, str) else json.dumps(damaged))

    damage_it()
    memory = Memory.open(home)
    try:
        said = [w for w in memory.store.warnings if "view.json was set aside" in w]
        assert len(said) == 1 and named in said[0], memory.store.warnings
        assert memory.render() == view
    finally:
        memory.close()
    damage_it()
    env = environment(home, echo_api)
    shown = run_ever(["memory", "view"], env)
    assert_no_traceback(shown.stdout, shown.stderr)
    assert (shown.returncode, shown.stdout) == (0, view + "\n")  # message 0 and all: the live view
    damage_it()
    done = run_ever(["send", "still here?"], env)
    assert (done.returncode, done.stdout) == (ANSWERED, f"{ECHO}still here?\n"), done.stderr
    sent = "".join(b["text"] for b in echo_api.requests[-1].body["messages"][0]["content"][:-2])
    assert sent.startswith(view)


@pytest.mark.slow
def test_a_torn_tree_line_is_named_as_such_not_blamed_on_view_json(tmp_path, echo_api, four_messages):
    from harness.memory.service import Memory

    source, _ = four_messages
    home = tmp_path / "home"
    shutil.copytree(source, home, ignore=shutil.ignore_patterns("socket"))
    tree = sorted((home / "chat" / "tree").glob("*.jsonl"))[-1]
    data = tree.read_bytes()
    tree.write_bytes(data[:-20])  # the last node's line, cut by a crash
    shown = run_ever(["memory", "view"], environment(home, echo_api))
    assert_no_traceback(shown.stdout, shown.stderr)
    assert shown.returncode == 0 and shown.stdout.startswith("<chat>\n0+1|")
    (home / "chat" / "view.json").write_text(json.dumps(saved_view(source)))
    tree.write_bytes(data[:-20])
    memory = Memory.open(home)
    try:
        said = [w for w in memory.store.warnings if "view.json was set aside" in w]
        assert len(said) == 1 and "a tree line is torn" in said[0] and "not JSON (a torn write)" in said[0]
    finally:
        memory.close()


@pytest.mark.slow
def test_read_only_commands_work_on_a_read_only_disk_and_a_send_says_so_in_one_sentence(tmp_path, echo_api, disks):
    home = tmp_path / "home"
    disk = disks(home)
    env = environment(home, echo_api)
    assert run_ever(["send", "written before"], env).returncode == ANSWERED
    view = run_ever(["memory", "view"], env).stdout
    disk.read_only()
    for args in (["memory", "status"], ["memory", "view"], ["memory", "zoom", "0", "1"], ["log"], ["cost"]):
        done = run_ever(args, env)
        assert_no_traceback(done.stdout, done.stderr)
        assert (done.returncode, done.stderr) == (0, ""), (args, done.stderr)
    assert run_ever(["memory", "view"], env).stdout == view
    assert "user: written before" in run_ever(["memory", "zoom", "0", "1"], env).stdout
    refused = run_ever(["send", "on a read-only disk"], env)
    assert_no_traceback(refused.stdout, refused.stderr)
    assert refused.returncode == NOT_LOGGED and refused.stderr.count("\n") == 1, refused.stderr
    disk.read_only(False)
    assert [r["text"] for r in logged(home) if r["kind"] == "user"] == ["written before"]


@pytest.mark.slow  # whole `ever` processes on a terminal, seconds each: make test-slow
def test_on_a_full_disk_a_message_is_refused_in_one_sentence_and_the_next_one_is_logged(tmp_path, echo_api, disks):
    import pexpect

    home = tmp_path / "home"
    disk = disks(home, "512k")
    env = dict(environment(home, echo_api), PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm")
    chat = pexpect.spawn(EVER, ["chat"], env=env, encoding="utf-8", timeout=60, dimensions=(40, 160))
    try:
        chat.expect("›")
        disk.fill()
        chat.sendline("while the disk is full")
        chat.expect("nothing was logged")
        send = run_ever(["send", "a script, meanwhile"], env)
        assert send.returncode == NOT_LOGGED and send.stderr.count("\n") == 1, send.stderr
        disk.free()
        chat.sendline("and now there is room")
        chat.expect(re.escape(f"{ECHO}and now there is room"))
        chat.expect("›")
        chat.sendcontrol("d")
        chat.expect(pexpect.EOF)
        shown = chat.before
    finally:
        chat.close(force=True)
    assert "Traceback" not in shown
    assert [(r["kind"], r["text"]) for r in logged(home)] == [
        ("user", "and now there is room"), ("ever", f"{ECHO}and now there is room")]
    for path in (home / "chat" / "main").glob("*.jsonl"):
        assert path.read_bytes().endswith(b"}\n")  # whole lines only


LONG_CHILD = Path(__file__).resolve().parents[1] / "support" / "children" / "long_message_child.py"
# a paste of 125,000 characters: five pieces in the log [H2], each line naming its place
LONG_PASTE = "".join(f"line {n:06d} of a long paste\n" for n in range(5_000))


@pytest.mark.parametrize("pieces_logged", [1, 2, 4])
@pytest.mark.slow
def test_a_long_message_killed_between_its_pieces_is_logged_whole_once_and_answered(
        tmp_path, echo_api, pieces_logged):
    env = environment(tmp_path, echo_api)
    child = subprocess.run([sys.executable, str(LONG_CHILD), str(tmp_path), "paste-1", str(pieces_logged)],
                           input=LONG_PASTE, capture_output=True, text=True, timeout=120)
    assert child.returncode == -signal.SIGKILL, child.stderr
    assert len(logged(tmp_path)) == pieces_logged  # the kill fell inside the message
    after = run_ever(["send", "after"], env)
    assert (after.returncode, after.stdout) == (ANSWERED, f"{ECHO}after\n"), after.stderr
    records = logged(tmp_path)
    users = [r for r in records if r["kind"] == "user"]
    assert "".join(r["text"] for r in users[:-1]) == LONG_PASTE  # all of it, once, in order
    assert users[-1]["text"] == "after"
    # the key on the last piece only: its line says the whole message is logged [S11]
    assert [r.get("key") for r in users[:-1]] == [None] * (len(users) - 2) + ["paste-1"]
    # answered once, and the call saw all of it: the echo quotes the whole paste (its reply is
    # long too, so it is logged in pieces)
    replies = [r["text"] for r in records if r["kind"] == "ever"]
    assert replies[-1] == f"{ECHO}after" and "".join(replies[:-1]) == ECHO + LONG_PASTE
    assert_no_traceback(after.stdout, after.stderr)


@pytest.mark.parametrize("wrong", ["no API key", "a memory.thinking the memory model lacks"])
def test_a_setting_to_fix_first_exits_1_and_keeps_nothing_of_the_message(tmp_path, echo_api, wrong):
    env = environment(tmp_path, echo_api)
    if wrong == "no API key":
        env.pop("ANTHROPIC_API_KEY")
    else:
        tmp_path.mkdir(exist_ok=True)
        (tmp_path / "config.toml").write_text('[memory]\nmodel = "claude-haiku-4-5"\nthinking = "xhigh"\n')
    refused = run_ever(["send", "hello"], env)
    # `ever send --help`: "1 a setting or a file to fix first, nothing logged"
    assert (refused.returncode, refused.stdout) == (1, ""), refused.stderr
    assert refused.stderr.startswith("ever: ") and refused.stderr.count("\n") == 1, refused.stderr
    assert_no_traceback(refused.stdout, refused.stderr)
    main = tmp_path / "chat" / "main"
    assert not main.exists() or logged(tmp_path) == []
    inbox = tmp_path / "chat" / "inbox.jsonl"
    assert not inbox.exists() or inbox.read_text() == ""


MESSAGE_BYTES_MAX = 10_000_000  # [S12] docs/reliability.md: the most one message may hold


@pytest.mark.slow
def test_a_paste_past_the_message_limit_is_refused_in_one_sentence_and_nothing_is_kept(tmp_path, echo_api):
    env = environment(tmp_path, echo_api)
    # a generated stream one byte past the limit, newline-ended as a pipe's last line is
    too_long = (b"0123456789abcdef\n" * (MESSAGE_BYTES_MAX // 17 + 1))[:MESSAGE_BYTES_MAX + 1] + b"\n"
    refused = subprocess.run([EVER, "send", "-"], env=env, input=too_long, capture_output=True, timeout=120)
    err = refused.stderr.decode()
    assert (refused.returncode, refused.stdout) == (NOT_LOGGED, b""), err
    assert err.count("\n") == 1 and "10,000,000 bytes" in err and "nothing was logged" in err, err
    assert_no_traceback(err)
    assert not (tmp_path / "chat" / "main").exists() or logged(tmp_path) == []
    after = run_ever(["send", "after"], env)  # nothing waits before it
    assert (after.returncode, after.stdout) == (ANSWERED, f"{ECHO}after\n"), after.stderr
    assert [(r["kind"], r["text"]) for r in logged(tmp_path)] == [("user", "after"), ("ever", f"{ECHO}after")]


@pytest.mark.slow
def test_a_running_owner_refuses_a_text_past_the_limit_on_its_socket_and_answers_the_next(tmp_path, echo_api):
    gate = threading.Event()
    echo_api.enqueue(Reply([tool_use("date", {"id": 0}, id="d1")], gate=gate))  # held: the owner runs
    env = environment(tmp_path, echo_api)
    owner = start(["send", "first"], env)
    try:
        echo_api.wait_for_requests(1, timeout_seconds=60)
        request = {"op": "send", "text": "y" * (MESSAGE_BYTES_MAX + 1), "key": "too-long"}
        answer = handed_over(tmp_path, json.dumps(request).encode() + b"\n")
        assert answer["logged"] is False and "10,000,000 bytes" in answer["error"], answer
    finally:
        gate.set()
    out, err = owner.communicate(timeout=120)
    assert owner.returncode == ANSWERED, err
    nxt = run_ever(["send", "next"], env)
    assert (nxt.returncode, nxt.stdout) == (ANSWERED, f"{ECHO}next\n"), nxt.stderr
    assert [r["text"] for r in logged(tmp_path) if r["kind"] == "user"] == ["first", "next"]
