"""Strategy: inputs far past what one message may hold, through the commands a person or a script
runs, each a fresh process against the local Messages API served by this test process, each beside
a baseline that handles the same bytes in the same run.

- A long message through `ever send -` (standard input) in a chat whose owner is that `ever send`:
  10,000,000 bytes (the most a message may hold [S12]) accepted and logged whole, and 100,000,000
  bytes refused in one sentence before anything is kept. Wall time and peak memory of the `ever
  send` process, each as a ratio to a process that copies the same bytes from its standard input
  to a file in reads of 1 MiB and fsyncs it (the least any program that keeps them must do).
- A Claude Code session holding one line of 2 GiB between two ordinary lines, in a folder beside
  another session, given to `ever import`: its wall time and peak memory as ratios to a process
  reading the same file once in reads of 1 MiB; the line is skipped, said in the file's one
  sentence, and every other line of both files is imported. The long line is a hole in a sparse
  file (NUL bytes read back without the disk holding them), so the run needs no free 2 GiB.

Peak memory is the child's maximum resident set as GNU time reports it (`/usr/bin/time -f %M`,
from wait4's ru_maxrss): time is a small C process, so its child's figure carries none of
pytest's memory, as a child forked by pytest itself would across its exec.

Sizes are full only with `--benchmark-enable` (`make bench`); the default run sends 100 KB,
refuses one byte past the limit, and imports a line just past what the import reads of one line
(notes.JSON_LINE_BYTES_MAX), asserting what is logged and said, never a time. Figures are printed
(`-s`) and stored in each benchmark's extra_info.
"""

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.support.chat import EVER, benchmarks_enabled, environment, is_compaction, lines

pytestmark = pytest.mark.slow  # real processes moving megabytes: make test-slow, make bench

MESSAGE_BYTES_MAX = 10_000_000  # [S12] docs/decisions.md: the most one message may hold
LOGGED_UNANSWERED, NOT_LOGGED = 3, 4  # `ever send`'s exit codes: kept, not answered; nothing kept (its --help)
WINDOW_TOKENS = 1_000_000  # claude-sonnet-4-6's context window, as its model page states it
REPLY = "Got it."
SUMMARY = "a summary line"
TIME = "/usr/bin/time"
COPYING = "copying them to a file with fsync"

# the baselines read into one buffer, as a program that keeps nothing of what it reads would
COPY_WITH_FSYNC = """
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
buffer = bytearray(1 << 20)
while count := sys.stdin.buffer.readinto(buffer):
    view = memoryview(buffer)[:count]
    while view:
        view = view[os.write(fd, view):]
os.fsync(fd)
os.close(fd)
"""


@pytest.fixture
def local(api):
    api.reset()
    api.responder = lambda body: SUMMARY if is_compaction(body) else REPLY
    yield api


def rows(size_bytes: int) -> bytes:
    """`size_bytes` of text in rows of 80 bytes, each naming its place, as a pasted log has them;
    its last byte is not a line break (a pipe's last line break is not the message's)."""
    row = "{:08d} a row of a long message, logged in pieces and joined back whole.......\n"
    assert len(row.format(0)) == 80
    text = "".join(row.format(k) for k in range(size_bytes // 80 + 1)).encode()
    return text[:size_bytes - 1] + b"!"


class Run:
    """A child's exit code, output, wall seconds from its start, and peak memory in KiB."""

    def __init__(self, command: list, env: dict, data: bytes, stats: Path):
        self.stats = stats
        errors = stats.with_suffix(".err").open("w+b")  # a file: stdout is read meanwhile, and a pipe can fill
        self.started, self.started_wall = time.perf_counter(), time.time()
        child = subprocess.Popen([TIME, "-f", "%M", "-o", str(stats), *command], env=env,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors)

        def feed() -> None:
            try:
                view = memoryview(data)
                while view:
                    view = view[child.stdin.write(view[:1 << 20]):]
                child.stdin.close()
            except BrokenPipeError:  # a refusal reads no more than a message may hold
                pass

        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        out = child.stdout.read()
        child.wait(timeout=600)
        self.seconds = time.perf_counter() - self.started
        feeder.join(60)
        child.stdout.close()
        errors.seek(0)
        self.code, self.out, self.err = child.returncode, out.decode(), errors.read().decode()
        errors.close()
        self.peak_kib = int(stats.read_text().split()[-1])


def copied_with_fsync(data: bytes, tmp_path: Path) -> Run:
    target = tmp_path / "copy.bin"
    run = Run([sys.executable, "-c", COPY_WITH_FSYNC, str(target)], os.environ.copy(), data, tmp_path / "copy.time")
    assert run.code == 0, run.err
    assert target.stat().st_size == len(data)
    target.unlink()
    return run


def report(benchmark, name: str, size_bytes: int, run: Run, baseline: Run, baseline_name: str, **more) -> None:
    benchmark.pedantic(lambda: None, rounds=1)  # the figures are the ratios below
    benchmark.extra_info.update(
        bytes=size_bytes, seconds=round(run.seconds, 3), peak_mib=round(run.peak_kib / 1024, 1),
        baseline_seconds=round(baseline.seconds, 3), baseline_peak_mib=round(baseline.peak_kib / 1024, 1),
        time_ratio=round(run.seconds / baseline.seconds, 2), memory_ratio=round(run.peak_kib / baseline.peak_kib, 2),
        **more)
    print(f"\n{name}, {size_bytes:,} bytes: {run.seconds:.2f} s, peak {run.peak_kib / 1024:.0f} MiB; "
          f"{baseline_name} {baseline.seconds:.2f} s, peak {baseline.peak_kib / 1024:.0f} MiB: ratios "
          f"{run.seconds / baseline.seconds:.1f}x time, {run.peak_kib / baseline.peak_kib:.1f}x memory"
          + "".join(f"; {key} {value}" for key, value in more.items()))


def test_a_message_at_the_limit_is_accepted_and_logged_whole_against_copying_it_with_fsync(
        benchmark, request, tmp_path, local):
    """Logged whole, then its turn: a message the model's window holds is answered; one it cannot
    hold (10 MB is some 2,500,000 tokens at four bytes a token, the window 1,000,000) stays in the
    log, and the call is refused in one sentence before any request leaves."""
    size_bytes = MESSAGE_BYTES_MAX if benchmarks_enabled(request) else 100_000
    fits = size_bytes / 4 < WINDOW_TOKENS
    data = rows(size_bytes)
    baseline = copied_with_fsync(data, tmp_path)
    home = tmp_path / "home"
    run = Run([EVER, "send", "-"], environment(home, local), data, tmp_path / "send.time")
    assert "Traceback" not in run.err
    records = lines(home)
    users = [r["text"] for r in records if r["kind"] == "user"]
    assert "".join(users) == data.decode()  # all of it, its pieces joined in order
    assert len(users) > 1
    turns = [r for r in local.requests if r.body and not is_compaction(r.body) and r.answer != "count_tokens"]
    more = {"pieces": len(users)}
    if fits:
        assert (run.code, run.out) == (0, REPLY + "\n"), run.err[-2000:]
        assert turns[0].body["messages"][0]["content"][-1]["text"] == data.decode()
        more["request_read_seconds"] = round(turns[0].received_perf_seconds - run.started, 2)
    else:
        assert (run.code, run.out, turns) == (LOGGED_UNANSWERED, "", []), run.err[-2000:]
        assert run.err.count("\n") == 1 and "context window" in run.err and "in the log" in run.err, run.err
        assert records[-1]["kind"] == "user"  # the last line written: the message's last piece
        last_write = max(path.stat().st_mtime_ns for path in (home / "chat" / "main").glob("*.jsonl"))
        logged_seconds = last_write / 1e9 - run.started_wall
        more.update(logged_seconds=round(logged_seconds, 2), logged_ratio=round(logged_seconds / baseline.seconds, 1))
        counted = [r for r in local.requests if r.answer == "count_tokens"]  # how the window was found full
        if counted:
            more["tokens_counted_seconds"] = round(counted[-1].received_perf_seconds - run.started, 2)
    more["compactions_asked"] = sum(1 for r in local.requests if r.body and is_compaction(r.body))
    report(benchmark, "ever send - accepted and logged", size_bytes, run, baseline, COPYING, **more)


def test_a_message_past_the_limit_is_refused_in_bounded_time_and_memory_against_copying_it_with_fsync(
        benchmark, request, tmp_path, local):
    size_bytes = 100_000_000 if benchmarks_enabled(request) else MESSAGE_BYTES_MAX + 1
    data = rows(size_bytes)
    baseline = copied_with_fsync(data, tmp_path)
    home = tmp_path / "home"
    run = Run([EVER, "send", "-"], environment(home, local), data, tmp_path / "send.time")
    assert (run.code, run.out) == (NOT_LOGGED, ""), run.err[-2000:]
    assert run.err.count("\n") == 1 and "more than 10,000,000 bytes" in run.err, run.err[-2000:]
    assert "nothing was logged" in run.err and "Traceback" not in run.err
    assert not (home / "chat" / "main").exists() or lines(home) == []
    assert local.requests == []
    report(benchmark, "ever send - refused", size_bytes, run, baseline, COPYING)




JSON_LINE_BYTES_MAX = 64 << 20  # harness/imports/notes.py: a longer line is skipped, never held

READ_ONCE = """
import os, sys
buffer = bytearray(1 << 20)
with open(sys.argv[1], "rb", buffering=0) as f:
    while f.readinto(buffer):
        pass
"""


def claude_code_line(session: str, number: int, text: str) -> bytes:
    return (f'{{"type":"user","sessionId":"{session}","uuid":"{session}-{number}","parentUuid":null,'
            f'"timestamp":"2026-10-01T10:{number:02d}:00Z","message":{{"role":"user","content":"{text}"}}}}\n').encode()


def sparse_session(path: Path, line_bytes: int) -> None:
    """An ordinary line, a line of `line_bytes` whose middle is a hole, an ordinary line."""
    head = claude_code_line("big", 0, "before the long line") + b'{"type":"user","sessionId":"big","message":"'
    tail = b'"}\n' + claude_code_line("big", 2, "after the long line")
    with open(path, "wb") as f:
        f.write(head)
        f.seek(len(claude_code_line("big", 0, "before the long line")) + line_bytes - len(b'"}\n'))
        f.write(tail)


def test_a_session_with_a_line_of_2_GiB_is_imported_but_that_line_against_reading_it_once(
        benchmark, request, tmp_path, api):
    line_bytes = (2 << 30) if benchmarks_enabled(request) else JSON_LINE_BYTES_MAX + (1 << 20)
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    big = sessions / "big.jsonl"
    sparse_session(big, line_bytes)
    (sessions / "other.jsonl").write_bytes(claude_code_line("other", 0, "another session")
                                           + claude_code_line("other", 1, "its second line"))
    assert big.stat().st_blocks * 512 < (1 << 20)  # a hole: the disk holds no 2 GiB
    baseline = Run([sys.executable, "-c", READ_ONCE, str(big)], os.environ.copy(), b"", tmp_path / "read.time")
    assert baseline.code == 0, baseline.err
    home = tmp_path / "home"
    run = Run([EVER, "import", str(sessions)], environment(home, api), b"", tmp_path / "import.time")
    assert run.code == 0 and "Traceback" not in run.err, run.err[-2000:]
    said = run.out.splitlines()
    assert f"{big}: 2 notes (Claude Code); 1 line not read (not JSON, or no time)" in said, run.out
    assert f"{sessions / 'other.jsonl'}: 2 notes (Claude Code)" in said, run.out
    notes = [r["text"] for r in lines(home)]
    assert len(notes) == 4 and all(r["kind"] == "note" for r in lines(home))
    for text in ("before the long line", "after the long line", "another session", "its second line"):
        assert sum(text in note for note in notes) == 1, (text, notes)
    report(benchmark, "ever import, a session with one long line", big.stat().st_size, run, baseline,
           "reading the file once", outcome=said[0].rpartition("/")[2])
