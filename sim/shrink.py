"""The shrinker: the fewest events and faults of a failing seed that still fail on its invariant.

Greedy, as delta debugging is: drop halves, then quarters, down to single events, keeping each
cut that still fails on the same invariant; then set each fault's probability to 0, keeping each
that still fails. Every candidate is a whole deterministic run, so the result replays exactly
with the one command printed (`--drop`, `--zero`).
"""

import dataclasses


def rate_names(probabilities) -> list[str]:
    names = []
    for name, value in dataclasses.asdict(probabilities).items():
        if isinstance(value, dict):
            names += [f"{name}.{key}" for key, item in value.items() if isinstance(item, float) and item > 0
                      and key != "latency_mean_seconds"]
        elif isinstance(value, float) and value > 0 and name != "message_gap_mean_seconds":
            names.append(name)
    return names


def shrink(seed: int, failed, drop: list[int], zero: list[str]) -> tuple[list[int], list[str]]:
    from sim.__main__ import one

    invariant = failed.failures[0].invariant
    total = len(failed.events) + len(drop)

    def still_fails(candidate_drop, candidate_zero) -> bool:
        result = one(seed, candidate_drop, candidate_zero)
        return any(failure.invariant == invariant for failure in result.failures)

    kept = [k for k in range(total) if k not in set(drop)]
    size = max(1, len(kept) // 2)
    while size >= 1:
        start = 0
        while start < len(kept):
            cut = kept[start:start + size]
            trial = [k for k in kept if k not in set(cut)]
            if cut and still_fails(sorted(set(range(total)) - set(trial)), zero):
                kept = trial
                print(f"  shrink: {len(kept)} events left", flush=True)
            else:
                start += size
        size //= 2
    drop = sorted(set(range(total)) - set(kept))
    for name in rate_names(failed.probabilities):
        if name not in zero and still_fails(drop, zero + [name]):
            zero = zero + [name]
            print(f"  shrink: {name} set to 0", flush=True)
    return drop, zero
