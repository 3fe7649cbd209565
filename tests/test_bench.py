"""Strategy: time the production planner against the model on one event list, in one run, and the
production planner alone on a million messages. The sizes are full only with
`--benchmark-enable` (`make bench`); the default run (`--benchmark-disable`) replays short lists
once, as plain tests. Nothing asserts a time: the figures are printed (run with `-s`) and stored
in the benchmark's extra_info. What is asserted is that the runs are real: both planners end on
the same view, and the million-message run ends with every message in its view.

Events come from a never-late compactor (every call is built before the next message), generated
from the production planner's running list, at the gist's sizes [gist §3.2, §4].
"""

import random
import time

from bridge.scenarios import built_text, message_text
from harness.memory import events as he
from harness.memory.planner import Config, Planner
from model import planner as mp

KINDS = ("user", "ever", "tool", "echo", "work", "note")


def enabled(request) -> bool:
    # addopts always passes --benchmark-disable; `make bench` adds --benchmark-enable, which wins
    options = request.config
    return options.getoption("benchmark_enable") or not options.getoption("benchmark_disable")


def never_late_events(messages: int, seed: int):
    """(kind, text) messages, each followed by the Built events that empty the running list."""
    rng = random.Random(seed)
    planner = Planner(Config())
    out = []
    for _ in range(messages):
        event = ("message", rng.choice(KINDS), message_text(rng))
        planner.apply(he.Message(event[1], event[2]))
        out.append(event)
        while planner.running:
            l, i = rng.choice(planner.running)
            text = built_text(rng)
            planner.apply(he.Built(l, i, text))
            out.append(("built", l, i, text))
    return out


def replay_model(events):
    state = mp.State(mp.Config())
    for event in events:
        if event[0] == "message":
            state = mp.step(state, mp.Message(event[1], event[2]))
        else:
            state = mp.step(state, mp.Built(event[1], event[2], event[3]))
    return state


def replay_production(events):
    planner = Planner(Config())
    for event in events:
        if event[0] == "message":
            planner.apply(he.Message(event[1], event[2]))
        else:
            planner.apply(he.Built(event[1], event[2], event[3]))
    return planner


def test_production_planner_against_the_model(benchmark, request):
    messages = 20_000 if enabled(request) else 500
    events = never_late_events(messages, seed=20_000)
    started = time.perf_counter()
    state = replay_model(events)
    model_seconds = time.perf_counter() - started
    started = time.perf_counter()
    planner = replay_production(events)
    production_seconds = time.perf_counter() - started
    benchmark.pedantic(replay_production, args=(events,), rounds=1, iterations=1)
    assert [(line.l, line.i) for line in state.view] == planner.view.lines()
    assert state.T == planner.T == messages
    ratio = model_seconds / production_seconds
    benchmark.extra_info.update(
        messages=messages,
        events=len(events),
        model_seconds=round(model_seconds, 3),
        production_seconds=round(production_seconds, 3),
        ratio=round(ratio, 1),
    )
    print(
        f"\n{messages} messages, {len(events)} events: model {model_seconds:.2f}s, "
        f"production {production_seconds:.2f}s, ratio {ratio:.1f}x"
    )


def million_messages(messages: int) -> Planner:
    """Replay with pools of texts: a million distinct texts would hold gigabytes, and drawing from
    a pool keeps the generator's share of the time small."""
    rng = random.Random(1_000_000)
    message_pool = [message_text(rng) for _ in range(2048)]
    built_pool = [built_text(rng) for _ in range(2048)]
    planner = Planner(Config())
    apply = planner.apply
    for n in range(messages):
        apply(he.Message(KINDS[n % 6], message_pool[rng.getrandbits(11)]))
        running = planner.running
        while running:
            l, i = running[rng.getrandbits(3) % len(running)]
            apply(he.Built(l, i, built_pool[rng.getrandbits(11)]))
            running = planner.running
    return planner


def test_production_planner_replays_a_million_messages(benchmark, request):
    messages = 1_000_000 if enabled(request) else 5_000
    started = time.perf_counter()
    planner = benchmark.pedantic(million_messages, args=(messages,), rounds=1, iterations=1)
    seconds = time.perf_counter() - started
    assert planner.T == messages
    lines = planner.view.lines()
    assert lines[0][1] << lines[0][0] == 0
    assert planner.view.bytes <= Config().view_bytes_ceiling
    benchmark.extra_info.update(messages=messages, seconds=round(seconds, 2))
    print(f"\n{messages} messages replayed by the production planner in {seconds:.1f}s")
