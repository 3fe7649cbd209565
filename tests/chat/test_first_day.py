"""Strategy: a real user's first day, as `ever send` lives it against the local Messages API: a chat
of 1,000 messages whose tree is whole, then 3,000 short notes and 300 long ones imported while no
compactor ran (written straight in the store's format, as tests/support/chat_files.py does, with
each short note's own line logged as built), then one message. The ceilings are the gist's
(128,000 bytes for a turn's `<chat>`, 32,000 for a compaction's, tags apart) and the windows the
models' pages' (Sonnet 4.6 1,000,000 tokens, Haiku 4.5 200,000): constants here, not read from the
code. Every request the local API received is measured; the largest of each kind is printed.
"""

import json
import os
import random
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from harness.localapi.server import Reply
from harness.memory.store import encode_line
from tests.support.chat_files import words, write_chat
from tests.support.first_day import (
    COMPACTION_CEILING,
    TAGS,
    TURN_CEILING,
    WINDOWS,
    chat_bytes,
    is_compaction,
    request_bytes,
)

EVER = shutil.which("ever", path=str(Path(sys.executable).parent)) or "ever"


def import_notes(home: Path, first: int, short: int, long: int, seed: int = 11) -> None:
    """Append notes to the chat's log as an import with no compactor running leaves it: each
    message line, and for a note of at most 512 bytes with its kind, its own node [gist §2]; a
    short note's two halves are too long to join, so no parent is built."""
    rng = random.Random(seed)
    sizes = [rng.randint(260, 480) for _ in range(short)] + [rng.randint(600, 3000) for _ in range(long)]
    rng.shuffle(sizes)
    main = sorted((home / "chat" / "main").glob("*.jsonl"))[-1]
    tree = sorted((home / "chat" / "tree").glob("*.jsonl"))[-1]
    date = datetime(2026, 1, 3, 9, 0, tzinfo=UTC)
    main_lines, tree_lines = [], []
    for k, size in enumerate(sizes):
        i = first + k
        body = (words(rng, size // 5) + " " * size)[:size]
        main_lines.append(encode_line({"i": i, "kind": "note", "text": body, "size": len(body.encode()),
                                       "date": (date + timedelta(seconds=k)).isoformat(timespec="seconds")}))
        source = "note: " + body
        if len(source.encode()) <= 512:
            tree_lines.append(encode_line({"l": 0, "i": i, "text": source, "size": len(source.encode()), "T": i + 1}))
    with open(main, "ab") as f:
        f.write(b"".join(main_lines))
    with open(tree, "ab") as f:
        f.write(b"".join(tree_lines))


def answer(body: dict) -> Reply:
    """A compaction gets a short line, a turn a short reply."""
    blocks = body["messages"][-1]["content"]
    text = blocks if isinstance(blocks, str) else " ".join(b.get("text", "") for b in blocks if isinstance(b, dict))
    if "Compaction:" in text:
        return Reply("user: asked about the lamp; ever: answered, the garden kept.")
    return Reply("Noted.")


@pytest.mark.slow
def test_a_first_day_of_3300_imported_notes_sends_every_request_within_its_ceiling_and_window(tmp_path, api):
    home = tmp_path / "home"
    write_chat(home, 1000)
    import_notes(home, 1000, 3000, 300)
    (home / "config.toml").write_text("[memory]\nsettle_timeout_seconds = 3\n")
    api.reset()
    api.responder = answer
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVER_"))}
    env.update(EVER_HOME=str(home), ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY="test-key",
               EVER_MODEL="claude-sonnet-4-6")
    done = subprocess.run([EVER, "send", "What did I import?"], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert "Noted." in done.stdout
    turns, compactions = [], []
    for request in api.requests:
        body = request.body
        if body is None:  # a compaction cut off mid-upload as `ever send` leaves: nothing was read
            assert request.answer == "invalid", (request.method, request.path, request.status, request.answer)
            continue
        assert isinstance(body, dict), (request.method, request.path, request.status, request.answer)
        (compactions if is_compaction(body) else turns).append(body)
    assert turns and compactions
    largest = {}
    for kind, bodies, ceiling in (("turn", turns, TURN_CEILING), ("compaction", compactions, COMPACTION_CEILING)):
        for body in bodies:
            assert chat_bytes(body) <= ceiling + TAGS, (kind, chat_bytes(body))
            assert request_bytes(body) + body["max_tokens"] <= WINDOWS[body["model"]], (kind, request_bytes(body))
        largest[kind] = (max(chat_bytes(b) for b in bodies), max(request_bytes(b) for b in bodies), len(bodies))
    # the view before the turn, as counted: far past its ceiling, which the turn's view is not
    view = json.loads((home / "chat" / "view.json").read_text())
    assert len(view["view"]) > 3000
    print(f"\nfirst day: {len(turns)} turn request(s), the largest <chat> {largest['turn'][0]:,} bytes "
          f"(ceiling {TURN_CEILING:,} + {TAGS}), the largest body {largest['turn'][1]:,} bytes; "
          f"{len(compactions)} compaction requests, the largest <chat> {largest['compaction'][0]:,} bytes "
          f"(ceiling {COMPACTION_CEILING:,} + {TAGS}), the largest body {largest['compaction'][1]:,} bytes; "
          f"the view saved at close: {len(view['view']):,} lines")


@pytest.mark.slow
def test_after_an_import_an_opened_chat_starts_its_compactions_before_anything_is_typed(tmp_path, api):
    """`ever import` of 40 long notes (each a summary call), then `ever chat` on a terminal with
    nothing typed: compaction requests arrive while the prompt waits, and no turn is asked for.
    The delay from the start of `ever chat` to the first request is measured and printed, never
    asserted; the guard of 60 seconds only stops a hang."""
    import time

    import pexpect

    from tests.support.chat import environment

    home = tmp_path / "home"
    session = tmp_path / "session.jsonl"
    session.write_text("".join(json.dumps({
        "type": "user", "uuid": f"u{k}", "parentUuid": None, "sessionId": "s1",
        "timestamp": f"2026-03-01T10:{k:02d}:00Z", "message": {"role": "user", "content": f"note {k} " + "w " * 400}})
        + "\n" for k in range(40)))
    env = environment(home, api)
    imported = subprocess.run([EVER, "import", str(session)], env=env, capture_output=True, text=True, timeout=120)
    assert imported.returncode == 0, imported.stderr
    assert "Added 40 notes" in imported.stdout
    api.reset()
    api.responder = answer
    started = time.monotonic()
    child = pexpect.spawn(EVER, ["chat"], env=env, encoding="utf-8", timeout=60, dimensions=(40, 160))
    try:
        child.expect("›")
        prompt = time.monotonic() - started
        while not any(is_compaction(r.body) for r in api.requests if isinstance(r.body, dict)):
            assert time.monotonic() - started < 60, "no compaction request within 60 seconds of opening"
            time.sleep(0.05)
        first = time.monotonic() - started
        assert all(is_compaction(r.body) for r in api.requests if isinstance(r.body, dict))  # no turn: nothing typed
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    print(f"\nopened after an import of 40 long notes: the prompt {prompt:.2f} s and the first compaction "
          f"request {first:.2f} s after `ever chat` started, with nothing typed")
