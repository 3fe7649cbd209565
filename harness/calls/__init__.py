"""What talks to a model [gist §3.3, §5, §6].

    client      the one module that imports the `anthropic` SDK: retries, errors, the prefix gate
    outcomes    what a call gives back and how it fails (Usage, Reply, Refused, …), without the SDK
    models      the capability table: what each model id takes, its limits and prices, dated
    requests    the last shaping of every request: thinking fields, marks, images, reply blocks
    prompt      the system prompt, the view's blocks and their cache marks, the compaction tasks
    compactor   a compaction's call: a message summarized, two lines merged
    tools       the work tools' dispatch: a call checked, approved, run, its result cleaned
    arguments   the checks on a tool call's arguments: the work tools' schemas, zoom's and date's ids
    approval    whether a tool call may run: yes / no / always, `--yes`, the config's `approve`
    shell       the shell tool's runner: its environment without the key, its timeout, its clipped output
    files       the file tools' work: read (text or an image), write, edit; regular files only
    redaction   the API key hidden in any text: a tool's result, an API error, a reply
    turn        a turn: the view, the message, the tool loop
    caps        what one turn may spend (TurnCaps), read by the settings without loading the turn
    usage       each call's tokens and what they cost
    agents      subagents: the `agent` tool, their runs in the background, their reports

May import: the standard library, the SDK (client only), harness.memory and harness.calls. Never
harness.chat or harness.localapi.
"""
