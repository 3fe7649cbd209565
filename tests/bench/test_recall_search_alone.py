"""Strategy: the recall bench's two model-free parts, quick enough for `make test`. The search-alone
arm on hand-made chats whose answer a person can see (a planted sentence found first by its
words; a question none of whose words is in the chat found nowhere), then on the default
synthetic chat (seed 0, 10,000 messages, 30 facts), whose figure docs/recall.md states: the test
fails when the doc and the run disagree. The baseline's rolling summary: for windows from a local
model's 32K to 1M, every call the default chat's baseline makes, its summary carried at its
largest, is within the summarizer's window as the chat's own check counts it
(harness/calls/models.py's `window_problem`, a token for every byte) on each wire's body, and no byte of the chat is
lost or doubled across the calls.
"""

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from harness.bench import recall
from harness.bench.planted import Chat, Fact, generate
from harness.calls import models
from harness.calls.anthropic import body
from harness.calls.openai import COUNTED_FIELDS, chat_body, responses_body

DOCS = Path(__file__).resolve().parents[2] / "docs" / "recall.md"


@pytest.fixture(scope="module")
def default_chat() -> Chat:
    return generate(0, 10_000, 5)  # `ever bench recall`'s defaults: seed 0, 10,000 messages, 5 a kind


def hand_chat() -> Chat:
    start = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
    fillers = [f"We talked about lunch plans and the weather, item {k}." for k in range(40)]
    texts = fillers[:20] + ["The staging server listens on port 8443 since the migration."] + fillers[20:]
    messages = [("user" if k % 2 == 0 else "ever", text, start + timedelta(minutes=k)) for k, text in enumerate(texts)]
    facts = [Fact("number", 20, "Which port does the staging server listen on?", ("8443",)),
             Fact("number", 20, "Quantum zebra xylophone?", ("8443",))]
    return Chat("hand", messages, facts)


def test_the_planted_sentence_is_found_by_the_questions_words_and_a_stranger_question_is_not(tmp_path):
    chat = hand_chat()
    result = recall.search_alone(chat, chat.facts, where=tmp_path)
    assert [one["rank"] for one in result["found"]] == [1, None]
    assert (result["right"], result["asked"], result["top"]) == (1, 2, 10)
    assert list(tmp_path.iterdir()) == []  # the scratch chat is gone


def test_the_search_alone_figure_on_the_default_synthetic_chat_is_the_one_docs_recall_states(tmp_path, default_chat):
    chat = default_chat
    result = recall.search_alone(chat, chat.facts, where=tmp_path)
    stated = re.search(r"search alone finds the planted message in the top 10 for (\d+) of (\d+) questions",
                       " ".join(DOCS.read_text().split()))
    assert stated, "docs/recall.md states the search-alone figure"
    assert (result["right"], result["asked"]) == (int(stated[1]), int(stated[2]))
    row = recall.alone_row([result])
    assert (row["calls"], row["cost_e8"], row["asked"]) == (0, 0, 30)


def as_sent(call, wire):
    """The baseline's call on a wire, shaped as that wire's check counts it (harness/calls/openai_client.py)."""
    if wire == "anthropic":
        return body(call)
    sent = chat_body(call, call.model) if wire == "openai-chat" else responses_body(call, call.model, "key")
    cap = sent.get("max_tokens", sent.get("max_output_tokens"))
    return {"model": call.model, "max_tokens": cap,
            **{name: value for name, value in sent.items()
               if name in COUNTED_FIELDS + ("messages",) and name != "model"}}


@pytest.mark.parametrize("wire", ["anthropic", "openai-chat", "openai-responses"])
@pytest.mark.parametrize("window", [32_768, 128_000, 200_000, 1_000_000])
def test_every_baseline_call_stays_within_the_summarizers_window_at_the_default_size(window, wire, default_chat):
    chat = default_chat
    budget = recall.baseline_budget(window)
    lines = [f"{at} {kind}: {text}" for at, (kind, text, _) in enumerate(chat.messages)]
    pieces = recall.chunks(lines, budget.chunk_bytes)
    # the largest summary a call may carry: as many bytes as allowed, each a quote (escaped, two)
    carried = recall.clipped('"' * budget.summary_bytes, budget.summary_bytes)
    model = "claude-local-window-test"
    for piece in pieces:
        request = as_sent(recall.baseline_call(model, carried, piece, budget.max_tokens), wire)
        assert models.window_problem(request, window) is None
    assert "\n".join(pieces) == "\n".join(lines)  # nothing lost, nothing doubled
    assert len(pieces) >= (sum(len(line.encode()) for line in lines) // budget.chunk_bytes)


def test_a_message_longer_than_a_chunk_is_cut_and_no_piece_passes_it():
    line = "é" * 5_000 + '"' * 3_000
    pieces = recall.chunks([line], 2_000)
    assert "".join(pieces) == line
    assert all(recall.sent_bytes(piece) <= 2_000 for piece in pieces)


def test_a_window_too_small_for_any_summary_is_one_sentence():
    with pytest.raises(recall.BenchFailed, match="window of 4,000 tokens leaves no room"):
        recall.baseline_budget(4_000)
