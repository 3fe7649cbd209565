"""Ever, the product: the chat a person lives in, in rooms.

    memory/    what is kept and decided: the logs, the planner, the memory service. No SDK.
    calls/     what talks to a model: the SDK client, the prompt, the compactor's calls, the turn.
    owner/     the process that holds the chat: one Owner, its socket and protocol, the hub, /commands.
    chat/      what a person touches: the `ever` commands, the terminal, settings.
    imports/   `ever import`: old sessions from other tools as notes.
    browse/    `ever browse`: the memory as one HTML page.
    bench/     `ever simulate` and `ever bench recall`: the benchmarks a person runs.
    localapi/  a local Messages API as strict as Anthropic's, for the tests, the demo and the benchmarks.
    __main__   `python -m harness` is `ever`.

Imports go one way, memory ← calls ← owner ← chat (the owner reads chat/'s settings), with
imports/ and browse/ beside the chat (they read its settings too; only it imports them). bench/
and localapi/ stand apart: only `ever simulate` and `ever bench recall` import bench/, only the
tests, the demo (`ever chat --local`) and bench/ import localapi/. The layering lint in
laws/subset.py, run by tests/model/test_subset.py (`make lint`), checks it.
"""
