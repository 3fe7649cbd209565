"""Taelin's rollback push [gist §3.1], and the fold that must make its merges [gist §3.2]."""

from dataclasses import dataclass
from typing import Optional, Tuple

from model.base import appended
from model.view import Line, Parents, View, fit


@dataclass(frozen=True)
class States:
    """One entry of push's list, newest first: `{keep, life, state, older}` [gist §3.1]."""

    keep: int
    life: int
    state: int
    older: Optional["States"]


def push(new_state: int, states: Optional[States]) -> States:
    """rollback_state_list.js's `push`, line for line [gist §3.1]."""
    if states is None:
        return States(0, 0, new_state, None)
    keep = states.keep
    life = states.life
    state = states.state
    older = states.older
    if keep == 0:
        return States(1, life, state, older)
    if life > 0:
        return States(0, 0, new_state, States(0, life - 1, state, older))
    return States(0, life, new_state, push(state, older))


def push_states(states: Optional[States]) -> Tuple[int, ...]:
    """The list's states, oldest first."""
    newest_first: Tuple[int, ...] = ()
    while states is not None:
        newest_first = newest_first + (states.state,)
        states = states.older
    return newest_first[::-1]


def push_view(states: Optional[States], T: int) -> Tuple[Tuple[int, int], ...]:
    """Read the list as a view: each state starts a line that runs up to the next newer state,
    the newest up to now [gist §3.1]. Items are (id, n)."""
    starts = push_states(states)
    items: Tuple[Tuple[int, int], ...] = ()
    for k in range(len(starts)):
        end = starts[k + 1] if k + 1 < len(starts) else T
        items = items + ((starts[k], end - starts[k]),)
    return items


def every_parent_built(l: int, i: int) -> bool:
    return True


def unit_line(l: int, i: int) -> Line:
    return Line(l, i, "", True, 1)


# The fold beside push sees every parent built, each line one unit of budget.
EVERY_PARENT = Parents(every_parent_built, unit_line)


def fold_step(view: View, T: int, budget_lines: int, due_from_first: bool) -> View:
    """Append message T − 1's line, then fit to the budget [gist §3.2]."""
    grown = appended(view, unit_line(0, T - 1))
    fitted, _ = fit(grown, T, budget_lines, EVERY_PARENT, due_from_first)
    return fitted


def view_items(view: View) -> Tuple[Tuple[int, int], ...]:
    return tuple((line.i << line.l, 1 << line.l) for line in view)


def format_items(items: Tuple[Tuple[int, int], ...]) -> str:
    return " ".join(str(start) + "+" + str(n) for start, n in items)
