"""Strategy: the time from `ever send`'s process start to its turn's request leaving, read where
it arrives: the local Messages API served by this test process records when it has read each
request whole. Both clocks are the machine's monotonic one (perf_counter), so the difference is
the time a script waits before its message is on its way.

Three in the same run, each the best of 5 under `make bench` (`--benchmark-enable`), one in the
default run: `ever send` with an owner running (`ever serve`, its own first message answered
before, so its start is not counted), the same `ever send` with no owner (it opens the chat and
becomes the owner), and a bare `python -c pass`. Reported as ratios; no time is asserted.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.localapi.server import LocalAPI
from tests.support.chat import EVER, benchmarks_enabled, environment, is_compaction, lines

pytestmark = pytest.mark.slow  # real processes and their start times: make test-slow, make bench

REPLY = "Got it."
SUMMARY = "a summary line"


@pytest.fixture
def local(api):
    api.reset()
    api.responder = lambda body: SUMMARY if is_compaction(body) else REPLY
    yield api


class Serving:
    """`ever serve` in the background, until `stop`."""

    def __init__(self, home: Path, api: LocalAPI):
        self.process = subprocess.Popen([EVER, "serve"], env=environment(home, api), stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, start_new_session=True, cwd=home)
        said = [self.process.stdout.readline()]
        while said[-1] and "Ever serves the chat" not in said[-1]:
            said.append(self.process.stdout.readline())
        assert "Ever serves the chat" in said[-1], "".join(said)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=60)
        self.process.stdout.close()


def send_to_request_read(home: Path, api: LocalAPI, text: str) -> float:
    """`ever send TEXT` in a fresh process: seconds from its start to the local API having read
    its turn's request whole."""
    env = environment(home, api)
    started = time.perf_counter()
    done = subprocess.run([EVER, "send", text], env=env, capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout) == (0, REPLY + "\n"), done.stderr
    (turn,) = [r for r in api.requests if r.body and not is_compaction(r.body) and r.answer != "count_tokens"
               and r.received_perf_seconds > started and r.body["messages"][-1]["content"][-1].get("text") == text]
    return turn.received_perf_seconds - started


def test_from_ever_send_to_its_request_leaving_with_an_owner_running_against_none(benchmark, request, tmp_path,
                                                                                  local):
    runs = 5 if benchmarks_enabled(request) else 1
    home = tmp_path / "home"
    home.mkdir()
    bare = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True, timeout=60)
        bare = min(bare, time.perf_counter() - started)
    alone = min(send_to_request_read(home, local, f"alone {k}") for k in range(runs))
    serving = Serving(home, local)
    try:
        send_to_request_read(home, local, "the owner's first")  # the owner's own start is not counted
        owned = min(send_to_request_read(home, local, f"handed over {k}") for k in range(runs))
    finally:
        serving.stop()
    users = [r["text"] for r in lines(home) if r["kind"] == "user"]
    assert users == [*(f"alone {k}" for k in range(runs)), "the owner's first",
                     *(f"handed over {k}" for k in range(runs))]
    benchmark.pedantic(lambda: None, rounds=1)  # the figures are the ratios below
    benchmark.extra_info.update(runs=runs, owner_running_seconds=round(owned, 3), no_owner_seconds=round(alone, 3),
                                python_pass_seconds=round(bare, 3), to_no_owner=round(owned / alone, 2),
                                to_python_pass=round(owned / bare, 2))
    print(f"\never send, start to its request read (best of {runs}): an owner running {owned * 1000:.0f} ms, "
          f"none {alone * 1000:.0f} ms ({owned / alone:.2f}x), python -c pass {bare * 1000:.0f} ms "
          f"({owned / bare:.1f}x)")


SENDER_BASELINE = "import asyncio, json, socket, click"  # what a sender needs, and no more
WATCHED = ("anthropic", "prompt_toolkit", "harness.memory.planner")
WATCHING = f"""
import runpy, sys
sys.argv = ["ever", *sys.argv[1:]]
try:
    runpy.run_module("harness", run_name="__main__")
finally:
    sys.stderr.write("\\nLOADED " + ",".join(m for m in {WATCHED!r} if m in sys.modules) + "\\n")
"""


def test_ever_send_to_a_running_owner_beside_a_bare_python_with_a_senders_imports(benchmark, request, tmp_path,
                                                                               local):
    """The whole `ever send` process, start to exit, handed to a running `ever serve` whose local
    API answers at once, beside `python -c "import asyncio, json, socket, click"` in the same run:
    the sender's own cost, as a ratio. And what it loaded: none of the SDK, the line editor or the
    planner."""
    runs = 7 if benchmarks_enabled(request) else 1
    home = tmp_path / "home"
    home.mkdir()
    env = environment(home, local)
    serving = Serving(home, local)
    try:
        send_to_request_read(home, local, "the owner's first")  # the owner's own start is not counted
        bare = sent = float("inf")
        for k in range(runs):  # interleaved: a machine that slows down slows both alike
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", SENDER_BASELINE], env=env, check=True, timeout=60)
            bare = min(bare, time.perf_counter() - started)
            started = time.perf_counter()
            done = subprocess.run([EVER, "send", f"handed over {k}"], env=env, capture_output=True, text=True,
                                  timeout=300)
            sent = min(sent, time.perf_counter() - started)
            assert (done.returncode, done.stdout) == (0, REPLY + "\n"), done.stderr
        watched = subprocess.run([sys.executable, "-c", WATCHING, "send", "watched"], env=env,
                                 capture_output=True, text=True, timeout=300)
    finally:
        serving.stop()
    assert watched.stdout == REPLY + "\n", watched.stderr
    assert watched.stderr.rstrip().endswith("LOADED"), watched.stderr  # nothing of WATCHED
    benchmark.pedantic(lambda: None, rounds=1)  # the figures are the ratio below
    benchmark.extra_info.update(runs=runs, send_seconds=round(sent, 3), bare_seconds=round(bare, 3),
                                ratio=round(sent / bare, 2))
    print(f"\never send to a running owner, start to exit (best of {runs}): {sent * 1000:.0f} ms; "
          f"python -c {SENDER_BASELINE!r} {bare * 1000:.0f} ms; ratio {sent / bare:.2f}")
