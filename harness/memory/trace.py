"""The production planner's trace, printed from its own state as bridge/FORMAT.md specifies.

Written from FORMAT.md alone, apart from bridge/model_trace.py, so that a shared printing bug
cannot hide a difference between the planners.
"""

from collections.abc import Sequence
from typing import Union

from harness.memory.events import Built, Failed, Message, Restart, Retry, TurnEnd, Wait
from harness.memory.planner import Node, Planner
from harness.memory.text import utf8_bytes
from harness.memory.view_text import node_name

CONTEXT_EVERY = 64  # FORMAT.md: the first running node's context every 64 events


_NAMES: dict[Node, str] = {}


def name(node: Node) -> str:
    text = _NAMES.get(node)
    if text is None:
        if len(_NAMES) > 500_000:
            _NAMES.clear()
        text = node_name(node[0], node[1])
        _NAMES[node] = text
    return text


def items(nodes: Sequence[Node]) -> str:
    if not nodes:
        return "-"
    return " ".join([name(node) for node in nodes])


def view_items(planner: Planner, lines: Sequence[Node]) -> str:
    if not lines:
        return "-"
    parts = []
    for node in lines:
        l, i = node
        # only a message's own line can be unbuilt
        if l == 0 and not planner.built(0, i):
            parts.append(name(node) + "*")
        else:
            parts.append(name(node))
    return " ".join(parts)


def event_text(event: Union[Message, Built, Failed, Retry, Wait, TurnEnd, Restart]) -> str:
    if isinstance(event, Message):
        return f"message {event.kind} {utf8_bytes(event.text)}"
    if isinstance(event, Built):
        return f"built {node_name(event.l, event.i)} {utf8_bytes(event.text)}"
    if isinstance(event, Failed):
        return f"failed {node_name(event.l, event.i)}"
    if isinstance(event, Retry):
        return "retry"
    if isinstance(event, Wait):
        return "wait"
    if isinstance(event, TurnEnd):
        return "turn_end"
    if isinstance(event, Restart):
        return "restart"
    raise TypeError(f"no trace name for {event!r}")


def flag(value: bool) -> str:
    return "1" if value else "0"


def by_first(nodes) -> list[Node]:
    return sorted(set(nodes), key=lambda node: (node[1] << node[0], node[0]))


def event_record(k: int, event, planner: Planner) -> str:
    failures = by_first(planner.failures)
    failure_items = " ".join(f"{node_name(l, i)}:{planner.failures[(l, i)]}" for l, i in failures)
    columns = (
        "e",
        str(k),
        str(planner.T),
        event_text(event),
        view_items(planner, planner.view.lines()),
        str(planner.view.bytes),
        flag(planner.shrinking),
        view_items(planner, planner.cview.lines()),
        str(planner.cview.bytes),
        flag(planner.cshrinking),
        items(planner.merges),
        items(planner.cmerges),
        items(planner.running),
        items(planner.ready_merges()),
        items(planner.waiting_queue()),
        flag(planner.waiting),
        items(by_first(planner.retry_later)),
        failure_items or "-",
    )
    return "\t".join(columns)


_LINES: dict[tuple[int, int, str], str] = {}


def render(planner: Planner, lines: Sequence[Node]) -> str:
    """The planner's render, with each built line's rendering kept: a built node never changes,
    and shrinking runs render a long view at every message."""
    out = ["<chat>"]
    cache = _LINES
    for l, i in lines:
        text = planner.text(l, i)
        if text is None:
            out.append(planner.rendered(l, i))
            continue
        key = (l, i, text)
        line = cache.get(key)
        if line is None:
            if len(cache) > 200_000:
                cache.clear()
            line = planner.rendered(l, i)
            cache[key] = line
        out.append(line)
    out.append("</chat>")
    return "\n".join(out)


def block(header: str, rendered: str) -> list[str]:
    body = rendered.split("\n")
    return [f"{header}\t{len(body)}"] + body


def records(k: int, event, planner: Planner) -> list[str]:
    """Every record of event k: its `e` record, then `r` and `c` records when due."""
    lines = [event_record(k, event, planner)]
    batch = len(planner.merges) > 0
    if batch:
        lines.extend(block(f"r\t{k}", render(planner, planner.view.lines())))
    shown: list[Node] = []
    if batch:
        shown = list(planner.running)
    elif k % CONTEXT_EVERY == CONTEXT_EVERY - 1 and planner.running:
        shown = [planner.running[0]]
    for l, i in shown:
        lines.extend(block(f"c\t{k}\t{node_name(l, i)}", render(planner, planner.context(l, i))))
    if isinstance(event, (Wait, TurnEnd)):
        lines.extend(block(f"t\t{k}", planner.render()))
    return lines


def final_records(events: int, planner: Planner) -> list[str]:
    """The `z` record after the last event: the whole rendered view, by the planner's own
    `render` (the one a turn uses), where `r` records use the cached one above."""
    return block(f"z\t{events}\t{planner.T}", planner.render())
