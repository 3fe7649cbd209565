"""Strategy: each work tool runs for real in a temporary directory (the shell tool runs real bash
commands), and each result is compared with the whole text it must be, written out by hand. The
clip and split sizes are worked out by hand from the rule in harness/calls/tools.py's docstring (the
note's length counted character by character in the comments). The key is planted in the
environment under its own name and under another, and `env` must show neither. Every failure and
refusal must come back as a result with is_error set, never as an exception.
"""

import base64
import os
import signal
import struct
import time
import zlib

import pytest

from harness.calls.approval import Answer, Approval, approval_summary
from harness.calls.arguments import date_error, zoom_error
from harness.calls.shell import child_environment
from harness.calls.tools import WorkTools
from harness.memory.images import ToolResult
from harness.memory.text import clip_output, split_long

KEY = "sk-ant-test-0123456789abcdef"
DIGITS = "0123456789" * 5000  # 50,000 characters, each place readable


def tools(tmp_path, approval=None, **options):
    environ = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    environ.update(options.pop("environ", {}))
    return WorkTools(tmp_path, approval or Approval(yes=True), secrets=[KEY], environ=environ,
                     **options)


def only_text(result):
    assert len(result.content) == 1
    return result.content[0]["text"]


# --- clipping and splitting ------------------------------------------------------------------


def test_a_short_output_is_not_clipped():
    assert clip_output("a" * 100, 100) == "a" * 100


def test_clipping_keeps_head_and_tail_around_the_exact_note():
    text = "".join(chr(ord("a") + k % 26) for k in range(250))
    # "\n[... 192 of 250 characters cut here ...]\n" is 1+5+3+4+3+25+1 = 42 characters, so
    # 100 - 42 = 58 are kept, 250 - 58 = 192 cut: 29 of the head, 29 of the tail.
    expected = text[:29] + "\n[... 192 of 250 characters cut here ...]\n" + text[-29:]
    assert clip_output(text, 100) == expected
    assert len(expected) == 100


def test_the_note_grows_until_its_own_number_fits():
    text = DIGITS[:101]
    # Cutting 1 would need a 40-character note, which cuts 41; "41" makes it 41 characters,
    # cutting 42; "42" keeps the note at 41: 59 kept, 30 of the head and 29 of the tail.
    expected = text[:30] + "\n[... 42 of 101 characters cut here ...]\n" + text[-29:]
    assert clip_output(text, 100) == expected


def test_a_tool_output_is_clipped_to_30000_characters_in_all():
    # the note "\n[... 20,048 of 50,000 characters cut here ...]\n" is 1+5+6+4+6+25+1 = 48
    # characters: 29,952 kept, 14,976 on each side
    expected = (DIGITS[:14976] + "\n[... 20,048 of 50,000 characters cut here ...]\n"
                + DIGITS[-14976:])
    assert clip_output(DIGITS) == expected
    assert len(expected) == 30000


def test_a_long_text_is_split_into_pieces_that_join_back_exactly():
    text = "x" * 70000
    assert [len(piece) for piece in split_long(text)] == [30000, 30000, 10000]
    assert "".join(split_long(text)) == text
    assert split_long("y" * 30000) == ["y" * 30000]


def test_a_piece_ends_after_a_line_break_in_its_second_half():
    assert split_long("aaaaaaa\nbbbbbbb\n", 10) == ["aaaaaaa\n", "bbbbbbb\n"]
    # the only break is in the first half (index 4 < 5): the piece is cut at 10
    assert split_long("aaaa\nbbbbbbbb\ncc", 10) == ["aaaa\nbbbbb", "bbb\ncc"]


# --- zoom and date ---------------------------------------------------------------------------


@pytest.mark.parametrize("id, n", [(0, 1), (9, 1), (0, 8), (8, 2), (4, 4)])
def test_zoom_accepts_every_line_of_the_tree_within_the_chat(id, n):
    assert zoom_error(id, n, 10) is None


@pytest.mark.parametrize("id, n, T, message", [
    (0, 3, 10, "zoom: n must be a power of 2 (1, 2, 4, 8, ...); got 3."),
    (0, 0, 10, "zoom: n must be a power of 2 (1, 2, 4, 8, ...); got 0."),
    (0, -2, 10, "zoom: n must be a power of 2 (1, 2, 4, 8, ...); got -2."),
    (6, 4, 10, "zoom: id must be a multiple of n; 6 is not a multiple of 4. "
               "The line of 4 that holds message 6 is 4+4."),
    (10, 1, 10, "zoom: message 10 does not exist; the chat has messages 0 to 9."),
    (16, 8, 10, "zoom: message 16 does not exist; the chat has messages 0 to 9."),
    (0, 1, 0, "zoom: message 0 does not exist; the chat has no messages yet."),
    (-4, 4, 10, "zoom: id must be 0 or more; got -4."),
    (8, 4, 10, "zoom: line 8+4 would cover messages 8 to 11, but the chat has messages 0 to 9."),
    (0, 16, 10, "zoom: line 0+16 would cover messages 0 to 15, but the chat has messages 0 to 9."),
    ("4", 4, 10, "zoom: id must be a whole number; got '4'."),
    (4.0, 4, 10, "zoom: id must be a whole number; got 4.0."),
    (True, 1, 10, "zoom: id must be a whole number; got True."),
    (None, 1, 10, "zoom: id is missing; give it as a whole number."),
    (0, None, 10, "zoom: n is missing; give it as a whole number."),
])
def test_zoom_arguments_outside_the_tree_are_a_clear_error(id, n, T, message):
    assert zoom_error(id, n, T) == message


@pytest.mark.parametrize("id, message", [
    (9, None),
    (0, None),
    (10, "date: message 10 does not exist; the chat has messages 0 to 9."),
    (-1, "date: id must be 0 or more; got -1."),
    ("x", "date: id must be a whole number; got 'x'."),
])
def test_date_takes_the_id_of_a_message_of_the_chat(id, message):
    assert date_error(id, 10) == message


# --- shell -----------------------------------------------------------------------------------


def test_the_shell_environment_holds_no_key(tmp_path):
    environ = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_AUTH_TOKEN": KEY, "COPIED": f"Bearer {KEY}",
               "KEEP_ME": "1"}
    text = only_text(tools(tmp_path, environ=environ).run("shell", {"command": "env"}))
    assert "KEEP_ME=1" in text
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "COPIED"):
        assert name not in text
    # absent, not hidden: the output never held the key
    assert "<API key hidden>" not in text
    assert KEY not in text


def test_child_environment_drops_the_key_by_name_and_by_value():
    environ = {"ANTHROPIC_API_KEY": KEY, "X": f"a{KEY}b", "Y": "y", "ANTHROPIC_BASE_URL": "u"}
    assert child_environment(environ, [KEY]) == {"Y": "y", "ANTHROPIC_BASE_URL": "u"}
    # by name even when it holds another key than the one Ever uses
    assert child_environment({"ANTHROPIC_API_KEY": "sk-other", "Y": "y"}, [KEY]) == {"Y": "y"}


def test_a_command_gives_its_exit_code_stdout_and_stderr(tmp_path):
    result = tools(tmp_path).run("shell", {"command": "pwd; echo oops >&2; exit 3"})
    assert result == ToolResult(({"type": "text", "text": (
        f"exit code 3\n--- stdout ---\n{tmp_path}\n\n--- stderr ---\noops\n")},), False)
    assert only_text(tools(tmp_path).run("shell", {"command": "true"})) == "exit code 0\n(no output)"


def test_a_printed_key_is_hidden_in_the_result(tmp_path):
    (tmp_path / "notes").write_text(f"the key is {KEY}\n")
    shell = only_text(tools(tmp_path).run("shell", {"command": "cat notes"}))
    assert shell == "exit code 0\n--- stdout ---\nthe key is <API key hidden>\n"
    read = only_text(tools(tmp_path).run("read", {"path": "notes"}))
    assert read == "     1\tthe key is <API key hidden>\n"


def test_a_command_past_its_timeout_is_stopped_with_its_children(tmp_path):
    work = tools(tmp_path, shell_timeout_seconds=1)
    result = work.run("shell", {"command": "sleep 30 & echo $! > child; echo started; wait"})
    assert result.is_error
    assert only_text(result) == ("timed out after 1 s: the command and its processes were "
                                 "stopped (exit code -9)\n--- stdout ---\nstarted\n")
    wait_until_gone(int((tmp_path / "child").read_text()))


def wait_until_gone(pid):
    for _ in range(100):  # the kill is sent; the process's end is reaped a moment later
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().split(") ")[1].startswith("Z"):
                    return
        except FileNotFoundError:
            return
        time.sleep(0.01)
    pytest.fail(f"process {pid} outlived its command")


def test_ctrl_c_stops_the_running_command_and_its_children(tmp_path):
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        with pytest.raises(KeyboardInterrupt):
            tools(tmp_path).run("shell", {"command": "sleep 30 & echo $! > child; wait"})
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    wait_until_gone(int((tmp_path / "child").read_text()))


def test_a_background_child_holding_the_output_does_not_hold_the_turn(tmp_path):
    work = tools(tmp_path, shell_timeout_seconds=30, shell_linger_seconds=0.2)
    started = time.monotonic()
    result = work.run("shell", {"command": "sleep 30 & echo started"})
    assert only_text(result) == "exit code 0\n--- stdout ---\nstarted\n"
    assert time.monotonic() - started < 10  # far below the 30 s the child sleeps


def test_each_stream_keeps_its_head_and_tail_within_30000_in_all(tmp_path):
    command = "head -c 100000 /dev/zero | tr '\\0' a; printf 'E\\n' >&2"
    text = only_text(tools(tmp_path).run("shell", {"command": command}))
    # header 11 + two labels of 16 leave 29,957; stderr keeps its 2, stdout gets 29,955.
    # "\n[... 70,094 of 100,000 characters cut here ...]\n" is 1+5+6+4+7+25+1 = 49:
    # 29,906 kept, 14,953 on each side, 70,094 cut.
    assert text == ("exit code 0\n--- stdout ---\n" + "a" * 14953
                    + "\n[... 70,094 of 100,000 characters cut here ...]\n" + "a" * 14953
                    + "\n--- stderr ---\nE\n")
    assert len(text) == 30000


def test_output_too_long_to_keep_says_how_many_bytes_were_never_read(tmp_path):
    command = "head -c 1000000 /dev/zero | tr '\\0' b"
    text = only_text(tools(tmp_path).run("shell", {"command": command}))
    # 120,000 bytes of head and 120,000 of tail are kept: 760,000 never read, 240,000 characters.
    # header 11 + label 16 leave 29,973. The note
    # "\n[... 210,111 characters cut here, and 760,000 more bytes that were never read ...]\n"
    # is 1+5+7+26+7+37+1 = 84: 29,889 kept (14,945 head, 14,944 tail), 210,111 cut.
    assert text == ("exit code 0\n--- stdout ---\n" + "b" * 14945
                    + "\n[... 210,111 characters cut here, and 760,000 more bytes that were "
                      "never read ...]\n" + "b" * 14944)


# --- read, write, edit -----------------------------------------------------------------------


def test_read_gives_a_line_range_with_line_numbers(tmp_path):
    (tmp_path / "f.txt").write_text("one\ntwo\r\nthree\nfour\nfive\n")
    work = tools(tmp_path)
    assert only_text(work.run("read", {"path": "f.txt", "offset": 2, "limit": 2})) == (
        "     2\ttwo\n     3\tthree\n[lines 2 to 3 of 5; read on with offset 4]")
    assert only_text(work.run("read", {"path": "f.txt", "offset": 4})) == (
        "     4\tfour\n     5\tfive\n[lines 4 to 5 of 5]")
    assert only_text(work.run("read", {"path": str(tmp_path / "f.txt")})) == (
        "     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour\n     5\tfive\n")
    past = work.run("read", {"path": "f.txt", "offset": 9})
    assert past.is_error
    assert only_text(past) == "read: f.txt has 5 lines; offset 9 is past its end."


def png_1x1():
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1x1, 8-bit RGB
    pixels = zlib.compress(b"\x00\xff\x00\x00")  # filter 0, one red pixel
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels)
            + chunk(b"IEND", b""))


def test_reading_an_image_gives_an_image_block(tmp_path):
    data = png_1x1()
    (tmp_path / "red.png").write_bytes(data)
    result = tools(tmp_path).run("read", {"path": "red.png"})
    assert not result.is_error
    assert result.content == (
        {"type": "text", "text": f"red.png: image/png, {len(data)} bytes"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                     "data": base64.b64encode(data).decode("ascii")}},
    )
    assert result.block("toolu_1") == {"type": "tool_result", "tool_use_id": "toolu_1",
                                       "content": list(result.content)}
    (tmp_path / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 20)
    jpeg = tools(tmp_path).run("read", {"path": "photo.jpg"})
    assert jpeg.images()[0]["source"]["media_type"] == "image/jpeg"


@pytest.mark.parametrize("make, tool_input, message", [
    (lambda p: (p / "blob").write_bytes(b"\x00\x01\x02"), {"path": "blob"},
     "read: blob is a binary file (3 bytes); read shows text files and PNG, JPEG, GIF and WebP "
     "images."),
    (lambda p: (p / "d").mkdir(), {"path": "d"}, "read: d is a directory; list it with shell."),
    (lambda p: None, {"path": "nothing"}, "read failed: No such file or directory ({p}/nothing)."),
    (lambda p: None, {"path": 3}, "read: path must be a string; got 3."),
    (lambda p: None, {}, "read: path is missing."),
    (lambda p: None, {"path": "f", "lines": 3},
     "read: there is no input 'lines'; it takes path, offset, limit."),
    (lambda p: None, {"path": "f", "offset": 0}, "read: offset must be at least 1; got 0."),
])
def test_read_failures_are_tool_errors(tmp_path, make, tool_input, message):
    make(tmp_path)
    result = tools(tmp_path).run("read", tool_input)
    assert result == ToolResult(({"type": "text", "text": message.format(p=tmp_path)},), True)


def test_write_creates_and_replaces_files(tmp_path):
    work = tools(tmp_path)
    assert only_text(work.run("write", {"path": "sub/new.txt", "content": "héllo\n"})) == (
        "created sub/new.txt (7 bytes)")
    assert (tmp_path / "sub/new.txt").read_text() == "héllo\n"
    assert only_text(work.run("write", {"path": "sub/new.txt", "content": ""})) == (
        "replaced sub/new.txt (0 bytes)")
    assert (tmp_path / "sub/new.txt").read_text() == ""


def test_edit_replaces_text_that_occurs_exactly_once(tmp_path):
    path = tmp_path / "code.py"
    path.write_text("a = 1\nb = 2\nc = 1\n")
    work = tools(tmp_path)
    assert only_text(work.run("edit", {"path": "code.py", "old_text": "b = 2",
                                       "new_text": "b = 3"})) == "edited code.py at line 2"
    assert path.read_text() == "a = 1\nb = 3\nc = 1\n"


@pytest.mark.parametrize("old, new, message", [
    ("d = 4", "d = 5", "edit: old_text does not occur in code.py; read the file and copy the "
                       "text exactly, spaces and line breaks included."),
    (" = 1", " = 9", "edit: old_text occurs 2 times in code.py; include more of the text around "
                     "it so that it occurs exactly once."),
    ("", "x", "edit: old_text is empty; give the exact text to replace."),
    ("a = 1", "a = 1", "edit: old_text and new_text are the same; nothing to change."),
])
def test_edit_refuses_text_that_is_absent_or_ambiguous(tmp_path, old, new, message):
    path = tmp_path / "code.py"
    path.write_text("a = 1\nb = 2\nc = 1\n")
    result = tools(tmp_path).run("edit", {"path": "code.py", "old_text": old, "new_text": new})
    assert result == ToolResult(({"type": "text", "text": message},), True)
    assert path.read_text() == "a = 1\nb = 2\nc = 1\n"


def test_edit_matches_across_windows_line_ends(tmp_path):
    path = tmp_path / "w.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    result = tools(tmp_path).run("edit", {"path": "w.txt", "old_text": "two\nthree",
                                          "new_text": "2\n3"})
    assert only_text(result) == "edited w.txt at line 2"
    assert path.read_bytes() == b"one\r\n2\r\n3\r\n"


# --- approval and failures -------------------------------------------------------------------


def test_a_caller_that_cannot_ask_declines_with_a_result_saying_so(tmp_path):
    result = tools(tmp_path, Approval()).run("shell", {"command": "touch ran"})
    assert result == ToolResult(({"type": "text", "text": (
        "Not run: shell asks the user first, and this run cannot ask (it was sent with "
        "`ever send` without --yes). Tell the user what you meant to do; they can allow it "
        "with --yes, or with approve = [\"shell\"] in config.toml.")},), True)
    assert not (tmp_path / "ran").exists()


def test_the_user_is_asked_and_always_holds_for_that_tool_only(tmp_path):
    asked = []
    answers = iter([Answer.NO, Answer.YES, Answer.ALWAYS, Answer.NO])

    def ask(name, tool_input):
        asked.append((name, dict(tool_input)))
        return next(answers)

    work = tools(tmp_path, Approval(ask=ask))
    declined = work.run("write", {"path": "a", "content": "1"})
    assert declined == ToolResult(({"type": "text",
                                    "text": "Not run: the user declined this write call."},), True)
    assert not (tmp_path / "a").exists()
    assert not work.run("write", {"path": "a", "content": "2"}).is_error  # yes: once
    assert not work.run("write", {"path": "a", "content": "3"}).is_error  # always
    assert not work.run("write", {"path": "a", "content": "4"}).is_error  # not asked
    assert not work.run("read", {"path": "a"}).is_error  # read never asks
    assert work.run("edit", {"path": "a", "old_text": "4", "new_text": "5"}).is_error  # no
    assert asked == [("write", {"path": "a", "content": "1"}),
                     ("write", {"path": "a", "content": "2"}),
                     ("write", {"path": "a", "content": "3"}),
                     ("edit", {"path": "a", "old_text": "4", "new_text": "5"})]
    assert (tmp_path / "a").read_text() == "4"


def test_the_question_says_what_the_call_would_do():
    assert approval_summary("shell", {"command": "make test"}) == "shell: make test"
    assert approval_summary("write", {"path": "a.txt", "content": "é" * 600}) == (
        "write: a.txt (1,200 bytes)")
    assert approval_summary("edit", {"path": "b.py", "old_text": "x", "new_text": "y"}) == (
        "edit: b.py")


def test_tools_allowed_in_the_config_do_not_ask(tmp_path):
    def ask(name, tool_input):
        raise AssertionError("asked")

    work = tools(tmp_path, Approval(allowed=["write"], ask=ask))
    assert only_text(work.run("write", {"path": "b", "content": ""})) == "created b (0 bytes)"


def test_an_input_the_user_cannot_answer_declines(tmp_path):
    def ask(name, tool_input):
        raise EOFError

    result = tools(tmp_path, Approval(ask=ask)).run("shell", {"command": "touch ran"})
    assert only_text(result) == "Not run: the user declined this shell call."
    assert not (tmp_path / "ran").exists()


@pytest.mark.parametrize("name, tool_input, message", [
    ("rm", {}, "There is no tool 'rm'."),
    ("shell", ["ls"], "shell: the input must be a JSON object."),
    ("shell", {"command": "  "}, "shell: command is empty."),
    ("shell", {"command": "ls", "timeout_seconds": 601},
     "shell: timeout_seconds must be at most 600; got 601."),
    ("shell", {"command": "ls", "timeout_seconds": True},
     "shell: timeout_seconds must be a whole number; got True."),
    ("write", {"path": "", "content": ""}, "write: path is empty."),
    # x is a file, so its "directory" cannot be made
    ("write", {"path": "x/y", "content": "z"}, "write failed: File exists ({p}/x)."),
    ("edit", {"path": "nothing", "old_text": "a", "new_text": "b"},
     "edit failed: No such file or directory ({p}/nothing)."),
])
def test_a_failed_tool_is_a_result_not_an_exception(tmp_path, name, tool_input, message):
    (tmp_path / "x").write_text("a file, not a directory")
    result = tools(tmp_path).run(name, tool_input)
    assert result == ToolResult(({"type": "text", "text": message.format(p=tmp_path)},), True)
