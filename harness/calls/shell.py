"""The shell tool's runner: a command in bash (or sh) in the working directory, in its own process
group, with a timeout that stops the group; its output kept in bounded memory and clipped to its
head and tail, stdout and stderr each to its own, the whole result within 30,000 characters.

The command's environment is the user's without `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN` and
any variable whose value holds the key [H3] (`child_environment`); what it prints is
redacted by the tools (harness/calls/redaction.py).
"""

import codecs
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from harness.memory.images import ToolResult, text_result
from harness.memory.text import OUTPUT_CHARS_MAX, clip_output

SHELL_TIMEOUT_SECONDS = 120  # default; a call may ask for up to SHELL_TIMEOUT_SECONDS_MAX
SHELL_TIMEOUT_SECONDS_MAX = 600
# After the command exits, how long its output may stay open (a background child holding the
# pipe) before Ever stops reading it.
SHELL_LINGER_SECONDS = 1.0
# Bytes kept of each stream's head and of its tail. Four bytes per character at most, so each kept
# part holds more characters than the clip can show, and what the clip removes always covers the
# bytes never kept.
CAPTURE_BYTES = 4 * OUTPUT_CHARS_MAX
KEY_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")


def child_environment(environ: Mapping[str, str], secrets: Iterable[str]) -> dict[str, str]:
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


def shell_program() -> list[str]:
    return ["/bin/bash", "-c"] if os.path.exists("/bin/bash") else ["/bin/sh", "-c"]


def run_command(command: str, workdir: Path, environment: Mapping[str, str],
                timeout_seconds: float, linger_seconds: float = SHELL_LINGER_SECONDS,
                ) -> tuple[int | None, Capture, Capture, bool]:
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
    exited_at: float | None = None
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


def shell_result(code: int | None, out: Capture, err: Capture, timed_out: bool,
                 timeout_seconds: float) -> ToolResult:
    """Exit code, then stdout and stderr, each clipped to its head and tail, 30,000 in all
    [H6]. A command that ran is no error whatever its exit code (the code is the first
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
