"""`ever chat`'s terminal: one input loop, whichever process owns the chat.

Lines are printed, never redrawn, so scrollback works; a line editor lets the user type while a
reply streams. The same loop (`run_terminal`) serves the owner's own terminal and a terminal
attached over the socket: each gives it a `Sink` (harness/chat/local.py, harness/chat/attached.py)
that takes what it cannot answer itself (a message, a question's answer, a /command, Ctrl-C), and
shows the owner's events (harness/owner/protocol.py) on one `Terminal`. History, questions, the
message's limit, /commands, Ctrl-C and leaving are handled here, once.
"""


import asyncio
import contextlib
import os
import re
import shlex
import shutil
import sys
import time
from typing import Any, Protocol

import click

from harness.calls.approval import approval_summary
from harness.calls.redaction import redact
from harness.chat.config import Settings, ensure_home
from harness.memory.text import valid_text
from harness.owner import protocol
from harness.owner.protocol import Event

DIM, BOLD, RESET = "\x1b[2m", "\x1b[1m", "\x1b[0m"
STYLE = re.compile("\x1b\\[[0-9;]*m")
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


ANSWER_WORDS = {"y", "yes", "a", "always", "n", "no"}  # any other line typed at a question is a message


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
        self.questions: list[tuple[int, str]] = []  # a tool's questions, the first one asked now
        self.waits: dict[str, tuple[str, float]] = {}  # what the chat waits for, and until when
        self.changed = lambda: None  # the line editor redraws its prompt
        # a pipe or a file reads no style: `ever chat > file`, `echo hi | ever chat | less`
        self.plain = stream is None and not sys.stdout.isatty()
        self.answers = 0  # the ends of turns and the commands' answers shown: a piped chat waits for them

    def show(self, event: Event) -> None:
        """One of the owner's events, as every terminal shows it."""
        if isinstance(event, protocol.Text):
            self.text(event.delta)
        elif isinstance(event, protocol.Thinking):
            self.thinking(event.delta)
        elif isinstance(event, protocol.Tool):
            self.tool(event.name, event.input)
        elif isinstance(event, protocol.Result):
            self.result(event.text, event.is_error)
        elif isinstance(event, protocol.Notice):
            self.notice(event.sentence, event.aside)
        elif isinstance(event, protocol.Row):
            self.row(f"{DIM}{self.shown(event.text)}{RESET}\n")
        elif isinstance(event, protocol.End):
            self.end_reply()
            self._write(f"{DIM}{self.shown(event.status)}{RESET}\n")
            self.answers += 1
        elif isinstance(event, protocol.Wait):
            if event.what:
                self.waits[event.source] = (event.what, time.monotonic() + (event.seconds or 0.0))
            else:
                self.waits.pop(event.source, None)
        elif isinstance(event, protocol.Question):
            self.questions.append((event.id, self.shown(event.text)))
        elif isinstance(event, protocol.Answered):
            self.questions[:] = [question for question in self.questions if question[0] != event.id]
        elif isinstance(event, protocol.Reply):
            self._write(self.shown(event.text) + "\n")
            self.answers += 1
        self.changed()

    def prompt(self) -> str:
        """The prompt: the first question waiting, else what the chat waits for above `› `."""
        if self.questions:
            return self.questions[0][1]
        return waiting_prompt(self, self.waits)

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
        if self.plain:
            text = STYLE.sub("", text)  # Ever's own styles: whatever the model wrote is made visible
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

    def notice(self, sentence: str, aside: bool = False) -> None:
        """A line to show. An aside (another sender's message, named) waits for the streaming
        reply's end, as a `memory:` row does: shown at once it would cut the reply's line in two."""
        if aside and self.replying:
            self.held.append(f"{self.shown(sentence)}\n")
            return
        self.end_line()
        self._write(f"{self.shown(sentence)}\n")


class Sink(Protocol):
    """Where a terminal's lines go: the owner in this process, or the one over the socket."""

    def say(self, text: str) -> None: ...  # a message, as typed (its limit checked here first)
    def answer(self, number: int, text: str) -> None: ...  # a tool's question answered
    def command(self, text: str) -> None: ...  # a /command: its answer comes as a Reply event
    def interrupt(self) -> None: ...  # Ctrl-C


async def run_terminal(settings: Settings, sink: Sink, terminal: "Terminal", gone: asyncio.Event) -> None:
    """The one input loop: until the person leaves (/exit, Ctrl-D) or `gone` is set (the owner
    went). A line typed while a question waits and reading as an answer answers it; anything
    else is a message or a command. Every line taken is kept in the history file, as the chat
    keeps it (valid, the key hidden), whichever process owns the chat."""
    if not sys.stdin.isatty():
        await run_piped(sink, terminal, gone)
        return
    from prompt_toolkit import PromptSession
    from prompt_toolkit.patch_stdout import patch_stdout

    from harness.memory.accepted import MESSAGE_BYTES_MAX, too_long_sentence

    history = _history(settings)
    session: PromptSession = PromptSession(history=history, input=_terminal_input(),
                                           key_bindings=_line_breaks())
    terminal.changed = session.app.invalidate

    async def tick() -> None:
        while True:
            await asyncio.sleep(0.5)
            if terminal.waits:  # the countdown [C12]
                session.app.invalidate()

    async def watch() -> None:
        await gone.wait()
        if session.app.is_running:
            session.app.exit(exception=EOFError())

    helpers = [asyncio.create_task(tick()), asyncio.create_task(watch())]
    bare = BareLeave()
    try:
        with patch_stdout(raw=True):
            while not gone.is_set():
                try:
                    text = await session.prompt_async(terminal.prompt)
                except KeyboardInterrupt:
                    sink.interrupt()  # a question waiting hears no; the running call stops
                    continue
                except EOFError:
                    break
                if gone.is_set():
                    break
                if terminal.questions and text.strip().lower() in ANSWER_WORDS:
                    history.keep(text)
                    number, _ = terminal.questions.pop(0)  # the editor leaves question and answer shown
                    sink.answer(number, text.strip())
                    continue
                what, text = typed(text, terminal, bare)
                if what == "leave":
                    break
                if what == "slash":
                    history.keep(redact(valid_text(text), terminal.secrets))
                    sink.command(text)
                elif what == "say":
                    # the final line break of an editor's file or of a paste is not the user's
                    text = text.rstrip("\n")
                    size = len(text.encode("utf-8", "surrogatepass"))
                    if size > MESSAGE_BYTES_MAX:  # [S12] one sentence; the prompt is free for the next
                        terminal.notice(f"{too_long_sentence(size)}.")
                        continue
                    history.keep(redact(valid_text(text), terminal.secrets))  # the key hidden [H3]
                    sink.say(text)
    finally:
        for helper in helpers:
            helper.cancel()
        terminal.end_line()


async def run_piped(sink: Sink, terminal: "Terminal", gone: asyncio.Event) -> None:
    """`echo hi | ever chat`: no line editor (it would draw its prompt into the output); each
    line read is a message, a command or a question's answer, as typed, and the next is read once
    the turn it started has ended or asks a question, so a script's replies come in order. The
    end of the input leaves the chat."""
    from harness.memory.accepted import MESSAGE_BYTES_MAX, too_long_sentence

    bare = BareLeave()
    while not gone.is_set():
        line = await asyncio.to_thread(sys.stdin.readline)
        if not line:
            break
        text = line.removesuffix("\n")
        answers, asked = terminal.answers, len(terminal.questions)
        if terminal.questions and text.strip().lower() in ANSWER_WORDS:
            number, _ = terminal.questions.pop(0)
            asked -= 1
            sink.answer(number, text.strip())
        else:
            what, text = typed(text, terminal, bare)
            if what == "leave":
                break
            if what == "slash":
                sink.command(text)
            elif what == "say":
                size = len(text.encode("utf-8", "surrogatepass"))
                if size > MESSAGE_BYTES_MAX:  # [S12]
                    terminal.notice(f"{too_long_sentence(size)}.")
                    continue
                sink.say(text)
            else:
                continue
        while terminal.answers == answers and len(terminal.questions) <= asked and not gone.is_set():
            await asyncio.sleep(0.05)  # the events arrive on this loop: a turn's end, a question
    terminal.end_line()


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
    """The prompt, with what the chat waits for and its countdown on the line above [C12]: the
    seconds "left", so they never read as the seconds gone."""
    if not waits:
        return "› "
    now = time.monotonic()
    shown = " | ".join(f"{terminal.shown(what)} · {max(0.0, deadline - now):.0f} s left · Ctrl-C stops"
                       for what, deadline in waits.values())
    return f"({shown})\n› "


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
    """The terminal's input, read with `paste_parser`, and left raw while the chat prints."""
    from prompt_toolkit.input import create_input
    from prompt_toolkit.input.vt100 import Vt100Input

    terminal_input = create_input()
    if isinstance(terminal_input, Vt100Input):
        terminal_input.vt100_parser = paste_parser(terminal_input.vt100_parser.feed_key_callback)
        # patch_stdout prints each line "in the terminal", which puts the tty in cooked mode for
        # the write: a Ctrl-D typed then was the line discipline's end of file and never reached
        # the chat, a Ctrl-C a signal, and keys were echoed into the reply. Printing needs no
        # cooked mode (raw mode leaves the output's line breaks alone), and the editor of /edit
        # runs after the prompt has given the terminal back.
        terminal_input.cooked_mode = contextlib.nullcontext
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

