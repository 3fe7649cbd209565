"""Strategy: the generator's facts are found where it says, by id, in a real chat's log (written as
turns and as notes), and each value only there; the same seed gives the same chat. Scoring is
checked on answers written here by hand, each kind's right, wrong and (for an instruction)
superseded answers, against facts written by hand too, not taken from the generator. The loaders
read tiny files written by hand in LongMemEval's and LoCoMo's published formats
(tests/memory/fixtures/)."""

from pathlib import Path

import pytest

from harness.bench.planted import KINDS, Fact, LoadFailed, generate, load, score, write
from harness.memory.service import Memory

FIXTURES = Path(__file__).parent / "fixtures"
MESSAGES = 600


@pytest.mark.parametrize("as_notes", [False, True])
def test_every_planted_fact_is_found_by_its_ids_in_the_log(tmp_path, as_notes):
    chat = generate(seed=11, messages=MESSAGES, per_kind=2)
    memory = Memory.open(tmp_path)
    try:
        first = write(memory, chat, as_notes=as_notes)
        store = memory.store
        assert first == 0 and store.count == MESSAGES
        assert sorted(fact.kind for fact in chat.facts) == sorted(KINDS * 2)
        for fact in chat.facts:
            assert fact.id == fact.ids[-1] and len(fact.ids) == len(fact.needles) >= 1
            for at, needle in zip(fact.ids, fact.needles):
                record = store.message(at)
                assert needle in record["text"], (fact, at)
                assert record["kind"] == "note" if as_notes else record["kind"] in ("user", "tool", "echo", "work")
        texts = [store.message(at)["text"] for at in range(MESSAGES)]
    finally:
        memory.close()
    for fact in chat.facts:
        assert not any(fact.question in text for text in texts)  # the question gives nothing away
        if fact.kind in ("path", "number", "command", "finding"):
            value = fact.expected[0] if fact.kind != "command" else fact.needles[1]
            holders = [at for at, text in enumerate(texts) if value in text]
            assert holders == [fact.id], (fact, holders)


def test_an_instructions_latest_value_is_the_last_said_and_the_older_come_before():
    chat = generate(seed=5, messages=MESSAGES, per_kind=3)
    instructions = [fact for fact in chat.facts if fact.kind == "instruction"]
    assert len(instructions) == 3
    for fact in instructions:
        assert list(fact.ids) == sorted(fact.ids) and len(fact.superseded) == len(fact.ids) - 1 >= 1
        said = [chat.messages[at][1] for at in fact.ids]
        assert fact.expected[0] in said[-1] and fact.superseded[0] in said[0]


def test_the_same_seed_gives_the_same_chat_and_facts_spread_over_it():
    one, again, other = generate(3, MESSAGES), generate(3, MESSAGES), generate(4, MESSAGES)
    assert one.messages == again.messages and one.facts == again.facts
    assert one.messages != other.messages
    firsts = sorted(fact.ids[0] for fact in one.facts)
    slot = MESSAGES / len(one.facts)
    assert firsts[0] < slot and firsts[-1] >= MESSAGES - slot
    kinds = {kind for kind, _, _ in one.messages}
    assert kinds == {"user", "ever", "tool", "echo", "work"}
    assert all(0 < len(text) <= 30_000 for _, text, _ in one.messages)
    assert [date for _, _, date in one.messages] == sorted(date for _, _, date in one.messages)


def test_a_chat_too_small_for_its_facts_is_refused_in_a_sentence():
    with pytest.raises(ValueError, match="cannot hold 30 facts"):
        generate(0, 100)


# ---- exact scoring, on answers written by hand

PATH = Fact("path", 9, "Which file sets the retry budget?", ("src/auth/limits/quota_7.py",), case=True)
NUMBER = Fact("number", 9, "What was the p99?", ("347 ms",))
INSTRUCTION = Fact("instruction", 9, "In which language?", ("German",), superseded=("French", "Dutch"))
DECISION = Fact("decision", 9, "What did we decide, and why?", ("Redis Streams", "power cut"))
COMMAND = Fact("command", 9, "What command?", ("docker image prune -af --filter until=24h",), case=True)
FINDING = Fact("finding", 9, "What did Scout2 find?", ("ImagePool.evict",))
LOADED = Fact("answer", 9, "What did Melanie run?", ("a charity race",))

SCORED = [
    (PATH, "`src/auth/limits/quota_7.py`", "right"),
    (PATH, "It is set in src/auth/limits/quota_7.py.", "right"),
    (PATH, "src/auth/limits/quota_77.py", "wrong"),
    (PATH, "src/auth/limits/quota_7.pyc", "wrong"),
    (PATH, "Src/Auth/limits/quota_7.py", "wrong"),
    (NUMBER, "347ms", "right"),
    (NUMBER, "347 milliseconds", "right"),
    (NUMBER, "The p99 was 347 ms.", "right"),
    (NUMBER, "347 s", "wrong"),
    (NUMBER, "3470 ms", "wrong"),
    (NUMBER, "1,347 ms", "wrong"),
    (NUMBER, "347", "wrong"),
    (INSTRUCTION, "German", "right"),
    (INSTRUCTION, "*german*.", "right"),
    (INSTRUCTION, "French", "superseded"),
    (INSTRUCTION, "Dutch", "superseded"),
    (INSTRUCTION, "German, not French any more", "superseded"),
    (INSTRUCTION, "Spanish", "wrong"),
    (INSTRUCTION, "Germany", "wrong"),
    (DECISION, "Redis Streams, because it survived the power-cut test", "right"),
    (DECISION, "redis streams: it passed the power cut test", "right"),
    (DECISION, "Redis Streams", "wrong"),
    (DECISION, "Kafka, because of the power cut test", "wrong"),
    (COMMAND, "`docker image prune -af --filter until=24h`", "right"),
    (COMMAND, "$ docker image prune -af --filter until=24h", "right"),
    (COMMAND, "docker  image prune -af\n--filter until=24h", "right"),
    (COMMAND, "docker image prune -af", "wrong"),
    (COMMAND, "docker image prune -af --filter until=48h", "wrong"),
    (FINDING, "imagepool.evict", "right"),
    (FINDING, "ImagePool", "wrong"),
    (FINDING, "ImagePool.evictAll", "wrong"),
    (LOADED, "She ran a charity race.", "right"),
    (LOADED, "A CHARITY RACE!", "right"),
    (LOADED, "charity", "wrong"),
]


@pytest.mark.parametrize("fact, answer, expected", SCORED, ids=[f"{f.kind}: {a!r}" for f, a, _ in SCORED])
def test_scoring_is_exact_on_hand_written_answers(fact, answer, expected):
    assert score(fact, answer) == expected


def test_the_generators_own_facts_score_their_own_values_right_and_old_ones_superseded():
    for fact in generate(2, MESSAGES).facts:
        assert score(fact, " because ".join(fact.expected)) == "right", fact
        assert score(fact, "I do not know.") == "wrong"
        for old in fact.superseded:
            assert score(fact, old) == "superseded"


# ---- the published formats


def test_longmemeval_gives_one_chat_per_instance_with_its_evidence_and_dates():
    chats = load(FIXTURES / "longmemeval_tiny.json")
    assert [chat.name for chat in chats] == ["LongMemEval tiny01", "LongMemEval tiny02_abs"]
    first = chats[0]
    assert [(kind, text) for kind, text, _ in first.messages] == [
        ("user", "My sister lives in Porto."), ("ever", "Porto is lovely in spring."),
        ("user", "My sister just moved to Lisbon."), ("ever", "Good luck to her in Lisbon!")]
    assert first.messages[0][2].isoformat() == "2023-05-20T02:21:00+00:00"
    assert first.messages[2][2].isoformat() == "2023-05-28T18:05:00+00:00"
    (fact,) = first.facts
    assert (fact.kind, fact.id, fact.ids, fact.expected) == ("answer", 2, (2,), ("Lisbon",))
    assert fact.question == "Which city does my sister live in now? (Asked on 2023/06/02 (Fri) 10:00.)"
    assert fact.label == "tiny01 knowledge-update"
    assert score(fact, "Lisbon") == "right" and score(fact, "Porto") == "wrong"
    (abstention,) = chats[1].facts
    assert abstention.ids == () and abstention.id == 1


def test_locomo_gives_one_chat_per_sample_its_evidence_by_dialogue_id_and_passes_over_the_unanswered():
    (chat,) = load(FIXTURES / "locomo_tiny.json")
    assert chat.name == "LoCoMo conv-tiny" and chat.passed_over == 1
    assert [text for _, text, _ in chat.messages] == [
        "Caroline: I went to a support group yesterday.",
        "Melanie: How was it? [shares an image: a photo of a sunrise]",
        "Caroline: I painted a lake last week.",
        "Melanie: I ran a charity race for mental health."]
    assert [kind for kind, _, _ in chat.messages] == ["user", "ever", "user", "ever"]
    assert chat.messages[0][2].isoformat() == "2023-05-08T13:56:00+00:00"
    assert chat.messages[2][2].isoformat() == "2023-06-27T10:37:00+00:00"
    assert [(fact.ids, fact.expected) for fact in chat.facts] == [((0,), ("7 May 2023",)), ((3,), ("a charity race",))]
    assert chat.facts[1].label == "conv-tiny q1 category 4"


def test_a_file_in_neither_format_is_refused_in_one_sentence(tmp_path):
    other = tmp_path / "other.json"
    other.write_text('[{"messages": []}]')
    with pytest.raises(LoadFailed, match="neither haystack_sessions"):
        load(other)
    broken = tmp_path / "broken.json"
    broken.write_text("[{")
    with pytest.raises(LoadFailed, match="is not JSON"):
        load(broken)
    with pytest.raises(LoadFailed, match="No such file"):
        load(tmp_path / "missing.json")
