"""`python -m sim`: seeds run under the simulated World, one line per failure, the totals at the end.

    python -m sim --seeds 200              # seeds 0..199 on every core (`make sim`)
    python -m sim --seeds 3000 --first 1000  # `make sim-long`
    python -m sim --seed 17                # one seed replayed: probabilities, trace, counts
    python -m sim --seed 17 --shrink       # the fewest events and faults that still fail
    python -m sim --seed 17 --drop 0,3-9 --zero disk.write_eio   # a shrunk run, replayed
    python -m sim --seeds 200 --traces DIR # and each owner life's planner written for `python -m bridge.lives DIR`

A failure names its invariant and prints the one command that replays it exactly. A seed that
fails only on a known finding (sim/known.py: found by the simulation, not fixed yet, each with a
seed kept that must still fail on it) is counted apart, never as a pass; `--strict` fails on them.
The run sets PYTHONHASHSEED=0 (re-executing itself): set iteration is then the same in every
replay, and so are the bytes.
"""

import argparse
import multiprocessing
import os
import sys
import time

HASH_SEED = "0"


def parse_ranges(text: str) -> list[int]:
    found = []
    for part in filter(None, text.split(",")):
        low, _, high = part.partition("-")
        found += list(range(int(low), int(high or low) + 1))
    return found


def ranges_text(numbers: list[int]) -> str:
    parts, numbers = [], sorted(numbers)
    k = 0
    while k < len(numbers):
        j = k
        while j + 1 < len(numbers) and numbers[j + 1] == numbers[j] + 1:
            j += 1
        parts.append(str(numbers[k]) if j == k else f"{numbers[k]}-{numbers[j]}")
        k = j + 1
    return ",".join(parts)


def one(seed: int, drop: list[int] | None = None, zero: list[str] | None = None):
    import random

    from sim.run import Run, agent_rate, asking_rate, draw_probabilities, schedule, side_randomness, tell_rate

    master, side = random.Random(seed), side_randomness(seed)
    probabilities = draw_probabilities(master, side)
    probabilities.provider.agent = agent_rate(seed)
    probabilities.provider.tell = tell_rate(seed)
    probabilities.provider.asking_read = asking_rate(seed)
    for name in zero or ():
        set_rate(probabilities, name, 0.0)
    events = schedule(master, probabilities, side)
    if drop:
        events = [event for k, event in enumerate(events) if k not in set(drop)]
    return Run(seed, events, probabilities).run()


def set_rate(probabilities, name: str, value: float) -> None:
    owner, _, field = name.rpartition(".")
    target = getattr(probabilities, owner) if owner else probabilities
    if not hasattr(target, field):
        raise SystemExit(f"--zero: no probability named {name}")
    setattr(target, field, type(getattr(target, field))(value))


def summary(seed: int):
    """What a worker sends back: small, picklable."""
    started = time.perf_counter()
    try:
        result = one(seed)
    except Exception as error:  # the simulation's own bug: a failure of the seed, said, never hidden
        import traceback

        where = traceback.format_exc().strip().split("\n")[-3:]
        return (seed, [("the simulation runs", f"{error!r} at {' | '.join(where)}")], {}, 0, 0, 0,
                time.perf_counter() - started, "")
    return (seed, [(f.invariant, f.detail) for f in result.failures], dict(result.counts), result.steps,
            result.lives, len(result.events), time.perf_counter() - started, result.digest)


def command(seed: int, drop=None, zero=None) -> str:
    line = f"python -m sim --seed {seed}"
    if drop:
        line += f" --drop {ranges_text(drop)}"
    if zero:
        line += f" --zero {','.join(zero)}"
    return line


def preload() -> None:
    """Load what every seed imports once, before the workers fork: a worker lives for one seed,
    and the Anthropic SDK alone takes 3 s to import (a Client loads it only when first made)."""
    import anthropic  # noqa: F401
    import mcp.server  # noqa: F401 (the MCP SDK: a second)

    import harness.calls.client  # noqa: F401
    import harness.chat.mcp_server  # noqa: F401
    import harness.owner.owner  # noqa: F401


def run_many(first: int, count: int, workers: int, strict: bool, digests: bool = False) -> int:
    from sim.known import classify, kept_seeds

    seeds = list(range(first, first + count))
    kept = [seed for seed in kept_seeds() if seed not in seeds]
    started = time.perf_counter()
    print(f"sim: seeds {first}..{first + count - 1}" + (f" and {len(kept)} kept" if kept else "")
          + f" on {workers} workers", flush=True)
    if workers > 1:
        preload()
        # a fresh child per seed, forked from one state: a seed runs alike in a pool and alone
        with multiprocessing.get_context("fork").Pool(workers, maxtasksperchild=1) as pool:
            results = pool.map(summary, seeds + kept, chunksize=1)
    else:
        results = [summary(seed) for seed in seeds + kept]
    seconds = time.perf_counter() - started
    totals: dict[str, int] = {}
    failed, known, steps, lives, events = [], [], 0, 0, 0
    if digests:
        for result in results:
            print(f"seed={result[0]} digest={result[-1]}")
    for seed, failures, counts, seed_steps, seed_lives, seed_events, _, _ in results:
        steps += seed_steps
        lives += seed_lives
        events += seed_events
        for kind, n in counts.items():
            totals[kind] = totals.get(kind, 0) + n
        verdict = classify(seed, failures)
        if verdict == "pass":
            continue
        if verdict.startswith("known") and not strict:
            known.append((seed, verdict))
            continue
        failed.append(seed)
        first_failure = failures[0] if failures else ("known finding fixed", verdict)
        print(f"FAILED seed={seed}: {first_failure[0]}: {first_failure[1]}\n    replay: {command(seed)}", flush=True)
    print(f"sim: {len(results)} seeds, {events:,} events, {lives:,} owner lives, {steps:,} steps in {seconds:.1f} s "
          f"({steps / seconds:,.0f} steps/s, {len(results) / seconds:.1f} seeds/s)")
    print("faults and outcomes, by kind:")
    for kind, n in sorted(totals.items(), key=lambda item: (-item[1], item[0])):
        print(f"  {n:8,}  {kind}")
    for seed, verdict in known:
        print(f"known seed={seed}: {verdict} (not a pass; --strict fails it)")
    passed = len(results) - len(failed) - len(known)
    print(f"sim: {len(failed)} failed, {len(known)} on known findings, {passed} passed")
    return 1 if failed else 0


def until_caught(first: int, count: int, workers: int, invariants: list[str]) -> int:
    """The seeds in order, the kept ones after the drawn as `make sim` runs them, stopping at
    the first that fails on one of `invariants`: how `make mutants` runs `make sim`'s seeds
    against a planted bug (exit 1 when caught)."""
    from sim.known import KNOWN, kept_seeds, matches

    started = time.perf_counter()
    seeds = list(range(first, first + count))
    seeds += [seed for seed in kept_seeds() if seed not in seeds]
    preload()
    with multiprocessing.get_context("fork").Pool(workers, maxtasksperchild=1) as pool:
        for seed, failures, *_ in pool.imap(summary, seeds, chunksize=1):
            for invariant, detail in failures:
                if invariant in invariants and not any(matches(known, (invariant, detail)) for known in KNOWN):
                    print(f"FAILED seed={seed}: {invariant}: {detail}\n    replay: {command(seed)}")
                    print(f"sim: caught at seed {seed} of {first}..{first + count - 1} and the kept "
                          f"in {time.perf_counter() - started:.1f} s")
                    pool.terminate()
                    return 1
    print(f"sim: no seed of {first}..{first + count - 1} nor a kept one failed on {', '.join(invariants)}")
    return 0


def replay(seed: int, drop, zero, shrink: bool) -> int:
    result = one(seed, drop, zero)
    print(f"SEED={seed}\n")
    for line in result.probabilities.lines():
        print(f"    {line}")
    print("\nevents:")
    for k, event in enumerate(result.events):
        print(f"  {k:4} {event.line()}")
    print("\ntrace:")
    for line in result.trace:
        print(f"  {line}")
    print("\nfaults and outcomes, by kind:")
    for kind, n in sorted(result.counts.items()):
        print(f"  {n:8,}  {kind}")
    print(f"\n{result.steps:,} steps, {result.lives} owner lives, digest {result.digest}")
    if result.passed:
        print("PASSED")
        return 0
    for failure in result.failures:
        print(f"FAILED {failure.invariant}: {failure.detail} (at {failure.at_seconds:.3f} s)")
    print(f"replay: {command(seed, drop, zero)}")
    if shrink:
        from sim.shrink import shrink as shrunk

        drop, zero = shrunk(seed, result, drop or [], zero or [])
        print(f"shrunk: {command(seed, drop, zero)}")
    return 1


def main(argv: list[str] | None = None) -> int:
    if os.environ.get("PYTHONHASHSEED") != HASH_SEED:
        os.environ["PYTHONHASHSEED"] = HASH_SEED
        os.execv(sys.executable, [sys.executable, "-m", "sim", *(sys.argv[1:] if argv is None else argv)])
    parser = argparse.ArgumentParser(prog="python -m sim", description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=200, help="how many seeds (default 200)")
    parser.add_argument("--first", type=int, default=0, help="the first seed (default 0)")
    parser.add_argument("--seed", type=int, help="replay this seed alone, printing its trace")
    parser.add_argument("--drop", default="", help="with --seed: events left out (e.g. 0,3-9)")
    parser.add_argument("--zero", default="", help="with --seed: probabilities set to 0 (e.g. disk.write_eio)")
    parser.add_argument("--shrink", action="store_true", help="with --seed: cut events and faults while it fails")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--until-caught", default="", metavar="INVARIANT[,INVARIANT]",
                        help="stop at the first seed failing on one of these invariants (for mutants)")
    parser.add_argument("--digests", action="store_true", help="print each seed's digest (trace and bytes)")
    parser.add_argument("--strict", action="store_true", help="a known finding fails the run too")
    parser.add_argument("--traces", default="", metavar="DIR",
                        help="write each owner life's planner events and trace here (`python -m bridge.lives DIR`)")
    arguments = parser.parse_args(argv)
    if arguments.traces:
        from sim import planner_trace

        planner_trace.DIRECTORY = arguments.traces  # sim/planner_trace.py; the workers fork with it
    if arguments.seed is not None:
        return replay(arguments.seed, parse_ranges(arguments.drop), list(filter(None, arguments.zero.split(","))),
                      arguments.shrink)
    if arguments.until_caught:
        return until_caught(arguments.first, arguments.seeds, arguments.workers,
                            [name.strip() for name in arguments.until_caught.split(",")])
    return run_many(arguments.first, arguments.seeds, arguments.workers, arguments.strict, arguments.digests)


if __name__ == "__main__":
    sys.exit(main())
