"""Strategy: Ever always on, as a person runs it: `ever serve` in the background, two `ever chat`
attached in pseudo-terminals, and scripts running `ever send` at the same time, all through the
real SDK against the local Messages API served by this test process. The local API echoes each
turn's message (`echo`, the demo's responder), so every expected reply is computed from the text
the test sent, never read from Ever. The owner is killed with SIGKILL mid-turn and started again,
as the systemd unit would: the log must hold each accepted message once, answered once.
"""

import re
import resource
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pexpect
import pytest

from harness.localapi.server import LocalAPI, Reply, echo, tool_use
from tests.support.chat import EVER, environment, ever, is_compaction, lines
from tests.support.serving import Serving

SUMMARY = "a summary line"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\r")


def echoed(text: str) -> str:
    return f"(local API, no model) You said: {text}"


@pytest.fixture
def local(api):
    api.reset()
    api.responder = lambda body: SUMMARY if is_compaction(body) else echo(body)
    yield api


class Attached:
    """`ever chat` in a pseudo-terminal, attached to the running owner."""

    def __init__(self, home: Path, api: LocalAPI, *args: str):
        self.child = pexpect.spawn(EVER, ["chat", *args], env=environment(home, api), encoding="utf-8",
                                   timeout=60, dimensions=(40, 200))
        self.seen = ""
        self.expect("attached to the running chat")
        self.expect("›")  # the line editor listens

    def expect(self, pattern: str, timeout: float = 60) -> None:
        self.child.expect(pattern, timeout=timeout)
        self.seen += ANSI.sub("", self.child.before + (self.child.after if isinstance(self.child.after, str) else ""))

    def type(self, line: str) -> None:
        self.child.send(line + "\r")

    def leave(self) -> int:
        self.child.sendcontrol("d")
        self.child.expect(pexpect.EOF, timeout=30)
        self.child.close()
        return self.child.exitstatus


def logged(home: Path):
    return [(record["kind"], record["text"]) for record in lines(home)]


@pytest.mark.slow
def test_two_terminals_and_twenty_scripts_share_one_served_chat_and_each_sees_every_reply(tmp_path, local):
    owner = Serving(tmp_path, local)
    first = second = None
    try:
        first, second = Attached(tmp_path, local), Attached(tmp_path, local)
        first.type("hello from the first terminal")
        for terminal in (first, second):  # the turn streams in both, whoever typed it
            terminal.expect(re.escape(echoed("hello from the first terminal")))
        texts = [f"script message {k:02}" for k in range(20)]
        with ThreadPoolExecutor(20) as pool:
            # a hang guard only: twenty starts of `ever send` at once take a busy machine minutes
            sends = list(pool.map(lambda text: ever(["send", text], environment(tmp_path, local)), texts))
        assert [result.returncode for result in sends] == [0] * 20, [result.stderr for result in sends]
        log = logged(tmp_path)
        users = [text for kind, text in log if kind == "user"]
        assert sorted(users) == sorted(["hello from the first terminal", *texts])  # each once
        replies = [text for kind, text in log if kind == "ever"]
        # each script got the reply of the turn that took its message: the echo of a message of
        # that turn (a message joined to a running call is answered by that call's reply)
        for result in sends:
            assert result.stdout.strip() in replies
        assert replies[0] == echoed("hello from the first terminal")  # seen above
        for reply in replies[1:]:  # and both terminals saw every reply stream, in the log's order
            for terminal in (first, second):
                terminal.expect(re.escape(reply))
        assert first.leave() == 0 and second.leave() == 0
        assert owner.process.poll() is None  # closing the terminals stops nothing
    finally:
        for terminal in (first, second):
            if terminal is not None:
                terminal.child.close(force=True)
        assert owner.stop() == 0


@pytest.mark.slow
def test_the_owner_killed_mid_turn_and_started_again_loses_and_doubles_nothing(tmp_path, local):
    gate = threading.Event()
    local.enqueue(Reply(echoed("kept through a kill"), gate=gate), when=lambda body: not is_compaction(body))
    owner = Serving(tmp_path, local)
    sender = subprocess.Popen([EVER, "send", "--key", "kept-1", "kept through a kill"],
                              env=environment(tmp_path, local), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        # the call is under way (its request reached the API) when the owner is killed
        deadline = time.monotonic() + 60
        while not any(r.body and not is_compaction(r.body) for r in local.requests):
            assert time.monotonic() < deadline, "the turn's call never reached the API"
            time.sleep(0.05)
        owner.kill()
        gate.set()
        owner.start()  # the unit's Restart=always
        out, err = sender.communicate(timeout=120)
        assert sender.returncode == 0, err
        assert out.strip() == echoed("kept through a kill")
        log = logged(tmp_path)
        assert [text for kind, text in log if kind == "user"] == ["kept through a kill"]
        assert [text for kind, text in log if kind == "ever"] == [echoed("kept through a kill")]
    finally:
        sender.kill()
        owner.stop()


@pytest.mark.slow
def test_a_question_is_asked_in_every_attached_terminal_and_the_first_answer_counts(tmp_path, local):
    local.enqueue(Reply([tool_use("shell", {"command": "echo ran > ran.txt"}, id="s1")]),
                  when=lambda body: not is_compaction(body))
    local.enqueue("The command ran.", when=lambda body: not is_compaction(body))
    owner = Serving(tmp_path, local)
    first = second = None
    try:
        first, second = Attached(tmp_path, local), Attached(tmp_path, local)
        first.type("run it")
        for terminal in (first, second):
            terminal.expect(re.escape("Allow shell: echo ran > ran.txt?"))
        second.type("y")
        for terminal in (first, second):
            terminal.expect("The command ran.")
        assert (tmp_path / "ran.txt").read_text() == "ran\n"  # run once, in the owner's directory
    finally:
        for terminal in (first, second):
            if terminal is not None:
                terminal.child.close(force=True)
        owner.stop()


@pytest.mark.slow
def test_eleven_hundred_connections_that_stay_cost_one_line_and_the_chat_answers_through_them(tmp_path, local):
    """[S26] At a real user's sizes: `ever serve` with the 1,024 open files a login shell gives,
    and 1,100 connections that connect and say nothing. The owner's output holds a line or two,
    not a traceback a connection; an `ever send` meanwhile is answered, or refused in one
    sentence and answered once they close; every other file of the chat still opens."""
    import socket as sockets

    owner = Serving(tmp_path, local, files_max=1024)
    idle = []
    try:
        path = tmp_path / "chat" / "socket"
        for _ in range(1100):
            connection = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
            connection.connect(str(path))
            idle.append(connection)
        during = ever(["send", "sent while 1,100 connections stay"], environment(tmp_path, local))
        for connection in idle:
            connection.close()
        idle = []
        after = ever(["send", "sent once they closed"], environment(tmp_path, local))
        assert after.returncode == 0, after.stderr
        assert after.stdout.strip() == echoed("sent once they closed"), after.stdout
        assert owner.stop() == 0
    finally:
        for connection in idle:
            connection.close()
        if owner.process.poll() is None:
            owner.kill()
    said = owner.process.stdout.read()
    assert "Traceback" not in said, said[:3000]
    assert len(said.splitlines()) <= 10, said[:3000]
    if resource.getrlimit(resource.RLIMIT_NOFILE)[1] >= 4096:  # the owner raised its own limit
        assert "Too many open files" not in said, said[:3000]
    if during.returncode == 0:
        assert during.stdout.strip() == echoed("sent while 1,100 connections stay"), during.stdout
        expected = ["sent while 1,100 connections stay", "sent once they closed"]
    else:
        assert len(during.stderr.strip().splitlines()) == 1 and "Traceback" not in during.stderr, during.stderr
        expected = ["sent once they closed"]
    assert [text for kind, text in logged(tmp_path) if kind == "user"] == expected
