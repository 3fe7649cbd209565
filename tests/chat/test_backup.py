"""Strategy: `ever backup`, `ever backup --check`, `ever restore` and `ever forget` run as a person
runs them (the installed command in a subprocess) on a chat written in the store's own format
(tests/support/chat_files.py), or made by `ever send` against the local Messages API where the
owner's continuous backup is what is tested. Each test asserts the exit code, the sentence said and
the files left: the day files byte for byte against the live ones, `ever memory view` against the
live view, and for a forget every file under the home and the backup searched by this test for the
secret and its base64. The damage a check must catch (a flipped byte, a cut file, a missing one, a
stale manifest) is made here by hand on the backup's files.

A restic repository is used where restic is installed; without it those tests skip in one
sentence, and with EVER_REQUIRE_RESTIC=1 (CI, .ci/run) they fail.
"""

import base64
import json
import os
import shutil
from pathlib import Path

import pexpect
import pytest

from harness.memory.lock import ChatLock
from tests.support.chat import environment, ever, lines
from tests.support.chat_files import write_chat

SECRET = "sk-ant-api03-" + "Zq7" * 14  # an API key's shape, pasted by mistake
LEAK = 20  # the message that holds it


def text_of(i, rng) -> str:
    if i == LEAK:
        return f"here is my key {SECRET} please keep it"
    return f"message {i} about the river and the lantern, number {i}"


def env_for(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVER_"))}
    env.update(EVER_HOME=str(home), EVER_OWNER_WAIT_SECONDS="600")
    return env


@pytest.fixture
def chat(tmp_path) -> Path:
    home = tmp_path / "home"
    write_chat(home, 64, text=text_of)
    (home / "config.toml").write_text('model = "claude-sonnet-4-6"\n')
    os.chmod(home / "config.toml", 0o600)
    (home / "key").write_text("test-key\n")
    os.chmod(home / "key", 0o600)
    return home


def run(home: Path, *args):
    return ever(list(args), env_for(home))


def backed_up(home: Path, dest: Path):
    done = run(home, "backup", str(dest))
    assert done.returncode == 0, done.stderr
    return json.loads((dest / "manifest.json").read_text())


def stored(dest: Path, relative: str) -> Path:
    manifest = json.loads((dest / "manifest.json").read_text())
    return dest / next(e["stored"] for e in manifest["files"] if e["path"] == relative)


def every_byte(root: Path) -> list[tuple[Path, bytes]]:
    return [(path, path.read_bytes()) for path in sorted(root.rglob("*")) if path.is_file() and not path.is_socket()]


def test_a_backup_holds_the_truth_and_not_the_key_and_its_check_passes(chat, tmp_path):
    dest = tmp_path / "backup"
    manifest = backed_up(chat, dest)
    paths = sorted(entry["path"] for entry in manifest["files"])
    assert paths == ["chat/main/2026-01-01.jsonl", "chat/tree/2026-01-01.jsonl", "config.toml"]
    assert manifest["messages"] == 64
    assert all(b"test-key" not in data for _, data in every_byte(dest))
    day = stored(dest, "chat/main/2026-01-01.jsonl")
    assert day.read_bytes() == (chat / "chat/main/2026-01-01.jsonl").read_bytes()
    done = run(chat, "backup", "--check", str(dest))
    assert done.returncode == 0, done.stderr
    assert done.stdout == (f"The backup in {dest} of {manifest['taken']} passed its check: 3 files "
                           f"({sum(e['size'] for e in manifest['files']):,} bytes) match their manifest and the "
                           "live files, and the view rebuilt from its 64 messages is the live view, byte for byte.\n")
    said = run(chat, "memory", "status").stdout.splitlines()[-1]
    checked_at = said.split("check, at ")[1].split(",")[0]
    assert said == (f"The last backup into {dest} was taken at {manifest['taken']}; its last check, at "
                    f"{checked_at}, passed.")


def test_a_second_backup_appends_only_what_is_new_to_the_stored_files(chat, tmp_path):
    dest = tmp_path / "backup"
    backed_up(chat, dest)
    day = stored(dest, "chat/main/2026-01-01.jsonl")
    inode = day.stat().st_ino
    live = chat / "chat/main/2026-01-01.jsonl"
    before = day.read_bytes()
    line = {"i": 64, "kind": "user", "text": "one more", "size": 8, "date": "2026-01-01T12:12:00+00:00"}
    with open(live, "ab") as f:
        f.write(json.dumps(line, separators=(",", ":")).encode() + b"\n")
    manifest = backed_up(chat, dest)
    assert manifest["messages"] == 65
    assert stored(dest, "chat/main/2026-01-01.jsonl") == day and day.stat().st_ino == inode
    assert day.read_bytes() == live.read_bytes() and day.read_bytes().startswith(before)


def test_a_folder_keeps_its_history_and_an_older_snapshot_restores(chat, tmp_path):
    dest = tmp_path / "backup"
    backed_up(chat, dest)
    day = Path("chat/main/2026-01-01.jsonl")
    day_then, config_then = (chat / day).read_bytes(), (chat / "config.toml").read_bytes()
    line = {"i": 64, "kind": "user", "text": "one more", "size": 8, "date": "2026-01-01T12:12:00+00:00"}
    with open(chat / day, "ab") as f:
        f.write(json.dumps(line, separators=(",", ":")).encode() + b"\n")
    (chat / "config.toml").write_text('model = "claude-opus-4-6"\n')  # replaced whole: a new object
    backed_up(chat, dest)
    listed = run(chat, "backup", "--snapshots", str(dest))
    assert listed.returncode == 0, listed.stderr
    rows = listed.stdout.splitlines()
    assert len(rows) == 3 and rows[2].startswith("2 snapshots, the last is the latest")
    assert " 64 messages " in rows[0] and " 65 messages " in rows[1]
    older = tmp_path / "older"
    done = run(older, "restore", str(dest), "--snapshot", rows[0].split()[0])
    assert done.returncode == 0 and done.stdout.startswith("Restored 64 messages"), done.stderr
    assert (older / day).read_bytes() == day_then and (older / "config.toml").read_bytes() == config_then
    newest = tmp_path / "newest"
    assert run(newest, "restore", str(dest)).returncode == 0
    assert (newest / day).read_bytes() == (chat / day).read_bytes()
    assert run(chat, "backup", "--check", str(dest)).returncode == 0  # the latest
    done = run(tmp_path / "none", "restore", str(dest), "--snapshot", "1999")
    assert done.returncode == 1 and f"{dest} has no snapshot '1999' (its 2 snapshots: " in done.stderr


def test_the_history_keeps_the_last_ten_and_the_newest_of_each_hour_and_day():
    from harness.memory.backup import kept_ids

    # two days of snapshots every 20 minutes, named as they would be
    ids = [f"2026-01-{day:02d}T{hour:02d}{minute:02d}00Z" for day in (1, 2) for hour in range(24)
           for minute in (0, 20, 40)]
    kept = kept_ids(ids)
    last_ten = ids[-10:]
    hourly = [f"2026-01-02T{hour:02d}4000Z" for hour in range(24)]  # the newest of each of the last 24 hours
    daily = ["2026-01-01T234000Z", "2026-01-02T234000Z"]
    assert kept == set(last_ten) | set(hourly) | set(daily)


def damage_flipped(dest):
    day = stored(dest, "chat/main/2026-01-01.jsonl")
    data = bytearray(day.read_bytes())
    data[200] ^= 0x01
    day.write_bytes(bytes(data))
    return f"{day} has changed: its bytes are not the ones the manifest hashed for chat/main/2026-01-01.jsonl"


def damage_cut(dest):
    day = stored(dest, "chat/tree/2026-01-01.jsonl")
    size = day.stat().st_size
    os.truncate(day, size - 100)
    return (f"{day} is cut: {size - 100:,} bytes where the manifest says {size:,} for "
            "chat/tree/2026-01-01.jsonl")


def damage_missing(dest):
    day = stored(dest, "chat/main/2026-01-01.jsonl")
    day.unlink()
    return f"{day} is missing: the manifest names it for chat/main/2026-01-01.jsonl"


def damage_stale(dest):
    # the manifest of an earlier backup put back: it names a size the stored file went past,
    # which is sound, and a hash of an older config.toml, whose object was removed since
    manifest = json.loads((dest / "manifest.json").read_text())
    entry = next(e for e in manifest["files"] if e["path"] == "config.toml")
    entry["sha256"] = "0" * 64
    (dest / "manifest.json").write_text(json.dumps(manifest))
    return f"{dest / entry['stored']} has changed: its bytes are not the ones the manifest hashed for config.toml"


@pytest.mark.parametrize("damage", [damage_flipped, damage_cut, damage_missing, damage_stale])
def test_the_check_says_in_one_sentence_what_is_wrong_with_the_backup(chat, tmp_path, damage):
    dest = tmp_path / "backup"
    backed_up(chat, dest)
    wrong = damage(dest)
    done = run(chat, "backup", "--check", str(dest))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == f"ever: The backup in {dest} is not sound: {wrong}.\n"
    assert "Traceback" not in done.stderr
    status = run(chat, "memory", "status")
    assert status.stdout.splitlines()[-1].endswith(f"failed: The backup in {dest} is not sound: {wrong}.")


def test_the_check_of_a_backup_whose_logs_do_not_open_says_so_in_one_sentence(chat, tmp_path):
    # a line gone from the live log before the backup: the copy hashes as its manifest says and
    # still does not open; the check's verdict says so, named by the backup's own path
    day = chat / "chat/main/2026-01-01.jsonl"
    rows = day.read_bytes().splitlines(keepends=True)
    day.write_bytes(b"".join(rows[:10] + rows[11:]))
    dest = tmp_path / "backup"
    backed_up(chat, dest)
    done = run(chat, "backup", "--check", str(dest))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"ever: The backup in {dest} is not sound: its logs, restored, do not open: "
                                  "chat/main/2026-01-01.jsonl line 11 has message id 11 where 10 comes next: a gap")
    assert done.stderr.count("\n") == 1 and "ever-check-" not in done.stderr and "Traceback" not in done.stderr


def test_the_check_finds_a_live_log_that_no_longer_continues_the_backup(chat, tmp_path):
    dest = tmp_path / "backup"
    backed_up(chat, dest)
    live = chat / "chat/main/2026-01-01.jsonl"
    data = live.read_bytes()
    live.write_bytes(data.replace(b"number 3", b"number 8", 1))
    done = run(chat, "backup", "--check", str(dest))
    assert done.returncode == 1
    assert done.stderr == (f"ever: The backup in {dest} is not sound: the live {live} does not start with the "
                           f"backup's {len(data):,} bytes of it: the manifest is stale, or the live file was "
                           "rewritten since (back up again).\n")


def test_a_restore_into_a_new_home_gives_the_same_day_files_and_the_same_view(chat, tmp_path):
    dest = tmp_path / "backup"
    backed_up(chat, dest)
    new = tmp_path / "new"
    done = run(new, "restore", str(dest))
    assert done.returncode == 0, done.stderr
    for log in ("main", "tree"):
        day = Path("chat") / log / "2026-01-01.jsonl"
        assert (new / day).read_bytes() == (chat / day).read_bytes()
    assert not (new / "key").exists()
    assert oct((new / "chat/main/2026-01-01.jsonl").stat().st_mode & 0o777) == "0o600"
    view_there, view_here = run(new, "memory", "view"), run(chat, "memory", "view")
    assert view_there.returncode == 0 and view_there.stdout == view_here.stdout
    assert view_here.stdout.count("\n") > 60


def test_a_restore_upto_an_id_cuts_the_logs_there(chat, tmp_path):
    dest = tmp_path / "backup"
    backed_up(chat, dest)
    new = tmp_path / "new"
    done = run(new, "restore", str(dest), "--upto", "40")
    assert done.returncode == 0, done.stderr
    assert [r["i"] for r in lines(new)] == list(range(41))
    assert all(((n["i"] + 1) << n["l"]) <= 41 and n["T"] <= 41 for n in lines(new, "tree"))
    assert run(new, "memory", "status").stdout.startswith("The chat holds 41 messages.")


def test_a_restore_is_refused_into_a_home_that_holds_a_chat_or_has_an_owner(chat, tmp_path):
    dest = tmp_path / "backup"
    backed_up(chat, dest)
    done = run(chat, "restore", str(dest))
    assert done.returncode == 1
    assert done.stderr == (f"ever: {chat} is not empty (it holds chat, config.toml): a restore goes into an empty "
                           "home only, so nothing of a chat is overwritten; set EVER_HOME to a new folder.\n")
    busy = tmp_path / "busy"
    (busy / "chat").mkdir(parents=True)
    lock = ChatLock(busy / "chat")
    lock.take(read_only=False)
    try:
        done = run(busy, "restore", str(dest))
    finally:
        lock.release()
    assert done.returncode == 1 and "is in use by process" in done.stderr
    assert "A restore goes into an empty home only, and never while an owner runs." in done.stderr
    assert sorted(p.name for p in (busy / "chat").iterdir()) == ["lock"]


def test_a_restore_from_a_cut_backup_is_refused_and_writes_nothing(chat, tmp_path):
    dest = tmp_path / "backup"
    backed_up(chat, dest)
    wrong = damage_cut(dest)
    new = tmp_path / "new"
    done = run(new, "restore", str(dest))
    assert done.returncode == 1
    assert done.stderr == f"ever: {wrong}; nothing was restored.\n"
    assert not (new / "chat" / "tree").exists()


def holders(root: Path, needles: list[bytes]) -> list[str]:
    return [str(path) for path, data in every_byte(root) if any(needle in data for needle in needles)]


def secret_forms() -> list[bytes]:
    raw = SECRET.encode()
    return [raw, base64.b64encode(raw)[:-4]]


def test_forget_removes_a_secret_from_the_home_and_the_backup_and_changes_no_other_line(chat, tmp_path):
    dest = tmp_path / "backup"
    backed_up(chat, dest)
    found = run(chat, "search", SECRET)
    assert found.returncode == 0 and f"\n{LEAK} (in " in found.stdout  # the search index holds it
    # a subagent's log and the usage quoted it too, and a backup of its base64 sat in the inbox
    (chat / "chat/agents").mkdir()
    (chat / "chat/agents/Scout.jsonl").write_text(json.dumps({"step": 1, "text": f"saw {SECRET}"}) + "\n")
    encoded = base64.b64encode(SECRET.encode()).decode()
    (chat / "chat/inbox.jsonl").write_text(json.dumps({"key": "k1", "text": encoded}) + "\n")
    backed_up(chat, dest)
    assert holders(chat, secret_forms()) and holders(dest, secret_forms())
    before = {r["i"]: r for r in lines(chat)}
    main_before = (chat / "chat/main/2026-01-01.jsonl").read_bytes().split(b"\n")

    done = run(chat, "forget", str(LEAK), "--why", "a leaked key", "--yes")
    assert done.returncode == 0, done.stderr + done.stdout
    assert done.stdout.startswith("These go, from the log, the tree, the indexes, the inbox, the subagents' logs and "
                                  f"1 backup ({dest}); each stays as a tombstone with its id:\n"
                                  f"  {LEAK} · user · ")
    assert "none holds it." in done.stdout

    assert holders(chat, secret_forms()) == [] and holders(dest, secret_forms()) == []
    assert len(list((dest / "snapshots").iterdir())) == 1  # no older snapshot names what held it
    after = {r["i"]: r for r in lines(chat)}
    assert sorted(after) == sorted(before)
    assert all(after[i] == before[i] for i in before if i != LEAK)
    main_after = (chat / "chat/main/2026-01-01.jsonl").read_bytes().split(b"\n")
    assert [a for a, b in zip(main_before, main_after) if a != b] == [main_before[LEAK]]
    assert after[LEAK]["kind"] == "user" and after[LEAK]["text"].startswith("(forgotten")
    nodes = lines(chat, "tree")
    assert not any((n["i"] << n["l"]) <= LEAK < ((n["i"] + 1) << n["l"]) for n in nodes)
    assert any(n["l"] == 0 and n["i"] == LEAK - 1 for n in nodes)  # its neighbour's line stays
    record = [json.loads(x) for x in (chat / "chat/forgotten.jsonl").read_text().splitlines()]
    assert [sorted(r) for r in record] == [["ids", "sha256", "when", "why"]]
    assert record[0]["ids"] == [LEAK] and record[0]["why"] == "a leaked key" and len(record[0]["sha256"]) == 64

    found = run(chat, "search", SECRET)
    assert found.returncode == 0 and f"\n{LEAK} (in " not in found.stdout
    check = run(chat, "backup", "--check", str(dest))
    assert check.returncode == 0, check.stderr
    assert (chat / "key").read_text() == "test-key\n"


def test_forget_says_not_clean_when_another_message_still_holds_the_secret_or_a_place_cannot_be_read(chat, tmp_path):
    os.mkfifo(chat / "chat" / "odd")
    done = run(chat, "forget", "3", "--why", "a test", "--yes")
    assert done.returncode == 1
    assert f"NOT clean: {chat}/chat/odd (not a regular file)" in done.stderr
    os.unlink(chat / "chat" / "odd")
    with open(chat / "chat/main/2026-01-01.jsonl", "ab") as f:
        quoted = {"i": 64, "kind": "ever", "text": f"you wrote {SECRET}", "size": 1,
                  "date": "2026-01-01T12:12:00+00:00"}
        f.write(json.dumps(quoted, separators=(",", ":")).encode() + b"\n")
    done = run(chat, "forget", str(LEAK), "--why", "a leaked key", "--yes")
    assert done.returncode == 1
    assert f"NOT clean: {chat}/chat/main/2026-01-01.jsonl (still holding it; forget the messages that hold it too)" \
        in done.stderr


def test_forget_asks_first_and_is_refused_while_an_owner_runs(chat):
    done = run(chat, "forget", str(LEAK), "--why", "a leaked key")
    assert done.returncode == 1
    assert done.stderr.endswith("ever: forget asks first: run it on a terminal, or add --yes\n")
    assert SECRET.encode() in (chat / "chat/main/2026-01-01.jsonl").read_bytes()
    lock = ChatLock(chat / "chat")
    lock.take(read_only=False)
    try:
        done = run(chat, "forget", str(LEAK), "--why", "a leaked key", "--yes")
    finally:
        lock.release()
    assert done.returncode == 1 and "is in use by process" in done.stderr and "Traceback" not in done.stderr
    assert SECRET.encode() in (chat / "chat/main/2026-01-01.jsonl").read_bytes()


def test_the_forgotten_lines_of_the_tree_are_built_again_by_the_compactor(chat):
    import asyncio

    from harness.memory.forget import forget
    from harness.memory.service import JobResult, Memory

    report = forget(chat, [LEAK], "a leaked key")
    assert report.clean and report.nodes_removed == 7  # (0,20), (1,10), (2,5), (3,2), (4,1), (5,0), (6,0)

    async def build(job):
        return JobResult(f"summary of {job.name}: {job.text[:40] or 'two lines'}")

    async def reopen():
        memory = Memory.open(chat, build=build)
        try:
            memory.start()
            await memory.idle()
            return [memory.store.node(l, LEAK >> l) for l in range(7)], memory.render()
        finally:
            memory.close()

    rebuilt, view = asyncio.run(reopen())
    assert rebuilt[0].startswith("user: (forgotten: removed by `ever forget` on ")  # short: its own line
    assert all(node is not None and SECRET not in node for node in rebuilt)
    assert SECRET not in view and "(forgotten: removed" in view


def restic_or_skip():
    if shutil.which("restic") is None:
        if os.environ.get("EVER_REQUIRE_RESTIC") == "1":
            pytest.fail("EVER_REQUIRE_RESTIC=1 but restic is missing: apt-get install restic")
        pytest.skip("restic is not installed (apt-get install restic)")


@pytest.mark.slow
def test_a_restic_backup_checks_restores_and_forgets(chat, tmp_path):
    restic_or_skip()
    (tmp_path / "password").write_text("a long test password\n")
    repository = tmp_path / "repo"
    dest = f"restic:{repository}"

    def restic_run(home, *args):
        env = dict(env_for(home), RESTIC_PASSWORD_FILE=str(tmp_path / "password"))
        return ever(list(args), env)

    done = restic_run(chat, "backup", dest)
    assert done.returncode == 0, done.stderr
    assert (repository / "config").exists() and holders(repository, secret_forms()) == []  # encrypted
    done = restic_run(chat, "backup", "--check", dest)
    assert done.returncode == 0 and "passed its check" in done.stdout, done.stderr
    new = tmp_path / "new"
    done = restic_run(new, "restore", dest)
    assert done.returncode == 0, done.stderr
    assert (new / "chat/main/2026-01-01.jsonl").read_bytes() == (chat / "chat/main/2026-01-01.jsonl").read_bytes()
    done = restic_run(chat, "forget", str(LEAK), "--why", "a leaked key", "--yes")
    assert done.returncode == 0 and "none holds it." in done.stdout, done.stderr + done.stdout
    newer = tmp_path / "newer"
    assert restic_run(newer, "restore", dest).returncode == 0
    assert holders(newer, secret_forms()) == []
    no_password = ever(["backup", dest], env_for(chat))
    assert no_password.returncode == 1 and "needs its password" in no_password.stderr


@pytest.mark.slow
def test_the_owner_backs_up_after_each_turn_and_status_says_its_check_passed(tmp_path, api):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    dest = tmp_path / "backup"
    (home / "config.toml").write_text(f'[backup]\ndest = "{dest}"\n')
    os.chmod(home / "config.toml", 0o600)
    env = environment(home, api)
    api.enqueue("Hello back.")
    done = ever(["send", "Hello, Ever"], env)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((dest / "manifest.json").read_text())
    assert manifest["messages"] == 2
    assert stored(dest, next(e["path"] for e in manifest["files"] if e["path"].startswith("chat/main/"))).read_bytes() \
        == next((home / "chat/main").iterdir()).read_bytes()
    status = ever(["memory", "status"], env)
    assert f"The last backup into {dest} was taken at {manifest['taken']}; its last check" in status.stdout
    assert status.stdout.rstrip().endswith("passed."), status.stdout


@pytest.mark.slow
def test_a_message_holding_a_key_is_offered_for_forgetting_and_forgotten_in_the_open_chat(tmp_path, api):
    from tests.support.terminal import spawn_chat

    api.enqueue("Noted.")
    api.enqueue("Fine.")
    child = spawn_chat(tmp_path, api)
    try:
        child.send(f"my key is {SECRET}\r")
        child.expect("Noted.")
        child.expect(r"Message 0 holds what looks like a secret \(an API key or a token\)\. To remove it from "
                     r"every place Ever keeps it: `/forget 0 --why a leaked secret` here, or `ever forget 0 "
                     r"--why \"a leaked secret\"`; then change the secret\.")
        child.send("/forget 0 --why a leaked secret\r")
        child.expect(r"To forget them: /forget 0 --yes --why a leaked secret")
        assert SECRET.encode() in (next((tmp_path / "chat/main").iterdir())).read_bytes()  # asked, not done
        child.send("/forget 0 --yes --why a leaked secret\r")
        child.expect("none holds it.")
        child.send("and now?\r")
        child.expect("Fine.")  # the owner answers on, its memory opened again
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    records = lines(tmp_path)
    assert [r["i"] for r in records] == [0, 1, 2, 3]
    assert records[0]["text"].startswith("(forgotten: removed by `ever forget`")
    assert [r["text"] for r in records[1:]] == ["Noted.", "and now?", "Fine."]
    assert holders(tmp_path, secret_forms()) == []


def opened_page(path: Path) -> bytes:
    """A page with its compressed parts opened (harness/browse/page.py's format, [B1])."""
    import gzip
    import re

    data = path.read_bytes()
    parts = re.findall(rb'<script type="application/x-ever-part" id="[^"]*">([A-Za-z0-9+/=]+)</script>', data)
    assert parts  # a page of this chat has its messages in parts
    return data + b"".join(gzip.decompress(base64.b64decode(part)) for part in parts)


def test_forget_makes_the_pages_ever_browse_wrote_anew_and_searches_them(chat, tmp_path):
    page = tmp_path / "pages" / "memory.html"
    page.parent.mkdir()
    done = run(chat, "browse", "--out", str(page))
    assert done.returncode == 0, done.stderr
    assert SECRET.encode() in opened_page(page)
    done = run(chat, "forget", str(LEAK), "--why", "a leaked key", "--yes")
    assert done.returncode == 0, done.stderr + done.stdout
    assert f"Made anew from what remains: {page} (`ever browse --out`)." in done.stdout
    assert "none holds it." in done.stdout
    assert SECRET.encode() not in opened_page(page)
    assert b"message 3 about the river and the lantern" in opened_page(page)
    assert oct(page.stat().st_mode & 0o777) == "0o600"


def test_a_page_not_made_anew_is_not_clean(chat, tmp_path):
    from harness.memory.forget import forget, report_text

    page = tmp_path / "memory.html"
    assert run(chat, "browse", "--out", str(page)).returncode == 0
    report = forget(chat, [LEAK], "a leaked key")  # no page maker: the page is searched, not made anew
    assert not report.clean and report.found == [str(page)] and report.unreadable == []
    assert f"NOT clean: {page} (still holding it;" in report_text(report)


@pytest.mark.slow
def test_forget_while_ever_serve_runs_is_done_by_the_owner_which_answers_on(chat, tmp_path, api):
    from tests.support.chat import is_compaction
    from tests.support.serving import Serving

    api.responder = lambda body: "a summary line" if is_compaction(body) else "(local API) answered"
    dest = tmp_path / "backup"
    backed_up(chat, dest)
    page = tmp_path / "memory.html"
    assert run(chat, "browse", "--out", str(page)).returncode == 0
    serving = Serving(chat, api)
    try:
        done = run(chat, "forget", str(LEAK), "--why", "a leaked key")
        assert done.returncode == 1 and done.stderr.endswith("forget asks first: run it on a terminal, or add --yes\n")
        assert f"  {LEAK} · user · " in done.stdout  # what goes, read from the owner
        done = run(chat, "forget", "999", "--why", "a leaked key", "--yes")
        assert done.returncode == 1 and "there is no message 999 to forget" in done.stderr
        done = run(chat, "forget", str(LEAK), "--why", "a leaked key", "--yes")
        assert done.returncode == 0, done.stderr + done.stdout
        assert "none holds it." in done.stdout and f"Rewritten: {dest}." in done.stdout
        assert f"Made anew from what remains: {page}" in done.stdout
        found = run(chat, "search", SECRET)
        assert found.returncode == 0 and f"\n{LEAK} (in " not in found.stdout
        sent = ever(["send", "one more"], environment(chat, api))
        assert sent.returncode == 0 and sent.stdout.strip() == "(local API) answered", sent.stderr
    finally:
        assert serving.stop() == 0
    records = {r["i"]: r for r in lines(chat)}
    assert sorted(records) == list(range(66))
    assert records[LEAK]["text"].startswith("(forgotten") and records[64]["text"] == "one more"
    assert holders(chat, secret_forms()) == [] and holders(dest, secret_forms()) == []
    assert SECRET.encode() not in opened_page(page)


def test_the_socket_s_forget_request_takes_ids_and_a_why_and_refuses_anything_else():
    from harness.owner import protocol

    line = protocol.line_of(protocol.Forget((20, 21), "a leaked key"))
    assert json.loads(line) == {"op": "forget", "ids": [20, 21], "why": "a leaked key"}
    assert protocol.request_of(line) == protocol.Forget((20, 21), "a leaked key")
    for wrong in ({"op": "forget", "ids": [], "why": "x"}, {"op": "forget", "ids": [-1], "why": "x"},
                  {"op": "forget", "ids": [1], "why": " "}, {"op": "forget", "ids": [True], "why": "x"},
                  {"op": "forget", "ids": "1", "why": "x"}):
        refused = protocol.request_from(wrong)
        assert refused == protocol.Refused("forget takes ids (a list of message ids) and why (text); nothing was "
                                           "forgotten")
