"""A turn on a real store, for the tests of a turn's requests and caps: `make_turn(tmp_path, api)`
opens a home's memory (its compactor a stand-in that answers at once), a client of the local
Messages API, the work tools and a turn whose clock says `NOW`.
"""

from datetime import UTC, datetime
from pathlib import Path

from harness.calls.approval import Approval
from harness.calls.client import Client, ClientSettings
from harness.calls.prompt import Prompt
from harness.calls.tools import WorkTools
from harness.calls.turn import Turn, TurnSettings
from harness.localapi.server import LocalAPI
from harness.memory.service import Job, JobResult, Memory

NOW = datetime(2026, 11, 30, 9, 15, tzinfo=UTC)



async def answer(job: Job) -> JobResult:
    return JobResult(f"{job.kind}: summary of {job.name}" if job.l == 0 else f"merged {job.name}")


async def make_turn(tmp_path: Path, api: LocalAPI, yes: bool = True, ask=None, build=answer, timeout=120.0):
    """`timeout` is the settle timeout: a hang guard, as settle returns once the view is summarized;
    a test of the timeout itself gives its own."""
    memory = Memory.open(tmp_path / "home", build=build)
    client = Client(ClientSettings(api_key="test-key", base_url=api.base_url, attempts_max=2,
                                   backoff_first_seconds=0.01))
    tools = WorkTools(str(tmp_path), Approval(yes=yes, ask=ask), secrets=("test-key",))
    settings = TurnSettings("claude-sonnet-4-6", timeout, workdir=str(tmp_path), clock=lambda: NOW)
    return memory, client, Turn(memory, client, Prompt.build(), tools, settings)

