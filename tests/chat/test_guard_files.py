"""Strategy: files Ever reads must be what they say [S13]. The damage record is edited by hand as an
attacker (or a bad disk) would: a range of six billion lost ids, an Ever-written line whose fields
no longer match its checksum. Through the installed `ever` (memory status, log, doctor, doctor
--repair) on a chat of six messages written by the store itself; the expected ids are counted by
hand from the six messages.
"""

import json
import os
import subprocess

import pytest

from harness.memory.planner import Config
from harness.memory.service import Memory
from tests.support.chat import environment, ever


def six_messages(home):
    memory = Memory.open(home, Config(), build=None)
    try:
        for k in range(6):
            memory.append("user", f"message {k}")
    finally:
        memory.close()
    record = home / "chat" / "damage" / "record.jsonl"
    record.parent.mkdir(mode=0o700, exist_ok=True)
    return record


def test_a_lost_range_of_six_billion_ids_is_not_believed_said_by_doctor_and_set_aside(tmp_path, api):
    home = tmp_path / "home"
    record = six_messages(home)
    with open(os.open(record, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "ab") as file:
        file.write(b'{"lost": [6, 6000000000]}\n')  # 25 bytes and its newline
    env = environment(home, api)
    status = ever(["memory", "status"], env)
    log = ever(["log"], env)
    doctor = ever(["doctor"], env)
    assert status.returncode == 0 and "MemoryError" not in status.stderr, status.stderr
    assert log.returncode == 0 and "message 5" in log.stdout, log.stderr
    assert "the next message is 6." in doctor.stdout, doctor.stdout
    assert ("Damaged: damage/record.jsonl line 1 (byte 0, 25 bytes): a line of the damage record: it says "
            "5,999,999,995 ids were lost at once") in doctor.stdout, doctor.stdout
    repaired = ever(["doctor", "--repair", "--yes"], env)
    assert repaired.returncode == 0, repaired.stderr
    again = ever(["doctor"], env)
    assert "Nothing is damaged that is not set aside." in again.stdout, again.stdout
    assert "the next message is 6." in again.stdout


def test_an_ever_written_record_line_whose_fields_changed_fails_its_checksum(tmp_path, api):
    home = tmp_path / "home"
    record = six_messages(home)
    from harness.memory.damage import append_record

    append_record(home / "chat", [{"lost": [6, 6], "why": "a test's own"}])
    line = json.loads(record.read_text())
    assert set(line) == {"lost", "why", "sum"}
    line["lost"] = [6, 900]  # a flipped byte, or a hand that did not know of the sum
    record.write_text(json.dumps(line) + "\n")
    doctor = ever(["doctor"], environment(home, api))
    assert "a line of the damage record: its checksum does not match its fields" in doctor.stdout, doctor.stdout
    assert "the next message is 6." in doctor.stdout, doctor.stdout


@pytest.mark.slow  # whole `ever` processes on a terminal, seconds each: make test-slow
def test_an_import_refuses_a_link_out_of_its_folder_and_says_how_to_include_it(tmp_path, api):
    home, folder = tmp_path / "home", tmp_path / "unpacked"
    folder.mkdir()
    secret = tmp_path / "id_ed25519"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY----- PLANTED-SECRET-93\n")
    (folder / "notes.txt").symlink_to(secret)
    (folder / "real.txt").write_text("a real note, PLANTED-NOTE-17\n")
    (folder / "inner.txt").symlink_to(folder / "real.txt")  # a link within the folder is the folder's
    env = environment(home, api)
    imported = ever(["import", str(folder)], env)
    assert imported.returncode == 0, imported.stderr
    assert (f"{folder / 'notes.txt'}: not imported: it is a link to {secret}, outside {folder}; to import "
            f"that file on purpose, name it: ever import {secret}") in imported.stdout, imported.stdout
    log = ever(["log"], env).stdout
    assert "PLANTED-NOTE-17" in log
    assert "PLANTED-SECRET-93" not in log


@pytest.mark.slow  # whole `ever` processes on a terminal, seconds each: make test-slow
def test_a_password_in_the_base_url_and_an_mcp_session_id_reach_no_log_line(tmp_path, api):
    import asyncio
    import re
    import signal
    import subprocess

    from mcp import ClientSession, StdioServerParameters, stdio_client
    from mcp.client.streamable_http import streamable_http_client

    from harness.localapi.server import Reply
    from tests.support.agents import compactions, is_master
    from tests.support.chat import EVER

    api.responder = lambda body: Reply("Done.") if is_master(body) else compactions(body)
    home = tmp_path / "home"
    env = environment(home, api)
    env["ANTHROPIC_BASE_URL"] = api.base_url.replace("://", "://ever:PASSWORD-SECRET-41@")
    errors = tmp_path / "mcp-stderr.txt"

    async def over_stdio():
        parameters = StdioServerParameters(command=EVER, args=["mcp", "--allow-send"], env=env)
        with open(errors, "w") as errlog:
            async with stdio_client(parameters, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await session.call_tool("send", {"message": "hello"})

    sent = asyncio.run(asyncio.wait_for(over_stdio(), 120))  # a hang guard only
    assert "Done." in str(sent), sent
    assert api.requests, "the send reached the API, through the URL with the password"
    assert "PASSWORD-SECRET-41" not in errors.read_text(), errors.read_text()

    process = subprocess.Popen([EVER, "mcp", "--http"], env=env, text=True, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True)
    try:
        url = re.search(r"http://127\.0\.0\.1:\d+/\S+/mcp", process.stdout.readline()).group(0)

        async def over_http():
            async with streamable_http_client(url) as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    return await session.call_tool("view", {})

        asyncio.run(asyncio.wait_for(over_http(), 120))
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
    assert "session" not in stderr.lower(), stderr
    assert url.rsplit("/", 2)[1] not in stderr  # the URL's secret


def test_hostile_files_for_simulate_and_bench_recall_are_refused_in_one_sentence(tmp_path, api):
    env = environment(tmp_path / "home", api)
    nested = tmp_path / "nested.json"
    nested.write_text("[" * 100_000 + "]" * 100_000)
    recall = ever(["bench", "recall", "--file", str(nested)], env)
    assert recall.returncode == 1, recall
    assert "nested deeper than Python's parser goes" in recall.stderr and "a bug in Ever" not in recall.stderr

    shaped = tmp_path / "shaped.json"
    shaped.write_text(json.dumps([{"haystack_sessions": 5}]))
    wrong = ever(["bench", "recall", "--file", str(shaped)], env)
    assert wrong.returncode == 1 and "so it is not LongMemEval's format" in wrong.stderr, wrong.stderr
    assert "a bug in Ever" not in wrong.stderr

    log = tmp_path / "main" / "2026-10-08.jsonl"
    log.parent.mkdir()
    rows = [{"i": 0, "kind": "user", "text": "hello", "date": "2026-10-08T09:00:00+00:00"},
            {"i": 1, "kind": "ever", "text": "hi", "date": "2026-10-08T09:00:05"},  # naive: no offset
            {"i": 2, "kind": "user", "text": "again", "date": "2026-10-08T09:01:00+00:00"}]
    log.write_text("\n".join([json.dumps(row) for row in rows] + ["[" * 100_000 + "]" * 100_000]) + "\n")
    simulated = ever(["simulate", "--from-log", str(tmp_path), "--modes", "ever", "--json", "--no-pictures",
                      "--out", str(tmp_path / "simulation")], env)
    assert simulated.returncode == 0, simulated.stderr
    assert "a bug in Ever" not in simulated.stderr and "Traceback" not in simulated.stderr


def test_the_search_index_forgets_a_message_set_aside_and_a_fifo_in_its_place_hangs_nothing(tmp_path, api):
    home = tmp_path / "home"
    memory = Memory.open(home, Config(), build=None)
    try:
        for k in range(6):
            memory.append("user", f"message {k}" + (" PLANTED-ASIDE-52" if k == 2 else ""))
    finally:
        memory.close()
    env = environment(home, api)
    assert "PLANTED-ASIDE-52" in ever(["search", "PLANTED-ASIDE-52"], env).stdout  # the index is made
    day = next((home / "chat" / "main").glob("*.jsonl"))
    data = day.read_bytes()
    assert data.count(b'{"i":2,') == 1
    day.write_bytes(data.replace(b'{"i":2,', b'{"i":2,,'))  # message 2's line damaged
    assert ever(["doctor", "--repair", "--yes"], env).returncode == 0
    after = ever(["search", "PLANTED-ASIDE-52"], env)
    assert after.returncode == 0 and after.stdout.startswith("search: no message holds"), after.stdout

    index = home / "chat" / "search.sqlite"
    index.unlink()
    os.mkfifo(index, 0o600)
    try:
        found = ever(["search", "message"], env, timeout_seconds=120)  # the timeout only stops a hang
    except subprocess.TimeoutExpired:
        raise AssertionError("search hung on the FIFO in the index's place") from None
    assert found.returncode == 0 and "message 5" in found.stdout, (found.stdout, found.stderr)


def test_a_forged_search_index_is_made_again_and_search_finds_what_the_log_holds(tmp_path, api):
    """[H17] An index holding a message past the chat's end, one before its start, or a table
    that is not the index's: each is made again from the logs, and search answers from them."""
    import sqlite3

    home = tmp_path / "home"
    memory = Memory.open(home, Config(), build=None)
    try:
        for k in range(6):
            memory.append("user", f"message {k} about herons")
    finally:
        memory.close()
    env = environment(home, api)
    assert ever(["search", "herons"], env).stdout.startswith("6 messages match")
    index = home / "chat" / "search.sqlite"
    forgeries = {
        "past the end": ["insert into messages(rowid, text) values (999999, 'herons forged')"],
        "before the start": ["insert into messages(rowid, text) values (-5, 'herons forged')"],
        "not the index's table": ["drop table messages", "create table messages(text)"],
    }
    for name, statements in forgeries.items():
        connection = sqlite3.connect(index, isolation_level=None)
        for statement in statements:
            connection.execute(statement)
        connection.close()
        found = ever(["search", "herons"], env)
        assert found.returncode == 0, (name, found.stdout, found.stderr)
        assert found.stdout.startswith("6 messages match"), (name, found.stdout)
        shown = [row.split(" ", 1)[0] for row in found.stdout.splitlines()[1:]]
        assert shown == ["5", "4", "3", "2", "1", "0"], (name, found.stdout)
        assert "bug in Ever" not in found.stderr, (name, found.stderr)
