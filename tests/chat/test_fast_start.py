"""Strategy: the commands that need no model start without the SDK. Each command runs as a person
runs it, in a fresh Python process on a real EVER_HOME; the process says at its end whether
`anthropic` was ever imported (sys.modules), so the check cannot be fooled by timing. An `ever send`
handed to a running chat is checked against a stand-in owner holding the chat's lock and answering on
its socket. The benchmark runs `python -c "import anthropic"` and each command in the same test
and reports their ratio (extra_info, and printed with -s); it asserts no time.
"""

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from harness.memory.service import Memory
from tests.support.chat import benchmarks_enabled

WRAPPER = """
import sys
from harness.chat.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    sys.stderr.write("\\nSDK-LOADED\\n" if "anthropic" in sys.modules else "\\nNO-SDK\\n")
"""
COMMANDS = (["memory", "status"], ["memory", "view"], ["memory", "zoom", "0", "1"], ["log"], ["cost"])


def environment(home: Path) -> dict:
    env = {name: value for name, value in os.environ.items()
           if name not in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "EVER_MODEL")}
    env["EVER_HOME"] = str(home)
    return env


def chat_with_a_message(home: Path) -> None:
    memory = Memory.open(home)
    try:
        memory.append("user", "hello")
    finally:
        memory.close()


def ever(args, home: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", WRAPPER, *args], env=environment(home),
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(args) for args in COMMANDS])
def test_a_command_that_needs_no_model_imports_no_sdk(tmp_path, args):
    chat_with_a_message(tmp_path)
    done = ever(args, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.rstrip().endswith("NO-SDK"), done.stderr


def test_a_send_handed_to_a_running_chat_imports_no_sdk(tmp_path):
    memory = Memory.open(tmp_path)  # the owner: it holds the chat's lock
    path = memory.store.chat / "socket"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    asked = []

    def answer() -> None:
        connection, _ = server.accept()
        with connection:
            asked.append(json.loads(connection.makefile("rb").readline()))
            connection.sendall(json.dumps({"reply": "pong", "error": ""}).encode() + b"\n")

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        done = ever(["send", "ping"], tmp_path)
    finally:
        thread.join(10)
        server.close()
        memory.close()
    # the key ever send makes up, so that a request it repeats is never logged twice [S9]
    assert [dict(r, key=r["key"][:5]) for r in asked] == [{"op": "send", "text": "ping", "yes": False, "key": "send="}]
    assert done.stdout.strip() == "pong", done.stderr
    assert done.stderr.rstrip().endswith("NO-SDK"), done.stderr


def runs_for(request) -> int:
    """Best of 3 under `make bench` (--benchmark-enable); one run in the default suite."""
    return 3 if benchmarks_enabled(request) else 1


def seconds_of(command, env, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, env=env, capture_output=True, check=True, timeout=60)
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.slow
def test_bench_commands_against_importing_the_sdk(tmp_path, benchmark, request):
    """Best of 3 runs each (`make bench`), in one process: the ratio to `python -c "import anthropic"`."""
    chat_with_a_message(tmp_path)
    env = environment(tmp_path)
    runs = runs_for(request)
    baseline = seconds_of([sys.executable, "-c", "import anthropic"], env, runs)
    ratios = {}
    for args in COMMANDS:
        seconds = seconds_of([sys.executable, "-m", "harness", *args], env, runs)
        ratios[" ".join(args)] = round(seconds / baseline, 3)
    benchmark.pedantic(lambda: None, rounds=1)  # the figures are the ratios above
    benchmark.extra_info.update(baseline_seconds=round(baseline, 3), ratios=ratios)
    print(f"\nimport anthropic: {baseline:.3f} s; each command over it: {ratios}")
    assert set(ratios) == {" ".join(args) for args in COMMANDS}


@pytest.mark.slow
def test_bench_ever_send_from_start_to_the_request_leaving(tmp_path, api, benchmark, request):
    """`ever send` in a fresh process, from its start to the local API having read its request
    whole (both clocks are the machine's monotonic one), beside `import anthropic`."""
    chat_with_a_message(tmp_path)
    env = environment(tmp_path)
    env.update(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=api.base_url, EVER_MODEL="claude-sonnet-4-6")
    runs = runs_for(request)
    baseline = seconds_of([sys.executable, "-c", "import anthropic"], env, runs)
    times = []
    for _ in range(runs):
        api.reset()
        api.responder = lambda body: "pong"  # the turn's reply, and any compaction's line
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "harness", "send", "ping"], env=env,
                              capture_output=True, text=True, timeout=60)
        assert done.stdout.strip() == "pong", done.stderr
        first = next(r for r in api.requests if r.body and r.body.get("messages"))
        times.append(first.received_perf_seconds - start)
    best = min(times)
    benchmark.pedantic(lambda: None, rounds=1)
    benchmark.extra_info.update(send_to_request_seconds=round(best, 3), import_anthropic_seconds=round(baseline, 3))
    print(f"\never send, start to request read: {best:.3f} s (best of {runs}); import anthropic {baseline:.3f} s; "
          f"ratio {best / baseline:.2f}")
    assert best > 0
