"""A local Messages API as strict as Anthropic's, OpenAI's two APIs beside it, and what is built
on it. Test equipment: the product imports it only for the no-key demo (harness/chat/demo.py);
the benchmarks (harness/bench/) cost and replay their calls against it.

    server      the HTTP server (`LocalAPI`): scripting, recording, streaming; `python -m harness.localapi`
    validation  what a request must be, its prompt blocks and their tokens
    cache       Anthropic's prompt cache and the clocks that age it
    catalogue   the models it serves and its `GET /v1/models`, as the Models API answers
    replies     scripted replies
    faults      scripted faults
    openai_api  the Chat Completions and Responses stand-ins, on the same server (`OpenAILocalAPI`)
    __main__    `python -m harness.localapi --port 8765`: the server on its own, answering with an echo

May import: the standard library, harness.memory, harness.calls and harness.localapi. Never
harness.chat, never the SDK.
"""
