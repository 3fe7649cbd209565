"""Strategy: `ever simulate --provider` replays a chat on another provider's cache and prices [H29]:
OpenAI's automatic cache (no marks; a repeated prefix of 1,024 tokens or more read in steps of 128,
for 5 minutes from its last use; nothing charged to write), figures worked by hand from the token
rule (a text block of n ASCII bytes is ceil((n + 25) / 4) tokens); the command with a configured
provider's prices, and one sentence for a provider without any.
"""

import json

import pytest

import harness.bench.simulate_meter as meter_module
from harness.bench.simulate_meter import Meter, Prices, use_provider
from harness.calls.providers import providers_from

LOCAL = providers_from({"local": {"api": "openai-chat", "base_url": "http://127.0.0.1:9/v1",
                                  "prices": {"input": 0.15, "cached_input": 0.02, "output": 0.60}}}, "test")["local"]


@pytest.fixture
def on_local():
    use_provider(LOCAL)
    yield
    use_provider(None)


def body(*texts):
    return {"model": "local/qwen3-coder", "messages": [{"role": "user", "content": [
        {"type": "text", "text": text, "cache_control": {"type": "ephemeral"}} for text in texts]}]}


def test_a_repeated_prefix_is_read_in_steps_of_128_from_1024_tokens_and_marks_change_nothing(on_local):
    meter = Meter()
    view = "v" * 4975  # ceil((4975 + 25) / 4) = 1250 tokens
    first = meter.call(body(view, "one"), 0.0)
    second = meter.call(body(view, "two"), 10.0)
    assert (first.prompt_tokens, first.cache_read_input_tokens) == (1250 + 7, 0)  # "one": ceil(28 / 4) = 7
    assert second.cache_read_input_tokens == 1152  # 1250 rounded down to 128s: 9 × 128
    assert second.cache_creation_input_tokens == 0 and second.input_tokens == 1257 - 1152
    late = meter.call(body(view, "three"), 10.0 + 301)
    assert late.cache_read_input_tokens == 0  # 5 minutes past its last use


def test_a_prefix_under_1024_tokens_is_never_read(on_local):
    meter = Meter()
    short = "s" * 3971  # ceil(3996 / 4) = 999 tokens: with "one" (7) the prompt is 1006, still under
    meter.call(body(short, "one"), 0.0)
    assert meter.call(body(short, "one"), 1.0).cache_read_input_tokens == 0


def test_the_providers_prices_are_its_configured_ones(on_local):
    prices = Prices.of("local/qwen3-coder")
    assert (prices.input, prices.cache_write, prices.cache_read, prices.output) == (15e-8, 15e-8, 2e-8, 60e-8)
    assert meter_module.PROVIDER is LOCAL


def test_ever_simulate_provider_replays_on_its_cache_and_prices_and_refuses_one_without_prices(tmp_path):
    from click.testing import CliRunner

    from harness.chat.cli import main

    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "config.toml").write_text('model = "local/qwen3-coder"\n[memory]\nmodel = "local/qwen3-coder"\n'
                                      '[providers.local]\napi = "openai-chat"\nbase_url = "http://127.0.0.1:9/v1"\n'
                                      'prices = {input = 0.15, cached_input = 0.02, output = 0.60}\n')
    (home / "config.toml").chmod(0o600)
    runner = CliRunner()
    try:
        done = runner.invoke(main, ["simulate", "--provider", "local", "--messages", "120", "--json", "--no-pictures",
                                    "--processes", "1", "--modes", "ever"], env={"EVER_HOME": str(home)})
    finally:
        use_provider(None)
    assert done.exit_code == 0, done.output
    result = json.loads(done.output[done.output.index("{"):])
    assert (result["turn_model"], result["compaction_model"]) == ("local/qwen3-coder", "local/qwen3-coder")
    ever = result["modes"][0]
    assert ever["dollars"] > 0
    refused = runner.invoke(main, ["simulate", "--provider", "openai", "--messages", "20", "--no-pictures"],
                            env={"EVER_HOME": str(home)})
    assert refused.exit_code == 1
    assert "The provider openai has no prices" in refused.output and refused.output.count("\n") == 1
