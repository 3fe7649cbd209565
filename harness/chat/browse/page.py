"""`ever browse`: the whole memory as one self-contained HTML page [optchat gist §10].

The page opens on the view's lines, the ones the next turn sends; each line opens into the two
lines it was made from, down to the message. Each line shows its range, the dates of its first
and last message, the bytes of the messages it covers, and its text.

**Decision B1, the page's shape: the first screen plain, the rest embedded compressed, in parts.**
A chat of 100,000 messages is tens of megabytes of text. The page carries, in this order: the
view's lines with their ranges, dates and sizes (JSON, at most the view's 128 KB and a little);
the script that draws them, which runs as soon as it is parsed, before the rest of the file has
arrived; then one block per part of `PART_MESSAGES` messages (the messages and every node under
the part's level-8 line), gzip'd and base64'd, and one block for the nodes above the parts and the
parts' dates and sizes. A block is decoded (the browser's own `DecompressionStream`) when a line
under it is opened, or when a search runs. So the first screen's bytes are bounded by the view's,
whatever the chat's length; tests/chat/test_browse.py measures the time to it in Chromium.

**Decision B2, a message is text, never markup.** Every text reaches the page through
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
from typing import Dict, List, Optional, Tuple

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
    """JSON that no text inside it can break out of, inside a <script> block [decision B2]."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def collect(store: Store, planner: Planner) -> Tuple[dict, List[dict], dict]:
    """The first screen's data, each part's data, and the top block's, from the store."""
    T = store.count
    nodes_by_part: Dict[int, List[list]] = {}
    top_nodes: List[list] = []
    for l, i, text, _T in store.nodes_after(None):
        if l >= PART_LEVEL:
            top_nodes.append([l, i, text])
        else:
            nodes_by_part.setdefault((i << l) >> PART_LEVEL, []).append([l, i, text])
    parts: List[dict] = []
    spans: List[list] = []  # per part: first date, last date, bytes, messages
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


def page(store: Store, planner: Planner, now: Optional[datetime] = None) -> bytes:
    """The whole page, as bytes [decision B1]."""
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


STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:0 1rem 4rem;color:#222}
header{position:sticky;top:0;background:#fff;border-bottom:1px solid #ddd;padding:.5rem 0;z-index:1}
h1{font-size:1.2rem;margin:.2rem 0}
#status{color:#555;font-size:.9rem}
#search{width:24rem;max-width:60%;font:inherit;padding:.2rem .4rem}
details{margin:.15rem 0 .15rem 0}
details>div.children{margin-left:1.2rem;border-left:2px solid #e4e4e4;padding-left:.5rem}
summary{cursor:pointer;list-style-position:outside}
.id{font-family:ui-monospace,monospace;color:#06c;margin-right:.4rem}
.meta{color:#666;font-size:.85rem;margin-right:.4rem}
.unbuilt{color:#a60;font-style:italic}
.kind{display:inline-block;font-size:.75rem;padding:0 .35rem;border-radius:.6rem;margin-right:.4rem;color:#fff;background:#888}
.kind-line{background:#6a6fb5}.kind-user{background:#2d7d46}.kind-ever{background:#1f5fa8}
.kind-tool{background:#8a5a00}.kind-echo{background:#777}.kind-work{background:#7a3f91}.kind-note{background:#b03a48}
.message{margin:.3rem 0;padding:.3rem .5rem;border:1px solid #e4e4e4;border-radius:.3rem;background:#fafafa}
.message pre{white-space:pre-wrap;word-break:break-word;margin:.3rem 0 0;font:13px/1.35 ui-monospace,monospace}
.sought{outline:2px solid #f5b400}
#results{margin:.5rem 0}
#results a{display:block;color:#222;text-decoration:none;padding:.1rem 0}
#results a:hover{background:#f3f3f3}
.legend .kind{margin-right:.2rem}
"""

BODY = """<header><h1>Ever's memory</h1>
<div id="status">Loading…</div>
<div><input id="search" type="search" placeholder="Search messages and lines" aria-label="Search">
<span id="searching" class="meta"></span></div>
<div class="legend meta">Kinds: <span class="kind kind-line">line</span><span class="kind kind-user">user</span><span class="kind kind-ever">ever</span><span class="kind kind-tool">tool</span><span class="kind kind-echo">echo</span><span class="kind kind-work">work</span><span class="kind kind-note">note</span></div>
</header>
<div id="results"></div>
<div id="notice" class="meta"></div>
<main id="view"></main>
"""

# The page's one script. Every text goes in through textContent [decision B2].
SCRIPT = r"""
"use strict";
const HEAD = JSON.parse(document.getElementById("head").textContent);
const PL = HEAD.part_level, T = HEAD.T;
const loaded = new Map();
const parsed = new Promise(r => document.readyState === "loading"
  ? document.addEventListener("DOMContentLoaded", r) : r());
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
const nodeName = (l, i) => (i * 2 ** l) + "+" + (2 ** l);
const fmtDate = d => d ? d.slice(0, 16).replace("T", " ") : "?";
function fmtBytes(n) {
  if (n < 1000) return n + " B";
  if (n < 1e6) return (n / 1e3).toFixed(1) + " KB";
  return (n / 1e6).toFixed(1) + " MB";
}
async function decode(id) {
  await parsed;
  const block = document.getElementById(id);
  const raw = atob(block.textContent);
  const bytes = new Uint8Array(raw.length);
  for (let k = 0; k < raw.length; k++) bytes[k] = raw.charCodeAt(k);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}
function load(id) {
  if (!loaded.has(id)) loaded.set(id, decode(id).then(data => {
    data.nodes = new Map(data.n.map(([l, i, t]) => [l + "," + i, t]));
    return data;
  }));
  return loaded.get(id);
}
const partOf = first => Math.floor(first / 2 ** PL);
async function nodeData(l, i) {
  // text, first date, last date, bytes of the messages it covers
  const first = i * 2 ** l, last = Math.min((i + 1) * 2 ** l, T) - 1;
  if (l >= PL) {
    const top = await load("top");
    const a = partOf(first), b = partOf(last);
    let bytes = 0;
    for (let k = a; k <= b; k++) bytes += top.spans[k][2];
    const text = top.nodes.get(l + "," + i);
    return [text === undefined ? null : text, top.spans[a][0], top.spans[b][1], bytes];
  }
  const part = await load("p" + partOf(first));
  const base = partOf(first) * 2 ** PL;
  let bytes = 0;
  for (let k = first; k <= last; k++) bytes += part.m[k - base][2];
  const text = part.nodes.get(l + "," + i);
  return [text === undefined ? null : text, part.m[first - base][1], part.m[last - base][1], bytes];
}
function lineElement(l, i, data) {
  const [text, firstDate, lastDate, bytes] = data;
  const first = i * 2 ** l, last = Math.min((i + 1) * 2 ** l, T) - 1;
  const d = el("details", "line");
  d.id = "n" + nodeName(l, i);
  d.dataset.l = l; d.dataset.i = i;
  const s = el("summary");
  s.append(el("span", "kind kind-line", "line"), el("span", "id", nodeName(l, i)),
    el("span", "meta", (first === last ? "message " + first : "messages " + first + "–" + last) +
      " · " + fmtDate(firstDate) + (firstDate === lastDate ? "" : " – " + fmtDate(lastDate)) +
      " · " + fmtBytes(bytes)));
  s.append(text === null ? el("span", "unbuilt", "(not summarized yet)") : el("span", "text", text));
  d.append(s, el("div", "children"));
  d.addEventListener("toggle", () => { if (d.open) fill(d); });
  return d;
}
function messageElement(i, row) {
  const [kind, date, size, text] = row;
  const box = el("div", "message");
  box.id = "m" + i;
  const meta = el("div");
  meta.append(el("span", "kind kind-" + kind, kind), el("span", "id", "#" + i),
    el("span", "meta", fmtDate(date) + " · " + fmtBytes(size)));
  box.append(meta, el("pre", "", text));
  return box;
}
async function fill(d) {
  if (d.dataset.filled) return d.dataset.filled === "yes" ? undefined : d._filling;
  d.dataset.filled = "pending";
  d._filling = (async () => {
    const l = +d.dataset.l, i = +d.dataset.i, box = d.querySelector(":scope > .children");
    if (l === 0) {
      const part = await load("p" + partOf(i));
      box.append(messageElement(i, part.m[i - partOf(i) * 2 ** PL]));
    } else {
      for (const c of [2 * i, 2 * i + 1]) {
        if (c * 2 ** (l - 1) >= T) break;
        box.append(lineElement(l - 1, c, await nodeData(l - 1, c)));
      }
    }
    d.dataset.filled = "yes";
  })();
  return d._filling;
}
function drawView() {
  const main = document.getElementById("view");
  for (const [l, i, text, firstDate, lastDate, bytes] of HEAD.view)
    main.append(lineElement(l, i, [text, firstDate, lastDate, bytes]));
  document.getElementById("status").textContent = T.toLocaleString("en") + " messages · the view: " +
    HEAD.view.length.toLocaleString("en") + " lines, " + fmtBytes(HEAD.view_bytes) +
    " · written " + fmtDate(HEAD.made);
  if (!HEAD.view.length) document.getElementById("notice").textContent = "The chat has no messages yet.";
}
drawView();
performance.mark("first-screen");
async function reveal(hash) {
  const notice = document.getElementById("notice");
  notice.textContent = "";
  let m = /^#m(\d+)$/.exec(hash), target, tl, first;
  if (m) { first = +m[1]; tl = -1; target = "m" + first; }
  else if ((m = /^#n(\d+)\+(\d+)$/.exec(hash))) {
    first = +m[1]; const n = +m[2]; tl = Math.log2(n);
    if (!Number.isInteger(tl) || first % n) { notice.textContent = "No line " + hash.slice(2) + ": n must be a power of 2 and divide the id."; return; }
    target = "n" + first + "+" + n;
  } else return;
  if (first >= T) { notice.textContent = "The chat has messages 0 to " + (T - 1) + "; there is no " + hash.slice(1) + "."; return; }
  let line = null;
  for (const d of document.querySelectorAll("#view > details")) {
    const l = +d.dataset.l, i = +d.dataset.i;
    if (i * 2 ** l <= first && first < (i + 1) * 2 ** l) { line = d; break; }
  }
  if (line === null || +line.dataset.l < tl) { notice.textContent = "Line " + hash.slice(2) + " is above the view's lines; its messages are under them."; }
  while (line !== null && line.id !== target) {
    line.open = true;
    await fill(line);
    const l = +line.dataset.l;
    if (l === 0 || l <= tl) break;
    const child = "n" + nodeName(l - 1, Math.floor(first / 2 ** (l - 1)));
    line = document.getElementById(child);
  }
  const found = document.getElementById(target);
  if (found) {
    if (found.tagName === "DETAILS") found.open = true;
    for (const old of document.querySelectorAll(".sought")) old.classList.remove("sought");
    found.classList.add("sought");
    found.scrollIntoView({block: "center"});
  }
}
window.addEventListener("hashchange", () => reveal(location.hash));
parsed.then(() => { if (location.hash) reveal(location.hash); });
async function search(query) {
  const results = document.getElementById("results"), status = document.getElementById("searching");
  results.replaceChildren();
  const q = query.trim().toLowerCase();
  if (!q) { status.textContent = ""; return; }
  const found = [], LIMIT = 200;
  const add = (href, label, text) => {
    const a = el("a"); a.href = href;
    const at = text.toLowerCase().indexOf(q), from = Math.max(0, at - 60);
    a.append(el("span", "id", label), el("span", "", (from ? "…" : "") + text.slice(from, at + q.length + 100)));
    found.push(a);
  };
  for (let k = 0; k < HEAD.parts && found.length < LIMIT; k++) {
    status.textContent = "searching part " + (k + 1) + " of " + HEAD.parts + "…";
    const part = await load("p" + k);
    part.m.forEach((row, j) => {
      if (found.length < LIMIT && row[3].toLowerCase().includes(q)) add("#m" + (k * 2 ** PL + j), "#" + (k * 2 ** PL + j) + " " + row[0], row[3]);
    });
    for (const [l, i, text] of part.n)
      if (found.length < LIMIT && text.toLowerCase().includes(q)) add("#n" + nodeName(l, i), nodeName(l, i), text);
  }
  const top = await load("top");
  for (const [l, i, text] of top.n)
    if (found.length < LIMIT && text.toLowerCase().includes(q)) add("#n" + nodeName(l, i), nodeName(l, i), text);
  status.textContent = (found.length >= LIMIT ? "the first " : "") + found.length + " found";
  results.append(...found);
}
document.getElementById("search").addEventListener("keydown", e => {
  if (e.key === "Enter") search(e.target.value);
});
"""
