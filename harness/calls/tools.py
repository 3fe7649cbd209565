"""The work tools' dispatch: a call to shell, read, write or edit checked (harness/calls/arguments.py),
approved (approval.py), run (shell.py, files.py), and its result cleaned (redaction.py, the clip).
No SDK here.

Every tool call ends in a `ToolResult`, never an exception: a bad argument, a declined call, a
missing file, a command that times out are all results the model reads (`is_error` set), so a turn
goes on and the model can tell the user [gist §5: "do the user's tasks yourself, with your tools"].
Only KeyboardInterrupt passes through: Ctrl-C stops the running call.

Sizes [gist §1], as harness/memory/text.py rules them and the tools apply them:
- A tool's output is clipped to its head and tail, 30,000 characters in all, the note saying what
  was cut included (`clip_output`). The shell tool clips stdout and stderr each to its own head and
  tail, the whole result within the same 30,000.
- Any other long text is split into several messages in a row, never cut (`split_long`): pieces of
  at most 30,000 characters [H2], the same number as the clip, so no message Ever logs is
  longer than 30,000 characters. A piece ends after the last line break in its second half when
  there is one, else at exactly 30,000 characters; the pieces joined are the text.

The key is replaced by `<API key hidden>` in every tool result [H3], so a command that
prints it does not put it in the log; the shell's environment holds no key (shell.py). Shell,
write and edit ask first [H4] (approval.py).
"""

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.calls.approval import Approval
from harness.calls.arguments import input_error
from harness.calls.files import READ_TIMEOUT_SECONDS, edit_file, read_file, secret_file, write_file
from harness.calls.redaction import redact
from harness.calls.shell import (
    SHELL_LINGER_SECONDS,
    SHELL_TIMEOUT_SECONDS,
    child_environment,
    run_command,
    shell_result,
)
from harness.calls.tool import TOOLS, WORK
from harness.memory.images import ToolResult, error_result
from harness.memory.text import clip_output, valid_text

WORK_TOOLS = tuple(tool.name for tool in TOOLS if tool.runs_in == WORK)


class WorkTools:
    """The work tools of one chat run: shell, read, write and edit, in `workdir`."""

    def __init__(self, workdir: Path, approval: Approval, secrets: Sequence[Any] = (),
                 environ: Mapping[str, str] | None = None,
                 shell_timeout_seconds: float = SHELL_TIMEOUT_SECONDS,
                 shell_linger_seconds: float = SHELL_LINGER_SECONDS, private: Sequence[Any] = ()):
        self.workdir = Path(workdir)
        self.approval = approval
        # a Secret or a str; the values, to keep out of the environment and the results
        self.secrets = [secret.reveal() if hasattr(secret, "reveal") else secret
                        for secret in secrets]
        self.environ = dict(os.environ if environ is None else environ)
        self.shell_timeout_seconds = shell_timeout_seconds
        self.shell_linger_seconds = shell_linger_seconds
        self.read_timeout_seconds = READ_TIMEOUT_SECONDS
        # folders whose every file is a secret: Ever's own home (its key, its log)
        self.private = tuple(str(folder) for folder in private)

    def run(self, name: str, tool_input: Any) -> ToolResult:
        """Run one tool call; always a result, never an exception (but KeyboardInterrupt)."""
        if name not in WORK_TOOLS:
            return error_result(f"There is no tool {name!r}.")
        if not isinstance(tool_input, Mapping):
            return error_result(f"{name}: the input must be a JSON object.")
        error = input_error(name, tool_input)
        if error:
            return error_result(error)
        declined = self.decline(name, tool_input)
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

    def decline(self, name: str, tool_input: Mapping[str, Any]) -> str | None:
        """Approval's answer [H4]. The question names the file that will be touched, links
        followed; a secret file asks for every file tool, and a write or edit outside the working
        directory asks even where `approve` allows the tool: only --yes passes them."""
        if name == "shell":
            return self.approval.decline(name, tool_input)
        raw = tool_input["path"]
        outside = self.outside(raw)
        try:
            resolved = os.path.realpath(self.path(raw))
        except (ValueError, OSError):
            resolved = raw
        secret = secret_file(self.path(raw), self.home(), self.private)
        verb = {"read": "a read of", "write": "a write to", "edit": "an edit of"}[name]
        if secret:
            why = f"{verb} {secret}"
        elif outside and name != "read":
            why = f"{verb} a file outside the working directory"
        else:
            why = ""
        question = dict(tool_input)
        if resolved != os.path.abspath(self.path(raw)):  # a link or `..` leads elsewhere
            question["resolved"] = resolved
        if why:
            question["why"] = why
        return self.approval.decline(name, question, asks=outside if name == "read" else None,
                                     why=why)

    def home(self) -> str:
        return self.environ.get("HOME") or os.path.expanduser("~")

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
        """Whether `raw` names a file outside the working directory, links followed [H4]:
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
        return read_file(self.path(tool_input["path"]), tool_input, self.read_timeout_seconds)

    def run_write(self, tool_input: Mapping[str, Any]) -> ToolResult:
        return write_file(self.path(tool_input["path"]), tool_input)

    def run_edit(self, tool_input: Mapping[str, Any]) -> ToolResult:
        return edit_file(self.path(tool_input["path"]), tool_input, self.read_timeout_seconds)
