"""The checks on a tool call's arguments, each giving the one sentence the model reads when they
do not fit: the work tools' inputs against their JSON Schemas (`input_error`), and zoom's and
date's ids, sizes and pages against the chat [gist §6]. No SDK here.
"""

import math
from collections.abc import Mapping, Sequence
from typing import Any

from harness.calls.shell import SHELL_TIMEOUT_SECONDS_MAX

# The input each work tool takes, as JSON Schema: the tool definitions (harness/calls/prompt.py) can use
# these so that what the model is told and what the code checks cannot drift.
INPUT_SCHEMAS: dict[str, dict[str, Any]] = {
    "shell": {
        "type": "object",
        "properties": {
            "command": {"type": "string"},
            "timeout_seconds": {"type": "integer", "minimum": 1,
                                "maximum": SHELL_TIMEOUT_SECONDS_MAX},
        },
        "required": ["command"],
    },
    "read": {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "offset": {"type": "integer", "minimum": 1},
            "limit": {"type": "integer", "minimum": 1},
        },
        "required": ["path"],
    },
    "write": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
    "edit": {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "old_text": {"type": "string"},
            "new_text": {"type": "string"},
        },
        "required": ["path", "old_text", "new_text"],
    },
}


def input_error(name: str, tool_input: Mapping[str, Any]) -> str | None:
    """None if `tool_input` fits the tool's schema; else the error text for the model."""
    schema = INPUT_SCHEMAS[name]
    for key in schema["required"]:
        if key not in tool_input:
            return f"{name}: {key} is missing."
    for key, value in tool_input.items():
        expected = schema["properties"].get(key)
        if expected is None:
            return f"{name}: there is no input {key!r}; it takes {', '.join(schema['properties'])}."
        if expected["type"] == "string" and not isinstance(value, str):
            return f"{name}: {key} must be a string; got {value!r}."
        if expected["type"] == "integer":
            if isinstance(value, bool) or not isinstance(value, int):
                return f"{name}: {key} must be a whole number; got {value!r}."
            if value < expected.get("minimum", -math.inf):
                return f"{name}: {key} must be at least {expected['minimum']}; got {value}."
            if value > expected.get("maximum", math.inf):
                return f"{name}: {key} must be at most {expected['maximum']}; got {value}."
    if name == "shell" and not tool_input["command"].strip():
        return "shell: command is empty."
    if "path" in tool_input and not tool_input["path"]:
        return f"{name}: path is empty."
    return None


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
