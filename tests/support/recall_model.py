"""The scripted "model" `ever bench recall` runs against in tests/chat/test_recall.py and
tests/support/recall_costs.py: compactions keep the first 200 bytes of what they compress, the
baseline's summary keeps the first words of each chunk, and a question is answered from what the
turn's tools brought back (the search arm searches for the fact's value and zooms into the first
hit; the zoom arm zooms into the fact's message, whose id it knows). It reads a request of any
wire (the Messages API's, Chat Completions' or the Responses API's, `as_messages`), and its
replies go out in that wire's shape as the stand-in writes them.
"""

import json
import re

from harness.localapi.server import Reply, tool_use


def _text_block(text):
    return {"type": "text", "text": text}


def _append(messages, role, blocks):
    """Consecutive blocks of one role join one message, as the Messages API alternates them."""
    if messages and messages[-1]["role"] == role:
        messages[-1]["content"] += blocks
    else:
        messages.append({"role": role, "content": list(blocks)})


def as_messages(body):
    """A request of any wire as the Messages API would hold it: `system`, `messages` of user and
    assistant turns (tool results as `tool_result` blocks, calls as `tool_use`), `tools` by
    name, `tool_choice` as its own. A Messages API body is returned as it is."""
    if "input" in body:  # the Responses API
        system, messages = [], []
        for item in body["input"]:
            kind = item.get("type", "message")
            if kind == "message" and item["role"] == "system":
                system += [_text_block(part["text"]) for part in item["content"]]
            elif kind == "message":
                role = "assistant" if item["role"] == "assistant" else "user"
                _append(messages, role, [_text_block(part["text"]) for part in item["content"] if "text" in part])
            elif kind == "function_call":
                _append(messages, "assistant", [{"type": "tool_use", "id": item["call_id"], "name": item["name"],
                                                 "input": json.loads(item["arguments"])}])
            elif kind == "function_call_output":
                _append(messages, "user", [{"type": "tool_result", "tool_use_id": item["call_id"],
                                            "content": [_text_block(item["output"])]}])
        tools = [{"name": tool["name"]} for tool in body.get("tools", [])]
    elif any(message["role"] in ("system", "tool") for message in body["messages"]) or "stream_options" in body:
        system, messages = [], []  # Chat Completions
        for message in body["messages"]:
            content = message.get("content")
            parts = [_text_block(content)] if isinstance(content, str) else \
                [_text_block(part["text"]) for part in content or [] if part.get("type") == "text"]
            if message["role"] == "system":
                system += parts
            elif message["role"] == "tool":
                _append(messages, "user", [{"type": "tool_result", "tool_use_id": message["tool_call_id"],
                                            "content": parts}])
            elif message["role"] == "assistant":
                calls = [{"type": "tool_use", "id": call["id"], "name": call["function"]["name"],
                          "input": json.loads(call["function"]["arguments"])}
                         for call in message.get("tool_calls") or []]
                _append(messages, "assistant", parts + calls)
            else:
                _append(messages, "user", parts)
        tools = [{"name": tool["function"]["name"]} for tool in body.get("tools", [])]
    else:
        return body
    shaped = {"model": body["model"], "system": system, "messages": messages, "tools": tools}
    if body.get("tool_choice") == "none":
        shaped["tool_choice"] = {"type": "none"}
    return shaped


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
        body = as_messages(body)
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

