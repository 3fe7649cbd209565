"""`ever browse`: the whole memory as one self-contained HTML page [optchat gist §10].

The page opens on the view's lines, the ones the next turn sends; each line opens into the two
lines it was made from, down to the message. Each line shows its range, the dates of its first
and last message, the bytes of the messages it covers, and its text.

**Decision [B1], the page's shape: the first screen plain, the rest embedded compressed, in parts.**
A chat of 100,000 messages is tens of megabytes of text. The page carries, in this order: the
view's lines with their ranges, dates and sizes (JSON, at most the view's 128 KB and a little);
the script that draws them, which runs as soon as it is parsed, before the rest of the file has
arrived; then one block per part of `PART_MESSAGES` messages (the messages and every node under
the part's level-8 line), gzip'd and base64'd, and one block for the nodes above the parts and the
parts' dates and sizes. A block is decoded (the browser's own `DecompressionStream`) when a line
under it is opened, or when a search runs. So the first screen's bytes are bounded by the view's,
whatever the chat's length; tests/chat/test_browse.py measures the time to it in Chromium.

**Decision [B2], a message is text, never markup.** Every text reaches the page through
`textContent`, never as HTML. The JSON of the first screen has each `<`, `>` and `&` escaped, so
no `</script>` in a message can end its block, and the parts are base64 (no `<` at all). The
page's Content-Security-Policy allows only its own script (by its SHA-256) and its own style, no
network: a `<script>` that found its way into the markup still would not run.

Anchors last: `#m4790` is message 4790, `#n4608+256` the line `4608+256` [gist §2]; opening the
page at one opens the lines down to it.
"""

import base64
import gzip
import hashlib
import html
import json
from datetime import datetime
from importlib.resources import files

from harness.memory.planner import Planner
from harness.memory.store import Store

PART_LEVEL = 8
PART_MESSAGES = 1 << PART_LEVEL  # messages per embedded part: a level-8 line's range
PART_TAG = '<script type="application/x-ever-part" id="'  # where the first screen ends


def compressed(value: object) -> str:
    """JSON, gzip'd (no timestamp, so a page is a function of the chat), base64'd."""
    data = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(gzip.compress(data, compresslevel=3, mtime=0)).decode("ascii")


def inert_json(value: object) -> str:
    """JSON that no text inside it can break out of, inside a <script> block [B2]."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def collect(store: Store, planner: Planner) -> tuple[dict, list[dict], dict]:
    """The first screen's data, each part's data, and the top block's, from the store."""
    T = store.count
    nodes_by_part: dict[int, list[list]] = {}
    top_nodes: list[list] = []
    for l, i, text, _T in store.nodes_after(None):
        if l >= PART_LEVEL:
            top_nodes.append([l, i, text])
        else:
            nodes_by_part.setdefault((i << l) >> PART_LEVEL, []).append([l, i, text])
    parts: list[dict] = []
    spans: list[list] = []  # per part: first date, last date, bytes, messages
    bytes_before = [0]  # bytes of the messages before each part boundary, for the view's lines
    for k in range(0, T, PART_MESSAGES):
        records = store.messages(k, k + PART_MESSAGES)
        rows = [[r["kind"], r["date"], r["size"], r["text"]] for r in records]
        parts.append({"m": rows, "n": nodes_by_part.get(k >> PART_LEVEL, [])})
        total = sum(r["size"] for r in records)
        spans.append([records[0]["date"], records[-1]["date"], total, len(records)])
        bytes_before.append(bytes_before[-1] + total)

    def covered_bytes(first: int, last: int) -> int:
        """Bytes of messages first..last: whole parts from the sums, the ends read."""
        start_part, end_part = first >> PART_LEVEL, last >> PART_LEVEL
        if start_part == end_part:
            rows = parts[start_part]["m"]
            base = start_part << PART_LEVEL
            return sum(row[2] for row in rows[first - base:last - base + 1])
        head = covered_bytes(first, ((start_part + 1) << PART_LEVEL) - 1)
        tail = covered_bytes(end_part << PART_LEVEL, last)
        return head + bytes_before[end_part] - bytes_before[start_part + 1] + tail

    view = []
    for l, i in planner.view.lines():
        first, last = i << l, min(((i + 1) << l) - 1, T - 1)
        view.append([l, i, planner.text(l, i), store.message(first)["date"], store.message(last)["date"],
                     covered_bytes(first, last)])
    head = {
        "T": T,
        "view": view,
        "view_bytes": planner.view.bytes,
        "part_level": PART_LEVEL,
        "parts": len(parts),
        "levels": max(T - 1, 0).bit_length() + 1 if T else 0,
    }
    return head, parts, {"n": top_nodes, "spans": spans}


def page(store: Store, planner: Planner, now: datetime | None = None) -> bytes:
    """The whole page, as bytes [B1]."""
    head, parts, top = collect(store, planner)
    head["made"] = (now or datetime.now().astimezone()).isoformat(timespec="seconds")
    script_hash = base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode()
    style_hash = base64.b64encode(hashlib.sha256(STYLE.encode("utf-8")).digest()).decode()
    policy = (f"default-src 'none'; script-src 'sha256-{script_hash}'; "
              f"style-src 'sha256-{style_hash}'; img-src data:; base-uri 'none'; form-action 'none'")
    pieces = [
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n",
        f'<meta http-equiv="Content-Security-Policy" content="{html.escape(policy)}">\n',
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
        f"<title>Ever's memory: {head['T']:,} messages</title>\n",
        f"<style>{STYLE}</style></head>\n<body>\n",
        BODY,
        f'<script type="application/json" id="head">{inert_json(head)}</script>\n',
        f"<script>{SCRIPT}</script>\n",
        f'{PART_TAG}top">{compressed(top)}</script>\n',
    ]
    for k, part in enumerate(parts):
        pieces.append(f'{PART_TAG}p{k}">{compressed(part)}</script>\n')
    pieces.append("</body></html>\n")
    return "".join(pieces).encode("utf-8")


def first_screen_bytes(data: bytes) -> int:
    """The bytes before the first compressed part: what the browser needs to draw the view."""
    return data.index(PART_TAG.encode())


def asset(name: str) -> str:
    """One of the page's files beside this module (page.css, page.html, page.js), shipped as
    package data."""
    return files(__package__).joinpath(name).read_text(encoding="utf-8")


# Each block opens on a line of its own in the page, as `<style>` and `<script>` are written out.
STYLE = "\n" + asset("page.css")
BODY = asset("page.html")
# The page's one script. Every text goes in through textContent [B2].
SCRIPT = "\n" + asset("page.js")
