"""The process that holds the chat [gist §1] [R3].

    owner     Owner: open (resume what the logs imply), accept, one turn scheduler (reports
              too), interrupt, close; `send_here`, an `ever send` that holds the chat for its turn
    world     World: the owner's edges (clock, randomness, provider) as one value
    protocol  the socket's requests and events as typed values; a line becomes one where it enters
    socket    the socket's two ends: the owner's server, a sender's `ask`; the memory's answers
    hub       the owner's output fanned out to every terminal; a tool's question, first answer counts
    commands  the /commands, answered by the owner for every terminal
    sender    a process that asks the chat: the owner over the socket, or the chat held here

May import: the standard library, harness.memory, harness.calls, harness.owner and
harness.chat.config (the settings, read where they enter). `protocol`, `socket` and `sender` load
only the standard library and each other at their top: `ever send` to a running owner needs no
more.
"""
