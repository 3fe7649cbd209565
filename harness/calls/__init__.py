"""What talks to a model [gist §3.3, §5, §6].

    client      the one module that imports the `anthropic` SDK: retries, errors, the prefix gate
    outcomes    what a call gives back and how it fails (Usage, Reply, Refused, …), without the SDK
    models      the capability table: what each model id takes, its limits and prices, dated
    requests    the last shaping of every request: thinking fields, marks, images, reply blocks
    prompt      the system prompt, the view's blocks and their cache marks, the compaction tasks
    compactor   a compaction's call: a message summarized, two lines merged
    tools       the work tools (shell, read, write, edit), zoom and date, approvals
    turn        a turn: the view, the message, the tool loop
    usage       each call's tokens and what they cost
    agents      subagents: the `agent` tool, their runs in the background, their reports
    agentlist   `ever agents`: each subagent from its log, with its cost (no SDK)

May import: the standard library, the SDK (client only), harness.memory and harness.calls. Never
harness.chat or harness.localapi.
"""
