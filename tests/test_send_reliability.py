"""Strategy: `ever send` as scripts use it, many at once and interrupted, through the installed
command and the real SDK against the local Messages API served here (an echo: each reply quotes
the message it answers, so a reply names the message it belongs to). Each test checks what a
script sees (exit code, stdout, one sentence on stderr, never a traceback) and what the logs hold,
read with plain `json.loads`: every accepted message once, in id order, each answered once.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from harness.localapi.server import LocalAPI, Reply, tool_use

EVER = shutil.which("ever", path=str(Path(sys.executable).parent)) or "ever"
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


def environment(home: Path, api: LocalAPI) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVER_"))}
    env.update(EVER_HOME=str(home), ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY="test-key",
               EVER_MODEL="claude-test")
    return env


def start(args, env) -> subprocess.Popen:
    return subprocess.Popen([EVER, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def logged(home: Path, folder: str = "main"):
    found = []
    for path in sorted((home / "chat" / folder).glob("*.jsonl")):
        found += [json.loads(line) for line in path.read_text().splitlines()]
    return found


def assert_no_traceback(*streams: str) -> None:
    for stream in streams:
        assert "Traceback" not in stream and "Error:" not in stream.replace("ever: ", ""), stream


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
        assert status.returncode == 0 and "messages: 1" in status.stdout, status
        view = subprocess.run([EVER, "memory", "view"], env=env, capture_output=True, text=True,
                              timeout=60)
        assert view.returncode == 0 and "0+1|user: slow one" in view.stdout, view
    finally:
        gate.set()
    out, err = sender.communicate(timeout=60)
    assert (sender.returncode, err) == (ANSWERED, ""), err
    assert out == "The tool ran.\n"
