"""The promises a run checks, each by its name, on what the simulated disk kept.

Checked at every restart (what a kill or a power loss left, read by a process of its own, read
only) and at the end (after the quiet phase and a last power loss):

- `acknowledged means kept`: a message whose sender saw `{"accepted": true}`, or an answer saying
  it is logged, is in the log or the inbox, whole (its pieces joined are its text) [S9] [S11];
  at the end, in the log, once.
- `refused means not kept`: a message whose sender was told nothing was logged is nowhere (and,
  from the moment it is refused, no byte of it is in the files as the processes read them:
  sim/run.py `refused_left`).
- `never doubled`: no key on two lines; every user line of the log belongs to one message sent
  (a line a flipped bit spoiled, still JSON, by its key and tag as it was logged: `as_logged`).
- `ids never reused`: an id on a durable line keeps that line's bytes for ever (or is recorded
  lost [S13]); the store opens, so the ids are dense or recorded lost [S3].
- `damage is said`: a line of a log that is not JSON (a crash tore it, a bit flipped) is in the
  store's warnings or its damage sentences, never silent.
- `a restart's view is the logs' view`: the view an owner opens with (checkpoint and replay,
  [P10]) equals the view rebuilt from the logs alone (view.json set aside).
- `every request within the API's rules`: the simulated API refused no request (400).
- `every request within its ceiling and its model's window`: a turn's view, as the request
  carries it, is within the view's ceiling [P19]; every request, its input as the API counts it
  and its max_tokens, within its model's context window (`check_requests`).
- `spend within the turn caps`: an owner's turn makes at most its caps' calls and runs at most
  their tool calls, as the requests it sent show (`check_turn_caps`).
- `the inbox holds only what waits`: at the end no entry is pending.
- `an import keeps each note once`: every note of an import that ended is logged, whole, unless
  a flipped bit spoiled its file and that was said (sim/importing.py); `never doubled` keeps each
  once.
- `a line is its node's latest call's`: checked as each outcome is applied (sim/calls.py).
- `every attached terminal saw every turn` and `a terminal killed mid-question never hangs the
  chat` (sim/terminals.py), `every MCP call answered in words` (sim/mcp.py) and `a line past the
  socket's limit is refused in one sentence` (sim/run.py `long_line`): checked as the terminal
  reads, as the call returns, as the refusal comes. An MCP `send` is a sender like the others.
- `a terminal's acknowledged message is logged once and whole`: a message a terminal said and
  was answered `took` is in the log or the inbox, whole; at the end in the log, once; one refused
  is nowhere (`check_typed`).
- `a tool that asks runs only with its senders' leave`: a read outside the working directory
  ran only in a turn whose every message had its sender's leave: --yes, or for a terminal's
  message, a yes or an always answered to its question, or an "always" that terminal gave
  before; never another sender's always, and never when its last terminal went unanswering [H4].
- `every subagent's report arrives`: at the end each subagent that started has its report in the
  chat's log once, and its log ends `reported` with that id [A3].
"""

import copy
import hashlib
import json
import re

from harness.memory.text import split_long

TYPED = "a terminal's acknowledged message is logged once and whole"
LEAVE = "a tool that asks runs only with its senders' leave"
REQUESTS = "every request within its ceiling and its model's window"
CAPS = "spend within the turn caps"
TAG = re.compile(r"\[terminal \d+\.\d+, message \d+\]")
VISIBLE_ID = re.compile(rb'^\{"i":(\d+),"kind":')


def durable_lines(run, folder: str, set_aside=()) -> list[tuple[str, bytes]]:
    """(file, line) of every line in chat/<folder>/, files in name order, but the lines
    `ever doctor --repair` set aside ((where, offset) pairs, its record's)."""
    disk = run.disk
    directory = run.home / "chat" / folder
    found = []
    for name in disk.listing(directory):
        data = disk.read_durable(directory / name) or b""
        at = 0
        for line in data.split(b"\n"):
            if line and (f"{folder}/{name}", at) not in set_aside:
                found.append((name, line))
            at += len(line) + 1
    return found


def set_aside_lines(run) -> set:
    from harness.memory.damage import read_record

    reader = run.disk.process("checker")
    armed, run.disk.armed = run.disk.armed, False
    try:
        return set(read_record(run.home / "chat", reader).set_aside)
    except (OSError, ValueError):
        return set()
    finally:
        run.disk.armed = armed
        reader.kill()


def parsed(line: bytes):
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def open_read_only(run, disk_machine=None):
    from harness.memory.service import Memory

    machine = disk_machine or run.disk
    reader = machine.process("checker")
    armed, machine.armed = machine.armed, False
    try:
        return Memory.open(run.home, run.planner, read_only=True, disk=reader)
    finally:
        machine.armed = armed


def pieces_at(end: int, count: int, lost: set) -> list[int]:
    """The ids of a long message's `count` pieces, its key's line at `end`: an id lost among them
    is a piece's write a kill tore, logged again after it [S11] [S13]."""
    found: list[int] = []
    i = end
    while i >= 0 and len(found) < count:
        if i not in lost:
            found.insert(0, i)
        i -= 1
    return found if len(found) == count else []


def check_kept(run, final: bool) -> None:
    from harness.memory.inbox import Inbox
    from harness.memory.store import StoreError

    try:
        try:
            memory = open_read_only(run)
        except StoreError as error:
            run.disk.processes[-1].kill()
            if not run.repaired(error):
                raise
            memory = open_read_only(run)
    except (OSError, StoreError) as error:
        run.disk.processes[-1].kill()
        if any(sender.acknowledged for sender in run.senders.values()):
            run.fail("the chat reads after every crash", f"{type(error).__name__}: {error}")
        return  # a chat whose first open was cut short holds nothing acknowledged
    try:
        store = memory.store
        records = store.messages(0, store.count)
        reader = run.disk.processes[-1]
        inbox = dict(Inbox(store.chat, reader).pending())
        lost = {i for i in range(store.count) if store.lost(i)}
        # a spoiled line the store reads as damaged, and says so, is no one's message any more [S13]
        run.read_damaged = {i for i in run.spoiled if i < store.count and store.damaged_between(i, i)}
        said = list(store.warnings) + list(store.damage)
        agents = agent_logs(store.chat, reader) if final else {}
    except StoreError as error:  # a flipped bit found only as a line is read: repaired as it says
        memory.close()
        run.disk.processes[-1].kill()
        if run.repaired(error):
            return check_kept(run, final)
        run.fail("the chat reads after every crash", f"{type(error).__name__}: {error}")
        return
    finally:
        memory.close()
        run.disk.processes[-1].kill()
    at: dict[str, list[int]] = {}
    for position, record in enumerate(records):
        key = as_logged(run, record).get("key")
        if key:
            at.setdefault(key, []).append(position)
    damaged = bool(run.flipped)
    # a flip's damage said: by the store at this open, or by `ever doctor` before a repair
    said_damage = bool(said) or run.counts["ever doctor --repair after a bit flip"] > 0
    for key, positions in at.items():
        if len(positions) > 1:
            run.fail("never doubled", f"{key} is on lines of ids {positions}")
    owned = set()
    lost_to_flip = run.lost_to_flip
    for sender in run.senders.values():
        key = sender.key
        pieces = split_long(sender.text)
        if key in at:
            end = at[key][0]
            spots = pieces_at(end, len(pieces), lost)
            logged = [records[j].get("text") for j in spots]
            owned.update(spots)
            if logged != pieces and not damaged:
                run.fail("acknowledged means kept", f"{key} is logged but not whole: "
                         f"{len(logged)} of {len(pieces)} pieces match")
        if sender.answer is not None and not sender.answer.get("logged"):
            if key in at or key in inbox:
                run.fail("refused means not kept", f"{key} was answered {sender.answer.get('error', '')[:80]!r} "
                         "and is " + ("logged" if key in at else "in the inbox"))
            continue
        if not sender.acknowledged:
            continue
        if final and key not in at and not (damaged and said_damage and key in lost_to_flip):
            run.fail("acknowledged means kept", f"{key} was acknowledged and is not in the log at the end")
        elif key not in at and key not in inbox:
            if damaged and said_damage:  # one copy of a line a flipped bit spoiled: lost, and said so
                lost_to_flip.add(key)
                continue
            flipped = " (after a bit flip in a cold file)" if damaged else ""
            run.fail("acknowledged means kept",
                     f"{key} was acknowledged and is neither logged nor in the inbox{flipped}")
        elif key in inbox and key not in at and inbox[key] != sender.text:
            run.fail("acknowledged means kept", f"{key} is in the inbox but not whole")
    owned |= check_typed(run, records, inbox, final, damaged and said_damage)
    for position, record in enumerate(records):
        if (record.get("kind") == "user" and position not in owned and "lost to damage" not in record.get("text", "")
                and not (position in run.read_damaged and said_damage)):
            keyless_piece = not record.get("key")
            if not (keyless_piece and not final):  # pieces of a message being logged when it died
                run.fail("never doubled", f"user line {position} belongs to no message sent (or to one twice)")
                break
    if final and inbox:
        run.fail("the inbox holds only what waits", f"{len(inbox)} entries pending at the end")
    for key, text in run.imported if final else ():  # sim/importing.py
        missing = key not in at and not (damaged and said_damage)
        if missing or (key in at and records[at[key][0]].get("text") != text and not damaged):
            run.fail("an import keeps each note once", f"{key} of an import that ended is "
                     + ("not logged" if key not in at else "logged but not whole"))
            break
    if not (damaged and said_damage):
        check_reports(run, agents, records)
    if final:
        check_leave(run, records)
    check_lines(run, said)


def agent_logs(chat, disk) -> dict[str, list[dict]]:
    """Each subagent's log, by name: its records as its reader takes them."""
    from harness.memory import agentlog

    return {name: agentlog.read_log(agentlog.log_path(chat, name), disk) for name in agentlog.names(chat, disk)}


def check_reports(run, agents: dict[str, list[dict]], records: list[dict]) -> None:
    """`every subagent's report arrives`: at the end, each subagent whose log has its start
    line has its report, `[Name] report`, in the chat's log once, and its log ends `reported`
    with that message's id [A3], whatever kills fell while it ran or reported."""
    for name, log in agents.items():
        if not log or log[0].get("kind") != "start":
            continue  # its start line never became durable: it never ran past it
        run.counts.add("subagent's report checked")
        if log[0].get("kind") == "start" and any(r.get("how") == "cut off" for r in log if r.get("kind") == "end"):
            run.counts.add("subagent cut off by a kill, reported at the next start")
        head = f"[{name}] report"
        ids = [record["i"] for record in records if record.get("kind") == "work"
               and str(record.get("text", "")).startswith(head)]
        if len(ids) != 1:
            run.fail("every subagent's report arrives", f"{name}'s report is in the chat's log "
                     + ("nowhere" if not ids else f"{len(ids)} times (ids {ids})"))
            return
        told = {str(r.get("text", "")) for r in log if r.get("kind") == "told"}
        for k, record in enumerate(records[:-1]):  # `tell` answered "Told NAME": its words are in NAME's log
            text, answer = str(record.get("text", "")), records[k + 1]
            if record.get("kind") != "tool" or not text.startswith("tell {"):
                continue
            try:
                said = json.loads(text[len("tell "):])
            except ValueError:
                continue
            if said.get("name") == name and answer.get("kind") == "echo" \
                    and str(answer.get("text", "")).startswith(f"Told {name}:"):
                run.counts.add("tell checked in the subagent's log")
                if not any(line.endswith(str(said.get("message"))) for line in told):
                    run.fail("every subagent's report arrives", f"{name} was told {said.get('message')!r}, "
                             "and its log holds no such words")
                    return
        last = log[-1]
        if last.get("kind") != "reported" or last.get("id") != ids[0]:
            run.fail("every subagent's report arrives", f"{name}'s log ends {last.get('kind')!r}, not `reported` "
                     f"with its report's id {ids[0]}")
            return


def as_logged(run, record: dict) -> dict:
    """A message's record as its line was logged (sim/run.py `spoil`): a bit flipped in its line
    that left it JSON, read as a message still, may have changed the key or the terminal's tag
    the checks know it by; the line is its sender's all the same (a user's or an import's),
    spoiled, not another's."""
    if record.get("i") in run.read_damaged:
        return record
    before = run.spoiled.get(record.get("i"))
    return before if before is not None and record.get("kind") == before.get("kind") else record


def check_typed(run, records: list[dict], inbox: dict[str, str], final: bool, lost_said: bool) -> set[int]:
    """`a terminal's acknowledged message is logged once and whole` (sim/terminals.py): a message
    a terminal said and the owner answered `took` is in the log or the inbox, its text whole; at
    the end in the log, once. One answered `took` not ok is nowhere; one never answered (its owner
    died first) is logged once or not at all. A flipped bit's loss, said, is a loss said. Each
    message is found by its tag (`[terminal L.n, message k]`); the lines found are returned."""
    found: dict[str, list[tuple[int, str]]] = {}
    for position, record in enumerate(records):
        text, logged = record.get("text"), as_logged(run, record).get("text")
        if record.get("kind") == "user" and isinstance(logged, str) and logged.startswith("[terminal "):
            found.setdefault(tag_of(logged), []).append((position, text))
    waiting = set(inbox.values())
    owned = set()
    for typed in run.typed:
        tag = tag_of(typed.text)
        lines = found.get(tag, [])
        owned.update(position for position, _ in lines)
        if typed.refused:
            if lines or typed.text in waiting:
                where = "logged" if lines else "in the inbox"
                run.fail("refused means not kept", f"{tag} was refused and is {where}")
            continue
        if len(lines) > 1:
            run.fail(TYPED if typed.acknowledged else "never doubled",
                     f"{tag} is on lines of ids {[position for position, _ in lines]}")
        elif lines and lines[0][1] != typed.text and not run.flipped:
            run.fail(TYPED, f"{tag} is logged but not whole: {lines[0][1][:80]!r} of {typed.text[:80]!r}")
        if not typed.acknowledged or lines or (typed.text in waiting and not final):
            continue
        if lost_said and (not final or tag in run.lost_to_flip):
            run.lost_to_flip.add(tag)  # one copy of a line a flipped bit spoiled: lost, and said so
            continue
        run.fail(TYPED, f"{tag} was taken and is " + ("not in the log at the end" if final
                                                      else "neither logged nor in the inbox"))
    return owned


def check_leave(run, records: list[dict]) -> None:
    """`a tool that asks runs only with its senders' leave` [H4] [S9]: a read outside the working
    directory that ran (its result is not "Not run: ...") came from a turn whose every message
    had its sender's leave, one joined narrowing the turn as the weakest approval wins:

    - a message sent without --yes (`ever send`, MCP's `send`, a hostile client's), or a
      terminal's answered after a restart (its terminal is gone [S36]), has it only with --yes;
    - a terminal's message in its own owner's life has it with --yes, with an "always" given for
      the tool to a question about that terminal's own earlier message, or with a yes or an
      always to this read's own question, asked of each such terminal in the order the turn
      took their messages (sim/terminals.py). An "always" given for one terminal's message
      never passes another's.

    A question whose last terminal went without answering leaves its read declined. Every read
    drawn is taken in order, logged or not, since an "always" holds from its answer."""
    from bisect import bisect_left

    results = {}
    for k, record in enumerate(records[:-1]):
        text, answer = str(record.get("text", "")), records[k + 1]
        if record.get("kind") == "tool" and text.startswith('read {"path": "../outside-'):
            number = int(text.split("outside-", 1)[1].split(".", 1)[0])
            results[number] = answer.get("kind") == "echo" and not str(answer.get("text", "")).startswith("Not run:")
    questions: dict[int, list] = {}
    for asked in run.questions:
        if "../outside-" in asked.text:
            questions.setdefault(int(asked.text.split("outside-", 1)[1].split(".", 1)[0]), []).append(asked)
    typed = {tag_of(one.text): one for one in run.typed}
    starts = sorted(run.life_calls.items())
    always: set[str] = set()  # the terminals whose "always" for read holds
    for number in sorted(run.api.asked):
        carried = run.api.asked[number]
        life = starts[bisect_left([calls for _, calls in starts], number) - 1][0] if starts else 0
        ran = results.get(number)
        if ran is not None:
            run.counts.add("a read that asks: ran" if ran else "a read that asks: declined")
        without = [key for key, sender in run.senders.items() if not sender.yes
                   and any(sender.text in said or said in sender.text for said in carried if said)]
        terminals = []  # the terminals whose messages the turn carries, one message each, in order
        for tag in (tag for said in carried for tag in TAG.findall(said)):
            if tag in typed and all(typed[tag].terminal != one.terminal for one in terminals):
                terminals.append(typed[tag])
        resumed = [one for one in terminals if one.life != life and not one.yes]
        needing = [one.terminal for one in terminals if one.life == life and not one.yes and one.terminal not in always]
        asked = questions.get(number, [])
        placed = granted = 0
        for terminal, question in zip(needing if not (without or resumed) else [], asked):
            placed += 1
            reply = (question.answer or "").strip().lower()
            if reply in ("a", "always"):
                always.add(terminal)
            if reply not in ("y", "yes", "a", "always"):
                break
            granted += 1
        for question in asked[placed:]:  # a question this check cannot place (a report's turn): its
            if (question.answer or "").strip().lower() in ("a", "always"):  # "always" may be any terminal's
                always.update(one.terminal for one in run.typed if one.life == life)
        if not ran:
            continue
        if without or resumed:
            whose = (f"{without[0]}, sent without --yes" if without else
                     f"terminal {resumed[0].terminal}'s message, answered after a restart and attached without --yes")
            run.fail(LEAVE, f"the read of ../outside-{number}.txt ran in a turn carrying {whose}")
            return
        if granted < len(needing):
            run.fail(LEAVE, f"the read of ../outside-{number}.txt ran in a turn carrying terminal "
                     f"{needing[granted]}'s message, its question answered "
                     + (repr(asked[granted].answer) if granted < len(asked) else "by nobody (none was asked)"))
            return
        if any(question.abandoned for question in asked):
            run.fail(LEAVE, f"the read of ../outside-{number}.txt ran, though its last terminal went without "
                     "answering its question")
            return


def tag_of(text: str) -> str:
    """A terminal's message's tag (sim/terminals.py `said_text`): `[terminal L.n, message k]`."""
    found = TAG.match(text)
    return found[0] if found else ""


def check_lines(run, said: list[str]) -> None:
    torn = 0
    set_aside = set_aside_lines(run) if run.flipped else set()
    for folder in ("main", "tree"):
        for name, line in durable_lines(run, folder, set_aside):
            record = parsed(line)
            if record is None:
                torn += 1
                visible = VISIBLE_ID.match(line)
                if folder == "main" and visible:  # a torn line's id was given: never again [S13]
                    run.ids_torn.add(int(visible[1]))
                continue
            if folder == "main" and type(record.get("i")) is int:
                digest = hashlib.sha256(line).hexdigest()
                before = run.ids_seen.setdefault(record["i"], digest)
                if before != digest and not run.flipped:
                    run.fail("ids never reused", f"id {record['i']} is on another line than before ({name})")
                elif record["i"] in run.ids_torn and not run.flipped:
                    run.fail("ids never reused", f"id {record['i']} was on a torn line, and is given again ({name})")
    if torn and not said:
        run.fail("damage is said", f"{torn} lines of the logs are not JSON and nothing said so")
    if run.api.refused:
        run.fail("every request within the API's rules", run.api.refused[0][:200])
    check_requests(run)


def check_requests(run) -> None:
    """`every request within its ceiling and its model's window`: a turn's view is folded to the
    view's ceiling [P19], and every request, its input as the API counts it and its max_tokens,
    fits its model's context window."""
    ceiling = run.planner.view_bytes_ceiling
    for number, request in enumerate(run.api.requests):
        if request["tokens"] > request["window"]:
            run.fail(REQUESTS, f"{request['kind']} request {number} needs {request['tokens']:,} tokens, past "
                     f"{request['model']}'s window of {request['window']:,}")
            return
        if request["kind"] == "turn" and request["view_bytes"] is not None and request["view_bytes"] > ceiling:
            run.fail(REQUESTS, f"turn request {number}'s view is {request['view_bytes']:,} bytes, past the "
                     f"ceiling of {ceiling:,}")
            return
    check_turn_caps(run)


def check_turn_caps(run) -> None:
    """`spend within the turn caps`: an owner's turn makes at most its caps' calls and runs at most
    their tool calls (sim/run.py sets them small, so a tool loop meets them). Its requests are
    known by their first message: each call sends the messages before it, so the calls a turn made
    are the lengths its requests sent (a retry's is the same), however many turns sent that
    message (a message resumed after a kill); its tool calls run are its last request's results."""
    calls: dict[str, set[int]] = {}
    results: dict[str, int] = {}
    for request in run.api.requests:
        if request["turn"] is not None:
            first, length, ran = request["turn"]
            calls.setdefault(first, set()).add(length)
            results[first] = max(results.get(first, 0), ran)
    caps = run.turn_caps
    for first, lengths in calls.items():
        if len(lengths) > caps.calls or results[first] > caps.tool_calls:
            run.fail(CAPS, f"a turn made {len(lengths)} calls and ran {results[first]} tool calls, past its caps "
                     f"of {caps.calls} and {caps.tool_calls}: {first[:120]}")
            return


def restart_view(run, owner) -> None:
    """The view the owner opened with against the view the logs alone give."""
    machine = snapshot(run.disk)
    view = run.home / "chat" / "view.json"
    chat = machine.lookup(view.parent)
    if chat is not None:
        chat.entries.pop("view.json", None)
    try:
        memory = open_read_only(run, machine)
    except Exception as error:  # the logs alone do not give a view: the product's [S10] path fails
        run.fail("a restart's view is the logs' view", f"rebuilt from the logs alone: {error!r}")
        return
    try:
        rebuilt = memory.render()
    finally:
        memory.close()
    live = owner.memory.render()
    if rebuilt != live:
        first = next((k for k, (a, b) in enumerate(zip(live.split("\n"), rebuilt.split("\n"))) if a != b), None)
        shown = (live.split("\n")[first][:100], rebuilt.split("\n")[first][:100]) if first is not None else ("", "")
        run.fail("a restart's view is the logs' view", f"they differ first at line {first}: "
                 f"{shown[0]!r} opened, {shown[1]!r} rebuilt")


def snapshot(machine):
    """A copy of the disk as it is now, for a reader that must change nothing of the run's."""
    copied = copy.copy(machine)
    copied.root = copy.deepcopy(machine.root)
    copied.processes = []
    copied.locks = {}
    copied.counts = type(machine.counts)()
    copied.rng = copy.deepcopy(machine.rng)
    copied.armed = False
    return copied


def at_restart(run) -> None:
    check_kept(run, final=False)


def at_end(run) -> None:
    check_kept(run, final=True)
