"""`ever`: the chat a person lives in, and the commands around it [gist §6].

    ever / ever chat          the chat, in a plain terminal (no screen redraws: scrollback works)
    ever chat --local         the same with no key: a local API that echoes, in a chat of its own
    ever send TEXT | -        one turn, for scripts; handed to a running `ever chat` if one owns it
    ever memory status|view|zoom ID N [PAGE]
    ever import PATH... [--format F] [--yes]   old sessions as notes
    ever browse [--out F] [--serve]   the whole memory as one HTML page
    ever log                  where the files are
    ever doctor [--repair] [--yes]   what is damaged in the logs; set it aside, never editing them
    ever backup [DEST] [--check]   the chat into a folder or restic, with a manifest; the restore test
    ever restore SRC [--upto ID]   a backup into an empty home: the chat on another machine
    ever forget ID... --why TEXT   messages removed from every place Ever keeps them, proved gone
    ever cost [--json]        tokens, cache reads and writes, and what they cost
    ever simulate [--messages N] [--from-log PATH] [--json]   what a chat costs, beside other designs
    ever agents [--json]      the chat's subagents: running or how they ended, and their cost
    ever bench recall [--messages N] [--questions K] [--file F] [--json]   does the memory remember?

Settings: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, EVER_HOME, EVER_MODEL and `$EVER_HOME/config.toml`
(harness/chat/config.py). The API key is never printed.
"""

import asyncio
import json
import os
import sys
from datetime import UTC
from typing import Any

import click

from harness.chat.config import ConfigError, load_settings
from harness.memory import DAMAGE_LISTENERS
from harness.memory.daylog import StoreError
from harness.memory.lock import ChatBusy


def echo(text: str, err: bool = False, nl: bool = True) -> None:
    """Text on stdout (or stderr) as every command shows it: on a terminal, control characters, bidi
    controls and zero-width characters made visible, as `ever chat` shows them (a reply or a file
    name could otherwise write the clipboard, set the title or clear the screen); to a pipe or a
    file, the text as it is, its bytes being what a script reads."""
    if (sys.stderr if err else sys.stdout).isatty():
        from harness.chat.terminal import visible

        text = visible(text)
    click.echo(text, err=err, nl=nl, color=True)  # click would strip some sequences from a pipe


def fail(sentence: str) -> None:
    echo(f"ever: {sentence}", err=True)
    sys.exit(1)


BUG = "(a bug in Ever: please report it)"


class Registered(click.Choice):
    """A choice among the names a registry holds, read only when a command parses or shows them, so
    that no other command loads the registry's modules (`ever send` above all)."""

    def __init__(self, names) -> None:
        self.names = names
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        return tuple(self.names())

    @choices.setter
    def choices(self, _) -> None:  # click.Choice sets it; the registry says it
        pass


def import_formats() -> tuple[str, ...]:
    from harness.imports.formats import NAMED

    return tuple(NAMED)


class Ever(click.Group):
    """Every command's errors end as one sentence on stderr and exit 1, never a traceback."""

    def invoke(self, context: click.Context):
        from harness.calls.outcomes import SettingsError

        try:
            return super().invoke(context)
        except BrokenPipeError:  # a ConnectionError, but not the chat's
            # the reader went away (`ever memory view | head`): nothing to say, and nothing more
            # to write; stdout goes to /dev/null so the exit's own flush cannot fail again
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
        except (ConfigError, StoreError, SettingsError, ConnectionError) as error:
            fail(str(error))
        except OSError as error:
            where = f"{error.filename}: " if error.filename else ""
            fail(f"{where}{error.strerror or error}.")
        except KeyboardInterrupt:
            echo("", err=True)
            sys.exit(130)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as error:  # what no sentence was written for: still one line
            fail(f"{type(error).__name__}: {error} {BUG}")


@click.group(cls=Ever, invoke_without_command=True)
@click.version_option(package_name="ever", message="ever %(version)s")
@click.pass_context
def main(context: click.Context) -> None:
    """Ever: an AI agent in one chat that never ends."""
    if say_damage not in DAMAGE_LISTENERS:
        DAMAGE_LISTENERS.append(say_damage)  # [S13] every command says damage in the logs
    if context.invoked_subcommand is None:
        context.invoke(chat)


def say_damage(sentence: str) -> None:
    echo(f"ever: {sentence}.", err=True)


MODEL_HELP = ("The turns' model for this process, over the configured one (as EVER_MODEL); "
              "a running owner answers with its own.")


def settings_with(model) -> Any:
    """The settings, the turns' model given on the command line over the configured one."""
    return load_settings(dict(os.environ, EVER_MODEL=model) if model else None)


@main.command()
@click.option("--yes", is_flag=True, help="Let shell, write and edit run without asking.")
@click.option("--local", is_flag=True, help="A demo with no key: a local API that echoes, in a chat of its own.")
@click.option("-m", "--model", default=None, help=MODEL_HELP)
def chat(yes: bool, local: bool, model=None) -> None:
    """The chat, in this terminal: its owner, or attached to the process that owns it."""
    from harness.chat.attached import chat_until_left

    try:
        if local:
            from harness.chat.demo import run_demo

            asyncio.run(run_demo(settings_with(model), yes=yes))
        else:
            asyncio.run(chat_until_left(settings_with(model), yes=yes))
    except (ConfigError, StoreError) as error:
        fail(str(error))


@main.command()
@click.option("--yes", is_flag=True, help="Let shell, write and edit run without asking, for every "
              "message (an attached terminal's messages carry its own --yes instead).")
def serve(yes: bool) -> None:
    """The chat's owner with no terminal, until stopped: `ever chat` attaches to it."""
    from harness.chat.serve import run_serve

    try:
        asyncio.run(run_serve(load_settings(), yes, click.echo))
    except ChatBusy as busy:
        fail(f"{busy} Stop it first, or attach to it with `ever chat`.")
    except (ConfigError, StoreError) as error:
        fail(str(error))


@main.group()
def service() -> None:
    """Ever always on: a systemd user unit that runs `ever serve`."""


@service.command("install")
def service_install() -> None:
    """Write ~/.config/systemd/user/ever.service (checked by systemd-analyze where there is
    one) and say how to start it and see its log; the key must be in EVER_HOME's key file."""
    from harness.chat.serve import UnitRefused, install_unit

    try:
        install_unit(load_settings(), click.echo)
    except (UnitRefused, ConfigError) as error:
        fail(str(error))
    except OSError as error:
        fail(f"the unit could not be written: {error.strerror or error}")


@service.command("uninstall")
def service_uninstall() -> None:
    """Stop and disable the unit, and remove it."""
    from harness.chat.serve import uninstall_unit

    try:
        uninstall_unit(click.echo)
    except OSError as error:
        fail(f"the unit could not be removed: {error.strerror or error}")


# `ever send`'s exit codes [S9]: a script can tell a message to send again from one kept
EXIT_ANSWERED = 0
EXIT_LOGGED_UNANSWERED = 3  # the message is kept (log or inbox) and not answered: do not send it again
EXIT_NOT_LOGGED = 4  # nothing of the message was kept: safe to send again


def fail_send(sentence: str, code: int) -> None:
    echo(f"ever: {sentence}", err=True)
    sys.exit(code)


@main.command()
@click.argument("text")
@click.option("--yes", is_flag=True, help="Let shell, write and edit run without asking.")
@click.option("--key", default=None, help="A name for this message: sent again with the same key, "
              "it is not logged twice, and the answer is its reply.")
@click.option("--json", "as_json", is_flag=True, help="The reply, the message's id, and its turn's usage "
              "and cost, as JSON.")
@click.option("-m", "--model", default=None, help=MODEL_HELP)
def send(text: str, yes: bool, key, as_json: bool = False, model=None) -> None:
    """One turn: TEXT (or - for standard input); prints the reply.

    Exit codes: 0 answered; 3 kept and not answered (in the log, or in the inbox until the chat
    next opens: do not send it again); 4 nothing kept (safe to send again); 1 a setting or a file
    to fix first, nothing logged; 2 a wrong command."""
    from harness.memory.accepted import MESSAGE_BYTES_MAX, too_long_sentence
    from harness.memory.store import checked_key
    from harness.owner.sender import send_once

    if key is not None:
        try:
            checked_key(key)
        except ValueError as error:
            fail_send(f"{error}.", EXIT_NOT_LOGGED)
    if text == "-":
        # bytes that are not UTF-8 become U+FFFD, as anywhere text comes in [P14]
        # read no more than a message may hold [S12]: a paste past it is refused, not kept in memory
        raw = sys.stdin.buffer.read(MESSAGE_BYTES_MAX + 2).removesuffix(b"\n")
        if len(raw) > MESSAGE_BYTES_MAX:
            fail_send(too_long_sentence(len(raw)), EXIT_NOT_LOGGED)
        text = raw.decode("utf-8", "replace")
        text = text.rstrip("\n")  # the pipe's last newline is not the user's
    if not text.strip():
        fail_send("the message is empty; nothing was logged", EXIT_NOT_LOGGED)
    if len(text) > MESSAGE_BYTES_MAX or len(text.encode("utf-8", "replace")) > MESSAGE_BYTES_MAX:
        fail_send(too_long_sentence(len(text.encode("utf-8", "replace"))), EXIT_NOT_LOGGED)
    try:
        settings = settings_with(model)
        answer = asyncio.run(send_once(settings, text, yes=yes, key=key, say=say_waiting))
    except ConfigError as error:  # a setting or a file to fix first: nothing was logged
        fail(str(error))
    except (StoreError, OSError) as error:
        sentence = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        ended = sentence if sentence.endswith((".", "?", "!")) else sentence + "."
        fail_send(f"{ended} Nothing was logged.", EXIT_NOT_LOGGED)
    if answer.get("error"):
        if as_json:
            echo(json.dumps(sent_json(settings, answer), ensure_ascii=False))
        else:
            echo(answer.get("reply", ""), nl=bool(answer.get("reply")))
        fail_send(answer["error"], EXIT_LOGGED_UNANSWERED if answer.get("logged", True) else EXIT_NOT_LOGGED)
    if as_json:
        echo(json.dumps(sent_json(settings, answer), ensure_ascii=False))
        return
    echo(answer["reply"])


def sent_json(settings, answer: dict[str, Any]) -> dict[str, Any]:
    """`ever send --json`: the reply, the message's id, and the usage of the turn named by that id
    (its calls, tokens and cost, from the usage files `ever cost` reads). A message that joined a
    turn already running is answered by that turn, whose calls are counted under its own id."""
    from harness.calls.usage import read_usage, totals, totals_json

    message_id = answer.get("id")
    records = [r for r in read_usage(settings.home).records if r.kind == "turn" and r.turn == message_id]
    return {"reply": answer.get("reply", ""), "id": message_id, "error": answer.get("error") or None,
            "usage": totals_json(totals(records)) if message_id is not None else None}


def say_waiting(sentence: str) -> None:
    echo(f"ever: {sentence}", err=True)


@main.group()
def memory() -> None:
    """The memory: its status, its view, a line opened."""


def ask_owner_or_open(request: dict[str, Any]) -> dict[str, Any]:
    """Answer from the running chat over its socket, or open the chat here when none runs."""
    from harness.owner.sender import local_answer

    settings = load_settings()
    try:
        return asyncio.run(local_answer(settings, request, say=say_waiting))
    except StoreError as error:
        fail(str(error))


@memory.command("status")
@click.option("--json", "as_json", is_flag=True, help="The figures as JSON, for scripts.")
def memory_status(as_json: bool) -> None:
    """Messages, the view's size, what the compactor is doing."""
    status = ask_owner_or_open({"op": "status"})["status"]
    if as_json:
        echo(json.dumps(status, indent=2, ensure_ascii=False))
        return
    echo(status_sentences(status))


def status_sentences(status: dict[str, Any]) -> str:
    """The memory's status for a person: one sentence a line."""

    def many(count: int, word: str, plural: str = "") -> str:
        return f"{count:,} {word if count == 1 else plural or word + 's'}"

    unsummarized = status["unsummarized"]
    said = [f"The chat holds {many(status['messages'], 'message')}.",
            f"The view the next turn sends (`ever memory view`) is {many(status['view_bytes'], 'byte')} in "
            f"{many(status['view_lines'], 'line')}, "
            + ("every one summarized." if not unsummarized else
               f"{unsummarized:,} of them not summarized yet (shown as a placeholder to zoom)."),
            f"Work that waits: {many(status['summaries_waiting'], 'summary', 'summaries')} of long messages, "
            f"{many(status['merges_ready'], 'merge')} ready, at most {status['merges_at_most']:,} merges in all "
            "(a pair that fits one line joins for free).",
            ("Shrinking: " if status["shrinking"] else "Not shrinking: ") + status["shrinking_because"] + "."]
    if status["running"]:
        said.append(f"Compactions running: {', '.join(status['running'])}.")
    if status["failures"]:
        said.append("Compactions that failed: " + ", ".join(
            f"{name} ({many(count, 'time')})" for name, count in status["failures"].items()) + ".")
    said.append(f"The compactor is {status['compactor']}.")
    backup = status.get("last_backup")
    if backup:  # [S24] the last backup taken, and its last restore test
        from harness.memory.backup_state import backup_sentence

        said.append(backup_sentence(backup))
    return "\n".join(said)


@memory.command("view")
def memory_view() -> None:
    """Exactly the view the next turn will send, byte for byte."""
    answer = ask_owner_or_open({"op": "view"})
    echo(answer["view"])


@memory.command("zoom", context_settings={"ignore_unknown_options": True})
@click.argument("line", nargs=-1)
def memory_zoom(line) -> None:
    """Open line ID+N (given as ID N, or ID+N) into the two lines under it; N = 1 gives the
    message whole, a long one in pages: ID 1 PAGE shows page PAGE (1 by default). A subagent's
    name for ID gives its whole conversation, as the model's zoom("Name") does (NAME, NAME N or
    NAME N PAGE: N means nothing for a name, as for the model)."""
    from harness.calls.arguments import zoom_arguments
    from harness.memory.images import named_images

    page = 1
    words = list(line)
    if words and not words[0].lstrip("-").replace("+", "").isdigit():
        memory_zoom_agent(words)
        return
    if len(words) == 3 or (len(words) == 2 and words[0].count("+") == 1):
        last = words.pop()
        try:
            page = int(last)
        except ValueError:
            fail(f"zoom's page is a whole number, not {last}")
    arguments = zoom_arguments(words)  # `-1 1` reaches here as numbers, not as options
    if arguments is None:
        fail(f"zoom takes a line as ID N or ID+N, and for a message a page (for example 6 1, 6+1 "
             f"or 6 1 2), not {' '.join(line) or 'nothing'}")
    first, n = arguments
    if page != 1 and n != 1:
        fail(f"only a message (N = 1) comes in pages; line {first}+{n} is two lines")
    answer = ask_owner_or_open({"op": "zoom", "id": first, "n": n, "page": page})
    text = answer.get("text", "")
    if text.startswith("zoom: "):  # the memory's sentence on a line that does not exist
        fail(text)
    text = named_images(text, load_settings().chat_dir) if n == 1 else text
    echo(text)


def memory_zoom_agent(words: list[str]) -> None:
    """`ever memory zoom NAME [N [PAGE]]`: a subagent's conversation, read from its log."""
    from harness.memory import agentlog
    from harness.memory.images import named_images
    from harness.memory.service import PAGE_CHARS

    if len(words) > 3:
        fail(f"zoom takes a subagent's name, then at most N and a page, not {' '.join(words)}")
    for word in words[1:]:
        if not word.isdigit():
            fail(f"zoom's N and page are whole numbers after a subagent's name, not {word}")
    chat_dir = load_settings().chat_dir
    text, error = agentlog.zoomed(chat_dir, words[0], int(words[2]) if len(words) == 3 else 1, PAGE_CHARS)
    if error:
        fail(error)
    echo(named_images(text, chat_dir))


@main.command()
@click.argument("query", nargs=-1, required=True)
@click.option("--page", type=click.IntRange(1), default=1, help="Which page of hits (10 a page).")
@click.option("--json", "as_json", is_flag=True, help="The hits as JSON, for scripts.")
def search(query, page: int, as_json: bool) -> None:
    """Every message holding the words, best first: its id, date, kind, a snippet and the view
    line that covers it (zoom from there). "quoted words" go together."""
    from harness.memory.search import Found, found_text

    answer = ask_owner_or_open({"op": "search", "query": " ".join(query), "page": page})
    if "error" in answer:
        fail(answer["error"])
    found = answer["found"]
    if as_json:
        echo(json.dumps(found, indent=2, ensure_ascii=False))
        return
    echo(found_text(Found.from_dict(found)))
    if not found["hits"] and found["total"]:
        pages = found["pages"]
        fail(f"the hits fill {pages} page{'' if pages == 1 else 's'}; there is no page {page}")


@main.command()
@click.option("--http", "http", is_flag=True, help="Serve over streamable HTTP on 127.0.0.1 with a "
              "random secret in the URL, instead of over standard input and output.")
@click.option("--port", type=click.IntRange(0, 65535), default=0, help="The port for --http (default: any free one).")
@click.option("--allow-send", is_flag=True, help="Offer a `send` tool: a message into the chat, "
              "answered as any turn (tools that ask first are declined for it).")
def mcp(http: bool, port: int, allow_send: bool) -> None:
    """The memory's tools (view, zoom, search, date; send if allowed) over MCP, for Claude Code,
    Codex or any agent: `claude mcp add --scope user ever -- ever mcp`."""
    from harness.chat.mcp_server import serve_http, serve_stdio

    settings = load_settings()
    try:
        if http:
            serve_http(settings, allow_send, port, click.echo)
        else:
            serve_stdio(settings, allow_send)
    except KeyboardInterrupt:
        pass
    except OSError as error:
        fail(f"cannot serve on 127.0.0.1:{port}: {error.strerror or error}")


@main.command("import")
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=Registered(import_formats),
              default=None, help="The files' format (default: told from each file).")
@click.option("--yes", is_flag=True, help="Go on without asking, however many compactions it costs.")
def import_command(paths, fmt, yes: bool) -> None:
    """Old sessions (Claude Code, Codex CLI, pi, llm's logs.db, text or Markdown) as notes, oldest first."""
    from harness.imports.importing import run_import
    from harness.imports.notes import ImportFailed

    try:
        run_import(load_settings(), paths, fmt, yes, say=echo)
    except KeyboardInterrupt:
        fail("stopped; the notes logged so far stay, and the same import run again adds the rest")
    except ChatBusy:
        fail("the chat is open in another process; close it to import into it")
    except (ImportFailed, ConfigError, StoreError) as error:
        fail(str(error))


@main.command()
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default=None,
              help="Where to write the page (default: memory.html in the chat's directory).")
@click.option("--serve", is_flag=True, help="Serve the page on 127.0.0.1 instead, until Ctrl-C.")
@click.option("--port", type=click.IntRange(0, 65535), default=0,
              help="The port for --serve (default: any free one).")
def browse(out_path, serve: bool, port: int) -> None:
    """The whole memory as one self-contained HTML page: the view's lines, down to each message."""
    from harness.browse.browsing import serve_page, write_page

    settings = load_settings()
    try:
        if serve:
            serve_page(settings, port, click.echo)
        else:
            echo(write_page(settings, out_path))
    except (ConfigError, StoreError, OSError) as error:
        fail(str(error))


@main.command()
@click.option("--repair", is_flag=True, help="Set the damaged lines aside in chat/damage/ (byte for byte) "
              "and record the lost ids, so the chat opens past them; asks first on a terminal.")
@click.option("--yes", is_flag=True, help="Repair without asking.")
def doctor(repair: bool, yes: bool) -> None:
    """What is damaged in the chat's logs: the lines, the ids lost, the highest id ever given; and
    each file of the home open wider than Ever keeps it (harness/memory/home.py).

    With --repair, the damaged lines are set aside in a file of their own and the lost ids
    recorded (chat/damage/); the day files are never edited, and no id is given twice."""
    from harness.memory.damage import examine, repair_logs, report_text
    from harness.memory.home import wider_modes
    from harness.memory.lock import ChatLock
    from harness.memory.store import Store

    settings = load_settings()
    chat_dir = settings.chat_dir
    if not (chat_dir / "main").is_dir():
        echo(f"There is no chat in {chat_dir} yet: nothing to check.")
        return
    lock = ChatLock(chat_dir)
    try:
        lock.take(read_only=not repair)
    except ChatBusy as busy:
        if repair:
            fail(f"{busy} Close it first: --repair sets lines aside while nothing appends.")
        lock = None  # a report reads the files as they are
    except FileNotFoundError:
        lock = None  # no lock yet, and a report writes nothing: nothing to share it with
    try:
        found = examine(chat_dir)
        echo(report_text(chat_dir, found))
        wider = wider_modes(settings.home)
        for sentence in wider:
            echo(f"{sentence}.")
        if not repair or found.whole:
            doctor_exit(len(found.damaged), len(wider))
            return
        if sys.stdin.isatty() and not yes:
            if not click.confirm(f"Set {len(found.damaged)} damaged line{'' if len(found.damaged) == 1 else 's'} aside and record the lost ids?",
                                 default=False):
                echo("Nothing was changed.")
                doctor_exit(len(found.damaged), len(wider))
                return
        elif not yes:
            fail("--repair asks first: run it on a terminal, or add --yes")
        copies = repair_logs(chat_dir, found)
    finally:
        if lock is not None:
            lock.release()
    with Store.open(settings.home) as store:
        count = store.count
    where = ", ".join(str(chat_dir / copy) for copy in copies) or "no file"
    echo(f"Set aside {len(found.damaged)} line{'' if len(found.damaged) == 1 else 's'} in {where}, byte for byte; the day files are as they "
         f"were. The chat opens with ids 0 to {count - 1}; the next message is {count}.")


def doctor_exit(damaged: int, wider: int) -> None:
    """`ever doctor` exits 1 while it reports a damaged line or a file open too wide, so a script
    sees what a person reads; 0 when there is nothing to fix."""
    problems = [f"{damaged:,} damaged line{'' if damaged == 1 else 's'} (`ever doctor --repair` sets "
                f"{'it' if damaged == 1 else 'them'} aside)" if damaged else "",
                f"{wider:,} file{'' if wider == 1 else 's'} open wider than Ever keeps {'it' if wider == 1 else 'them'} "
                "(the chmod above)" if wider else ""]
    said = " and ".join(problem for problem in problems if problem)
    if said:
        fail(f"found {said}")


@main.command("log")
@click.option("-n", "count", type=click.IntRange(0), default=10, show_default=True,
              help="How many messages: the newest, or with -q the best hits.")
@click.option("-q", "--query", default=None, help="Only messages holding these words, best first (as `ever search`).")
@click.option("--json", "as_json", is_flag=True, help="The messages as JSON, for scripts.")
@click.option("--paths", is_flag=True, help="Where the chat's files are, instead (as `ever files`).")
def log_command(count: int, query, as_json: bool, paths: bool) -> None:
    """The newest messages, oldest first: each one's id, kind, date and text."""
    if paths:
        files_command.callback()
        return
    if query is not None:
        answer = ask_owner_or_open({"op": "search", "query": query, "page": 1, "per_page": max(count, 1)})
        if "error" in answer:
            fail(answer["error"])
        ids = [hit["id"] for hit in answer["found"]["hits"] if isinstance(hit["id"], int)][:count]
        answer = ask_owner_or_open({"op": "messages", "ids": ids})
    else:
        answer = ask_owner_or_open({"op": "messages", "last": count})
    if "error" in answer:
        fail(answer["error"])
    messages = answer["messages"]
    if as_json:
        echo(json.dumps(messages, indent=2, ensure_ascii=False))
        return
    text = "\n\n".join(f"## {m['id']} · {m['kind']} · {m['date']}\n\n{m['text']}" for m in messages)
    if sys.stdout.isatty():  # a person reads it: an escape sequence in a message is shown, not run
        from harness.chat.terminal import visible

        text = visible(text)
    if text:
        echo(text)


@main.command("files")
def files_command() -> None:
    """Where the chat's files are: each of harness/memory/home.py's rows that has a file."""
    from harness.memory.home import present

    home = load_settings().home
    for place in present(home):
        echo(f"{place.name + ':':<11}{home / place.path if place.path else home}")


@main.command()
def models() -> None:
    """The models the key can use: window, output cap, thinking and effort, price, status."""
    import asyncio
    from datetime import datetime

    from harness.calls.capabilities import models_report, read_listing, refresh, rows
    from harness.calls.models import listing
    from harness.chat.config import load_key

    settings = load_settings()
    uses = {settings.model: "the turns"}
    memory_model = settings.model if settings.memory_model == "turns" else settings.memory_model
    uses[memory_model] = "the turns and the compactor" if memory_model == settings.model else "the compactor"
    try:
        key = load_key(settings.home)
    except ConfigError as error:
        key, problem = None, str(error)

    async def ask() -> tuple[str, str]:
        from harness.calls.client import Client, ClientSettings

        async with Client(ClientSettings(api_key=key.reveal(), base_url=settings.base_url)) as client:
            return await refresh(client, settings.home, settings.base_url, datetime.now(UTC), force=True)

    from harness.calls.providers import route

    # [H30] a model an OpenAI wire serves is listed under its provider, from that server's own list
    wired = {model: role for model, role in uses.items() if route(model, settings.providers).provider.openai}
    names = sorted({config.name for config in settings.providers.values() if config.openai}
                   | {route(model, settings.providers).provider.name for model in wired})
    anthropic_uses = {model: role for model, role in uses.items() if model not in wired}
    if anthropic_uses or not names:
        where, problem = asyncio.run(ask()) if key is not None else ("table", problem)
        cached = read_listing(settings.home, settings.base_url)
        echo(models_report(rows(listing()), where, problem, cached[1] if cached else None, anthropic_uses))
    for name in names:
        echo(("\n" if anthropic_uses else "") + asyncio.run(provider_models(settings, name, wired)))


async def provider_models(settings: Any, name: str, uses: dict[str, str]) -> str:
    """`ever models`'s part for one OpenAI wire: its list asked now, or why it could not be."""
    from harness.calls.capabilities import provider_report, refresh_provider
    from harness.calls.client import ClientSettings, url_shown
    from harness.calls.models import provider_listing
    from harness.calls.openai_client import openai_provider
    from harness.calls.outcomes import SettingsError
    from harness.calls.providers import route

    config = route(name + "/x", settings.providers).provider
    url = url_shown(config.base_url or "https://api.openai.com/v1")
    try:
        provider = openai_provider(ClientSettings(api_key=""), config)
    except SettingsError as error:
        return provider_report(name, url, {}, str(error), uses, config.context_window)
    try:
        problem = await refresh_provider(provider)
    finally:
        await provider.aclose()
    return provider_report(name, url, provider_listing(name), problem, uses, config.context_window)


@main.command()
@click.option("--json", "as_json", is_flag=True, help="The report as JSON, for scripts.")
@click.option("--turns", type=int, default=20, help="How many of the last turns to list.")
def cost(as_json: bool, turns: int) -> None:
    """Tokens, cache reads and writes per day and per turn, and what they cost."""
    from harness.calls.usage import format_report, read_usage, report, report_json, use_provider_prices

    settings = load_settings()
    use_provider_prices(settings.providers)  # [H29] a local model priced in config.toml
    usage = read_usage(settings.home)
    result = report(usage.records, usage.skipped)
    if as_json:
        echo(json.dumps(report_json(result), indent=2))
    else:
        echo(format_report(result, turns_shown=turns))


@main.command()
@click.option("--messages", type=click.IntRange(1), default=None,
              help="How many messages to replay (default 30,000; with --from-log, the whole log).")
@click.option("--seed", type=int, default=1, show_default=True, help="The seeded workload's seed.")
@click.option("--workload", "workload_name", type=click.Choice(["seeded", "import", "full-lines"]),
              default="seeded", show_default=True,
              help="The gist's sizes; a first-day import of notes, then that chat; or every message summarized "
                   "into a line of 490-512 bytes (the gist's own figures).")
@click.option("--import-notes", type=click.IntRange(0), default=5_000, show_default=True,
              help="How many notes the import workload starts with.")
@click.option("--from-log", type=click.Path(exists=True), default=None,
              help="Replay this chat's own message sizes, kinds and timing (EVER_HOME, its chat/, or main/*.jsonl).")
@click.option("--modes", default=",".join(("ever", "push", "blocks16", "same-model", "pauses", "carried", "window")),
              show_default=True, help="Which modes, comma-separated.")
@click.option("--out", default="ever-simulation", show_default=True,
              help="Where the pictures, figures.json and report.html go.")
@click.option("--no-pictures", is_flag=True, help="Only the table (or JSON): no files.")
@click.option("--json", "as_json", is_flag=True, help="The figures as JSON, for scripts.")
@click.option("--processes", type=click.IntRange(1), default=2, show_default=True, help="Processes to share the runs.")
@click.option("--provider", default=None,
              help="Replay on this provider's cache and prices ([providers.NAME] in config.toml, or openai).")
def simulate(messages: int, seed: int, workload_name: str, import_notes: int, from_log, modes: str, out: str,
             no_pictures: bool, as_json: bool, processes: int, provider: str | None) -> None:
    """What a chat costs, replayed with no key and no network: Ever beside the designs a user would
    pick instead, on the same messages at the same prices (docs/simulate.md)."""
    from harness.bench.simulate import run_command
    from harness.bench.simulate_meter import use_provider
    from harness.calls.providers import BUILT_IN

    settings = load_settings()
    memory_model = settings.model if settings.memory_model == "turns" else settings.memory_model
    model = settings.model
    if provider is not None:  # [H29] the chat's models on that provider, by their bare names
        known = {**BUILT_IN, **settings.providers}
        if provider not in known:
            fail(f"There is no provider {provider!r}: the providers are {', '.join(sorted(known))}.")
        try:
            use_provider(known[provider])
        except ValueError as error:
            fail(f"{str(error)[:1].upper()}{str(error)[1:]}.")
        if provider != "anthropic":
            model, memory_model = (f"{provider}/{name.partition('/')[2] or name}" for name in (model, memory_model))
    chosen = [name.strip() for name in modes.split(",") if name.strip()]
    command = "ever simulate " + " ".join(sys.argv[2:]) if sys.argv[1:2] == ["simulate"] else "ever simulate"
    try:
        run_command(messages, seed, workload_name, import_notes, from_log, chosen, None if no_pictures else out,
                    as_json, processes, model, memory_model, command.strip(), click.echo)
    except ValueError as error:
        fail(f"{error}.")


@main.command()
@click.option("--json", "as_json", is_flag=True, help="The list as JSON, for scripts.")
def agents(as_json: bool) -> None:
    """The chat's subagents: running or how each ended, its calls, tokens and cost."""
    from harness.chat.agentlist import listing, listing_text

    rows = listing(load_settings().chat_dir)
    echo(json.dumps(rows, indent=2) if as_json else listing_text(rows))


@main.group()
def bench() -> None:
    """Measurements of Ever's memory on a chat of its own (never yours)."""


@bench.command("recall")
@click.option("--messages", type=click.IntRange(20), default=10_000, help="The synthetic chat's size (default 10,000).")
@click.option("--questions", type=click.IntRange(1), default=30, help="How many questions, each asked in every arm (default 30).")
@click.option("--seed", type=int, default=0, help="The synthetic chat's seed: the same seed, the same chat (default 0).")
@click.option("--per-kind", type=click.IntRange(1, 6), default=5, help="Facts planted of each of the six kinds (default 5).")
@click.option("--file", "path", type=click.Path(exists=True, dir_okay=False), default=None,
              help="LongMemEval's or LoCoMo's published JSON file instead of the synthetic chat.")
@click.option("--notes", is_flag=True, help="Write the chat as notes (as `ever import` does), not as turns.")
@click.option("--arms", default="zoom,search,baseline,search-alone",
              help="Which arms, of zoom, search, baseline and search-alone (no model).")
@click.option("--model", default=None, help="The answering model (default: the chat's model); NAME/MODEL picks a "
              "[providers.NAME] of config.toml.")
@click.option("--memory-model", default=None, help="The compaction model, also the baseline's summarizer "
              "(default: the chat's memory.model).")
@click.option("--judge", default=None, help="A model that also judges each answer (exact scoring always runs).")
@click.option("--base-url", default=None, help="Any Messages API (default: ANTHROPIC_BASE_URL, else Anthropic's).")
@click.option("--home", "bench_home", type=click.Path(file_okay=False), default=None,
              help="Where the bench's chat is built and kept (default: under $EVER_HOME/bench/).")
@click.option("--json", "as_json", is_flag=True, help="Every answer as JSON, for scripts.")
@click.option("--yes", is_flag=True, help="Go on without asking: the run calls the API and costs money.")
def bench_recall(messages: int, questions: int, seed: int, per_kind: int, path, notes: bool, arms: str, model,
                 memory_model, judge, base_url, bench_home, as_json: bool, yes: bool) -> None:
    """Does the memory remember? Facts planted in a chat of their own, its tree built by the
    compactor, then a fresh turn asked about each: with zoom alone, with search, and a baseline
    that sees one summary of the whole chat. Scored exactly (docs/recall.md)."""
    from pathlib import Path

    from harness.bench.planted import LoadFailed, generate, load
    from harness.bench.recall import ARMS, BenchFailed, BenchSettings, run, table
    from harness.chat.config import load_key

    settings = load_settings()
    chosen = tuple(arm.strip() for arm in arms.split(",") if arm.strip())
    unknown = [arm for arm in chosen if arm not in ARMS]
    if unknown or not chosen:
        fail(f"--arms takes zoom, search, baseline and search-alone, comma-separated, not {arms!r}")
    try:
        chats = load(path) if path else [generate(seed, messages, per_kind)]
    except (LoadFailed, ValueError) as error:
        fail(str(error))
    memory_model = memory_model or (settings.model if settings.memory_model == "turns" else settings.memory_model)
    source = Path(path).stem if path else f"planted-{seed}-{messages}"
    home = Path(bench_home) if bench_home else settings.home / "bench" / f"recall-{source}{'-notes' if notes else ''}"
    if not yes:
        if not sys.stdin.isatty():
            fail("the bench calls the API for every compaction and every answer, and that costs money "
                 "(docs/recall.md estimates it); run it again with --yes to go on")
        if not click.confirm(f"Build {sum(len(c.messages) for c in chats):,} messages' tree on {memory_model} and "
                             f"ask {questions} questions in {len(chosen)} arms (docs/recall.md: the cost)?",
                             default=False):
            return
    from harness.calls.providers import route
    from harness.calls.usage import use_provider_prices

    model = model or settings.model
    # [H25] each model on its provider's wire; Anthropic's key only when a model is Anthropic's
    anthropic = any(route(one, settings.providers).provider.api == "anthropic"
                    for one in (model, memory_model, judge) if one)
    use_provider_prices(settings.providers)  # [H29]
    bench_settings = BenchSettings(api_key=load_key(settings.home).reveal() if anthropic else "",
                                   base_url=base_url or settings.base_url, model=model, memory_model=memory_model,
                                   home=home, arms=chosen, as_notes=notes, judge=judge,
                                   cache_marks=settings.cache_marks, providers=settings.providers,
                                   context_window=settings.context_window,
                                   memory_context_window=settings.memory_context_window)
    def say(sentence: str) -> None:  # progress; the result alone on stdout
        echo(sentence, err=True)

    try:
        result = asyncio.run(run(bench_settings, chats, questions, say))
    except BenchFailed as error:
        fail(str(error))
    echo(json.dumps(result, indent=2, ensure_ascii=False) if as_json else table(result))


from harness.chat.keeping import commands  # noqa: E402  backup, restore, forget

for command in commands(echo, fail, ask_owner_or_open):
    main.add_command(command)

if __name__ == "__main__":
    main()
