"""The production planner: which lines merge and when, the compaction view, and the work queue.

The same semantics as the reference model (docs/planner.md), written for speed: each view a dict
from first message to level with incremental byte counts, one heap of mergeable pairs per level, a
heap of ready merges keyed by last message, and a deque of unbuilt level-0 lines. Per event the
work is O(levels + jobs_max) plus a batch's merges; only a batch that merges the chat's view
copies it into the compaction view (the model re-derives it there too) [P4].

Its memory is O(view + work in flight), whatever the chat's length: node texts live in a `Texts`
store (harness/memory/texts.py: the tree files in the product, `MemoryTexts` in the bridge), which the planner asks for the
few it needs (a merge's halves, a line's size, the view's lines to render, a compaction's
context); it keeps which nodes are built as a watermark per level and the few built beyond it.
The nodes an event builds are handed to the store once, at the end of the event. What a
restart keeps, and how a new process takes it up, is harness/memory/checkpoint.py.

It reads no clock, no file and no randomness (a `Texts` store is the caller's). It never imports
model/: the bridge compares the two on the same events.
"""

import heapq
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice

from harness.memory.checkpoint import fields_of, is_due, restore, taken
from harness.memory.events import KINDS, Built, Event, Failed, Message, Retry, TurnEnd, Wait
from harness.memory.line import LINE_BYTES_MAX, capped_line, capped_merge
from harness.memory.texts import LEVELS_MAX, BuiltNodes, MemoryTexts, Node, Texts
from harness.memory.view_text import (
    HEAD_TAIL_BYTES,
    PLACEHOLDER,
    PLACEHOLDER_BYTES_MAX,
    Entry,
    built_line_bytes,
    has_lone_surrogate,
    joined_sizes,
    node_name,
    shown,
    text_sizes,
    waiting_line_bytes,
)

KIND_SET = frozenset(KINDS)


@dataclass(frozen=True)
class Config:
    view_bytes_ceiling: int = 128_000  # [gist §3.2]
    view_bytes_floor: int = 64_000
    cview_bytes_ceiling: int = 32_000  # [gist §4]
    cview_bytes_floor: int = 16_000
    jobs_max: int = 8  # [gist §4] calls at once, and the level-0 window [P6]
    failures_max: int = 3  # [D5] the last failed try builds a marked line [P16]


# An unbuilt message's line is counted in the chat's view at its reserve, `i+1|`, 512 bytes and the
# newline [P1], and in a turn's view at its placeholder's, `i+1|`, 128 bytes and the newline
# [P22]: 384 bytes less.
RESERVE_OVER_PLACEHOLDER = LINE_BYTES_MAX - PLACEHOLDER_BYTES_MAX
# [P26] the turn's view is looked at again once this many merges have started while it folds
SHOWN_STARTS_MAX = 256


def placeholder_line_bytes(l: int, i: int) -> int:
    """Node (l, i) shown as its placeholder, and its newline: a line of the view one turn sends,
    counted at the most its placeholder may weigh [P19] [P22]."""
    return len(str(i << l)) + HEAD_TAIL_BYTES[l] + PLACEHOLDER_BYTES_MAX


def last_message(l: int, i: int) -> int:
    return ((i + 1) << l) - 1


class _View:
    """A list of lines tiling messages 0..T−1, keyed by each line's first message.

    `pairs[l]` is a min-heap of the even `i` such that lines (l, i) and (l, i+1) are both in the
    view and their parent is built. A pair enters it the moment the last of those three facts
    becomes true, which happens once (a line only ever merges upward, and a node is built once),
    and leaves only by merging, which always pops a heap's top; so every entry is live, none is
    there twice, and no lazy deletion is needed. Within one level the smallest `i` is the most due
    [gist §3.2], so each heap's top is its level's best pair.
    """

    __slots__ = ("level", "line_bytes", "bytes", "pairs")

    def __init__(self) -> None:
        self.level: dict[int, int] = {}
        self.line_bytes: dict[int, int] = {}
        self.bytes = 0
        self.pairs: list[list[int]] = [[] for _ in range(LEVELS_MAX)]

    def copy(self) -> "_View":
        other = _View.__new__(_View)  # not __init__: its empty heaps are replaced at once
        other.level = self.level.copy()
        other.line_bytes = self.line_bytes.copy()
        other.bytes = self.bytes
        other.pairs = [heap[:] for heap in self.pairs]
        return other

    def _push_pair(self, l: int, i: int) -> None:
        heapq.heappush(self.pairs[l], i)

    @staticmethod
    def entry(l: int, first: int, T: int) -> tuple[int, int, int]:
        """The batch heap's entry for level l's best pair, whose first message is `first`: its
        due (T + 1 − first)/2^l, the order of (T − last)/2^l shifted by 2 [gist §3.2], times
        2^LEVELS_MAX (an integer, exact for every level below LEVELS_MAX), negated so the heap's
        least is the most due; then `first`, so the oldest of equal pairs comes first. `fit`
        pushes only these; `heap_keys_order_as_more_due` proves their order on this function."""
        return (-((T + 1 - first) << (LEVELS_MAX - l)), first, l)

    def add(self, l: int, i: int, line_bytes: int, built: BuiltNodes) -> None:
        first = i << l
        self.level[first] = l
        self.line_bytes[first] = line_bytes
        self.bytes += line_bytes
        sibling = i ^ 1
        if self.level.get(sibling << l) == l and built.has(l + 1, i >> 1):
            self._push_pair(l, i & ~1)

    def fit(self, T: int, budget_bytes: int, planner: "Planner") -> list[Node]:
        """Merge the most due pair whose parent is built until within budget [gist §3.2].

        Each level's best pair (its heap's top) is an entry of one more heap, made by
        `entry`: a merge changes only two tops, its level's and the level above's (where its
        parent may make a pair), and T stays, so each merge pushes at most two entries, in C,
        instead of comparing every level's top (`heap_keys_order_as_more_due` proves the
        entries' order is the model's `more_due`, the oldest of equal pairs first). `add` and
        `_push_pair` are written out in the loop, which runs for every merge of both views."""
        merges: list[Node] = []
        total = self.bytes
        if total <= budget_bytes:
            return merges
        pairs = self.pairs
        level = self.level
        line_bytes = self.line_bytes
        parent_bytes = planner.line_bytes
        watermarks = planner.built_nodes.watermarks
        beyond = planner.built_nodes.beyond
        heappop = heapq.heappop
        heappush = heapq.heappush
        heap_entry = _View.entry
        # a cache entry never changes: if the cache starts afresh during the batch, the old
        # dict still answers right, and what it lacks `parent_bytes` reads
        recent_get = planner._recent.get
        # each level's top pair as its `entry`: the heap's least is the most due pair, the
        # oldest of equal ones. A level whose top changes gets a new entry; an entry whose pair
        # is no longer its level's top is dropped when it comes up.
        best: list[tuple[int, int, int]] = []
        for l, heap in enumerate(pairs):
            if heap:
                first = heap[0] << l
                best.append(heap_entry(l, first, T))
        heapq.heapify(best)
        while best and total > budget_bytes:
            _, best_first, best_l = heappop(best)
            heap = pairs[best_l]
            if not heap or heap[0] << best_l != best_first:
                continue
            best_i = heappop(heap)
            second = (best_i + 1) << best_l
            total -= line_bytes.pop(best_first) + line_bytes.pop(second)
            del level[second]
            if heap:
                first = heap[0] << best_l
                heappush(best, heap_entry(best_l, first, T))
            parent_level = best_l + 1
            parent = best_i >> 1
            entry = recent_get((parent << 6) | parent_level)
            parent_line_bytes = entry[3] if entry is not None else parent_bytes(parent_level, parent)
            level[best_first] = parent_level
            line_bytes[best_first] = parent_line_bytes
            total += parent_line_bytes
            merges.append((parent_level, parent))
            # the parent and its sibling make a pair if the node above them is built
            grandparent = parent >> 1
            if (level.get((parent ^ 1) << parent_level) == parent_level
                    and (grandparent < watermarks[parent_level + 1] or grandparent in beyond[parent_level + 1])):
                pair_i = parent & ~1
                above = pairs[parent_level]
                heappush(above, pair_i)
                if above[0] == pair_i:  # a new top for its level
                    first = pair_i << parent_level
                    heappush(best, heap_entry(parent_level, first, T))
        self.bytes = total
        return merges

    def lines(self) -> list[Node]:
        """The lines in order, oldest first."""
        level = self.level
        return [(level[first], first >> level[first]) for first in sorted(level)]


class _Coarse:
    """What `_View.fit` asks of a planner, for the last step of a turn's view [P19]:
    every parent can take a pair's place, its line when it is built, else its placeholder."""

    def __init__(self, planner: "Planner") -> None:
        self.planner = planner
        self.built_nodes = BuiltNodes()
        self.built_nodes.watermarks = [1 << 62] * (LEVELS_MAX + 1)
        self._recent: dict[int, Entry] = {}

    def line_bytes(self, l: int, i: int) -> int:
        if self.planner.built(l, i):
            return self.planner.line_bytes(l, i)
        return placeholder_line_bytes(l, i)


class Planner:
    """The planner's state and its transition `apply(event)`; see docs/planner.md."""

    def __init__(self, config: Config = Config(), texts: Texts | None = None) -> None:
        self.config = config
        self.T = 0
        self.texts: Texts = MemoryTexts() if texts is None else texts
        self.built_nodes = BuiltNodes()
        self.built_now: list[tuple[int, int, str]] = []  # this event's nodes, until recorded
        self._recent: dict[int, Entry] = {}  # nodes read or built lately, keyed (i << 6) | l: a bounded cache
        self.view = _View()
        self.cview = _View()
        self.shrinking = False
        self.cshrinking = False
        self.unbuilt: deque = deque()  # unbuilt level-0 lines, oldest first
        self.unbuilt_set: set = set()
        self.ready: list[tuple[int, int, int]] = []  # (last message, l, i): idle ready merges
        self.ready_set: set[Node] = set()  # the same nodes, to keep each in the heap once
        self.deferred: list[Node] = []  # ready merges that failed since the last message
        self.running: list[Node] = []  # in the order they started
        self.failures: dict[Node, int] = {}
        self.retry_later: set = set()
        self.waiting = False
        self.shown: set[Node] = set()  # the turn's view's placeholders when last looked at [P26]
        self.shown_starts = -1  # merges started since; −1: not looked at while it folds
        self.merges: list[Node] = []
        self.cmerges: list[Node] = []
        self.lines_since_save = 0  # messages and nodes logged since the last checkpoint
        self.failures_saved: dict[Node, int] = {}

    # ---- the tree ----

    RECENT_MAX = 20_000  # texts kept in memory: about two views' worth of lines

    def _entry(self, l: int, i: int) -> Entry | None:
        """Node (l, i)'s text, its UTF-8 bytes, its shown bytes and its line's bytes in a
        view, or None while it is not built: counted once, when the node is built or its text
        read from the store, not each time a batch asks [P1]."""
        key = (i << 6) | l  # one integer hashes faster than a pair; LEVELS_MAX is 2^6
        entry = self._recent.get(key)
        if entry is not None:
            return entry
        if not self.built_nodes.has(l, i):
            return None
        text = self.texts.node(l, i)
        if text is None:
            raise LookupError(f"node {node_name(l, i)} is built but its store has no text")
        size_bytes, shown_bytes = text_sizes(text)
        entry = (text, size_bytes, shown_bytes, built_line_bytes(l, i, shown_bytes))
        self._remember(key, entry)
        return entry

    def _remember(self, key: int, entry: Entry) -> None:
        recent = self._recent
        if len(recent) >= self.RECENT_MAX:
            recent = self._forget_recent()
        recent[key] = entry

    def _forget_recent(self) -> dict[int, Entry]:
        # the texts of this event's nodes are not in the store yet: keep them
        recent = self._recent
        recent = {(i << 6) | l: recent[(i << 6) | l] for l, i, _ in self.built_now}
        self._recent = recent
        return recent

    def text(self, l: int, i: int) -> str | None:
        entry = self._entry(l, i)
        return None if entry is None else entry[0]

    def line_bytes(self, l: int, i: int) -> int:
        """A built node's line size in a view [P1]."""
        entry = self._recent.get((i << 6) | l) or self._entry(l, i)
        assert entry is not None
        return entry[3]

    def _build(self, l: int, i: int, text: str, sizes: tuple[int, int] | None = None) -> None:
        """Node (l, i) is built once: show it, ready or build its parent. `sizes` are the text's
        `text_sizes` when the caller has counted them. A node a call built leaves the queues
        first (`_leave_queues`); a free node never ran, failed or waited. Every event runs it
        once or more: the helpers it needs are written out."""
        size_bytes, shown_bytes = text_sizes(text) if sizes is None else sizes
        first = i << l
        line_bytes = len(str(first)) + HEAD_TAIL_BYTES[l] + shown_bytes  # built_line_bytes
        built = self.built_nodes
        watermarks = built.watermarks
        mark = watermarks[l]
        if i < mark or (i > mark and i in built.beyond[l]):
            # built before (a log replayed at start): its line, pairs and parent were seen to then
            return
        if i == mark and not built.beyond[l]:
            watermarks[l] = i + 1  # the next in order, as most are
        else:
            built.add(l, i)
        recent = self._recent
        if len(recent) >= self.RECENT_MAX:
            recent = self._forget_recent()
        own = (text, size_bytes, shown_bytes, line_bytes)
        recent[(i << 6) | l] = own
        self.built_now.append((l, i, text))
        if l == 0:
            # the line shows its summary now, and costs what it shows [P1]
            view = self.view
            if view.level.get(i) == 0:
                view.bytes += line_bytes - view.line_bytes[i]
                view.line_bytes[i] = line_bytes
            view = self.cview
            if view.level.get(i) == 0:
                view.bytes += line_bytes - view.line_bytes[i]
                view.line_bytes[i] = line_bytes
            unbuilt_set = self.unbuilt_set
            if i in unbuilt_set:
                unbuilt_set.remove(i)
                self.unbuilt.remove(i)  # a built message is within the window: near the left
        else:
            # its halves, if both are lines of a view, can merge there now
            child_level = l - 1
            right_first = ((i << 1) | 1) << child_level
            level = self.view.level
            if level.get(first) == child_level and level.get(right_first) == child_level:
                self.view._push_pair(child_level, i << 1)
            level = self.cview.level
            if level.get(first) == child_level and level.get(right_first) == child_level:
                self.cview._push_pair(child_level, i << 1)
        # its parent: built at once if free [gist §2], else ready to merge
        sibling_i = i ^ 1
        sibling = self._recent.get((sibling_i << 6) | l)
        if sibling is None:
            if not (sibling_i < watermarks[l] or sibling_i in built.beyond[l]):
                return
            sibling = self._entry(l, sibling_i)
        left, right = (own, sibling) if sibling_i & 1 else (sibling, own)
        if left[1] + 1 + right[1] <= LINE_BYTES_MAX:
            # [gist §2] two short lines joined by a newline: a free node, no call
            self._build(l + 1, i >> 1, left[0] + "\n" + right[0], joined_sizes(left, right))
            return
        self._push_ready(l + 1, i >> 1)

    def _leave_queues(self, node: Node) -> None:
        """A node a call built, or a logged one replayed, is no longer running, failed or due
        for a retry."""
        running = self.running
        if node in running:
            running.remove(node)
        if self.failures:
            self.failures.pop(node, None)
        if self.retry_later:
            self.retry_later.discard(node)

    def _ready_parent(self, l: int, i: int) -> None:
        """At a restart: node (l, i)'s parent, if both halves are built, as `_build` readies it."""
        sibling = self._entry(l, i ^ 1)
        own = self._entry(l, i)
        if sibling is None or own is None:
            return
        left, right = (own, sibling) if i & 1 == 0 else (sibling, own)
        if left[1] + 1 + right[1] <= LINE_BYTES_MAX:
            self._build(l + 1, i >> 1, left[0] + "\n" + right[0])
            return
        self._push_ready(l + 1, i >> 1)

    def _push_ready(self, l: int, i: int) -> None:
        node = (l, i)
        if node in self.ready_set or node in self.running or self.built_nodes.has(l, i):
            return
        self.ready_set.add(node)
        heapq.heappush(self.ready, (last_message(l, i), l, i))

    def capped_text(self, l: int, i: int) -> str:
        """The node's text after its last allowed failure: a mark and its input cut
        [D5] [P16]."""
        if l == 0:
            kind, text = self.texts.message(i)
            return capped_line(kind + ": " + text)
        a = self.text(l - 1, i << 1)
        b = self.text(l - 1, (i << 1) | 1)
        assert a is not None
        assert b is not None
        return capped_merge(a, b)

    # ---- the events ----

    def apply(self, event: Event) -> None:
        """Apply one event, then start calls [gist §3, §4, §6]."""
        if self.merges:
            self.merges = []
        if self.cmerges:
            self.cmerges = []
        kind = type(event)
        if kind is Message:
            message_kind, text = event
            if message_kind not in KIND_SET:
                raise ValueError(f"not a message kind: {message_kind!r} (one of {', '.join(KINDS)})")
            # a text that may be its own line is counted whole, once; a longer one is only
            # checked: more than 512 characters are more than 512 bytes, so never a free node
            if len(text) <= LINE_BYTES_MAX:
                sizes = text_sizes(text)
            else:
                sizes = (-1, -1) if has_lone_surrogate(text) else (len(text), -1)
            if sizes[0] < 0:
                raise ValueError("a message's text has a lone surrogate: pass it through harness.memory.text.valid_text first")
            self._message(message_kind, text, sizes)
        elif kind is Built:
            l, i, text = event
            sizes = text_sizes(text)
            if sizes[0] < 0:
                raise ValueError("a built line has a lone surrogate: pass it through harness.memory.text.valid_text first")
            if not 0 < sizes[0] <= LINE_BYTES_MAX:
                raise ValueError(f"a built line is 1 to {LINE_BYTES_MAX} bytes, not {sizes[0]}")
            # [P7] an outcome of a call that is not running is ignored
            node = (l, i)
            if node in self.running:
                self._leave_queues(node)
                self._build(l, i, text, sizes)
        elif kind is Failed:
            if (event.l, event.i) in self.running:
                self._failed(event.l, event.i)
        elif kind is Retry:
            self._retry()
        elif kind is Wait:
            self.waiting = True
        elif kind is TurnEnd:
            self.waiting = False
        else:
            raise TypeError(f"not a planner event: {event!r} (a restart is a checkpoint, then load)")
        self._schedule()
        built_now = self.built_now
        if built_now:  # `_record_built`, written out: most events build a node
            self.texts.record_nodes(built_now, self.T)
            self.lines_since_save += len(built_now)
            self.built_now = []

    def _record_built(self) -> None:
        """Hand this event's new nodes to the store, once, in build order."""
        if self.built_now:
            self.texts.record_nodes(self.built_now, self.T)
            self.lines_since_save += len(self.built_now)
            self.built_now = []

    def _message(self, kind: str, text: str, sizes: tuple[int, int]) -> None:
        """Append its line; build it if free; batch [gist §2, §3.2]."""
        i = self.T
        head_bytes = len(kind) + 2
        self.T = i + 1
        self.texts.record_message(i, kind, text)
        self.lines_since_save += 1
        line_bytes = len(str(i)) + 4 + LINE_BYTES_MAX  # waiting_line_bytes, written out
        # no pair yet: its parent is built only after the line itself
        view = self.view
        view.level[i] = 0
        view.line_bytes[i] = line_bytes
        view.bytes += line_bytes
        view = self.cview
        view.level[i] = 0
        view.line_bytes[i] = line_bytes
        view.bytes += line_bytes
        # [P3] a free node exists with its message, before the ceiling test
        if head_bytes + sizes[0] <= LINE_BYTES_MAX:
            # `kind: ` is ASCII, with nothing to flatten or escape, and ends in a space: nothing in it
            # joins the text's first character (a "\n" to pair, a task mark's letters)
            self._build(0, i, kind + ": " + text, (head_bytes + sizes[0], head_bytes + sizes[1]))
        else:
            self.unbuilt.append(i)
            self.unbuilt_set.add(i)
        c = self.config
        if (self.shrinking or self.view.bytes > c.view_bytes_ceiling
                or self.cshrinking or self.cview.bytes > c.cview_bytes_ceiling):
            self._batch()  # else it would merge nothing and leave both views not shrinking
        # [gist §4] a failed call is tried again at the next message
        if self.retry_later or self.deferred:
            self._retry()

    def _retry(self) -> None:
        """Failed nodes are candidates again: at a message, or at a `Retry` [P8]."""
        if self.retry_later:
            self.retry_later.clear()
        if self.deferred:
            for node in self.deferred:
                self._push_ready(node[0], node[1])
            self.deferred = []

    def _batch(self) -> None:
        """Past the ceiling merge down to the floor, and go on at each message while above it
        [gist §3.2] [F1]; the compaction view follows [gist §4] [P4]."""
        c = self.config
        T = self.T
        view = self.view
        # [P2] the ceiling test sees the new line
        shrinking = self.shrinking or view.bytes > c.view_bytes_ceiling
        merges: list[Node] = []
        if shrinking:
            merges = view.fit(T, c.view_bytes_floor, self)
            shrinking = view.bytes > c.view_bytes_floor
        self.shrinking = shrinking
        self.merges = merges
        if merges:
            # [P4] merged again, from the chat's view, when the chat's view merges
            cview = view.copy()
            self.cmerges = cview.fit(T, c.cview_bytes_floor, self)
            self.cview = cview
            self.cshrinking = cview.bytes > c.cview_bytes_floor
            return
        cview = self.cview
        cshrinking = self.cshrinking or cview.bytes > c.cview_bytes_ceiling
        if cshrinking:
            self.cmerges = cview.fit(T, c.cview_bytes_floor, self)
            cshrinking = cview.bytes > c.cview_bytes_floor
        self.cshrinking = cshrinking

    def _failed(self, l: int, i: int) -> None:
        node = (l, i)
        count = self.failures.get(node, 0) + 1
        if count >= self.config.failures_max:
            # [D5] the last allowed failure builds a marked line [P16]
            self._leave_queues(node)
            self._build(l, i, self.capped_text(l, i))
            return
        self.running.remove(node)
        self.failures[node] = count
        self.retry_later.add(node)
        if l > 0:
            self.deferred.append(node)

    # ---- the work queue ----

    def _window_candidates(self, running: list[Node]) -> list[Node]:
        """The window's lines that may start: not running, not waiting for a retry."""
        busy = {i for l, i in running if l == 0}
        retry_later = self.retry_later
        if retry_later:
            busy.update(i for l, i in retry_later if l == 0)
        return [(0, i) for i in islice(self.unbuilt, self.config.jobs_max) if i not in busy]

    def _free_slots_for(self, running: list[Node], candidates: list[Node]) -> list[Node]:
        """While a turn waits, stop as few merges as the window's lines need slots for, the
        youngest first [P8]; returns the stopped ones."""
        short = len(candidates) - (self.config.jobs_max - len(running))
        stopped = []
        k = len(running) - 1
        while short > 0 and k >= 0:
            if running[k][0] > 0:
                stopped.append(running.pop(k))
                short -= 1
            k -= 1
        return stopped

    def _schedule(self) -> None:
        """Start calls up to jobs_max: the window's messages, oldest first, then ready merges by
        last message [gist §4] [P5] [P6]; while a turn waits only the view's unbuilt
        lines start, and merges stop only for their slots [P8]."""
        unbuilt = self.unbuilt
        if unbuilt:
            waiting = self.waiting
        else:
            # a turn waits only while the view has an unbuilt line
            waiting = self.waiting = False
            if not self.ready:
                return  # nothing to start
        jobs_max = self.config.jobs_max
        running = self.running
        if len(running) >= jobs_max and not waiting:
            return
        candidates = self._window_candidates(running) if unbuilt else []
        if waiting:
            for node in self._free_slots_for(running, candidates):
                # a stopped call is no failure: back to its queue
                self._push_ready(node[0], node[1])
        slots = jobs_max - len(running)
        if slots <= 0:
            return
        for node in candidates:
            running.append(node)
            slots -= 1
            if slots == 0:
                return
        if waiting:
            return
        ready = self.ready
        if ready and self.view.bytes - RESERVE_OVER_PLACEHOLDER * len(unbuilt) > self.config.view_bytes_ceiling:
            self._start_shown_first(slots)
            return
        if ready and self.shown_starts >= 0:
            self.shown, self.shown_starts = set(), -1  # the view unfolded: look again when it folds
        while slots > 0 and ready:
            _, l, i = heapq.heappop(ready)
            self.ready_set.discard((l, i))
            running.append((l, i))
            slots -= 1

    def _start_shown_first(self, slots: int) -> None:
        """Start `slots` ready merges while a turn's view folds [P19]: first those at or under
        a placeholder of that view as last looked at, the lowest placeholder first, then the
        rest, each group by last message [P26]. The view is looked at again once
        SHOWN_STARTS_MAX merges have started since."""
        if self.shown_starts < 0 or self.shown_starts >= SHOWN_STARTS_MAX:
            built = self.built_nodes.has
            self.shown = {(l, i) for l, i in self.turn_lines() if not built(l, i)}
            self.shown_starts = 0
        shown = self.shown

        def key(entry: tuple[int, int, int]) -> tuple[int, int]:
            last, l, i = entry
            while l < LEVELS_MAX:
                if (l, i) in shown:
                    return l, last
                l += 1
                i >>= 1
            return LEVELS_MAX, last

        chosen = heapq.nsmallest(slots, self.ready, key=key)
        self.shown_starts += len(chosen)
        taken = set(chosen)
        self.ready = [entry for entry in self.ready if entry not in taken]
        heapq.heapify(self.ready)
        for _, l, i in chosen:
            self.ready_set.discard((l, i))
            self.running.append((l, i))

    def waiting_queue(self) -> list[Node]:
        """The calls that would run if a turn started waiting now."""
        kept = list(self.running)
        if not self.unbuilt:
            return kept
        candidates = self._window_candidates(kept)
        self._free_slots_for(kept, candidates)
        slots = self.config.jobs_max - len(kept)
        return kept + candidates[: max(slots, 0)]

    def ready_merges(self) -> list[Node]:
        """Every merge whose halves are built, by last message [P5]: idle, deferred
        after a failure, or running."""
        nodes = [(l, i) for _, l, i in self.ready]
        nodes.extend(self.deferred)
        nodes.extend(node for node in self.running if node[0] > 0)
        nodes.sort(key=lambda node: last_message(node[0], node[1]))
        return nodes

    # ---- what calls see ----

    def built(self, l: int, i: int) -> bool:
        return self.built_nodes.has(l, i)

    def rendered(self, l: int, i: int, placeholder: Callable[[int, int], str] | None = None) -> str:
        text = self.text(l, i)
        if text is None:
            return f"{node_name(l, i)}|{placeholder(l, i) if placeholder else PLACEHOLDER}"
        return node_name(l, i) + "|" + shown(text)

    def render(self, lines: list[Node] | None = None,
               placeholder: Callable[[int, int], str] | None = None) -> str:
        """The view as every call gets it [gist §3]: by default the view a turn sends, within
        its ceiling [P19]. `placeholder(l, i)`, if given, is an unbuilt line's text, at most
        PLACEHOLDER_BYTES_MAX bytes, the bytes the line is counted at [P22]
        (harness/memory/covers.py); PLACEHOLDER else, as the model shows it."""
        if lines is None:
            lines = self.turn_lines()
        body = "".join(self.rendered(l, i, placeholder) + "\n" for l, i in lines)
        return "<chat>\n" + body + "</chat>"

    def turn_lines(self) -> list[Node]:
        """The view a turn sends [P19]: the view's lines when what they show is within
        the ceiling (an unbuilt line shows its placeholder, not its reserve); else, for this
        rendering only, the most due pairs merge [gist §3.2], first into built parents, then
        into any parent, an unbuilt one shown as its placeholder, until it is within the
        ceiling. The view itself is unchanged."""
        view = self.view
        ceiling = self.config.view_bytes_ceiling
        shown_bytes = view.bytes - RESERVE_OVER_PLACEHOLDER * len(self.unbuilt)
        if shown_bytes <= ceiling:
            return view.lines()
        # the view as shown: its unbuilt lines at their placeholder's bytes
        summarized = _View()
        for l, i in view.lines():
            line_bytes = view.line_bytes[i << l]
            if l == 0 and i in self.unbuilt_set:
                line_bytes = placeholder_line_bytes(0, i)
            summarized.add(l, i, line_bytes, self.built_nodes)
        summarized.fit(self.T, ceiling, self)
        if summarized.bytes <= ceiling:
            return summarized.lines()
        coarse = _Coarse(self)
        coarser = _View()
        for l, i in summarized.lines():
            coarser.add(l, i, summarized.line_bytes[i << l], coarse.built_nodes)
        coarser.fit(self.T, ceiling, coarse)
        return coarser.lines()

    def context(self, l: int, i: int) -> list[Node]:
        """A compaction's view: the compaction view's lines that end by the node's end, up to
        the first unbuilt line [gist §4] [F2], and up to the compaction view's ceiling
        [P19]: a prefix of the compaction view, never more than its ceiling."""
        end = i - 1 if l == 0 else last_message(l, i)
        budget = self.config.cview_bytes_ceiling
        total = 0
        lines = []
        line_bytes = self.cview.line_bytes
        for line_l, line_i in self.cview.lines():
            if last_message(line_l, line_i) > end or not self.built(line_l, line_i):
                break
            total += line_bytes[line_i << line_l]
            if total > budget:
                break
            lines.append((line_l, line_i))
        return lines

    # ---- what a restart keeps [F1] [P10] [P11] [P16]: harness/memory/checkpoint.py ----

    def save(self) -> dict:
        """The durable state, view.json's fields."""
        return fields_of(self)

    def save_due(self) -> bool:
        """A checkpoint is due [P10]."""
        return is_due(self)

    def checkpoint(self) -> dict:
        """`save()`, for the caller to write; the count toward the next one starts again."""
        return taken(self)

    @classmethod
    def load(cls, saved: dict, texts: Texts) -> "Planner":
        """A new process [P10]: the saved state taken up, the logs replayed past it."""
        planner = cls(Config(*saved["config"]), texts)
        restore(planner, saved)
        return planner

    def _loaded_view(self, pairs: list[list[int]]) -> _View:
        view = _View()
        for l, i in pairs:
            line_bytes = self.line_bytes(l, i) if self.built(l, i) else waiting_line_bytes(i)
            view.add(l, i, line_bytes, self.built_nodes)
        return view
