"""Every tool Ever has, each one value, in one registry [H13]: the prompt's tool list, the argument
checks, MCP's tools and the approval question are all read from it, so what the model is told and
what the code checks are one schema.

    tool = TOOLS_BY_NAME["shell"]
    tool.input_schema           # what the model is told, and what `tool.check` holds a call to
    tool.check(tool_input)      # None, or the one sentence the model reads
    tool.summary(tool_input)    # the line of the user's question: what the call would do
    offered(SUBAGENT)           # the tools a subagent is offered, in the prompt's order

A tool says where its call runs (`runs_in`): `work` (harness/calls/tools.py: the user's computer),
`memory` (the chat's memory: zoom, date, search) or `agents` (harness/calls/agents.py); who may call
it (`offered_to`: a turn, a subagent, an MCP client); and whether it asks first (`asks`, [H4]).
A tool's wire form is the provider's (harness/calls/anthropic.py); nothing here knows it.
No SDK here.
"""

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.calls.shell import SHELL_TIMEOUT_SECONDS_MAX

JSON = dict[str, Any]
TURN, SUBAGENT, MCP = "turn", "subagent", "mcp"  # who may call a tool
WORK, MEMORY, AGENTS = "work", "memory", "agents"  # where its call runs
# [H7] the largest file `read` takes, told to the model in the tool's description
READ_BYTES_MAX = 10_000_000


def schema_error(name: str, schema: Mapping[str, Any], tool_input: Mapping[str, Any]) -> str | None:
    """None if `tool_input` fits `schema`; else the error text for the model."""
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


def target(tool_input: Mapping[str, Any]) -> str:
    """The path as the model gave it, and the file that will be touched when that differs (a link
    followed, `..`): the question names the file that changes [H4]."""
    path, resolved = str(tool_input.get("path", "")), tool_input.get("resolved")
    return f"{path} -> {resolved}" if resolved and resolved != path else path


def because(tool_input: Mapping[str, Any]) -> str:
    why = tool_input.get("why")
    return f" [{why}]" if why else ""


def _write_summary(tool_input: Mapping[str, Any]) -> str:
    content = tool_input.get("content", "")
    size = len(content.encode("utf-8", "replace")) if isinstance(content, str) else 0
    return f"write: {target(tool_input)} ({size:,} bytes){because(tool_input)}"


@dataclass(frozen=True)
class Tool:
    """One tool: what the model is told, how a call is checked and summarized, where it runs, who
    may call it, whether it asks first."""

    name: str
    description: str  # the model's words
    input_schema: JSON  # JSON Schema; the one the model is told and the checks hold calls to
    runs_in: str  # WORK, MEMORY or AGENTS
    offered_to: frozenset[str]  # TURN, SUBAGENT, MCP
    asks: bool = False  # asks the user first [H4]
    approvable: bool = False  # `approve` in config.toml may name it
    summary: Callable[[Mapping[str, Any]], str] | None = None  # None: its name
    mcp_description: str = ""  # an MCP client's words, which have no view to lean on; "": none
    checked: bool = False  # its schema is checked here; memory tools check against the chat itself

    def check(self, tool_input: Mapping[str, Any]) -> str | None:
        """None if the call fits the schema; else the one sentence the model reads."""
        if not self.checked:
            return None
        return schema_error(self.name, self.input_schema, tool_input)

    def summarized(self, tool_input: Mapping[str, Any]) -> str:
        return self.summary(tool_input) if self.summary is not None else self.name


def _object(properties: dict, required: Sequence[str]) -> JSON:
    return {"type": "object", "properties": properties, "required": list(required),
            "additionalProperties": False}


_PATH = {"type": "string", "description": "A file path, relative to the working directory or absolute."}
_EVERYONE = frozenset({TURN, SUBAGENT})

TOOLS: tuple[Tool, ...] = (
    Tool(
        "zoom",
        # [gist §6] verbatim
        "Open the line id+n of the view into the two lines of n/2 under it; n = 1 gives the message whole.",
        _object({
            "id": {"type": ["integer", "string"],
                   "description": "The line's first message: a multiple of n; or a subagent's name, "
                                  "for its whole conversation."},
            "n": {"type": "integer", "minimum": 1, "description": "How many messages the line covers: a power of 2."},
            "page": {"type": "integer", "minimum": 1,
                     "description": "With n = 1, a long message comes in pages of 30,000 characters, "
                                    "each headed [message id, page p of k]: the page to give (default 1)."},
        }, ("id",)),
        MEMORY, _EVERYONE | {MCP},
        summary=lambda tool_input: f"zoom({tool_input.get('id', '')}, {tool_input.get('n', '')})",
        mcp_description=(
            "Open line id+n of the view into the two lines of n/2 messages under it; n = 1 gives message "
            "id whole (a long message in pages of 30,000 characters: `page`). id is a multiple of n, n a "
            "power of 2, as the view's `id+n` names them."),
    ),
    Tool(
        "date",
        "The date and time of message id.",  # [gist §6] verbatim
        _object({
            "id": {"type": "integer", "minimum": 0, "description": "A message id."},
        }, ("id",)),
        MEMORY, _EVERYONE | {MCP},
        summary=lambda tool_input: f"date({tool_input.get('id', '')})",
        mcp_description="The date and time (with its UTC offset) when message id was logged.",
    ),
    Tool(
        "search",  # [R1] beside the gist's zoom and date
        "Find the messages that hold these words (all of them, else any), best first: "
        "each hit gives the message's id, date, kind, a snippet and the view line that "
        "covers it, `id (in first+n)`; zoom(id, 1) gives the message whole. For a name, "
        "a number, a path or a command the view's lines may have dropped.",
        _object({
            "query": {"type": "string", "description": "Words to find; \"quoted words\" go together."},
            "page": {"type": "integer", "minimum": 1, "description": "Which page of 10 hits (default 1)."},
        }, ("query",)),
        MEMORY, _EVERYONE | {MCP},
        mcp_description=(
            "Find the messages holding these words (all of them, else any), best first, 10 a page: each "
            "hit is `id (in first+n) date kind: snippet`, where first+n is the view line covering it. "
            "\"quoted words\" go together. zoom(id, 1) gives a hit whole."),
    ),
    Tool(
        "shell",
        "Run a command with bash on the user's computer, in the working directory, and give "
        "its exit status and output (stdout and stderr; a long output is clipped to its head "
        "and tail).",
        _object({
            "command": {"type": "string", "description": "The command line."},
            "timeout_seconds": {"type": "integer", "minimum": 1, "maximum": SHELL_TIMEOUT_SECONDS_MAX,
                                "description": "Stop the command after this many seconds."},
        }, ("command",)),
        WORK, _EVERYONE, asks=True, approvable=True, checked=True,
        summary=lambda tool_input: f"shell: {tool_input.get('command', '')}",
    ),
    Tool(
        "read",
        "Read a text file, whole or `limit` lines from line `offset` (numbered from 1), "
        "with line numbers. An image file comes back as an image. Regular files only, "
        f"of at most {READ_BYTES_MAX:,} bytes: look into a larger one with shell.",
        _object({
            "path": _PATH,
            "offset": {"type": "integer", "minimum": 1, "description": "The first line to read."},
            "limit": {"type": "integer", "minimum": 1, "description": "How many lines to read."},
        }, ("path",)),
        WORK, _EVERYONE, approvable=True, checked=True,
        summary=lambda tool_input: f"read: {target(tool_input)}{because(tool_input)}",
    ),
    Tool(
        "write",
        "Write content to a file, creating it or replacing all it holds.",
        _object({
            "path": _PATH,
            "content": {"type": "string", "description": "The file's whole new content."},
        }, ("path", "content")),
        WORK, _EVERYONE, asks=True, approvable=True, checked=True, summary=_write_summary,
    ),
    Tool(
        "edit",
        "Replace the exact text old_text, which must occur exactly once in the file, with new_text.",
        _object({
            "path": _PATH,
            "old_text": {"type": "string", "description": "The text to replace, exactly as the file holds it."},
            "new_text": {"type": "string", "description": "The text to put in its place."},
        }, ("path", "old_text", "new_text")),
        WORK, _EVERYONE, asks=True, approvable=True, checked=True,
        summary=lambda tool_input: f"edit: {target(tool_input)}{because(tool_input)}",
    ),
    Tool(
        "agent",
        "Start a subagent in the background: a fresh call that sees the view, then the task, "
        "with the shell, read, write, edit, zoom and date tools. Its report reaches you later "
        "as a message \"[Name] report\"; zoom(\"Name\") gives its whole conversation. Only "
        "when the user asks for one.",
        _object({
            "name": {"type": "string", "description": "Its name, unique in the chat: a letter, then "
                                                      "letters, digits, - or _, at most 40."},
            "task": {"type": "string", "description": "What it is to do, in full: it knows only the view "
                                                      "and this."},
        }, ("name", "task")),
        AGENTS, frozenset({TURN}),  # [A4] a subagent starts none
    ),
    Tool(
        "tell",  # [gist §9] tell(id, message)
        "Send a message to a running subagent: it reads it between its tool calls, as "
        "you read the user's. The result says whether it was running; a subagent that "
        "has ended reads nothing more.",
        _object({
            "name": {"type": "string", "description": "The subagent's name, as agent was given it."},
            "message": {"type": "string", "description": "What to tell it, in full."},
        }, ("name", "message")),
        AGENTS, frozenset({TURN}),
    ),
    # [R2] MCP's own: the view whole, and a message sent into the chat (only with --allow-send)
    Tool(
        "view", "", _object({}, ()), MEMORY, frozenset({MCP}),
        mcp_description=(
            "The chat's memory as Ever's next turn sees it, between <chat> tags: one line per "
            "`id+n|summary`, covering messages id to id+n-1, oldest first. Zoom into a line for detail."),
    ),
    Tool(
        "send", "", _object({"message": {"type": "string"}}, ("message",)), MEMORY, frozenset({MCP}),
        mcp_description=(
            "Send a message into Ever's chat, as the user would, and get Ever's reply. It is logged for "
            "ever. Tools that ask first (shell, write, edit) are declined for it."),
    ),
)

TOOLS_BY_NAME: dict[str, Tool] = {tool.name: tool for tool in TOOLS}


def offered(who: str) -> tuple[Tool, ...]:
    """The tools `who` may call, in the registry's order (the prompt's)."""
    return tuple(tool for tool in TOOLS if who in tool.offered_to)


def summary(name: str, tool_input: Mapping[str, Any]) -> str:
    """One line for the user's question: what the call would do."""
    tool = TOOLS_BY_NAME.get(name)
    return tool.summarized(tool_input) if tool is not None else name
