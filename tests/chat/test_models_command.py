"""Strategy: `ever models`, the installed command in a subprocess, against the strict local Messages
API serving a model the table does not know beside the table's own. Each expected line is typed
from the figures the test gives the server or from the model pages the table cites (Sonnet 5.5:
1M, 128K, $2 / $10; Haiku 4.5: 200K, 64K, $1 / $5, legacy; Haiku 5.5: 1M, 128K, $0.10 / $0.50),
never read back from the command.
"""

from dataclasses import replace

import pytest

from harness.calls import models
from harness.localapi.server import LocalAPI
from tests.support.chat import environment, ever

NOVA = replace(models.assumed("claude-nova-6", 2_000_000), output_cap=256_000, adaptive=True,
               efforts=("low", "high"))


@pytest.fixture(scope="module")
def api():
    with LocalAPI(models=[NOVA]) as server:
        yield server


def row(output: str, model_id: str) -> list[str]:
    line = next(line for line in output.splitlines() if line.startswith(model_id + " "))
    return line.split()


def test_ever_models_lists_what_the_key_can_use_and_keeps_the_answer(tmp_path, api):
    api.reset()
    env = environment(tmp_path, api)
    run = ever(["models"], env)
    assert run.returncode == 0, run.stderr
    assert row(run.stdout, "claude-nova-6") == ["claude-nova-6", "2M", "256K", "adaptive,", "disabled",
                                                "low,high", "unpriced", "current"]
    assert row(run.stdout, "claude-sonnet-5-5") == ["claude-sonnet-5-5", "1M", "128K", "adaptive,", "between_tools",
                                                    "low,medium,high,xhigh,max", "$2.00/$10.00", "current"]
    assert row(run.stdout, "claude-haiku-4-5")[:3] + row(run.stdout, "claude-haiku-4-5")[-2:] == [
        "claude-haiku-4-5", "200K", "64K", "$1.00/$5.00", "legacy"]
    # the compactor's default [H32]: haiku-5-5/overview's 1M window, "From $0.10 / MTok" in, $0.50 out
    assert row(run.stdout, "claude-haiku-5-5") == ["claude-haiku-5-5", "1M", "128K", "adaptive,", "disabled",
                                                   "low,medium,high", "$0.10/$0.50", "current", "(the", "compactor)"]
    assert "claude-3-haiku" not in run.stdout  # retired: not a model the key can use
    assert "From the Models API now" in run.stdout
    assert (tmp_path / "models.json").stat().st_mode & 0o777 == 0o600
    assert len(api.listings) == 1 and api.requests == []


def test_without_a_key_the_table_answers_and_says_so(tmp_path, api):
    api.reset()
    run = ever(["models"], environment(tmp_path, api, key=""))
    assert run.returncode == 0, run.stderr
    assert "From the table in harness/calls/models.py alone" in run.stdout
    assert "claude-nova-6" not in run.stdout and "claude-haiku-5-5" in run.stdout
    assert api.listings == []


def test_ever_models_lists_a_local_servers_models_with_the_windows_its_own_list_gives(tmp_path):
    """The stand-in's list: qwen3-coder 262,144 tokens and 65,536 out; gpt-5.5 400,000 and 128,000
    (its page says 1,050,000: the list is believed)."""
    from harness.localapi.openai_api import OpenAILocalAPI
    from tests.support.providers import Wire

    with OpenAILocalAPI("openai-chat") as server:
        wire = Wire("openai-chat", server)
        home = tmp_path / "home"
        home.mkdir(mode=0o700)
        (home / "config.toml").write_text(wire.config_toml())
        (home / "config.toml").chmod(0o600)
        env = environment(home, server, key="")
        env["TEST_OPENAI_KEY"] = "test-openai-key"
        env["EVER_MODEL"] = wire.model
        run = ever(["models"], env)
        assert run.returncode == 0, run.stderr
        assert row(run.stdout, "local/qwen3-coder") == ["local/qwen3-coder", "262,144", "65,536", "disabled", "-",
                                                        "unpriced", "current", "(the", "turns", "and", "the",
                                                        "compactor)"]
        assert row(run.stdout, "local/gpt-5.5")[:6] == ["local/gpt-5.5", "400K", "128K", "disabled",
                                                        "none,low,medium,high,xhigh", "unpriced"]
        assert "From local's model list now" in run.stdout
        assert (len(server.listings), server.requests) == (1, [])
        assert "claude-" not in run.stdout  # no Anthropic model is in use: its list is not asked
