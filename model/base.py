"""The few operations the view's code is built from, kept apart so the laws can run that code a
second way.

The laws run the model's own view and tree functions on Z3 terms (laws/z3_model.py): there a view has no
known length, a condition is a Z3 formula rather than a Python bool, and a loop cannot be
unrolled. So the view's code does these things only through the functions below, and the laws
give each a twin on Z3 terms; every other line of the model runs unchanged. Each function here is
one or two lines of plain Python, and the law `twins_agree` (laws/universal.py) checks each twin
against it.

Two habits follow, in the code that the laws run on Z3 terms: conditions combine with `&` and
`|`, never `and`, `or`, `not` or `if` (those would ask a Z3 formula for a Python bool, which
raises); and a choice between two values is `choose`, which evaluates both.
"""

from typing import Callable, Tuple, TypeVar

Item = TypeVar("Item")
Value = TypeVar("Value")


def length(items: Tuple[Item, ...]) -> int:
    return len(items)


def item(items: Tuple[Item, ...], k: int) -> Item:
    """Item k; k = −1 is the last, as in Python."""
    return items[k]


def appended(items: Tuple[Item, ...], new: Item) -> Tuple[Item, ...]:
    return items + (new,)


def pair_replaced(items: Tuple[Item, ...], k: int, new: Item) -> Tuple[Item, ...]:
    """Items k and k + 1 replaced by one."""
    return items[:k] + (new,) + items[k + 2 :]


def replaced(items: Tuple[Item, ...], k: int, new: Item) -> Tuple[Item, ...]:
    """Item k replaced by `new`."""
    return items[:k] + (new,) + items[k + 1 :]


def padded(items: Tuple[Item, ...], count: int, filler: Item) -> Tuple[Item, ...]:
    """`items`, then `filler` until there are `count` of them."""
    return items + (filler,) * (count - len(items))


def prefix(items: Tuple[Item, ...], count: int) -> Tuple[Item, ...]:
    return items[:count]


def mapped(items: Tuple[Item, ...], change: Callable[[Item], Item]) -> Tuple[Item, ...]:
    return tuple(change(old) for old in items)


def choose(condition: bool, then: Value, otherwise: Value) -> Value:
    """`then if condition else otherwise`; both are evaluated before the choice."""
    if condition:
        return then
    return otherwise


def fold(count: int, start: Value, body: Callable[[Value, int], Value]) -> Value:
    """`value = body(value, k)` for k = 0 .. count − 1."""
    value = start
    for k in range(count):
        value = body(value, k)
    return value


def repeat(going_on: Callable[[Value], bool], body: Callable[[Value], Value], start: Value) -> Value:
    """`value = body(value)` while `going_on(value)`."""
    value = start
    while going_on(value):
        value = body(value)
    return value


def decimal(n: int) -> str:
    return str(n)


def utf8_bytes(text: str) -> int:
    return len(text.encode("utf-8"))
