"""`ever serve` in the background, as the systemd unit runs it, for the tests of an owner that
serves the chat to other terminals and scripts."""

import os
import resource
import signal
import subprocess
from pathlib import Path

from harness.localapi.server import LocalAPI
from tests.support.chat import EVER, environment


class Serving:
    """`ever serve` in the background; `kill()` is kill -9, `start()` what the unit's Restart does."""

    def __init__(self, home: Path, api: LocalAPI, *args: str, files_max: int | None = None):
        self.home, self.api, self.args = home, api, args
        self.files_max = files_max  # the soft limit on open files, as a login shell's 1,024
        self.process = None
        self.start()

    def _limited(self) -> None:
        if self.files_max is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE,
                               (self.files_max, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

    def start(self) -> None:
        self.process = subprocess.Popen([EVER, "serve", *self.args], env=environment(self.home, self.api),
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        start_new_session=True, cwd=self.home, preexec_fn=self._limited)
        said = [self.process.stdout.readline()]
        while said[-1] and "Ever serves the chat" not in said[-1]:  # it may wait for a sender first
            said.append(self.process.stdout.readline())
        assert "Ever serves the chat" in said[-1], "".join(said) + self.process.stdout.read()

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> int:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
        return self.process.wait(timeout=30)
