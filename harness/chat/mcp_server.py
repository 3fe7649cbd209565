"""`ever mcp`: the chat's memory as tools over MCP, for any agent [gist §9] [R2].

Served with the official SDK (`mcp`), over stdio for a client that starts it (Claude Code's
`claude mcp add`, Codex's `[mcp_servers]`), or over streamable HTTP on 127.0.0.1 with a random
secret in the URL's path, the gist's words: a request without it finds nothing (404), and the
SDK's DNS-rebinding guard refuses any `Host` but the loopback's.

Every answer comes from the chat's owner over its socket when one runs, else from the chat opened
here read-only (harness/owner/sender.py `local_answer`): `view` is what the next turn would send,
byte for byte. `send` (a message into the chat, answered as any turn) is offered only when the
user starts the server with `--allow-send`; a message sent so carries no approval, so the tools
that ask first are declined for it, as for `ever send` without `--yes`.
"""

import logging
import re
import secrets
import socket
import sys
from collections.abc import Callable
from typing import Any

from harness.calls.tool import MCP, offered
from harness.chat.config import Settings

INSTRUCTIONS = (
    "Ever is an AI agent living in one chat that never ends; these tools read its memory. The "
    "memory is the whole chat, every message logged word for word, compressed into a binary tree of "
    "one-line summaries. `view` gives the chat as Ever sees it: lines `id+n|text`, each summarizing "
    "the n messages from id on, oldest first, recent lines fine and old ones coarse. `zoom(id, n)` "
    "opens a line into the two lines under it; `zoom(id, 1)` gives message id whole. `search` finds "
    "messages by their words and names the view line that covers each. `date(id)` gives when message "
    "id was written. Message kinds: user (the user's words), ever (Ever's replies), tool (its tool "
    "calls), echo (tool results), work (a subagent's report), note (imported history).")

Ask = Callable[[dict[str, Any]], Any]
EMPTY_REPLY = "[answered with an empty reply: the message is logged, and Ever said nothing to it]"


def build_server(settings: Settings, allow_send: bool, ask: Ask | None = None):
    """The MCP server and its tools; `ask` answers a memory request (the owner's, or the chat's
    opened here)."""
    from mcp.server import MCPServer

    from harness.owner.sender import local_answer, send_once

    async def asked(request: dict[str, Any]) -> dict[str, Any]:
        if ask is not None:
            return await ask(request)
        return await local_answer(settings, request)

    class Answer(dict):
        """[S26] An answer whose field a refused request lacks reads as its one sentence."""

        def __missing__(self, name: str) -> str:
            return str(self.get("error") or f"no {name} in the chat's answer")

    async def answer(request: dict[str, Any]) -> dict[str, Any]:
        try:
            return Answer(await asked(request))
        except Exception as error:  # [S26] the MCP client hears one sentence, never a traceback
            return Answer(error=f"{request.get('op')}: the chat could not answer ({type(error).__name__}: {error})")

    server = MCPServer(name="ever", instructions=INSTRUCTIONS)

    async def view() -> str:
        return (await answer({"op": "view"}))["view"]

    async def zoom(id: int, n: int = 1, page: int = 1) -> str:
        return (await answer({"op": "zoom", "id": id, "n": n, "page": page}))["text"]

    async def search(query: str, page: int = 1) -> str:
        from harness.memory.search import Found, found_text

        reply = await answer({"op": "search", "query": query, "page": page})
        if "error" in reply:
            return f"search: {reply['error']}"
        return found_text(Found.from_dict(reply["found"]))

    async def date(id: int) -> str:
        return (await answer({"op": "date", "id": id}))["text"]

    async def send(message: str) -> str:
        try:
            reply = await send_once(settings, message, yes=False)
        except Exception as error:  # [S26] the owner silent, a setting to fix: one sentence
            return f"[not answered: {type(error).__name__}: {error}]"
        if reply.get("error"):
            return f"{reply.get('reply', '')}\n[not answered: {reply['error']}]".strip()
        # [S26] a turn whose reply was empty (the model said nothing) is still an answer in words:
        # the client would read an empty result as a tool that failed (found by `make sim`, seed 131)
        return reply["reply"] or EMPTY_REPLY

    # the registry's MCP tools, in its order, each with its MCP words (harness/calls/tool.py)
    runs = {"view": view, "zoom": zoom, "search": search, "date": date, "send": send}
    for tool in offered(MCP):
        if tool.name == "send" and not allow_send:
            continue
        server.add_tool(runs[tool.name], name=tool.name, description=tool.mcp_description)
    return server


# [H16] the loggers that would write a request's URL (its userinfo: a password in the base URL), a
# session id or a request line: kept at WARNING, and every record's text has a URL's userinfo
# hidden, whoever configured the handlers
CHATTY_LOGGERS = ("httpx", "httpx2", "httpcore", "anthropic", "mcp", "uvicorn", "uvicorn.access", "uvicorn.error")
URL_USERINFO = re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s@]*@")


def quiet_logs() -> None:
    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    made = logging.getLogRecordFactory()
    if getattr(made, "hides_userinfo", False):
        return

    def record(*args: Any, **kwargs: Any) -> logging.LogRecord:
        made_record = made(*args, **kwargs)
        try:
            text = made_record.getMessage()
        except Exception:  # a record whose arguments do not format: left to logging's own report
            return made_record
        hidden = URL_USERINFO.sub(r"\1<hidden>@", text)
        if hidden != text:
            made_record.msg, made_record.args = hidden, ()
        return made_record

    record.hides_userinfo = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(record)


def serve_stdio(settings: Settings, allow_send: bool) -> None:
    server = build_server(settings, allow_send)
    quiet_logs()
    server.run("stdio")


def serve_http(settings: Settings, allow_send: bool, port: int, say: Callable[[str], None],
               secret: str | None = None) -> None:
    """Streamable HTTP on 127.0.0.1:port (0: any free port) at /SECRET/mcp, until stopped."""
    import anyio
    import uvicorn

    secret = secret or secrets.token_urlsafe(24)
    path = f"/{secret}/mcp"
    app = build_server(settings, allow_send).streamable_http_app(streamable_http_path=path,
                                                                  host="127.0.0.1")
    quiet_logs()
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listening.bind(("127.0.0.1", port))
    # listening before the URL is said: a client that reads it at once waits in the backlog
    # instead of being refused while the server still starts
    listening.listen(128)
    # access_log off: each request's path holds the secret, and a log is where secrets leak
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    say(f"Ever's memory over MCP at http://127.0.0.1:{listening.getsockname()[1]}{path} "
        f"(the URL is the key: anyone with it reads the chat); Ctrl-C stops it.")
    sys.stdout.flush()
    anyio.run(lambda: server.serve(sockets=[listening]))
