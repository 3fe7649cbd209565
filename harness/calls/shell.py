"""The work tools (shell, read, write, edit), the checks on zoom's and date's arguments, the
clipping of tool output, the splitting of long texts, and approval. No SDK here.

Every tool call ends in a `ToolResult`, never an exception: a bad argument, a declined call, a
missing file, a command that times out are all results the model reads (`is_error` set), so a turn
goes on and the model can tell the user [gist §5: "do the user's tasks yourself, with your tools"].
Only KeyboardInterrupt passes through: Ctrl-C stops the running call.

Sizes [gist §1]:
- A tool's output is clipped to its head and tail, 30,000 characters in all, the note saying what
  was cut included (`clip_output`). The shell tool clips stdout and stderr each to its own head and
  tail, the whole result within the same 30,000.
- Any other long text is split into several messages in a row, never cut (`split_long`): pieces of
  at most 30,000 characters [decision H2], the same number as the clip, so no message Ever logs is
  longer than 30,000 characters. A piece ends after the last line break in its second half when
  there is one, else at exactly 30,000 characters; the pieces joined are the text.

The shell tool's environment is the user's without `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN` and
any variable whose value holds the key [decision H3]; the key is also replaced by `<API key hidden>`
in every tool result, so a command that prints it does not put it in the log.

Approval [decision H4]: shell, write and edit ask first (yes / no / always for this tool while this
chat runs), unless `--yes` or the config's `approve` allows them. The asking is a callback the CLI
gives; a caller that cannot ask (`ever send` without `--yes`) declines with a result saying so.
"""

import base64
import codecs
import enum
import math
import os
import re
import selectors
import signal
import stat
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from harness.calls.prompt import READ_BYTES_MAX
from harness.memory.images import IMAGE_BYTES_MAX, ToolResult, image_type
# the sizes and the clipping rules live with the text they apply to, so an import applies them too
from harness.memory.text import (MESSAGE_CHARS_MAX, OUTPUT_CHARS_MAX, clip_note, clip_output,  # noqa: F401
                                 split_long, valid_text)


SHELL_TIMEOUT_SECONDS = 120  # default; a call may ask for up to SHELL_TIMEOUT_SECONDS_MAX
SHELL_TIMEOUT_SECONDS_MAX = 600
# After the command exits, how long its output may stay open (a background child holding the
# pipe) before Ever stops reading it.
SHELL_LINGER_SECONDS = 1.0
# Bytes kept of each stream's head and of its tail. Four bytes per character at most, so each kept
# part holds more characters than the clip can show, and what the clip removes always covers the
# bytes never kept.
CAPTURE_BYTES = 4 * OUTPUT_CHARS_MAX

READ_LINES_DEFAULT = 2000
# [decision H7] `read` takes regular files of at most READ_BYTES_MAX bytes (the model is told so in
# the tool's description), and gives up on one that does not answer (a hung network file system)
READ_TIMEOUT_SECONDS = 10.0

HIDDEN = "<API key hidden>"
KEY_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")

# The tools that change things and so ask first; `approve` may name these, and `read`, which asks
# for a file outside the working directory [decision H4].
ASKING_TOOLS = ("shell", "write", "edit")
APPROVABLE_TOOLS = ASKING_TOOLS + ("read",)
WORK_TOOLS = ("shell", "read", "write", "edit")

# The input each work tool takes, as JSON Schema: the tool definitions (harness/calls/prompt.py) can use
# these so that what the model is told and what the code checks cannot drift.
INPUT_SCHEMAS: Dict[str, Dict[str, Any]] = {
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


# --- results ---------------------------------------------------------------------------------


def text_result(text: str, is_error: bool = False) -> ToolResult:
    return ToolResult(({"type": "text", "text": text},), is_error)


def error_result(text: str) -> ToolResult:
    return text_result(text, is_error=True)


# --- sizes -----------------------------------------------------------------------------------


# A word sharing this many characters in a row with the key is taken for (a piece of) the key: an
# error that echoes the key cut short, or a line that breaks it in two, is hidden too. Shorter
# runs may be a key's public prefix (`sk-ant-api03-`, 13 characters).
REDACT_RUN_CHARS = 16
WORD = re.compile(r"[A-Za-z0-9_\-+/=]+")


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with each secret, and each word that holds REDACT_RUN_CHARS characters in a row of
    one, replaced by `<API key hidden>` [decision H3]."""
    runs: Set[str] = set()
    for secret in secrets:
        if not secret:
            continue
        text = text.replace(secret, HIDDEN)
        if len(secret) < REDACT_RUN_CHARS:
            continue
        runs.update(secret[k:k + REDACT_RUN_CHARS] for k in range(len(secret) - REDACT_RUN_CHARS + 1))
    if not runs:
        return text

    def hidden(match: "re.Match[str]") -> str:
        word = match.group()
        for k in range(len(word) - REDACT_RUN_CHARS + 1):
            if word[k:k + REDACT_RUN_CHARS] in runs:
                return HIDDEN
        return word

    return WORD.sub(hidden, text)


# --- zoom and date: the arguments ------------------------------------------------------------


def whole_number_error(tool: str, name: str, value: Any) -> Optional[str]:
    # bool is an int in Python; JSON's true is no id
    if isinstance(value, bool) or not isinstance(value, int):
        if value is None:
            return f"{tool}: {name} is missing; give it as a whole number."
        return f"{tool}: {name} must be a whole number; got {value!r}."
    return None


def id_error(tool: str, id: int, T: int) -> Optional[str]:
    if id < 0:
        return f"{tool}: id must be 0 or more; got {id}."
    if id >= T:
        if T == 0:
            return f"{tool}: message {id} does not exist; the chat has no messages yet."
        return f"{tool}: message {id} does not exist; the chat has messages 0 to {T - 1}."
    return None


def zoom_error(id: Any, n: Any, T: int) -> Optional[str]:
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


def zoom_arguments(words: Sequence[str]) -> Optional[Tuple[int, int]]:
    """(id, n) from `ID N` or from the view's own name for a line, `ID+N`; None if neither."""
    if len(words) == 1 and words[0].count("+") == 1:
        words = words[0].split("+")
    if len(words) != 2:
        return None
    try:
        return int(words[0]), int(words[1])
    except ValueError:
        return None


def page_error(n: int, page: Any) -> Optional[str]:
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


def date_error(id: Any, T: int) -> Optional[str]:
    """None if date(id) names a message of a chat of T messages; else the error text."""
    return whole_number_error("date", "id", id) or id_error("date", id, T)


# --- approval --------------------------------------------------------------------------------


class Answer(enum.Enum):
    YES = "yes"
    NO = "no"
    ALWAYS = "always"  # this tool, without asking, while this chat runs


# The CLI's question to the user: (tool name, its input) -> the answer.
Ask = Callable[[str, Mapping[str, Any]], Answer]


class Approval:
    """Whether a tool call may run [decision H4].

    `allowed`: tools allowed without asking (config `approve`); `yes`: every tool allowed
    (`--yes`); `ask`: the CLI's callback, or None when nobody can be asked."""

    def __init__(self, allowed: Iterable[str] = (), yes: bool = False,
                 ask: Optional[Ask] = None):
        self.allowed: Set[str] = set(allowed)
        self.yes = yes
        self.ask = ask

    def decline(self, name: str, tool_input: Mapping[str, Any],
                asks: Optional[bool] = None) -> Optional[str]:
        """None if the call may run; else the text of the declined result for the model. `asks`
        overrides whether the tool asks (a `read` outside the working directory does)."""
        asks = name in ASKING_TOOLS if asks is None else asks
        if not asks or self.yes or name in self.allowed:
            return None
        if self.ask is None:
            what = "a read outside the working directory" if name == "read" else name
            return (f"Not run: {what} asks the user first, and this run cannot ask (it was sent "
                    f"with `ever send` without --yes). Tell the user what you meant to do; they "
                    f"can allow it with --yes, or with approve = [\"{name}\"] in config.toml.")
        try:
            answer = self.ask(name, tool_input)
        except EOFError:
            answer = Answer.NO
        if answer is Answer.ALWAYS:
            self.allowed.add(name)
            return None
        if answer is Answer.YES:
            return None
        return f"Not run: the user declined this {name} call."


def approval_summary(name: str, tool_input: Mapping[str, Any]) -> str:
    """One line for the user's question: what the call would do."""
    if name == "shell":
        return f"shell: {tool_input.get('command', '')}"
    if name == "write":
        content = tool_input.get("content", "")
        size = len(content.encode("utf-8", "replace")) if isinstance(content, str) else 0
        return f"write: {tool_input.get('path', '')} ({size:,} bytes)"
    if name == "edit":
        return f"edit: {tool_input.get('path', '')}"
    if name == "read":
        return f"read: {tool_input.get('path', '')}"
    if name == "zoom":
        return f"zoom({tool_input.get('id', '')}, {tool_input.get('n', '')})"
    if name == "date":
        return f"date({tool_input.get('id', '')})"
    return name


# --- the shell -------------------------------------------------------------------------------


def child_environment(environ: Mapping[str, str], secrets: Iterable[str]) -> Dict[str, str]:
    """`environ` without the key's variables and without any variable holding a secret's value."""
    secrets = [secret for secret in secrets if secret]
    return {name: value for name, value in environ.items()
            if name not in KEY_VARIABLES and not any(secret in value for secret in secrets)}


@dataclass
class Capture:
    """One stream's output, in bounded memory: its first and last CAPTURE_BYTES bytes."""

    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    total: int = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = CAPTURE_BYTES - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > 2 * CAPTURE_BYTES:
                del self.tail[:len(self.tail) - CAPTURE_BYTES]

    def unread(self) -> int:
        return self.total - len(self.head) - min(len(self.tail), CAPTURE_BYTES)

    def text(self) -> str:
        tail = bytes(self.tail[-CAPTURE_BYTES:])
        if not self.unread():
            return (bytes(self.head) + tail).decode("utf-8", "replace")
        # Bytes are missing between head and tail: decode each on its own, dropping a character
        # cut in two at either edge.
        head = codecs.getincrementaldecoder("utf-8")("replace").decode(bytes(self.head), False)
        skip = 0
        while skip < 3 and skip < len(tail) and tail[skip] & 0xC0 == 0x80:
            skip += 1
        return head + tail[skip:].decode("utf-8", "replace")


def shell_program() -> List[str]:
    return ["/bin/bash", "-c"] if os.path.exists("/bin/bash") else ["/bin/sh", "-c"]


def run_command(command: str, workdir: Path, environment: Mapping[str, str],
                timeout_seconds: float, linger_seconds: float = SHELL_LINGER_SECONDS,
                ) -> Tuple[Optional[int], Capture, Capture, bool]:
    """Run `command` in `workdir`; (exit code, stdout, stderr, timed out). On timeout the command's
    whole process group is killed."""
    process = subprocess.Popen(
        shell_program() + [command], cwd=workdir, env=dict(environment),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True)  # its own process group, so a timeout stops its children too
    captures = {process.stdout.fileno(): Capture(), process.stderr.fileno(): Capture()}
    selector = selectors.DefaultSelector()
    for stream in (process.stdout, process.stderr):
        selector.register(stream.fileno(), selectors.EVENT_READ)
    deadline = time.monotonic() + timeout_seconds
    exited_at: Optional[float] = None
    timed_out = False

    def read_ready(timeout: float) -> bool:
        ready = selector.select(timeout=timeout)
        for key, _ in ready:
            data = os.read(key.fd, 65536)
            if data:
                captures[key.fd].add(data)
            else:
                selector.unregister(key.fd)
        return bool(ready)

    try:
        while selector.get_map():
            now = time.monotonic()
            if exited_at is None and process.poll() is not None:
                exited_at = now
            if exited_at is None and now >= deadline:
                timed_out = True
                kill_group(process)
                exited_at = now
            if exited_at is not None and now - exited_at > linger_seconds:
                # A background child holds the output open: take what is already in the pipes
                # (a bounded number of reads, as the child may keep writing) and stop reading.
                for _ in range(64):
                    if not selector.get_map() or not read_ready(0):
                        break
                break
            read_ready(0.05)
    except BaseException:
        # Ctrl-C reaches Ever, not the command (it has its own session): stop it here
        kill_group(process)
        process.wait()
        raise
    finally:
        selector.close()
        process.stdout.close()
        process.stderr.close()
    try:
        # the command may have closed its output and still run: it keeps the rest of its time
        code = process.wait(timeout=max(deadline - time.monotonic(), 0))
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_group(process)
        code = process.wait()
    out, err = captures.values()
    return code, out, err, timed_out


def kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def shell_result(code: Optional[int], out: Capture, err: Capture, timed_out: bool,
                 timeout_seconds: float) -> ToolResult:
    """Exit code, then stdout and stderr, each clipped to its head and tail, 30,000 in all
    [decision H6]. A command that ran is no error whatever its exit code (the code is the first
    line); one stopped at its timeout is."""
    if timed_out:
        header = (f"timed out after {timeout_seconds:g} s: the command and its processes were "
                  f"stopped (exit code {code})")
    elif code is not None and code < 0:
        header = f"exit code {code} (killed by signal {-code})"
    else:
        header = f"exit code {code}"
    streams = [(label, capture.text(), capture.unread())
               for label, capture in (("stdout", out), ("stderr", err)) if capture.total]
    if not streams:
        return text_result(header + "\n(no output)", is_error=timed_out)
    labels = [f"\n--- {label} ---\n" for label, _, _ in streams]
    room = OUTPUT_CHARS_MAX - len(header) - sum(len(label) for label in labels)
    lengths = [len(text) for _, text, _ in streams]
    if len(streams) == 1:
        budgets = [room]
    else:
        # the shorter stream keeps all of itself if it can, up to half; the other takes the rest
        shorter = 0 if lengths[0] <= lengths[1] else 1
        budgets = [0, 0]
        budgets[shorter] = min(lengths[shorter], room // 2)
        budgets[1 - shorter] = room - budgets[shorter]
    parts = [header]
    for label, (_, text, unread), budget in zip(labels, streams, budgets):
        parts.append(label)
        parts.append(clip_output(text, budget, unread))
    return text_result("".join(parts), is_error=timed_out)


# --- files -----------------------------------------------------------------------------------


def numbered_lines(text: str, first: int, limit: int) -> Tuple[str, int, int]:
    """Lines first.. (1-based) as `cat -n` shows them, whole lines only, within the output size
    [decision H7]; (the text, the last line shown, the number of lines)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the file's final newline ends a line; it does not start one
    budget = OUTPUT_CHARS_MAX - 200  # room for the note on where to read on
    carriage_return = "\r"
    rows: List[str] = []
    used = 0
    last = first - 1
    for number in range(first, min(first + limit, len(lines) + 1)):
        row = f"{number:>6}\t{lines[number - 1].removesuffix(carriage_return)}\n"
        if used + len(row) > budget:
            if not rows:
                rows.append(clip_output(row, budget))
                last = number
            break
        rows.append(row)
        used += len(row)
        last = number
    return "".join(rows), last, len(lines)


FILE_KINDS = ((stat.S_ISFIFO, "a FIFO (a named pipe)"), (stat.S_ISCHR, "a character device"),
              (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def read_regular(path: Path, shown: str, timeout_seconds: float, tool: str = "read"):
    """The bytes of the regular file at `path`, or the error result saying why not [decision H7]:
    a directory, a FIFO, a device or a socket is refused before a byte is read (a FIFO is opened
    without waiting for a writer, /dev/zero never read), a file over READ_BYTES_MAX is refused, and
    a read that takes longer than `timeout_seconds` is abandoned."""
    outcome: list = []

    def read() -> None:
        try:
            descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as error:
            outcome.append(error)
            return
        try:
            status = os.fstat(descriptor)  # of what was opened: no swap between look and read
            if stat.S_ISDIR(status.st_mode):
                outcome.append(error_result(f"{tool}: {shown} is a directory; list it with shell."))
                return
            for test, kind in FILE_KINDS:
                if test(status.st_mode):
                    outcome.append(error_result(f"{tool}: {shown} is {kind}, not a regular file; "
                                                f"{tool} takes regular files only."))
                    return
            if status.st_size > READ_BYTES_MAX:
                outcome.append(error_result(
                    f"{tool}: {shown} is {status.st_size:,} bytes; {tool} takes files of at most "
                    f"{READ_BYTES_MAX:,} bytes: look into it with shell (head, tail, grep)."))
                return
            chunks, total = [], 0
            while total <= READ_BYTES_MAX:  # a file that grows while read stops at the cap too
                chunk = os.read(descriptor, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
            outcome.append(b"".join(chunks)[:READ_BYTES_MAX])
        except OSError as error:
            outcome.append(error)
        finally:
            os.close(descriptor)

    reader = threading.Thread(target=read, daemon=True, name="read")
    reader.start()
    reader.join(timeout_seconds)
    if not outcome:
        return error_result(f"{tool}: {shown} gave nothing within {timeout_seconds:g} s (a file "
                            "system that does not answer?); nothing was read.")
    if isinstance(outcome[0], OSError):
        raise outcome[0]
    return outcome[0]


class WorkTools:
    """The work tools of one chat run: shell, read, write and edit, in `workdir`."""

    def __init__(self, workdir: Path, approval: Approval, secrets: Sequence[Any] = (),
                 environ: Optional[Mapping[str, str]] = None,
                 shell_timeout_seconds: float = SHELL_TIMEOUT_SECONDS,
                 shell_linger_seconds: float = SHELL_LINGER_SECONDS):
        self.workdir = Path(workdir)
        self.approval = approval
        # a Secret or a str; the values, to keep out of the environment and the results
        self.secrets = [secret.reveal() if hasattr(secret, "reveal") else secret
                        for secret in secrets]
        self.environ = dict(os.environ if environ is None else environ)
        self.shell_timeout_seconds = shell_timeout_seconds
        self.shell_linger_seconds = shell_linger_seconds
        self.read_timeout_seconds = READ_TIMEOUT_SECONDS

    def run(self, name: str, tool_input: Any) -> ToolResult:
        """Run one tool call; always a result, never an exception (but KeyboardInterrupt)."""
        if name not in WORK_TOOLS:
            return error_result(f"There is no tool {name!r}.")
        if not isinstance(tool_input, Mapping):
            return error_result(f"{name}: the input must be a JSON object.")
        error = input_error(name, tool_input)
        if error:
            return error_result(error)
        declined = self.approval.decline(name, tool_input,
                                         asks=self.outside(tool_input["path"]) if name == "read" else None)
        if declined:
            return error_result(declined)
        try:
            result = getattr(self, f"run_{name}")(tool_input)
        except OSError as error:
            where = f" ({error.filename})" if error.filename else ""
            result = error_result(f"{name} failed: {error.strerror or error}{where}.")
        except Exception as error:  # a tool's failure is the model's to read, never a crash
            result = error_result(f"{name} failed: {type(error).__name__}: {error}")
        return self.cleaned(result)

    def cleaned(self, result: ToolResult) -> ToolResult:
        content = []
        for block in result.content:
            if block["type"] == "text":
                block = {"type": "text",
                         "text": clip_output(valid_text(redact(block["text"], self.secrets)))}
            content.append(block)
        return ToolResult(tuple(content), result.is_error)

    def path(self, raw: str) -> Path:
        return self.workdir / os.path.expanduser(raw)

    def outside(self, raw: str) -> bool:
        """Whether `raw` names a file outside the working directory, links followed [decision H4]:
        `read` asks first there (`~/.ssh`), as `write` does everywhere."""
        try:
            root = os.path.realpath(self.workdir)
            where = os.path.realpath(self.path(raw))
        except (ValueError, OSError):  # a NUL in the path: no file, but ask rather than guess
            return True
        return where != root and not where.startswith(root.rstrip(os.sep) + os.sep)

    def run_shell(self, tool_input: Mapping[str, Any]) -> ToolResult:
        timeout_seconds = tool_input.get("timeout_seconds", self.shell_timeout_seconds)
        environment = child_environment(self.environ, self.secrets)
        code, out, err, timed_out = run_command(tool_input["command"], self.workdir, environment,
                                                timeout_seconds, self.shell_linger_seconds)
        return shell_result(code, out, err, timed_out, timeout_seconds)

    def run_read(self, tool_input: Mapping[str, Any]) -> ToolResult:
        path = self.path(tool_input["path"])
        data = read_regular(path, tool_input["path"], self.read_timeout_seconds)
        if isinstance(data, ToolResult):
            return data
        media_type = image_type(data[:16])
        if media_type:
            if len(data) > IMAGE_BYTES_MAX:
                return error_result(f"read: {tool_input['path']} is an image of {len(data):,} "
                                    f"bytes; the API takes at most {IMAGE_BYTES_MAX:,}.")
            source = {"type": "base64", "media_type": media_type,
                      "data": base64.b64encode(data).decode("ascii")}
            return ToolResult((
                {"type": "text", "text": f"{tool_input['path']}: {media_type}, {len(data):,} bytes"},
                {"type": "image", "source": source},
            ))
        if b"\0" in data[:8192]:
            return error_result(f"read: {tool_input['path']} is a binary file ({len(data):,} "
                                "bytes); read shows text files and PNG, JPEG, GIF and WebP images.")
        text = data.decode("utf-8", "replace")
        if not text:
            return text_result(f"{tool_input['path']} is empty.")
        first = tool_input.get("offset", 1)
        limit = tool_input.get("limit", READ_LINES_DEFAULT)
        shown, last, count = numbered_lines(text, first, limit)
        if first > count:
            return error_result(f"read: {tool_input['path']} has {count:,} lines; offset {first:,} "
                                "is past its end.")
        if first == 1 and last == count:
            return text_result(shown)
        more = f"; read on with offset {last + 1}" if last < count else ""
        return text_result(f"{shown}[lines {first:,} to {last:,} of {count:,}{more}]")

    def run_write(self, tool_input: Mapping[str, Any]) -> ToolResult:
        path = self.path(tool_input["path"])
        existed = path.exists()
        path.parent.mkdir(parents=True, exist_ok=True)
        data = valid_text(tool_input["content"]).encode("utf-8")
        with open(path, "wb") as file:
            file.write(data)
        verb = "replaced" if existed else "created"
        return text_result(f"{verb} {tool_input['path']} ({len(data):,} bytes)")

    def run_edit(self, tool_input: Mapping[str, Any]) -> ToolResult:
        shown = tool_input["path"]
        path = self.path(shown)
        old, new = tool_input["old_text"], tool_input["new_text"]
        if old == "":
            return error_result("edit: old_text is empty; give the exact text to replace.")
        if old == new:
            return error_result("edit: old_text and new_text are the same; nothing to change.")
        data = read_regular(path, shown, self.read_timeout_seconds, "edit")
        if isinstance(data, ToolResult):
            return data
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return error_result(f"edit: {shown} is not UTF-8 text; edit changes text files only.")
        if "\r\n" in text and "\r" not in old:
            # the model writes "\n"; a file with Windows line ends holds "\r\n"
            old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        count = text.count(old)
        if count == 0:
            return error_result(f"edit: old_text does not occur in {shown}; read the file and "
                                "copy the text exactly, spaces and line breaks included.")
        if count > 1:
            return error_result(f"edit: old_text occurs {count} times in {shown}; include more "
                                "of the text around it so that it occurs exactly once.")
        at = text.index(old)
        line = text.count("\n", 0, at) + 1
        with open(path, "wb") as file:
            file.write(text.replace(old, new, 1).encode("utf-8"))
        return text_result(f"edited {shown} at line {line}")


def input_error(name: str, tool_input: Mapping[str, Any]) -> Optional[str]:
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
