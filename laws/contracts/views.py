"""CrossHair targets over small views: the laws of merge, fit and context, on the model's own
functions.

Strategy: a view is given by its lines' levels, oldest first, laid end to end from message 0 (so it
tiles by construction), and which lines are built by the bits of an int. Parents are built when the
bit of (l, i) in another int is set. The domain is bounded in the leading asserts: at most
VIEW_LINES_MAX lines, levels at most LEVEL_MAX. Each function's leading asserts assume, its trailing
asserts claim. laws/confirmed.py runs `crosshair check` on each and reads its verdict.
"""


from model.view import Line, View, context, context_end, fit, is_pair, last, merge, most_due, view_bytes

VIEW_LINES_MAX = 3
LEVEL_MAX = 2
NODE_BITS = 8  # parent (l, i) is bit l·8 + i of the mask: levels ≤ 3, indices < 8
CONTEXT_LEVEL_MAX = 1  # the context laws explore every path more slowly: a smaller domain
POW2 = (1, 2, 4, 8)  # a table, not `1 << l`: CrossHair explores it far better (notes-on-tools)


def aligned(levels: tuple[int, ...], level_max: int = LEVEL_MAX) -> bool:
    """The levels laid end to end from message 0 are tree nodes, each of level ≤ level_max."""
    start = 0
    for l in levels:
        if l < 0 or l > level_max:
            return False
        if start % POW2[l] != 0:
            return False
        start = start + POW2[l]
    return True


def tiled(levels: tuple[int, ...], built_mask: int) -> View:
    lines: View = ()
    start = 0
    for k in range(len(levels)):
        l = levels[k]
        built = (built_mask >> k) & 1 == 1
        lines = lines + (Line(l, start // POW2[l], "", built, 1),)
        start = start + POW2[l]
    return lines


def messages(view: View) -> int:
    if len(view) == 0:
        return 0
    return last(view[-1].l, view[-1].i) + 1


def parents_of(parent_mask: int):
    def parents(l: int, i: int) -> Line:
        built = l <= 3 and i < NODE_BITS and (parent_mask >> (l * NODE_BITS + i)) & 1 == 1
        return Line(l, i, "", built, 1)

    return parents


def merge_is_one_pair(levels: tuple[int, ...], built_mask: int, parent_mask: int, extra: int) -> None:
    """[gist §3.1] One merge replaces two sibling lines with their built parent, or, when no pair
    can merge, fit changes nothing."""
    assert len(levels) <= VIEW_LINES_MAX
    assert 0 <= built_mask < 32
    assert aligned(levels)
    assert 0 <= parent_mask < 1 << 32
    assert 0 <= extra <= 4
    view = tiled(levels, built_mask)
    T = messages(view) + extra
    parents = parents_of(parent_mask)
    k = most_due(view, T, parents, False)
    if k < 0:
        fitted, merges = fit(view, T, 0, parents)
        assert fitted == view
        assert merges == ()
    else:
        a = view[k]
        merged = merge(view, k, parents)
        parent = parents(a.l + 1, a.i >> 1)
        assert parent.built
        assert is_pair(view[k], view[k + 1])
        assert (parent.l, parent.i) == (a.l + 1, a.i >> 1)
        assert merged == view[:k] + (parent,) + view[k + 2 :]


def fit_merges_built(levels: tuple[int, ...], built_mask: int, parent_mask: int, budget: int) -> None:
    """[gist §3.2] A batch merges only into built parents, each a sibling pair of the view."""
    assert len(levels) <= VIEW_LINES_MAX
    assert 0 <= built_mask < 32
    assert aligned(levels)
    assert 0 <= parent_mask < 1 << 32
    assert 0 <= budget <= VIEW_LINES_MAX
    view = tiled(levels, built_mask)
    parents = parents_of(parent_mask)
    fitted, merges = fit(view, messages(view), budget, parents)
    for l, i in merges:
        assert parents(l, i).built
    assert len(fitted) + len(merges) == len(view)


def fit_reaches_budget(levels: tuple[int, ...], built_mask: int, parent_mask: int, budget: int) -> None:
    """[gist §3.2] A batch ends at or under its budget unless no pair can merge."""
    assert len(levels) <= VIEW_LINES_MAX
    assert 0 <= built_mask < 32
    assert aligned(levels)
    assert 0 <= parent_mask < 1 << 32
    assert 0 <= budget <= VIEW_LINES_MAX
    view = tiled(levels, built_mask)
    parents = parents_of(parent_mask)
    T = messages(view)
    fitted, merges = fit(view, T, budget, parents)
    assert view_bytes(fitted) <= budget or most_due(fitted, T, parents, False) < 0
    # and it merges no more than it must: one merge fewer would still be over the budget
    assert len(merges) == 0 or view_bytes(fitted) + 1 > budget


def context_ends_at_node(levels: tuple[int, ...], built_mask: int, i: int) -> None:
    """[gist §4] A compaction's context ends at its node and holds only built lines; it stops only
    at a line that ends after the node's end or is unbuilt. Every level 0..3 of the node."""
    assert len(levels) <= VIEW_LINES_MAX
    assert 0 <= built_mask < 32
    assert aligned(levels, CONTEXT_LEVEL_MAX)
    assert 0 <= i <= 4
    cview = tiled(levels, built_mask)
    for l in range(CONTEXT_LEVEL_MAX + 2):
        lines = context(cview, l, i)
        end = context_end(l, i)
        for line in lines:
            assert line.built
            assert last(line.l, line.i) <= end
        if len(lines) < len(cview):
            stop = cview[len(lines)]
            assert last(stop.l, stop.i) > end or not stop.built


def context_is_prefix(levels: tuple[int, ...], built_mask: int, i: int) -> None:
    """[gist §4] A compaction's context is the start of the compaction view."""
    assert len(levels) <= VIEW_LINES_MAX
    assert 0 <= built_mask < 32
    assert aligned(levels, CONTEXT_LEVEL_MAX)
    assert 0 <= i <= 4
    cview = tiled(levels, built_mask)
    for l in range(CONTEXT_LEVEL_MAX + 2):
        lines = context(cview, l, i)
        assert lines == cview[: len(lines)]


# Inputs that meet each contract's preconditions and, together, reach each of its claims
# (laws/witness.py runs them): without them, an unsatisfiable precondition would be confirmed.
PARENT_0_1 = 1 << NODE_BITS  # parent (1, 0) built: lines 0 and 1 can merge
WITNESSES = {
    "merge_is_one_pair": [((0,), 1, 0, 0), ((0, 0), 0b11, PARENT_0_1, 0)],
    "fit_merges_built": [((0, 0), 0b11, PARENT_0_1, 1)],
    "fit_reaches_budget": [((0, 0), 0b11, PARENT_0_1, 1), ((0, 0, 1), 0b111, 0, 0)],
    "context_ends_at_node": [((0, 0, 1), 0b111, 0)],
    "context_is_prefix": [((0, 0, 1), 0b101, 0)],
}
