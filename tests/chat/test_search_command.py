"""Strategy: `ever search` through a real process, on a chat written with planted words at known
ids, with no chat running (the chat opened here) and with one running (asked over its socket is
covered by the owner's `answer_memory`, the same function). Expected ids come from the plant."""

import json
import os
from datetime import UTC, datetime

from harness.memory.store import Store
from tests.support.chat import ever

NOW = datetime(2026, 10, 8, 9, 30, tzinfo=UTC)


def environment(home):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVER_"))}
    env.update(EVER_HOME=str(home))
    return env


def test_ever_search_prints_each_hit_with_its_id_line_and_snippet_and_pages(tmp_path):
    with Store.open(tmp_path) as store:
        for i in range(30):
            store.append_message("user", f"lantern {i}" if i % 3 == 0 else f"plain message {i}", NOW)
        store.append_message("ever", "the answer is \x1b]52;c;aGk=\x07 orchid", NOW)
    env = environment(tmp_path)
    found = ever(["search", "orchid"], env)
    assert found.returncode == 0, found.stderr
    head, hit = found.stdout.splitlines()
    assert head == "1 message match; page 1 of 1"
    assert hit.startswith("30 (in 30+1) 2026-10-08T09:30:00+00:00 ever: the answer is")
    lanterns = ever(["search", "--json", "lantern"], env)
    result = json.loads(lanterns.stdout)
    assert result["total"] == 10 and result["pages"] == 1
    assert sorted(hit["id"] for hit in result["hits"]) == list(range(0, 30, 3))
    missing = ever(["search", "zeppelin"], env)
    assert missing.returncode == 0 and missing.stdout.startswith("search: no message holds 'zeppelin'")
    past = ever(["search", "--page", "2", "lantern"], env)
    assert past.returncode == 1 and past.stderr.strip() == "ever: the hits fill 1 page; there is no page 2"
    empty = ever(["search", '""'], env)
    assert empty.returncode == 1 and empty.stderr.strip() == "ever: search for at least one word"
