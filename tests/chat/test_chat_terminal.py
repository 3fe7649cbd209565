"""Strategy: `ever chat` as a person uses it, in a pseudo-terminal: pastes, Alt-Enter, the up arrow,
every chat command, `$EDITOR`, a paste of a megabyte, and `kill -9` in the middle of a streamed reply.
The chat talks through the real SDK to the local Messages API served by this test process. Each
test asserts what the person sees and the exact JSONL lines written; every expected value comes
from what the test typed (the texts, the pid it killed, the model it named), never from the
chat's own output.

Compactions get a one-line summary from the local API's responder (they are the requests with
`tool_choice: none`); each turn's reply is queued for turn requests only, so a compaction never
takes a turn's reply.
"""

import json
import os
import re
import signal
import sys
import threading
import time
import tomllib
from pathlib import Path

import pexpect
import pytest

from harness.chat.terminal import paste_parser
from harness.localapi.server import LocalAPI, Reply, thinking, tool_use
from tests.support.chat import EVER, environment, handed_over, is_compaction, lines
from tests.support.chat import logged_in_full as logged
from tests.support.terminal import Chat, StallingAPI, write_all

LONG = bool(os.environ.get("EVER_LONG_TESTS"))
SUMMARY = "a summary line"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\r")
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
ALT_ENTER = "\x1b\r"  # what a terminal sends for Alt-Enter (or Esc, then Enter)
UP = "\x1b[A"
MESSAGE_CHARS_MAX = 30_000  # [H2] the longest piece of a long text in the log


pytestmark = pytest.mark.local_api(server=StallingAPI)


@pytest.fixture
def local(api):
    api.reset()
    api.responder = lambda body: SUMMARY if is_compaction(body) else "(no reply was queued)"
    yield api
    api.release.set()


def reply(api: LocalAPI, item) -> None:
    api.enqueue(item, when=lambda body: not is_compaction(body))


def turn_requests(api: LocalAPI):
    return [r for r in api.requests if r.body and not is_compaction(r.body) and r.answer != "count_tokens"]


def sent_text(request) -> str:
    """The user's message as a turn request carries it: the first message's last block."""
    return request.body["messages"][0]["content"][-1]["text"]


def sent_view(request) -> str:
    """The view as a turn request carries it: the blocks before the state and the message."""
    return "".join(block["text"] for block in request.body["messages"][0]["content"][:-2])


def records(*pairs):
    """The JSONL fields expected for (kind, text) pairs logged in this order from message 0."""
    return [(i, kind, text, len(text.encode("utf-8"))) for i, (kind, text) in enumerate(pairs)]


@pytest.mark.slow
def test_a_paste_is_one_message_alt_enter_breaks_a_line_up_sends_again_and_typing_during_a_call_waits(
        tmp_path, local):
    pasted = "    indented first line of the paste\nsecond line\n\nfourth, after a blank line"
    slashed = "/etc/hosts is a path, not a command,\nin a paste of two lines"
    typed = ["typed on the first line", "and on the second"]
    question, aside = "a question", "an aside typed while the call runs"
    for answer in ("Got the paste.", "Got the path.", "Got two lines.", "Got them again."):
        reply(local, answer)
    gate = threading.Event()
    reply(local, Reply("Answered the question.", gate=gate))
    reply(local, "Answered the aside.")
    chat = Chat(tmp_path, local)
    try:
        chat.turn(PASTE_START + pasted + PASTE_END + "\r", "Got the paste.")
        chat.turn(PASTE_START + slashed + PASTE_END + "\r", "Got the path.")
        chat.turn(typed[0] + ALT_ENTER + typed[1] + "\r", "Got two lines.")
        chat.turn(UP + "\r", "Got them again.")
        # a message typed while a call runs joins it; the call ends without a tool call, so it
        # never sees the message, which then gets a turn of its own
        chat.send(question + "\r")
        local.wait_for_requests(5, timeout_seconds=60)
        chat.send(aside + "\r")
        chat.expect(re.escape(aside) + r"[^\n]*\n")  # the line accepted
        gate.set()
        chat.expect("Answered the question.")
        chat.turn("", "Answered the aside.")
        chat.leave()
    finally:
        gate.set()
        chat.close()
    two_lines = "\n".join(typed)
    assert logged(tmp_path) == records(
        ("user", pasted), ("ever", "Got the paste."), ("user", slashed), ("ever", "Got the path."),
        ("user", two_lines), ("ever", "Got two lines."), ("user", two_lines), ("ever", "Got them again."),
        ("user", question), ("ever", "Answered the question."), ("user", aside), ("ever", "Answered the aside."))
    assert [sent_text(r) for r in local.requests] == [pasted, slashed, two_lines, two_lines, question, aside]


@pytest.mark.slow
def test_a_scripted_chat_shows_exactly_this_transcript(tmp_path, local):
    reply(local, "Hi! How can I help?")
    reply(local, Reply([thinking("The date tool has it.", "sig-1"), tool_use("date", {"id": 0}, id="d1")]))
    reply(local, "You said hello in message 0.")
    chat = Chat(tmp_path, local)
    try:
        chat.turn("hello\r", "Hi! How can I help?")
        chat.turn("when did I say hello?\r", "You said hello in message 0.")
        chat.expect("›")
        shown = chat.shown()
        chat.leave()
    finally:
        chat.close()
    said = lines(tmp_path)[0]["date"]  # the date the log gave message 0, which the tool reads
    # the cache shares come from the local API's own accounting of each turn's last call
    calls = turn_requests(local)  # the first turn's call, then the second turn's two
    first, second = calls[0].cache, calls[2].cache
    share = [round(100 * c.cache_read_input_tokens / (c.input_tokens + c.cache_creation_input_tokens
                                                      + c.cache_read_input_tokens)) for c in (first, second)]
    # each status line's cost: the turn's last call at Sonnet 4.6's list prices per million
    # tokens, $3 in, $3.75 a 5-minute write, $0.30 a read, $15 out
    # (platform.claude.com/docs/en/about-claude/pricing), to 4 places, half up
    usage = [json.loads(line) for day in sorted((tmp_path / "chat" / "usage").glob("*.jsonl"))
             for line in day.read_text().splitlines()]
    turns = [record for record in usage if record["kind"] == "turn"]
    cost = []
    for record in (turns[0], turns[-1]):
        e8 = (300 * record["input_tokens"] + 375 * record["cache_creation_input_tokens"]
              + 30 * record["cache_read_input_tokens"] + 1500 * record["output_tokens"])
        tenths_of_mills = (e8 + 5000) // 10000
        cost.append(f"${tenths_of_mills // 10000}.{tenths_of_mills % 10000:04d}")
    # the view: "0+1|user: hello\n" 16 bytes and "1+1|ever: Hi! How can I help?\n" 30, then
    # "2+1|user: when did I say hello?\n" 32, the tool call, its result and the reply: under 1K
    assert shown == [
        "Ever · 0 messages · view 14 bytes, 0 lines · /help",  # 14: `<chat>\n</chat>`, as a turn sends it
        "› hello",
        "Hi! How can I help?",
        f"mem 0K/128K · cache {share[0]}% · {cost[0]}",
        "› when did I say hello?",
        "The date tool has it.",
        "· date(0)",
        f"  → {said}",
        "You said hello in message 0.",
        f"mem 0K/128K · cache {share[1]}% · {cost[1]}",
        "›",
    ]
    assert logged(tmp_path) == records(
        ("user", "hello"), ("ever", "Hi! How can I help?"), ("user", "when did I say hello?"),
        ("tool", 'date {"id": 0}'), ("echo", said), ("ever", "You said hello in message 0."))


@pytest.mark.slow
def test_every_chat_command_answers_and_a_bad_one_is_one_line_and_the_chat_goes_on(tmp_path, local):
    editor = tmp_path / "editor"  # missing at first
    wanted = tmp_path / "what-the-editor-writes"
    written = "Written in the editor,\n  over two lines."
    long_message = "A message too long to be its own line. " * 20  # over 512 bytes: compressed
    for answer in ("Hi.", "Read your note.", "Still here.", "Long one read."):
        reply(local, answer)
    chat = Chat(tmp_path, local, EDITOR=str(editor))
    try:
        chat.turn("hello there\r", "Hi.")

        help_rows = chat.answer("/help", "Ctrl-D")
        commands = [row.split()[0] for row in help_rows if row.startswith("/")]
        assert sorted(commands) == ["/agents", "/edit", "/forget", "/help", "/memory", "/memory", "/memory-model",
                                    "/quiet", "/stop", "/tell"]
        assert sum(row.startswith("/memory zoom ID N ") for row in help_rows) == 1
        assert sum("Alt-Enter" in row and "new line" in row for row in help_rows) == 1

        memory_rows = chat.answer("/memory", "</chat>")
        view = ["0+1|user: hello there", "1+1|ever: Hi."]
        assert memory_rows[-4:] == ["<chat>", *view, "</chat>"]
        # each line with its line break, inside `<chat>\n` and `</chat>` (14 bytes), as a turn sends it
        view_bytes = 14 + sum(len(row.encode()) + 1 for row in view)
        assert {"messages: 2", f"view_bytes: {view_bytes}", "view_lines: 2", "shrinking: False",
                "unsummarized: 0", "running: []", "failures: {}"} <= set(memory_rows[:-4])
        assert chat.answer("/memory zoom 1 1", "ever: Hi.") == ["ever: Hi."]
        usage = ["usage: /memory zoom ID N"]
        for bad in ("/memory zoom one 1", "/memory zoom 0", "/memory zoom 0 1 2"):
            assert chat.answer(bad, usage[0]) == usage, bad
        (sentence,) = chat.answer("/memory zoom 0 3", "3")
        assert "power of 2" in sentence
        (sentence,) = chat.answer("/memory zoom 2 1", "2")
        assert "no message 2" in sentence
        (sentence,) = chat.answer("/frobnicate now", "/help")
        assert sentence.startswith("unknown command /frobnicate") and "/help" in sentence
        assert chat.answer("/agents", "yet") == ["No subagents in this chat yet."]
        assert chat.answer("/stop Scout", "running") == ["no subagent named Scout is running"]
        assert chat.answer("/stop", "NAME") == ["usage: /stop NAME"]

        (sentence,) = chat.answer("/edit", "nothing sent")
        assert str(editor) in sentence
        editor.write_text(f'#!/bin/sh\ncat "{wanted}" > "$1"\n')
        editor.chmod(0o700)
        wanted.write_text(written + "\n")  # an editor ends the file with a line break
        chat.turn("/edit\r", "Read your note.")
        wanted.write_text("")
        (sentence,) = chat.answer("/edit", "nothing sent")
        assert "empty" in sentence

        (sentence,) = chat.answer("/memory-model claude-opus-4-6 low", "low")
        assert "claude-opus-4-6" in sentence
        config = tomllib.loads((tmp_path / "config.toml").read_text())
        assert config == {"memory": {"model": "claude-opus-4-6", "thinking": "low"}}
        (sentence,) = chat.answer("/memory-model claude-other lukewarm", "lukewarm")
        assert sentence.startswith("/memory-model") and "memory.thinking" in sentence
        assert tomllib.loads((tmp_path / "config.toml").read_text()) == config
        (sentence,) = chat.answer("/memory-model", "low")
        assert "claude-opus-4-6" in sentence

        chat.turn("are you still there?\r", "Still here.")
        chat.turn(long_message + "\r", "Long one read.")
        chat.leave()
    finally:
        chat.close()
    assert logged(tmp_path) == records(
        ("user", "hello there"), ("ever", "Hi."), ("user", written), ("ever", "Read your note."),
        ("user", "are you still there?"), ("ever", "Still here."), ("user", long_message),
        ("ever", "Long one read."))
    assert [sent_text(r) for r in turn_requests(local)] == [
        "hello there", written, "are you still there?", long_message]
    compactions = [r.body for r in local.requests if r.body and is_compaction(r.body)]
    # the long message's line is built on the model and effort just chosen, without a restart
    assert [(body["model"], body["output_config"]) for body in compactions] == [
        ("claude-opus-4-6", {"effort": "low"})]
    assert long_message in json.dumps(compactions[0]["messages"])


def test_the_paste_parser_reads_what_prompt_toolkits_own_reads_in_reads_of_any_size():
    from prompt_toolkit.input.vt100_parser import Vt100Parser

    typed = ("a" + PASTE_START + "line one\n\x1b[201 is not the end\x1b[201" + PASTE_END + "b"
             + PASTE_START + PASTE_END + PASTE_START + "\x1b[A stays text" + PASTE_END + UP + "\r")
    expected = []
    Vt100Parser(lambda key: expected.append((key.key, key.data))).feed(typed)  # all in one read
    assert [data for key, data in expected if key == "<bracketed-paste>"] == [
        "line one\n\x1b[201 is not the end\x1b[201", "", "\x1b[A stays text"]
    for size in range(1, len(typed) + 1):
        keys = []
        parser = paste_parser(lambda key: keys.append((key.key, key.data)))
        for start in range(0, len(typed), size):
            parser.feed(typed[start:start + size])
        assert keys == expected, size


def peak_memory_kb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1))


@pytest.mark.parametrize("megabytes", [10 if LONG else 1])
@pytest.mark.slow
def test_a_paste_of_megabytes_is_logged_whole_in_pieces_and_the_chat_goes_on(tmp_path, local, megabytes):
    # rows of 66 characters with their line break: a piece holds the rows that end within its
    # first 30,000 characters, 454 of them (29,964 characters: the break is in its second half)
    rows = [f"{k:08d} the quick brown fox jumps over the lazy dog, row by row." for k in
            range(megabytes * 1_000_000 // 66)]
    assert {len(row) + 1 for row in rows} == {66}
    pasted = "\n".join(rows)
    per_piece = MESSAGE_CHARS_MAX // 66
    pieces = ["\n".join(rows[k:k + per_piece]) + "\n" for k in range(0, len(rows), per_piece)]
    pieces[-1] = pieces[-1][:-1]  # the paste ends without a line break
    one_line = "".join(f"{k:05d}," for k in range(70_000 // 6))  # no line break: cut at 30,000
    line_pieces = [one_line[:30_000], one_line[30_000:60_000], one_line[60_000:]]
    reply(local, "Got the rows.")
    reply(local, "Got the long line.")
    reply(local, "Still here.")
    chat = Chat(tmp_path, local)
    try:
        began = time.monotonic()
        writer = write_all(chat.child.child_fd, (PASTE_START + pasted + PASTE_END + "\r").encode())
        chat.turn("", "Got the rows.", timeout=60 + 60 * megabytes)
        seconds = time.monotonic() - began
        writer.join()
        chat.turn(PASTE_START + one_line + PASTE_END + "\r", "Got the long line.")
        chat.turn("still there?\r", "Still here.")
        peak_kb = peak_memory_kb(chat.child.pid)
        chat.leave()
    finally:
        chat.close()
    print(f"\n{megabytes} MB paste: the reply after {seconds:.1f} s; the chat's peak memory "
          f"{peak_kb / 1000:.0f} MB", file=sys.stderr)
    assert logged(tmp_path) == records(
        *[("user", piece) for piece in pieces], ("ever", "Got the rows."),
        *[("user", piece) for piece in line_pieces], ("ever", "Got the long line."),
        ("user", "still there?"), ("ever", "Still here."))
    assert [sent_text(r) for r in turn_requests(local)] == [pasted, one_line, "still there?"]


MESSAGE_BYTES_MAX = 10_000_000  # [S12] docs/decisions.md: the most one message may hold
SOCKET_LINE_BYTES_MAX = 64 << 20  # a request line the chat's socket reads (harness/chat/owner.py)


@pytest.mark.slow
def test_a_paste_or_a_hand_over_past_the_message_limit_is_one_sentence_and_the_next_line_gets_through(
        tmp_path, local):
    """A paste one byte past the limit, a text one byte past it handed over the socket, and a
    socket line past what the socket reads at all: each refused in one sentence, nothing logged,
    no traceback and no "Press ENTER"; a line typed after gets its reply."""
    # rows of 80 bytes, as a pasted log has them, and one byte more
    too_long = "".join(f"{k:08d} of the rows of a long paste, each 80 bytes with its line break........\n"
                       for k in range(MESSAGE_BYTES_MAX // 80)) + "!"
    assert len(too_long.encode()) == MESSAGE_BYTES_MAX + 1
    reply(local, "Got the short one.")
    chat = Chat(tmp_path, local)
    try:
        writer = write_all(chat.child.child_fd, (PASTE_START + too_long + PASTE_END + "\r").encode())
        chat.expect(r"more than 10,000,000 bytes \(10,000,001 or more\)[^\n]*\n", timeout=120)
        writer.join(30)
        request = {"op": "send", "text": too_long, "key": "too-long-1", "yes": False}
        answer = handed_over(tmp_path, json.dumps(request).encode() + b"\n")
        assert answer.get("logged") is False and "more than 10,000,000 bytes" in answer["error"], answer
        # past the socket's own line limit: read in bounded memory, answered, the chat unharmed
        answer = handed_over(tmp_path, b'{"op": "send", "text": "' + b"x" * SOCKET_LINE_BYTES_MAX + b'"}\n')
        assert answer.get("logged") is False and "bytes" in answer["error"], answer
        chat.turn("a short one\r", "Got the short one.")
        chat.leave()
    finally:
        chat.close()
    screen, printed = "\n".join(chat.shown()), "".join(chat.printed)
    for bad in ("Traceback", "Press ENTER", "Unhandled exception"):
        assert bad not in printed, printed[printed.index(bad) - 2000:][:4000]
    refusals = [row for row in chat.shown() if "more than 10,000,000 bytes" in row]
    assert len(refusals) == 1 and "nothing was logged" in refusals[0], screen
    assert logged(tmp_path) == records(("user", "a short one"), ("ever", "Got the short one."))
    assert [sent_text(r) for r in turn_requests(local)] == ["a short one"]


@pytest.mark.slow
def test_the_terminal_stays_raw_while_a_reply_prints_so_a_ctrl_d_typed_then_leaves(tmp_path, local):
    """While a long reply streams, the terminal is never put in cooked mode (where the line
    discipline would take a Ctrl-D as end of file and a Ctrl-C as a signal, and echo keys into the
    reply); a Ctrl-D typed as the reply ends reaches the chat, which leaves."""
    import termios

    text = "".join(f"row {k:04d} of a reply long enough to print for a while.\n" for k in range(1500))
    reply(local, text)
    chat = Chat(tmp_path, local)
    seen_cooked, watching = [], threading.Event()
    started = 0.0

    def watch() -> None:
        # a pty's two ends share one set of modes: the master end reads the chat's
        while watching.is_set():
            try:
                local_modes = termios.tcgetattr(chat.child.child_fd)[3]
            except termios.error:
                return
            if local_modes & termios.ICANON:
                seen_cooked.append((round(time.monotonic() - started, 4), local_modes))
            time.sleep(0.0005)

    watching.set()
    watcher = threading.Thread(target=watch, daemon=True)
    try:
        chat.send("print a long reply\r")
        chat.expect(r"row 0000 of a reply")
        started = time.monotonic()
        watcher.start()
        chat.expect(r"row 1499 of a reply")
        watching.clear()  # the chat gives the terminal back cooked as it leaves
        watcher.join(10)
        chat.send("\x04")  # Ctrl-D while the last rows and the status line print
        chat.expect(pexpect.EOF, timeout=60)
        chat.child.close()
        assert chat.child.exitstatus == 0
    finally:
        watching.clear()
        chat.close()
    assert not seen_cooked, f"cooked {len(seen_cooked)} times as the reply printed (s, lflag): {seen_cooked[:3]}"
    assert logged(tmp_path)[:1] == records(("user", "print a long reply"))


@pytest.mark.slow
def test_kill_9_mid_reply_leaves_the_message_unanswered_and_the_next_chat_answers_it(tmp_path, local):
    first, second = "a question the killed chat never answers", "are you back?"
    local.stall(5)  # message_start, content_block_start, ping, then two text deltas of 24 characters
    reply(local, "The first line streams.\nThe rest never comes.")
    reply(local, "Your question, answered at last.")
    reply(local, "Back, and I see your question.")
    chat = Chat(tmp_path, local)
    try:
        # a second chat started while this one runs attaches to it [R3], and leaving it (Ctrl-D)
        # stops nothing
        other = pexpect.spawn(EVER, ["chat"], env=environment(tmp_path, local), encoding="utf-8",
                              timeout=60, dimensions=(40, 160))
        chat.send(first + "\r")
        chat.expect("The first line streams.")
        other.expect("attached to the running chat")
        other.expect("›")  # the line editor listens: a Ctrl-D sent before would be the tty's
        other.sendcontrol("d")
        other.expect(pexpect.EOF)
        other.close()
        assert other.exitstatus == 0

        killed = chat.child.pid
        os.kill(killed, signal.SIGKILL)
        chat.expect(pexpect.EOF)
    finally:
        chat.close()
        local.release.set()
    assert chat.child.signalstatus == signal.SIGKILL
    assert logged(tmp_path) == records(("user", first))

    chat = Chat(tmp_path, local)
    try:
        # it opens without asking, and says whose lock it took over
        assert sum(f"process {killed} ended" in row for row in chat.opening) == 1
        # the accepted message is answered once, at open, and not logged again [S9]
        chat.expect("Your question, answered at last.")
        chat.turn(second + "\r", "Back, and I see your question.")
        chat.leave()
    finally:
        chat.close()
    assert logged(tmp_path) == records(
        ("user", first), ("ever", "Your question, answered at last."),
        ("user", second), ("ever", "Back, and I see your question."))
    resumed, last = turn_requests(local)[-2:]
    assert sent_text(resumed) == first
    assert sent_text(last) == second
    assert sent_view(last) == (f"<chat>\n0+1|user: {first}\n1+1|ever: Your question, answered at last.\n"
                               "</chat>")


@pytest.mark.slow
def test_ever_chat_local_runs_with_no_key_on_the_local_api_in_a_chat_of_its_own(tmp_path):
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVER_"))}
    environ.update(EVER_HOME=str(tmp_path), PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm")
    environ.pop("VISUAL", None)
    child = pexpect.spawn(EVER, ["chat", "--local"], env=environ, encoding="utf-8", timeout=60,
                          dimensions=(40, 160))
    try:
        child.expect("Demo: no model and no key")
        child.expect(re.escape(str(tmp_path / "demo")))
        child.expect("›")
        child.send("hello from the demo\r")
        child.expect(re.escape("(local API, no model) You said: hello from the demo"))
        child.expect(r"mem \d+K/128K · cache [^\r\n]* · free: a local echo")  # no price for an echo
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert [(r["kind"], r["text"]) for r in lines(tmp_path / "demo")] == [
        ("user", "hello from the demo"), ("ever", "(local API, no model) You said: hello from the demo")]
    assert not (tmp_path / "chat").exists()  # the user's own chat is untouched
