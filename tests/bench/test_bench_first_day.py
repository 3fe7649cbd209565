"""Strategy: a real user's first day, lived as a person lives it, against the local Messages API:
a chat of 1,000 messages (tests/support/chat_files.py), then `ever import --yes` of Claude Code
session files holding 3,000 short notes (each its own line) and 300 long ones (each a summary),
its estimate read from what it prints; then `ever chat` on a pseudo-terminal with nothing typed,
until the first compaction request reaches the API; then a message typed, its reply awaited, and
the compactor left to finish (`ever memory status` asked until it says idle); then Ctrl-D.

Every request the API received is measured: no `<chat>` past its ceiling and the tags (128,000 and
32,000 bytes [gist §3.2, §4]), no request past its model's window (the models' pages; the request's
bytes bound its tokens from above). The import says a likely figure, weighed by the API's count of
a sample [I6], and a bound ("At most", harness/imports/rules.py `Cost`): the likely calls, input
tokens, output tokens and dollars are asserted within 30 % of what the compactor's calls used (the
usage log, harness/calls/usage.py, beside the API's own records), the bound's at least that, priced
here at Claude Haiku 4.5's list prices written out from the pricing page. The compactor's answers are lines of
400 to 500 bytes, as a model asked for "at most 512 bytes" writes them: no two join for free.

The delay from the prompt appearing to the first compaction request is printed, never asserted
(the project's tests assert no time): what is asserted is that it came before anything was typed.

Sizes are full only with `--benchmark-enable` (`make bench`, about 4 minutes on a loaded machine);
`make test-long` (EVER_LONG_TESTS=1) runs the same day at a tenth of the size (100 messages, 300
and 30 notes: the least whose view still passes the turn's ceiling before the compactor has run)
with the same assertions, in 20 to 40 s, too long for `make test`, which skips it; there
tests/chat/test_first_day.py keeps the ceilings checked.
"""

import hashlib
import json
import os
import random
import re
import subprocess
import time
from pathlib import Path

import pexpect
import pytest

from harness.calls.usage import read_usage
from harness.localapi.server import Reply, block_tokens
from tests.support.chat import EVER, environment
from tests.support.chat_files import words, write_chat
from tests.support.first_day import (
    COMPACTION_CEILING,
    TAGS,
    TURN_CEILING,
    WINDOWS,
    chat_bytes,
    claude_code_sessions,
    is_compaction,
    request_bytes,
    view_shares,
)

# Claude Haiku 4.5's list prices, US dollars per million tokens (platform.claude.com pricing: $1
# input, $1.25 5-minute cache writes, $0.10 cache hits, $5 output): the compaction model's.
HAIKU = {"input_tokens": 1.00, "cache_creation_input_tokens": 1.25, "cache_read_input_tokens": 0.10,
         "output_tokens": 5.00}
QUESTION = "What did I import?"
HANG_GUARD_SECONDS = 3_600  # only stops a hang: the full day runs thousands of calls on a shared machine

ANNOUNCED = re.compile(r"([\d,]+) messages to add as notes; about ([\d,]+) compactions \(([\d,]+) summaries "
                       r"of long notes, ([\d,]+) merges\)")
COST = re.compile(r"That is about ([\d,]+) input tokens \(([\d,]+) read from the cache, ([\d,]+) written "
                  r"to it\) and ([\d,]+) output tokens by (\S+)'s count of a sample of the notes: about "
                  r"\$([\d.,]+) at its list prices; about (.+?) with (\d+) calls at once")
BOUND = re.compile(r"At most ([\d,]+) input tokens and ([\d,]+) output tokens, \$([\d.,]+), were every byte a "
                   r"token and every line 512 bytes\.")


def number(text: str) -> int:
    return int(text.replace(",", ""))


def enabled(request) -> bool:
    options = request.config
    return options.getoption("benchmark_enable") or not options.getoption("benchmark_disable")


def answer(body: dict) -> Reply:
    """A compaction gets a line of 400 to 500 bytes, the same for the same task; a turn a short reply."""
    blocks = body["messages"][-1]["content"]
    text = blocks if isinstance(blocks, str) else " ".join(b.get("text", "") for b in blocks if isinstance(b, dict))
    if "Compaction:" in text:
        rng = random.Random(hashlib.sha256(text[-400:].encode()).digest())
        size = rng.randint(400, 500)
        return Reply(("summary: " + words(rng, size // 4))[:size].rstrip())
    return Reply("Noted.")


def drain(child: pexpect.spawn) -> None:
    """Read what the chat wrote to its terminal: a terminal nobody reads fills, and the chat then
    waits on its own status line."""
    try:
        while True:
            child.read_nonblocking(1 << 16, timeout=0)
    except pexpect.TIMEOUT:
        pass


def ever_status(env: dict, child: pexpect.spawn) -> dict:
    """`ever memory status --json`, answered by the open chat, its terminal read meanwhile."""
    asked = subprocess.Popen([EVER, "memory", "status", "--json"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    while asked.poll() is None:
        drain(child)
        time.sleep(0.05)
    out, err = asked.communicate()
    assert asked.returncode == 0, err
    return json.loads(out)


def node_range(body: dict) -> tuple[int, int]:
    """The first and last message of the node a compaction builds, from its task [gist §4]."""
    task = body["messages"][0]["content"][-1]["text"]
    compress = re.search(r"Compaction: compress message (\d+) ", task)
    if compress:
        return int(compress.group(1)), int(compress.group(1))
    merge = re.search(r"their messages, (\d+) to (\d+),", task)
    assert merge, task[:300]
    return int(merge.group(1)), int(merge.group(2))


def usage_of(request) -> tuple[int, int, int, int]:
    """(input, cache writes, cache reads, output) tokens the local API reported for a compaction:
    its cache's outcome, and its rule for the reply's tokens (the reply is `answer`'s)."""
    outcome = request.cache
    output = max(1, sum(block_tokens(block) for block in answer(request.body).blocks()))
    return (outcome.input_tokens, outcome.cache_creation_input_tokens, outcome.cache_read_input_tokens, output)


def live_a_first_day(tmp_path: Path, api, messages: int, short: int, long: int) -> dict:
    home = tmp_path / "home"
    write_chat(home, messages)
    # the compactor on Haiku 4.5, whose list prices are written out above (the default is newer)
    (home / "config.toml").write_text('[memory]\nmodel = "claude-haiku-4-5"\n')
    env = environment(home, api)
    claude_code_sessions(tmp_path / "claude", short, long)
    imported = subprocess.run([EVER, "import", str(tmp_path / "claude"), "--yes"], env=env, capture_output=True,
                              text=True, timeout=HANG_GUARD_SECONDS)
    assert imported.returncode == 0, imported.stderr
    announced, cost, bound = (pattern.search(imported.stdout) for pattern in (ANNOUNCED, COST, BOUND))
    assert announced and cost and bound, imported.stdout
    notes, compactions, summaries, merges = (number(g) for g in announced.groups())
    assert (notes, summaries) == (short + long, long)  # the sizes are what this test meant them to be
    assert f"Added {short + long:,} notes: messages {messages:,} to {messages + short + long - 1:,}." in imported.stdout
    estimate = {"calls": compactions, "input": number(cost.group(1)), "read": number(cost.group(2)),
                "written": number(cost.group(3)), "output": number(cost.group(4)), "model": cost.group(5),
                "dollars": float(cost.group(6).replace(",", "")), "time": cost.group(7),
                "input_at_most": number(bound.group(1)), "output_at_most": number(bound.group(2)),
                "dollars_at_most": float(bound.group(3).replace(",", ""))}
    assert estimate["model"] == "claude-haiku-4-5"  # the compaction model by default: its prices are HAIKU's

    api.reset()
    api.responder = answer
    started = time.perf_counter()
    child = pexpect.spawn(EVER, ["chat"], env=env, encoding="utf-8", timeout=600, dimensions=(40, 160))
    try:
        child.expect("›")
        prompt = time.perf_counter()

        def first_compaction():
            return next((r for r in api.requests if isinstance(r.body, dict) and is_compaction(r.body)), None)

        while (first := first_compaction()) is None:
            assert time.perf_counter() - started < HANG_GUARD_SECONDS, "no compaction request after opening"
            drain(child)
            time.sleep(0.02)
        # nothing typed yet: every request so far is a compaction
        assert all(is_compaction(r.body) for r in api.requests if isinstance(r.body, dict))
        child.send(QUESTION + "\r")
        child.expect("Noted.", timeout=HANG_GUARD_SECONDS)
        while not ((status := ever_status(env, child))["compactor"].startswith("idle") and not status["unsummarized"]):
            assert time.perf_counter() - started < HANG_GUARD_SECONDS, status
            drain(child)
            time.sleep(1)
        finished = time.perf_counter()
        child.send("\x04")  # Ctrl-D
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)

    turns, calls = [], []
    for request in api.requests:
        body = request.body
        if body is None:  # a call cut off mid-upload: nothing was read
            assert request.answer == "invalid", (request.method, request.path, request.status, request.answer)
            continue
        assert isinstance(body, dict), (request.method, request.path, request.status, request.answer)
        assert request.answer == "reply", (request.status, request.answer)
        (calls if is_compaction(body) else turns).append(request)
    assert len(turns) == 1 and calls
    shares = view_shares(turns[0].body)  # the first turn's view: its lines, built, dated and sourced
    assert shares[0] > 0
    largest = {}
    for kind, requests, ceiling in (("turn", turns, TURN_CEILING), ("compaction", calls, COMPACTION_CEILING)):
        bodies = [r.body for r in requests]
        for body in bodies:
            assert chat_bytes(body) <= ceiling + TAGS, (kind, chat_bytes(body))
            assert request_bytes(body) + body["max_tokens"] <= WINDOWS[body["model"]], (kind, request_bytes(body))
        largest[kind] = {"chat": max(chat_bytes(b) for b in bodies), "body": max(request_bytes(b) for b in bodies)}

    # what the API reported for each compaction, against what the usage log kept of it
    used = [usage_of(r) for r in calls]
    logged = [r for r in read_usage(home).records if r.kind == "compaction"]
    assert sorted(used) == sorted(tuple(getattr(r, field) for field in HAIKU) for r in logged)
    # the import's compactions are those of nodes that end by its last note; the typed message and
    # its reply then complete a few more, which are the chat's own
    last_note = messages + notes - 1
    ours = [u for r, u in zip(calls, used) if node_range(r.body)[1] <= last_note]
    actual = {field: sum(u[k] for u in ours) for k, field in enumerate(HAIKU)}
    actual["calls"] = len(ours)
    actual["dollars"] = sum(actual[field] * price for field, price in HAIKU.items()) / 1_000_000
    actual["after"] = len(calls) - len(ours)
    return {"estimate": estimate, "actual": actual, "largest": largest,
            "prompt_to_first_seconds": first.received_perf_seconds - prompt,
            "start_to_first_seconds": first.received_perf_seconds - started,
            "open_to_idle_seconds": finished - started, "notes": notes, "shares": shares}


def test_a_first_day_of_imported_history_stays_within_every_ceiling_and_its_estimate(benchmark, request, tmp_path,
                                                                                    api):
    if not enabled(request) and os.environ.get("EVER_LONG_TESTS") != "1":
        pytest.skip("the first day runs under make bench, and a tenth of it under make test-long (EVER_LONG_TESTS=1)")
    messages, short, long = (1_000, 3_000, 300) if enabled(request) else (100, 300, 30)
    day = benchmark.pedantic(lambda: live_a_first_day(tmp_path, api, messages, short, long), rounds=1, iterations=1)
    estimate, actual, largest = day["estimate"], day["actual"], day["largest"]
    lines, built, dated = day["shares"]
    benchmark.extra_info.update(messages=messages, short=short, long=long, **{
        f"{side}_{k}": v for side in ("estimate", "actual") for k, v in day[side].items()},
        largest=largest, prompt_to_first_seconds=day["prompt_to_first_seconds"], first_turn_view_shares=day["shares"])
    actual_input = (actual["input_tokens"] + actual["cache_creation_input_tokens"]
                    + actual["cache_read_input_tokens"])
    print(f"\nfirst day: {messages:,} messages, then {short:,} short and {long:,} long notes imported with "
          f"`ever import`, then `ever chat` and one message typed\n"
          f"  first compaction request {day['prompt_to_first_seconds']:.2f} s after the prompt appeared "
          f"({day['start_to_first_seconds']:.2f} s after `ever chat` started), nothing typed; "
          f"the compactor idle {day['open_to_idle_seconds']:.0f} s after the start\n"
          f"  largest turn request: <chat> {largest['turn']['chat']:,} bytes (ceiling {TURN_CEILING:,} + {TAGS}), "
          f"body {largest['turn']['body']:,} bytes\n"
          f"  largest compaction request: <chat> {largest['compaction']['chat']:,} bytes "
          f"(ceiling {COMPACTION_CEILING:,} + {TAGS}), body {largest['compaction']['body']:,} bytes\n"
          f"  compactions estimated {estimate['calls']:,}, made {actual['calls']:,} (and {actual['after']:,} more "
          f"of nodes the typed message and its reply completed)\n"
          f"  input tokens estimated {estimate['input']:,} ({estimate['read']:,} cache reads, "
          f"{estimate['written']:,} cache writes), used {actual_input:,} ({actual['cache_read_input_tokens']:,} "
          f"cache reads, {actual['cache_creation_input_tokens']:,} cache writes, {actual['input_tokens']:,} "
          f"uncached)\n"
          f"  output tokens estimated {estimate['output']:,}, used {actual['output_tokens']:,}\n"
          f"  dollars at claude-haiku-4-5's list prices: estimated ${estimate['dollars']:,.2f} (at most "
          f"${estimate['dollars_at_most']:,.2f}), actual ${actual['dollars']:,.2f}; time estimated {estimate['time']}\n"
          f"  at most: input tokens {estimate['input_at_most']:,}, output tokens {estimate['output_at_most']:,}\n"
          f"  the first turn's view: {lines:,} lines, {built:,} built ({built * 100 // lines} %), {dated:,} saying "
          f"their dates and source ({dated * 100 // lines} %)")
    # [I6] the likely figure within 30 % of what was spent; the bound at least what was spent
    assert estimate["calls"] >= actual["calls"]
    for name, likely, spent in (("calls", estimate["calls"], actual["calls"]),
                                ("input tokens", estimate["input"], actual_input),
                                ("output tokens", estimate["output"], actual["output_tokens"]),
                                ("dollars", estimate["dollars"], actual["dollars"])):
        assert abs(likely - spent) <= 0.3 * spent, (name, likely, spent)
    assert estimate["input_at_most"] >= actual_input
    assert estimate["output_at_most"] >= actual["output_tokens"]
    assert estimate["dollars_at_most"] >= round(actual["dollars"], 2)
