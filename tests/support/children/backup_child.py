"""A backup that a test kills: `python tests/support/children/backup_child.py HOME DEST N`.

The backup runs on the machine's disk behind `KillingDisk`, which counts every operation and, at
the Nth, kills this process with SIGKILL: a write or pwrite is first cut to a prefix of its bytes,
as a kill inside the system call leaves it. It prints `done OPS` when the backup ends unkilled.
"""

import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from harness.memory.backup import backup  # noqa: E402
from harness.memory.disk import RealDisk  # noqa: E402


class KillingDisk(RealDisk):
    def __init__(self, kill_at: int):
        self.kill_at = kill_at
        self.count = 0

    def due(self) -> bool:
        self.count += 1
        return self.count == self.kill_at

    def kill(self) -> None:
        os.kill(os.getpid(), signal.SIGKILL)


def counted(name):
    def operation(self, *args, **kwargs):
        if self.due():
            if name in ("write", "pwrite") and len(args[1]) > 1:
                torn = (args[0], args[1][: len(args[1]) // 2], *args[2:])
                getattr(RealDisk, name)(self, *torn)
            self.kill()
        return getattr(RealDisk, name)(self, *args, **kwargs)
    return operation


for name in ("open", "close", "read", "pread", "write", "pwrite", "fsync", "ftruncate", "fstat", "fchmod",
             "stat", "chmod", "mkdir", "listdir", "replace", "unlink"):
    setattr(KillingDisk, name, counted(name))

if __name__ == "__main__":
    home, dest, kill_at = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    disk = KillingDisk(kill_at)
    backup(home, dest, disk)
    print(f"done {disk.count}", flush=True)
