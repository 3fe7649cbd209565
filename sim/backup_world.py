"""The backup under the simulated World: after a seed's run, its home backed up again and again into
a folder on the same simulated disk (harness/memory/backup.py), each backup under the seed's disk
faults, on both sides (the home read, the folder written), and some killed inside a disk operation
or stopped by a power loss there.

`BACKUPS` rounds, drawn from their own randomness (the seed's, so a seed replays the same bytes):
the chat grows by a few messages (no fault), then a backup runs in a process of its own, armed
with the seed's faults; with `KILL` it is killed inside its Nth disk operation (N drawn over the operations the last
whole backup took), and with `POWER`
of those the machine loses power there (sim/disk.py: what was not fsync'd kept, torn or lost).
After each, read by a process of its own with no fault:

- `a killed backup leaves the last one valid` [S21]: the folder's manifest reads, and every byte
  it names is there as it hashed; it holds at least the messages of the last backup that
  completed (the last one, or the new one if it completed);
- `the history stays whole` [S32]: every snapshot the folder keeps holds every byte it names;
- `a backup fails in one sentence`: a backup that did not complete ended on a kill, or said an
  OSError or a BackupError, never another exception.

At the end the faults stop: a backup must complete, and its restore test (restored into a home
of the machine's disk, each file against the manifest and the live one, the view rebuilt from
the restored logs) must pass, the view being the live view, byte for byte.
"""

import random
from datetime import timedelta
from pathlib import Path

from sim.disk import Faults, Killed

BACKUPS = 8
KILL = 0.6  # of the backups, killed inside a disk operation
POWER = 0.3  # of those, a power loss at that instant
OPERATIONS = 120  # a first guess at a backup's disk operations; then the last whole backup's count


def backup_phase(run) -> None:
    """The rounds above, on what the run's disk kept; each broken promise is one `run.fail`."""
    try:
        rounds(run)
    finally:
        # chat/backup.json (a cache) names the backup's folder, under the run's scratch folder,
        # whose name differs in each replay: the bytes a replay compares leave it out
        process = run.disk.process("clears the backups' cache")
        try:
            process.unlink(run.home / "chat" / "backup.json")
        except OSError:
            pass
        finally:
            process.kill()


def rounds(run) -> None:
    from harness.memory import backup as backups
    from sim.world import START

    rng = random.Random(run.seed * 7 + 5)
    dest = Path(run.scratch) / "backup"
    faults = run.probabilities.disk
    completed = None  # the messages of the last backup that completed
    operations = OPERATIONS
    for number in range(BACKUPS):
        if not grow(run, rng, number, START):
            return
        process = run.disk.process(f"backup {number + 1}")
        killed_at = rng.randrange(1, operations + 1) if rng.random() < KILL else None
        power = killed_at is not None and rng.random() < POWER
        if killed_at is not None:
            process.kill_at = process.operations + killed_at
        run.disk.faults, run.disk.armed = faults, True
        outcome = "completed"
        try:
            started = process.operations
            manifest = backups.backup(run.home, str(dest), process, now=START + timedelta(minutes=number))
            completed, operations = manifest.messages, process.operations - started
        except Killed:
            outcome = f"killed at operation {killed_at}"
            run.counts.add("backup killed inside a disk operation")
            if power:
                run.disk.power_loss()
                outcome += ", with a power loss"
                run.counts.add("backup stopped by a power loss")
        except (OSError, backups.BackupError) as error:
            outcome = f"failed: {error}"
            run.counts.add("backup failed on a disk fault")
        except Exception as error:  # noqa: BLE001  a traceback the person would see
            run.fail("a backup fails in one sentence", f"backup {number + 1}: {error!r}")
            return
        finally:
            run.disk.faults, run.disk.armed = Faults(), False
            process.kill()
        run.note(f"backup {number + 1} {outcome}")
        if not sound(run, dest, completed, f"after backup {number + 1} ({outcome})"):
            return
    last(run, dest, START + timedelta(minutes=BACKUPS))


def grow(run, rng: random.Random, number: int, start) -> bool:
    """A few messages logged, as a turn would, by a process of its own with no fault."""
    from harness.memory.service import Memory

    process = run.disk.process(f"grows the chat before backup {number + 1}")
    try:
        memory = Memory.open(run.home, run.planner, disk=process, clock=Clock(start + timedelta(minutes=number)))
        try:
            for k in range(rng.randrange(1, 4)):
                memory.append("user", f"backup round {number} message {k}: " + "word " * rng.randrange(1, 60),
                               now=start + timedelta(minutes=number, seconds=k))
        finally:
            memory.close()
    except Exception as error:  # noqa: BLE001  the run left a chat that does not open: said by the run's checks
        run.note(f"the chat did not grow before backup {number + 1}: {error!r}")
        return False
    finally:
        process.kill()
    return True


class Clock:
    """The dates the lines logged before a backup get: the World's start and the round's minutes."""

    def __init__(self, at):
        self.at = at

    def now(self):
        return self.at

    def monotonic(self) -> float:
        return 0.0


def sound(run, dest: Path, completed: int | None, when: str) -> bool:
    """The folder's last manifest and every snapshot it keeps hold every byte they name."""
    from harness.memory import backup as backups

    process = run.disk.process(f"reads the backup {when}")
    try:
        if completed is None:
            return True  # no backup completed yet: there is none to keep valid
        try:
            manifest = backups.load_manifest(dest, process)
        except backups.BackupError as error:
            run.fail("a killed backup leaves the last one valid", f"{when}: {error}")
            return False
        wrong = backups.verified(dest, manifest, process)
        if wrong or manifest.messages < completed:
            run.fail("a killed backup leaves the last one valid",
                     f"{when}: {wrong or f'it holds {manifest.messages} messages, the last completed {completed}'}")
            return False
        for snapshot in backups.snapshots(dest, process):
            wrong = backups.verified(dest, snapshot.manifest, process)
            if wrong:
                run.fail("the history stays whole", f"{when}: snapshot {snapshot.id}: {wrong}")
                return False
        return True
    finally:
        process.kill()


def last(run, dest: Path, now, again: bool = True) -> None:
    """With no fault, a backup completes and its restore test passes against the live view. A
    bit the run flipped in a cold line the live chat never reads again (its view is from
    view.json) fails the check, the restored logs not opening: the person then does as the
    sentence says, `ever doctor --repair`, and backs up again, which must pass."""
    from harness.memory import backup as backups
    from harness.memory.service import Memory

    process = run.disk.process("the last backup")

    def live_view() -> tuple[int, str]:
        memory = Memory.open(run.home, run.planner, read_only=True, disk=process)
        try:
            return memory.planner.T, memory.render()
        finally:
            memory.close()

    repaired = False
    try:
        backups.backup(run.home, str(dest), process, now=now)
        verdict = backups.checked(run.home, str(dest), process, live_view, run.planner)
    except backups.BackupError as error:
        repaired = again and run.repaired(error.__cause__)
        if not repaired:
            run.fail("the next backup completes and checks", f"{error}")
            return
        run.note(f"the last backup did not check: {error}")
    except OSError as error:
        run.fail("the next backup completes and checks", f"{error}")
        return
    finally:
        process.kill()
    if repaired:
        last(run, dest, now + timedelta(minutes=1), again=False)
        return
    run.note(f"the last backup checked: {verdict.sentence}")
    if "is the live view, byte for byte" not in verdict.sentence:
        run.fail("the next backup completes and checks", verdict.sentence)
    run.counts.add("backup checked against the live view")
