"""Strategy: a user's message is one value from where its text enters (`ever send`, the socket
that hands it to a running chat, the terminal) to its log line: its text made valid and the API
key hidden there, once, and its key riding with it [S8] [S9] [H3]. Each test types or sends
a message that holds the chat's API key, through the installed `ever` and the real SDK against the
local Messages API, and reads what every file the chat writes holds: the log, the inbox while the
message waits in it, the line editor's history. The expected texts are the typed text with the key
replaced by the marker the key-hiding rule names, `<API key hidden>` [H3].
"""

import subprocess
import threading
from pathlib import Path

import pexpect
import pytest

from harness.localapi.server import Reply, tool_use
from tests.support.chat import EVER, environment, ever, lines

KEY = "sk-ant-api03-Zq8Rw2Lm5Tn7Vb1Xc4Yd6Fg9Hj0Kp3Ns-AAAA"  # long enough that no word of it is a prefix
HIDDEN = "<API key hidden>"


def user_lines(home: Path):
    return [record for record in lines(home) if record["kind"] == "user"]


def chat_with_key(home: Path, api) -> pexpect.spawn:
    child = pexpect.spawn(EVER, ["chat"], env=environment(home, api, key=KEY), encoding="utf-8",
                          timeout=30, dimensions=(40, 160))
    child.expect("/help")
    child.expect("›")
    return child


@pytest.mark.slow
def test_a_sent_message_that_holds_the_api_key_keeps_its_idempotency_key_and_a_retry_logs_it_not_again(
        tmp_path, api):
    api.reset()
    api.enqueue("Noted, and I will not repeat it.")
    said = f"my key is {KEY}, please keep it out of the log"
    env = environment(tmp_path, api, key=KEY)
    kept = said.replace(KEY, HIDDEN)
    first = ever(["send", "--key", "job-41", said], env)
    assert (first.returncode, first.stdout, first.stderr) == (0, "Noted, and I will not repeat it.\n", "")
    assert [(r["text"], r.get("key")) for r in user_lines(tmp_path)] == [(kept, "job-41")]
    retry = ever(["send", "--key", "job-41", said], env)  # a script that never saw the answer
    assert (retry.returncode, retry.stdout, retry.stderr) == (0, "Noted, and I will not repeat it.\n", "")
    assert [(r["text"], r.get("key")) for r in user_lines(tmp_path)] == [(kept, "job-41")]
    assert [r["kind"] for r in lines(tmp_path)] == ["user", "ever"]
    assert [r.body["messages"][0]["content"][-1]["text"] for r in api.requests] == [kept]  # one call
    for path in (tmp_path / "chat").rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


@pytest.mark.slow  # whole `ever` processes on a terminal, seconds each: make test-slow
def test_a_message_holding_the_api_key_handed_to_a_running_chat_keeps_its_key_and_its_inbox_line_hides_it(
        tmp_path, api):
    api.reset()
    gate = threading.Event()
    api.enqueue(Reply([tool_use("date", {"id": 0}, id="d1")], gate=gate))  # held: the call runs
    api.enqueue("Joined, and the key stays hidden.")
    said = f"and one more thing: {KEY}"
    child = chat_with_key(tmp_path, api)
    sender = None
    try:
        child.sendline("check the date")
        api.wait_for_requests(1, timeout_seconds=20)
        sender = subprocess.Popen([EVER, "send", "--key", "job-42", said], env=environment(tmp_path, api, key=KEY),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        child.expect(r"\[ever send\] and one more thing")  # accepted: its inbox line is on disk
        waiting = (tmp_path / "chat" / "inbox.jsonl").read_text(encoding="utf-8")
        gate.set()
        out, err = sender.communicate(timeout=60)
        child.expect("›")
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        gate.set()
        if sender is not None and sender.poll() is None:
            sender.kill()
        child.close(force=True)
    kept = said.replace(KEY, HIDDEN)
    assert (sender.returncode, out, err) == (0, "Joined, and the key stays hidden.\n", "")
    assert KEY not in waiting and f'"key":"job-42","text":"{kept}"' in waiting
    assert [(r["text"], r.get("key")) for r in user_lines(tmp_path)][1:] == [(kept, "job-42")]
    assert api.requests[1].body["messages"][-1]["content"][-1]["text"] == kept


@pytest.mark.slow
def test_the_line_editors_history_holds_a_typed_message_with_the_api_key_hidden(tmp_path, api):
    api.reset()
    api.enqueue("Got it.")
    typed = f"here is my key {KEY} for later"
    child = chat_with_key(tmp_path, api)
    try:
        child.sendline(typed)
        child.expect("Got it.")
        child.expect("›")
        child.sendline("/help")
        child.expect("Ctrl-D leaves")
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    kept = typed.replace(KEY, HIDDEN)
    history = (tmp_path / "history").read_text(encoding="utf-8")
    assert KEY not in history
    assert f"\n+{kept}\n" in history and "\n+/help\n" in history
    assert [r["text"] for r in user_lines(tmp_path)] == [kept]
