"""Each log of Ever behind one small face, and a writer that a test kills:
`python tests/support/children/log_child.py LOG HOME`.

LOG is one of LOGS' names. The writer appends line after line, the text of line n a function of
n (some long, so that kills land inside their writes), and prints `ready` once open and `ack N`
once line N's append has returned: only then is it acknowledged.
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from harness.calls.usage import UsageRecord, read_usage, record_usage  # noqa: E402
from harness.chat.config import read_config, update_config  # noqa: E402
from harness.memory.accepted import Accepted  # noqa: E402
from harness.memory.agentlog import AgentLog, log_path, read_log  # noqa: E402
from harness.memory.inbox import Inbox  # noqa: E402
from harness.memory.store import Store  # noqa: E402


def text(n: int) -> str:
    if n % 4 == 3:
        return f"{n}:" + "long é€ line " * 30_000
    return f"{n}: line é€😀 {n}"


class StoreLog:
    name = "store"

    def __init__(self, home: Path):
        self.store = Store.open(home)

    def append(self, n: int, line: str) -> None:
        self.store.append_message("user", line)

    def close(self) -> None:
        self.store.close()

    @staticmethod
    def read(home: Path) -> list:
        with Store.open(home) as store:
            return [message["text"] for message in store.messages(0, store.count)]

    @staticmethod
    def files(home: Path) -> list:
        return sorted((home / "chat" / "main").glob("*.jsonl"))


class InboxLog:
    name = "inbox"

    def __init__(self, home: Path):
        (home / "chat").mkdir(mode=0o700, parents=True, exist_ok=True)
        self.inbox = Inbox(home / "chat")

    def append(self, n: int, line: str) -> None:
        self.inbox.accept(Accepted(line, f"k{n}", "send"))

    def close(self) -> None:
        self.inbox.close()

    @staticmethod
    def read(home: Path) -> list:
        return [line for _, line in Inbox(home / "chat").pending()]

    @staticmethod
    def files(home: Path) -> list:
        return [home / "chat" / "inbox.jsonl"]


class AgentLogFile:
    name = "agent"

    def __init__(self, home: Path):
        chat = home / "chat"
        chat.mkdir(mode=0o700, parents=True, exist_ok=True)
        path = log_path(chat, "Scout")
        if path.exists():
            self.log = AgentLog.reopen(path)
        else:
            self.log = AgentLog.create(chat, "Scout", {"task": "Look.", "turn": 0, "T": 0})

    def append(self, n: int, line: str) -> None:
        self.log.append({"kind": "ever", "text": line})

    def close(self) -> None:
        self.log.close()

    @staticmethod
    def read(home: Path) -> list:
        path = log_path(home / "chat", "Scout")
        return [record["text"] for record in read_log(path) if record.get("kind") == "ever"] if path.exists() else []

    @staticmethod
    def files(home: Path) -> list:
        return [log_path(home / "chat", "Scout")]


class UsageLogFile:
    name = "usage"

    def __init__(self, home: Path):
        self.home = home

    def append(self, n: int, line: str) -> None:
        record_usage(self.home, UsageRecord("2026-10-08T09:00:00+02:00", "turn", n, line, 1, 0, 0, 1))

    def close(self) -> None:
        pass

    @staticmethod
    def read(home: Path) -> list:
        return [record.model for record in read_usage(home).records]

    @staticmethod
    def files(home: Path) -> list:
        return [home / "chat" / "usage" / "2026-10-08.jsonl"]


class ConfigFile:
    """Not a log: a file replaced whole, whose last write is all it keeps."""
    name = "config"

    def __init__(self, home: Path):
        self.home = home

    def append(self, n: int, line: str) -> None:
        update_config(self.home, {"model": line[:100]})  # short: a model's name

    def close(self) -> None:
        pass

    @staticmethod
    def read(home: Path) -> list:
        return [read_config(home / "config.toml").get("model")]

    @staticmethod
    def files(home: Path) -> list:
        return [home / "config.toml"]


LOGS = {log.name: log for log in (StoreLog, InboxLog, AgentLogFile, UsageLogFile, ConfigFile)}


def say(words: str) -> None:
    os.write(1, (words + "\n").encode())  # one write: a kill never leaves half a line on the pipe


def main() -> None:
    log, home = LOGS[sys.argv[1]], Path(sys.argv[2])
    n = len(log.read(home)) if log is not ConfigFile else int((log.read(home)[0] or "0:").split(":")[0]) + 1
    writer = log(home)
    say("ready")
    while True:
        writer.append(n, text(n))
        say(f"ack {n}")
        n += 1


if __name__ == "__main__":
    main()
