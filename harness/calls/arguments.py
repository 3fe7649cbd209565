"""The checks on a tool call's arguments, each giving the one sentence the model reads when they
do not fit: the work tools' inputs against the registry's schemas (`input_error`), and zoom's and
date's ids, sizes and pages against the chat [gist §6]. No SDK here.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from harness.calls.tool import TOOLS, TOOLS_BY_NAME

# The input each work tool takes, as JSON Schema: the registry's (harness/calls/tool.py), the very
# object the model is told.
INPUT_SCHEMAS: dict[str, dict[str, Any]] = {tool.name: tool.input_schema for tool in TOOLS if tool.checked}


def input_error(name: str, tool_input: Mapping[str, Any]) -> str | None:
    """None if `tool_input` fits the tool's schema; else the error text for the model."""
    return TOOLS_BY_NAME[name].check(tool_input)


def whole_number_error(tool: str, name: str, value: Any) -> str | None:
    # bool is an int in Python; JSON's true is no id
    if isinstance(value, bool) or not isinstance(value, int):
        if value is None:
            return f"{tool}: {name} is missing; give it as a whole number."
        return f"{tool}: {name} must be a whole number; got {value!r}."
    return None


def id_error(tool: str, id: int, T: int) -> str | None:
    if id < 0:
        return f"{tool}: id must be 0 or more; got {id}."
    if id >= T:
        if T == 0:
            return f"{tool}: message {id} does not exist; the chat has no messages yet."
        return f"{tool}: message {id} does not exist; the chat has messages 0 to {T - 1}."
    return None


def zoom_error(id: Any, n: Any, T: int) -> str | None:
    """None if zoom(id, n) names a line of the chat's tree; else the error text for the model.

    `n` is a power of 2 and `id` a multiple of `n` [gist §6]; the line id+n covers messages id to
    id + n - 1, which must all exist in a chat of T messages (ids 0 to T - 1)."""
    error = whole_number_error("zoom", "id", id) or whole_number_error("zoom", "n", n)
    if error:
        return error
    if n < 1 or n & (n - 1):
        return f"zoom: n must be a power of 2 (1, 2, 4, 8, ...); got {n}."
    error = id_error("zoom", id, T)
    if error:
        return error
    if id % n:
        start = id - id % n
        return (f"zoom: id must be a multiple of n; {id} is not a multiple of {n}. "
                f"The line of {n} that holds message {id} is {start}+{n}.")
    if id + n > T:
        return (f"zoom: line {id}+{n} would cover messages {id} to {id + n - 1}, but the chat "
                f"has messages 0 to {T - 1}.")
    return None


def zoom_arguments(words: Sequence[str]) -> tuple[int, int] | None:
    """(id, n) from `ID N` or from the view's own name for a line, `ID+N`; None if neither."""
    if len(words) == 1 and words[0].count("+") == 1:
        words = words[0].split("+")
    if len(words) != 2:
        return None
    try:
        return int(words[0]), int(words[1])
    except ValueError:
        return None


def page_error(n: int, page: Any) -> str | None:
    """None if `page` can go with zoom(id, n); the message's own page count is checked by the
    memory, which knows it."""
    error = whole_number_error("zoom", "page", page)
    if error:
        return error
    if page < 1:
        return f"zoom: page must be 1 or more; got {page}."
    if n != 1 and page != 1:
        return f"zoom: only a message (n = 1) comes in pages; line id+{n} is two lines."
    return None


def date_error(id: Any, T: int) -> str | None:
    """None if date(id) names a message of a chat of T messages; else the error text."""
    return whole_number_error("date", "id", id) or id_error("date", id, T)
