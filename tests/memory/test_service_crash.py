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

import pytest

from harness.memory.store import Store

CHILD = Path(__file__).resolve().parents[1] / "support" / "children" / "service_child.py"
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
    # the restarts replayed the logs past a checkpoint, not just loaded one [P10]
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


# ---- kills of the chat's owner with messages in hand [S9] ----

SEND_ROUNDS = 12 if FULL else 2  # each round kills two processes; make test-long (EVER_CRASH_FULL=1) runs 12


@pytest.mark.slow
def test_kills_while_messages_wait_are_joined_or_run_concurrently_lose_and_double_nothing(tmp_path, api):
    """Each round: an `ever send` owns the chat and its call is held; one more send joins the
    call and three run at once behind it, all accepted (on disk in the inbox); then the owner is
    SIGKILLed at a random moment, and one of the three senders too. The senders left find the
    owner gone, one of them owns the chat, and every accepted message, the killed owner's own
    among them, is answered. At the end each message is logged at most once, and each accepted
    one exactly once, answered by exactly one reply that names it."""
    import json
    import shutil
    import threading

    from harness.localapi.server import Reply, tool_use

    ever = shutil.which("ever", path=str(Path(sys.executable).parent)) or "ever"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EVER_"))}
    # the owner wait as a hang guard (tests/support/chat.py): a sender never gives up under load
    env.update(EVER_HOME=str(tmp_path), ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY="k",
               EVER_MODEL="claude-sonnet-4-6", EVER_OWNER_WAIT_SECONDS="600")
    said = "You said: "

    def echo(body):
        blocks = body["messages"][-1]["content"]
        texts = [b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        return Reply(said + texts[-1] if texts else "The tool ran.")

    def turn_of(text):
        return lambda body: body["messages"][-1]["content"][-1].get("text") == text

    def inbox() -> set:
        path = tmp_path / "chat" / "inbox.jsonl"
        found = set()
        for line in (path.read_text().splitlines() if path.exists() else ()):
            try:
                found.add(json.loads(line).get("text"))
            except ValueError:
                pass  # a line cut by a kill: never accepted
        return found

    def send(text):
        return subprocess.Popen([ever, "send", text], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def until(predicate, seconds=60.0):
        deadline = time.monotonic() + seconds
        while not predicate():
            assert time.monotonic() < deadline
            time.sleep(0.02)

    api.reset()
    api.responder = echo
    rng = random.Random(2027)
    attempted, accepted, tracebacks = [], set(), []
    try:
        for round_ in range(SEND_ROUNDS):
            gate = threading.Event()
            first, joined = f"r{round_} owner", f"r{round_} joined"
            api.enqueue(Reply([tool_use("date", {"id": 0}, id=f"d{round_}")], gate=gate), when=turn_of(first))
            owner = send(first)
            until(lambda: any(turn_of(first)(r.body) for r in api.requests))
            others = {joined: send(joined)}
            until(lambda: joined in inbox())
            for k in range(3):
                others[f"r{round_} c{k}"] = send(f"r{round_} c{k}")
            attempted += [first, *others]
            victim = rng.choice([t for t in others if t != joined])
            time.sleep(rng.uniform(0.0, 0.3))  # some of the three accepted, some not yet
            accepted |= {first, joined} | (inbox() & set(others))
            owner.send_signal(signal.SIGKILL)
            others[victim].send_signal(signal.SIGKILL)
            owner.wait(timeout=60)
            gate.set()
            for text, process in others.items():
                out, err = process.communicate(timeout=240)
                tracebacks += [err] if "Traceback" in err else []
                if text != victim:
                    assert (process.returncode, out) == (0, f"{said}{text}\n"), (text, err)
                    accepted.add(text)
            accepted |= inbox() & set(others)
        # whatever the killed sender's message became, the next owner answers it if accepted
        assert subprocess.run([ever, "send", "the end"], env=env, capture_output=True, text=True,
                              timeout=240).returncode == 0
    finally:
        api.reset()
    assert not tracebacks, tracebacks[0]
    records = []
    for path in sorted((tmp_path / "chat" / "main").glob("*.jsonl")):
        records += [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["i"] for r in records] == list(range(len(records)))
    users = [r["text"] for r in records if r["kind"] == "user"]
    replies = [r["text"] for r in records if r["kind"] == "ever"]
    assert len(users) == len(set(users)) and set(users) <= set(attempted) | {"the end"}
    for text in accepted:
        assert users.count(text) == 1, text
        assert replies.count(f"{said}{text}") == 1, text
    print(f"\n{SEND_ROUNDS} rounds, {2 * SEND_ROUNDS} kills; {len(accepted)} messages accepted, "
          f"each logged and answered once; {len(set(users) - accepted - {'the end'})} more logged")
