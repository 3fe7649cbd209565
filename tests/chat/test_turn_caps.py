"""Strategy: a turn's caps as `ever send` meets them, through the installed command and the real
SDK against the local Messages API: a model that never stops calling a tool, and a reply that
streams far more than the cap. No test depends on time: the caps reached are counts of calls, of
tool calls and of bytes; the wall-time cap is tested with a clock of the test's own
(tests/calls/test_turn.py's way: the turn run in the test's process). Each checks the exit code,
one sentence on stderr, the requests the API saw, and what the log kept.
"""

import asyncio

import pytest

from harness.localapi.server import Reply, text, tool_use
from tests.support.chat import environment, ever, logged
from tests.support.turns import make_turn

TURN_MODEL = "claude-sonnet-4-6"
LOGGED_UNANSWERED = 3


def always_a_tool(body: dict) -> Reply:
    """A model that calls `date` in every reply of a turn (the compactor gets a summary line)."""
    if body["model"] != TURN_MODEL:
        return Reply("a summary line")
    return Reply([text("Checking once more."), tool_use("date", {"id": 0})])


def configured(home, table: str):
    home.mkdir(mode=0o700, exist_ok=True)
    path = home / "config.toml"
    path.write_text(f"[turn]\n{table}\n")
    path.chmod(0o600)


def turn_requests(api) -> list:
    return [r for r in api.requests if r.body.get("model") == TURN_MODEL]


@pytest.mark.slow
def test_a_model_that_keeps_calling_a_tool_is_stopped_at_the_calls_cap(tmp_path, api):
    api.responder = always_a_tool
    home = tmp_path / "home"
    configured(home, "calls_max = 5")
    done = ever(["send", "what is the date?"], environment(home, api), timeout_seconds=120)
    assert done.returncode == LOGGED_UNANSWERED, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert "reached its cap of 5 calls" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert len(turn_requests(api)) == 5
    kinds = [kind for kind, _ in logged(home)]
    assert kinds.count("tool") == 5 and kinds.count("echo") == 5
    assert logged(home)[-1] == ("ever", "[stopped: the turn reached its cap of 5 calls]")


@pytest.mark.slow
def test_with_no_setting_a_model_that_never_stops_calling_a_tool_is_stopped_at_100_calls(tmp_path, api):
    api.responder = always_a_tool
    home = tmp_path / "home"
    done = ever(["send", "what is the date?"], environment(home, api), timeout_seconds=300)
    assert done.returncode == LOGGED_UNANSWERED, (done.stdout, done.stderr)
    assert "reached its cap of 100 calls" in done.stderr and "Traceback" not in done.stderr
    assert len(turn_requests(api)) == 100


@pytest.mark.slow
def test_a_reply_asking_past_the_tool_calls_cap_runs_none_of_them(tmp_path, api):
    api.responder = always_a_tool
    home = tmp_path / "home"
    configured(home, "tool_calls_max = 3")
    done = ever(["send", "what is the date?"], environment(home, api), timeout_seconds=120)
    assert done.returncode == LOGGED_UNANSWERED, (done.stdout, done.stderr)
    assert "reached its cap of 3 tool calls" in done.stderr and "Traceback" not in done.stderr
    assert len(turn_requests(api)) == 4  # three ran; the fourth reply's call did not
    kinds = [kind for kind, _ in logged(home)]
    assert kinds.count("tool") == 3
    assert logged(home)[-1] == ("ever", "[stopped: the turn reached its cap of 3 tool calls; its "
                                        "last reply asked for date, not run]")


@pytest.mark.slow
def test_a_reply_that_streams_past_the_output_cap_is_cut_there_and_what_came_is_kept(tmp_path, api):
    long_reply = "".join(f"line {k:06d} of a reply that does not end\n" for k in range(10_000))  # 400 KB
    api.enqueue(Reply(long_reply), when=lambda body: body["model"] == TURN_MODEL)
    home = tmp_path / "home"
    configured(home, "output_bytes_max = 50000")
    done = ever(["send", "talk"], environment(home, api), timeout_seconds=120)
    assert done.returncode == LOGGED_UNANSWERED, (done.stdout, done.stderr)
    assert "reached its cap of 50,000 output bytes" in done.stderr and "Traceback" not in done.stderr
    replies = [text_ for kind, text_ in logged(home) if kind == "ever"]
    kept = "".join(replies)
    mark = "[stopped: the turn reached its cap of 50,000 output bytes]"
    assert kept.endswith(mark)
    body = kept[: -len(mark)].rstrip("\n")
    # what was streamed up to the cap, a beginning of the reply, at most the cap
    assert long_reply.startswith(body) and 40_000 < len(body.encode()) <= 50_000


def test_a_setting_of_the_turn_caps_that_is_no_count_is_refused_in_one_sentence(tmp_path, api):
    home = tmp_path / "home"
    configured(home, "calls_max = 0")
    done = ever(["send", "hello"], environment(home, api), timeout_seconds=300)
    assert done.returncode == 1 and "turn.calls_max must be a whole number above 0" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_wall_time_cap_ends_a_turn_by_its_own_clock(tmp_path, api):
    from harness.calls.turn import TurnCaps, TurnSettings

    api.responder = always_a_tool
    ticks = iter(range(0, 10_000, 10))  # each reading of the clock, 10 s after the last

    async def go():
        memory, client, turn = await make_turn(tmp_path, api)
        turn.settings = TurnSettings(TURN_MODEL, 120.0, workdir=str(tmp_path), caps=TurnCaps(seconds=100),
                                     monotonic=lambda: next(ticks))
        result = await turn.run("what is the date?")
        await client.aclose()
        kept = logged(memory)
        memory.close()
        return kept, result

    kept, result = asyncio.run(go())
    assert "reached its cap of 100 s of wall time" in result.error
    assert kept[-1][1].endswith("[stopped: the turn reached its cap of 100 s of wall time]")
    # the clock is read at the start, then at each streamed piece and before each call: a handful
    # of calls fit in 100 s of this clock, never more
    assert 1 <= len(turn_requests(api)) < 10
