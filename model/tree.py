"""The built nodes: a persistent map from `(l, i)` to the node's text [gist §2].

Each node is built once and never built again, so the map only grows. A step must return a new
state without copying the whole map, so each level is a binary trie keyed by the bits of `i`,
lowest bit first: an insert copies the one path it changes, about log2(T) small tuples.
"""

from dataclasses import dataclass
from typing import Optional, Tuple

# A trie node is (text or None, child for bit 0, child for bit 1); None is the empty trie.
Trie = Optional[Tuple[Optional[str], "Trie", "Trie"]]


@dataclass(frozen=True)
class Tree:
    levels: Tuple[Trie, ...] = ()


def trie_get(trie: Trie, i: int) -> Optional[str]:
    while trie is not None and i > 0:
        trie = trie[1 + (i & 1)]
        i = i >> 1
    if trie is None:
        return None
    return trie[0]


def trie_put(trie: Trie, i: int, text: str) -> Trie:
    if trie is None:
        trie = (None, None, None)
    if i == 0:
        return (text, trie[1], trie[2])
    if i & 1 == 0:
        return (trie[0], trie_put(trie[1], i >> 1, text), trie[2])
    return (trie[0], trie[1], trie_put(trie[2], i >> 1, text))


def tree_get(tree: Tree, l: int, i: int) -> Optional[str]:
    """The text of node (l, i), or None while it is not built."""
    if l >= len(tree.levels):
        return None
    return trie_get(tree.levels[l], i)


def tree_has(tree: Tree, l: int, i: int) -> bool:
    return tree_get(tree, l, i) is not None


def tree_text(tree: Tree, l: int, i: int) -> str:
    """The text of node (l, i), or "" while it is not built."""
    text = tree_get(tree, l, i)
    if text is None:
        return ""
    return text


def tree_put(tree: Tree, l: int, i: int, text: str) -> Tree:
    levels = tree.levels
    while len(levels) <= l:
        levels = levels + (None,)
    level = trie_put(levels[l], i, text)
    return Tree(levels[:l] + (level,) + levels[l + 1 :])
