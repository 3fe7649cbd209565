"""The model's trace, printed from model state as bridge/FORMAT.md specifies.

Written from FORMAT.md alone, apart from harness/memory/trace.py: the two printers share no code.
"""


from model import planner as mp
from model.view import context, name, rendered, utf8_bytes, view_bytes

CONTEXT_PERIOD = 64  # FORMAT.md, `c` records


_NAME: dict[tuple[int, int, bool], str] = {}


def _item(l: int, i: int, built: bool) -> str:
    key = (l, i, built)
    text = _NAME.get(key)
    if text is None:
        if len(_NAME) > 500_000:
            _NAME.clear()
        text = name(l, i) + ("" if built else "*")
        _NAME[key] = text
    return text


def _names(nodes) -> str:
    text = " ".join(_item(node[0], node[1], True) for node in nodes)
    return text if text else "-"


def _lines(view) -> str:
    parts = [_item(line.l, line.i, line.built) for line in view]
    return " ".join(parts) if parts else "-"


def _sorted_nodes(nodes) -> list[tuple[int, int]]:
    """Each node once, by first message, then by size."""
    unique = []
    for node in nodes:
        if node not in unique:
            unique.append(node)
    return sorted(unique, key=lambda node: (node[1] * (1 << node[0]), 1 << node[0]))


def describe(event) -> str:
    if isinstance(event, mp.Message):
        return "message " + event.kind + " " + str(utf8_bytes(event.text))
    if isinstance(event, mp.Built):
        return "built " + name(event.l, event.i) + " " + str(utf8_bytes(event.text))
    if isinstance(event, mp.Failed):
        return "failed " + name(event.l, event.i)
    if isinstance(event, mp.Retry):
        return "retry"
    if isinstance(event, mp.Wait):
        return "wait"
    if isinstance(event, mp.TurnEnd):
        return "turn_end"
    if isinstance(event, mp.Restart):
        return "restart"
    raise TypeError(repr(event))


def _bit(value: bool) -> str:
    return str(int(bool(value)))


def e_record(k: int, event, state: mp.State) -> str:
    counts = dict(state.failures)
    failures = " ".join(
        name(node[0], node[1]) + ":" + str(counts[node]) for node in _sorted_nodes(counts)
    )
    return "\t".join(
        [
            "e",
            str(k),
            str(state.T),
            describe(event),
            _lines(state.view),
            str(view_bytes(state.view)),
            _bit(state.shrinking),
            _lines(state.cview),
            str(view_bytes(state.cview)),
            _bit(state.cshrinking),
            _names(state.merges),
            _names(state.cmerges),
            _names(state.running),
            _names(state.ready),
            _names(mp.waiting_queue(state)),
            _bit(state.waiting),
            _names(_sorted_nodes(state.retry_later)),
            failures if failures else "-",
        ]
    )


_RENDERED: dict[tuple[int, int, bool, str], str] = {}


def _rendered_line(line) -> str:
    # A node's text never changes once built, so its rendered line is cached; the key holds the
    # text, so runs in one process cannot mix.
    key = (line.l, line.i, line.built, line.text)
    text = _RENDERED.get(key)
    if text is None:
        if len(_RENDERED) > 200_000:
            _RENDERED.clear()
        text = rendered(line)
        _RENDERED[key] = text
    return text


def _render(view) -> str:
    """model/view.py `render`, joined once: `render` adds one line at a time, quadratic in the
    view's length, which made long shrinking runs spend most of their time here."""
    return "<chat>\n" + "".join(_rendered_line(line) + "\n" for line in view) + "</chat>"


def _rendered_block(head: str, view) -> list[str]:
    text_lines = _render(view).split("\n")
    return [head + "\t" + str(len(text_lines))] + text_lines


def trace_records(k: int, event, state: mp.State) -> list[str]:
    out = [e_record(k, event, state)]
    merged = state.merges != ()
    if merged:
        out += _rendered_block("r\t" + str(k), state.view)
    if merged:
        nodes = state.running
    elif (k + 1) % CONTEXT_PERIOD == 0:
        nodes = state.running[:1]
    else:
        nodes = ()
    for node in nodes:
        head = "c\t" + str(k) + "\t" + name(node[0], node[1])
        out += _rendered_block(head, context(state.cview, node[0], node[1], state.config.cview_bytes_ceiling))
    if isinstance(event, (mp.Wait, mp.TurnEnd)):
        out += _rendered_block("t\t" + str(k), mp.sent_view(state))
    return out


def end_records(count: int, state: mp.State) -> list[str]:
    return _rendered_block("z\t" + str(count) + "\t" + str(state.T), mp.sent_view(state))
