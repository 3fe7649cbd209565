"""The scripted "model" `ever bench recall` runs against in tests/chat/test_recall.py and
tests/support/recall_costs.py: compactions keep the first 200 bytes of what they compress, the
baseline's summary keeps the first words of each chunk, and a question is answered from what the
turn's tools brought back (the search arm searches for the fact's value and zooms into the first
hit; the zoom arm zooms into the fact's message, whose id it knows).
"""

import re

from harness.localapi.server import Reply, tool_use


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
        if first.startswith("Question: "):  # the judge, asked only with --judge
            given = first.split("\nGiven answer: ", 1)[1]
            expected = first.split("\nExpected answer: ", 1)[1].split("\n", 1)[0]
            return Reply("yes" if given.split("\n")[0].rstrip(".") in expected else "no")
        fact = next(fact for question, fact in by_question.items() if question in first)
        if not body.get("tools"):  # the baseline: its summary is all it has
            return answer_from(fact, first)
        names = {tool["name"] for tool in body["tools"]}
        rounds = (len(body["messages"]) - 1) // 2
        if "search" in names:
            if rounds == 0:
                return Reply([tool_use("search", {"query": f'"{fact.expected[0]}"'})])  # the words together
            if rounds == 1:
                hit = re.search(r"^(\d+) \(in ", last_user_texts(body)[0], re.M)
                return Reply([tool_use("zoom", {"id": int(hit.group(1)), "n": 1})])
        elif rounds == 0:
            return Reply([tool_use("zoom", {"id": fact.id, "n": 1})])
        return answer_from(fact, "\n".join(last_user_texts(body)))

    return respond

