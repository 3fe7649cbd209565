"""What a person touches [gist §1, §6].

    cli         `ever` and its commands
    config      the settings: environment, `config.toml`, the key
    session     the chat's process: it owns the chat, runs its turns, answers `ever memory`
    terminal    `ever chat` in a plain terminal
    owner       the owner's Unix socket, through which a second `ever` talks to it
    importing   `ever import`: what will be added and cost, the question, the progress
    browsing    `ever browse`: the memory's page written to a file or served on 127.0.0.1
    mcp_server  `ever mcp`: the memory's tools over MCP, stdio or HTTP with a secret [R2]
    recall      `ever bench recall`: a chat's tree built, then questions in three arms [M3]
    demo        `ever chat --local`: the chat with no key, on the local Messages API

May import: the standard library, click, prompt_toolkit, mcp (only in `mcp_server`), harness.memory, harness.calls and
harness.chat. harness.localapi only in `demo`, for `ever chat --local`.
"""
