"""`ever import` in a run: before the owner's first life, a seed may import notes as the command
does (harness/imports/rules.py's `write` on a `Memory` it opens itself, holding the chat's lock),
killed inside a disk operation or (on its first run) refused by the disk at the run's rates,
and run again until it ends, as a person runs it again. Its notes then give the owner's compactor a history to work
through while messages come: enough calls at once that a waiting turn stops some [P5] and the
compactor starts them again, which sim/calls.py watches.

The promise checked (`an import keeps each note once`): at the end, every note of an import that
ended is logged once, whole, whatever runs of it were killed; a killed run's notes are logged at
most once (`never doubled` checks every key).

Drawn from its own randomness (seed * 7 + 5): the seed's other draws and events stay its own.
"""

import random
from datetime import timedelta

from sim.disk import Killed
from sim.world import START

RUNS_MAX = 4  # an import killed this often is left, as a person might leave it


class FixedClock:
    """The import's clock, between lives: the run's virtual time, which it does not move."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def monotonic(self) -> float:
        return self.seconds

    def now(self):
        return START + timedelta(seconds=int(self.seconds))


def notes(rng: random.Random) -> list:
    from harness.imports.rules import Message, key_of

    count = rng.randrange(20, 200)
    made = []
    for n in range(count):
        size = rng.choice((40, 300, 480, 700, 1_500, 3_000))  # short notes stand as lines; long ones need summaries
        text = f"imported note {n}: " + ("kept word " * (size // 10))[:size]
        made.append(Message(key_of(f"sim-note-{n}", 1), START - timedelta(days=30) + timedelta(minutes=n), text))
    return made


def import_phase(run) -> None:
    """Import a seed's notes, run after run, until a run ends or RUNS_MAX are killed."""
    from harness.memory.service import Memory
    from harness.memory.store import StoreError
    from sim.seeds import world

    rng = random.Random(run.seed * 7 + 5)
    if rng.random() < 0.5 or world(run.seed) < 2:
        return  # a kept seed replays the world its bug was found in
    messages = notes(rng)
    kill_chance = rng.choice((0.0, 0.5, 0.9))
    for attempt in range(1, RUNS_MAX + 1):
        process = run.disk.process(f"ever import {attempt}")
        run.disk.armed = attempt == 1  # the disk's faults on the first run: a person's next run ends
        if rng.random() < kill_chance:
            process.kill_at = rng.randrange(1, 40 + 4 * len(messages))
        try:
            memory = Memory.open(run.home, run.planner, disk=process, clock=FixedClock(run.now))
            try:
                from harness.imports.rules import write

                written = write(memory, messages)
            finally:
                memory.close()
            run.counts.add("import ended")
            run.imported = [(message.key, message.text) for message in messages]
            run.note(f"ever import: {written:,} of {len(messages):,} notes added (run {attempt})")
            return
        except Killed:
            run.counts.add("import killed inside a disk operation")
            run.note(f"ever import run {attempt} killed")
        except (OSError, StoreError) as error:
            run.counts.add("import failed on a disk fault")
            run.note(f"ever import run {attempt} refused: {error}")
        finally:
            process.kill()
            run.disk.armed = False
