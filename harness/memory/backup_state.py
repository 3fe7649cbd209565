"""What a home knows of its backups (harness/memory/backup.py): `chat/backup.json`, a cache
replaced whole, naming each destination backed up into, when the last backup there was taken, how
many messages it held, and when it was last checked and how that went [S24]. `ever forget` rewrites
each destination it names; `ever memory status` says the last one (`Memory.status()`'s
`last_backup`).
"""

import json
from pathlib import Path

from harness.memory.disk import REAL_DISK, Disk
from harness.memory.logfile import read_file, write_whole

STATE = "chat/backup.json"


def load_state(home: Path, disk: Disk = REAL_DISK) -> dict:
    """The backups made from `home`, by destination: when each was taken and last checked."""
    try:
        raw = json.loads(read_file(home / STATE, disk, bytes_max=1 << 20))
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


def record_state(home: Path, dest: str, disk: Disk, **values) -> None:
    state = load_state(home, disk)
    state.setdefault(dest, {}).update(values)
    try:
        write_whole(home / STATE, json.dumps(state, ensure_ascii=False, indent=1).encode("utf-8"), disk)
    except OSError:
        pass  # a cache: `ever memory status` says less, and the next backup writes it


def last_backup(home: Path, disk: Disk = REAL_DISK) -> dict | None:
    """The last backup taken from `home` (`status()`'s `last_backup`): when, where, how many
    messages, and its last check; None while there is none."""
    state = {dest: values for dest, values in load_state(home, disk).items() if "taken" in values}
    if not state:
        return None
    dest = max(state, key=lambda d: state[d]["taken"])
    last = state[dest]
    return {"date": last["taken"], "where": dest, "messages": last.get("messages"), "checked": last.get("checked"),
            "check": last.get("check"), "sentence": last.get("sentence", ""), "error": last.get("error", "")}


def backup_sentence(last: dict) -> str:
    """`ever memory status`'s line on the last backup and its last check."""
    said = f"The last backup into {last['where']} was taken at {last['date']}"
    if last.get("check") is None:
        return said + "; it has not been checked yet (`ever backup --check`)."
    outcome = "passed" if last["check"] == "passed" else f"failed: {last.get('sentence', '')}"
    return said + f"; its last check, at {last.get('checked')}, {outcome}".rstrip(".") + "."
