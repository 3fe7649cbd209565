"""Nodes, lines, the due order, fit, rendering and a compaction's context [gist §2, §3, §4].

The laws run most of this file on Z3 terms as well as on Python values (model/base.py says why),
so a view is read and changed through model.base's operations, conditions combine with `&` and
`|`, and a choice is `choose`.
"""

from dataclasses import dataclass
from typing import Callable, Tuple

from model.base import (appended, choose, decimal, fold, item, length, mapped, pair_replaced, prefix,
                        repeat, utf8_bytes)

LINE_BYTES_MAX = 512  # [gist §2] a node's text, in UTF-8 bytes
# [P22] what an unbuilt line shows: the gist's "(not summarized yet: zoom it)" [gist §5] with search
# named, since search finds any word of the logs at once; the harness writes what the line covers
# before it (its ids, source, count and dates, read from the logs), within PLACEHOLDER_BYTES_MAX
PLACEHOLDER = "not summarized yet: search or zoom it"
PLACEHOLDER_BYTES_MAX = 128  # [P22] what a placeholder's text may weigh, and what its line counts


@dataclass(frozen=True)
class Line:
    """One line of a view: node (l, i), covering messages i·2^l .. (i+1)·2^l − 1 [gist §2].

    `text` is the node's summary; for a message's own line that is not built yet, it is the
    message's source, which the view never shows [gist §3]. `bytes` is what the line costs in the
    view: its rendered `id+n|text` and the newline after it.
    """

    l: int
    i: int
    text: str
    built: bool
    bytes: int


View = Tuple[Line, ...]


@dataclass(frozen=True)
class Parents:
    """What a batch knows of the parent nodes: which are built, and a built parent's line."""

    built: Callable[[int, int], bool]
    line: Callable[[int, int], Line]


def first(l: int, i: int) -> int:
    return i << l


def last(l: int, i: int) -> int:
    return ((i + 1) << l) - 1


def name(l: int, i: int) -> str:
    """`id+n`: the node's first message and how many it covers [gist §2]."""
    return decimal(i << l) + "+" + decimal(1 << l)


def is_break(ch: str) -> bool:
    """A line break or a control character: C0, DEL, C1 (U+0085 among them), U+2028, U+2029
    [P15]. `str.splitlines()` and a model reading the view break lines on several of
    them, and the others are invisible bytes in a one-line summary."""
    code = ord(ch)
    return code < 0x20 or 0x7F <= code <= 0x9F or code == 0x2028 or code == 0x2029


BREAKS = tuple(chr(code) for code in range(0x2030) if is_break(chr(code)))


def flatten(text: str) -> str:
    """Each line break and each control character turned into one space, `\r\n` being one
    break [gist §3] [P15]."""
    text = text.replace("\r\n", " ")
    for ch in BREAKS:
        text = text.replace(ch, " ")
    return text


# What a line's text may not show as it is [P18]: "<" would let a text open or close a
# tag of the view or of a compaction's task (<chat>, </chat>, <input>, </input>); "|" would let it
# show a line's head (`12+1|user: …`), which only a line's start holds. Each becomes one look-alike
# character, so a line still reads as its text, and what is counted is what is shown.
ESCAPES = (("<", "\u2039"), ("|", "\u00a6"))  # ‹ and ¦
# a task starts "Compaction:" [gist §4]: that mark, in lower case and in capitals too, shows its
# colon as ꞉ (U+A789)
TASK_MARKS = ("Compaction:", "compaction:", "COMPACTION:")
TASK_MARK_COLON = "\ua789"


def escaped(text: str) -> str:
    """The text with each of ESCAPES shown as its look-alike, and each of TASK_MARKS with its
    colon as TASK_MARK_COLON, so no line starts a task [P18]. Only `replace`, which the
    laws' text terms have too."""
    for raw, shown in ESCAPES:
        text = text.replace(raw, shown)
    for mark in TASK_MARKS:
        text = text.replace(mark, mark[:-1] + TASK_MARK_COLON)
    return text


def is_valid_text(text: str) -> bool:
    """The planners' precondition on every text: no lone surrogate, so it encodes as UTF-8. Text
    is made valid once, where it enters Ever [P14]."""
    for ch in text:
        if 0xD800 <= ord(ch) <= 0xDFFF:
            return False
    return True


def rendered(line: Line) -> str:
    if line.built:
        return name(line.l, line.i) + "|" + escaped(flatten(line.text))
    return name(line.l, line.i) + "|" + PLACEHOLDER


def built_line(l: int, i: int, text: str) -> Line:
    line = Line(l, i, text, True, 0)
    return Line(l, i, text, True, utf8_bytes(rendered(line)) + 1)


def waiting_line(i: int, source: str) -> Line:
    """A message's own line before its summary: it shows its placeholder [gist §5] but costs its
    head, 512 bytes and the newline [P1], what its built line weighs when its text shows one byte
    for one. Escaping [P18] may show a built text in up to 3 · 512 bytes; the built line is then
    counted as it renders, and a turn's view is fitted in rendered bytes (docs/trust.md)."""
    return Line(0, i, source, False, utf8_bytes(name(0, i)) + 1 + LINE_BYTES_MAX + 1)


def view_bytes(view: View) -> int:
    def add(total: int, k: int) -> int:
        return total + item(view, k).bytes

    return fold(length(view), 0, add)


def render(view: View) -> str:
    """The view as every call gets it [gist §3]."""
    return "<chat>\n" + "".join(rendered(line) + "\n" for line in view) + "</chat>"


def is_pair(a: Line, b: Line) -> bool:
    """Two sibling lines: the two halves of node (a.l + 1, a.i >> 1)."""
    return (a.l == b.l) & (a.i & 1 == 0) & (b.i == a.i + 1)


def more_due(la: int, ia: int, lb: int, ib: int, T: int) -> bool:
    """Pair a (lines (la, ia), (la, ia+1)) is more due than pair b [gist §3.2].

    due = (T − last) / 2^l, last being the pair's last message. Cross-multiplied, so no
    division: (T − last_a)·2^lb > (T − last_b)·2^la.
    """
    last_a = ((ia + 2) << la) - 1
    last_b = ((ib + 2) << lb) - 1
    return (T - last_a) << lb > (T - last_b) << la


def more_due_from_first(la: int, ia: int, lb: int, ib: int, T: int) -> bool:
    """The earlier revision's rule, (T − first) / 2^l: the known bug [gist §3.2, §7.1].

    Kept only for the laws that show it is wrong.
    """
    first_a = ia << la
    first_b = ib << lb
    return (T - first_a) << lb > (T - first_b) << la


def most_due(view: View, T: int, parents: Parents, due_from_first: bool) -> int:
    """The index of the most due sibling pair whose parent is built, or −1 [gist §3.2].

    The scan runs oldest first and takes a later pair only when it is strictly more due, so the
    oldest of equal pairs wins.
    """

    def better(best: int, k: int) -> int:
        """Pair k if it can merge and is the first that can or more due than the best so far;
        else the best so far."""
        a = item(view, k)
        b = item(view, best)  # while best is −1 this is the last line, and `wins` goes unused
        can_merge = is_pair(a, item(view, k + 1)) & parents.built(a.l + 1, a.i >> 1)
        if due_from_first:
            wins = more_due_from_first(a.l, a.i, b.l, b.i, T)
        else:
            wins = more_due(a.l, a.i, b.l, b.i, T)
        return choose(can_merge & ((best < 0) | wins), k, best)

    return fold(length(view) - 1, -1, better)


def merge(view: View, k: int, parents: Parents) -> View:
    """Replace the sibling lines at k and k+1 with their parent's line."""
    a = item(view, k)
    return pair_replaced(view, k, parents.line(a.l + 1, a.i >> 1))


Merges = Tuple[Tuple[int, int], ...]
# A batch under way: the view so far, the parents merged in merge order, and the view's most due
# pair that can merge (or −1).
Fitting = Tuple[View, Merges, int]


def fit(
    view: View, T: int, budget_bytes: int, parents: Parents, due_from_first: bool = False
) -> Tuple[View, Merges]:
    """Merge the most due pair whose parent is built, again and again, until the view is at
    most `budget_bytes` or no pair can merge [gist §3.2]. Returns the view and the merged
    parents, in merge order."""

    def over(fitting: Fitting) -> bool:
        """Over the budget, with a pair that can merge."""
        view, _, k = fitting
        return (view_bytes(view) > budget_bytes) & (k >= 0)

    def merge_most_due(fitting: Fitting) -> Fitting:
        view, merges, k = fitting
        a = item(view, k)
        merged = merge(view, k, parents)
        merges = appended(merges, (a.l + 1, a.i >> 1))
        return merged, merges, most_due(merged, T, parents, due_from_first)

    start = (view, (), most_due(view, T, parents, due_from_first))
    fitted, merges, _ = repeat(over, merge_most_due, start)
    return fitted, merges


def context_end(l: int, i: int) -> int:
    """The last message a compaction's view may cover [gist §4]: the lines before the message,
    or for a merge the lines up to the merge's last message."""
    return choose(l == 0, i - 1, last(l, i))


def context(cview: View, l: int, i: int, budget_bytes: int) -> View:
    """A compaction's view: the compaction view's lines that end at or before the node's end,
    stopping at the first unbuilt line [gist §4] [F2], and at the first line that would take
    it past `budget_bytes`, the compaction view's ceiling [P19]: so it is always a
    prefix of the compaction view (the compactions' cache) and never more than its ceiling, even
    while the compaction view cannot merge down to it."""
    end = context_end(l, i)

    def kept(sofar: Tuple[int, int], k: int) -> Tuple[int, int]:
        """The lines kept so far are 0 .. count − 1, `total` bytes; line k is kept if none before
        it stopped the context, it ends by the node's end, it is built and it fits."""
        count, total = sofar
        line = item(cview, k)
        fits = total + line.bytes <= budget_bytes
        goes_on = (count == k) & (last(line.l, line.i) <= end) & line.built & fits
        return choose(goes_on, k + 1, count), choose(goes_on, total + line.bytes, total)

    count, _ = fold(length(cview), (0, 0), kept)
    return prefix(cview, count)


# ---- the view a turn sends [P19] ----


def placeholder_line(l: int, i: int) -> Line:
    """Node (l, i) shown as the placeholder [gist §5]: a line of the view one turn sends,
    rendered once and never built in place. It counts its head and the bytes a placeholder's
    text may weigh [P22]: the model shows PLACEHOLDER, the harness what the line covers too,
    never more, so the view the model counts bounds the one the harness renders."""
    return Line(l, i, "", False, utf8_bytes(name(l, i)) + 1 + PLACEHOLDER_BYTES_MAX + 1)


def as_shown(line: Line) -> Line:
    """The line counted at what it renders: a built line is; an unbuilt one is its placeholder."""
    return choose(line.built, line, placeholder_line(line.l, line.i))


def coarse(parents: Parents) -> Parents:
    """Every sibling pair can merge: into its parent's line when the parent is built, else into
    a coarse placeholder that `zoom` opens [gist §5, §6]."""

    def any_parent(l: int, i: int) -> bool:
        return True

    def line(l: int, i: int) -> Line:
        return choose(parents.built(l, i), parents.line(l, i), placeholder_line(l, i))

    return Parents(any_parent, line)


def turn_view(view: View, T: int, ceiling_bytes: int, parents: Parents) -> View:
    """The view a turn sends [gist §6] [P19]: each line as it renders; when that is
    more than the ceiling (the compactor is behind, paused, or an import's notes wait for their
    parents), this one rendering merges the most due pairs [gist §3.2], first those whose parent
    is built, then any, an unbuilt parent shown as its placeholder, until it is within the
    ceiling. The view itself, its sawtooth and its cache are unchanged."""
    shown = mapped(view, as_shown)
    summarized, _ = fit(shown, T, ceiling_bytes, parents)
    coarser, _ = fit(summarized, T, ceiling_bytes, coarse(parents))
    return coarser
