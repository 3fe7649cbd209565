"""Where the planner's texts live, and which nodes are built: the `Texts` store the planner asks for
the few texts it needs, `MemoryTexts` (every text in memory, for the bridge, tests and benchmarks),
and `BuiltNodes`, the watermarks a store reports and the planner keeps.

The tree files are the product's `Texts` (harness/memory/service.py); this module reads no file.
"""

from array import array
from typing import Protocol

from harness.memory.view_text import node_name

Node = tuple[int, int]


class Texts(Protocol):
    """Where node texts and message sources live; the planner keeps none of them for long."""

    kept: list[Node]  # [S29] nodes a restart's replay built with another text: their logged line stands

    def node(self, l: int, i: int) -> str | None:
        """Node (l, i)'s text, or None while it is not built."""

    def message(self, i: int) -> tuple[str, str]:
        """Message i's kind and text."""

    def message_count(self) -> int:
        """How many messages are logged: more than the planner's T after a crash cut the last
        event short, and the planner applies the rest at load."""

    def record_message(self, i: int, kind: str, text: str) -> None:
        """Message i was applied (a store that logged it before does nothing)."""

    def record_nodes(self, nodes: list[tuple[int, int, str]], T: int) -> None:
        """The nodes one event built, in build order, T being the message count then."""

    def built_levels(self) -> list[list]:
        """Which nodes are built: for each level, [watermark, the indexes built beyond it]."""

    def last_node(self) -> Node | None:
        """The node logged last, or None before the first."""

    def nodes_after(self, last: Node | None) -> list[tuple[int, int, str, int]]:
        """The nodes logged after node `last` (every node if None), in log order, each as
        (l, i, text, T): what a restart replays [P10]."""


class MemoryTexts:
    """Every text in memory: for the bridge, tests and benchmarks. It outlives a `Planner`, as
    the files do, so a restart is `Planner.load(planner.save(), planner.texts)`. A node is keyed
    by one integer and the log kept in arrays, so a million messages' two million nodes are not
    millions of tuples for the collector to walk."""

    def __init__(self) -> None:
        self.nodes: dict[int, str] = {}  # by (i << 6) | l
        self.kinds: list[str] = []
        self.texts: list[str] = []
        self.logged = array("q")  # node keys, in log order
        self.logged_T = array("q")  # the T each was logged at
        self.kept: list[Node] = []  # a replay here gives the text logged before, or fails

    def node(self, l: int, i: int) -> str | None:
        return self.nodes.get((i << 6) | l)

    def message(self, i: int) -> tuple[str, str]:
        return self.kinds[i], self.texts[i]

    def message_count(self) -> int:
        return len(self.texts)

    def record_message(self, i: int, kind: str, text: str) -> None:
        texts = self.texts
        if i == len(texts):
            self.kinds.append(kind)
            texts.append(text)
            return
        assert i < len(texts), f"message {i} recorded after only {len(texts)}"
        # replayed at a restart
        assert (self.kinds[i], texts[i]) == (kind, text), f"message {i} replayed with another text"

    def record_nodes(self, nodes: list[tuple[int, int, str]], T: int) -> None:
        known = self.nodes
        logged, logged_T = self.logged, self.logged_T
        for l, i, text in nodes:
            key = (i << 6) | l  # LEVELS_MAX levels
            old = known.get(key)
            if old is None:
                known[key] = text
                logged.append(key)
                logged_T.append(T)
            else:
                # a restart replays what the log holds: a node is built once [gist §2]
                assert old == text, f"node {node_name(l, i)} built again with another text"

    def built_levels(self) -> list[list]:
        built = BuiltNodes()
        for key in self.nodes:
            built.add(key & 63, key >> 6)
        return built.saved()

    def last_node(self) -> Node | None:
        if not self.logged:
            return None
        key = self.logged[-1]
        return key & 63, key >> 6

    def nodes_after(self, last: Node | None) -> list[tuple[int, int, str, int]]:
        logged = self.logged
        start = len(logged)
        if last is None:
            start = 0
        else:
            # a checkpoint's last node is at most a checkpoint's lines from the end
            last_key = (last[1] << 6) | last[0]
            while logged[start - 1] != last_key:
                start -= 1
        return [(key & 63, key >> 6, self.nodes[key], T)
                for key, T in zip(logged[start:], self.logged_T[start:])]


LEVELS_MAX = 64  # a level-64 node would cover 2^64 messages


class BuiltNodes:
    """Which nodes of each level are built: every i below the level's watermark, and the few
    built beyond it (nodes are built nearly in order, so the set stays small). Every level has
    its slot from the start, so `has` is one comparison, and at most one set lookup."""

    __slots__ = ("watermarks", "beyond")

    def __init__(self) -> None:
        self.watermarks: list[int] = [0] * LEVELS_MAX
        self.beyond: list[set[int]] = [set() for _ in range(LEVELS_MAX)]

    def has(self, l: int, i: int) -> bool:
        return i < self.watermarks[l] or i in self.beyond[l]

    def add(self, l: int, i: int) -> None:
        mark = self.watermarks[l]
        if i != mark:
            if i > mark:
                self.beyond[l].add(i)
            return
        # the next in order, as most are: the watermark moves past it and what was built beyond
        beyond = self.beyond[l]
        mark += 1
        while beyond and mark in beyond:
            beyond.remove(mark)
            mark += 1
        self.watermarks[l] = mark

    def discard(self, l: int, i: int) -> None:
        mark = self.watermarks[l]
        if i < mark:
            self.beyond[l].update(range(i + 1, mark))
            self.watermarks[l] = i
        else:
            self.beyond[l].discard(i)

    def levels(self) -> int:
        """How many levels have a node built, the levels above them none."""
        count = LEVELS_MAX
        while count > 0 and self.watermarks[count - 1] == 0 and not self.beyond[count - 1]:
            count -= 1
        return count

    def saved(self) -> list[list]:
        return [[self.watermarks[l], sorted(self.beyond[l])] for l in range(self.levels())]

    @classmethod
    def loaded(cls, saved: list[list]) -> "BuiltNodes":
        built = cls()
        for l, (mark, beyond) in enumerate(saved):
            built.watermarks[l] = mark
            built.beyond[l] = set(beyond)
        return built
