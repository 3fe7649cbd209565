"""The chat's `/commands`, answered by the owner for every terminal, its own or attached.

A terminal answers only what is its own (`/quiet`, `/edit`, `/exit`: harness/chat/terminal.py);
everything else typed with a slash comes here, through the hub for an attached terminal.
"""

from typing import Any

from harness.calls.arguments import zoom_arguments
from harness.chat.config import ConfigError, load_settings, set_memory_model

# the owner (harness/owner/owner.py), which imports this module: named, not imported
Owner = Any

HELP = """\
/memory               the memory's status and every line of the view
/memory zoom ID N     open line ID+N (or: /memory zoom ID+N)
/memory-model [MODEL] [THINKING]   the compaction model and its thinking: off, an effort or a budget (saved)
/agents              the subagents: running or how they ended, and their cost
/stop NAME            stop a subagent (Ctrl-C with no call running stops the newest); it reports
/tell NAME TEXT       tell a running subagent TEXT: it reads it between its tool calls
/forget ID... --why TEXT   what goes from every place Ever keeps it; with --yes before --why, it goes
/quiet                hide the memory: rows in this terminal, or show them again
/edit                 write the message in $EDITOR
/help                 this list
Alt-Enter (or Esc, then Enter) starts a new line of the message; a paste stays one message.
Up and Down go through the messages sent before. Ctrl-C stops the running call; Ctrl-D leaves."""


def answer(owner: Owner, text: str, set_model=set_memory_model) -> str:
    """The answer to a chat command; a setting refused is its one sentence."""
    try:
        return _answer(owner, text.strip(), set_model)
    except ConfigError as error:
        return str(error)


def _answer(owner: Owner, text: str, set_model) -> str:
    words = text.split()
    if not words:
        return "unknown command: /help lists them"
    if words[0] == "/help":
        return HELP
    if words[0] == "/tell":
        parts = text.split(None, 2)
        if len(parts) < 3:
            return "usage: /tell NAME TEXT"
        # [A8] told words carry an approval that asks the terminals, never the subagent's own
        from harness.calls.approval import Approval

        told = Approval(owner.approve, False, owner.hub.ask)
        return owner.agents.tell(parts[1], parts[2], "the user", told)[1].removeprefix("tell: ")
    if words[0] in ("/agents", "/stop"):
        from harness.chat.agentlist import listing, listing_text

        if words[0] == "/agents":
            return listing_text(listing(owner.memory.store.chat))
        if len(words) != 2:
            return "usage: /stop NAME"
        if owner.agents.stop(words[1]):
            return f"(stopping the subagent {words[1]}; its report follows)"
        return f"no subagent named {words[1]} is running"
    if words[0] == "/memory" and len(words) == 1:
        status = owner.memory.status()
        rows = [f"{key}: {value}" for key, value in status.items()]
        return "\n".join(rows) + "\n" + owner.memory.render()
    if words[0] == "/memory" and words[1:2] == ["zoom"]:
        arguments = zoom_arguments(words[2:])  # `ID N`, or the view's `ID+N`
        if arguments is None:
            return "usage: /memory zoom ID N"
        first, n = arguments
        from harness.memory.images import named_images

        zoomed = owner.memory.zoom(first, n)
        return named_images(zoomed, owner.memory.store.chat) if n == 1 else zoomed
    if words[0] == "/memory":
        return "usage: /memory, or /memory zoom ID N"
    if words[0] == "/forget":
        return forget_command(owner, text)
    if words[0] == "/memory-model":
        if len(words) > 3:
            return "usage: /memory-model [MODEL] [THINKING]"
        said = set_model(words[1] if len(words) > 1 else None, words[2] if len(words) > 2 else None)
        owner.set_memory_model(load_settings())
        return said
    return f"unknown command {words[0]}: /help lists them"


FORGET_USAGE = "usage: /forget ID... --why TEXT (it shows what goes), then /forget ID... --yes --why TEXT"


def forget_command(owner: Owner, text: str) -> str:
    """[S33] `/forget ID... --why TEXT` says what goes; with `--yes` the owner forgets it between two
    turns, and what was done and the proof follow as a notice."""
    import asyncio

    head, marker, why = text.partition("--why")
    words = head.split()[1:]
    yes = "--yes" in words
    ids = [word for word in words if word != "--yes"]
    if not marker or not why.strip() or not ids or not all(word.isdigit() for word in ids):
        return FORGET_USAGE
    wanted = sorted({int(word) for word in ids})
    count = owner.memory.store.count
    missing = [i for i in wanted if i >= count]
    if missing:
        have = f"0 to {count - 1}" if count else "no messages"
        return f"the chat holds messages {have}; there is no message {missing[0]} to forget"
    if not yes:
        shown = []
        for i in wanted:
            record = owner.memory.store.message(i)
            first = record["text"].strip().split("\n", 1)[0]
            shown.append(f"  {i} · {record['kind']} · {record.get('date', '')} · {first[:100]}"
                         f"{'…' if len(first) > 100 else ''}")
        ids_text = " ".join(str(i) for i in wanted)
        return ("These would go from every place Ever keeps them, each left as a tombstone with its id:\n"
                + "\n".join(shown) + f"\nTo forget them: /forget {ids_text} --yes --why {why.strip()}")

    async def run() -> None:
        answer = await owner.forget(tuple(wanted), why.strip())
        owner.hub.notice(answer["forgotten"]["text"] if "forgotten" in answer else answer["error"])

    task = asyncio.get_running_loop().create_task(run())
    owner.busy.add(task)
    task.add_done_callback(owner.busy.discard)
    return f"(forgetting message{'' if len(wanted) == 1 else 's'} {', '.join(map(str, wanted))} between two turns; " \
           "what was done and the proof follow)"
