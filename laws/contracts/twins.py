"""CrossHair diffbehavior targets: the model's pure functions and the production twins, behind the
same domain guard (diffbehavior ignores contracts, so each wrapper guards its own inputs).

Strategy: both sides of a pair take the same arguments, apply the same guard, and return plain
tuples, so a difference CrossHair reports is a difference of behaviour, not of types.
"""


import harness.memory.line as production
import harness.memory.planner as production_planner
import model.line as reference
import model.view as reference_view

REPLY_CHARS_MAX = 600


def guard(a: str, b: str, c: str) -> bool:
    return all(len(text) <= REPLY_CHARS_MAX for text in (a, b, c))


def model_line(a: str, b: str, c: str) -> tuple[int, str, tuple[str, ...]]:
    if not guard(a, b, c):
        return (-1, "", ())
    outcome = reference.line((a, b, c))
    return (outcome.calls, outcome.text, outcome.follow_ups)


def harness_line(a: str, b: str, c: str) -> tuple[int, str, tuple[str, ...]]:
    if not guard(a, b, c):
        return (-1, "", ())
    outcome = production.line((a, b, c))
    return (outcome.calls, outcome.text, outcome.follow_ups)


# cut looks only at the bytes around the budget: short texts and budgets let CrossHair reach
# every kind of character there (laws/confirmed.py also checks cut exhaustively near 512 bytes).
CUT_CHARS_MAX = 8
CUT_BYTES_MAX = 40


def model_cut(text: str, bytes_max: int) -> str:
    if len(text) > CUT_CHARS_MAX or not 0 <= bytes_max <= CUT_BYTES_MAX:
        return ""
    return reference.cut(text, bytes_max)


def harness_cut(text: str, bytes_max: int) -> str:
    if len(text) > CUT_CHARS_MAX or not 0 <= bytes_max <= CUT_BYTES_MAX:
        return ""
    return production.cut(text, bytes_max)


# The due order: the model's `more_due` with its scan's tie-break (the oldest of equal pairs
# wins), against the order of harness/memory/planner.py's batch heap, whose entries
# `_View.entry` makes (the very function its `fit` pushes), on pairs of lines that end before T.
LEVEL_MAX = 12
T_MAX = 1 << 16


def due_guard(la: int, ia: int, lb: int, ib: int, T: int) -> bool:
    return (0 <= la <= LEVEL_MAX and 0 <= lb <= LEVEL_MAX and 0 <= ia and 0 <= ib and ia % 2 == 0
            and ib % 2 == 0 and ((ia + 2) << la) <= T and ((ib + 2) << lb) <= T <= T_MAX)


def model_due(la: int, ia: int, lb: int, ib: int, T: int) -> bool:
    if not due_guard(la, ia, lb, ib, T):
        return False
    if reference_view.more_due(la, ia, lb, ib, T):
        return True
    return not reference_view.more_due(lb, ib, la, ia, T) and (ia << la) < (ib << lb)


def harness_due(la: int, ia: int, lb: int, ib: int, T: int) -> bool:
    if not due_guard(la, ia, lb, ib, T):
        return False
    first_a, first_b = ia << la, ib << lb
    return production_planner._View.entry(la, first_a, T) < production_planner._View.entry(lb, first_b, T)


# Inputs inside each pair's domain guard (laws/witness.py runs them on both sides): without them,
# a guard that lets nothing through would make the two sides agree on everything.
WITNESSES = {
    "line": [("a" * 600, "b" * 550, "short"), (" " + "ü" * 300, "x", "y"), ("", "x", "y")],
    "cut": [("aé€😀a", 7), ("plain", 40)],
    "due": [(0, 0, 0, 2, 8), (1, 0, 0, 4, 9)],
}
