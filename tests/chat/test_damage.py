"""Strategy: damage a person may find in the logs — a line garbled in the middle of a day file, a
byte changed inside one message's text, the newest day file cut at a byte — made by hand in a
chat's files, then every command run as the installed `ever` in a subprocess. Each must say the
damage in one sentence naming the file and line and what to run, with no traceback; `ever doctor`
must name the damaged lines and the lost ids, and `ever doctor --repair` set them aside byte for
byte without touching the day files [S13]; after a cut, no id is given twice. Chats are written
straight in the store's format (tests/support/chat_files.py) where a real chat is not the point.
"""

import json
import os
import signal
import subprocess
from pathlib import Path

import pexpect
import pytest

from tests.support.chat import EVER, environment, ever
from tests.support.chat_files import write_chat

pytestmark = pytest.mark.local_api(responder=lambda body: "a summary line"
                                   if body.get("tool_choice") == {"type": "none"} else "Answered.")


def day_file(home: Path) -> Path:
    return sorted((home / "chat" / "main").glob("*.jsonl"))[-1]


def replace_line(path: Path, number: int, make) -> bytes:
    """Line `number` (from 1) of `path` replaced by make(old line); returns the new line."""
    lines = path.read_bytes().split(b"\n")
    lines[number - 1] = make(lines[number - 1])
    path.write_bytes(b"\n".join(lines))
    return lines[number - 1]


def one_sentence(err: str) -> str:
    said = [line for line in err.splitlines() if line]
    assert len(said) == 1 and said[0].startswith("ever: "), err
    assert "Traceback" not in err
    return said[0]


@pytest.mark.slow  # whole `ever` processes on a terminal, seconds each: make test-slow
def test_a_damaged_line_in_the_middle_is_said_by_every_command_and_doctor_repair_sets_it_aside(tmp_path, api):
    home = tmp_path / "home"
    write_chat(home, 10)
    path = day_file(home)
    # line 5 holds message 4; its head is garbled, so its id cannot be read
    garbled = replace_line(path, 5, lambda line: b"\x00\x17garbled" + line[12:])
    env = environment(home, api)
    (tmp_path / "notes.md").write_text("# Notes\n\nAn old note.\n")
    for args in (["send", "hello"], ["log"], ["memory", "status"], ["search", "memory"],
                 ["browse", "--out", str(tmp_path / "page.html")], ["import", "--yes", str(tmp_path / "notes.md")]):
        done = ever(args, env)
        said = one_sentence(done.stderr)
        assert done.returncode in (1, 4), (args, done.returncode)
        assert f"{path} line 6" in said and "line 5" in said and "ever doctor --repair" in said, (args, said)
        if args[0] == "send":  # sentences that end as sentences do
            assert said.endswith("sets it aside. Nothing was logged."), said
    before = path.read_bytes()
    report = ever(["doctor"], env)
    assert report.returncode == 1  # damage reported and left: a script sees it
    assert one_sentence(report.stderr) == "ever: found 1 damaged line (`ever doctor --repair` sets it aside)"
    assert f"main/{path.name} line 5 " in report.stdout and "Lost: message 4:" in report.stdout
    assert "highest id ever given is 9" in report.stdout
    asked = ever(["doctor", "--repair"], env, stdin="")  # not a terminal, no --yes: nothing done
    assert asked.returncode == 1 and "--yes" in one_sentence(asked.stderr)
    assert not (home / "chat" / "damage").exists()
    repaired = ever(["doctor", "--repair", "--yes"], env)
    assert repaired.returncode == 0, repaired.stderr
    assert path.read_bytes() == before  # the day file is not edited
    assert (home / "chat" / "damage" / f"main-{path.name}").read_bytes() == garbled + b"\n"
    sent = ever(["send", "--json", "after the repair"], env)
    assert sent.returncode == 0 and sent.stderr == "", sent.stderr
    assert json.loads(sent.stdout)["id"] == 10  # past every id given, message 4 lost for good
    after = ever(["doctor"], env)
    assert after.stdout.count("Damaged:") == 0 and after.returncode == 0
    shown = ever(["log", "-n", "12", "--json"], env)
    assert shown.returncode == 0 and shown.stderr == ""
    assert [m["id"] for m in json.loads(shown.stdout)] == list(range(12))


@pytest.mark.parametrize("folder", ["main", "tree"])
def test_damage_inside_one_text_leaves_browse_whole_and_says_the_line(folder, tmp_path):
    home = tmp_path / "home"
    write_chat(home, 12, text=lambda i, rng: f"message number {i} with its words")
    path = sorted((home / "chat" / folder).glob("*.jsonl"))[-1]
    # a byte changed on disk inside a text (message 3; the tree's line 3, node (1, 0), joining
    # messages 0 and 1): the line keeps its ids and its tail
    number, what = (4, "message 3") if folder == "main" else (3, "node (1, 0)")
    replace_line(path, number, lambda line: line.replace(b"with its", b'with\x00"its', 1))
    env = {name: value for name, value in os.environ.items() if not name.startswith(("ANTHROPIC_", "EVER_"))}
    env["EVER_HOME"] = str(home)  # browse and doctor need no key
    page = tmp_path / "page.html"
    done = ever(["browse", "--out", str(page)], env)
    assert done.returncode == 0, done.stderr
    said = one_sentence(done.stderr)
    assert f"{path} line {number} is damaged inside {what}'s text" in said and "ever doctor" in said
    html = page.read_text()
    for i in (0, 2, 4, 11):
        assert f"message number {i} with its words" in html
    report = ever(["doctor"], env)
    assert f"{folder}/{path.name} line {number} " in report.stdout
    assert ever(["doctor", "--repair", "--yes"], env).returncode == 0
    again = ever(["browse", "--out", str(page)], env)
    assert again.returncode == 0 and again.stderr == ""


def readable(home: Path) -> list:
    """The records of main/'s lines that are JSON, in order: a damaged line is passed over."""
    found = []
    for path in sorted((home / "chat" / "main").glob("*.jsonl")):
        for line in path.read_bytes().split(b"\n"):
            try:
                found.append(json.loads(line))
            except ValueError:
                pass
    return found


@pytest.mark.slow  # whole `ever` processes on a terminal, seconds each: make test-slow
@pytest.mark.parametrize("cut", ["mid-message", "at a line's end"])
def test_a_day_file_cut_gives_the_next_message_an_id_past_every_id_ever_given(cut, tmp_path, api):
    home = tmp_path / "home"
    env = environment(home, api)
    write_chat(home, 6)
    assert ever(["log"], env).returncode == 0  # the chat opened once: its index saved
    path = day_file(home)
    data = path.read_bytes()
    last_line = data.rstrip(b"\n").rfind(b"\n") + 1  # message 5
    before_last = data[:last_line - 1].rfind(b"\n") + 1  # message 4
    path.write_bytes(data[:last_line + 25] if cut == "mid-message" else data[:before_last])
    sent = ever(["send", "--json", "after the cut"], env)
    assert sent.returncode == 0
    said = one_sentence(sent.stderr)
    assert "no id is given twice" in said and "ever doctor" in said
    if cut == "mid-message":
        assert f"{path} line 6 is damaged" in said
    again = json.loads(sent.stdout)["id"]
    assert again == 6  # past every id given: today's code gave 5 (or 4) again
    records = readable(home)
    assert [r["text"] for r in records if r.get("i") == again] == ["after the cut"]
    ids = [r["i"] for r in records if "i" in r and "kind" in r]
    assert len(ids) == len(set(ids))
    # the next command opens past the recorded gap, and says only the damaged line, if any
    shown = ever(["log", "-n", "3", "--json"], env)
    assert shown.returncode == 0
    assert [m["id"] for m in json.loads(shown.stdout)] == [5, 6, 7]
    assert ("line 6 is damaged" in shown.stderr) == (cut == "mid-message")


@pytest.mark.slow  # whole `ever` processes on a terminal, seconds each: make test-slow
def test_a_running_owner_passes_the_damage_on_and_doctor_repair_waits_for_it_to_close(tmp_path, api):
    home = tmp_path / "home"
    env = environment(home, api)
    write_chat(home, 6)
    assert ever(["log"], env).returncode == 0
    path = day_file(home)
    data = path.read_bytes()
    os.truncate(path, data.rstrip(b"\n").rfind(b"\n") + 20)  # message 5 cut mid-line
    owner = subprocess.Popen([EVER, "serve"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, start_new_session=True)
    try:
        said = [owner.stdout.readline()]
        while said[-1] and "Ever serves the chat" not in said[-1]:
            said.append(owner.stdout.readline())
        assert f"{path} line 6 is damaged" in "".join(said)  # the owner says it where it runs
        for args in (["send", "--json", "handed to the owner"], ["memory", "status"]):
            done = ever(args, env)
            assert done.returncode == 0, done.stderr
            assert f"{path} line 6 is damaged" in one_sentence(done.stderr), args
        assert json.loads(ever(["send", "--json", "again"], env).stdout)["id"] == 8  # 5 lost, 6 and 7 before
        refused = ever(["doctor", "--repair", "--yes"], env)
        assert refused.returncode == 1 and "Close it first" in one_sentence(refused.stderr)
        assert not (home / "chat" / "damage" / f"main-{path.name}").exists()
    finally:
        os.killpg(owner.pid, signal.SIGTERM)
        owner.wait(timeout=30)


def test_doctor_repair_asks_on_a_terminal_and_no_changes_nothing(tmp_path):
    home = tmp_path / "home"
    write_chat(home, 4)
    replace_line(day_file(home), 2, lambda line: b"garbled" + line[7:])
    env = {name: value for name, value in os.environ.items() if not name.startswith(("ANTHROPIC_", "EVER_"))}
    env["EVER_HOME"] = str(home)
    for answer, repaired in (("n", False), ("y", True)):
        child = pexpect.spawn(EVER, ["doctor", "--repair"], env=env, encoding="utf-8", timeout=60)
        child.expect(r"Set 1 damaged line aside and record the lost ids\? \[y/N\]")
        child.sendline(answer)
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == (0 if repaired else 1)  # "no" leaves the damage
        assert (home / "chat" / "damage").exists() == repaired, answer
    assert "message 1" in (home / "chat" / "damage" / "record.jsonl").read_text()
