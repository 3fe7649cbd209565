"""Strategy: `ever send` and `ever chat` as a person runs them, through each provider picked in
config.toml, against its strict local stand-in: a turn with a tool call, and the compactions that
follow it, on the same provider (no Anthropic key set for an OpenAI one); the usage lines name the
provider's model; and `ever cost` shows an unpriced local model's tokens, never dollars.
"""

import time

import pexpect
import pytest

from harness.localapi.replies import tool_use
from tests.support.chat import environment, ever, lines
from tests.support.providers import PROVIDERS, Wire, is_compaction, server_for, tool_results
from tests.support.terminal import spawn_chat


@pytest.fixture(scope="module", params=PROVIDERS)
def shared_wire(request):
    with server_for(request.param) as server:
        yield Wire(request.param, server)


@pytest.fixture
def wire(shared_wire):
    shared_wire.api.reset()
    return shared_wire


def chat_env(tmp_path, wire):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "config.toml").write_text(wire.config_toml())
    (home / "config.toml").chmod(0o600)
    env = environment(home, wire.api, key="test-key" if wire.kind == "anthropic" else "")
    env["EVER_MODEL"] = wire.model
    env["TEST_OPENAI_KEY"] = "test-openai-key"
    return home, env


def test_ever_send_runs_a_tool_and_compacts_through_the_configured_provider(tmp_path, wire):
    home, env = chat_env(tmp_path, wire)
    (tmp_path / "notes.txt").write_text("the key is under the mat\n")
    wire.api.responder = lambda body: "line: a summary." if is_compaction(body) else "Unscripted."
    turn = lambda body: not is_compaction(body)  # noqa: E731
    wire.api.enqueue([tool_use("read", {"path": str(tmp_path / "notes.txt")}, id="call_read_1")], when=turn)
    wire.api.enqueue("Under the mat.", when=turn)
    message = "where is the key? " + "I looked everywhere, in every room. " * 40  # past a line: compacted
    done = ever(["send", "--yes", message], env)
    assert (done.returncode, done.stdout, done.stderr) == (0, "Under the mat.\n", "")
    assert [r["kind"] for r in lines(home)] == ["user", "tool", "echo", "ever"]
    assert lines(home)[2]["text"] == "     1\tthe key is under the mat\n"
    bodies = [request.body for request in wire.api.requests]
    turns = [body for body in bodies if not is_compaction(body)]
    assert [call for call, _ in tool_results(turns[1], wire.kind)] == ["call_read_1"]
    assert any(is_compaction(body) for body in bodies)  # the compactor called the same provider
    usage = lines(home, "usage")
    assert {record["model"] for record in usage} == {wire.model} | (
        {"claude-haiku-4-5"} if wire.kind == "anthropic" else set())
    assert {record["kind"] for record in usage} == {"turn", "compaction"}
    assert "line: a summary." in ever(["memory", "view"], env).stdout  # the line came back into the view


@pytest.mark.slow  # whole `ever` processes on a terminal, seconds each: make test-slow
def test_ever_chat_streams_a_reply_through_the_configured_provider(tmp_path, wire):
    home, env = chat_env(tmp_path, wire)
    wire.api.responder = lambda body: "line: a summary." if is_compaction(body) else "Unscripted."
    wire.api.enqueue("Streaming through the provider.", when=lambda body: not is_compaction(body))
    child = spawn_chat(tmp_path, wire.api, env=env)
    try:
        child.sendline("hi there")
        child.expect("Streaming through the provider.")
        # a priced model's dollars; an unpriced one's tokens, never a dollar figure [H29]
        priced = wire.kind == "anthropic"
        child.expect(r"cache \d+% · \$\d+\.\d{4}" if priced else r"cache \d+% · [\d,]+ tokens, unpriced")
        child.expect("›")
        time.sleep(0.2)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert [(r["kind"], r["text"]) for r in lines(home)] == [("user", "hi there"),
                                                             ("ever", "Streaming through the provider.")]


@pytest.mark.slow  # whole `ever` processes on a terminal, seconds each: make test-slow
@pytest.mark.parametrize("server", [None, "llama.cpp", "ollama"])
def test_the_five_lines_docs_usage_shows_for_a_local_server_run_the_chat(tmp_path, server):
    """The block in docs/usage.md, as a user copies it, its URL pointed at the Chat stand-in: a
    plain one, llama.cpp's `llama-server` run at `-c 32768` (its /props and /tokenize asked), and
    Ollama's (its /api/show asked) [H36]."""
    from pathlib import Path

    from harness.localapi.openai_api import MODELS, LocalModel, OpenAILocalAPI

    usage = (Path(__file__).resolve().parents[2] / "docs" / "usage.md").read_text()
    block = usage.split("compactions both, is five lines:\n\n", 1)[1].split("\n\n", 1)[0]
    config = [line.strip() for line in block.splitlines()]
    assert len(config) == 5 and config[-1] == 'base_url = "http://localhost:8080/v1"'
    served = {None: MODELS, "llama.cpp": (LocalModel("qwen3-coder", 32_768, 32_768, trained_window=262_144),),
              "ollama": (LocalModel("qwen3-coder", 262_144, 65_536),)}[server]
    with OpenAILocalAPI("openai-chat", server=server, models=served) as api:
        wire = Wire("openai-chat", api)
        home, env = chat_env(tmp_path, wire)
        (home / "config.toml").write_text("\n".join(config).replace("http://localhost:8080/v1", api.base_url) + "\n")
        env.pop("EVER_MODEL")
        api.responder = lambda body: "line: a summary." if is_compaction(body) else "Unscripted."
        api.enqueue("Local and well.", when=lambda body: not is_compaction(body))
        done = ever(["send", "hello " * 200], env)  # long enough to be compacted
        assert (done.returncode, done.stdout, done.stderr) == (0, "Local and well.\n", "")
        assert {request.body["model"] for request in api.requests} == {"qwen3-coder"}
        assert any(is_compaction(request.body) for request in api.requests)
        assert {request.path for request in api.served_requests} >= {
            None: {"/props"}, "llama.cpp": {"/props"}, "ollama": {"/api/show"}}[server]


@pytest.mark.slow  # a real process killed and an owner started again, per provider (tests/README.md)
def test_an_ever_send_killed_mid_call_leaves_its_message_and_the_next_owner_answers_it_once(tmp_path, wire):
    """The crash test on every provider: SIGKILL while the provider holds the reply back; the
    message stays logged and unanswered, and the next `ever send` answers it once, then its own."""
    import signal
    import subprocess
    import threading

    from harness.localapi.replies import Reply
    from tests.support.chat import EVER

    home, env = chat_env(tmp_path, wire)
    held = threading.Event()
    turn = lambda body: not is_compaction(body)  # noqa: E731
    wire.api.responder = lambda body: "line: a summary." if is_compaction(body) else "Unscripted."
    wire.api.enqueue(Reply("Never seen.", gate=held), when=turn)
    first = subprocess.Popen([EVER, "send", "the question a kill cuts off"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120  # a hang guard
        while not any(turn(r.body) for r in wire.api.requests if isinstance(r.body, dict)):
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
        first.wait(60)
    finally:
        held.set()
        first.kill()
    assert first.returncode == -signal.SIGKILL
    assert [(r["kind"], r["text"]) for r in lines(home)] == [("user", "the question a kill cuts off")]
    wire.api.enqueue("Answered at last.", when=turn)
    wire.api.enqueue("And the second.", when=turn)
    done = ever(["send", "a second question"], env)
    assert done.returncode == 0, done.stderr
    assert [(r["kind"], r["text"]) for r in lines(home)] == [
        ("user", "the question a kill cuts off"), ("ever", "Answered at last."),
        ("user", "a second question"), ("ever", "And the second.")]
