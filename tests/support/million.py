"""The production planner replaying a million messages, run in a child process of
tests/bench/test_bench.py (`python -c`, so its peak memory is the replay's alone), and `timed`,
the CPU and wall seconds of one replay, which the benchmark's other runs use too.
"""

import random
import time

from bridge.scenarios import built_text, message_text
from harness.memory import events as he
from harness.memory.planner import Config, Planner

KINDS = ("user", "ever", "tool", "echo", "work", "note")


def timed(replay, events):
    """(CPU seconds, wall seconds, result) of one replay."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = replay(events)
    return time.process_time() - cpu, time.perf_counter() - wall, result


def million_messages(messages: int) -> Planner:
    """Replay with pools of texts: a million distinct texts would hold gigabytes, and drawing from
    a pool keeps the generator's share of the time small."""
    rng = random.Random(1_000_000)
    message_pool = [message_text(rng) for _ in range(2048)]
    built_pool = [built_text(rng) for _ in range(2048)]
    planner = Planner(Config())
    apply, Message, Built = planner.apply, he.Message, he.Built
    for n in range(messages):
        apply(Message(KINDS[n % 6], message_pool[rng.getrandbits(11)]))
        running = planner.running
        while running:
            l, i = running[rng.getrandbits(3) % len(running)]
            apply(Built(l, i, built_pool[rng.getrandbits(11)]))
            running = planner.running
    return planner


def million_report(messages: int) -> dict:
    """Run in a child process (`python -c`), so its peak memory is the replay's alone: the
    planner, and the MemoryTexts store standing in for the files, which holds every message and
    node (as references into the pools)."""
    import resource

    baseline = min(20_000, messages // 2)
    base_seconds, _, _ = timed(million_messages, baseline)
    seconds, wall, planner = timed(million_messages, messages)
    lines = planner.view.lines()
    return {
        "messages": messages,
        "T": planner.T,
        "cpu_seconds": round(seconds, 2),
        "wall_seconds": round(wall, 2),
        "baseline_cpu_seconds": round(base_seconds, 3),
        "baseline": baseline,
        "per_message_growth": round((seconds / messages) / (base_seconds / baseline), 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "view_lines": len(lines),
        "view_bytes": planner.view.bytes,
        "first_line": lines[0],
        "texts_cached": len(planner._recent),
        "built_beyond": sum(len(beyond) for beyond in planner.built_nodes.beyond),
    }

