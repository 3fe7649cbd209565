"""Strategy: time what a person waits for, against a baseline in the same process (these machines
are noisy, so only ratios and figures are reported; nothing asserts a time):

- from Enter to the request leaving, with a settled chat whose view is near its 128 KB ceiling:
  the turn's settle (nothing to wait for), the view rendered, the message logged (one fsync), the
  request built, up to the client's `stream` — against a bare write and fsync of one line;
- what the memory service adds to a message beyond the store's own append (its fsync).

Sizes are full only with `--benchmark-enable` (`make bench`); the default run is a small smoke
test that checks the measured code really ran (the request left with the whole view in it).
"""

import asyncio
import os
import time

from harness.planner import Config
from harness.prompt import Prompt
from harness.service import Job, JobResult, Memory
from harness.tools import Approval, WorkTools
from harness.turn import Turn, TurnSettings


def enabled(request) -> bool:
    options = request.config
    return options.getoption("benchmark_enable") or not options.getoption("benchmark_disable")


class Sent(Exception):
    """Raised by the stand-in client the moment a request leaves."""


class StopAtSend:
    def __init__(self):
        self.sent = []

    async def stream(self, request, on_event=None):
        self.sent.append((time.perf_counter(), request))
        raise Sent()


async def summarize(job: Job) -> JobResult:
    return JobResult(f"{job.kind or 'merged'}: " + "s" * 380)


def settled_chat(home, messages: int) -> Memory:
    async def fill():
        memory = Memory.open(home, Config(), build=summarize)
        for k in range(messages):
            memory.append("user" if k % 2 else "ever", "w" * (100 + (k * 37) % 1400))
            if k % 8 == 7:
                await memory.idle()
        await memory.idle()
        return memory
    return asyncio.run(fill())


def baseline_fsync(path) -> float:
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o600)
    try:
        started = time.perf_counter()
        os.write(fd, b'{"i":0,"kind":"user","text":"x"}\n')
        os.fsync(fd)
        return time.perf_counter() - started
    finally:
        os.close(fd)


def test_from_enter_to_the_request_leaving(benchmark, request, tmp_path):
    messages = 1_200 if enabled(request) else 60
    memory = settled_chat(tmp_path / "home", messages)
    client = StopAtSend()
    turn_settings = TurnSettings("claude-test", 20.0, workdir=str(tmp_path))
    tools = WorkTools(str(tmp_path), Approval(yes=True))
    prompt = Prompt.build()
    waits = []

    views = []

    def one_turn():
        turn = Turn(memory, client, prompt, tools, turn_settings)
        views.append(memory.render())  # what the turn must send: the view before its message
        started = time.perf_counter()
        try:
            asyncio.run(turn.run("what is the state of the cache?"))
        except Sent:
            pass
        waits.append(client.sent[-1][0] - started)

    try:
        rounds = 20 if enabled(request) else 2
        benchmark.pedantic(one_turn, rounds=rounds, iterations=1)
        fsyncs = sorted(baseline_fsync(tmp_path / "baseline.jsonl") for _ in range(rounds))
        view_bytes = memory.planner.view.bytes
        waits.sort()
        median, base = waits[len(waits) // 2], fsyncs[len(fsyncs) // 2]
        benchmark.extra_info.update(view_bytes=view_bytes, enter_to_request_ms=median * 1000,
                                    fsync_ms=base * 1000, ratio=median / base)
        print(f"\nEnter to request: {median * 1000:.1f} ms median with a {view_bytes:,}-byte view "
              f"({median / base:.1f}x one bare write+fsync of {base * 1000:.2f} ms)")
        sent = client.sent[-1][1]["messages"][0]["content"]
        shown = "".join(block["text"] for block in sent[:-2])
        assert shown == views[-1]  # the request carried the whole view
    finally:
        memory.close()


def test_what_the_service_adds_to_a_message(benchmark, request, tmp_path, monkeypatch):
    """Twice: as it runs (every line's fsync, and view.json's at each checkpoint), and with fsync
    a no-op in both runs, which leaves what the service computes and writes. The baseline logs
    the same lines with the store alone: each message, and its node (the text is short enough
    to be its own line, a free node [gist §2])."""
    for fsync in ("real", "none"):
        if fsync == "none":
            monkeypatch.setattr(os, "fsync", lambda fd: None)
        added(benchmark if fsync == "real" else None, request, tmp_path / fsync, fsync)


def added(benchmark, request, tmp_path, fsync):
    count = 2_000 if enabled(request) else 50
    memory = Memory.open(tmp_path / "service")
    store_only = Memory.open(tmp_path / "store").store
    # 280 characters: "user: " and it fit a line (a free node), two of them do not (no free parent)
    text = "a message of the usual size " * 10

    def through_service():
        started = time.perf_counter()
        for _ in range(count):
            memory.append("user", text)
        return time.perf_counter() - started

    try:
        started = time.perf_counter()
        for i in range(count):
            store_only.append_message("user", text)
            store_only.append_node(0, i, "user: " + text, i + 1)
        store_seconds = time.perf_counter() - started
        if benchmark is not None:
            service_seconds = benchmark.pedantic(through_service, rounds=1, iterations=1)
        else:
            service_seconds = through_service()
        added_ms = (service_seconds - store_seconds) / count * 1000
        if benchmark is not None:
            benchmark.extra_info.update(store_ms=store_seconds / count * 1000,
                                        service_ms=service_seconds / count * 1000, added_ms=added_ms)
        print(f"\nfsync {fsync}: per message: store append {store_seconds / count * 1000:.2f} ms, through the service "
              f"{service_seconds / count * 1000:.2f} ms (view.json at each checkpoint): "
              f"{added_ms:.2f} ms added, {service_seconds / store_seconds:.2f}x")
        assert memory.planner.T == count and store_only.count == count
        assert memory.store.last_node() is not None
    finally:
        memory.close()
        store_only.close()
