"""Strategy: each mode of `ever simulate` on a replay small enough to work out by hand, the working
written in the comments; the expected figures come from the gist's rules and the local API's
documented cache and token rules, never from the simulator's output. Then the simulator's speed-ups
against what they stand for (the meter against the local API's own cache functions, the compaction
context against the planner's), the pictures and the report written, the command end to end, a
user's log read, and the chat's start without matplotlib. With EVER_LONG_TESTS, the gist's own
figures at 30,000 messages.

Token rule (harness/localapi/server.py): a text block is ceil((b + 25) / 4) tokens, b the bytes
of its text in JSON: here ASCII, where only a newline is escaped, as two bytes. The tools and the system prompt are 877 + 987 = 1,864 tokens, under
Sonnet 4.6's 2,048-token minimum, so they are never cached on their own.
"""

import json
import math
import os
import subprocess
import sys
from datetime import UTC

import pytest

from harness.bench.simulate import (
    ViewMode,
    figures,
    run_command,
    run_view,
    simulate,
    view_unit,
)
from harness.bench.simulate_designs import run_carried, run_window, state_text
from harness.bench.simulate_workloads import (
    Message,
    Workload,
    bulk_import,
    from_log,
    full_lines,
    seeded,
)
from harness.calls.prompt import TOOLS, Prompt, compress_task
from harness.localapi.validation import block_tokens
from harness.memory.planner import Config
from tests.support.wire import system_sent, tools_sent

SONNET, HAIKU = "claude-sonnet-4-6", "claude-haiku-4-5"
# the tools and the system prompt, below: 1,864 for the gist's tools and prompt, then the search
# tool [R1] (152 by the token rule) and its line in the prompt (85 bytes and a newline: 21), then
# the tell tool [gist §9] (its canonical JSON is 477 bytes: 120 by the token rule), then the
# shell timeout's maximum, which the checks hold a call to (`"maximum":600,`: the shell tool's
# canonical JSON grows from 479 to 493 bytes, 120 to 124 by the token rule), then the prompt's
# sentence on a line not summarized yet [P22], three lines where two were: the system block's text
# grows from 4,007 to 4,083 bytes in JSON, 1,008 to 1,027 tokens by the token rule.
# At 2,180 the prefix passes Sonnet 4.6's 2,048-token minimum, so its own mark (the system
# prompt's end) is an entry: every call within 5 minutes of another reads at least the prefix.
PREFIX_TOKENS = 1_864 + 152 + 21 + 120 + 4 + 19


def text_tokens(size: int, newlines: int = 0) -> int:
    """The token rule for an ASCII text block of `size` bytes, `newlines` of them newlines."""
    return math.ceil((size + newlines + 25) / 4)


def chat(*messages) -> Workload:
    return Workload("hand", tuple(Message(kind, size, seconds) for kind, size, seconds in messages), 1_000)


def test_the_tools_and_system_prompt_are_the_tokens_the_hand_figures_assume():
    system = Prompt.build("").system
    assert sum(block_tokens(tool) for tool in tools_sent(TOOLS)) + sum(
        block_tokens(block) for block in system_sent(system)) == PREFIX_TOKENS


def test_ever_as_its_view_grows_caches_every_line_but_the_new_one():
    # Five short user messages (free lines [gist §2]); the view never reaches 128 KB, so each
    # message's call sees the last one's view and one more line: at message m, m − 1 lines
    # cached and 1 written (message 0 sees an empty view). Cached 0+0+1+2+3 = 6, written 4:
    # (0.1 × 6 + 1.25 × 4) / 5 = 5.6 / 5 = 1.12 line-inputs per message, 4 / 5 = 0.8 rewritten,
    # (0+1+2+3+4) / 5 = 2 lines in the view on average.
    workload = chat(*[("user", 4, 10 * k) for k in range(5)])
    [run] = run_view(workload, Config(), [ViewMode("ever", HAIKU)], SONNET)
    f = figures(run)
    assert f["line_inputs_per_message"] == pytest.approx(1.12)
    assert f["lines_rewritten_per_message"] == pytest.approx(0.8)
    assert f["view_lines"] == pytest.approx(2.0)
    assert f["compactions"] == 0  # every line is free


def test_push_at_a_fixed_size_rewrites_the_view_from_each_merge():
    # Push at a fixed size of 30 bytes. Each message "user: xxxx" is a free line of 15 bytes
    # (`0+1|user: xxxx` and its newline); two of them join free into a 26-byte line, four into
    # 48 bytes (`0+4|` and 43). The view before each message, as that message's call sees it:
    #   m0: []                          nothing
    #   m1: [0+1]                       0 cached, 1 written
    #   m2: [0+1, 1+1] (30, not over)   1 cached, 1 written
    #   m3: message 2 took it to 45: 0+2 merged, [0+2, 2+1] = 41 (no other pair): 0 cached, 2 written
    #   m4: message 3 (56): 2+2 merges, then 0+2 and 2+2 into 0+4 (48): [0+4]: 0 cached, 1 written
    # Cached 1, written 5: (0.1 + 6.25) / 5 = 1.27; rewritten 5 / 5 = 1.0; lines (0+1+2+2+1)/5 = 1.2.
    workload = chat(*[("user", 4, 10 * k) for k in range(5)])
    [run] = run_view(workload, Config(30, 30, 30, 30), [ViewMode("push", HAIKU)], SONNET)
    f = figures(run)
    assert f["line_inputs_per_message"] == pytest.approx(1.27)
    assert f["lines_rewritten_per_message"] == pytest.approx(1.0)
    assert f["view_lines"] == pytest.approx(1.2)


def lines_tokens(first: int, count: int, head: bool) -> int:
    """A view block's tokens: lines `first`… of a chat of 500-byte user messages, each line
    `i+1|user: ` and 500 bytes (a free line: 6 + 500 ≤ 512) and a newline, after "<chat>\\n" in
    the first block."""
    size = sum(len(str(i)) + 3 + 506 + 1 for i in range(first, first + count)) + (7 if head else 0)
    return text_tokens(size, newlines=count + (1 if head else 0))


def test_pauses_past_the_cache_life_leave_a_turn_nothing_to_read():
    # Six user messages of 500 bytes, one a minute; each is a turn. Turn k sees k free lines. The
    # view gets its mark with its first whole block of 4 lines (turn 4): S + 521 = 2,385 tokens
    # (7 + 4 × 511 bytes, 5 of them newlines), over the 2,048 minimum, so turn 4 writes it; turn 5's view starts with
    # the same block and reads exactly it. Turns 0 to 4 read nothing: no earlier entry is a prefix
    # of theirs but the prefix (S, over the minimum), which turns 1 to 4 read. With each user message
    # after 6 minutes, every entry is dead when the next turn comes.
    workload = chat(*[("user", 500, 60 * k) for k in range(6)])
    ever, pauses = run_view(workload, Config(), [ViewMode("ever", HAIKU), ViewMode("pauses", HAIKU, pause_seconds=360)],
                            SONNET)
    assert lines_tokens(0, 4, head=True) == 521
    assert ever.turn_first.read_tokens == 4 * PREFIX_TOKENS + (PREFIX_TOKENS + 521)
    assert ever.turn_first.calls == 6
    assert pauses.turn_first.read_tokens == 0
    assert pauses.turn_first.prompt_tokens == ever.turn_first.prompt_tokens


def test_blocks_of_16_lines_read_only_whole_blocks_of_16():
    # Twenty-two user messages of 500 bytes, a minute apart, each a turn. Turn k (k lines) reads
    # what turn k − 1 marked: its last whole block, so the lines before B × floor((k − 1) / B),
    # with the tools and system prompt before them. Each block is written once its prefix
    # passes 2,048 tokens, which one block of 4 already does.
    #   B = 4: turns 5–8 read 4 lines, 9–12 read 8, 13–16 read 12, 17–20 read 16, 21 reads 20.
    #   B = 16: turns 17–21 read 16 lines; before, none. Every turn from 1 on reads the prefix.
    workload = chat(*[("user", 500, 60 * k) for k in range(22)])
    four, sixteen = run_view(workload, Config(), [ViewMode("ever", HAIKU), ViewMode("blocks16", HAIKU, block_lines=16)],
                             SONNET)

    def view_tokens(lines: int, block_lines: int) -> int:
        return sum(lines_tokens(first, block_lines, head=first == 0) for first in range(0, lines, block_lines))

    expected_four = sum(PREFIX_TOKENS + view_tokens(4 * ((k - 1) // 4), 4) for k in range(1, 22))
    expected_sixteen = 16 * PREFIX_TOKENS + 5 * (PREFIX_TOKENS + view_tokens(16, 16))
    assert four.turn_first.read_tokens == expected_four
    assert sixteen.turn_first.read_tokens == expected_sixteen


def test_the_compactor_on_the_turns_model_caches_what_haiku_would_not():
    # One user message of 3,000 bytes: a turn, then one compaction (its line is no free node).
    # Its request: the tools and system prompt, an empty context `<chat>\n</chat>` (14 bytes, 10 tokens),
    # and the task (the message whole), marked at its end. That prompt is under Haiku 4.5's
    # 4,096-token minimum, so on Haiku nothing is written; on Sonnet 4.6 (2,048) all of it is.
    # The turn's blocks after the system prompt are under other settings (tool_choice), so only
    # the tools and system prompt the turn wrote (S, over Sonnet's minimum) are read, on Sonnet;
    # Haiku is another model and reads nothing.
    workload = chat(("user", 3000, 0))
    task = compress_task(0, "user", workload.text(0))
    prompt = PREFIX_TOKENS + text_tokens(14, newlines=1) + text_tokens(len(task), newlines=task.count("\n"))
    assert 2_048 <= prompt < 4_096
    haiku, sonnet = run_view(workload, Config(), [ViewMode("ever", HAIKU), ViewMode("same-model", SONNET)], SONNET)
    for run in (haiku, sonnet):
        assert run.compactions.calls == 1
        assert run.compactions.prompt_tokens == prompt
    assert (haiku.compactions.read_tokens, sonnet.compactions.read_tokens) == (0, PREFIX_TOKENS)
    assert haiku.compactions.written_tokens == 0
    assert sonnet.compactions.written_tokens == prompt - PREFIX_TOKENS
    # prices (cents per million): Haiku 100 in, 500 out; Sonnet 30 to read, 375 to write, 1,500 out
    output = haiku.compactions.output_tokens
    assert haiku.compactions.dollars == pytest.approx((prompt * 100 + output * 500) / 1e8)
    assert sonnet.compactions.dollars == pytest.approx(
        (PREFIX_TOKENS * 30 + (prompt - PREFIX_TOKENS) * 375 + output * 1500) / 1e8)


def test_a_carried_conversation_sends_everything_since_its_summary_and_reads_the_last_turn():
    # user, ever, user, ever, user; 1,200 bytes each; turns at messages 0, 2, 4 (200 s apart).
    # Each message is one block `kind: ` and its text: 1,206 bytes, 308 tokens.
    # S is PREFIX_TOKENS (2,180):
    #   turn 0: S + 308 tokens, over the minimum: all written.
    #   turn 2: S + 3 × 308: reads turn 0's entry (S + 308), writes 616.
    #   turn 4: S + 5 × 308: reads turn 2's (S + 924), writes 616.
    workload = chat(("user", 1200, 0), ("ever", 1200, 10), ("user", 1200, 200), ("ever", 1200, 210),
                    ("user", 1200, 400))
    assert text_tokens(1206) == 308
    run = run_carried(workload, SONNET)
    S = PREFIX_TOKENS
    assert run.turn_first.prompt_tokens == (S + 308) + (S + 924) + (S + 1540)
    assert run.turn_first.read_tokens == (S + 308) + (S + 924)
    assert run.turn_first.written_tokens == (S + 308) + 616 + 616
    assert run.compactions.calls == 0
    assert figures(run)["kept"]["verbatim_reach_share"] == 1.0


def test_a_carried_conversation_past_its_limit_is_summarized_before_the_new_message():
    # The same chat, summarized above 2,500 tokens into 100 bytes (32 tokens); S (2,180) + 308
    # is under it. Turn 2 would be S + 924 = 3,104: the two messages before it are summarized,
    # then the turn is S + 32 + 308. Turn 4 would be S + 32 + 3 × 308 = 3,136: summarized again,
    # and again S + 32 + 308.
    workload = chat(("user", 1200, 0), ("ever", 1200, 10), ("user", 1200, 200), ("ever", 1200, 210),
                    ("user", 1200, 400))
    run = run_carried(workload, SONNET, summarize_at_tokens=2_500, summary_bytes=100)
    assert run.compactions.calls == 2
    assert run.compactions.output_tokens == 2 * text_tokens(100)
    S = PREFIX_TOKENS
    assert S + 308 < 2_500 < S + 924
    assert run.turn_first.prompt_tokens == (S + 308) + 2 * (S + 32 + 308)


def test_a_sliding_window_sends_the_last_messages_and_reads_only_the_prefix():
    # A window of 2 messages. Turn 4's prompt: S, messages 2 and 3 (`user: `, `ever: ` and 1,200
    # bytes: 308 tokens each), the state and message 4 itself (1,200 bytes: 307). The window's
    # first block changes at every turn, so turns 2 and 4 read only the tools and system prompt
    # (over the minimum) that the turn before wrote.
    workload = chat(("user", 1200, 0), ("ever", 1200, 10), ("user", 1200, 200), ("ever", 1200, 210),
                    ("user", 1200, 400))
    run = run_window(workload, SONNET, window_messages=2)
    state = [text_tokens(len(state_text(seconds))) for seconds in (0, 200, 400)]
    assert run.turn_first.prompt_tokens == (
        (PREFIX_TOKENS + state[0] + 307)
        + (PREFIX_TOKENS + 2 * 308 + state[1] + 307)
        + (PREFIX_TOKENS + 2 * 308 + state[2] + 307))
    assert run.turn_first.read_tokens == 2 * PREFIX_TOKENS
    assert figures(run)["kept"]["context_bytes"] == (0 + 2400 + 2400) / 3


def test_the_meter_answers_as_the_local_apis_own_cache(monkeypatch):
    """Every request of a replay with tool calls, results and images, through the fast meter and
    through the local API's `prompt_blocks`, `cache_marks` and `PromptCache.look`: the same
    outcome each time."""
    import harness.bench.simulate as simulate_module
    from harness.bench.simulate_meter import Meter

    bodies = {}
    compared = []

    class Checked(Meter):
        def __init__(self) -> None:
            super().__init__()
            self.twin = Meter(exact=True)

        def prepare(self, body):
            prepared = super().prepare(body)
            bodies[id(prepared)] = (prepared, body)
            return prepared

        def look(self, model, prepared, now_seconds):
            outcome = super().look(model, prepared, now_seconds)
            exact = self.twin.call(dict(bodies[id(prepared)][1], model=model), now_seconds)
            assert outcome == exact
            compared.append(outcome)
            return outcome

    monkeypatch.setattr(simulate_module, "Meter", Checked)
    base = seeded(160, 3)
    messages = tuple(Message(m.kind, m.size_bytes, m.seconds, image=(m.kind == "echo" and k % 5 == 0))
                     for k, m in enumerate(base.messages))
    workload = Workload("images", messages, 1_000)
    run_view(workload, Config(6_000, 3_000, 1_500, 800), [ViewMode("ever", HAIKU), ViewMode("same-model", SONNET),
                                                         ViewMode("blocks16", HAIKU, block_lines=16)], SONNET)
    assert len(compared) > 300
    assert any(outcome.cache_read_input_tokens for outcome in compared)


def test_the_fast_compaction_context_is_the_planners(monkeypatch):
    import harness.bench.simulate as simulate_module

    checked = []
    original = simulate_module.Rendered.context

    def context(self, l, i):
        found = original(self, l, i)
        assert found == self.planner.context(l, i)
        checked.append((l, i))
        return found

    monkeypatch.setattr(simulate_module.Rendered, "context", context)
    run_view(seeded(300, 2), Config(12_000, 6_000, 3_000, 1_500), [ViewMode("ever", HAIKU)], SONNET)
    assert len(checked) > 200


def test_the_pictures_and_the_report_are_written_and_not_empty(tmp_path):
    said = []
    result = run_command(120, 1, "seeded", 0, None, ("ever", "push", "carried", "window"), str(tmp_path), False, 1,
                         SONNET, HAIKU, "ever simulate --messages 120", said.append)
    names = ("view_bytes.png", "cache_share.png", "cost_per_message.png", "month_dollars.png")
    for name in names:
        data = (tmp_path / name).read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
        assert len(data) > 5_000
    page = (tmp_path / "report.html").read_text()
    for name in names:
        assert f'src="{name}"' in page
    assert json.loads((tmp_path / "figures.json").read_text())["modes"][0]["mode"] == "ever"
    assert result["report"] == str(tmp_path / "report.html")
    assert any(line.startswith("ever ") for line in said[1].splitlines())


def test_the_command_gives_json_with_every_mode(tmp_path):
    from click.testing import CliRunner

    from harness.chat.cli import main

    runner = CliRunner()
    done = runner.invoke(main, ["simulate", "--messages", "80", "--json", "--no-pictures", "--processes", "1"],
                         env={"EVER_HOME": str(tmp_path / "home"), "EVER_MODEL": SONNET})
    assert done.exit_code == 0, done.output
    result = json.loads(done.output[done.output.index("{"):])
    assert [f["mode"] for f in result["modes"]] == ["ever", "push", "blocks16", "same-model", "pauses", "carried",
                                                    "window"]
    assert all(f["dollars"] > 0 for f in result["modes"])
    assert not (tmp_path / "ever-simulation").exists()


def test_two_processes_give_what_one_gives():
    workload = seeded(150, 4)
    one = [figures(run) for run in simulate(workload, SONNET, HAIKU, processes=1)]
    two = [figures(run) for run in simulate(workload, SONNET, HAIKU, processes=2)]
    assert one == two


def test_a_users_log_gives_its_kinds_sizes_and_timing(tmp_path):
    main = tmp_path / "chat" / "main"
    main.mkdir(parents=True)
    lines = [
        {"i": 0, "kind": "user", "text": "héllo", "size": 6, "date": "2026-12-01T09:00:00+00:00"},
        {"i": 1, "kind": "echo", "text": "red.png\n[image 1: image/png, 67 bytes, images/ab.png]", "size": 50,
         "date": "2026-12-01T09:00:30+00:00"},
        {"i": 2, "kind": "ever", "text": "ok", "size": 2, "date": "2026-12-02T10:00:00+00:00"},
    ]
    (main / "2026-12-01.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines) + '{"i": 3, "ki')
    workload = from_log(tmp_path)
    assert [(m.kind, m.size_bytes, m.seconds, m.image) for m in workload.messages] == [
        ("user", 6, 0.0, False), ("echo", len(lines[1]["text"]), 30.0, True), ("ever", 2, 90_000.0, False)]
    assert workload.skipped_lines == 1
    assert workload.messages_per_day == 1.5  # 3 messages over 2 days


def test_the_chat_starts_without_matplotlib():
    code = "import sys, harness.chat.cli; print('matplotlib' in sys.modules, 'harness.bench.simulate' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert done.stdout.split() == ["False", "False"], done.stderr


@pytest.mark.skipif(not os.environ.get("EVER_LONG_TESTS"), reason="30,000 messages: make test-long")
def test_the_gists_figures_at_30000_messages():
    # [gist §3.3]: batched 21 vs push 80 line-inputs per message; about 2 vs 53 of 192 lines
    # rewritten per message. The gist's chat has lines that use the space [gist §7.8], so a 96 KB
    # view holds 192 of them: the full-lines workload. Within 10 %.
    workload = full_lines(30_000, 1)
    ever = view_unit(workload, Config())
    push = view_unit(workload, Config(96_000, 96_000, 24_000, 24_000))
    n = 30_000
    assert ever.line_inputs / n == pytest.approx(21, rel=0.10)
    assert push.line_inputs / n == pytest.approx(80, rel=0.10)
    assert ever.lines_rewritten / n == pytest.approx(2, rel=0.10)
    assert push.lines_rewritten / n == pytest.approx(53, rel=0.10)
    assert push.view_lines / n == pytest.approx(192, rel=0.10)


def test_a_first_day_import_logs_its_notes_a_second_apart_and_no_note_starts_a_turn():
    # 30 notes at 0..29 s, then the seeded chat from 30 + 20 s (a person's shortest gap); only
    # the chat's user messages start turns, one first request each.
    workload = bulk_import(40, 30, seed=2)
    assert [m.kind for m in workload.messages[:30]] == ["note"] * 30
    assert [m.seconds for m in workload.messages[:30]] == list(range(30))
    assert workload.messages[30].seconds == 50
    assert all(m.kind != "note" for m in workload.messages[30:])
    [run] = run_view(workload, Config(), [ViewMode("ever", HAIKU)], SONNET)
    assert run.turn_first.calls == sum(1 for m in workload.messages if m.kind == "user")


def test_an_image_in_a_carried_conversation_breaks_what_the_next_request_reads():
    # user, echo with an image, user; 1,200 bytes each. Requests: turn 0 (S + 308 = 2,488: written),
    # the request after the echo (S + 308 + 308 + the image's tokens: the image count changed, so
    # the messages' part is another prefix, and only the tools and system prompt are read), then
    # turn 2, which reads all of that request's prompt.
    from harness.bench.simulate_designs import TINY_PNG

    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": TINY_PNG}}
    workload = Workload("image", (Message("user", 1200, 0), Message("echo", 1200, 10, image=True),
                                  Message("user", 1200, 200)), 1_000)
    run = run_carried(workload, SONNET)
    after_echo = PREFIX_TOKENS + 308 + 308 + block_tokens(image)
    assert run.turn_all.calls == 3
    assert run.turn_all.read_tokens == PREFIX_TOKENS + after_echo
    assert run.turn_all.prompt_tokens == (PREFIX_TOKENS + 308) + after_echo + after_echo + 308


def test_a_turns_first_request_is_the_one_a_real_turn_sends(tmp_path, api):
    """The simulator's turn request beside the request a real `Turn` sends through the SDK to the
    local API, on the same view, state and message: the same body."""
    import asyncio
    from datetime import datetime

    from harness.bench.simulate_designs import TurnConversation
    from harness.calls.client import Client, ClientSettings
    from harness.calls.prompt import chat_blocks, view_mark
    from harness.calls.tools import Approval, WorkTools
    from harness.calls.turn import Turn, TurnSettings
    from harness.memory.service import JobResult, Memory

    now = datetime(2026, 11, 30, 9, 15, tzinfo=UTC)

    async def answer(job):
        return JobResult(f"{job.kind}: summary of {job.name}" if job.l == 0 else f"merged {job.name}")

    async def go():
        memory = Memory.open(tmp_path / "home", build=answer)
        client = Client(ClientSettings(api_key="test-key", base_url=api.base_url, attempts_max=1))
        turn = Turn(memory, client, Prompt.build(), WorkTools(str(tmp_path), Approval(yes=True)),
                    TurnSettings(SONNET, 5.0, workdir=str(tmp_path), clock=lambda: now))
        for k in range(7):
            memory.append("user", f"note {k} " + "w" * 600)
        view = await memory.settle(5.0)
        await turn.run("what next?")
        await client.aclose()
        memory.close()
        return view.split("\n")[1:-1]

    api.reset()
    api.enqueue("Done.")
    lines = asyncio.run(go())
    sent = api.requests[-1].body
    state = f"[2026-11-30 09:15 UTC; working directory: {tmp_path}]"
    ours = TurnConversation([{"role": "user", "content": chat_blocks(lines) + [
        {"type": "text", "text": state}, {"type": "text", "text": "what next?"}]}],
        view_at=view_mark(lines)).body(SONNET, Prompt.build())
    assert {key: sent[key] for key in ours} == ours
