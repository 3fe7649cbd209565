"""Ever, the product: the chat a person lives in, in five rooms.

    memory/    what is kept and decided: the logs, the planner, the memory service. No SDK.
    calls/     what talks to a model: the SDK client, the prompt, the compactor's calls, the turn.
    owner/     the process that holds the chat: one Owner, its socket and protocol, the hub, /commands.
    chat/      what a person touches: the `ever` commands, the terminal, settings.
    localapi/  a local Messages API as strict as Anthropic's, for the tests and the no-key demo.
    __main__   `python -m harness` is `ever`.

Imports go one way, memory ← calls ← owner ← chat (the owner reads chat/'s settings), and
localapi stands beside them: only the tests and the demo (`ever chat --local`) import it. The
layering lint in laws/subset.py, run by tests/model/test_subset.py (`make lint`), checks it.
"""
