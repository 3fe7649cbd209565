"""Strategy: a message line may carry a key [S8]; the store writes it last, reads the
line back on its fast path and through the index, and `keys()` finds exactly the keys written,
whatever a text holds (a text that quotes a key's JSON is not a key)."""

import json
from datetime import UTC, datetime

import pytest

from harness.memory.store import Store

NOW = datetime(2026, 10, 8, 9, 30, tzinfo=UTC)


def test_a_key_is_written_last_and_read_back(tmp_path):
    with Store.open(tmp_path) as store:
        store.append_message("note", "plain", NOW)
        record = store.append_message("note", 'quotes a key: ","size":1,"date":"x","key":"fake"}', NOW, key="imp:abc.1")
        assert list(record) == ["i", "kind", "text", "size", "date", "key"]
        assert store.keys() == {"imp:abc.1"}
    line = (tmp_path / "chat/main/2026-10-08.jsonl").read_text().splitlines()[1]
    assert line.endswith(',"date":"2026-10-08T09:30:00+00:00","key":"imp:abc.1"}')
    assert json.loads(line)["key"] == "imp:abc.1"
    (tmp_path / "chat/index/meta.json").unlink()  # the index rebuilt from the lines themselves
    with Store.open(tmp_path) as store:
        assert store.count == 2 and store.message(1)["key"] == "imp:abc.1"
        assert store.keys() == {"imp:abc.1"}
        assert any("rebuilt" in warning for warning in store.warnings)


def test_keys_are_found_across_files_and_long_lines(tmp_path):
    with Store.open(tmp_path) as store:
        for day in (1, 2):
            store.append_message("note", "x" * 5_000_000, NOW.replace(day=day), key=f"k{day}")
        assert store.keys() == {"k1", "k2"}


@pytest.mark.parametrize("key", ["", "has space", 'quo"te', "x" * 129, 7])
def test_a_bad_key_is_refused_and_nothing_is_logged(tmp_path, key):
    with Store.open(tmp_path) as store:
        with pytest.raises(ValueError, match="a key is 1 to 128"):
            store.append_message("note", "t", NOW, key=key)
        assert store.count == 0


def test_a_from_field_goes_before_the_key_and_both_are_read_back_whatever_it_holds(tmp_path):
    origin = '/home/a "b"\\c/s1.jsonl line 3 · session s1 · id u1 ","size":1,"date":"x","key":"fake"}'
    with Store.open(tmp_path) as store:
        record = store.append_message("note", "imported", NOW, key="import:abc.1", origin=origin)
        assert list(record) == ["i", "kind", "text", "size", "date", "from", "key"]
        store.append_message("note", "no key", NOW, origin="only a from")
        assert store.keys() == {"import:abc.1"}
    lines = (tmp_path / "chat/main/2026-10-08.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["from"] == origin and lines[0].endswith(',"key":"import:abc.1"}')
    (tmp_path / "chat/index/meta.json").unlink()  # the index rebuilt from the lines themselves
    with Store.open(tmp_path) as store:
        assert store.count == 2 and store.message(0)["from"] == origin and store.message(1)["from"] == "only a from"
        assert store.keys() == {"import:abc.1"}
        assert not [warning for warning in store.warnings if "torn" in warning or "skipped" in warning]
