"""Strategy: `[providers.NAME]` tables in config.toml as a user writes them [H25]: each one read and
checked, a wrong one refused in one sentence that names the file and the key, and a model's name
routed to its provider (`NAME/MODEL`, the built-in `openai`, bare ids Anthropic's)."""

import pytest

from harness.calls.outcomes import SettingsError
from harness.calls.providers import BUILT_IN, provider_key, route
from harness.chat.config import ConfigError, load_settings


def home_with(tmp_path, text):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "config.toml").write_text(text)
    (home / "config.toml").chmod(0o600)
    return {"EVER_HOME": str(home)}


def test_a_providers_table_is_read_and_a_model_name_picks_it(tmp_path):
    settings = load_settings(home_with(tmp_path, 'model = "local/qwen3-coder"\n[providers.local]\n'
                                                 'api = "openai-chat"\nbase_url = "http://localhost:8080/v1"\n'
                                                 'context_window = 32768\nprices = {input = 0.15, output = 0.6}\n'))
    local = settings.providers["local"]
    assert (local.api, local.base_url, local.key_env, local.context_window, local.prices) == (
        "openai-chat", "http://localhost:8080/v1", None, 32768, (15, 15, 60))
    assert (route(settings.model, settings.providers).provider, route(settings.model, settings.providers).model) == (
        local, "qwen3-coder")
    assert route("openai/gpt-5.5").provider == BUILT_IN["openai"] and route("openai/gpt-5.5").model == "gpt-5.5"
    assert route("claude-sonnet-4-6").provider.api == "anthropic"
    assert route("nobody/model").provider.api == "anthropic"  # no such provider: the name as it is
    assert route("nobody/model").model == "nobody/model"


@pytest.mark.parametrize("table, words", [
    ('api = "openai-chat"\nbase_url = "ftp://x"', "base_url must be a URL"),
    ('api = "gemini"', "api must be one of openai-chat, openai-responses, anthropic"),
    ('api = "openai-chat"\nwindow = 3', "has no setting 'window'"),
    ('api = "openai-chat"\ncontext_window = 0', "context_window must be a whole number above 0"),
    ('api = "openai-chat"\nprices = {input = 0.025, output = 1}', "whole cents"),
    ('api = "openai-chat"\nprices = {input = 1}', "prices must be a table of input, output"),
])
def test_a_wrong_providers_table_is_one_sentence_naming_the_file(tmp_path, table, words):
    env = home_with(tmp_path, f"[providers.local]\n{table}\n")
    with pytest.raises(ConfigError) as raised:
        load_settings(env)
    sentence = str(raised.value)
    assert words in sentence and sentence.startswith(env["EVER_HOME"]) and sentence.count("\n") == 0


def test_a_providers_key_is_read_from_its_variable_and_a_missing_one_is_said():
    openai = BUILT_IN["openai"]
    assert provider_key(openai, {"OPENAI_API_KEY": " sk-test \n"}) == "sk-test"
    with pytest.raises(SettingsError) as raised:
        provider_key(openai, {})
    assert str(raised.value) == "OPENAI_API_KEY is not set: the provider openai needs its API key there."
    assert provider_key(route("x").provider, {}) == ""  # Anthropic's key is config.py's, not a variable
