"""What a person touches [gist §1, §6].

    cli         `ever` and its commands
    config      the settings: environment, `config.toml`, the key
    session     the chat's process: it owns the chat, runs its turns, answers `ever memory`
    terminal    `ever chat` in a plain terminal
    owner       the owner's Unix socket, through which a second `ever` talks to it
    simulate    `ever simulate`: what a chat costs beside other designs (simulate_workloads,
                simulate_meter, simulate_designs, simulate_pictures: docs/simulate.md)

May import: the standard library, click, prompt_toolkit, harness.memory, harness.calls and
harness.chat. harness.localapi only in `demo`, for `ever chat --local`, and in `simulate_meter`,
which costs `ever simulate`'s requests with the local API's cache model.
"""
