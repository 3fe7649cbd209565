"""Strategy: `ever bench recall` end to end, the installed command in a subprocess, on a tiny
planted chat against the local Messages API, whose scripted "model" is written here: compactions
keep the first 200 bytes of what they compress (so most facts are lost from the lines), the
baseline's summary keeps the first words of each chunk, and a question is answered from what the
turn's tools brought back. In the search arm the script searches for the fact's value and zooms
into the first hit; in the zoom arm it zooms into the fact's message (it knows the id: this tests
the plumbing, not a model). So the search and zoom arms are right exactly when the tools, run in
the bench's copy of the built chat, return the planted message; the baseline's answer is what its
summary holds. The figures measure the harness only, and the output must say so.
"""

import json
import re

from harness.localapi.server import Reply, text, tool_use
from harness.memory.planted import generate
from harness.memory.store import Store
from tests.chat.test_cli import environment, ever

SEED, MESSAGES, PER_KIND = 3, 120, 1


def last_user_texts(body):
    texts = []
    for block in body["messages"][-1]["content"]:
        if block.get("type") == "text":
            texts.append(block["text"])
        elif block.get("type") == "tool_result":
            texts += [part["text"] for part in block.get("content", []) if part.get("type") == "text"]
    return texts


def scripted(chat):
    by_question = {fact.question: fact for fact in chat.facts}

    def answer_from(fact, seen):
        if all(value in seen for value in fact.expected):
            return Reply(" and ".join(fact.expected))
        return Reply("I do not know.")

    def respond(body):
        task = last_user_texts(body)[-1] if body["messages"][-1]["role"] == "user" else ""
        first = " ".join(b["text"] for b in body["messages"][0]["content"] if b.get("type") == "text")
        if task.startswith("Compaction:"):
            said = task.split("<input>\n", 1)[1].rsplit("\n</input>", 1)[0]
            return Reply(" ".join(said.split())[:200])
        if task.startswith("Summary:"):
            chunk = body["messages"][0]["content"][1]["text"]
            return Reply(" ".join(chunk.split())[:300])
        fact = next(fact for question, fact in by_question.items() if question in first)
        if not body.get("tools"):  # the baseline: its summary is all it has
            return answer_from(fact, first)
        names = {tool["name"] for tool in body["tools"]}
        rounds = (len(body["messages"]) - 1) // 2
        if "search" in names:
            if rounds == 0:
                return Reply([tool_use("search", {"query": fact.expected[0]})])
            if rounds == 1:
                hit = re.search(r"^(\d+) \(in ", last_user_texts(body)[0], re.M)
                return Reply([tool_use("zoom", {"id": int(hit.group(1)), "n": 1})])
        elif rounds == 0:
            return Reply([tool_use("zoom", {"id": fact.id, "n": 1})])
        return answer_from(fact, "\n".join(last_user_texts(body)))

    return respond


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
    assert list(arms) == ["zoom", "search", "baseline"]
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
    # run again: the built chat is used again, and no compaction is paid twice
    compactions = sum(1 for r in api.requests if r.body.get("tool_choice") == {"type": "none"})
    again = ever(["bench", "recall", "--messages", str(MESSAGES), "--per-kind", str(PER_KIND), "--seed", str(SEED),
                  "--questions", "2", "--memory-model", "claude-haiku-4-5", "--arms", "search", "--yes"], env,
                 timeout_seconds=300)
    assert again.returncode == 0, again.stderr
    assert sum(1 for r in api.requests if r.body.get("tool_choice") == {"type": "none"}) == compactions
    assert "built already" in again.stderr
    assert "search" in again.stdout and "measure nothing about memory" in again.stdout
