"""The benchmarks a person runs: what a chat costs, and whether the memory remembers.

    simulate            `ever simulate`: what a chat costs beside other designs (docs/simulate.md)
    simulate_workloads  the messages it replays: the gist's sizes, a first-day import, a user's log
    simulate_meter      each request costed with the local API's cache model
    simulate_designs    the designs beside Ever's: push, 16-line blocks, a carried conversation, a window
    simulate_pictures   the PNGs and the one-page HTML report (matplotlib)
    recall              `ever bench recall`: a chat's tree built, then questions in three arms [M3]
    planted             facts planted at known ids in a synthetic chat, the published benchmarks'
                        files as chats, and an answer's exact score, for `recall` [M1] [M2]
    replay              the cache replay: a long chat's calls through the SDK against the local
                        Messages API, for docs/compactor.md's figures (`python -m harness.bench.replay`)

`planted` and `replay` live here rather than in harness/memory/ and harness/localapi/ because
nothing but a benchmark (and its tests) uses them: the product never makes a planted chat, and
the local API is test equipment that a replay drives, not a part of it.

May import: the standard library, tqdm, matplotlib (only in `simulate_pictures`), harness.memory,
harness.calls, harness.owner, harness.localapi and harness.bench. Only harness/chat/cli.py imports
it, inside `ever simulate` and `ever bench recall`; the product never does.
"""
