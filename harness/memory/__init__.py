"""What is kept and decided [gist §1–§4].

    events      the planner's inputs (Message, Built, Failed, Retry, Wait, TurnEnd, Restart)
    text        text made valid once, where it enters
    accepted    a user's message as one value: valid and key-hidden where it enters, its key with it
    line        a summary line's rules: capped at 512 bytes, cut when the tries run out
    planner     the production planner: the view, the compaction view, the due order, the jobs
    store       the logs (append-only, fsync'd), the tree, the checkpoint, the lock
    images      images a tool gave, kept by their SHA-256 for zoom; a tool's result
    service     the memory service: the store and the planner together, the compactor's jobs
    agentlog    a subagent's own log: its steps, its end, where its report went; its caps
    trace       the planner's state printed for the bridge (bridge/FORMAT.md)

May import: the standard library and harness.memory. Never the SDK, harness.calls, harness.chat or
harness.localapi; never model/.
"""
