"""Strategy: a chat written with texts this file chooses (planted words at known ids), then
searched; every expected id and line comes from where the word was planted and from the view's
tiling worked by hand, never from the index's own answers. The index is a cache of the logs
[R1]: lost, damaged, or behind, it is made again and says the same."""

import os
import sqlite3
import stat
from datetime import UTC, datetime

import pytest

from harness.memory.search import (
    SEARCH_FILE,
    SearchError,
    SearchIndex,
    covering_line,
    found_text,
    run_search,
    snippet,
    words,
)
from harness.memory.store import Store

NOW = datetime(2026, 10, 8, 9, 30, tzinfo=UTC)


def chat(home, texts):
    with Store.open(home) as store:
        for text in texts:
            store.append_message("user", text, NOW)


def filler(i):
    return f"message {i} about the garden and the kettle"


def ids(found):
    return [hit.id for hit in found.hits]


def test_a_planted_word_is_found_at_its_id_with_punctuation_kept(tmp_path):
    texts = [filler(i) for i in range(50)]
    texts[17] = "the code is PANGOLIN-73, keep it"
    texts[31] = "path /srv/app/config.toml changed"
    chat(tmp_path, texts)
    with Store.open(tmp_path, read_only=True) as store:
        assert ids(run_search(store, [], "PANGOLIN-73")) == [17]
        assert ids(run_search(store, [], "pangolin-73")) == [17]  # case folded
        assert ids(run_search(store, [], "/srv/app/config.toml")) == [31]
        assert run_search(store, [], "PANGOLIN-74").total == 0


def test_every_word_must_match_first_then_any_word(tmp_path):
    texts = [filler(i) for i in range(20)]
    texts[3] = "violin lesson on tuesday"
    texts[9] = "violin and harbor"
    chat(tmp_path, texts)
    with Store.open(tmp_path, read_only=True) as store:
        both = run_search(store, [], "violin harbor")
        assert ids(both) == [9] and not both.any_word
        either = run_search(store, [], "violin copper")  # no message holds both: any of them
        assert sorted(ids(either)) == [3, 9] and either.any_word
        assert ids(run_search(store, [], '"harbor violin"')) == []  # a quoted phrase keeps its order
        assert ids(run_search(store, [], '"violin and harbor"')) == [9]


def test_hits_come_in_pages_of_ten_and_a_page_past_the_end_is_empty(tmp_path):
    chat(tmp_path, [f"lantern number {i}" for i in range(25)])
    with Store.open(tmp_path, read_only=True) as store:
        pages = [run_search(store, [], "lantern", page) for page in (1, 2, 3, 4)]
        assert [len(page.hits) for page in pages] == [10, 10, 5, 0]
        assert {page.total for page in pages} == {25} and pages[0].pages == 3
        # the 25 equal hits (one word each, same length) rank newest first
        assert ids(pages[0]) == list(range(24, 14, -1))
        assert sorted(sum((ids(page) for page in pages), [])) == list(range(25))


def test_a_word_held_by_more_messages_than_are_ranked_ranks_the_newest_and_says_there_are_more(
        tmp_path, monkeypatch):
    """[R4] with the limit at 12: 40 messages hold "lantern"; the one that holds it twice
    (message 5) is the best hit of all but is older than the newest 12, so it is not ranked."""
    import harness.memory.search as search

    monkeypatch.setattr(search, "RANKED_MATCHES_MAX", 12)
    texts = [f"lantern number {i}" for i in range(40)]
    texts[5] = "lantern lantern 5"
    texts[33] = "lantern lantern 33"
    chat(tmp_path, texts)
    with Store.open(tmp_path, read_only=True) as store:
        first, second = run_search(store, [], "lantern", 1), run_search(store, [], "lantern", 2)
        assert first.more and first.total == 12 and first.pages == 2
        assert ids(first)[0] == 33  # twice in a short text: the best of the newest 12
        assert sorted(ids(first) + ids(second)) == list(range(28, 40))
        assert found_text(first).splitlines()[0] == (
            "more than 12 messages match; the newest 12 are ranked; page 1 of 2")
        fewer = run_search(store, [], "number 7")  # held by one: counted whole
        assert not fewer.more and fewer.total == 1


def test_the_covering_line_is_the_view_line_whose_range_holds_the_message():
    # A view tiling messages 0..10 by hand: 0+8 (level 3), 8+2 (level 1), 10+1 (level 0).
    lines = [(3, 0), (1, 4), (0, 10)]
    assert [covering_line(lines, m) for m in (0, 7, 8, 9, 10)] == ["0+8", "0+8", "8+2", "8+2", "10+1"]
    assert covering_line(lines, 11) == "11+1"  # logged after the view was rendered: its own line
    assert covering_line([], 4) == "4+1"


def test_a_hit_names_its_line_date_kind_and_a_snippet_around_the_word(tmp_path):
    texts = [filler(i) for i in range(12)]
    texts[5] = "x" * 400 + " the meeting moved to THURSDAY at noon " + "y" * 400
    chat(tmp_path, texts)
    with Store.open(tmp_path, read_only=True) as store:
        found = run_search(store, [(3, 0), (2, 2), (0, 12)], "thursday")
    hit, = found.hits
    assert (hit.id, hit.line, hit.kind, hit.date) == (5, "0+8", "user", "2026-10-08T09:30:00+00:00")
    assert "THURSDAY at noon" in hit.snippet and hit.snippet.startswith("…") and hit.snippet.endswith("…")
    assert len(hit.snippet) <= 162
    assert found_text(found).splitlines()[1].startswith("5 (in 0+8) 2026-10-08T09:30:00+00:00 user: …")


def test_the_index_follows_new_messages_and_is_made_again_when_lost_or_damaged(tmp_path):
    chat(tmp_path, [filler(i) for i in range(10)])
    index_file = tmp_path / "chat" / SEARCH_FILE
    with Store.open(tmp_path) as store:
        assert run_search(store, [], "copper").total == 0
        store.append_message("user", "a copper kettle", NOW)
        assert ids(run_search(store, [], "copper")) == [10]
    assert stat.S_IMODE(index_file.stat().st_mode) == 0o600
    for damage in (b"", b"not a database at all" * 100):
        index_file.write_bytes(damage)
        with Store.open(tmp_path) as store:
            assert ids(run_search(store, [], "copper")) == [10]
            assert ids(run_search(store, [], "garden")) == list(range(9, -1, -1))
    index_file.unlink()
    with Store.open(tmp_path) as store:
        assert ids(run_search(store, [], "copper")) == [10]


def test_an_index_that_disagrees_with_the_log_is_rebuilt(tmp_path):
    chat(tmp_path, [filler(i) for i in range(10)] + ["the word zebra"])
    with Store.open(tmp_path) as store:
        assert ids(run_search(store, [], "zebra")) == [10]
    # Another chat's log under the same index (the home restored from a backup, say): the index
    # says 11 messages with a last one the log does not have.
    other = tmp_path / "other"
    chat(other, ["zebra first"] + [filler(i) for i in range(12)])
    (tmp_path / "chat" / "main").rename(tmp_path / "old-main")
    (other / "chat" / "main").rename(tmp_path / "chat" / "main")
    (tmp_path / "chat" / "index").rename(tmp_path / "old-index")
    with Store.open(tmp_path) as store:
        assert ids(run_search(store, [], "zebra")) == [0]


def test_two_indexes_syncing_the_same_chat_add_each_message_once(tmp_path):
    chat(tmp_path, [filler(i) for i in range(30)])
    with Store.open(tmp_path, read_only=True) as store:
        one, two = SearchIndex.open(store), SearchIndex.open(store)
        try:
            assert one.sync() == 0 and two.sync() == 0
            assert one.connection.execute("select count(*) from messages").fetchone() == (30,)
            assert len(one.search("garden", []).hits) == 10 and one.search("garden", []).total == 30
            assert two.search("kettle", []).total == 30
        finally:
            one.close()
            two.close()


def test_a_read_only_chat_directory_searches_in_memory(tmp_path, monkeypatch):
    chat(tmp_path, ["the word orchid"])
    # The index asks `os.access` whether it may write beside the log. A mode bit would not stop
    # root (the tests' user in CI), so the answer a read-only directory gives is given here.
    writable = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: False if str(path) == str(tmp_path / "chat")
                        else writable(path, mode))
    with Store.open(tmp_path, read_only=True) as store:
        assert ids(run_search(store, [], "orchid")) == [0]
    assert not (tmp_path / "chat" / SEARCH_FILE).exists()


def test_a_link_in_the_index_place_is_not_followed(tmp_path):
    chat(tmp_path, ["the word orchid"])
    target = tmp_path / "elsewhere.sqlite"
    (tmp_path / "chat" / SEARCH_FILE).symlink_to(target)
    with Store.open(tmp_path, read_only=True) as store:
        assert ids(run_search(store, [], "orchid")) == [0]
    assert not target.exists()


def test_a_query_with_no_words_or_too_long_or_a_bad_page_is_one_sentence(tmp_path):
    chat(tmp_path, ["x"])
    with Store.open(tmp_path, read_only=True) as store:
        for query, page in (("", 1), ("   ", 1), ("a" * 1001, 1), ("x", 0)):
            with pytest.raises(SearchError) as caught:
                run_search(store, [], query, page)
            assert "\n" not in str(caught.value)


def test_words_keep_quoted_phrases_and_fts_syntax_is_plain_text():
    assert words('a "b c" d') == ["a", "b c", "d"]
    assert words('NEAR(a b) OR -x*') == ["NEAR(a", "b)", "OR", "-x*"]
    assert snippet("short", ["zzz"]) == "short"


def test_fts_operators_in_a_query_are_searched_as_words(tmp_path):
    chat(tmp_path, ["apples OR pears", "only apples", "NEAR(x y) literally"])
    with Store.open(tmp_path, read_only=True) as store:
        assert ids(run_search(store, [], "apples OR pears")) == [0]
        assert ids(run_search(store, [], "NEAR(x")) == [2]


def test_the_index_file_is_a_real_fts5_table(tmp_path):
    chat(tmp_path, ["alpha"])
    with Store.open(tmp_path) as store:
        run_search(store, [], "alpha")
    connection = sqlite3.connect(tmp_path / "chat" / SEARCH_FILE)
    sql, = connection.execute("select sql from sqlite_master where name = 'messages'").fetchone()
    assert "fts5" in sql.lower()


@pytest.mark.parametrize("batch", [2, 5000])  # 2: the call ends one batch, its result opens the next
def test_a_search_call_and_its_result_are_not_found_by_the_next_search(tmp_path, monkeypatch, batch):
    monkeypatch.setattr("harness.memory.search.SYNC_BATCH", batch)
    with Store.open(tmp_path) as store:
        store.append_message("user", "the code is PANGOLIN-73", NOW)
        store.append_message("tool", 'search {"query": "PANGOLIN-73"}', NOW)
        store.append_message("echo", "1 message match; page 1 of 1\n0 (in 0+1) … user: the code is PANGOLIN-73", NOW)
        store.append_message("tool", 'shell {"command": "echo PANGOLIN-73"}', NOW)
        store.append_message("echo", "PANGOLIN-73", NOW)
        assert sorted(ids(run_search(store, [], "PANGOLIN-73"))) == [0, 3, 4]
