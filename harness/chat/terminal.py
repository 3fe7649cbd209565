"""`ever chat`: the chat in a plain terminal.

Lines are printed, never redrawn, so scrollback works; a line editor lets the user type while a
reply streams. The chat itself (the memory, the turns, the socket) is harness/chat/session.py.
"""


import asyncio
import os
import shlex
import shutil
import sys
import time
from typing import Any

import click

from harness.calls.approval import Answer, approval_summary
from harness.calls.arguments import zoom_arguments
from harness.calls.redaction import redact
from harness.chat import owner
from harness.chat.config import ConfigError, Settings, ensure_home, load_settings, set_memory_model
from harness.chat.hub import Hub
from harness.chat.session import Chat, counted, open_chat
from harness.memory.accepted import Accepted, TooLong
from harness.memory.store import ChatBusy
from harness.memory.text import valid_text

DIM, BOLD, RESET = "\x1b[2m", "\x1b[1m", "\x1b[0m"
HELP = """\
/memory               the memory's status and every line of the view
/memory zoom ID N     open line ID+N (or: /memory zoom ID+N)
/memory-model [MODEL] [THINKING]   the compaction model and its thinking: off, an effort or a budget (saved)
/agents              the subagents: running or how they ended, and their cost
/stop NAME            stop a subagent (Ctrl-C with no call running stops the newest); it reports
/tell NAME TEXT       tell a running subagent TEXT: it reads it between its tool calls
/quiet                hide the memory: rows in this terminal, or show them again
/edit                 write the message in $EDITOR
/help                 this list
Alt-Enter (or Esc, then Enter) starts a new line of the message; a paste stays one message.
Up and Down go through the messages sent before. Ctrl-C stops the running call; Ctrl-D leaves."""


class BareLeave:
    """`exit` or `quit` typed alone, as in a shell, would become a message kept forever: it asks
    first, and an empty line then sends the word; anything else typed is taken as it is."""

    WORDS = ("exit", "quit")

    def __init__(self) -> None:
        self.asked = ""

    def check(self, text: str) -> tuple[str, str]:
        """("ask", question), ("send", the word) or ("go", text)."""
        asked, self.asked = self.asked, ""
        if asked and not text.strip():
            return "send", asked
        if text.strip().lower() in self.WORDS:
            self.asked = text.strip()
            return "ask", f"Leave? /exit leaves; Enter sends '{self.asked}' as a message"
        return "go", text


ANSWERS = {"y": Answer.YES, "yes": Answer.YES, "a": Answer.ALWAYS, "always": Answer.ALWAYS}
ANSWER_WORDS = set(ANSWERS) | {"n", "no"}  # any other line typed at a question is a message


# Characters that draw nothing yet change what is read: bidi controls reorder the text around them
# (a command can read differently from what runs), zero-width ones hide inside words. Shown as
# `<U+202E>` wherever text is shown, an emoji's zero-width joiner included [H4].
INVISIBLE = frozenset([0x00AD, 0x061C, 0x180E, 0xFEFF, *range(0x200B, 0x2010), *range(0x202A, 0x202F),
                       *range(0x2060, 0x2070)])


def visible(text: str) -> str:
    """`text` safe to print: control characters but newline and tab in caret notation (`^[` for
    Esc), C1 controls as `\x9b`, bidi controls and zero-width characters as `<U+202E>`, lone
    surrogates as U+FFFD. A reply, a tool's result or a zoomed message could otherwise set the
    window's title, move the cursor, clear the screen, or show other text than is there."""
    out = []
    for character in valid_text(text):
        code = ord(character)
        if code in INVISIBLE:
            out.append(f"<U+{code:04X}>")
        elif character in "\n\t" or (0x20 <= code < 0x7F) or code > 0x9F:
            out.append(character)
        elif code < 0x20:
            out.append("^" + chr(code + 64))
        elif code == 0x7F:
            out.append("^?")
        else:
            out.append(f"\\x{code:02x}")
    return "".join(out)


class Terminal:
    """A turn's output in a plain terminal: the reply streamed, thoughts dimmed, tools in a line
    each. The line editor keeps its prompt under the output, and a line it redraws under is
    erased, so the stream is written a whole line at a time: at each newline, or once a line
    fills the terminal's width."""

    def __init__(self, stream=None):
        self.stream = stream  # None: sys.stdout at each write, which the line editor patches
        self.pending = ""
        self.style = ""
        self.secrets: tuple[str, ...] = ()  # hidden in whatever is shown [H3]
        self.replying = False  # a reply streams: `memory:` rows wait for its end
        self.held: list[str] = []
        self.quiet = False  # no `memory:` rows: the setting memory.quiet, or /quiet

    def row(self, text: str) -> None:
        """A `memory:` row: now, or after the reply that is streaming, never inside it."""
        if self.quiet:
            return
        if self.replying:
            self.held.append(text)
        else:
            self._write(text)

    def end_reply(self) -> None:
        self.end_line()
        self.replying = False
        held, self.held = self.held, []
        for text in held:
            self._write(text)

    def shown(self, text: str) -> str:
        """What may be printed of a text Ever did not write: the key hidden, controls visible."""
        return visible(redact(text, self.secrets))

    def _write(self, text: str) -> None:
        stream = self.stream or sys.stdout
        stream.write(text)
        stream.flush()

    def _stream(self, delta: str, style: str) -> None:
        if style != self.style:
            self.end_line()
            self.style = style
        self.pending += delta
        width = max(20, shutil.get_terminal_size((100, 24)).columns - 1)
        while True:
            cut = self.pending.find("\n")
            if cut < 0 and len(self.pending) >= width:
                cut = self.pending.rfind(" ", 0, width)
                cut = width if cut <= 0 else cut
            if cut < 0:
                return
            line = self.shown(self.pending[:cut])
            # the newline, or the space the line broke at, is not carried to the next line
            skip = 1 if cut < len(self.pending) and self.pending[cut] in " \n" else 0
            self.pending = self.pending[cut + skip:]
            self._write(f"{self.style}{line}{RESET if self.style else ''}\n")

    def end_line(self) -> None:
        if self.pending:
            self._write(f"{self.style}{self.shown(self.pending)}{RESET if self.style else ''}\n")
            self.pending = ""

    def text(self, delta: str) -> None:
        self.replying = True
        self._stream(delta, "")

    def thinking(self, delta: str) -> None:
        self.replying = True
        self._stream(delta, DIM)

    def tool(self, name: str, tool_input: dict[str, Any]) -> None:
        self.end_reply()  # the reply's text ended where the tool call begins
        self._write(f"{DIM}· {self.shown(approval_summary(name, tool_input))}{RESET}\n")

    def result(self, text: str, is_error: bool) -> None:
        first = text.strip().splitlines()[0] if text.strip() else ""
        mark = "✗" if is_error else "→"
        self._write(f"{DIM}  {mark} {self.shown(first[:160])}{RESET}\n")

    def notice(self, sentence: str) -> None:
        self.end_line()
        self._write(f"{self.shown(sentence)}\n")


async def run_chat(settings: Settings, yes: bool = False, api_key: str | None = None) -> None:
    """`ever chat`; `api_key` stands in for the configured key (the demo's)."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.patch_stdout import patch_stdout

    terminal = Terminal()
    terminal.quiet = settings.memory_quiet
    history = _history(settings)
    session: PromptSession = PromptSession(history=history, input=_terminal_input(),
                                           key_bindings=_line_breaks())
    loop = asyncio.get_running_loop()
    # a tool's question waiting for its answer: (the question, the future the tool thread awaits)
    questions: list[tuple[str, asyncio.Future[str]]] = []

    def local_question(text: str) -> "asyncio.Future[str]":
        """A tool's question in this terminal. It is the prompt itself until answered, so a row
        printed meanwhile cannot erase it; a line that is not an answer is a message, and it asks
        on. An attached terminal may answer first: then it stops asking here."""
        answer = loop.create_future()
        questions.append((terminal.shown(text), answer))
        session.app.invalidate()
        return answer

    hub = Hub(local=terminal, local_question=local_question)
    hub.loop = loop

    def changed(row: str) -> None:
        terminal.row(f"{DIM}{terminal.shown(row)}{RESET}\n")
        hub.row(row)

    try:
        chat = await open_chat(settings, hub, ask=hub.ask, yes=yes, on_change=changed,
                               api_key=api_key)
    except ChatBusy:
        raise
    chat.hub = hub
    hub.slash = lambda text: slash_answer(chat, text)
    terminal.secrets = (chat.client.settings.api_key,)
    # [C12] what the chat waits for, with a countdown, on the line above the prompt
    # while it waits (the line editor redraws it; a bottom toolbar would need the terminal to
    # report its cursor, which not every terminal does)
    waits: dict[str, tuple[str, float]] = {}

    def prompt_text() -> str:
        questions[:] = [question for question in questions if not question[1].done()]
        if questions:
            return questions[0][0]
        return waiting_prompt(terminal, waits)

    def waiting(source: str):
        def on_wait(what: str | None, deadline: float | None) -> None:
            if what is None:
                if waits.pop(source, None) is None:
                    return
            else:
                waits[source] = (what, deadline)
            hub.wait(what, None if deadline is None else max(0.0, deadline - time.monotonic()))
            session.app.invalidate()
        return on_wait

    async def tick() -> None:
        while True:
            await asyncio.sleep(0.5)
            if waits:
                session.app.invalidate()

    chat.client.on_wait = waiting("call")
    chat.memory.on_wait = waiting("memory")
    ticking = asyncio.create_task(tick())
    server = await owner.serve(chat, settings.chat_dir / "socket")
    status = chat.memory.status()
    lines = chat.memory.render().split("\n")[1:-1]
    terminal._write(f"Ever · {counted(status['messages'], 'message')} · view {status['view_bytes']:,} "
                    f"bytes, {counted(len(lines), 'line')} · /help\n")
    for warning in chat.memory.store.warnings:  # a killed owner's lock taken over, a torn line
        terminal._write(f"{warning}\n")
    for line in lines[-5:]:
        terminal._write(f"{DIM}{terminal.shown(line[:160])}{RESET}\n")
    running: asyncio.Task | None = None
    queued: set = set()
    bare = BareLeave()
    try:
        with patch_stdout(raw=True):
            while True:
                try:
                    text = await session.prompt_async(prompt_text)
                except KeyboardInterrupt:
                    for _, pending in questions:  # the tool thread waits: it hears no
                        if not pending.done():
                            pending.set_result("n")
                    questions.clear()
                    if running is not None and not running.done():
                        running.cancel()
                        terminal.notice("(stopped)")
                    elif chat.stop_call():  # a turn an attached terminal or a script asked for
                        hub.notice("(stopped)")
                    elif chat.turn is not None and chat.agents.starter and not chat.agents.starter.done():
                        chat.agents.starter.cancel()  # a report's own turn
                        terminal.notice("(stopped)")
                    elif chat.agents.newest_running():  # no call runs: the newest subagent stops
                        name = chat.agents.newest_running()
                        chat.agents.stop(name)
                        terminal.notice(f"(stopping the subagent {name}; its report follows)")
                    continue
                except EOFError:
                    for _, pending in questions:
                        if not pending.done():
                            pending.set_result("n")
                    questions.clear()
                    break
                questions[:] = [question for question in questions if not question[1].done()]
                if questions and text.strip().lower() in ANSWER_WORDS:
                    history.keep(text)
                    _, pending = questions.pop(0)  # the line editor leaves question and answer shown
                    pending.set_result(text)  # the answer to a tool's question
                    continue
                what, text = typed(text, terminal, bare)
                if not what:
                    continue
                if what == "leave":
                    break
                if what == "slash":
                    history.keep(chat.hide(valid_text(text)))
                    try:
                        reply = slash(chat, text, HELP, set_memory_model)
                    except ConfigError as error:
                        reply = str(error)
                    terminal._write(terminal.shown(reply) + "\n")
                    continue
                # the final line break of an editor's file or of a paste is not the user's
                try:
                    message = chat.entering(text.rstrip("\n"), None, "terminal")
                except TooLong as error:  # [S12] one sentence; the prompt is free for the next
                    terminal.notice(f"{error}.")
                    continue
                history.keep(message.text)  # the key hidden: the history file never holds it
                if running is not None and not running.done():
                    if chat.turn is not None:
                        chat.join(message)  # joins the running call between tool calls
                    else:  # the running task has not started its turn yet: the next one
                        queued.add(asyncio.create_task(chat.say(message)))
                        queued = {task for task in queued if not task.done()}
                    continue
                running = asyncio.create_task(_turn_then_status(chat, message, terminal))
    finally:
        ticking.cancel()
        chat.client.on_wait = chat.memory.on_wait = None
        if running is not None and not running.done():
            running.cancel()
        server.close()
        await chat.agents.close()  # each running subagent stops and its report is logged
        await chat.memory.idle_or_stop(2.0)
        chat.memory.close()
        await chat.close_clients()


async def _turn_then_status(chat: Chat, message: Accepted, terminal: Terminal) -> None:
    try:
        await chat.say(message, terminal)
    except asyncio.CancelledError:
        terminal.end_reply()
        terminal.notice("(the call was stopped; your message and what was shown of the reply are in the log)")
        raise
    terminal.end_reply()
    terminal._write(f"{DIM}{chat.status_line()}{RESET}\n")


def typed(text: str, terminal: Terminal, bare: BareLeave) -> tuple[str, str]:
    """What a line typed in any terminal, owner's or attached, asks of the chat once the terminal
    has answered what it answers itself (a bare exit's question, /quiet, /edit's problem, an empty
    line): ("", "") nothing more, ("leave", ""), ("slash", the command) or ("say", the message)."""
    action, text = bare.check(text)
    if action == "ask":
        terminal._write(text + "\n")
        return "", ""
    # a message is logged as typed or pasted, indentation and all; a command is one line
    command = text.strip()
    if not command:
        return "", ""
    if command in ("/exit", "/quit"):
        return "leave", ""
    if command == "/quiet":
        terminal._write(quiet_toggled(terminal))
        return "", ""
    if command == "/edit":
        text, problem = _edit()
        if problem:
            terminal._write(problem + "\n")
            return "", ""
        return "say", text
    if command.startswith("/") and "\n" not in command:
        return "slash", command
    return "say", text


def quiet_toggled(terminal: Terminal) -> str:
    """`/quiet`: this terminal's `memory:` rows hidden, or shown again."""
    terminal.quiet = not terminal.quiet
    if terminal.quiet:
        return "(memory: rows hidden here; /quiet shows them again)\n"
    return "(memory: rows shown again)\n"


def waiting_prompt(terminal: "Terminal", waits: dict) -> str:
    """The prompt, with what the chat waits for and its countdown on the line above [C12]."""
    if not waits:
        return "› "
    now = time.monotonic()
    shown = " | ".join(f"{terminal.shown(what)} · {max(0.0, deadline - now):.0f} s · Ctrl-C stops"
                       for what, deadline in waits.values())
    return f"({shown})\n› "


def slash_answer(chat: Chat, text: str) -> str:
    """A chat command typed in an attached terminal, answered by the owner."""
    try:
        return slash(chat, text.strip(), HELP, set_memory_model)
    except ConfigError as error:
        return str(error)


def slash(chat: Chat, text: str, help_text: str, set_model) -> str:
    """The answer to a chat command."""
    words = text.split()
    if words[0] == "/help":
        return help_text
    if words[0] == "/tell":
        parts = text.split(None, 2)
        if len(parts) < 3:
            return "usage: /tell NAME TEXT"
        return chat.agents.tell(parts[1], parts[2], "the user")[1].removeprefix("tell: ")
    if words[0] in ("/agents", "/stop"):
        from harness.chat.agentlist import listing, listing_text

        if words[0] == "/agents":
            return listing_text(listing(chat.memory.store.chat))
        if len(words) != 2:
            return "usage: /stop NAME"
        if chat.agents.stop(words[1]):
            return f"(stopping the subagent {words[1]}; its report follows)"
        return f"no subagent named {words[1]} is running"
    if words[0] == "/memory" and len(words) == 1:
        status = chat.memory.status()
        rows = [f"{key}: {value}" for key, value in status.items()]
        return "\n".join(rows) + "\n" + chat.memory.render()
    if words[0] == "/memory" and words[1:2] == ["zoom"]:
        arguments = zoom_arguments(words[2:])  # `ID N`, or the view's `ID+N`
        if arguments is None:
            return "usage: /memory zoom ID N"
        first, n = arguments
        from harness.memory.images import named_images

        text = chat.memory.zoom(first, n)
        return named_images(text, chat.memory.store.chat) if n == 1 else text
    if words[0] == "/memory":
        return "usage: /memory, or /memory zoom ID N"
    if words[0] == "/memory-model":
        if len(words) > 3:
            return "usage: /memory-model [MODEL] [THINKING]"
        answer = set_model(words[1] if len(words) > 1 else None, words[2] if len(words) > 2 else None)
        chat.set_memory_model(load_settings())
        return answer
    return f"unknown command {words[0]}: /help lists them"


def _edit() -> tuple[str, str]:
    """The message written in $VISUAL or $EDITOR, or a sentence saying why there is none."""
    variable = "VISUAL" if os.environ.get("VISUAL") else "EDITOR"
    editor = os.environ.get(variable)
    if not editor:
        # click would fall back to Debian's select-editor, which asks in a terminal left raw
        return "", "(no editor: set EDITOR, or VISUAL, to the program to write the message in; nothing sent)"
    if editor:
        try:
            program = shlex.split(editor)[0]
        except (ValueError, IndexError):
            program = editor
        if shutil.which(program) is None:
            return "", f"(no editor: {variable} names {program}, which is not a program here; nothing sent)"
    try:
        # whatever the file holds when the editor exits is the message, saved twice or not at all
        text = click.edit("", require_save=False) or ""
    except click.ClickException as error:
        return "", f"({error.format_message()}; nothing sent)"
    if not text.strip():
        return "", "(the editor left the message empty: nothing sent)"
    return text, ""


def _line_breaks():
    """Alt-Enter (a terminal sends Esc, then Enter) starts a new line of the same message."""
    from prompt_toolkit.key_binding import KeyBindings

    bindings = KeyBindings()

    @bindings.add("escape", "enter")
    def _(event) -> None:
        event.current_buffer.insert_text("\n")

    return bindings


def paste_parser(feed_key_callback):
    """prompt_toolkit's VT100 input parser, with a bracketed paste read in linear time. Its own
    adds each read (1 KB) of a paste to one string and searches all of it for the paste's end: a
    10 MB paste took 96 s there. This one keeps the reads in a list and looks for the end only
    in each new read and the few characters before it."""
    from prompt_toolkit.input.vt100_parser import Vt100Parser
    from prompt_toolkit.key_binding.key_processor import KeyPress
    from prompt_toolkit.keys import Keys

    end_mark = "\x1b[201~"

    class PasteParser(Vt100Parser):
        def reset(self, request: bool = False) -> None:
            super().reset(request)
            self._pasted: list[str] = []
            self._carry = ""  # the end mark may straddle two reads

        def feed(self, data: str) -> None:
            if not self._in_bracketed_paste:
                super().feed(data)  # calls feed again from where a paste starts
                return
            window = self._carry + data
            end = window.find(end_mark)
            if end < 0:
                keep = max(0, len(window) - (len(end_mark) - 1))
                self._pasted.append(window[:keep])
                self._carry = window[keep:]
                return
            self._pasted.append(window[:end])
            pasted = "".join(self._pasted)
            self._pasted, self._carry = [], ""
            self._in_bracketed_paste = False
            self.feed_key_callback(KeyPress(Keys.BracketedPaste, pasted))
            self.feed(window[end + len(end_mark):])

    return PasteParser(feed_key_callback)


def _terminal_input():
    """The terminal's input, read with `paste_parser`."""
    from prompt_toolkit.input import create_input
    from prompt_toolkit.input.vt100 import Vt100Input

    terminal_input = create_input()
    if isinstance(terminal_input, Vt100Input):
        terminal_input.vt100_parser = paste_parser(terminal_input.vt100_parser.feed_key_callback)
    return terminal_input


def _history(settings: Settings):
    from prompt_toolkit.history import FileHistory

    class KeptHistory(FileHistory):
        """The line editor's history keeps what the chat took, as the chat keeps it: a message's
        text as it entered (valid, the key hidden [P14] [H3]), never the line as typed,
        which the line editor would add on its own before the chat sees it."""

        def append_string(self, string: str) -> None:
            pass  # the line editor's own, with the line as typed

        def keep(self, text: str) -> None:
            try:
                super().append_string(text)
            except OSError:
                pass  # the history is a convenience: a full disk there never stops a message

    path = settings.home / "history"
    ensure_home(settings.home)  # 0700, as the chat's files are the user's alone
    if not path.exists():
        fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
        os.close(fd)
    return KeptHistory(str(path))

