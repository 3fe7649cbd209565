"""Strategy: settings are read from a mapping standing in for the environment and from files in a
temporary EVER_HOME, never from the real ones. Expected values are the defaults and the precedence
written in harness/chat/config.py's docstring (environment over file over defaults), and exact file
texts written out by hand. The key is checked where it could leak: repr, str, format, log records,
exception messages, pickling; and the key file is checked against its mode.
"""

import copy
import logging
import os
import pickle
import stat

import pytest

from harness.chat.config import (
    ConfigError,
    ensure_home,
    load_key,
    load_settings,
    read_config,
    render_config,
    set_memory_model,
    update_config,
    write_config,
    write_key,
)

KEY = "sk-ant-test-0123456789abcdef"


def environment(home, **variables):
    return {"EVER_HOME": str(home), **variables}


def mode_of(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_with_no_file_and_no_variables_the_settings_are_the_documented_defaults(tmp_path):
    settings = load_settings(environment(tmp_path))
    assert settings.home == tmp_path
    # [H32] the issue's current lineup: Sonnet 5.5 and Haiku 5.5
    assert settings.model == "claude-sonnet-5-5"
    assert settings.base_url is None
    assert settings.approve == ()
    assert settings.memory_model == "claude-haiku-5-5"
    # off: a one-line summary needs no deliberation [C9]
    assert settings.memory_thinking == "off"
    assert settings.settle_timeout_seconds == 20
    assert settings.cache_marks is True
    assert settings.chat_dir == tmp_path / "chat"
    assert set(settings.sources.values()) == {"default"}


def test_the_default_models_are_current_and_their_requests_are_ones_the_api_takes():
    """[H32] Neither default is legacy, deprecated or retired in the table, and each default
    setting makes a request its model takes: Haiku 5.5's "off" is `disabled` (it thinks by
    default), Sonnet 5.5's is `between_tools` (disabled is refused there)."""
    from harness.calls.models import ACTIVE, request_problem, table_row
    from harness.chat.config import DEFAULTS

    for key in ("model", "memory.model"):
        row = table_row(DEFAULTS[key])
        assert row is not None and (row.status, row.legacy) == (ACTIVE, False), DEFAULTS[key]
    haiku, sonnet = table_row(DEFAULTS["memory.model"]), table_row(DEFAULTS["model"])
    assert haiku.thinking_fields(DEFAULTS["memory.thinking"]) == {"thinking": {"type": "disabled"}}
    assert sonnet.thinking_fields("off") == {"thinking": {"type": "between_tools"}}
    for model, fields in ((haiku, haiku.thinking_fields("off")), (sonnet, sonnet.thinking_fields("off"))):
        assert request_problem({"model": model.id, "max_tokens": 16_000, "messages": [], **fields}) is None


def test_ever_home_defaults_to_dot_ever_in_the_home_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert load_settings({}).home == tmp_path / ".ever"
    assert load_settings({"EVER_HOME": ""}).home == tmp_path / ".ever"
    assert load_settings({"EVER_HOME": "~/elsewhere"}).home == tmp_path / "elsewhere"


def test_the_environment_wins_over_the_file_and_the_file_over_the_defaults(tmp_path):
    (tmp_path / "config.toml").write_text(
        'model = "from-file"\n'
        'base_url = "http://file.example"\n'
        "[memory]\n"
        'model = "memory-from-file"\n')
    settings = load_settings(environment(tmp_path, EVER_MODEL="from-env",
                                         ANTHROPIC_BASE_URL="http://localhost:9"))
    assert settings.model == "from-env"
    assert settings.sources["model"] == "environment EVER_MODEL"
    assert settings.base_url == "http://localhost:9"
    assert settings.sources["base_url"] == "environment ANTHROPIC_BASE_URL"
    assert settings.memory_model == "memory-from-file"
    assert settings.sources["memory.model"] == "config.toml"
    assert settings.memory_thinking == "off"
    assert settings.sources["memory.thinking"] == "default"
    # an empty variable counts as unset
    assert load_settings(environment(tmp_path, EVER_MODEL="")).model == "from-file"


def test_the_writer_renders_the_documented_layout(tmp_path):
    text = render_config({"memory.thinking": "high", "approve": ["edit", "shell"],
                          "model": "m", "memory.settle_timeout_seconds": 2.5,
                          "cache.marks": False})
    assert text == (
        "# Ever's settings; see harness/chat/config.py. The environment overrides them\n"
        "# (EVER_MODEL, ANTHROPIC_BASE_URL). Ever edits this file in place: comments are kept.\n"
        'model = "m"\n'
        'approve = ["shell", "edit"]\n'
        "\n"
        "[memory]\n"
        'thinking = "high"\n'
        "settle_timeout_seconds = 2.5\n"
        "\n"
        "[cache]\n"
        "marks = false\n")


def test_every_setting_round_trips_through_the_file(tmp_path):
    values = {
        "model": 'a "quoted" \\ model\twith\ncontrol \x7f and é ✓',
        "base_url": "https://api.example/v1",
        "approve": ["shell", "write", "edit"],
        "memory.model": "claude-haiku-4-5",
        "memory.thinking": "off",
        "memory.settle_timeout_seconds": 7,
        "cache.marks": True,
    }
    path = write_config(tmp_path, values)
    assert path == tmp_path / "config.toml"
    assert read_config(path) == values
    assert mode_of(path) == 0o600
    settings = load_settings(environment(tmp_path))
    assert settings.model == values["model"]
    assert settings.approve == ("shell", "write", "edit")
    assert settings.settle_timeout_seconds == 7


def test_an_update_changes_its_keys_and_keeps_the_others(tmp_path):
    write_config(tmp_path, {"model": "m", "approve": ["shell"]})
    update_config(tmp_path, {"memory.model": "claude-haiku-4-5", "memory.thinking": "low",
                             "approve": None})
    assert read_config(tmp_path / "config.toml") == {
        "model": "m", "memory.model": "claude-haiku-4-5", "memory.thinking": "low"}
    with pytest.raises(ConfigError, match="there is no setting 'memory.modle'"):
        update_config(tmp_path, {"memory.modle": "x"})


def test_the_home_is_created_for_the_user_alone(tmp_path):
    home = tmp_path / "new-home"
    write_config(home, {"model": "m"})
    assert mode_of(home) == 0o700


@pytest.mark.parametrize("text, message", [
    ("[memroy]\n", "config.toml: there is no setting 'memroy'; the settings are model, "),
    ('modle = "x"\n', "config.toml: there is no setting 'modle'; the settings are model, "
                      "base_url, approve, memory.model, memory.thinking, "
                      "memory.settle_timeout_seconds, cache.marks, agents.tokens_max, agents.seconds_max, agents.tool_calls_max, "
                      "turn.calls_max, turn.tool_calls_max, turn.tokens_max, turn.seconds_max, "
                      "turn.output_bytes_max, context_window, memory.context_window, memory.quiet, "
                      "chat.calls_per_hour, chat.calls_per_day, chat.tokens_per_hour, chat.tokens_per_day, "
                      "chat.dollars_per_hour, chat.dollars_per_day, chat.subagents_alive, "
                      "chat.subagents_per_message, chat.subagents_per_chain, backup.dest, backup.every_seconds."),
    ("[memory]\nsettle_timeout_seconds = \"20\"\n",
     "config.toml: memory.settle_timeout_seconds must be a number of seconds above 0; "
     "it is '20'."),
    ("[memory]\nsettle_timeout_seconds = true\n",
     "memory.settle_timeout_seconds must be a number of seconds above 0; it is True."),
    ("[memory]\nsettle_timeout_seconds = 0\n", "above 0; it is 0."),
    ("[memory]\nthinking = \"huge\"\n",
     "memory.thinking must be one of off, low, medium, high, xhigh, max, or a thinking budget of at "
     "least 1024 tokens; it is 'huge'."),
    ('approve = ["rm"]\n', "approve must be a list of tool names from shell, write, edit, read; "
                           "it is ['rm']."),
    ('approve = "shell"\n', "approve must be a list of tool names"),
    ('base_url = "localhost:8080"\n', "base_url must be a URL starting with http:// or https://"),
    ("[cache]\nmarks = 1\n", "cache.marks must be true or false; it is 1."),
    ('model = "unterminated\n', "config.toml is not valid TOML ("),
])
def test_a_bad_config_file_is_one_clear_sentence(tmp_path, text, message):
    (tmp_path / "config.toml").write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_settings(environment(tmp_path))
    assert message in str(caught.value)


def test_a_bad_environment_value_names_its_variable(tmp_path):
    with pytest.raises(ConfigError) as caught:
        load_settings(environment(tmp_path, ANTHROPIC_BASE_URL="localhost:8080"))
    assert str(caught.value) == ("environment variable ANTHROPIC_BASE_URL: base_url must be a URL "
                                 "starting with http:// or https://; it is 'localhost:8080'.")


def test_a_missing_key_says_what_to_set(tmp_path):
    with pytest.raises(ConfigError) as caught:
        load_key(tmp_path, {})
    assert str(caught.value) == (
        f"No API key: set ANTHROPIC_API_KEY, or put the key in {tmp_path}/key "
        f"(readable only by you: chmod 600 {tmp_path}/key).")


def test_the_environment_key_wins_over_the_key_file(tmp_path):
    write_key(tmp_path, "sk-from-file")
    assert load_key(tmp_path, {"ANTHROPIC_API_KEY": KEY}).reveal() == KEY
    assert load_key(tmp_path, {"ANTHROPIC_API_KEY": "  "}).reveal() == "sk-from-file"


def test_a_saved_key_file_is_0600_and_reads_back(tmp_path):
    path = write_key(tmp_path, KEY + "\n")
    assert mode_of(path) == 0o600
    assert path.read_text() == KEY + "\n"
    assert load_key(tmp_path, {}).reveal() == KEY


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620, 0o666])
def test_a_key_file_others_can_open_is_refused(tmp_path, mode):
    path = tmp_path / "key"
    path.write_text(KEY)
    os.chmod(path, mode)
    with pytest.raises(ConfigError) as caught:
        load_key(tmp_path, {})
    assert str(caught.value) == (f"{path} is open to other users (mode {mode:04o}), so Ever will "
                                 f"not use it: run chmod 600 {path}.")
    assert KEY not in str(caught.value)


@pytest.mark.parametrize("content, message", [
    ("", "is empty; put the API key in it, or set ANTHROPIC_API_KEY."),
    ("  \n", "is empty; put the API key in it, or set ANTHROPIC_API_KEY."),
    (KEY + " " + KEY, "holds more than one word; put only the key in it."),
    (KEY + "é", "holds characters an API key never has; put only the key in it."),
])
def test_a_malformed_key_file_is_refused_without_quoting_it(tmp_path, content, message):
    path = tmp_path / "key"
    path.write_text(content)
    os.chmod(path, 0o600)
    with pytest.raises(ConfigError) as caught:
        load_key(tmp_path, {})
    assert str(caught.value) == f"{path} {message}"
    assert "sk-ant" not in str(caught.value)


def test_the_key_is_never_shown(tmp_path, caplog):
    secret = load_key(tmp_path, {"ANTHROPIC_API_KEY": KEY})
    settings = load_settings(environment(tmp_path, ANTHROPIC_API_KEY=KEY))
    shown = [repr(secret), str(secret), f"{secret}", f"{secret!r}", f"{secret:>40}",
             "%s %r" % (secret, secret), repr(settings), repr([secret, {"key": secret}])]
    for text in shown:
        assert KEY not in text
    assert repr(secret) == "<API key hidden>"
    with caplog.at_level(logging.DEBUG):
        logging.getLogger("ever").warning("calling with %s and %r", secret, secret)
        logging.getLogger("ever").exception(ValueError(secret))
    assert KEY not in caplog.text
    assert "<API key hidden>" in caplog.text
    assert KEY not in str(ValueError(secret))
    with pytest.raises(TypeError, match="not pickled"):
        pickle.dumps(secret)
    assert copy.deepcopy(secret) is secret
    assert secret.reveal() == KEY


def test_memory_model_keeps_the_users_comments_and_order(tmp_path, monkeypatch):
    written = ("# my settings, by hand\n"
               "model = \"m\"  # the turns' model\n"
               "\n"
               "[memory]\n"
               "thinking = \"off\"  # cheap for now\n"
               "model = \"claude-haiku-4-5\"\n")
    ensure_home(tmp_path)
    (tmp_path / "config.toml").write_text(written)
    (tmp_path / "config.toml").chmod(0o600)
    monkeypatch.setenv("EVER_HOME", str(tmp_path))
    monkeypatch.delenv("EVER_MODEL", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    said = set_memory_model("claude-sonnet-4-6", "low")
    assert said == "memory model: claude-sonnet-4-6, thinking: low"
    assert (tmp_path / "config.toml").read_text() == (
        "# my settings, by hand\n"
        "model = \"m\"  # the turns' model\n"
        "\n"
        "[memory]\n"
        "thinking = \"low\"  # cheap for now\n"
        "model = \"claude-sonnet-4-6\"\n")
    assert mode_of(tmp_path / "config.toml") == 0o600
