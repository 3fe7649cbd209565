"""Strategy: time the production planner against the model on one event list, in one run, and the
production planner alone on a million messages. The sizes are full only with
`--benchmark-enable` (`make bench`); the default run (`--benchmark-disable`, `make test`) is the
short version CI runs. What is asserted are ratios measured in one run, never a time: the
production planner at least RATIO_FLOOR times the model (20,000 messages; the short run's floor is
SHORT_RATIO_FLOOR on 2,000), and a message of the million-message replay costing at most
PER_MESSAGE_GROWTH_MAX times one of a 20,000-message replay in the same process (so memory and work
stay O(view + work in flight) however long the chat; the short run: 10,000 against 5,000). Times are CPU seconds of this process
(`time.process_time`): on a machine shared with other work, wall time measures the others too;
both are printed (run with `-s`) and kept in the benchmark's extra_info. The runs are real: both
planners end on the same view, and the million-message run ends with every message in its view.

Events come from a never-late compactor (every call is built before the next message), generated
from the production planner's running list, at the gist's sizes [gist §3.2, §4]; they are built
before either replay starts, so neither side's time holds the other's generation.
"""

import json
import os
import random
import subprocess
import sys

import pytest

from bridge.scenarios import built_text, message_text
from harness.memory import events as he
from harness.memory.planner import Config, Planner
from model import planner as mp
from tests.support.million import KINDS, timed

RATIO_FLOOR = 50  # the production planner is the model's fast twin: at least 50 times its speed
SHORT_RATIO_FLOOR = 20  # the short run's smaller view merges less per message, and is noisier
PER_MESSAGE_GROWTH_MAX = 1.5
# The production side is timed best of seven, three before the model's one run and four after:
# its run is a fiftieth of the model's, so a burst of other work on a shared machine can cover
# one production run whole, where the model's run averages it out.
PRODUCTION_ROUNDS = 7
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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
    step, Message, Built = mp.step, mp.Message, mp.Built
    for event in events:
        if event[0] == "message":
            state = step(state, Message(event[1], event[2]))
        else:
            state = step(state, Built(event[1], event[2], event[3]))
    return state


def replay_production(events):
    planner = Planner(Config())
    apply, Message, Built = planner.apply, he.Message, he.Built
    for event in events:
        if event[0] == "message":
            apply(Message(event[1], event[2]))
        else:
            apply(Built(event[1], event[2], event[3]))
    return planner


@pytest.mark.slow
def test_production_planner_against_the_model(benchmark, request):
    full = enabled(request)
    messages = 20_000 if full else 2_000
    floor = RATIO_FLOOR if full else SHORT_RATIO_FLOOR
    events = never_late_events(messages, seed=20_000)
    # production before and after the model, so a change of the machine's load shows in both
    production = [timed(replay_production, events) for _ in range(PRODUCTION_ROUNDS // 2)]
    model_seconds, model_wall, state = timed(replay_model, events)
    production += [timed(replay_production, events) for _ in range(PRODUCTION_ROUNDS - len(production))]
    production_seconds = min(seconds for seconds, _, _ in production)
    production_wall = min(wall for _, wall, _ in production)
    planner = benchmark.pedantic(replay_production, args=(events,), rounds=1, iterations=1)
    assert [(line.l, line.i) for line in state.view] == planner.view.lines()
    assert state.T == planner.T == messages
    ratio = model_seconds / production_seconds
    benchmark.extra_info.update(
        messages=messages,
        events=len(events),
        model_cpu_seconds=round(model_seconds, 3),
        production_cpu_seconds=round(production_seconds, 4),
        ratio=round(ratio, 1),
        model_wall_seconds=round(model_wall, 3),
        production_wall_seconds=round(production_wall, 4),
        wall_ratio=round(model_wall / production_wall, 1),
    )
    print(
        f"\n{messages} messages, {len(events)} events: model {model_seconds:.2f}s, production "
        f"{production_seconds:.3f}s (CPU; best of {PRODUCTION_ROUNDS}), ratio {ratio:.1f}x "
        f"(floor {floor}x); wall {model_wall:.2f}s and {production_wall:.3f}s, {model_wall / production_wall:.1f}x"
    )
    assert ratio >= floor, f"the production planner is {ratio:.1f}x the model, under the {floor}x floor"


def run_million(messages: int) -> dict:
    code = f"import json; from tests.support.million import million_report; print(json.dumps(million_report({messages})))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_production_planner_replays_a_million_messages(benchmark, request):
    messages = 1_000_000 if enabled(request) else 10_000
    report = benchmark.pedantic(run_million, args=(messages,), rounds=1, iterations=1)
    assert report["T"] == messages
    first_l, first_i = report["first_line"]
    assert first_i << first_l == 0
    assert report["view_bytes"] <= Config().view_bytes_ceiling
    benchmark.extra_info.update(report)
    print(
        f"\n{messages} messages replayed by the production planner in {report['cpu_seconds']:.1f}s "
        f"(CPU; wall {report['wall_seconds']:.1f}s), {report['per_message_growth']:.2f}x a message's "
        f"cost at {report['baseline']:,} (at most {PER_MESSAGE_GROWTH_MAX}x); peak {report['peak_rss_mb']:.0f} MB; "
        f"the view {report['view_lines']} lines, {report['texts_cached']} texts cached, "
        f"{report['built_beyond']} nodes built beyond a watermark"
    )
    assert report["per_message_growth"] <= PER_MESSAGE_GROWTH_MAX, (
        f"a message costs {report['per_message_growth']}x more at {messages:,} messages than at {report['baseline']:,}"
    )
