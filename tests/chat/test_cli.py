"""Strategy: `ever` as a person and a script use it: the installed command in a subprocess (and
`ever chat` in a pseudo-terminal, typed into as a person types), talking through the real SDK to the
local Messages API that this test process serves. Each test asserts what the person sees (the
exact output, or the lines that matter in a terminal's stream) and the JSONL lines written.
"""

import os
import subprocess
import threading
import time
from pathlib import Path

import pexpect
import pytest

from harness.localapi.server import Reply, text, timeout, tool_use
from tests.support.chat import EVER, environment, ever, lines
from tests.support.terminal import spawn_chat


@pytest.mark.slow
def test_ever_send_prints_the_reply_and_logs_both_lines(tmp_path, api):
    api.reset()
    api.enqueue("Hello back.")
    done = ever(["send", "Hello, Ever"], environment(tmp_path, api))
    assert (done.returncode, done.stdout, done.stderr) == (0, "Hello back.\n", "")
    logged = lines(tmp_path)
    assert [(r["i"], r["kind"], r["text"], r["size"]) for r in logged] == [
        (0, "user", "Hello, Ever", 11), (1, "ever", "Hello back.", 11)]
    # the message's key ends its line [S9]: one made up here, as no --key was given
    assert list(logged[0]) == ["i", "kind", "text", "size", "date", "key"] and logged[0]["key"].startswith("send=")
    assert list(logged[1]) == ["i", "kind", "text", "size", "date"]
    usage = lines(tmp_path, "usage")
    assert [r["kind"] for r in usage] == ["turn"] and usage[0]["model"] == "claude-sonnet-4-6"
    assert oct(os.stat(tmp_path / "chat").st_mode & 0o777) == "0o700"


@pytest.mark.slow
def test_ever_send_reads_standard_input_and_memory_view_is_what_the_next_turn_sends(tmp_path, api):
    api.reset()
    api.enqueue("Read it.")
    assert ever(["send", "-"], environment(tmp_path, api), stdin="from a pipe\n").stdout == "Read it.\n"
    view = ever(["memory", "view"], environment(tmp_path, api)).stdout
    assert view == "<chat>\n0+1|user: from a pipe\n1+1|ever: Read it.\n</chat>\n"
    api.enqueue("Next.")
    ever(["send", "again"], environment(tmp_path, api))
    sent = api.requests[-1].body["messages"][0]["content"]
    assert "".join(block["text"] for block in sent[:-2]) + "\n" == view


def test_without_a_key_one_sentence_says_what_to_set_and_nothing_is_kept(tmp_path, api):
    done = ever(["send", "are you there?"], environment(tmp_path, api, key=""))
    assert done.returncode == 1 and done.stdout == ""  # a setting to fix first: nothing logged
    assert done.stderr.count("\n") == 1 and "ANTHROPIC_API_KEY" in done.stderr
    assert not (tmp_path / "chat" / "main").exists() or lines(tmp_path) == []


@pytest.mark.slow
def test_an_unreachable_server_is_a_clear_error_and_the_message_stays(tmp_path, api):
    env = environment(tmp_path, api)
    env["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:9"  # nothing listens on the discard port
    done = ever(["send", "hello?"], env, timeout_seconds=120)
    assert done.returncode == 3 and "in the log" in done.stderr
    assert "test-key" not in done.stderr + done.stdout
    assert [(r["kind"], r["text"]) for r in lines(tmp_path)] == [("user", "hello?")]


@pytest.mark.slow
def test_ever_send_declines_a_shell_call_without_yes(tmp_path, api):
    api.reset()
    api.enqueue(Reply([tool_use("shell", {"command": "touch made"}, id="s1")]))
    api.enqueue("I was not allowed.")
    done = ever(["send", "make a file"], environment(tmp_path, api))
    assert done.stdout == "I was not allowed.\n"
    assert not (Path.cwd() / "made").exists()
    echo = [r["text"] for r in lines(tmp_path) if r["kind"] == "echo"]
    assert len(echo) == 1 and echo[0].startswith("Not run")


@pytest.mark.slow
def test_ever_chat_in_a_terminal_streams_the_reply_and_leaves_on_ctrl_d(tmp_path, api):
    api.reset()
    api.enqueue(Reply([text("Streaming, word by word, to the terminal.")]))
    child = spawn_chat(tmp_path, api)
    try:
        child.sendline("hi there")
        child.expect("Streaming, word by word, to the terminal.")
        child.expect(r"mem \d+K/128K · cache \d+% · \$\d+\.\d{4}")  # claude-sonnet-4-6 is priced
        child.expect("›")
        child.sendline("/memory zoom 0 1")
        child.expect("user: hi there")
        child.expect("›")
        time.sleep(0.2)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert [(r["kind"], r["text"]) for r in lines(tmp_path)] == [
        ("user", "hi there"), ("ever", "Streaming, word by word, to the terminal.")]


@pytest.mark.slow
def test_ctrl_c_stops_the_running_call_not_the_chat(tmp_path, api):
    api.reset()
    api.enqueue(timeout(20.0))  # the server says nothing: the call hangs
    api.enqueue("Back again.")
    child = spawn_chat(tmp_path, api)
    try:
        child.sendline("this will hang")
        api.wait_for_requests(1, timeout_seconds=60)
        time.sleep(0.3)
        child.sendintr()
        child.expect("stopped")
        child.sendline("second try")
        child.expect("Back again.")
        child.expect("›")
        time.sleep(0.2)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    kinds = [(r["kind"], r["text"]) for r in lines(tmp_path)]
    assert kinds == [("user", "this will hang"), ("user", "second try"), ("ever", "Back again.")]


@pytest.mark.slow
def test_ever_send_is_handed_to_the_running_chat(tmp_path, api):
    api.reset()
    child = spawn_chat(tmp_path, api)
    try:
        api.enqueue("Answered by the owner.")
        done = ever(["send", "from a script"], environment(tmp_path, api))
        assert (done.returncode, done.stdout) == (0, "Answered by the owner.\n")
        status = ever(["memory", "status"], environment(tmp_path, api)).stdout
        assert "The chat holds 2 messages." in status
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert [(r["kind"], r["text"]) for r in lines(tmp_path)] == [
        ("user", "from a script"), ("ever", "Answered by the owner.")]


@pytest.mark.slow
def test_ever_send_joins_the_running_call_and_gets_the_reply_that_took_it(tmp_path, api):
    api.reset()
    gate = threading.Event()
    api.enqueue(Reply([tool_use("date", {"id": 0}, id="d1")], gate=gate))  # held: the call runs
    api.enqueue("It is the day you started, and noted.")
    child = spawn_chat(tmp_path, api)
    sender = None
    try:
        child.sendline("check the date")
        api.wait_for_requests(1, timeout_seconds=60)
        sender = subprocess.Popen([EVER, "send", "and one more thing"], env=environment(tmp_path, api),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        child.expect(r"\[ever send\] and one more thing")  # shown as it joins the call
        gate.set()
        out, err = sender.communicate(timeout=60)
        assert (sender.returncode, out, err) == (0, "It is the day you started, and noted.\n", "")
        second = api.wait_for_requests(2, timeout_seconds=60)[1].body["messages"]
        joined = second[-1]["content"]
        assert joined[0]["type"] == "tool_result" and joined[-1]["text"] == "and one more thing"
        child.expect("›")
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        gate.set()
        if sender is not None and sender.poll() is None:
            sender.kill()
        child.close(force=True)
    kinds = [(r["kind"], r["text"]) for r in lines(tmp_path)]
    assert kinds[0] == ("user", "check the date")
    assert [kind for kind, _ in kinds] == ["user", "tool", "echo", "user", "ever"]
    assert kinds[3:] == [("user", "and one more thing"), ("ever", "It is the day you started, and noted.")]


@pytest.mark.slow
def test_ever_chat_opens_with_the_views_size_and_its_last_lines(tmp_path, api):
    from harness.memory.service import Memory

    memory = Memory.open(tmp_path)
    memory.append("user", "hello")  # a free line: "0+1|user: hello\n", 16 bytes
    memory.close()
    api.reset()
    child = pexpect.spawn(EVER, ["chat"], env=environment(tmp_path, api), encoding="utf-8",
                          timeout=60, dimensions=(40, 160))
    try:
        child.expect(r"Ever · 1 message · view 30 bytes, 1 line · /help\r\n")  # 16 and the tags' 14
        child.expect("0\\+1\\|user: hello")
        child.expect("›")
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)


def test_a_reader_that_goes_away_gets_no_error_sentence(tmp_path):
    # `ever memory view | head -c 0`: the pipe's reader is gone before ever writes; ever says nothing
    home = tmp_path / "home"
    from harness.memory.service import Memory

    memory = Memory.open(home)
    memory.append("user", "hello")
    memory.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVER_"))}
    env["EVER_HOME"] = str(home)
    reader, writer = os.pipe()
    child = subprocess.Popen([EVER, "memory", "view"], env=env, stdout=writer, stderr=subprocess.PIPE)
    os.close(reader)  # long before the child has started Python
    os.close(writer)
    _, stderr = child.communicate(timeout=60)
    assert stderr.decode() == ""
    assert child.returncode == 1
