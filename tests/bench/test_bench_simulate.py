"""Strategy: time `ever simulate`'s replay of every mode on 30,000 messages (the gist's size, a month
of the seeded chat) on two processes, against a baseline in the same run: the production planner
alone on the same messages, with the compactor's lines and no request built or costed
(`view_unit`). Only the ratio, the seconds and the CPU-seconds (this process's and its pool's: on
a shared machine, what the run needs whatever the load) are reported (extra_info, and printed with
-s), with the budget of 2 minutes beside them; nothing asserts a time.

Sizes are full only with `--benchmark-enable` (`make bench`); the default run is a small smoke test
that checks the measured code really ran (every mode costed, every turn answered).
"""

import resource
import time

from harness.bench.simulate import MODES, figures, simulate, view_unit
from harness.bench.simulate_workloads import seeded
from harness.memory.planner import Config

BUDGET_SECONDS = 120  # 30,000 messages on 2 cores


def enabled(request) -> bool:
    options = request.config
    return options.getoption("benchmark_enable") or not options.getoption("benchmark_disable")


def cpu_seconds() -> float:
    """This process's CPU time and its reaped children's (the pool's processes)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def test_every_mode_on_a_month_of_messages(benchmark, request):
    messages = 30_000 if enabled(request) else 300
    workload = seeded(messages, 1)
    started = time.perf_counter()
    view_unit(workload, Config())
    baseline_seconds = time.perf_counter() - started
    started = time.perf_counter()
    cpu_before = cpu_seconds()
    runs = benchmark.pedantic(lambda: simulate(workload, "claude-sonnet-4-6", "claude-haiku-4-5", MODES, processes=2),
                              rounds=1, iterations=1)
    seconds = time.perf_counter() - started
    cpu = cpu_seconds() - cpu_before
    benchmark.extra_info.update(messages=messages, simulate_seconds=seconds, planner_alone_seconds=baseline_seconds,
                                ratio=seconds / baseline_seconds, cpu_seconds=cpu, budget_seconds=BUDGET_SECONDS)
    print(f"\never simulate, {len(MODES)} modes on {messages:,} messages, 2 processes: {seconds:.1f} s, "
          f"{seconds / baseline_seconds:.1f}x the planner alone on the same messages ({baseline_seconds:.1f} s); "
          f"{cpu:.1f} CPU-seconds in all, so at least {cpu / 2:.1f} s on two idle cores; the budget is "
          f"{BUDGET_SECONDS} s")
    assert [run.mode for run in runs] == list(MODES)
    for run in runs:
        f = figures(run)
        assert f["dollars"] > 0
        assert f["turns"] == runs[0].turns
