"""A real full disk and a real read-only one, for the tests of what a person sees then."""

import os
import subprocess
from pathlib import Path

import pytest


class Disk:
    """A small tmpfs mounted at `path` (root only; the test is skipped elsewhere): a real full
    disk (ENOSPC) and a real read-only one (EROFS), not a patched call."""

    def __init__(self, path: Path, size: str = "256k"):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(path)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")

    def fill(self) -> None:
        fd = os.open(self.path / "filler", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            for size in (65536, 4096, 1):
                try:
                    while True:
                        os.write(fd, b"\0" * size)
                except OSError:
                    pass
        finally:
            os.close(fd)

    def free(self) -> None:
        (self.path / "filler").unlink()

    def read_only(self, on: bool = True) -> None:
        subprocess.run(["mount", "-o", f"remount,{'ro' if on else 'rw'}", str(self.path)], check=True)

    def unmount(self) -> None:
        subprocess.run(["umount", "-l", str(self.path)], check=False)

