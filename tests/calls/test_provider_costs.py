"""Strategy: costs per provider [H29]: a model priced in its `[providers.NAME]` table is charged at
those prices (figures worked by hand below), a local model with no price shows its tokens and `?`,
never dollars, and `ever cost` gives each provider its own row; through the installed command on a
home whose usage lines are written as the owner writes them.
"""

import json

from harness.calls.providers import providers_from
from harness.calls.usage import UsageRecord, format_report, report, use_provider_prices
from tests.support.chat import ever

TIME = "2026-12-02T10:00:00+00:00"
CONFIG = """model = "local/qwen3-coder"
[providers.local]
api = "openai-chat"
base_url = "http://127.0.0.1:9/v1"
prices = {input = 0.15, cached_input = 0.02, output = 0.60}
[providers.ollama]
api = "openai-chat"
base_url = "http://127.0.0.1:11434/v1"
"""


def record(model, input_tokens, read, output, kind="turn"):
    return UsageRecord(TIME, kind, 0, model, input_tokens, 0, read, output)


def test_a_priced_provider_is_charged_its_prices_and_an_unpriced_one_shows_tokens():
    providers = providers_from({"local": {"api": "openai-chat", "base_url": "http://127.0.0.1:9/v1",
                                          "prices": {"input": 0.15, "cached_input": 0.02, "output": 0.60}}}, "test")
    use_provider_prices(providers)
    try:
        # by hand: 200,000 × $0.15 + 800,000 × $0.02 + 10,000 × $0.60, per million = $0.0520
        result = report([record("local/qwen3-coder", 200_000, 800_000, 10_000),
                         record("ollama/llama3.3", 5_000, 0, 700)])
    finally:
        use_provider_prices({})
    by_name = dict(result.providers)
    assert by_name["local"].cost_e8 == 5_200_000 and by_name["local"].unpriced_calls == 0
    assert (by_name["ollama"].cost_e8, by_name["ollama"].unpriced_calls, by_name["ollama"].input_tokens) == (0, 1, 5000)
    shown = format_report(result)
    rows = {line.split()[0]: line for line in shown.splitlines()[shown.splitlines().index(
        next(line for line in shown.splitlines() if line.startswith("provider"))) + 1:] if line.strip()}
    assert rows["local"].rstrip().endswith("$0.0520")
    assert rows["ollama"].rstrip().endswith("?") and "5,000" in rows["ollama"] and "$" not in rows["ollama"]
    assert "No price for ollama/llama3.3" in shown


def test_ever_cost_reads_the_configs_prices_and_lists_each_provider(tmp_path):
    home = tmp_path / "home"
    (home / "chat" / "usage").mkdir(parents=True, mode=0o700)
    home.chmod(0o700)
    (home / "config.toml").write_text(CONFIG)
    (home / "config.toml").chmod(0o600)
    lines = [record("local/qwen3-coder", 200_000, 800_000, 10_000),
             record("ollama/llama3.3", 5_000, 0, 700, "compaction")]
    (home / "chat" / "usage" / "2026-12-02.jsonl").write_text("".join(json.dumps(r.to_json()) + "\n" for r in lines))
    env = {"EVER_HOME": str(home), "PATH": "/usr/bin:/bin"}
    done = ever(["cost", "--json"], env)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)["providers"]
    assert figures["local"]["cost_usd"] == 0.052 and figures["local"]["unpriced_calls"] == 0
    assert (figures["ollama"]["cost_usd"], figures["ollama"]["unpriced_calls"]) == (0.0, 1)
    assert figures["ollama"]["input_tokens"] == 5000 and figures["ollama"]["output_tokens"] == 700
