"""Strategy: `ever bench recall` end to end, the installed command in a subprocess, on a tiny
planted chat against the local Messages API, whose scripted "model" is tests/support/recall_model.py's: compactions
keep the first 200 bytes of what they compress (so most facts are lost from the lines), the
baseline's summary keeps the first words of each chunk, and a question is answered from what the
turn's tools brought back. In the search arm the script searches for the fact's value and zooms
into the first hit; in the zoom arm it zooms into the fact's message (it knows the id: this tests
the plumbing, not a model). So the search and zoom arms are right exactly when the tools, run in
the bench's copy of the built chat, return the planted message; the baseline's answer is what its
summary holds. The figures measure the harness only, and the output must say so. The published
formats run from the hand-made files of tests/memory/fixtures/, one chat per instance or sample.
"""

import asyncio
import dataclasses
import json
from pathlib import Path

import pytest

from harness.bench.planted import Chat, generate, load, logged
from harness.bench.recall import Bench, BenchSettings, arm_prompt, loopback, report
from harness.memory.service import Memory
from harness.memory.store import Store
from tests.support.chat import environment, ever
from tests.support.recall_model import scripted

SEED, MESSAGES, PER_KIND = 3, 120, 1


@pytest.mark.slow
def test_the_three_arms_run_end_to_end_and_say_the_figure_measures_nothing(tmp_path, api):
    api.reset()
    chat = generate(SEED, MESSAGES, PER_KIND)
    api.responder = scripted(chat)
    env = environment(tmp_path, api)
    env["EVER_MODEL"] = "claude-sonnet-4-6"
    run = ever(["bench", "recall", "--messages", str(MESSAGES), "--per-kind", str(PER_KIND), "--seed", str(SEED),
                "--questions", "6", "--memory-model", "claude-haiku-4-5", "--json", "--yes"], env, timeout_seconds=300)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert any("measure nothing about memory" in note for note in result["notes"])
    arms = result["arms"]
    assert list(arms) == ["zoom", "search", "baseline", "search-alone"]
    # the model-free arm: no calls, no dollars, each of the 6 questions searched once
    assert (arms["search-alone"]["asked"], arms["search-alone"]["calls"], arms["search-alone"]["cost_e8"]) == (6, 0, 0)
    answers = result["chats"][0]["answers"]
    assert len(answers) == 18
    # the tools, in a copy of the built chat, bring back every planted message
    for arm in ("zoom", "search"):
        assert arms[arm]["right"] == 6, [a for a in answers if a["arm"] == arm]
    for answer in answers:
        assert answer["usage"]["output_tokens"] > 0 and answer["dollars"] > 0 and answer["seconds"] >= 0
        if answer["arm"] == "zoom":
            assert (answer["zooms"], answer["searches"]) == (1, 0)
        elif answer["arm"] == "search":
            assert (answer["zooms"], answer["searches"]) == (1, 1)
        else:
            assert (answer["zooms"], answer["searches"], answer["calls"]) == (0, 0, 1)
    # the baseline is scored on what its summary kept: right exactly when the summary holds the value
    summary = json.loads(next((tmp_path / "bench").glob("*/baseline-claude-haiku-4-5.json")).read_text())["summary"]
    for answer in (a for a in answers if a["arm"] == "baseline"):
        assert (answer["score"] == "right") == all(value in summary for value in answer["expected"])
    # what each arm was offered
    turns = [r.body for r in api.requests if r.body.get("tools") and r.body.get("tool_choice") is None]
    zoom_arm = [body for body in turns if "search" not in {tool["name"] for tool in body["tools"]}]
    assert zoom_arm and all("search(query)" not in body["system"][0]["text"] for body in zoom_arm)
    assert all("agent" not in {tool["name"] for tool in body["tools"]} for body in turns)
    # the built chat is as written: no question, answer or tool call of any arm reached it
    with Store.open(next((tmp_path / "bench").glob("*/"))) as store:
        assert store.count == MESSAGES
    assert not any(judged(r.body) for r in api.requests)  # no judge unless asked for
    # run again: the built chat is used again, and no compaction is paid twice
    compactions = sum(1 for r in api.requests if r.body.get("tool_choice") == {"type": "none"})
    again = ever(["bench", "recall", "--messages", str(MESSAGES), "--per-kind", str(PER_KIND), "--seed", str(SEED),
                  "--questions", "2", "--memory-model", "claude-haiku-4-5", "--arms", "search,baseline",
                  "--judge", "claude-haiku-4-5", "--yes"], env, timeout_seconds=300)
    assert again.returncode == 0, again.stderr
    assert sum(1 for r in api.requests if r.body.get("tool_choice") == {"type": "none"}) == compactions
    assert "built already" in again.stderr
    assert "search" in again.stdout and "measure nothing about memory" in again.stdout
    # the judge, asked for, judges each answer; its verdict is shown beside the exact score
    assert sum(1 for r in api.requests if judged(r.body)) == 4
    assert "the judge says 2 right" in again.stdout and "the judge says 0 right" in again.stdout


def judged(body):
    first = body["messages"][0]["content"][0]
    return first.get("text", "").startswith("Question: ")


@pytest.mark.slow
def test_the_published_formats_run_one_chat_per_instance_or_sample(tmp_path, api):
    fixtures = Path(__file__).parent.parent / "memory" / "fixtures"
    env = environment(tmp_path, api)
    for name, chats, scores, passed_over in (("longmemeval_tiny.json", 2, ["right", "wrong"], [0, 0]),
                                             ("locomo_tiny.json", 1, ["wrong", "right"], [1])):
        api.reset()
        loaded = load(fixtures / name)
        api.responder = scripted(Chat("all", facts=[fact for chat in loaded for fact in chat.facts]))
        run = ever(["bench", "recall", "--file", str(fixtures / name), "--arms", "zoom", "--json", "--yes",
                    "--home", str(tmp_path / name)], env, timeout_seconds=300)
        assert run.returncode == 0, run.stderr
        result = json.loads(run.stdout)
        assert len(result["chats"]) == chats
        assert len({chat["home"] for chat in result["chats"]}) == chats
        assert [a["score"] for chat in result["chats"] for a in chat["answers"]] == scores
        assert [chat["passed_over"] for chat in result["chats"]] == passed_over


def test_a_build_stopped_half_way_goes_on_from_the_first_message_not_logged(tmp_path, api):
    api.reset()
    chat = generate(SEED, 60, PER_KIND)
    api.responder = scripted(chat)
    home = tmp_path / "bench"
    bench = Bench(BenchSettings(api_key="test-key", base_url=api.base_url, model="claude-sonnet-4-6",
                                memory_model="claude-haiku-4-5", home=home))
    home.mkdir()
    (home / "bench.json").write_text(json.dumps({"marker": bench.marker(chat), "built": None}))
    memory = Memory.open(home)
    for at in range(25):
        memory.append(*logged(chat, at))
    memory.close()

    async def build():
        try:
            return await bench.build(chat)
        finally:
            await bench.close()

    built = asyncio.run(build())
    assert built["messages"] == 60
    with Store.open(home) as store:
        assert [(r["kind"], r["text"]) for r in store.messages(0, store.count)] == \
            [(kind, text) for kind, text, _ in chat.messages]
    assert json.loads((home / "bench.json").read_text())["built"] == built


def test_the_zoom_arm_has_no_search_and_no_arm_has_subagents():
    zoom, search = arm_prompt("zoom"), arm_prompt("search")
    assert [tool.name for tool in zoom.tools] == ["zoom", "date", "shell", "read", "write", "edit"]
    assert [tool.name for tool in search.tools] == ["zoom", "date", "search", "shell", "read", "write", "edit"]
    assert "search(query)" not in zoom.system_text() and "search(query)" in search.system_text()
    assert zoom.system_text().replace("\n", "") in search.system_text().replace("\n", "").replace(
        "- search(query) finds the messages holding words, each with the line that covers it", "")


def test_only_a_server_on_this_machine_is_said_to_measure_nothing():
    assert all(loopback(url) for url in ("http://127.0.0.1:8787", "http://localhost:9", "http://[::1]:80",
                                         "http://127.0.0.2"))
    assert not any(loopback(url) for url in (None, "https://api.anthropic.com", "http://10.0.0.5:8080"))
    built = {"messages": 10_000, "view_lines": 300, "view_bytes": 120_000, "compaction_calls": 1,
             "cost_e8": 1}
    runs = [{"chat": "c", "built": built, "passed_over": 0, "answers": []}]
    real = BenchSettings(api_key="k", base_url=None, model="m", memory_model="n", home=None)
    assert report(real, runs)["notes"] == []
    local = dataclasses.replace(real, base_url="http://127.0.0.1:1")
    assert "measure nothing about memory" in report(local, runs)["notes"][0]
    small = [dict(runs[0], built=dict(built, messages=40, view_lines=40))]
    assert "measure nothing about memory" in report(real, small)["notes"][0]


def test_without_yes_a_script_is_told_it_costs_money_and_nothing_is_built(tmp_path, api):
    env = environment(tmp_path, api)
    refused = ever(["bench", "recall", "--messages", "60", "--per-kind", "1"], env, stdin="")
    assert refused.returncode == 1
    assert refused.stderr.startswith("ever: the bench calls the API for every compaction and every answer")
    assert not (tmp_path / "bench").exists()
    wrong = ever(["bench", "recall", "--arms", "zoom,grep", "--yes"], env)
    assert wrong.returncode == 1 and wrong.stderr.strip() == \
        "ever: --arms takes zoom, search, baseline and search-alone, comma-separated, not 'zoom,grep'"
