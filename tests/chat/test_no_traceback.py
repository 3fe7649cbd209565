"""Strategy: never a traceback. Every `ever` command runs against a battery
of damaged homes and bad inputs — each item's cases and more — and every chat command against bad
arguments in a pseudo-terminal; the test fails on any traceback, on the catch-all's "a bug in Ever"
sentence (an error nobody wrote a sentence for), on more than one line of error, and on an exit
code other than 0 (it worked) or 1 (one sentence said why) — 2 is click's own usage error, and
`ever send` may also exit 3 (kept, not answered) or 4 (nothing kept, safe to resend).

The commands run in this process through click's test runner (a subprocess per run would cost a
second each: the battery is hundreds of runs), against the local Messages API through the real
SDK; `ever chat` runs in a pseudo-terminal, as a person uses it. A traceback is caught either way:
the runner keeps any exception that escaped the command, and the terminal's screen is read.
"""

import io
import json
import os
import re
import shutil
import traceback
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.chat.cli import BUG, main
from harness.localapi.server import LocalAPI, status_error
from tests.support.chat import is_compaction

KEY = "sk-ant-api03-" + "Hq3Vd8Tn5Bc1" * 7
TURN_REPLY = "Answered."


def answer(body: dict) -> str:
    return "a summary line" if is_compaction(body) else TURN_REPLY


pytestmark = pytest.mark.local_api(responder=answer)


def env_for(home: Path, api: LocalAPI, **extra) -> dict:
    environ = {name: None for name in os.environ if name.startswith(("ANTHROPIC_", "EVER_"))}
    environ.update(EVER_HOME=str(home), ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY=KEY,
                   EVER_MODEL="claude-sonnet-4-6", EDITOR=None, VISUAL=None)
    environ.update(extra)
    return environ


def run(args, environ, stdin=None):
    """One `ever` command; (exit code, stdout, stderr), failing on any escaped exception."""
    result = CliRunner().invoke(main, args, env=environ, input=stdin, catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        trace = "".join(traceback.format_exception(*result.exc_info))
        pytest.fail(f"ever {' '.join(args)} raised:\n{trace}")
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def seeded(shared_api, tmp_path_factory) -> Path:
    """A home with a few messages, a long one among them, and their usage: what each damage starts from."""
    home = tmp_path_factory.mktemp("seed") / "home"
    for text in ("hello", "x" * 700, "third"):
        code, out, err = run(["send", text], env_for(home, shared_api))
        assert (code, out, err) == (0, TURN_REPLY + "\n", "")
    return home


def write(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data)


def replace_with_dir(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()
    path.mkdir(parents=True)


def replace_with_file(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    path.write_text("not a directory\n")


def first_log(home: Path, folder: str = "main") -> Path:
    return sorted((home / "chat" / folder).glob("*.jsonl"))[0]


def append_bytes(path: Path, data: bytes) -> None:
    with open(path, "ab") as file:
        file.write(data)


def garble_line(path: Path, number: int, make) -> None:
    lines = path.read_bytes().split(b"\n")
    lines[number - 1] = make(lines[number - 1])
    path.write_bytes(b"\n".join(lines))


def cut_tail(path: Path, into_last_line: int) -> None:
    """The file cut `into_last_line` bytes into its last line (0: the last line gone whole)."""
    data = path.read_bytes()
    os.truncate(path, data.rstrip(b"\n").rfind(b"\n") + 1 + into_last_line)


# Each damage takes the seeded home's copy and breaks it one way.
DAMAGES = {
    "intact": lambda home: None,
    "home is a file": lambda home: (shutil.rmtree(home), home.write_text("a file\n")),
    "home is missing": lambda home: shutil.rmtree(home),
    "home writable by others": lambda home: os.chmod(home, 0o777),
    "config not TOML": lambda home: write(home / "config.toml", "model = \n[[[\n"),
    "config not UTF-8": lambda home: write(home / "config.toml", b'model = "\xff\xfe"\n'),
    "config a directory": lambda home: replace_with_dir(home / "config.toml"),
    "config unknown key": lambda home: write(home / "config.toml", 'modle = "x"\n'),
    "config wrong type": lambda home: write(home / "config.toml", "approve = 3\n[memory]\nthinking = 7\n"),
    "config base_url without scheme": lambda home: write(home / "config.toml", 'base_url = "localhost:1"\n'),
    "config base_url unreachable": lambda home: write(home / "config.toml", 'base_url = "http://127.0.0.1:9"\n'),
    "instructions a directory": lambda home: replace_with_dir(home / "instructions.md"),
    "instructions not UTF-8": lambda home: write(home / "instructions.md", b"\xff\xfe\x00bad\n"),
    "key a directory": lambda home: replace_with_dir(home / "key"),
    "chat is a file": lambda home: replace_with_file(home / "chat"),
    "main is a file": lambda home: replace_with_file(home / "chat" / "main"),
    "log line torn": lambda home: append_bytes(first_log(home), b'{"i": 3, "kind": "us'),
    "log line not JSON": lambda home: append_bytes(first_log(home), b"not json at all\n"),
    "log line not UTF-8": lambda home: append_bytes(first_log(home), b'{"i": 3, "text": "\xff"}\n'),
    "log line wrong shape": lambda home: append_bytes(first_log(home), b"[1, 2, 3]\n"),
    "log a directory": lambda home: replace_with_dir(first_log(home)),
    # [S13] a line garbled in the middle, a byte changed inside a text, the newest day file cut
    "log line garbled mid-file": lambda home: garble_line(first_log(home), 2, lambda line: b"\x00\x17" + line[9:]),
    "log text damaged": lambda home: garble_line(first_log(home), 2,
                                                 lambda line: line.replace(b'"text":"x', b'"text":"\x00"')),
    "log cut mid-message": lambda home: cut_tail(sorted((home / "chat" / "main").glob("*.jsonl"))[-1], 30),
    "log cut at a line's end": lambda home: cut_tail(sorted((home / "chat" / "main").glob("*.jsonl"))[-1], 0),
    "tree line torn": lambda home: append_bytes(first_log(home, "tree"), b'{"l": 1, "i"'),
    "view.json {}": lambda home: write(home / "chat" / "view.json", "{}"),
    "view.json a list": lambda home: write(home / "chat" / "view.json", "[]"),
    "view.json not JSON": lambda home: write(home / "chat" / "view.json", "{{{"),
    "view.json T past the log": lambda home: write(
        home / "chat" / "view.json",
        json.dumps(dict(json.loads((home / "chat" / "view.json").read_text()), T=10_000))),
    "view.json a directory": lambda home: replace_with_dir(home / "chat" / "view.json"),
    "view.json a FIFO": lambda home: ((home / "chat" / "view.json").unlink(),
                                      os.mkfifo(home / "chat" / "view.json")),
    "view.json a link to /dev/zero": lambda home: ((home / "chat" / "view.json").unlink(),
                                                   (home / "chat" / "view.json").symlink_to("/dev/zero")),
    "view.json nested 100,000 deep": lambda home: write(home / "chat" / "view.json", "[" * 100_000),
    "usage line not JSON": lambda home: append_bytes(first_log(home, "usage"), b"{oops\n"),
    "usage is a file": lambda home: replace_with_file(home / "chat" / "usage"),
    "socket a stale file": lambda home: write(home / "chat" / "socket", "stale\n"),
    "lock a directory": lambda home: replace_with_dir(home / "chat" / "lock"),
    "history a directory": lambda home: replace_with_dir(home / "history"),
}

COMMANDS = [
    ["send", "hello"],
    ["send", "-"],
    ["memory", "status"],
    ["memory", "view"],
    ["memory", "zoom", "0", "1"],
    ["memory", "zoom", "0+2"],
    ["log"],
    ["cost"],
    ["cost", "--json"],
    ["agents"],
    ["agents", "--json"],
    ["browse", "--out", "{tmp}/page.html"],
    ["import", "--yes", "{tmp}/notes.md"],
    ["doctor"],
    ["doctor", "--repair"],
    ["doctor", "--repair", "--yes"],
    ["log"],
]


DAMAGE_SAID = re.compile(r"ever: [^\n]*: `ever doctor` says what is damaged, and `ever doctor --repair` sets it "
                        r"aside\.\n\Z")


def check(args, code, out, err) -> None:
    where = f"ever {' '.join(args)}"
    assert "Traceback" not in out + err, where
    assert BUG not in err, f"{where}: {err}"
    # `ever send` says what became of the message: 3 kept and not answered, 4 nothing kept [S9]
    assert code in ((0, 1, 2, 3, 4) if args[:1] == ["send"] else (0, 1, 2)), f"{where}: exit {code}"
    # damage in the logs is said in a sentence of its own, once, before what the command says [S13]
    damage = [line for line in err.splitlines(keepends=True) if DAMAGE_SAID.match(line)]
    assert len(damage) <= 1, f"{where}: {err!r}"
    err = err.replace(damage[0], "", 1) if damage else err
    if code in (1, 3, 4):
        assert err.startswith("ever: ") and err.count("\n") == 1, f"{where}: {err!r}"
    assert KEY[13:29] not in out + err, where


DAMAGE_CASES = list(DAMAGES)  # view.json's own damages among them: checked at open [S10]


@pytest.mark.parametrize("damage", DAMAGE_CASES)
def test_every_command_on_a_damaged_home_answers_or_says_why_in_one_sentence(damage, seeded, api,
                                                                              tmp_path):
    home = tmp_path / "home"
    shutil.copytree(seeded, home)
    os.chmod(home, 0o700)
    DAMAGES[damage](home)
    (tmp_path / "notes.md").write_text("# Notes\n\nAn old note to import.\n")
    for args in COMMANDS:
        args = [arg.replace("{tmp}", str(tmp_path)) for arg in args]
        code, out, err = run(args, env_for(home, api), stdin="from standard input\n")
        check(args, code, out, err)
        if os.environ.get("EVER_SHOW_BATTERY"):
            print(f"{damage:32} {' '.join(args):22} {code} {(out + err).strip()[:150]!r}")


BAD_ARGUMENTS = [
    ["send", ""], ["send", "   \n"], ["send", "\udcff\udcfe lone surrogates"], ["send", "-"],
    ["send", "x" * 200_000], ["send", "\x1b]0;title\x07\x1b[2J"],
    ["memory", "zoom"], ["memory", "zoom", "-1", "1"], ["memory", "zoom", "0", "0"],
    ["memory", "zoom", "0", "-4"], ["memory", "zoom", "3", "2"], ["memory", "zoom", "1+"],
    ["memory", "zoom", "+1"], ["memory", "zoom", "a", "b"], ["memory", "zoom", "99999999999999999999999", "1"],
    ["memory", "zoom", "0", "1", "2"], ["memory", "frob"], ["memory"],
    ["cost", "--turns", "-3"], ["cost", "--turns", "x"], ["log", "extra"], ["frobnicate"],
    ["import"], ["import", "/nonexistent/session.jsonl"], ["import", "--format", "pi", "/dev/null"],
    ["browse", "--out", "/nonexistent/dir/page.html"], ["browse", "--port", "-1", "--serve"],
    ["agents", "--json", "extra"],
]


@pytest.mark.parametrize("args", BAD_ARGUMENTS, ids=lambda args: " ".join(args)[:40])
def test_every_command_with_bad_arguments_answers_or_says_why_in_one_sentence(args, seeded, api,
                                                                               tmp_path):
    home = tmp_path / "home"
    shutil.copytree(seeded, home)
    stdin = b"\xff\xfe not UTF-8 \xed\xa0\x80\n" if args == ["send", "-"] else None
    code, out, err = run(args, env_for(home, api), stdin=stdin)
    check(args, code, out, err)
    if os.environ.get("EVER_SHOW_BATTERY"):
        print(f"{' '.join(args)[:40]:42} {code} {(out + err).strip()[:150]!r}")


@pytest.mark.parametrize("fault", [
    status_error(401, "authentication_error", f"invalid x-api-key {KEY}"),
    status_error(400, "invalid_request_error", "model: unsupported"),
    status_error(404, "not_found_error", "model: claude-sonnet-4-6"),
    status_error(501, "", ""),
    status_error(429, "rate_limit_error", "Spend limit.", error_code="enforced_spend_limit_reached"),
], ids=["401", "400", "404", "501", "429-spend"])
def test_send_when_the_api_refuses_is_one_sentence(fault, api, tmp_path):
    api.reset()
    api.responder = lambda body: "a summary line" if is_compaction(body) else TURN_REPLY
    for _ in range(3):
        api.enqueue(fault, when=lambda body: not is_compaction(body))
    code, out, err = run(["send", "hello"], env_for(tmp_path / "home", api))
    check(["send"], code, out, err)
    assert code == 3 and api.base_url in err  # the message logged, not answered [S9]
    api.reset()
    api.responder = lambda body: "a summary line" if is_compaction(body) else TURN_REPLY


CHAT_COMMANDS = [
    "/help", "/help me", "/memory", "/memory extra words", "/memory zoom", "/memory zoom -1 1",
    "/memory zoom 0 0", "/memory zoom 0 3", "/memory zoom 1+", "/memory zoom +1", "/memory zoom a+b",
    "/memory zoom 99999999999999999999999 1", "/memory zoom 0 1 2", "/memory zoom 0+1",
    "/memory-model", "/memory-model claude-x bogus-effort", "/memory-model a b c d",
    "/memory-model '' xhigh", "/agents", "/agents extra", "/edit", "/", "//", "/frobnicate",
    "/memory zoom \udcff 1",
]


@pytest.mark.slow
def test_every_chat_command_with_bad_arguments_answers_in_the_terminal_and_the_chat_goes_on(tmp_path):
    from test_chat_terminal import Chat, StallingAPI

    with StallingAPI() as local:
        local.responder = lambda body: "a summary line" if is_compaction(body) else TURN_REPLY
        chat = Chat(tmp_path / "home", local, EDITOR="")
        everything = io.StringIO()
        chat.child.logfile_read = everything  # every byte shown from here, scrolled off or not
        try:
            chat.turn("hello\r", TURN_REPLY)
            for command in CHAT_COMMANDS:
                typed = command.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                chat.send(typed + "\r")
                chat.expect(re.escape(typed) + r"[^\n]*\n")  # the line accepted; its answer follows
            chat.turn("still there?\r", TURN_REPLY)
            chat.leave()
        finally:
            chat.close()
    shown = everything.getvalue()
    assert "usage: /memory zoom ID N" in shown  # the commands were answered
    assert "Traceback" not in shown and BUG not in shown and "Error" not in shown


def session_line(uuid: str, text: str) -> bytes:
    return json.dumps({"type": "user", "uuid": uuid, "parentUuid": None, "sessionId": "s1",
                       "timestamp": "2026-03-01T10:00:00Z", "isSidechain": False,
                       "message": {"role": "user", "content": text}}).encode() + b"\n"


HOSTILE_SOURCES = {
    "fifo.jsonl": lambda path: os.mkfifo(path),
    "zero.jsonl": lambda path: path.symlink_to("/dev/zero"),
    "loop.jsonl": lambda path: path.symlink_to(path.name),
    "deep.jsonl": lambda path: path.write_bytes(b"[" * 100_000 + b"\n"),
    "deep.md": lambda path: path.write_bytes(b"[" * 100_000 + b"\n"),
}


def test_hostile_files_in_an_import_are_each_passed_over_in_one_sentence_and_the_rest_imported(tmp_path, api):
    """A FIFO, a link to /dev/zero, a link that loops, 100,000 nested brackets, a session line
    not UTF-8 or nested too deep: through the installed command, as a hang would show."""
    import subprocess

    from tests.support.chat import EVER, environment, logged

    folder = tmp_path / "old"
    folder.mkdir()
    for name, make in HOSTILE_SOURCES.items():
        make(folder / name)
    (folder / "session.jsonl").write_bytes(
        session_line("u1", "first words") + session_line("u2", "and a bad byte: ").replace(
            b"bad byte: ", b"bad byte: \xff") + b'{"sessionId": "s1", "x": ' + b"[" * 100_000 + b"\n"
        + session_line("u3", "last words"))
    (folder / "notes.md").write_text("# Notes\n\nAn old note to import.\n")
    home = tmp_path / "home"
    done = subprocess.run([EVER, "import", "--yes", str(folder)], env=environment(home, api),
                          capture_output=True, text=True, timeout=120)
    assert "Traceback" not in done.stdout + done.stderr and BUG not in done.stderr, done.stderr
    assert done.returncode == 0, (done.stdout, done.stderr)
    said = done.stdout.splitlines()
    for name in HOSTILE_SOURCES:
        if name == "deep.md":
            continue  # a text file: its brackets are text, imported as they are
        lines = [line for line in said if line.startswith(f"{folder / name}: not imported: ")]
        assert len(lines) == 1, (name, said)
    assert f"{folder / 'fifo.jsonl'}: not imported: {folder / 'fifo.jsonl'} is a FIFO, not a regular file" in said
    assert f"{folder / 'zero.jsonl'}: not imported: {folder / 'zero.jsonl'} is a character device, " \
           "not a regular file" in said
    notes = [text for kind, text in logged(home) if kind == "note"]
    bodies = [text.split("\n", 1)[1] for text in notes]
    # the session's three readable messages, the bad byte only its own character
    assert "first words" in bodies and "last words" in bodies
    assert "and a bad byte: \ufffd" in bodies
    assert "# Notes\n\nAn old note to import.\n" in bodies
    assert f"{folder / 'session.jsonl'}: 3 notes (Claude Code); 1 line not read (not JSON, or no time)" in said


def test_a_folder_that_cannot_be_read_is_named_not_passed_over_silently(tmp_path, monkeypatch):
    """Run as root, no permission bit hides a folder: its listing is made to fail as it would."""
    from harness.imports.rules import plan

    folder = tmp_path / "old"
    (folder / "locked").mkdir(parents=True)
    (folder / "notes.md").write_text("kept\n")
    listing = os.scandir

    def scandir(path="."):
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return listing(path)

    monkeypatch.setattr(os, "scandir", scandir)
    todo = plan([str(folder)], None, set())
    assert todo.passed_over == [(folder / "locked", "cannot be read: Permission denied")]
    assert [path for path, *_ in todo.files] == [folder / "notes.md"]


@pytest.mark.slow
def test_a_disk_that_fills_under_a_running_chat_gives_one_sentence_and_no_traceback(tmp_path, api):
    """`ever chat` in a pseudo-terminal on a real full disk (a tmpfs; root only, else skipped):
    the message cannot be kept; the person reads the one sentence, never a traceback from the line
    editor's history."""
    import pexpect

    from tests.support.chat import EVER, environment
    from tests.support.full_disk import Disk

    disk = Disk(tmp_path / "disk")
    try:
        home = disk.path / "home"
        child = pexpect.spawn(EVER, ["chat"], env=environment(home, api), encoding="utf-8", timeout=60,
                              dimensions=(40, 160))
        child.expect("›")
        child.send("hello\r")
        child.expect(TURN_REPLY)
        child.expect("›")
        disk.fill()
        child.send("a message the full disk refuses\r")
        child.expect("nothing was logged: try again")
        child.expect("›")
        seen = child.before
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
        assert "Traceback" not in seen and BUG not in seen, seen
    finally:
        disk.unmount()


def test_an_owner_that_never_answers_is_one_sentence_not_a_bug(shared_api, tmp_path, monkeypatch):
    # another process owns the chat and its socket stays silent: `ever send` ends on the sentence
    # OwnerSilent says, exit 4 (it was no StoreError, so the CLI called it a bug)
    from harness.owner import sender

    async def silent(settings, here, request, say=None):
        raise sender.OwnerSilent("The chat is owned by process 4242. It did not answer on its socket for 30 s; "
                                 "nothing was sent: try again.")

    monkeypatch.setattr(sender, "with_owner", silent)
    code, out, err = run(["send", "hello"], env_for(tmp_path / "home", shared_api))
    assert (code, out) == (4, ""), err  # nothing of the message kept: docs/reliability.md, its exit codes
    assert err.count("\n") == 1 and "nothing was sent: try again" in err
    assert BUG not in err
