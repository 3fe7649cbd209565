"""What is kept and decided [gist §1–§4].

    events      the planner's inputs (Message, Built, Failed, Retry, Wait, TurnEnd, Restart)
    text        text made valid once, where it enters
    line        a summary line's rules: capped at 512 bytes, cut when the tries run out
    planner     the production planner: the view, the compaction view, the due order, the jobs
    store       the logs (append-only, fsync'd), the tree, the checkpoint, the lock
    inbox       the messages accepted and not yet answered, on disk before they are shown accepted
    images      images a tool gave, kept by their SHA-256 for zoom; a tool's result
    pixels      an image's size in pixels from its header bytes, for the API's limits
    service     the memory service: the store and the planner together, the compactor's jobs
    agentlog    a subagent's own log: its steps, its end, where its report went; its caps
    search      every message found by its words: SQLite FTS5, a cache of the logs [R1]
    trace       the planner's state printed for the bridge (bridge/FORMAT.md)
    browse      the memory's page: one self-contained HTML file (`ever browse`)
    planted     facts planted at known ids in a synthetic chat, the published benchmarks' files as
                chats, and an answer's exact score, for `ever bench recall` [M1] [M2]
    imports/    `ever import`'s parsers, one per format, and the writing of their notes once

May import: the standard library and harness.memory. Never the SDK, harness.calls, harness.chat or
harness.localapi; never model/.
"""
