"""Strategy: a real chat's home against the table of harness/memory/home.py. `ever` runs in
subprocesses against the local Messages API, as a person runs it: the key kept in its file, one
turn that reads an image, searches and starts a subagent, an import, `ever browse`'s page, a damaged
line set aside by `ever doctor --repair`, and `ever chat` in a pseudo-terminal (its history, and
/memory-model writing the config). Then every path the home holds must be a row's, at no mode wider
than its row's: a file nobody declared fails. The rows this chat must have are listed here by hand,
from what each step writes, and `ever files` must list exactly those. A stray file and a file
opened to others are planted in a chat written straight in the store's format, and found.
"""

import json
import os
import struct
import subprocess
import zlib
from pathlib import Path

import pexpect
import pytest

from harness.calls.agents import SUBAGENT_ROLE
from harness.chat.config import write_key
from harness.localapi.server import Reply, tool_use
from harness.memory.home import place_of, undeclared, wider_modes
from tests.support.chat import EVER, environment, ever
from tests.support.chat_files import write_chat

# What this chat writes, in the table's order, each row's path as harness/memory/home.py's
# docstring and the modules that write them describe it.
WRITTEN = [
    ("home", ""),
    ("config", "config.toml"),
    ("key", "key"),
    ("history", "history"),
    ("models", "models.json"),
    ("tokens", "tokens.json"),
    ("chat", "chat/"),
    ("lock", "chat/lock"),
    ("main/", "chat/main/"),
    ("messages", "chat/main/YYYY-MM-DD.jsonl"),
    ("tree/", "chat/tree/"),
    ("nodes", "chat/tree/YYYY-MM-DD.jsonl"),
    ("view", "chat/view.json"),
    ("inbox", "chat/inbox.jsonl"),
    ("images/", "chat/images/"),
    ("image", "chat/images/<sha256>.<ext>"),
    ("index/", "chat/index/"),
    ("index", "chat/index/meta.json"),
    ("entries", "chat/index/index-<generation>.bin"),
    ("damage/", "chat/damage/"),
    ("damage", "chat/damage/record.jsonl"),
    ("set aside", "chat/damage/<log>-YYYY-MM-DD.jsonl"),
    ("search", "chat/search.sqlite"),
    ("agents/", "chat/agents/"),
    ("subagents", "chat/agents/<Name>.jsonl"),
    ("usage/", "chat/usage/"),
    ("usage", "chat/usage/YYYY-MM-DD.jsonl"),
    ("page", "chat/memory.html"),
]


def png_red() -> bytes:
    """A real 1×1 red PNG, each chunk with its CRC."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
            + chunk(b"IEND", b""))


def texts_of(body: dict) -> list[str]:
    return [block.get("text", "") for message in body["messages"] if isinstance(message["content"], list)
            for block in message["content"] if isinstance(block, dict)]


def is_subagent(body: dict) -> bool:
    return body["system"][-1]["text"] == SUBAGENT_ROLE


def is_turn(body: dict) -> bool:
    return not is_subagent(body) and not any(t.startswith("Compaction:") for t in texts_of(body))


@pytest.mark.slow
def test_every_path_a_chat_writes_is_a_row_at_its_mode_and_ever_files_lists_the_rows_there(tmp_path, api):
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    (work / "red.png").write_bytes(png_red())
    (work / "notes.txt").write_text("An old note about the xylophone.\n")
    write_key(home, "test-key")
    env = environment(home, api, key="")  # the key from its file

    api.enqueue(Reply([tool_use("read", {"path": "red.png"}, id="r1"),
                       tool_use("search", {"query": "xylophone"}, id="s1"),
                       tool_use("agent", {"name": "Scout", "task": "Look around."}, id="a1")]), when=is_turn)
    api.enqueue(Reply("Scout is looking."), when=is_turn)
    api.enqueue(Reply("Nothing here."), when=is_subagent)
    sent = subprocess.run([EVER, "send", "--yes", "read red.png, search for xylophone and send Scout"],
                          env=env, cwd=work, capture_output=True, text=True, timeout=300)
    assert sent.returncode == 0, sent.stderr
    assert ever(["import", "--yes", str(work / "notes.txt")], env).returncode == 0
    assert ever(["browse"], env).returncode == 0

    day_file = next((home / "chat" / "main").glob("*.jsonl"))
    with open(day_file, "ab") as f:
        f.write(b'{"i": torn\n')  # a line a crash left: not JSON
    repaired = ever(["doctor", "--repair", "--yes"], env)
    assert repaired.returncode == 0, repaired.stderr

    api.enqueue(Reply("Hello back."), when=is_turn)
    chat = pexpect.spawn(EVER, ["chat"], env=env, cwd=str(work), encoding="utf-8", timeout=120,
                         dimensions=(40, 160))
    try:
        chat.expect("›")
        chat.send("hello\r")
        chat.expect("Hello back.")
        chat.expect("›")
        chat.send("/memory-model claude-haiku-4-5\r")
        chat.expect("memory model: claude-haiku-4-5")  # said once the config is written
        chat.expect("›")
        chat.send("\x04")
        chat.expect(pexpect.EOF)
    finally:
        chat.close(force=True)

    assert undeclared(home) == []
    assert wider_modes(home) == []
    assert sorted({place_of(relative).name for relative in all_paths(home)}) == sorted(name for name, _ in WRITTEN)
    listed = ever(["files"], env).stdout
    assert listed == "".join(f"{name + ':':<11}{home / path if path else home}\n" for name, path in WRITTEN)
    assert "hello" in (home / "history").read_text()
    assert json.loads((home / "chat" / "damage" / "record.jsonl").read_text().splitlines()[0])["set_aside"]


def all_paths(home: Path) -> list[str]:
    """Every path under the home, as the table's rows name them: found here with os.walk, apart
    from harness/memory/home.py's own walk."""
    found = [""]
    for folder, folders, files in os.walk(home):
        relative = os.path.relpath(folder, home)
        prefix = "" if relative == "." else relative + "/"
        found += [prefix + name + "/" for name in folders] + [prefix + name for name in files]
    return found


def test_a_file_nobody_declared_is_found_and_a_file_open_to_others_is_said_by_doctor(tmp_path, api):
    home = tmp_path / "home"
    write_chat(home, 20)
    assert undeclared(home) == []
    (home / "chat" / "notes.txt").write_text("mine")
    (home / "chat" / "old").mkdir()
    assert undeclared(home) == ["chat/notes.txt", "chat/old/"]
    day_file = next((home / "chat" / "tree").glob("*.jsonl"))
    os.chmod(day_file, 0o644)
    report = ever(["doctor"], environment(home, api))
    assert report.returncode == 1 and report.stderr == (
        "ever: found 1 file open wider than Ever keeps it (the chmod above)\n")
    said = report.stdout
    assert f"{day_file} is 0644, open wider than the 0600 Ever keeps it at: chmod 600 {day_file}.\n" in said
    assert f"{home / 'chat' / 'notes.txt'}" not in said  # a stray file's mode is not Ever's to keep


def test_a_path_belongs_to_the_row_its_pattern_names():
    rows = {relative: place_of(relative) and place_of(relative).name for relative in (
        "chat/main/2026-10-08.jsonl", "chat/main/notes.jsonl", "chat/images/3b1f.png", "chat/images/3b1f.png.tmp",
        "chat/view.json.tmp", "chat/.tmp", "chat/agents/Scout.jsonl", "chat/damage/tree-2026-10-08.jsonl",
        "demo/chat/tree/2026-10-08.jsonl", "demo/chat/stray", "bench/recall-text/bench.json", "config.toml.tmp")}
    assert rows == {
        "chat/main/2026-10-08.jsonl": "messages", "chat/main/notes.jsonl": None, "chat/images/3b1f.png": "image",
        "chat/images/3b1f.png.tmp": "replacing", "chat/view.json.tmp": "replacing", "chat/.tmp": None,
        "chat/agents/Scout.jsonl": "subagents", "chat/damage/tree-2026-10-08.jsonl": "set aside",
        "demo/chat/tree/2026-10-08.jsonl": "demo/", "demo/chat/stray": None,
        "bench/recall-text/bench.json": "bench/", "config.toml.tmp": "replacing"}
