"""What talks to a model [gist §3.3, §5, §6].

    provider    the seam to a model's API: a call in neutral values, its reply, why it stopped [H14]
    anthropic   the Messages API as a provider: its body, its cache marks, its stop reasons
    client      the one module that imports the `anthropic` SDK: retries, errors, the prefix gate
    providers   `[providers.NAME]` in config.toml, and which provider a `NAME/MODEL` picks [H25]
    openai      OpenAI's Chat Completions and Responses wires: bodies, finish reasons, usage [H26]
    openai_client  the one module that imports the `openai` SDK: those wires as providers, retried
    retry       the one retry policy of every provider: waits, attempts, giving up [C13]
    outcomes    what a call gives back and how it fails (Usage, Reply, Refused, …), without the SDK
    models      the capability record and the hand table: what each model takes, its limits and prices
    capabilities  the Models API's answer as records, cached under the home with its date
    requests    the shaping of every request: thinking fields, images within limits, reply blocks
    prompt      the system prompt, the view's blocks and where its mark goes, the compaction tasks
    compactor   a compaction's call: a message summarized, two lines merged
    tool        every tool, one value each, in one registry: the prompt, checks, MCP, approval [H13]
    tools       the work tools' dispatch: a call checked, approved, run, its result cleaned
    arguments   the checks on a tool call's arguments: the registry's schemas, zoom's and date's ids
    approval    whether a tool call may run: yes / no / always, `--yes`, the config's `approve`
    shell       the shell tool's runner: its environment without the key, its timeout, its clipped output
    files       the file tools' work: read (text or an image), write, edit; regular files only
    redaction   the API key hidden in any text: a tool's result, an API error, a reply
    loop        the one tool loop and its stop policy, which a turn and a subagent configure [A7]
    turn        a turn: the view, the message, its configuration of the loop
    caps        what one turn may spend (TurnCaps), read by the settings without loading the turn
    budget      what the whole chat may spend, per hour and day, and a chain's shared budget [H15]
    usage       each call's tokens and what they cost
    agents      subagents: the `agent` tool, their runs in the background, their reports

May import: the standard library, the SDKs (client and openai_client only), harness.memory and harness.calls. Never
harness.chat or harness.localapi.
"""
