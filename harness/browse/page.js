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
  // a chat is read from its end: the page opens at the newest line, unless an anchor says where
  if (!location.hash && main.lastElementChild) main.lastElementChild.scrollIntoView({block: "end"});
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
// search: the hits listed in the header, which stays on screen; the first one opened where the
// reader is (its lines opened down to it, scrolled to the middle, the words marked), and
// Next / Previous (Enter / Shift-Enter in the box) step through the rest
const hits = {list: [], at: -1, query: ""};
function unmark() {
  for (const m of document.querySelectorAll("mark.hit")) {
    const parent = m.parentNode;
    m.replaceWith(...m.childNodes);
    parent.normalize();
  }
}
function markIn(box, q) {
  // the first place the words are, wrapped in a <mark> by a Range: the text stays text
  const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.data.toLowerCase().indexOf(q);
    if (at < 0) continue;
    const range = document.createRange();
    range.setStart(node, at); range.setEnd(node, at + q.length);
    const mark = el("mark", "hit");
    range.surroundContents(mark);
    return mark;
  }
  return null;
}
async function showHit(k) {
  const {list} = hits;
  if (!list.length) return;
  hits.at = (k + list.length) % list.length;
  const link = list[hits.at], href = link.getAttribute("href");
  for (const old of document.querySelectorAll("#results a.current")) old.classList.remove("current");
  link.classList.add("current");
  link.scrollIntoView({block: "nearest"});
  history.replaceState(null, "", href);
  await reveal(href);
  unmark();
  const found = document.querySelector(".sought");
  if (found) {
    const box = found.tagName === "DETAILS" ? found.querySelector(":scope > summary") : found;
    const mark = markIn(box, hits.query);
    (mark || found).scrollIntoView({block: "center"});
  }
  document.getElementById("searching").textContent = (hits.at + 1) + " of " + hits.total;
}
async function search(query) {
  const results = document.getElementById("results"), status = document.getElementById("searching");
  results.replaceChildren();
  hits.list = []; hits.at = -1; unmark();
  const q = query.trim().toLowerCase();
  hits.query = q;
  document.getElementById("stepper").hidden = true;
  if (!q) { status.textContent = ""; return; }
  const found = [], LIMIT = 200;
  const add = (href, label, text) => {
    const a = el("a"); a.href = href;
    const at = text.toLowerCase().indexOf(q), from = Math.max(0, at - 60);
    a.append(el("span", "id", label), el("span", "", (from ? "…" : "") + text.slice(from, at + q.length + 100)));
    a.addEventListener("click", e => { e.preventDefault(); showHit(found.indexOf(a)); });
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
  hits.total = (found.length >= LIMIT ? "the first " : "") + found.length + " found";
  status.textContent = hits.total;
  results.append(...found);
  hits.list = found;
  document.getElementById("stepper").hidden = !found.length;
  if (found.length) await showHit(0);
}
document.getElementById("search").addEventListener("keydown", e => {
  if (e.key !== "Enter") return;
  const q = e.target.value.trim().toLowerCase();
  if (q && q === hits.query && hits.list.length) showHit(hits.at + (e.shiftKey ? -1 : 1));
  else search(e.target.value);
});
document.getElementById("next").addEventListener("click", () => showHit(hits.at + 1));
document.getElementById("previous").addEventListener("click", () => showHit(hits.at - 1));
