"""`ever service install` and `uninstall`, and `make uninstall`, as a person runs them.

Strategy: the unit is written for an `ever` copied into a folder whose name holds `%`, `$` and a
space, and a home whose name holds `%`: `systemd-analyze verify` (where there is one) must find its
program, so a `%` left as a specifier fails. Then the unit is read back by systemd's quoting rules,
written out here from systemd.syntax(7) and systemd.service(5) (a word in double quotes, `\\`
escaping, `%%` a percent; no variable in a command's program or in Environment=), and its command
run with only the environment the unit gives and what a user manager adds (HOME, PATH): the owner
it starts must answer a message through the local API, so the key came from the key file and the
base URL from the unit. Uninstalling runs a `systemctl` of the test's, which records what it was
asked.
"""

import os
import re
import shutil
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from harness.chat.config import load_settings
from harness.chat.serve import unit_text
from harness.localapi.server import echo
from tests.support.chat import EVER, environment, ever, is_compaction

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-ant-a-key-kept-in-its-file"
ANALYZE = shutil.which("systemd-analyze")


@pytest.fixture
def local(api):
    api.reset()
    api.responder = lambda body: "a summary line" if is_compaction(body) else echo(body)
    yield api


def settings_env(tmp_path: Path, api, key: str = "") -> dict:
    home = tmp_path / "home%yb"
    env = environment(home, api, key=key)
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    return env


def key_file(home: Path) -> None:
    home.mkdir(mode=0o700, exist_ok=True)
    path = home / "key"
    path.write_text(KEY + "\n")
    path.chmod(0o600)


def words(value: str) -> list[str]:
    """A unit line's value as systemd reads it: words, double quotes and backslashes undone,
    `%%` made single (the unit has no other specifier)."""
    found = re.findall(r'"((?:[^"\\]|\\.)*)"|(\S+)', value)
    return [re.sub(r"\\(.)", r"\1", quoted or bare).replace("%%", "%")
            for quoted, bare in found]


def fake_systemctl(folder: Path) -> Path:
    """A `systemctl` that records its arguments, one call a line, and succeeds."""
    folder.mkdir()
    record = folder / "calls"
    script = folder / "systemctl"
    script.write_text(f'#!/bin/sh\necho "$@" >> {record}\n[ "$1" = --version ] && echo "systemd 252"\nexit 0\n')
    script.chmod(0o755)
    return record


def test_install_refuses_a_key_only_in_the_environment_in_one_sentence_with_the_fix(tmp_path, local):
    env = settings_env(tmp_path, local, key=KEY)
    done = ever(["service", "install"], env)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("ever: the key is only in ANTHROPIC_API_KEY")
    assert "umask 077; printf %s \"$ANTHROPIC_API_KEY\" > " in done.stderr
    assert "ever service install again" in done.stderr
    assert KEY not in done.stderr + done.stdout
    assert not (tmp_path / "config" / "systemd" / "user" / "ever.service").exists()


@pytest.mark.slow
def test_the_unit_starts_an_owner_with_the_key_file_and_the_base_url_it_carries(tmp_path, local):
    env = settings_env(tmp_path, local)
    home = Path(env["EVER_HOME"])
    key_file(home)
    program_folder = tmp_path / "bin%y $HOME x"
    program_folder.mkdir()
    program = program_folder / "ever"
    shutil.copy2(EVER, program)  # a copy: its real path keeps the folder's name
    done = subprocess.run([str(program), "service", "install"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "journalctl --user -u ever.service -f" in done.stdout
    unit = tmp_path / "config" / "systemd" / "user" / "ever.service"
    text = unit.read_text()
    assert stat.S_IMODE(unit.stat().st_mode) == 0o600
    assert KEY not in text and "ANTHROPIC_API_KEY" not in text
    assert "Restart=on-failure\n" in text and "Restart=always" not in text
    assert "StartLimitBurst=5\n" in text and "StartLimitIntervalSec=600\n" in text
    if ANALYZE:
        verify = subprocess.run([ANALYZE, "verify", str(unit)], capture_output=True, text=True, timeout=120)
        assert verify.returncode == 0 and "ever.service" not in verify.stdout + verify.stderr, verify.stderr

    rows = dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))
    given = dict(word.split("=", 1) for line in text.splitlines() if line.startswith("Environment=")
                 for word in words(line.removeprefix("Environment=")))
    assert given == {"EVER_HOME": str(home), "ANTHROPIC_BASE_URL": local.base_url, "EVER_MODEL": env["EVER_MODEL"]}
    command = words(rows["ExecStart"])
    assert command == [str(program), "serve"]
    manager = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", **given}  # what a user manager gives, and the unit
    owner = subprocess.Popen(command, env=manager, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert "Ever serves the chat" in owner.stdout.readline()
        answered = ever(["send", "are you there?"], env)
        assert answered.stdout == "(local API, no model) You said: are you there?\n", answered.stderr
    finally:
        owner.send_signal(signal.SIGTERM)
        owner.communicate(timeout=120)
    assert all("<redacted>" in (r.headers.get("x-api-key"), r.headers.get("authorization"))
               for r in local.requests)  # every call carried a key, and the only key was the file's


def test_with_systemd_254_the_restarts_back_off(tmp_path, local):
    env = settings_env(tmp_path, local)
    text = unit_text(load_settings(env), "/usr/bin/ever", 254)
    assert "RestartSteps=5\n" in text and "RestartMaxDelaySec=300\n" in text and "RestartSec=5\n" in text
    assert "RestartSteps" not in unit_text(load_settings(env), "/usr/bin/ever", 252)


def test_uninstall_stops_the_unit_and_removes_it_and_make_uninstall_says_how_to_remove_the_mcp_entries(tmp_path, local):
    env = settings_env(tmp_path, local)
    key_file(Path(env["EVER_HOME"]))
    record = fake_systemctl(tmp_path / "fake")
    env["PATH"] = f"{tmp_path / 'fake'}:{env['PATH']}"
    unit = tmp_path / "config" / "systemd" / "user" / "ever.service"
    for remover in ("ever", "make"):
        env_here = dict(env, PATH=env["PATH"] + ":" + os.path.dirname(sys.executable))
        assert ever(["service", "install"], env_here).returncode == 0
        assert unit.exists()
        record.write_text("")
        if remover == "ever":
            done = ever(["service", "uninstall"], env_here)
        else:
            prefix = tmp_path / "prefix"
            (prefix / "bin").mkdir(parents=True, exist_ok=True)
            (prefix / "bin" / "ever").unlink(missing_ok=True)
            (prefix / "bin" / "ever").symlink_to(EVER)
            done = subprocess.run(["make", "-s", "-C", str(ROOT), "uninstall", f"PREFIX={prefix}"], env=env_here,
                                  capture_output=True, text=True, timeout=300)
            assert not (prefix / "bin" / "ever").exists()
            assert "claude mcp remove --scope user ever" in done.stdout and "[mcp_servers.ever]" in done.stdout
        assert done.returncode == 0, done.stderr
        assert not unit.exists()
        assert f"Removed {unit} (stopped and disabled it)." in done.stdout
        assert record.read_text().splitlines() == ["--user disable --now ever.service", "--user daemon-reload"]
