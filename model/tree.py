"""The built nodes: a persistent map from `(l, i)` to the node's text [gist §2].

Each node is built once and never built again, so the map only grows. A step must return a new
state without copying the whole map, so each level is a trie keyed by the digits of `i` in base
16, lowest first: an insert copies the one path it changes, about log16(T) small tuples, and a
lookup reads one tuple per digit.

The laws run this code on Z3 terms (laws/z3_tree.py): so it tests a trie's emptiness with `not`
and a text's absence with `== None`, never `is` (a term cannot answer an identity test), and it
reaches into tuples by a digit only through model/base.py's `item`, `replaced` and `padded`.
"""

from dataclasses import dataclass
from typing import Optional, Tuple

from model.base import item, length, padded, replaced

DIGIT_BITS = 4
DIGITS = 1 << DIGIT_BITS
# A trie node is (text or None, child for digit 0, …, child for digit 15); () is the empty trie.
Trie = Tuple
EMPTY: Trie = ()
NODE: Trie = (None,) + (EMPTY,) * DIGITS  # a node that holds nothing yet


@dataclass(frozen=True)
class Tree:
    levels: Tuple[Trie, ...] = ()


def trie_get(trie: Trie, i: int) -> Optional[str]:
    if not trie:
        return None
    if i == 0:
        return trie[0]
    return trie_get(item(trie, 1 + (i & (DIGITS - 1))), i >> DIGIT_BITS)


def trie_put(trie: Trie, i: int, text: str) -> Trie:
    if not trie:
        trie = NODE
    if i == 0:
        return replaced(trie, 0, text)
    digit = 1 + (i & (DIGITS - 1))
    return replaced(trie, digit, trie_put(item(trie, digit), i >> DIGIT_BITS, text))


def tree_get(tree: Tree, l: int, i: int) -> Optional[str]:
    """The text of node (l, i), or None while it is not built."""
    if l >= length(tree.levels):
        return None
    return trie_get(item(tree.levels, l), i)


def tree_has(tree: Tree, l: int, i: int) -> bool:
    return tree_get(tree, l, i) != None  # noqa: E711 (a term answers ==, never `is`)


def tree_text(tree: Tree, l: int, i: int) -> str:
    """The text of node (l, i), or "" while it is not built."""
    text = tree_get(tree, l, i)
    if text == None:  # noqa: E711
        return ""
    return text


def tree_put(tree: Tree, l: int, i: int, text: str) -> Tree:
    levels = padded(tree.levels, l + 1, EMPTY)
    return Tree(replaced(levels, l, trie_put(item(levels, l), i, text)))
