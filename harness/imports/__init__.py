"""`ever import`: old sessions from other tools become notes, oldest first [gist §1] [I1]–[I5].

    importing    `ever import`: old sessions found, estimated, logged as notes
    rules        what every format shares: a header per note, split never cut, kept once,
                 idempotent, dated [I1]–[I5]; the compactions and dollars estimated; the plan
    tokens       the notes weighed by the compaction model's own count of a sample [I6]
    formats      the formats, one registry (`FORMATS`): each one's name, how a file is told to be
                 one, its parser and its source's name in a note's header
    notes        what every parser makes and uses: a `Note`, a `Format`, the times, a tool's text
    claude_code  Claude Code's session files
    codex        Codex CLI's rollouts
    pi           pi's sessions
    llm_db       simonw/llm's `logs.db`
    text_files   plain text and Markdown files, a note each

A new format is a parser module here that defines its `Format`, and one entry in `FORMATS`.

May import: the standard library, click and tqdm (only in `importing`), harness.memory,
harness.calls, harness.imports and harness.chat.config (the settings, read where they enter).
Never harness.owner or harness.bench; only harness.chat imports it.
"""
