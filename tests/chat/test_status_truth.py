"""`ever memory status` against what the next turn really sends.

Strategy: a chat of 600 messages logged with no compactor running, every other one longer than a
line (each waits for a summary), the rest short enough to be their own line: the planner's view
counts each unsummarized line at its 512-byte reserve (some 300,000 bytes, past its ceiling), while
the view a turn sends shows each as a placeholder and is fit under the ceiling. `ever memory status
--json` and `ever memory view` are asked with no chat open; then `ever send` opens the chat
through the strict local API, whose compactions are held (no line comes before the turn's view is
rendered; the settle's wait is cut short by config), and the figures are compared with the turn's
request: its `<chat>`'s bytes, lines and placeholders, and the work the compactor is asked for.
"""

import json
import threading

import pytest

from harness.localapi.server import Reply
from harness.memory.service import Memory
from tests.support.chat import environment, ever
from tests.support.first_day import CHAT, is_compaction

LONG = "a long message, longer than one line of the view, so it waits for its summary. " * 8
SHORT = "a short message, its own line. " * 14  # 434 bytes: with `user: ` within a line's 512


def turn_view(body: dict) -> str:
    content = body["messages"][0]["content"]
    joined = "".join(block["text"] for block in content if isinstance(block, dict) and block.get("type") == "text")
    (view,) = CHAT.findall(joined)
    return view


@pytest.mark.slow
def test_status_gives_the_view_and_the_work_the_next_turn_really_meets(tmp_path, api):
    memory = Memory.open(tmp_path)
    try:
        for k in range(600):
            memory.append("user", LONG if k % 2 else SHORT)
    finally:
        memory.close()
    (tmp_path / "config.toml").write_text("[memory]\nsettle_timeout_seconds = 0.01\n")
    env = environment(tmp_path, api)

    status = json.loads(ever(["memory", "status", "--json"], env).stdout)
    printed = ever(["memory", "view"], env).stdout
    said = ever(["memory", "status"], env).stdout.splitlines()

    held = threading.Event()
    api.reset()
    api.responder = lambda body: Reply("held", gate=held) if is_compaction(body) else Reply("Seen.")
    try:
        assert ever(["send", "what is in my chat?"], env).returncode == 0
    finally:
        held.set()
    bodies = [r.body for r in api.requests if r.path == "/v1/messages"]
    turns = [body for body in bodies if not is_compaction(body)]
    compactions = [body for body in bodies if is_compaction(body)]
    sent = turn_view(turns[0])

    assert printed == sent + "\n"  # `ever memory view` is the turn's view, byte for byte
    assert status["view_bytes"] == len(sent.encode())
    rows = sent.split("\n")[1:-1]
    assert status["view_lines"] == len(rows)
    assert status["unsummarized"] == sum(row.endswith("not summarized yet: search or zoom it") for row in rows) > 0
    assert status["view_bytes"] <= status["view_bytes_ceiling"] < status["counted_view_bytes"]
    assert status["shrinking"] and status["shrinking_because"].startswith("the view counts ")
    assert status["summaries_waiting"] == 300  # each long message, none summarized yet
    assert compactions  # the compactor was asked for that work at once
    assert status["compactor"].startswith("not running: no chat is open (300 summaries wait")
    assert status["last_backup"] is None
    assert said[1] == (f"The view the next turn sends (`ever memory view`) is {len(sent.encode()):,} bytes in "
                       f"{len(rows):,} lines, {status['unsummarized']:,} of them not summarized yet (shown as a "
                       "placeholder to zoom).")
    assert said[2].startswith("Work that waits: 300 summaries of long messages, ")
    assert said[3].startswith("Shrinking: the view counts ")
