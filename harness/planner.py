"""The production planner: which lines merge and when, the compaction view, and the work queue.

The same semantics as the reference model (docs/planner.md), written for speed: built nodes in
per-level lists, each view a dict from first message to level with incremental byte counts, one
heap of mergeable pairs per level, a heap of ready merges keyed by last message, and a deque of
unbuilt level-0 lines. Per event the work is O(levels + jobs_max) plus a batch's merges; only a
batch that merges the chat's view copies it into the compaction view (the model re-derives it
there too) [decision P4].

It reads no clock, no file and no randomness. It never imports model/: the bridge compares the
two on the same events.
"""

import heapq
import json
from collections import deque
from dataclasses import dataclass
from itertools import islice
from typing import Dict, List, Optional, Tuple

from harness.events import Built, Event, Failed, Message, TurnEnd, Wait
from harness.line import LINE_BYTES_MAX, cut, merge_input_cut

Node = Tuple[int, int]
PLACEHOLDER = "(not summarized yet: zoom it)"  # [gist §5] the prompt's words
KINDS = ("user", "ever", "tool", "echo", "work", "note")  # [gist §1] [decision P12]


@dataclass(frozen=True)
class Config:
    view_bytes_ceiling: int = 128_000  # [gist §3.2]
    view_bytes_floor: int = 64_000
    cview_bytes_ceiling: int = 32_000  # [gist §4]
    cview_bytes_floor: int = 16_000
    jobs_max: int = 8  # [gist §4] calls at once, and the level-0 window [decision P6]
    failures_max: int = 3  # [deliberate D5] the last failure builds from the input


def utf8_bytes(text: str) -> int:
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8"))


def node_name(l: int, i: int) -> str:
    """`id+n` [gist §2]."""
    return f"{i << l}+{1 << l}"


def flatten(text: str) -> str:
    """Newlines as spaces, one space per line break [gist §3]."""
    return text.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")


def built_line_bytes(l: int, i: int, text: str) -> int:
    """A built line's cost: `id+n|text` flattened, and its newline [decision P1]."""
    # flatten turns "\r\n" (2 bytes) into one space and any other break into one: only "\r\n"
    # changes the size.
    return len(node_name(l, i)) + 1 + utf8_bytes(text) - text.count("\r\n") + 1


def waiting_line_bytes(i: int) -> int:
    """An unsummarized line costs its rendered placeholder [decision P1]."""
    return len(str(i)) + 3 + len(PLACEHOLDER) + 1


def last_message(l: int, i: int) -> int:
    return ((i + 1) << l) - 1


def more_due(l_a: int, first_a: int, l_b: int, first_b: int, T: int) -> bool:
    """Pair a (two lines of level l_a from message first_a) is more due than pair b.

    due = (T + 1 − first)/2^l, the order of (T − last)/2^l shifted by 2 [gist §3.2], compared
    cross-multiplied, integers only; the oldest of equal pairs wins. Written with `|` and `&`,
    which evaluate every part: so the laws can run this very function on Z3 terms.
    """
    left = (T + 1 - first_a) << l_b
    right = (T + 1 - first_b) << l_a
    return (left > right) | ((left == right) & (first_a < first_b))


class _View:
    """A list of lines tiling messages 0..T−1, keyed by each line's first message.

    `pairs[l]` is a min-heap of the even `i` such that lines (l, i) and (l, i+1) are both in the
    view and their parent is built. A pair enters it the moment the last of those three facts
    becomes true, and leaves only by merging, which always pops a heap's top; so every entry is
    live and no lazy deletion is needed. Within one level the smallest `i` is the most due
    [gist §3.2], so each heap's top is its level's best pair.
    """

    __slots__ = ("level", "line_bytes", "bytes", "pairs")

    def __init__(self) -> None:
        self.level: Dict[int, int] = {}
        self.line_bytes: Dict[int, int] = {}
        self.bytes = 0
        self.pairs: List[List[int]] = []

    def copy(self) -> "_View":
        other = _View()
        other.level = self.level.copy()
        other.line_bytes = self.line_bytes.copy()
        other.bytes = self.bytes
        other.pairs = [heap[:] for heap in self.pairs]
        return other

    def _push_pair(self, l: int, i: int) -> None:
        pairs = self.pairs
        while len(pairs) <= l:
            pairs.append([])
        heapq.heappush(pairs[l], i)

    def add(self, l: int, i: int, line_bytes: int, texts: List[List[Optional[str]]]) -> None:
        first = i << l
        self.level[first] = l
        self.line_bytes[first] = line_bytes
        self.bytes += line_bytes
        sibling = i ^ 1
        if self.level.get(sibling << l) == l:
            parent_level = l + 1
            if parent_level < len(texts):
                parents = texts[parent_level]
                parent = i >> 1
                if parent < len(parents) and parents[parent] is not None:
                    self._push_pair(l, i & ~1)

    def resize(self, first: int, line_bytes: int) -> None:
        self.bytes += line_bytes - self.line_bytes[first]
        self.line_bytes[first] = line_bytes

    def parent_built(self, l: int, i: int) -> None:
        """Node (l, i) is built: its two halves, if both are lines here, can now merge."""
        child_level = l - 1
        level = self.level
        if level.get(i << l) == child_level and level.get(((i << 1) | 1) << child_level) == child_level:
            self._push_pair(child_level, i << 1)

    def fit(self, T: int, budget_bytes: int, texts: List[List[Optional[str]]]) -> List[Node]:
        """Merge the most due pair whose parent is built until within budget [gist §3.2]."""
        merges: List[Node] = []
        pairs = self.pairs
        level = self.level
        line_bytes = self.line_bytes
        while self.bytes > budget_bytes:
            best_l = -1
            best_i = 0
            best_first = 0
            for l in range(len(pairs)):
                heap = pairs[l]
                if not heap:
                    continue
                i = heap[0]
                first = i << l
                if best_l < 0 or more_due(l, first, best_l, best_first, T):
                    best_l, best_i, best_first = l, i, first
            if best_l < 0:
                break
            heapq.heappop(pairs[best_l])
            second = (best_i + 1) << best_l
            self.bytes -= line_bytes.pop(best_first) + line_bytes.pop(second)
            del level[second]
            parent_level = best_l + 1
            parent = best_i >> 1
            parent_text = texts[parent_level][parent]
            self.add(parent_level, parent, built_line_bytes(parent_level, parent, parent_text), texts)
            merges.append((parent_level, parent))
        return merges

    def lines(self) -> List[Node]:
        """The lines in order, oldest first."""
        level = self.level
        return [(level[first], first >> level[first]) for first in sorted(level)]


class Planner:
    """The planner's state and its transition `apply(event)`; see docs/planner.md."""

    def __init__(self, config: Config = Config()) -> None:
        self.config = config
        self.T = 0
        self.texts: List[List[Optional[str]]] = []  # texts[l][i]: node (l, i), None until built
        self.sources: Dict[int, str] = {}  # unbuilt messages' sources: their fallback input
        self.view = _View()
        self.cview = _View()
        self.shrinking = False
        self.cshrinking = False
        self.unbuilt: deque = deque()  # unbuilt level-0 lines, oldest first
        self.unbuilt_set: set = set()
        self.ready: List[Tuple[int, int, int]] = []  # (last message, l, i): idle ready merges
        self.deferred: List[Node] = []  # ready merges that failed since the last message
        self.running: List[Node] = []  # in the order they started
        self.failures: Dict[Node, int] = {}
        self.retry_later: set = set()
        self.waiting = False
        self.merges: List[Node] = []
        self.cmerges: List[Node] = []

    # ---- the tree ----

    def text(self, l: int, i: int) -> Optional[str]:
        texts = self.texts
        if l >= len(texts):
            return None
        level = texts[l]
        if i >= len(level):
            return None
        return level[i]

    def _put(self, l: int, i: int, text: str) -> None:
        texts = self.texts
        while len(texts) <= l:
            texts.append([])
        level = texts[l]
        if i >= len(level):
            level.extend([None] * (i + 1 - len(level)))
        level[i] = text

    def _build(self, l: int, i: int, text: str) -> None:
        """Node (l, i) is built once: show it, leave the queues, ready or build its parent."""
        self._put(l, i, text)
        node = (l, i)
        if l == 0:
            line_bytes = built_line_bytes(0, i, text)
            for view in (self.view, self.cview):
                if view.level.get(i) == 0:
                    view.resize(i, line_bytes)
            if i in self.unbuilt_set:
                self.unbuilt_set.remove(i)
                self.unbuilt.remove(i)  # a built message is within the window: near the left
            self.sources.pop(i, None)
        else:
            self.view.parent_built(l, i)
            self.cview.parent_built(l, i)
        if node in self.running:
            self.running.remove(node)
        self.failures.pop(node, None)
        self.retry_later.discard(node)
        self._ready_parent(l, i)

    def _ready_parent(self, l: int, i: int) -> None:
        level = self.texts[l]
        left_i = i & ~1
        right_i = i | 1
        if right_i >= len(level):
            return
        left = level[left_i]
        right = level[right_i]
        if left is None or right is None:
            return
        joined = left + "\n" + right
        parent = i >> 1
        if utf8_bytes(joined) <= LINE_BYTES_MAX:
            # [gist §2] two short lines joined by a newline: a free node, no call
            self._build(l + 1, parent, joined)
            return
        heapq.heappush(self.ready, (last_message(l + 1, parent), l + 1, parent))

    def input_cut(self, l: int, i: int) -> str:
        """The node's input within 512 bytes: its text after the last failure [deliberate D5]."""
        if l == 0:
            return cut(self.sources[i], LINE_BYTES_MAX)
        a = self.text(l - 1, i << 1)
        b = self.text(l - 1, (i << 1) | 1)
        assert a is not None
        assert b is not None
        return merge_input_cut(a, b)

    # ---- the events ----

    def apply(self, event: Event) -> None:
        """Apply one event, then start calls [gist §3, §4, §6]."""
        self.merges = []
        self.cmerges = []
        kind = type(event)
        if kind is Message:
            self._message(event.kind, event.text)
        elif kind is Built:
            # [decision P7] an outcome of a call that is not running is ignored
            if (event.l, event.i) in self.running:
                self._build(event.l, event.i, event.text)
        elif kind is Failed:
            if (event.l, event.i) in self.running:
                self._failed(event.l, event.i)
        elif kind is Wait:
            self.waiting = True
        elif kind is TurnEnd:
            self.waiting = False
        else:
            raise TypeError(f"not a planner event: {event!r} (a restart is save, then load)")
        self._schedule()

    def _message(self, kind: str, text: str) -> None:
        """Append its line; build it if free; batch [gist §2, §3.2]."""
        i = self.T
        source = kind + ": " + text
        self.T = i + 1
        line_bytes = waiting_line_bytes(i)
        self.view.add(0, i, line_bytes, self.texts)
        self.cview.add(0, i, line_bytes, self.texts)
        # [decision P3] a free node exists with its message, before the ceiling test
        if utf8_bytes(source) <= LINE_BYTES_MAX:
            self._build(0, i, source)
        else:
            self.sources[i] = source
            self.unbuilt.append(i)
            self.unbuilt_set.add(i)
        self._batch()
        # [gist §4] a failed call is tried again at the next message
        self.retry_later.clear()
        for node in self.deferred:
            heapq.heappush(self.ready, (last_message(node[0], node[1]), node[0], node[1]))
        self.deferred = []

    def _batch(self) -> None:
        """Past the ceiling merge down to the floor, and go on at each message while above it
        [gist §3.2] [fix F1]; the compaction view follows [gist §4] [decision P4]."""
        c = self.config
        T = self.T
        view = self.view
        # [decision P2] the ceiling test sees the new line
        shrinking = self.shrinking or view.bytes > c.view_bytes_ceiling
        merges: List[Node] = []
        if shrinking:
            merges = view.fit(T, c.view_bytes_floor, self.texts)
            shrinking = view.bytes > c.view_bytes_floor
        self.shrinking = shrinking
        self.merges = merges
        if merges:
            # [decision P4] merged again, from the chat's view, when the chat's view merges
            cview = view.copy()
            self.cmerges = cview.fit(T, c.cview_bytes_floor, self.texts)
            self.cview = cview
            self.cshrinking = cview.bytes > c.cview_bytes_floor
            return
        cview = self.cview
        cshrinking = self.cshrinking or cview.bytes > c.cview_bytes_ceiling
        if cshrinking:
            self.cmerges = cview.fit(T, c.cview_bytes_floor, self.texts)
            cshrinking = cview.bytes > c.cview_bytes_floor
        self.cshrinking = cshrinking

    def _failed(self, l: int, i: int) -> None:
        node = (l, i)
        count = self.failures.get(node, 0) + 1
        if count >= self.config.failures_max:
            # [deliberate D5] the last failure builds the node from its input
            self._build(l, i, self.input_cut(l, i))
            return
        self.running.remove(node)
        self.failures[node] = count
        self.retry_later.add(node)
        if l > 0:
            self.deferred.append(node)

    # ---- the work queue ----

    def _schedule(self) -> None:
        """Start calls up to jobs_max: the window's messages, oldest first, then ready merges by
        last message [gist §4] [decision P5, P6]; while a turn waits only the view's unbuilt
        lines run [decision P8]."""
        jobs_max = self.config.jobs_max
        unbuilt = self.unbuilt
        waiting = self.waiting and len(unbuilt) > 0
        self.waiting = waiting
        running = self.running
        if waiting:
            kept = []
            for node in running:
                if node[0] == 0 and node[1] in self.unbuilt_set:
                    kept.append(node)
                else:
                    # a stopped call is no failure: back to its queue
                    heapq.heappush(self.ready, (last_message(node[0], node[1]), node[0], node[1]))
            if len(kept) != len(running):
                running = kept
                self.running = kept
        slots = jobs_max - len(running)
        if slots <= 0:
            return
        retry_later = self.retry_later
        for i in islice(unbuilt, jobs_max):
            node = (0, i)
            if node in running:
                continue
            if not waiting and node in retry_later:
                continue
            running.append(node)
            slots -= 1
            if slots == 0:
                return
        if waiting:
            return
        ready = self.ready
        while slots > 0 and ready:
            _, l, i = heapq.heappop(ready)
            running.append((l, i))
            slots -= 1

    def waiting_queue(self) -> List[Node]:
        """The calls that would run if a turn started waiting now."""
        if not self.unbuilt:
            return list(self.running)
        kept = [node for node in self.running if node[0] == 0 and node[1] in self.unbuilt_set]
        slots = self.config.jobs_max - len(kept)
        for i in islice(self.unbuilt, self.config.jobs_max):
            if slots <= 0:
                break
            node = (0, i)
            if node in kept:
                continue
            kept.append(node)
            slots -= 1
        return kept

    def ready_merges(self) -> List[Node]:
        """Every merge whose halves are built, by last message [decision P5]: idle, deferred
        after a failure, or running."""
        nodes = [(l, i) for _, l, i in self.ready]
        nodes.extend(self.deferred)
        nodes.extend(node for node in self.running if node[0] > 0)
        nodes.sort(key=lambda node: last_message(node[0], node[1]))
        return nodes

    # ---- what calls see ----

    def built(self, l: int, i: int) -> bool:
        return self.text(l, i) is not None

    def rendered(self, l: int, i: int) -> str:
        text = self.text(l, i)
        if text is None:
            return f"{i}+1|{PLACEHOLDER}"
        return node_name(l, i) + "|" + flatten(text)

    def render(self, lines: Optional[List[Node]] = None) -> str:
        """The view as every call gets it [gist §3]."""
        if lines is None:
            lines = self.view.lines()
        body = "".join(self.rendered(l, i) + "\n" for l, i in lines)
        return "<chat>\n" + body + "</chat>"

    def context(self, l: int, i: int) -> List[Node]:
        """A compaction's view: the compaction view's lines that end by the node's end, up to
        the first unbuilt line [gist §4] [fix F2]."""
        end = i - 1 if l == 0 else last_message(l, i)
        lines = []
        for line_l, line_i in self.cview.lines():
            if last_message(line_l, line_i) > end or not self.built(line_l, line_i):
                break
            lines.append((line_l, line_i))
        return lines

    # ---- what a restart keeps [fix F1] [decision P10, P11] ----

    def save(self) -> str:
        """The durable state as JSON text: view.json's fields (T, both views as [l, i] pairs,
        both shrinking flags), with the tree's texts and the unbuilt messages' sources, which
        the product reads from the tree log and the message log."""
        tree = []
        for l, level in enumerate(self.texts):
            for i, text in enumerate(level):
                if text is not None:
                    tree.append([l, i, text])
        return json.dumps(
            {
                "config": [
                    self.config.view_bytes_ceiling,
                    self.config.view_bytes_floor,
                    self.config.cview_bytes_ceiling,
                    self.config.cview_bytes_floor,
                    self.config.jobs_max,
                    self.config.failures_max,
                ],
                "T": self.T,
                "view": [[l, i] for l, i in self.view.lines()],
                "cview": [[l, i] for l, i in self.cview.lines()],
                "shrinking": self.shrinking,
                "cshrinking": self.cshrinking,
                "tree": tree,
                "sources": [[i, self.sources[i]] for i in sorted(self.sources)],
            },
            ensure_ascii=False,
        )

    @classmethod
    def load(cls, saved: str) -> "Planner":
        """A new process: the saved views are loaded, never rebuilt [gist §3.2, §7.3]; running
        calls, failure counts and a waiting turn died with the old one; the ready queue is
        rebuilt from the tree [decision P11]; then calls start."""
        data = json.loads(saved)
        planner = cls(Config(*data["config"]))
        planner.T = data["T"]
        for l, i, text in data["tree"]:
            planner._put(l, i, text)
        planner.sources = {i: source for i, source in data["sources"]}
        planner.view = planner._loaded_view(data["view"])
        planner.cview = planner._loaded_view(data["cview"])
        planner.shrinking = data["shrinking"]
        planner.cshrinking = data["cshrinking"]
        for l, i in data["view"]:
            if l == 0 and not planner.built(0, i):
                planner.unbuilt.append(i)
                planner.unbuilt_set.add(i)
        texts = planner.texts
        for l in range(len(texts)):
            level = texts[l]
            for i in range(0, len(level) - 1, 2):
                if level[i] is not None and level[i + 1] is not None and not planner.built(l + 1, i >> 1):
                    planner.ready.append((last_message(l + 1, i >> 1), l + 1, i >> 1))
        heapq.heapify(planner.ready)
        planner._schedule()
        return planner

    def _loaded_view(self, pairs: List[List[int]]) -> _View:
        view = _View()
        for l, i in pairs:
            text = self.text(l, i)
            line_bytes = waiting_line_bytes(i) if text is None else built_line_bytes(l, i, text)
            view.add(l, i, line_bytes, self.texts)
        return view
