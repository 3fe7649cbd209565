"""Strategy: time what a person waits for, against a baseline in the same process (these machines
are noisy, so only ratios and figures are reported; nothing asserts a time):

- from Enter to the request leaving, with a settled chat whose view is near its 128 KB ceiling:
  the turn's settle (nothing to wait for), the view rendered, the message logged (one fsync), the
  request built and sent through the real SDK, until the local Messages API has read its body
  whole (its `received_perf_seconds`, on the same clock) — against a bare write and fsync of one
  line;
- what the memory service adds to a message beyond the store's own append (its fsync).

Sizes are full only with `--benchmark-enable` (`make bench`); the default run is a small smoke
test that checks the measured code really ran (the request left with the whole view in it).
"""

import asyncio
import os
import time

from harness.calls.approval import Approval
from harness.calls.client import Client, ClientSettings
from harness.calls.prompt import Prompt
from harness.calls.tools import WorkTools
from harness.calls.turn import Turn, TurnSettings
from harness.localapi.server import LocalAPI, Reply, text
from harness.memory.planner import Config
from harness.memory.service import Job, JobResult, Memory


def enabled(request) -> bool:
    options = request.config
    return options.getoption("benchmark_enable") or not options.getoption("benchmark_disable")


async def summarize(job: Job) -> JobResult:
    return JobResult(f"{job.kind or 'merged'}: " + "s" * 380)


async def settled_chat(home, view_bytes_target: int) -> Memory:
    """A chat whose view has just passed `view_bytes_target`, every line summarized."""
    memory = Memory.open(home, Config(), build=summarize)
    k = 0
    while memory.planner.view.bytes < view_bytes_target:
        memory.append("user" if k % 2 else "ever", "w" * (100 + (k * 37) % 1400))
        k += 1
        await memory.idle()  # an unbuilt line counts 517 bytes until built [P1]: settle each
    return memory


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
    rounds = 20 if enabled(request) else 2
    # each round adds its message and a short reply, about 60 bytes: the view stays under 128,000
    target = 126_500 if enabled(request) else 10_000
    waits, views, bodies = [], [], []

    async def turns(api: LocalAPI):
        memory = await settled_chat(tmp_path / "home", target)
        client = Client(ClientSettings(api_key="test-key", base_url=api.base_url))
        tools = WorkTools(str(tmp_path), Approval(yes=True))
        turn_settings = TurnSettings("claude-sonnet-4-6", 20.0, workdir=str(tmp_path))
        prompt = Prompt.build()
        try:
            for _ in range(rounds):
                turn = Turn(memory, client, prompt, tools, turn_settings)
                views.append((memory.render(), memory.planner.view.bytes))
                started = time.perf_counter()
                await turn.run("what is the state of the cache?")
                received = api.requests[-1]
                waits.append(received.received_perf_seconds - started)
                bodies.append(received.body)
                await memory.idle()
        finally:
            memory.close()
            await client.aclose()

    with LocalAPI() as api:
        api.responder = lambda body: Reply([text("Noted.")])
        benchmark.pedantic(lambda: asyncio.run(turns(api)), rounds=1, iterations=1)
    fsyncs = sorted(baseline_fsync(tmp_path / "baseline.jsonl") for _ in range(rounds))
    waits_sorted = sorted(waits)
    median, base = waits_sorted[len(waits) // 2], fsyncs[len(fsyncs) // 2]
    smallest, largest = min(size for _, size in views), max(size for _, size in views)
    benchmark.extra_info.update(view_bytes_min=smallest, view_bytes_max=largest,
                                enter_to_request_ms=median * 1000, fsync_ms=base * 1000,
                                ratio=median / base)
    print(f"\nEnter to request (through the SDK to the local API): {median * 1000:.1f} ms median, "
          f"{waits_sorted[-1] * 1000:.1f} ms the slowest of {rounds}, with a view of {smallest:,} to "
          f"{largest:,} bytes ({median / base:.1f}x one bare write+fsync of {base * 1000:.2f} ms)")
    for (view, _), body in zip(views, bodies):
        shown = "".join(block["text"] for block in body["messages"][0]["content"][:-2])
        assert shown == view  # each request carried the whole view
    assert smallest >= target


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
