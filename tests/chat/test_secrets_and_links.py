"""The file tools and secrets [H4]: a key or credential file, a dotfile of the home and Ever's own
home ask first wherever the chat runs; a write through a link names the file that changes and, when
that file is outside the working directory, asks even where `approve` allows writes.
Through the installed `ever`, against the local Messages API; the question in a pseudo-terminal."""

import re
from pathlib import Path

import pytest

from harness.localapi.server import Reply, tool_use
from tests.support.chat import environment, ever_in, is_compaction, lines
from tests.support.terminal import Chat, StallingAPI

pytestmark = pytest.mark.local_api(server=StallingAPI)
turn = lambda body: not is_compaction(body)  # noqa: E731


@pytest.fixture
def local(api):
    api.reset()
    api.responder = lambda body: "a summary line" if is_compaction(body) else "(none queued)"
    yield api
    api.release.set()


def echoes(home: Path) -> list:
    return [record["text"] for record in lines(home) if record["kind"] == "echo"]


@pytest.mark.slow
def test_a_chat_run_in_the_home_asks_before_reading_keys_dotfiles_and_evers_own_home(tmp_path, local):
    user = tmp_path / "user"  # $HOME, and the working directory: the usual place
    (user / ".ssh").mkdir(parents=True)
    (user / ".ssh" / "id_ed25519").write_text("SSH PRIVATE KEY\n")
    (user / ".bashrc").write_text("export TOKEN=BASHRC-SECRET\n")
    (user / "site.pem").write_text("PEM-SECRET\n")
    (user / "notes.txt").write_text("plain notes\n")
    home = user / "ever-home"  # EVER_HOME inside the working directory
    env = dict(environment(home, local), HOME=str(user))
    local.enqueue("First.", when=turn)
    assert ever_in(user, ["send", "start"], env).returncode == 0
    (home / "planted.txt").write_text("EVER-HOME-SECRET\n")
    local.enqueue(Reply([tool_use("read", {"path": "notes.txt"}, id="r1"),
                         tool_use("read", {"path": ".ssh/id_ed25519"}, id="r2"),
                         tool_use("read", {"path": "~/.bashrc"}, id="r3"),
                         tool_use("read", {"path": "site.pem"}, id="r4"),
                         tool_use("read", {"path": "ever-home/planted.txt"}, id="r5")]), when=turn)
    local.enqueue("Read what I could.", when=turn)
    done = ever_in(user, ["send", "read them"], env)
    assert done.stdout == b"Read what I could.\n"
    said = echoes(home)
    assert said[0] == "     1\tplain notes\n"
    assert [text.startswith("Not run: a read of ") and "this run cannot ask" in text
            for text in said[1:]] == [True] * 4, said
    sent = str(local.requests[-1].body)
    for secret in ("SSH PRIVATE KEY", "BASHRC-SECRET", "PEM-SECRET", "EVER-HOME-SECRET"):
        assert secret not in sent and all(secret not in text for text in said)


@pytest.mark.slow
def test_a_write_through_a_link_names_its_target_and_asks_outside_even_with_write_approved(
        tmp_path, local, monkeypatch):
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    target = outside / "profile.txt"
    target.write_text("untouched\n")
    (work / "NOTES.md").symlink_to(target)
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('approve = ["write", "edit"]\n')
    env = environment(home, local)
    local.enqueue(Reply([tool_use("write", {"path": "NOTES.md", "content": "PWNED\n"}, id="w1"),
                         tool_use("edit", {"path": "NOTES.md", "old_text": "untouched",
                                           "new_text": "PWNED"}, id="e1"),
                         tool_use("write", {"path": "inside.md", "content": "fine\n"}, id="w2")]),
                  when=turn)
    local.enqueue("Wrote what I could.", when=turn)
    done = ever_in(work, ["send", "write them"], env)
    assert done.stdout == b"Wrote what I could.\n"
    said = echoes(home)
    assert [text.startswith(start) for text, start in zip(said, (
        "Not run: a write to a file outside the working directory asks the user first",
        "Not run: an edit of a file outside the working directory asks the user first",
        "created inside.md"))] == [True, True, True], said
    assert target.read_text() == "untouched\n" and (work / "inside.md").read_text() == "fine\n"
    # in the terminal, the question names the file that would change, and `n` keeps it
    local.enqueue(Reply([tool_use("write", {"path": "NOTES.md", "content": "PWNED\n"}, id="w3")]),
                  when=turn)
    local.enqueue("Asked.", when=turn)
    monkeypatch.chdir(work)
    chat = Chat(home, local)
    try:
        chat.send("write it\r")
        chat.expect(re.escape("lways for this tool:"))
        question = "".join(chat.shown())
        assert re.search(r"write: NOTES\.md -> \S*outside/profile\.txt", question), chat.shown()
        assert "outside the working directory" in question
        chat.send("n\r")
        chat.expect("Asked.")
    finally:
        chat.close()
    assert target.read_text() == "untouched\n"


class ShortChat(Chat):
    """`ever chat` in a 30-row terminal, every byte it writes kept: what reached the screen,
    scrolled away or not."""

    rows = 30

    def expect(self, pattern, timeout: float = 60) -> None:
        self.child.expect(pattern, timeout=timeout)
        after = self.child.after if isinstance(self.child.after, str) else ""
        self.written = getattr(self, "written", "") + self.child.before + after
        self.stream.feed(self.child.before + after)


@pytest.mark.slow  # whole `ever` processes on a terminal, seconds each: make test-slow
def test_a_question_shows_every_line_of_a_long_command_and_its_invisible_characters(
        tmp_path, local, monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    rows = [f"echo line {n}" for n in range(61)]
    rows[45] = "touch PWNED"
    rows[10] = "echo safe \u202e# txt.exe\u202c \u200bhidden"
    local.enqueue(Reply([tool_use("shell", {"command": "\n".join(rows)}, id="s1")]), when=turn)
    local.enqueue("Declined.", when=turn)
    monkeypatch.chdir(work)
    chat = ShortChat(tmp_path / "home", local)
    try:
        chat.send("run it\r")
        chat.expect(re.escape("lways for this tool:"))
        if "   61  echo line 60" not in chat.written:
            # printed above the prompt as it redraws: before the question's text reaches the
            # terminal, or after it
            chat.expect(re.escape("   61  echo line 60"))
        shown = chat.written
        # every line, numbered, printed above the question, which counts them
        missing = [n for n, row in enumerate(rows) if n != 10 and f"{n + 1:>5}  {row}" not in shown]
        assert not missing, missing
        assert "Allow shell: the 61 lines above?" in shown
        assert "<U+202E># txt.exe<U+202C> <U+200B>hidden" in shown
        assert not any(invisible in shown for invisible in "\u202e\u202c\u200b")
        chat.send("n\r")
        chat.expect("Declined.")
    finally:
        chat.close()
    assert not (work / "PWNED").exists()


# ---------------------------------------------------------------- raw escape sequences

import pexpect  # noqa: E402

from tests.support.chat import EVER  # noqa: E402

HOSTILE = "ok \x1b]52;c;cm0gLXJmIH4=\x07 \x1b]0;PWNED\x07 \x1b[2J done \u202e"


def in_a_terminal(args, env, cwd) -> str:
    """`ever ARGS` in a pseudo-terminal: everything it wrote there."""
    child = pexpect.spawn(EVER, args, env=env, cwd=str(cwd), encoding="utf-8", timeout=120)
    written = child.read()
    child.close()
    return written


@pytest.mark.slow
def test_send_and_import_show_escape_sequences_visible_on_a_terminal_and_a_pipe_gets_the_bytes(
        tmp_path, local):
    home = tmp_path / "home"
    env = environment(home, local)
    local.enqueue(HOSTILE, when=turn)
    shown = in_a_terminal(["send", "hello"], env, tmp_path)
    assert "ok ^[]52;c;cm0gLXJmIH4=^G ^[]0;PWNED^G ^[[2J done <U+202E>" in shown
    assert "\x1b]" not in shown and "\x1b[2J" not in shown and "\u202e" not in shown
    local.enqueue(HOSTILE, when=turn)
    piped = ever_in(tmp_path, ["send", "hello again"], env)  # a script reads the reply's bytes
    assert piped.stdout == (HOSTILE + "\n").encode("utf-8"), piped.stdout
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "notes \x1b]0;PWNED\x07\x1b[2J.md").write_text("An old note.\n")
    shown = in_a_terminal(["import", "--format", "text", "--yes", str(folder)], env, tmp_path)
    assert "notes ^[]0;PWNED^G^[[2J.md" in shown, shown
    assert "\x1b]" not in shown and "\x1b[2J" not in shown


# ---------------------------------------------------------------- secrets outside the log

from harness.localapi.server import status_error  # noqa: E402


@pytest.mark.slow
def test_a_password_in_the_base_url_is_never_shown_the_url_is_named_without_it(tmp_path, local):
    password = "pa55-word-in-url"
    local.responder = lambda body: status_error(401, "authentication_error", "invalid x-api-key")
    home = tmp_path / "home"
    env = environment(home, local)
    url = local.base_url.replace("://", f"://ever-user:{password}@")
    env["ANTHROPIC_BASE_URL"] = url
    sent = ever_in(tmp_path, ["send", "hello " + "words to summarize " * 400], env)
    said = sent.stdout.decode() + sent.stderr.decode()
    assert sent.returncode == 3 and local.base_url in said, said  # the URL is named ...
    status = ever_in(tmp_path, ["memory", "status"], env)
    shown = said + status.stdout.decode() + status.stderr.decode()
    assert password not in shown and "ever-user" not in shown, shown  # ... without its userinfo
    assert password not in "".join(path.read_text(errors="replace")
                                   for path in home.rglob("*") if path.is_file())
