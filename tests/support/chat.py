"""What the chat's tests share: the installed `ever`, an environment that points it at a home and
at the local Messages API, and the log read back as the tests compare it.

- `EVER`, `environment(home, api)`, `ever(args, env)`: the command as a person or a script runs it;
  `ever_in(workdir, args, env)` the same in a folder of the test's, its output as bytes.
- `lines(home)`: every record of a log folder, in order; `whole_lines(home)` leaves out a last line
  torn by a kill (never acknowledged: the next open cuts it off), where `lines` fails on it.
- `handed_over(home, raw)`: a raw line on the running chat's socket, as `ever send` hands one, and
  its answer.
- `logged(home_or_memory)`: the log as (kind, text) pairs; `logged_in_full(home)` as
  (i, kind, text, size), the fields the store writes for each message.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

from harness.localapi.server import LocalAPI

EVER = shutil.which("ever", path=str(Path(sys.executable).parent)) or "ever"


def environment(home: Path, api: LocalAPI, key: str = "test-key") -> dict:
    """This process's environment without the user's ANTHROPIC_ and EVER_ settings, pointed at
    `home` and `api`; `key=""` leaves the API key unset."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVER_"))}
    # EVER_OWNER_WAIT_SECONDS: a hang guard, not a timing: on a loaded machine an owner may take
    # more than the default 30 s to start listening, and a sender must not give up on it then
    env.update(EVER_HOME=str(home), ANTHROPIC_BASE_URL=api.base_url, PROMPT_TOOLKIT_NO_CPR="1",
               EVER_MODEL="claude-sonnet-4-6", TERM="xterm", EVER_OWNER_WAIT_SECONDS="600")
    if key:
        env["ANTHROPIC_API_KEY"] = key
    return env


def ever(args, env, stdin=None, timeout_seconds=300):
    """`ever ARGS` in a subprocess; the timeout only stops a hang."""
    return subprocess.run([EVER, *args], env=env, input=stdin, capture_output=True, text=True,
                          timeout=timeout_seconds)


def ever_in(workdir: Path, args, env, stdin=None):
    """`ever ARGS` run in `workdir`, its output as bytes (a test of bytes that are not UTF-8)."""
    return subprocess.run([EVER, *args], env=env, input=stdin, capture_output=True, cwd=workdir,
                          timeout=300)  # a hang guard


def _records(home: Path, folder: str, torn_tail: bool) -> list:
    found = []
    for path in sorted((home / "chat" / folder).glob("*.jsonl")):
        text = path.read_text()
        whole, _, tail = text.rpartition("\n")
        assert torn_tail or not tail, f"{path} ends in a torn line: {tail[:80]!r}"
        found += [json.loads(line) for line in whole.split("\n") if whole]
    return found


def lines(home: Path, folder: str = "main") -> list:
    """Every record of the log folder (main, tree, agents), in order; a torn line fails."""
    return _records(home, folder, torn_tail=False)


def whole_lines(home: Path, folder: str = "main") -> list:
    """The log folder's whole lines: a kill may leave the line being written torn at the end of its
    file, never acknowledged; the next open cuts it off."""
    return _records(home, folder, torn_tail=True)


def logged(source) -> list:
    """The chat's messages as (kind, text) pairs, from a home's files or an open `Memory`."""
    if isinstance(source, Path):
        return [(r["kind"], r["text"]) for r in lines(source)]
    return [(r["kind"], r["text"]) for r in source.store.messages(0, source.store.count)]


def logged_in_full(home: Path) -> list:
    """The chat's messages as (i, kind, text, size): what the store writes for each."""
    return [(r["i"], r["kind"], r["text"], r["size"]) for r in lines(home)]


def is_compaction(body: dict) -> bool:
    """A compaction request: Ever sends tools with it (the cached prefix) but lets none be called."""
    return body.get("tool_choice") == {"type": "none"}


def benchmarks_enabled(request) -> bool:
    """Whether this run times its benchmarks: addopts always passes --benchmark-disable, and
    `make bench` adds --benchmark-enable, which wins."""
    options = request.config
    return options.getoption("benchmark_enable") or not options.getoption("benchmark_disable")


def handed_over(home: Path, raw: bytes) -> dict:
    """A raw line handed to the running chat on its socket, as `ever send` hands one; its answer,
    or what went wrong instead (a chat that is gone, or that closed without a word)."""
    with socket.socket(socket.AF_UNIX) as client:
        try:
            client.connect(str(home / "chat" / "socket"))
        except OSError as error:
            return {"no answer": f"the chat's socket refused: {error}"}

        def write() -> None:
            try:
                client.sendall(raw)
            except OSError:  # the chat stopped reading past its limit: its answer says so
                pass

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        said = client.makefile("rb").readline()
        writer.join(30)
    return json.loads(said) if said else {"no answer": "the chat closed the socket without a word"}
