"""What a person touches [gist §1, §6].

    cli         `ever` and its commands
    config      the settings: environment, `config.toml`, the key
    terminal    `ever chat`'s one input loop and its screen, over a Sink (the owner's, the socket's)
    local       `ever chat` holding the chat: the owner in this process, its terminal one of the hub's
    attached    `ever chat` attached to the running owner over the socket; own it when it goes [R3]
    serve       `ever serve`, the owner with no terminal, and its systemd user unit [R3]
    mcp_server  `ever mcp`: the memory's tools over MCP, stdio or HTTP with a secret [R2]
    recall      `ever bench recall`: a chat's tree built, then questions in three arms [M3]
    demo        `ever chat --local`: the chat with no key, on the local Messages API
    agentlist   `ever agents`: each subagent from its log, with its cost
    importing   `ever import`: old sessions found, estimated, logged as notes
    imports/    the import parsers: Claude Code, Codex, pi, llm's database, text files, as notes
    browsing    `ever browse`: the page written to a file or served on 127.0.0.1, a running chat copied
    browse/     `ever browse`'s page: page.py builds it; page.css, page.html, page.js are package data
    simulate    `ever simulate`: what a chat costs beside other designs (docs/simulate.md)
    simulate_workloads  the messages it replays: the gist's sizes, a first-day import, a user's log
    simulate_meter      each request costed with the local API's cache model
    simulate_designs    the designs beside Ever's: push, 16-line blocks, a carried conversation, a window
    simulate_pictures   the PNGs and the one-page HTML report (matplotlib)

The chat's owner itself is harness/owner/.

May import: the standard library, click, prompt_toolkit, mcp (only in `mcp_server`), matplotlib
(only in `simulate_pictures`), harness.memory, harness.calls, harness.owner and harness.chat. harness.localapi
only in `demo`, for `ever chat --local`, and in `simulate_meter`, which costs `ever simulate`'s
requests with the local API's cache model.
"""
