"""Strategy: an import's likely cost is weighed by the compaction model's own token count [I6].
Against the local Messages API, whose rule is written in its module (a block's tokens are
ceil(UTF-8 bytes of its canonical JSON / 4)): each figure below is that rule worked by hand on
the texts the test wrote, never read back from Ever. The count is asked once per model and sample,
then read from the home's tokens.json; a provider that cannot count leaves the bound alone.
"""

import json
import os
import re
import stat
import subprocess

import pytest

from harness.chat.config import load_settings
from harness.imports.tokens import SAMPLE_BYTES, measured, sample_of
from tests.support.chat import EVER, environment

pytestmark = pytest.mark.local_api

SYSTEM = [{"type": "text", "text": "abcd"}]  # {"text":"abcd","type":"text"}: 29 bytes, 8 tokens
TOOLS = [{"name": "t", "description": "d", "input_schema": {"type": "object"}}]
TOOL_JSON = '{"description":"d","input_schema":{"type":"object"},"name":"t"}'  # canonical, by hand


def count_requests(api) -> int:
    return sum(1 for r in api.requests if r.answer == "count_tokens")


def test_the_notes_are_weighed_by_the_apis_count_of_a_sample_and_the_count_is_kept(tmp_path, api, monkeypatch):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    settings = load_settings({"EVER_HOME": str(home), "ANTHROPIC_BASE_URL": api.base_url})
    texts = ["x" * 975] * 4  # the sample: the four, joined by three line breaks
    api.reset()
    weight = measured(settings, "claude-haiku-4-5", texts, SYSTEM, TOOLS)
    assert count_requests(api) == 3
    sample = 4 * 975 + 3  # 3,903 bytes; in a block of 3,903 + 25 bytes of JSON: a line break is 2 there
    # the sample's block: {"text":"<3,900 x and 3 \n written as \\n>","type":"text"} = 3,900 + 6 + 25 bytes
    sample_tokens = -(-(3_900 + 6 + 25) // 4)  # 983
    bare_tokens = -(-(1 + 25) // 4)  # ".": 7
    assert weight.bytes_per_token == pytest.approx(sample / (sample_tokens - bare_tokens))
    assert weight.prefix_tokens == 8 + -(-len(TOOL_JSON) // 4)  # the system's block and the tool
    again = measured(settings, "claude-haiku-4-5", texts, SYSTEM, TOOLS)
    assert again == weight and count_requests(api) == 3  # kept: asked once
    kept = home / "tokens.json"
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o600
    assert json.loads(kept.read_text())[0]["model"] == "claude-haiku-4-5"
    other = measured(settings, "claude-haiku-4-5", ["y" * 975] * 4, SYSTEM, TOOLS)
    assert other is not None and count_requests(api) == 6  # another sample is counted anew


def test_a_model_whose_api_cannot_count_or_a_missing_key_leaves_the_bound(tmp_path, api, monkeypatch):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    settings = load_settings({"EVER_HOME": str(home), "ANTHROPIC_BASE_URL": api.base_url})
    api.reset()
    assert measured(settings, "claude-haiku-4-5", ["some notes"], SYSTEM, TOOLS) is None  # no key
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    assert measured(settings, "openai/gpt-5.1-mini", ["some notes"], SYSTEM, TOOLS) is None  # OpenAI counts none
    assert count_requests(api) == 0


def test_the_sample_spreads_over_the_notes_and_stays_within_its_bytes():
    texts = [f"note {k:05d} " + "z" * 290 for k in range(10_000)]  # 301 bytes each
    sample = sample_of(texts)
    taken = sample.split("\n")
    assert len(sample.encode()) <= SAMPLE_BYTES
    assert taken[0].startswith("note 00000") and int(taken[-1][5:10]) > 9_000  # from the first to near the last
    assert len(taken) > 100
    assert sample_of(["q" * (SAMPLE_BYTES * 2)]) == "q" * SAMPLE_BYTES  # one note longer than all: cut


def test_ever_import_says_the_likely_cost_first_and_the_bound_beside_it(tmp_path, api):
    lines = [json.dumps({"type": "user", "uuid": f"u{k}", "parentUuid": None, "sessionId": "s1",
                         "timestamp": f"2026-11-01T00:{k // 60:02d}:{k % 60:02d}Z",
                         "message": {"role": "user", "content": f"message {k} " + "y" * 600}})
             for k in range(60)]
    source = tmp_path / "s1.jsonl"
    source.write_text("\n".join(lines) + "\n")
    api.reset()
    done = subprocess.run([EVER, "import", str(source), "--yes"], env=environment(tmp_path / "home", api),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    likely = re.search(r"That is about ([\d,]+) input tokens \(([\d,]+) read from the cache, ([\d,]+) written to it\) "
                       r"and ([\d,]+) output tokens by claude-haiku-5-5's count of a sample of the notes: about "
                       r"\$([\d.]+) at its list prices; about \d+ (seconds|minutes) with 8 calls at once", done.stdout)
    bound = re.search(r"At most ([\d,]+) input tokens and ([\d,]+) output tokens, \$([\d.]+), were every byte a token "
                      r"and every line 512 bytes\.", done.stdout)
    assert likely and bound, done.stdout
    assert done.stdout.index(likely.group(0)) < done.stdout.index(bound.group(0))
    figures = [int(g.replace(",", "")) for g in likely.groups()[:4]]
    assert figures[0] == figures[1] + figures[2]
    # the local API counts about 4 bytes a token (its rule above), the bound 1: about 4x apart
    input_at_most, output_at_most = (int(g.replace(",", "")) for g in bound.groups()[:2])
    assert 3 < input_at_most / figures[0] < 5 and 3 < output_at_most / figures[3] < 5, (figures, bound.groups())
    assert 3 < float(bound.group(3)) / float(likely.group(5)) < 5
    assert count_requests(api) == 3
