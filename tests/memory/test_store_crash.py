"""Strategy: kill the store's owner at random instants and check that the log keeps its promise
[gist §1, §7.12]: no acknowledged line lost, no line twice, every file readable.

A child process owns the chat and appends messages and their tree nodes in a loop; after each
append returns it prints the id to stdout, which makes the id acknowledged. The parent SIGKILLs it
at a random moment — during its start, its open (which parses, terminates torn tails and saves the
index), an append or an index save — and starts it again. The child saves its index every few
lines, so kills land inside index saves too. The texts are a function of the id, so the parent can
check every line's content. At the end the parent reads every file with plain `json.loads`,
independently of the store, and checks:

- each message id 0..N-1 appears exactly once, in order, with its text, or is recorded lost (an id a
  torn write shows is never given again [S13], and no acknowledged one is lost); each node at most once;
- every acknowledged message and node is there;
- a line that is not JSON is the beginning of a line that the log holds whole (a write cut by a
  kill), there are no more of them than kills, and the store reports each one;
- no open ever found its index unusable (a kill never leaves the index and its meta disagreeing).

The default run makes 20 kills in a few seconds. The full run (at least 100 kills over at least
500 messages) is `EVER_STORE_CRASH_KILLS=100 .venv/bin/python -m pytest -q tests/memory/test_store_crash.py`.
`EVER_STORE_CRASH_SEED=n` replays a run.
"""

import inspect
import json
import os
import random
import re
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from harness.memory.store import Store

KILLS = int(os.environ.get("EVER_STORE_CRASH_KILLS", "20"))
READ_TIMEOUT_SECONDS = 120  # a hang guard: a busy machine may keep the child off the CPU for seconds
SEED = int(os.environ.get("EVER_STORE_CRASH_SEED", str(random.SystemRandom().randrange(10**6))))

KINDS = ("user", "ever", "tool", "echo", "work", "note")


def message_kind(i: int) -> str:
    return KINDS[i % 6]


def message_text(i: int) -> str:
    rng = random.Random(i)
    if i % 7 == 3:  # long, so that some kills land inside its write
        return f"{i}:" + "long é€ " * 20_000
    return f"{i}:" + "".join(rng.choice("abc xyz\n\"\\é€😀") for _ in range(rng.randrange(1, 300)))


def node_text(l: int, i: int) -> str:
    return f"node {l} {i}: " + "sümmary " * (1 + (i * 7 + l) % 40)


# The child: a small script that imports the store once and then forks one worker per run, so a
# run starts in milliseconds rather than an interpreter's start-up. The worker owns the chat and
# prints each acknowledged id; the script prints "pid N" when a worker starts and "exit C" once it
# is reaped, after anything the worker printed.
CHILD = "import random\n" + "".join(
    inspect.getsource(f) + "\n" for f in (message_kind, message_text, node_text)
) + f"KINDS = {KINDS!r}\n" + textwrap.dedent(
    """
    import os
    import sys
    import traceback

    import harness.memory.index
    from harness.memory.store import Store

    harness.memory.index.INDEX_SAVE_LINES = 40  # index saves every few lines, so kills land in them
    harness.memory.index.OPEN_SAVE_LINES = 10


    def say(*words):
        # One write per line: a pipe takes it whole, so a kill never leaves half a line (print
        # may write a line in pieces).
        os.write(1, (" ".join(map(str, words)) + "\\n").encode())


    def work(home, stop):
        store = Store.open(home)
        for warning in store.warnings:
            say("w", warning.replace("\\n", " "))
        say("ready")

        def build(l, i):
            store.append_node(l, i, node_text(l, i), store.count)
            say("n", l, i)

        def build_parents(i):
            l = 0
            while i % 2 == 1 and store.node(l, i - 1) is not None:
                i //= 2
                l += 1
                if store.node(l, i) is None:
                    build(l, i)

        # A killed run may have left nodes unbuilt: build them, lowest level first.
        for i in range(store.count):
            if store.node(0, i) is None:
                build(0, i)
            build_parents(i)
        while stop < 0 or store.count < stop:
            i = store.append_message(message_kind(store.count), message_text(store.count))["i"]
            say("m", i)
            build(0, i)
            build_parents(i)
        store.close()
        say("closed")


    for command in sys.stdin:
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                work(sys.argv[1], int(command))
            except BaseException:
                traceback.print_exc()
                code = 1
            os._exit(code)
        say("pid", pid)
        say("exit", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
    """
)


class Child:
    """The child script, and one worker run at a time."""

    def __init__(self, home: Path):
        self.process = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(home)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.pending = b""
        self.history = []  # every line read, for the message of a child that stops answering

    def readline(self) -> str:
        fd = self.process.stdout.fileno()
        while b"\n" not in self.pending:
            ready, _, _ = select.select([fd], [], [], READ_TIMEOUT_SECONDS)
            assert ready, f"the child said nothing for {READ_TIMEOUT_SECONDS} s after {self.history[-20:]}"
            data = os.read(fd, 65536)
            assert data, f"the child script ended after {self.history[-20:]}"
            self.pending += data
        line, self.pending = self.pending.split(b"\n", 1)
        self.history.append(line.decode())
        return self.history[-1]

    def run(self, stop: int, kill_after=None, wait_ready=False):
        """A worker that appends until `stop` messages (forever if -1), killed `kill_after`
        seconds after it starts, or after it is ready. Returns its lines and exit code."""
        self.process.stdin.write(f"{stop}\n".encode())
        self.process.stdin.flush()
        self.history.append(f"(sent {stop})")
        lines = []
        pid = None
        code = None

        def read():
            nonlocal pid, code
            line = self.readline()
            if line.startswith("pid "):
                pid = int(line[4:])
            elif line.startswith("exit "):
                code = int(line[5:])
            else:
                lines.append(line)

        while pid is None:
            read()
        while wait_ready and code is None and "ready" not in lines:
            read()
        if kill_after is not None and code is None:
            time.sleep(kill_after)
            self.history.append(f"(kill {pid})")
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:  # it ended by itself: its exit code tells
                pass
        while code is None:
            read()
        return lines, code

    def close(self):
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        finally:
            self.process.kill()


def read_raw(path: Path):
    """(line number, bytes, record or None) for each line, by plain json.loads."""
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"", f"{path} does not end with a newline after a clean close"
    out = []
    for number, line in enumerate(lines[:-1], start=1):
        try:
            out.append((number, line, json.loads(line)))
        except ValueError:
            out.append((number, line, None))
    return out


def test_kills_at_random_instants_lose_no_acknowledged_line_and_double_none(tmp_path):
    rng = random.Random(SEED)
    home = tmp_path / "ever"
    acknowledged_messages, acknowledged_nodes, warnings = set(), set(), []
    kills = 0
    context = f"(replay with EVER_STORE_CRASH_SEED={SEED} EVER_STORE_CRASH_KILLS={KILLS})"
    child = Child(home)
    try:
        for _ in range(KILLS):
            if rng.random() < 0.25:  # in the worker's open, or its first appends
                lines, code = child.run(-1, kill_after=rng.uniform(0, 0.05))
            else:
                lines, code = child.run(-1, kill_after=rng.uniform(0, 0.1), wait_ready=True)
            assert code == -signal.SIGKILL, f"{lines} {context}"
            kills += 1
            for line in lines:
                if line.startswith("m "):
                    acknowledged_messages.add(int(line[2:]))
                elif line.startswith("n "):
                    l, i = line[2:].split()
                    acknowledged_nodes.add((int(l), int(i)))
                elif line.startswith("w "):
                    warnings.append(line[2:])
        lines, code = child.run(max(5 * KILLS, max(acknowledged_messages, default=0) + 10))
        assert code == 0 and lines[-1] == "closed", f"{lines} {context}"
        warnings += [line[2:] for line in lines if line.startswith("w ")]
    finally:
        child.close()

    # messages: every id once, in order, each with its text
    torn = []
    ids = []
    whole_lines = {}
    for path in sorted((home / "chat" / "main").iterdir()):
        for number, line, record in read_raw(path):
            if record is None:
                torn.append((path, number, line))
                continue
            ids.append(record["i"])
            whole_lines[("m", record["i"])] = line
            assert record["kind"] == message_kind(record["i"]), context
            assert record["text"] == message_text(record["i"]), context
            assert record["size"] == len(record["text"].encode()), context
    # [S13] an id a torn write shows was given: it is recorded lost, never given again
    lost = set()
    record_path = home / "chat" / "damage" / "record.jsonl"
    for raw in record_path.read_bytes().splitlines() if record_path.exists() else []:
        entry = json.loads(raw)
        if "lost" in entry:
            lost.update(range(entry["lost"][0], entry["lost"][1] + 1))
    given = sorted(ids + sorted(lost))
    assert ids == sorted(ids) and given == list(range(len(given))), f"message ids not dense and once each {context}"
    assert len(given) >= 5 * KILLS, context  # the last worker appends until the chat has that many ids
    assert acknowledged_messages <= set(ids), f"acknowledged messages lost {context}"

    # nodes: each at most once, each with its text, every acknowledged one there
    nodes = []
    for path in sorted((home / "chat" / "tree").iterdir()):
        for number, line, record in read_raw(path):
            if record is None:
                torn.append((path, number, line))
                continue
            nodes.append((record["l"], record["i"]))
            whole_lines[("n", record["l"], record["i"])] = line
            assert record["text"] == node_text(record["l"], record["i"]), context
    assert len(nodes) == len(set(nodes)), f"a node logged twice {context}"
    assert acknowledged_nodes <= set(nodes), f"acknowledged nodes lost {context}"
    # the final clean run built every node the messages allow
    assert (0, len(ids) - 1) in set(nodes), context

    # torn lines: writes cut by a kill, each the start of a line held whole, each reported
    assert len(torn) <= kills, context
    shown = {int(head[1]) for _, _, line in torn if (head := re.match(rb'\{"i":(\d+),', line))}
    assert lost <= shown, f"an id recorded lost that no torn write shows {context}"
    with Store.open(home) as store:
        assert store.count == len(ids) + len(lost)
        for path, number, line in torn:
            assert f"{path} line {number}: not JSON (a torn write); skipped" in store.warnings, context
            head = re.match(rb'\{"(?:i":(\d+)|l":(\d+),"i":(\d+))', line)
            if head is None:  # cut before the id: a start of any line
                assert b'{"i":0,'.startswith(line) or b'{"l":0,"i":0,'.startswith(line), context
                continue
            key = ("m", int(head[1])) if head[1] else ("n", int(head[2]), int(head[3]))
            if key[0] == "m" and key[1] in lost:  # its id recorded lost: no whole line holds it
                continue
            whole = whole_lines[key]
            date = whole.find(b',"date":')  # a retried message may carry a later second
            limit = len(line) if date < 0 else min(len(line), date)
            assert whole[:limit] == line[:limit], context
    assert not [w for w in warnings if "index was rebuilt" in w], f"{warnings} {context}"
    print(f"\n{kills} kills, {len(ids)} messages, ids lost to torn writes: {len(lost)}, {len(nodes)} nodes, "
          f"{len(torn)} torn lines {context}")
