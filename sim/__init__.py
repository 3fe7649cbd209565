"""The whole chat under one seeded simulated World (`make sim`): the production owner, store,
inbox, compactor, turns and senders on a simulated disk, provider and clock, with kills, power
losses and faults, every promise checked after every restart and at the end.

    python -m sim --seeds 200        # the seeds 0..199, on every core
    python -m sim --seed 17          # one seed, replayed exactly, its trace printed
    python -m sim --seed 17 --shrink # the shortest schedule that still fails

May import: the standard library, httpx2 (the SDK's transport, in `provider`), harness and sim.
Never model/, laws/, bridge/ or mutants/ (laws/subset.py checks it).

    __main__    `python -m sim`: many seeds on every core, or one replayed, shrunk
    backup_world  after each run: backups killed, faulted and stopped by power losses, then checked
    calls       each compaction's outcome checked, as it is applied, to be its node's latest call's
    counts      what a run injected and did, by kind
    disk        the disk in memory: durable only once fsync'd, torn at a power loss
    importing   `ever import` of notes before the owner's first life, killed and run again
    invariants  the promises checked, each by its name
    known       findings not fixed yet, each with a seed kept that must still fail on it
    loop        an asyncio loop whose time is virtual
    mcp         MCP tool calls through the real MCP server, answered by the owner over its socket
    planner_trace  each owner life's planner: its loaded state, its events and its trace, for the bridge
    provider    the Messages API's rules and replies without HTTP, and its faults
    run         one seed: the schedule, the owner's lives, the quiet phase
    seeds       seeds kept as regression runs, each with the bug it found
    shrink      the fewest events and faults that still fail
    terminals   attached terminals, each reading every event the hub fans out
    world       the simulated World an owner opens with
"""
