"""What is kept and decided [gist §1–§4].

    events      the planner's inputs (Message, Built, Failed, Retry, Wait, TurnEnd, Restart); KINDS
    text        text made valid once, where it enters; its UTF-8 bytes
    line        a summary line's rules: capped at 512 bytes, cut when the tries run out
    planner     the production planner: the view, the compaction view, the due order, the jobs
    logfile     one way to write a file: JSON lines appended and fsync'd, files replaced whole
    store       the chat's store behind `Store`: appends, reads by id, the saved view
    daylog      the logs' day files and the shapes of their lines (main/, tree/)
    index       the store's index: where each line starts; rebuilt from the logs when stale
    lock        the chat's lock: one owner, readers shared
    inbox       messages accepted and not yet answered
    images      images a tool gave, kept by their SHA-256 for zoom; a tool's result
    pixels      an image's size in pixels from its header bytes, for the API's limits
    service     the memory service: the store and the planner together, the compactor's jobs
    agentlog    a subagent's own log: its steps, its end, where its report went; its caps
    trace       the planner's state printed for the bridge (bridge/FORMAT.md)
    browse      the memory's page: one self-contained HTML file (`ever browse`)
    imports/    `ever import`'s parsers, one per format, and the writing of their notes once

May import: the standard library and harness.memory. Never the SDK, harness.calls, harness.chat or
harness.localapi; never model/.
"""
