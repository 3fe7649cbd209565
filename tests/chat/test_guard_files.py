"""Strategy: files Ever reads must be what they say [S13]. The damage record is edited by hand as an
attacker (or a bad disk) would: a range of six billion lost ids, an Ever-written line whose fields
no longer match its checksum. Through the installed `ever` (memory status, log, doctor, doctor
--repair) on a chat of six messages written by the store itself; the expected ids are counted by
hand from the six messages.
"""

import json
import os

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
