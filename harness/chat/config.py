"""Settings: where the chat lives, which models it calls, what the tools may do without asking.

Where each setting comes from, highest first [H1]:

1. the command's own flags (`ever send --yes`), applied by the CLI on top of these settings;
2. the environment: `EVER_HOME`, `EVER_MODEL`, `ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY`
   (an empty variable counts as unset);
3. `$EVER_HOME/config.toml`, and for the key `$EVER_HOME/key`;
4. the defaults below.

`EVER_HOME` itself comes only from the environment (default `~/.ever`): the file that could name it
lives inside it.

The config file holds only these keys (anything else is a clear error, so a typo is never silently
ignored):

    model = "claude-sonnet-5-5"            # the turns' model; EVER_MODEL overrides it
    context_window = 200000                # tokens, for a model harness/calls/models.py does not
                                           # know (default: 200,000, its smallest window)
    base_url = "http://localhost:8080"     # any Messages API; ANTHROPIC_BASE_URL overrides it
    approve = ["shell", "write", "edit"]   # tools that run without asking ("read": outside the
                                           # working directory too)
    [memory]
    model = "claude-haiku-5-5"             # the compactor's model [gist §4] "a cheap one"
    context_window = 200000                # the same, for the compactor's model
    thinking = "off"                       # off, an effort (low … max) or a budget in tokens,
                                           # as the model takes (harness/calls/models.py)
    settle_timeout_seconds = 20            # how long a turn waits for its view [D10]
    quiet = false                          # true: the chat shows no `memory:` rows (/quiet toggles)
    [backup]
    dest = "/mnt/drive/ever"               # or "restic:REPOSITORY": backed up after each turn [S24]
    every_seconds = 600                    # and on this timer, with its restore test
    [cache]
    marks = true                           # false: send no cache marks (servers that reject them)
    [agents]                               # each subagent's caps [A1]
    tokens_max = 2000000                   # prompt (cache reads too) and output, all its calls
    seconds_max = 1800                     # wall time
    tool_calls_max = 100
    [providers.local]                      # any number: the APIs a model is called through, a
    api = "openai-chat"                    # model named `local/…` picks this one; see
    base_url = "http://localhost:8080/v1"  # harness/calls/providers.py
    [turn]                                 # each turn's caps; reaching one ends the turn
    calls_max = 100                        # requests, the tool loop's included
    tool_calls_max = 200
    tokens_max = 5000000                   # prompt (cache reads too) and output, all its calls
    seconds_max = 3600                     # wall time
    output_bytes_max = 4000000             # text, thinking and tool input streamed
    [chat]                                 # the whole chat's caps [H15]; past one its work
    calls_per_hour = 600                   # stops until your next message
    calls_per_day = 3000                   # (tokens_per_hour, tokens_per_day, dollars_per_hour,
    subagents_per_chain = 24               # dollars_per_day, subagents_alive, _per_message too)

Ever writes the file back itself (`/memory-model` saves `memory.model` and `memory.thinking`):
`update_config` edits the file with tomlkit, so the user's comments, order and layout survive and
only the keys it sets change; a new file is rendered whole by `render_config`, every key in a fixed
order. Either way the file is replaced atomically, mode 0600 (`write_whole`,
harness/memory/logfile.py).

The API key is a `Secret`: its repr and str are `<API key hidden>`, so no repr, log line or error
message can show it; the one way to read it is `Secret.reveal()`, for the client. A key kept in
`$EVER_HOME/key` must be the user's alone: a file that group or others may read or write is refused
with a sentence saying how to fix it (the shell tool runs as the same user and can still read it;
what the key file guards against is other users).

The home is trusted only if it is the user's [H12]: as ssh refuses a `~/.ssh` that others
could change, Ever refuses an EVER_HOME, `config.toml` or `instructions.md` (and the key file) that
belongs to another user or that group or others may write, naming the file and the command that
fixes it. Another local user who made the home first (`mkdir -m 777`) would otherwise choose the
base URL the key is sent to, and which tools run without asking.
"""

import math
import os
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.calls.approval import APPROVABLE_TOOLS
from harness.calls.budget import ChatCaps
from harness.calls.caps import TurnCaps
from harness.calls.models import EFFORTS, setting_problem
from harness.calls.providers import ProviderError, providers_from
from harness.memory.agentlog import AgentCaps
from harness.memory.logfile import write_whole

CHAT_CAP_NAMES = tuple(ChatCaps.__dataclass_fields__)
HOME_DEFAULT = "~/.ever"
CONFIG_NAME = "config.toml"
KEY_NAME = "key"

THINKING_EFFORTS = ("off",) + EFFORTS
MEMORY_MAX_TOKENS = 16_000  # the compactor's max_tokens (harness/calls/compactor.py)

# [H1] the defaults. [H32] the current lineup's Sonnet and Haiku: Sonnet 4.6 and Haiku 4.5 are
# legacy, and the compactor's price and window decide the first day's cost. The compactor's
# model is the gist's cheap Haiku [gist §4]; its thinking is off [C9], sent as `disabled` (Haiku
# 5.5 thinks by default and may turn it off). The settle timeout is eukhe's [D10].
DEFAULTS: dict[str, Any] = {
    "model": "claude-sonnet-5-5",
    "base_url": None,
    "approve": [],
    "memory.model": "claude-haiku-5-5",
    "memory.thinking": "off",
    "memory.settle_timeout_seconds": 20,
    "cache.marks": True,
    "agents.tokens_max": 2_000_000,
    "agents.seconds_max": 1800,
    "agents.tool_calls_max": 100,
    "turn.calls_max": TurnCaps.calls,
    "turn.tool_calls_max": TurnCaps.tool_calls,
    "turn.tokens_max": TurnCaps.tokens,
    "turn.seconds_max": int(TurnCaps.seconds),
    "turn.output_bytes_max": TurnCaps.output_bytes,
    # tokens, for a model harness/calls/models.py does not know; None: its default
    "context_window": None,
    "memory.context_window": None,
    "memory.quiet": False,
    # [H15] the whole chat's caps, whoever's words started the work (harness/calls/budget.py)
    **{f"chat.{name}": getattr(ChatCaps, name) for name in CHAT_CAP_NAMES},
    "backup.dest": None,  # a folder or restic:REPOSITORY: the owner backs up after each turn [S24]
    "backup.every_seconds": 600,  # and on this timer, checking it (harness/memory/backup.py)
}
KEYS = tuple(DEFAULTS)

# Environment variables that override a config key.
ENVIRONMENT_KEYS = {"EVER_MODEL": "model", "ANTHROPIC_BASE_URL": "base_url"}


class ConfigError(Exception):
    """A setting Ever cannot use; the message is one sentence for the user, and never the key."""


class Secret:
    """The API key. Shown nowhere: repr, str and format all give `<API key hidden>`."""

    __slots__ = ("_value",)
    shown = "<API key hidden>"

    def __init__(self, value: str):
        self._value = value

    def reveal(self) -> str:
        """The key itself: only for the HTTP client."""
        return self._value

    def __repr__(self) -> str:
        return self.shown

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return self.shown

    # Copies share the one object; pickling (to a file, another process) is refused.
    def __copy__(self) -> "Secret":
        return self

    def __deepcopy__(self, memo: dict) -> "Secret":
        return self

    def __reduce__(self):
        raise TypeError("an API key is not pickled")


@dataclass(frozen=True)
class Settings:
    home: Path
    model: str
    base_url: str | None
    approve: tuple[str, ...]
    memory_model: str
    memory_thinking: Any  # "off", an effort, or a budget in tokens
    settle_timeout_seconds: float
    cache_marks: bool
    agent_caps: Any = None  # harness/calls/agents.py AgentCaps; None: its defaults
    turn_caps: TurnCaps = TurnCaps()
    chat_caps: ChatCaps = ChatCaps()
    # tokens, for a model harness/calls/models.py does not know; None: its default
    context_window: int | None = None
    memory_context_window: int | None = None
    memory_quiet: bool = False  # the terminal shows no `memory:` rows
    backup_dest: str | None = None  # where the owner backs the chat up [S24]
    backup_every_seconds: int = 600
    priced: bool = True  # False: `ever chat --local`, whose echo costs nothing, whatever the model's name
    # the config's [providers.NAME] tables (harness/calls/providers.py); the built-ins beside them
    providers: Mapping[str, Any] = field(default_factory=dict)
    # where each key's value came from: "environment EVER_MODEL", "config.toml" or "default"
    sources: Mapping[str, str] = field(default_factory=dict, compare=False)

    @property
    def chat_dir(self) -> Path:
        return self.home / "chat"

    @property
    def config_path(self) -> Path:
        return self.home / CONFIG_NAME

    @property
    def key_path(self) -> Path:
        return self.home / KEY_NAME


def home_from(environ: Mapping[str, str]) -> Path:
    """$EVER_HOME, made absolute; `~/.ever` when unset or empty."""
    raw = environ.get("EVER_HOME", "").strip() or HOME_DEFAULT
    return Path(os.path.abspath(os.path.expanduser(raw)))


INSTRUCTIONS_NAME = "instructions.md"


def untrusted(path: Path, status: os.stat_result) -> str | None:
    """The sentence refusing `path` if another user owns it or others may write it [H12];
    None when it is the user's alone to change."""
    if status.st_uid != os.getuid():
        return (f"{path} belongs to another user (uid {status.st_uid}), so Ever will not trust it: "
                f"use a home of your own (set EVER_HOME), or make it yours (chown).")
    if status.st_mode & 0o022:
        mode = stat.S_IMODE(status.st_mode)
        return (f"{path} may be changed by other users (mode {mode:04o}), so Ever will not trust "
                f"it: run chmod go-w {path}.")
    return None


def check_trusted(path: Path) -> None:
    """A ConfigError if `path` exists and is not the user's alone to change [H12]."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as error:
        raise ConfigError(f"{path} cannot be read ({error.strerror}).") from None
    problem = untrusted(path, status)
    if problem:
        raise ConfigError(problem)


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """The settings, environment over config file over defaults [H1]. Reads no key."""
    environ = os.environ if environ is None else environ
    home = home_from(environ)
    if home.exists() and not home.is_dir():
        raise ConfigError(f"{home} is not a directory; EVER_HOME names the directory the chat "
                          "lives in (unset it for ~/.ever).")
    for trusted in (home, home / INSTRUCTIONS_NAME):  # config.toml is checked as it is read
        check_trusted(trusted)
    path = home / CONFIG_NAME
    values = dict(DEFAULTS)
    sources = {key: "default" for key in KEYS}
    for key, value in read_config(path).items():
        values[key] = value
        sources[key] = CONFIG_NAME
    for variable, key in ENVIRONMENT_KEYS.items():
        raw = environ.get(variable, "").strip()
        if raw:
            values[key] = checked(key, raw, f"environment variable {variable}")
            sources[key] = f"environment {variable}"
    return Settings(
        home=home,
        model=values["model"],
        base_url=values["base_url"],
        approve=tuple(values["approve"]),
        memory_model=values["memory.model"],
        memory_thinking=values["memory.thinking"],
        settle_timeout_seconds=values["memory.settle_timeout_seconds"],
        cache_marks=values["cache.marks"],
        agent_caps=AgentCaps(values["agents.tokens_max"], values["agents.seconds_max"],
                             values["agents.tool_calls_max"]),
        turn_caps=TurnCaps(values["turn.calls_max"], values["turn.tool_calls_max"], values["turn.tokens_max"],
                           values["turn.seconds_max"], values["turn.output_bytes_max"]),
        chat_caps=ChatCaps(**{name: values[f"chat.{name}"] for name in CHAT_CAP_NAMES}),
        context_window=values["context_window"],
        memory_context_window=values["memory.context_window"],
        memory_quiet=values["memory.quiet"],
        backup_dest=values["backup.dest"],
        backup_every_seconds=values["backup.every_seconds"],
        providers=read_providers(path),
        sources=sources,
    )


def missing_key_sentence(home: Path) -> str:
    return (f"No API key: set ANTHROPIC_API_KEY, or put the key in {home / KEY_NAME} "
            f"(readable only by you: chmod 600 {home / KEY_NAME}).")


def load_key(home: Path, environ: Mapping[str, str] | None = None) -> Secret:
    """ANTHROPIC_API_KEY, else the key file in `home`; a ConfigError saying what to set if neither."""
    environ = os.environ if environ is None else environ
    from_environment = environ.get("ANTHROPIC_API_KEY", "").strip()
    if from_environment:
        return Secret(from_environment)
    path = home / KEY_NAME
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        raise ConfigError(missing_key_sentence(home)) from None
    except OSError as error:
        raise ConfigError(f"{path} cannot be read ({error.strerror}).") from None
    try:
        # fstat on the open file: the mode checked is the mode of what is read
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise ConfigError(f"{path} is not a regular file; put the API key in it.")
        if status.st_uid != os.getuid():
            raise ConfigError(untrusted(path, status))
        if status.st_mode & 0o077:
            mode = stat.S_IMODE(status.st_mode)
            raise ConfigError(f"{path} is open to other users (mode {mode:04o}), so Ever will not "
                              f"use it: run chmod 600 {path}.")
        data = b""
        while chunk := os.read(descriptor, 65536):
            data += chunk
    finally:
        os.close(descriptor)
    try:
        key = data.decode("ascii").strip()
    except UnicodeDecodeError:
        # the sentence names no byte of the file: it may be the key
        raise ConfigError(f"{path} holds characters an API key never has; "
                          "put only the key in it.") from None
    if not key:
        raise ConfigError(f"{path} is empty; put the API key in it, or set ANTHROPIC_API_KEY.")
    if any(character.isspace() for character in key):
        raise ConfigError(f"{path} holds more than one word; put only the key in it.")
    return Secret(key)


def write_key(home: Path, key: str) -> Path:
    """Save `key` as `home/key`, mode 0600, replacing any earlier one."""
    ensure_home(home)
    path = home / KEY_NAME
    write_whole(path, (key.strip() + "\n").encode("utf-8"))
    return path


def ensure_home(home: Path) -> None:
    """Create EVER_HOME, mode 0700: the chat's files are the user's alone."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)


# --- the config file -------------------------------------------------------------------------


def checked(key: str, value: Any, where: str) -> Any:
    """`value` as the setting `key` takes it; a ConfigError naming `where` otherwise."""

    def wrong(expected: str) -> ConfigError:
        shown = "a value with a password in it" if key == "base_url" and "@" in str(value) else repr(value)
        return ConfigError(f"{where}: {key} must be {expected}; it is {shown}.")

    if key not in DEFAULTS:
        raise ConfigError(f"{where}: there is no setting {key!r}; the settings are "
                          f"{', '.join(KEYS)}.")
    if key in ("model", "memory.model"):
        if not isinstance(value, str) or not value.strip():
            raise wrong("a model name (a non-empty string)")
        return value.strip()
    if key == "base_url":
        if not isinstance(value, str) or not value.startswith(("http://", "https://")):
            raise wrong("a URL starting with http:// or https://")
        return value
    if key == "approve":
        if not isinstance(value, list) or any(name not in APPROVABLE_TOOLS for name in value):
            raise wrong(f"a list of tool names from {', '.join(APPROVABLE_TOOLS)}")
        return [name for name in APPROVABLE_TOOLS if name in value]
    if key == "memory.thinking":
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value.strip())  # a budget typed at /memory-model
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1024:
            return value
        if value not in THINKING_EFFORTS:
            raise wrong(f"one of {', '.join(THINKING_EFFORTS)}, or a thinking budget of at least 1024 tokens")
        return value
    if key == "memory.settle_timeout_seconds":
        # bool is an int in Python, and `true` is no number of seconds
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not math.isfinite(value) or value <= 0):
            raise wrong("a number of seconds above 0")
        return value
    if key in ("agents.tokens_max", "agents.tool_calls_max", "agents.seconds_max", "turn.calls_max",
               "turn.tool_calls_max", "turn.tokens_max", "turn.seconds_max", "turn.output_bytes_max",
               "context_window", "memory.context_window", "backup.every_seconds") or key.startswith("chat."):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise wrong("a whole number above 0")
        return value
    if key == "backup.dest":
        if not isinstance(value, str) or not value.strip():
            raise wrong("a folder, or restic:REPOSITORY")
        return value.strip()
    if key in ("cache.marks", "memory.quiet"):
        if not isinstance(value, bool):
            raise wrong("true or false")
        return value
    raise AssertionError(key)


def flatten(table: Mapping[str, Any], where: str) -> dict[str, Any]:
    """TOML tables one level deep as dotted keys, each checked."""
    values: dict[str, Any] = {}
    tables = {key.partition(".")[0] for key in KEYS if "." in key}
    for name, value in table.items():
        if name == "providers":  # tables of their own, read by `read_providers`
            continue
        if isinstance(value, dict) and name in tables:
            for inner, inner_value in value.items():
                key = f"{name}.{inner}"
                values[key] = checked(key, inner_value, where)
        else:
            values[name] = checked(name, value, where)
    return values


def read_config_text(path: Path) -> str | None:
    """The config file's text, trusted and valid TOML; None when there is no file."""
    try:
        with open(path, "rb") as file:
            problem = untrusted(path, os.fstat(file.fileno()))  # the file read, not a name
            if problem:
                raise ConfigError(problem)
            data = file.read()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise ConfigError(f"{path} is a directory; the config file is a TOML file.") from None
    except OSError as error:
        raise ConfigError(f"{path} cannot be read ({error.strerror}).") from None
    try:
        text = data.decode("utf-8")
        tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path} is not valid TOML ({error}).") from None
    return text


def read_providers(path: Path) -> dict[str, Any]:
    """The config file's `[providers.NAME]` tables, checked; {} when there are none."""
    text = read_config_text(path)
    if text is None:
        return {}
    try:
        return providers_from(tomllib.loads(text).get("providers", {}), str(path))
    except ProviderError as error:
        raise ConfigError(str(error)) from None


def read_config(path: Path) -> dict[str, Any]:
    """The settings in the config file as dotted keys, checked; {} when there is no file."""
    text = read_config_text(path)
    return {} if text is None else flatten(tomllib.loads(text), str(path))


def toml_string(text: str) -> str:
    """A TOML basic string: quote and backslash escaped, control characters as \\uXXXX."""
    out = ['"']
    for character in text:
        code = ord(character)
        if character in ('"', "\\"):
            out.append("\\" + character)
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        else:
            out.append(character)
    out.append('"')
    return "".join(out)


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)  # finite (checked), and repr always has a "." or an "e"
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_string(item) for item in value) + "]"
    raise AssertionError(type(value))


def render_config(values: Mapping[str, Any]) -> str:
    """The config file for `values` (dotted keys, checked): top-level keys, then one table each."""
    values = {key: checked(key, value, "render_config")
              for key, value in values.items() if value is not None}
    lines = ["# Ever's settings; see harness/chat/config.py. The environment overrides them",
             "# (EVER_MODEL, ANTHROPIC_BASE_URL). Ever edits this file in place: comments are kept."]
    tables: dict[str, list] = {}
    for key in KEYS:
        if key not in values:
            continue
        table, _, name = key.rpartition(".")
        tables.setdefault(table, []).append(f"{name} = {toml_value(values[key])}")
    for table, rows in tables.items():
        if table:
            lines.append("")
            lines.append(f"[{table}]")
        lines.extend(rows)
    return "\n".join(lines) + "\n"


def write_config(home: Path, values: Mapping[str, Any]) -> Path:
    """Replace the config file with `values` (dotted keys)."""
    ensure_home(home)
    path = home / CONFIG_NAME
    write_whole(path, render_config(values).encode("utf-8"))
    return path


def update_config(home: Path, changes: Mapping[str, Any]) -> Path:
    """Set each dotted key of `changes` in the config file (None removes the key), keeping the
    rest of the file as the user wrote it: its other keys, comments, order and layout."""
    path = home / CONFIG_NAME
    text = read_config_text(path)
    values = {} if text is None else flatten(tomllib.loads(text), str(path))
    for key, value in changes.items():
        if value is None:
            if key not in DEFAULTS:
                checked(key, value, "update_config")  # raises: no such setting
            values.pop(key, None)
        else:
            values[key] = checked(key, value, "update_config")
    if text is None:
        return write_config(home, values)
    import tomlkit  # only where the file is written: reading it needs tomllib alone

    document = tomlkit.parse(text)
    for key, value in changes.items():
        table_name, _, name = key.rpartition(".")
        table = document if not table_name else document.get(table_name)
        if value is None:
            if table is not None and name in table:
                del table[name]
        else:
            if table is None:
                document[table_name] = tomlkit.table()
                table = document[table_name]
            table[name] = values[key]
    edited = tomlkit.dumps(document)
    # The file as edited must say what was meant, or it is rendered anew (its comments lost).
    if flatten(tomllib.loads(edited), str(path)) != values:
        return write_config(home, values)
    ensure_home(home)
    write_whole(path, edited.encode("utf-8"))
    return path


def memory_setting_problem(model: str, thinking: Any, turns_model: str) -> str | None:
    """Why the compaction model cannot take `thinking`, in one sentence naming what it takes
    (harness/calls/models.py); None when it can."""
    memory_model = turns_model if model == "turns" else model
    return setting_problem(memory_model, thinking, MEMORY_MAX_TOKENS)


def check_memory_setting(settings: Settings) -> None:
    """At the chat's start: a ConfigError when the compaction model lacks its thinking setting."""
    problem = memory_setting_problem(settings.memory_model, settings.memory_thinking, settings.model)
    if problem:
        raise ConfigError(problem)


def set_memory_model(model: str | None, effort: str | None) -> str:
    """`/memory-model`: save the compaction model and effort given; say what they are now. A
    pair the model cannot take is refused (ConfigError) and nothing is saved."""
    settings = load_settings()
    changes: dict[str, Any] = {}
    if model:
        changes["memory.model"] = checked("memory.model", model, "/memory-model")
    if effort:
        changes["memory.thinking"] = checked("memory.thinking", effort, "/memory-model")
    problem = memory_setting_problem(changes.get("memory.model", settings.memory_model),
                                     changes.get("memory.thinking", settings.memory_thinking),
                                     settings.model)
    if problem:
        raise ConfigError(problem)
    if changes:
        update_config(settings.home, changes)
        settings = load_settings()
    return f"memory model: {settings.memory_model}, thinking: {settings.memory_thinking}"
