"""What a person touches [gist §1, §6].

    cli         `ever` and its commands
    config      the settings: environment, `config.toml`, the key
    terminal    `ever chat`'s one input loop and its screen, over a Sink (the owner's, the socket's)
    local       `ever chat` holding the chat: the owner in this process, its terminal one of the hub's
    attached    `ever chat` attached to the running owner over the socket; own it when it goes [R3]
    serve       `ever serve`, the owner with no terminal, and its systemd user unit [R3]
    mcp_server  `ever mcp`: the memory's tools over MCP, stdio or HTTP with a secret [R2]
    demo        `ever chat --local`: the chat with no key, on the local Messages API
    agentlist   `ever agents`: each subagent from its log, with its cost
    keeping     `ever backup`, `ever restore`, `ever forget`: the chat kept elsewhere, brought back, removed

The chat's owner is harness/owner/; `ever import` is harness/imports/, `ever browse`
harness/browse/, `ever simulate` and `ever bench recall` harness/bench/.

May import: the standard library, click, prompt_toolkit, mcp (only in `mcp_server`), harness.memory,
harness.calls, harness.owner, harness.imports, harness.browse and harness.chat. harness.localapi
only in `demo`, for `ever chat --local`; harness.bench only in `cli`, inside the commands that run
a benchmark.
"""
