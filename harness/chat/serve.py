"""`ever serve`: the chat's owner with no terminal, until stopped [gist §10] [R3].

It holds the chat as `ever chat` does (the compactor, the turns, the subagents, the socket), so
closing every terminal stops nothing: `ever chat` attaches to it, `ever send` and `ever mcp` ask
it. A tool's question goes to the attached terminals; with none attached the answer is no, so a
script's message runs only what needs no asking (or what its own `--yes` allows).

`ever service install` writes a systemd user unit that runs it, restarts it when it dies, and
(with lingering on) keeps it across logout and reboot. The unit holds no secret: the key is read
from the environment file or the key file in EVER_HOME, as `ever chat` reads it.
"""

import asyncio
import os
import shlex
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from harness.chat.config import Settings

UNIT_NAME = "ever.service"


async def run_serve(settings: Settings, yes: bool, say: Callable[[str], None]) -> None:
    from harness.browse.browsing import page_writer
    from harness.memory.store import ChatBusy
    from harness.owner.owner import Owner

    said = False
    while True:  # a service started again while an `ever send` holds the chat waits its turn
        try:
            owner = await Owner.open(settings, yes=yes, ask=True)
            owner.page_writer = page_writer  # [B5] `ever forget` makes the pages anew
            break
        except ChatBusy as busy:
            if not said:
                say(f"{busy} Waiting for it to let the chat go…")
                said = True
            await asyncio.sleep(0.5)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(number, stop.set)
    try:
        await owner.serve()
        say(f"Ever serves the chat in {settings.chat_dir} as process {os.getpid()}: `ever chat` "
            f"attaches, `ever send` and `ever mcp` reach it. SIGTERM or Ctrl-C stops it.")
        for warning in owner.memory.store.warnings:
            say(warning)
        await stop.wait()
    finally:
        await owner.close()


RESTART_SECONDS = 5  # the first restart's delay; systemd 254 and later grow it to RESTART_SECONDS_MAX
RESTART_SECONDS_MAX = 300
STARTS_MAX, STARTS_WITHIN_SECONDS = 5, 600  # then systemd stops trying and says so in its log
BACKOFF_SYSTEMD = 254  # the first systemd with RestartSteps= and RestartMaxDelaySec=
SYSTEMCTL_SECONDS = 30  # a hang guard on systemctl and systemd-analyze


class UnitRefused(Exception):
    """The unit would not start as written: one sentence, with the fix."""


def unit_word(text: str) -> str:
    """A word of a unit file, double-quoted: a backslash and a quote escaped as systemd's
    quoting reads them, and `%` doubled (a specifier, else: `%h` would become the home). A `$`
    stays: systemd expands no variable in a command's program, nor in Environment=."""
    if any(character in text for character in "\n\r\0"):
        raise UnitRefused(f"{text!r} holds a line break, which a unit file cannot carry: use a path without one")
    quoted = text.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
    return f'"{quoted}"'


def unit_environment(settings: Settings) -> dict[str, str]:
    """What the service must be told that its own files do not say: EVER_HOME, and the settings
    this shell gives from its environment (a service sees none of it). config.toml is read by the
    service itself; the key never goes in the unit (the key file holds it)."""
    carried = {"EVER_HOME": str(settings.home)}
    for variable, key, value in (("EVER_MODEL", "model", settings.model),
                                 ("ANTHROPIC_BASE_URL", "base_url", settings.base_url)):
        if settings.sources.get(key) == f"environment {variable}" and value:
            carried[variable] = str(value)
    return carried


def key_for_the_service(settings: Settings, environ) -> None:
    """The service reads its key from the key file, never from this shell's environment, which it
    does not see: a key only in ANTHROPIC_API_KEY is refused with the command that files it."""
    from harness.chat.config import ConfigError, load_key

    try:
        load_key(settings.home, {})
    except ConfigError as error:
        if environ.get("ANTHROPIC_API_KEY", "").strip() and not settings.key_path.exists():
            raise UnitRefused(
                f"the key is only in ANTHROPIC_API_KEY, which a service does not see: put it in its file "
                f"first, with (umask 077; printf %s \"$ANTHROPIC_API_KEY\" > {shlex.quote(str(settings.key_path))}), "
                "then run ever service install again") from None
        raise UnitRefused(f"the service would have no key: {str(error).rstrip('.')}") from None


def systemd_version() -> int:
    import subprocess

    try:
        said = subprocess.run(["systemctl", "--version"], capture_output=True, text=True,
                              timeout=SYSTEMCTL_SECONDS).stdout
        return int(said.split()[1])
    except (OSError, subprocess.SubprocessError, IndexError, ValueError):
        return 0


def unit_text(settings: Settings, program: str, version: int = 0) -> str:
    """The systemd user unit: `ever serve` for this EVER_HOME, restarted when it fails, after a
    delay that grows (systemd 254 on), at most STARTS_MAX times in STARTS_WITHIN_SECONDS."""
    environment = "\n".join(f"Environment={unit_word(f'{name}={value}')}"
                            for name, value in unit_environment(settings).items())
    backoff = (f"RestartSteps=5\nRestartMaxDelaySec={RESTART_SECONDS_MAX}\n" if version >= BACKOFF_SYSTEMD else "")
    return f"""[Unit]
Description=Ever: the chat's owner (compactor, turns, subagents), for `ever chat` to attach to
After=network-online.target
StartLimitIntervalSec={STARTS_WITHIN_SECONDS}
StartLimitBurst={STARTS_MAX}

[Service]
Type=simple
{environment}
ExecStart={unit_word(program)} serve
Restart=on-failure
RestartSec={RESTART_SECONDS}
{backoff}# a kill loses nothing accepted: the inbox answers it at the next start

[Install]
WantedBy=default.target
"""


def unit_path() -> Path:
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "systemd" / "user" / UNIT_NAME


def verified(path: Path) -> str:
    """`systemd-analyze verify` on the unit, where there is one: "" when it finds nothing, else
    what it says of the unit, one line."""
    import shutil
    import subprocess

    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        return ""
    try:
        done = subprocess.run([analyze, "verify", str(path)], capture_output=True, text=True,
                              timeout=SYSTEMCTL_SECONDS)
    except (OSError, subprocess.SubprocessError):
        return ""
    said = [line for line in (done.stdout + done.stderr).splitlines() if UNIT_NAME in line or str(path) in line]
    return "; ".join(said) if said or done.returncode == 0 else f"systemd-analyze verify exited {done.returncode}"


def install_unit(settings: Settings, say: Callable[[str], None], environ=None) -> Path:
    """Write the unit (0600, its folder made 0700 if new), check it, and say the commands that
    start it and show its log."""
    environ = os.environ if environ is None else environ
    program = os.path.realpath(sys.argv[0]) if os.path.basename(sys.argv[0]) == "ever" else "ever"
    key_for_the_service(settings, environ)
    text = unit_text(settings, program, systemd_version())
    path = unit_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(text)
    problem = verified(path)
    if problem:
        path.unlink()
        raise UnitRefused(f"systemd-analyze verify refused the unit, so it was not kept: {problem}")
    say(f"Wrote {path}. Start it now and at every login with:\n"
        f"  systemctl --user daemon-reload && systemctl --user enable --now {UNIT_NAME}\n"
        f"keep it running after you log out (and from boot) with:\n"
        f"  loginctl enable-linger {environ.get('USER', '$USER')}\n"
        f"and see its log with:\n"
        f"  journalctl --user -u {UNIT_NAME} -f\n"
        f"`ever service uninstall` stops it and removes the unit.")
    return path


def uninstall_unit(say: Callable[[str], None]) -> None:
    """Stop and disable the unit where systemctl can (else say the command), then remove it."""
    import shutil
    import subprocess

    path = unit_path()
    if not path.exists():
        say(f"No unit at {path}: nothing to remove.")
        return
    stopped = ""
    systemctl = shutil.which("systemctl")
    if systemctl is not None:
        try:
            done = subprocess.run([systemctl, "--user", "disable", "--now", UNIT_NAME], capture_output=True,
                                  text=True, timeout=SYSTEMCTL_SECONDS)
            stopped = "stopped and disabled it, " if done.returncode == 0 else ""
        except (OSError, subprocess.SubprocessError):
            pass
    path.unlink()
    if systemctl is not None and stopped:
        subprocess.run([systemctl, "--user", "daemon-reload"], capture_output=True, timeout=SYSTEMCTL_SECONDS)
    say(f"Removed {path}" + (f" ({stopped.rstrip(', ')})." if stopped else
                             f"; if it still runs: systemctl --user disable --now {UNIT_NAME}."))
