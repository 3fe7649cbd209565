"""Strategy: the store at its edges [S13], each written out by hand and read back with plain file
reads: an id lost when a day file was cut, then the index lost too (only the damage record still
says the id was given), and a torn tail of every length from 1 byte on a file that held nothing
else. What the files must hold afterwards comes from the format (one JSON line per message, a torn
tail ended by a newline and left where it is), never from the store's encoder.
"""

import json
import os
import shutil

from harness.memory.logfile import LogFile
from harness.memory.store import Store
from tests.memory.test_store import append_bytes, clock, fill, main_file, message_line
from tests.memory.test_store import home as home  # noqa: F401 (the fixture)


def test_an_id_lost_when_a_day_file_was_cut_is_not_given_again_when_the_index_is_lost_too(home):
    fill(home, 4)
    path = main_file(home, "2026-10-08")
    data = path.read_bytes()
    os.truncate(path, data.rstrip(b"\n").rfind(b"\n") + 1)  # message 3 gone whole
    with Store.open(home) as store:
        assert store.count == 4 and len(store.damage) == 1  # the saved index says 4 were given
    assert json.loads((home / "chat" / "damage" / "record.jsonl").read_text())["lost"] == [3, 3]
    shutil.rmtree(home / "chat" / "index")  # now only the damage record knows id 3 was given
    with Store.open(home) as store:
        assert store.count == 4
        assert store.append_message("user", "m4", now=clock(8, 11))["i"] == 4
    assert path.read_bytes().endswith(message_line(4, "user", "m4", 2, "2026-10-08T11:00:00+02:00"))


def test_two_losses_recorded_then_the_index_lost_give_the_next_id_past_both(home):
    fill(home, 6)
    path = main_file(home, "2026-10-08")
    for kept in (5, 3):  # cut message 5, open; cut message 3 and 4, open
        lines = path.read_bytes().split(b"\n")
        os.truncate(path, sum(len(line) + 1 for line in lines[:kept]))
        with Store.open(home):
            pass
    ranges = [json.loads(line)["lost"] for line in (home / "chat" / "damage" / "record.jsonl").read_text().splitlines()]
    assert ranges[0] == [5, 5]  # the second loss may name 5 again: the ids it covers are what counts
    assert {i for low, high in ranges for i in range(low, high + 1)} == {3, 4, 5}
    shutil.rmtree(home / "chat" / "index")
    with Store.open(home) as store:
        assert store.append_message("user", "m6", now=clock(8, 11))["i"] == 6


LINE = b'{"i":0,"kind":"user","text":"first words","size":11,"date":"2026-10-08T10:00:00+02:00"}\n'


def test_a_torn_tail_of_every_length_on_an_empty_file_is_ended_and_the_next_line_stands_alone(tmp_path):
    nxt = b'{"i":1}\n'
    for size in range(1, len(LINE)):
        path = tmp_path / f"torn-{size}.jsonl"
        path.write_bytes(LINE[:size])  # a first write cut after `size` bytes, before its newline
        log = LogFile(path)
        try:
            assert log.torn, size
            log.append(nxt)
        finally:
            log.close()
        assert path.read_bytes() == LINE[:size] + b"\n" + nxt, size


def test_a_day_file_holding_only_a_torn_first_line_of_any_length_keeps_the_next_message(home):
    path = main_file(home, "2026-10-08")
    for size in range(1, len(LINE)):
        shutil.rmtree(home, ignore_errors=True)
        append_bytes(path, LINE[:size])
        with Store.open(home) as store:
            given = store.append_message("user", "next", now=clock(8, 11))["i"]
        with Store.open(home) as store:
            assert store.message(given)["text"] == "next", size
        # the torn bytes stay where they were, ended by a newline; the message is a line of its own
        assert path.read_bytes() == LINE[:size] + b"\n" + message_line(
            given, "user", "next", 4, "2026-10-08T11:00:00+02:00"), size
