"""Strategy: kill the process that owns a chat with SIGKILL at random moments while it appends
messages and builds nodes, restart it each time, and check what a user would: every message
acknowledged is in the log exactly once, with its text (the text is a function of the id, so a
lost or doubled line shows as a wrong text at an id); every file reads back; and at each restart,
which replays the logs past view.json's checkpoint, the loaded views are byte for byte the ones
the logs alone give (the child checks this itself and prints `ok`). The default run does 12 kills;
`EVER_CRASH_FULL=1` does 120 (make test-long). Until the last kill a child never runs out of
messages, so the kills land whatever the machine's speed.
"""

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from harness.memory.store import Store

CHILD = Path(__file__).resolve().parent / "children" / "service_child.py"
sys.path.insert(0, str(CHILD.parent))
from service_child import kind_for, text_for  # noqa: E402

FULL = os.environ.get("EVER_CRASH_FULL") == "1"
KILLS = 120 if FULL else 12
MESSAGES = 1_000 if FULL else 150
UNLIMITED = 10 ** 9


def test_kills_at_random_points_lose_and_double_nothing(tmp_path):
    rng = random.Random(2026)
    acked = set()
    opens = []
    kills = 0
    done = False
    while not done:
        # until the last kill a child never runs out of messages, however fast the machine; the
        # last child then logs a tenth of MESSAGES past the last acknowledged one, and ends
        limit = UNLIMITED if kills < KILLS else (max(acked, default=-1) + 1 + MESSAGES // 10)
        child = subprocess.Popen([sys.executable, str(CHILD), str(tmp_path), str(limit)],
                                 stdout=subprocess.PIPE, text=True)
        # the kill lands after a random number of acknowledged messages, then a random moment
        # more, so it falls inside an append, a build or a save whatever the machine's speed
        target = rng.randint(1, 4) if kills < KILLS else None
        seen = []
        for line in child.stdout:
            seen.append(line)
            if target is not None and line.startswith("ack"):
                target -= 1
                if target == 0:
                    time.sleep(rng.uniform(0.0, 0.01))
                    child.send_signal(signal.SIGKILL)
                    kills += 1
                    break
        out, _ = child.communicate(timeout=120)
        killed = target == 0
        # a kill can cut the last line short: only whole lines were said
        for line in ("".join(seen) + out).split("\n")[:-1]:
            word, *rest = line.split()
            if word == "ack":
                acked.add(int(rest[0]))
            elif word == "open":
                opens.append((int(rest[0]), rest[1], int(rest[2])))
            elif word == "done":
                done = True
        assert killed or child.returncode == 0, out[-500:]
    assert kills == KILLS, f"only {kills} kills landed before the chat was done"
    assert opens and all(verdict == "ok" for _, verdict, _ in opens), [o for o in opens if o[1] != "ok"]
    # the restarts replayed the logs past a checkpoint, not just loaded one [decision P10]
    replays = [count for _, _, count in opens if count > 0]
    assert len(replays) >= kills // 2, opens
    print(f"\n{kills} kills; {len(replays)} restarts replayed messages past the checkpoint, "
          f"{sum(replays)} in all, at most {max(replays)}")
    store = Store.open(tmp_path)
    try:
        assert store.count >= limit
        assert len(acked) >= MESSAGES // 10
        assert acked <= set(range(store.count))  # a kill between the fsync and the print: logged, unacknowledged
        for record in store.messages(0, store.count):
            i = record["i"]
            assert (record["kind"], record["text"]) == (kind_for(i), text_for(i)), f"message {i}"
        torn = [warning for warning in store.warnings if "not JSON" in warning or "torn" in warning]
        assert len(torn) <= kills
    finally:
        store.close()
    assert len(opens) == kills + 1  # every restart checked its view
