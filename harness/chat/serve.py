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
    from harness.memory.store import ChatBusy
    from harness.owner.owner import Owner

    said = False
    while True:  # a service started again while an `ever send` holds the chat waits its turn
        try:
            owner = await Owner.open(settings, yes=yes, ask=True)
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


def unit_text(settings: Settings, program: str) -> str:
    """The systemd user unit: `ever serve` for this EVER_HOME, restarted whenever it ends."""
    environment = f"EVER_HOME={settings.home}"
    return f"""[Unit]
Description=Ever: the chat's owner (compactor, turns, subagents), for `ever chat` to attach to
After=network-online.target

[Service]
Type=simple
Environment={shlex.quote(environment)}
ExecStart={shlex.quote(program)} serve
Restart=always
RestartSec=2
# a kill loses nothing accepted: the inbox answers it at the next start

[Install]
WantedBy=default.target
"""


def unit_path() -> Path:
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "systemd" / "user" / UNIT_NAME


def install_unit(settings: Settings, say: Callable[[str], None]) -> Path:
    """Write the unit (0600, its folder made 0700 if new) and say the commands that start it."""
    program = os.path.realpath(sys.argv[0]) if os.path.basename(sys.argv[0]) == "ever" else "ever"
    path = unit_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(unit_text(settings, program))
    say(f"Wrote {path}. Start it now and at every login with:\n"
        f"  systemctl --user daemon-reload && systemctl --user enable --now {UNIT_NAME}\n"
        f"and keep it running after you log out (and from boot) with:\n"
        f"  loginctl enable-linger {os.environ.get('USER', '$USER')}")
    return path
