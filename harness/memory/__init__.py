"""What is kept and decided [gist §1–§4].

    events      the planner's inputs (Message, Built, Failed, Retry, Wait, TurnEnd, Restart); KINDS
    text        text made valid once, where it enters; its UTF-8 bytes
    accepted    a user's message as one value: valid and key-hidden where it enters, its key with it
    line        a summary line's rules: capped at 512 bytes, cut when the tries run out
    view_text   the view's text rules: a line's name, its shown text, its bytes (model/view.py's mirror)
    covers      what a line not summarized yet covers (ids, kind, tools, days), in its placeholder [P22]
    planner     the production planner: the view, the compaction view, the due order, the jobs
    texts       where the planner's texts live (the `Texts` store, `MemoryTexts`), which nodes are built
    checkpoint  what a restart keeps: the planner's saved state, when it is due, taking it up again
    disk        the disk's operations as one interface passed in, and the machine's (`RealDisk`)
    logfile     one way to write a file: JSON lines appended and fsync'd, files replaced whole
    home        every path under EVER_HOME in one table: what writes it, its kind, its mode
    store       the chat's store behind `Store`: appends, reads by id, the saved view
    daylog      the logs' day files and the shapes of their lines (main/, tree/)
    index       the store's index: where each line starts; rebuilt from the logs when stale
    lock        the chat's lock: one owner, readers shared
    damage      damaged lines and lost ids: the record that sets them aside, `ever doctor`'s check [S13]
    inbox       each message accepted, on disk until a call has taken it
    images      images a tool gave, kept by their SHA-256 for zoom; a tool's result and its makers
    pixels      an image's size in pixels from its header, for the vision limits
    service     the memory service: the store and the planner together, the compactor's jobs
    agentlog    a subagent's own log: its steps, its end, where its report went; its caps
    search      every message found by its words: SQLite FTS5, a cache of the logs [R1]
    backup      the chat's truth copied with a manifest of hashes, its restore test, a restore [S20]
    backup_state  what a home knows of its backups: each destination, its last backup and check [S24]
    forget      messages removed from every place Ever keeps them, then proved gone [S22]
    pages       the pages `ever browse --out` wrote, for forget, and a page's parts opened [B5]
    trace       the planner's state printed for the bridge (bridge/FORMAT.md)

May import: the standard library and harness.memory. Never the SDK, harness.calls, harness.chat,
harness.bench or harness.localapi; never model/.
"""

# Who hears a damaged log line said, once per sentence (harness/memory/store.py): every command of
# `ever` adds its own. Here, not in the store, so a command that may never open the store (`ever
# send` to a running owner) can listen without loading it.
DAMAGE_LISTENERS: list = []
