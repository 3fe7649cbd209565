"""The laws CrossHair checks on the model's own functions, and the compactor's line and cut,
exhaustively.

Strategy: each CrossHair law is a function of laws/contracts/views.py (leading asserts assume and
bound the domain, trailing asserts claim), run as `crosshair check --report_all` with an explicit
iteration budget. It earns **Confirmed (CrossHair)** only when CrossHair prints "Confirmed over all
paths." and the contract's concrete witnesses (beside it, run by laws/witness.py) meet its
preconditions and reach each of its claims: CrossHair also confirms a contract no input can
enter. A run that ends "Not confirmed." earns only **Searched**, below the registry's label, so
the law fails; a counterexample (exit 1) or an error (exit 2) fails it too.

`crosshair diffbehavior` compares the model's `line`, `cut` and due order with the production
twins in harness/ behind one domain guard (laws/contracts/twins.py), whose witnesses must pass
the guard. It cannot confirm: a run with no difference is **Searched**, labelled with the
iterations CrossHair reports.

CrossHair runs as subprocesses, each on one core: from the start of `python -m laws`, one job runs
beside the laws computed in this process, and two while this process waits for one. A job's
seconds are its own (wall, and CPU in the detail), not the wait of the law that reads it. Nothing
is cached across runs.

The line laws enumerate every sequence of up to 6 replies drawn from 9 reply shapes (empty after
trimming, short, exactly 512 bytes, 514 bytes of two-byte characters, and over-long replies of
600..1000 bytes, one of them padded with whitespace): the loop reads at most 6 replies, so longer
sequences add nothing. The "Too long" follow-up is checked against the gist's text, transcribed in
`gist_too_long`. The cut law compares both `cut`s with a definition written here character by
character, at every budget, around characters of 1 to 4 bytes.
"""

import atexit
import itertools
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import harness.memory.line as production_line
from laws import witness
from laws.contracts import twins, views
from laws.contracts.views import CONTEXT_LEVEL_MAX, LEVEL_MAX, NODE_BITS, VIEW_LINES_MAX
from laws.core import Budget, Law, Verdict
from model.line import cut, line
from model.view import LINE_BYTES_MAX, utf8_bytes

ROOT = Path(__file__).resolve().parent.parent
ITERATIONS = 300  # --max_uninteresting_iterations for `crosshair check`
DIFF_ITERATIONS = {"line": 4, "cut": 30, "due": 150}
# The iterations each diffbehavior run must report at least: at the budgets above CrossHair
# reports 12 (the line twins return the follow-ups too), 211 and 332, the same in every run (its
# count does not depend on the load).
DIFF_MINIMUM = {"line": 10, "cut": 200, "due": 300}
PARENTS = f"any built lines and built parents (levels ≤ {LEVEL_MAX + 1}, indices < {NODE_BITS})"
DOMAIN = f"views of ≤ {VIEW_LINES_MAX} lines tiling 0..end, levels ≤ {LEVEL_MAX}, each line 1 byte, {PARENTS}"
MERGE_DOMAIN = f"{DOMAIN}, T = end + 0..4"
FIT_DOMAIN = f"{DOMAIN}, T = end, budgets 0..{VIEW_LINES_MAX} bytes"
CONTEXT_DOMAIN = (f"compaction views of ≤ {VIEW_LINES_MAX} lines tiling 0..end, levels ≤ {CONTEXT_LEVEL_MAX}, "
                  f"any built lines; nodes of level ≤ {CONTEXT_LEVEL_MAX + 1}, index ≤ 4")

# (job name, argv after `python -m crosshair`), in the order the laws run
JOBS: dict[str, list[str]] = {
    # The view laws once checked here by `crosshair check` on laws/contracts/views.py are proved
    # by Z3 on the model's own code now (laws/universal.py).
    "line_matches_production": ["diffbehavior", "laws.contracts.twins.model_line", "laws.contracts.twins.harness_line",
                                f"--max_uninteresting_iterations={DIFF_ITERATIONS['line']}"],
    "cut_matches_production": ["diffbehavior", "laws.contracts.twins.model_cut", "laws.contracts.twins.harness_cut",
                               f"--max_uninteresting_iterations={DIFF_ITERATIONS['cut']}"],
    "due_matches_production": ["diffbehavior", "laws.contracts.twins.model_due", "laws.contracts.twins.harness_due",
                               f"--max_uninteresting_iterations={DIFF_ITERATIONS['due']}"],
}
# The longest first, so the two cores end together.
ORDER = ["line_matches_production", "due_matches_production", "cut_matches_production"]
assert sorted(ORDER) == sorted(JOBS)
for _name, _argv in JOBS.items():
    if _argv[0] == "check":
        _argv.extend(["--report_all", f"--max_uninteresting_iterations={ITERATIONS}", "--analysis_kind=asserts"])


class Job:
    """One CrossHair run: its process, its output file, and when it started."""

    def __init__(self, name: str) -> None:
        self.output = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen([sys.executable, "-m", "crosshair"] + JOBS[name], cwd=ROOT,
                                        stdout=self.output, stderr=subprocess.STDOUT, text=True)
        self.began = time.monotonic()


# name -> (exit status, output, wall seconds, CPU seconds)
FINISHED: dict[str, tuple[int, str, float, float]] = {}
RUNNING: dict[str, Job] = {}
PENDING: list[str] = []
LOCK = threading.Lock()
WAITING = threading.Event()  # set while this process waits for a job: then two may run


def start(name: str) -> None:
    if name in RUNNING or name in FINISHED:
        return
    if name in PENDING:
        PENDING.remove(name)
    RUNNING[name] = Job(name)


def collect() -> None:
    """Reap the finished jobs, with each one's own CPU seconds (os.wait4 gives its rusage)."""
    for name, job in list(RUNNING.items()):
        pid, status, usage = os.wait4(job.process.pid, os.WNOHANG)
        if pid == 0:
            continue
        job.process.returncode = os.waitstatus_to_exitcode(status)
        job.output.seek(0)
        text = job.output.read()
        job.output.close()
        FINISHED[name] = (job.process.returncode, text, time.monotonic() - job.began, usage.ru_utime + usage.ru_stime)
        del RUNNING[name]


def feed() -> None:
    """Keep one job running beside this process's own work, two while it waits."""
    while True:
        with LOCK:
            collect()
            while PENDING and len(RUNNING) < (2 if WAITING.is_set() else 1):
                start(PENDING[0])
            if not PENDING and not RUNNING:
                return
        time.sleep(0.02)


def start_ahead(names: list[str]) -> None:
    """Queue the jobs of these laws, longest first, and start feeding them to the cores."""
    with LOCK:
        PENDING.extend(name for name in ORDER if name in names and name not in PENDING)
    if PENDING:
        threading.Thread(target=feed, daemon=True).start()


def run(name: str) -> tuple[int, str, float, float]:
    """Wait for this law's job, starting it now if it was not queued: (exit status, output,
    wall seconds, CPU seconds)."""
    deadline = time.monotonic() + 600
    WAITING.set()
    try:
        while True:
            with LOCK:
                start(name)
                collect()
                if name in FINISHED:
                    return FINISHED[name]
                while PENDING and len(RUNNING) < 2:
                    start(PENDING[0])
            if time.monotonic() > deadline:
                raise TimeoutError(f"crosshair {name} ran over 600 s")
            time.sleep(0.02)
    finally:
        WAITING.clear()


@atexit.register
def stop_the_rest() -> None:
    """A job still running when the laws end is stopped, by its own process id."""
    with LOCK:
        PENDING.clear()
        for job in RUNNING.values():
            if job.process.poll() is None:
                job.process.kill()
                job.process.wait()


def job_seconds(wall: float, cpu: float) -> str:
    return f"its CrossHair job: {wall:.1f} s wall, {cpu:.1f} s CPU"


def crosshair_law(name: str, domain: str) -> Verdict:
    status, output, wall, cpu = run(name)
    text = output.strip()
    if status == 1 or ": error:" in text:
        return Verdict(False, "none", f"counterexample: {text[:300]}", wall)
    if status != 0:
        return Verdict(False, "none", f"crosshair exited {status}: {text[:300]}", wall)
    problem = witness.contract_problem(getattr(views, name), views.WITNESSES.get(name, ()))
    if problem:
        return Verdict(False, "none", f"no concrete witness: {problem}", wall)
    if "Confirmed over all paths." in text:
        return Verdict(True, f"Confirmed (CrossHair): {domain}", job_seconds(wall, cpu), wall)
    if "Not confirmed." in text:
        return Verdict(True, f"Searched (CrossHair): not confirmed at {ITERATIONS} uninteresting iterations: {domain}",
                       job_seconds(wall, cpu), wall)
    return Verdict(False, "none", f"no verdict from crosshair: {text[:300]}", wall)


def diff_law(name: str, key: str) -> Verdict:
    status, output, wall, cpu = run(name)
    text = output.strip()
    if status != 0 or "No differences found" not in text:
        return Verdict(False, "none", f"diffbehavior: {text[:400]}", wall)
    problem = witness.pair_problem(getattr(twins, f"model_{key}"), getattr(twins, f"harness_{key}"), twins.WITNESSES[key])
    if problem:
        return Verdict(False, "none", f"no concrete witness: {problem}", wall)
    attempted = re.search(r"attempted (\d+) iterations", text)
    if attempted is None:
        return Verdict(False, "none", f"diffbehavior said no iteration count: {text[:200]}", wall)
    return Verdict(True, f"Searched (CrossHair diffbehavior): {int(attempted.group(1)):,} iterations",
                   f"budget {DIFF_ITERATIONS[key]} uninteresting iterations; {job_seconds(wall, cpu)}", wall)


def diff_label(key: str) -> str:
    return f"Searched (CrossHair diffbehavior): at least {DIFF_MINIMUM[key]:,} iterations"


# ---- cut, around characters of every width ----

WIDTHS = "aé€😀"  # 1, 2, 3 and 4 bytes
EDGES = "\x7f\x80\u07ff\u0800\uffff\U00010000\U0010ffff"  # the last and first code points of each width
WIDTHS_TEXT_MAX = 6
EDGES_TEXT_MAX = 3
PADDED_TEXT_MAX = 3
PADDING_BYTES = range(500, LINE_BYTES_MAX + 1)


def character_bytes(character: str) -> int:
    """UTF-8's width of one character, from its code point (RFC 3629's table, not the encoder)."""
    code = ord(character)
    if code < 0x80:
        return 1
    if code < 0x800:
        return 2
    if code < 0x10000:
        return 3
    return 4


def longest_whole_prefix(text: str, bytes_max: int) -> str:
    """The definition: the longest prefix of whole characters whose bytes fit in the budget."""
    used = 0
    kept = 0
    for character in text:
        if used + character_bytes(character) > bytes_max:
            break
        used += character_bytes(character)
        kept += 1
    return text[:kept]


def texts(alphabet: str, length_max: int) -> Iterator[str]:
    for length in range(length_max + 1):
        for characters in itertools.product(alphabet, repeat=length):
            yield "".join(characters)


def cut_cases() -> Iterator[tuple[str, int]]:
    """Every budget from 0 to one past the text's size, for every short text of the four widths
    and of the encoding's edge characters; and short texts after 500 to 512 ASCII bytes, at the
    line's 512."""
    for alphabet, length_max in ((WIDTHS, WIDTHS_TEXT_MAX), (EDGES, EDGES_TEXT_MAX)):
        for text in texts(alphabet, length_max):
            size = sum(character_bytes(character) for character in text)
            for bytes_max in range(size + 2):
                yield text, bytes_max
    for text in texts(WIDTHS, PADDED_TEXT_MAX):
        for padding in PADDING_BYTES:
            yield "x" * padding + text, LINE_BYTES_MAX


CUT_SCOPE = (f"every budget, texts of ≤ {WIDTHS_TEXT_MAX} of a é € 😀 (1 to 4 bytes) or ≤ {EDGES_TEXT_MAX} of "
             f"U+7F U+80 U+7FF U+800 U+FFFF U+10000 U+10FFFF; ≤ {PADDED_TEXT_MAX} of a é € 😀 after 500 to 512 ASCII "
             "bytes at 512")
CUT_CASES = 93_275  # how many cut_cases() yields: the law counts them again


def cut_keeps_whole_characters(budget: Budget) -> Verdict:
    checked = 0
    for text, bytes_max in cut_cases():
        expected = longest_whole_prefix(text, bytes_max)
        for where, function in (("model/line.py", cut), ("harness/memory/line.py", production_line.cut)):
            try:
                got = function(text, bytes_max)
            except Exception as error:  # a cut that raises on a valid text is a wrong cut
                return Verdict(False, "none", f"{where} cut({text[-8:]!r}, {bytes_max}) raised {type(error).__name__}: {error}")
            if got != expected:
                return Verdict(False, "none", f"{where} cut({text[-8:]!r}, {bytes_max}) = {got[-8:]!r}, "
                               f"the longest whole prefix is {expected[-8:]!r} (last 8 characters shown)")
        checked += 1
    return Verdict(True, f"Bounded: {CUT_SCOPE}; {checked:,} cases")


# ---- the compactor's line, exhaustively ----

# "e" is over-long and padded: trimming changes its size, which the follow-up must report
SHAPES = ("", "  s  ", "a" * 512, "é" * 257, "b" * 600, "c" * 700, "d" * 800, " " + "e" * 900 + "\n", "f" * 1000)
REPLIES_MAX = 6
# the registry's: written out, so a narrowed domain (fewer shapes, shorter sequences) earns less
LABEL = "Bounded: all 597,871 reply sequences of ≤ 6 from 9 shapes"


def line_label() -> str:
    """The label as the run measured it: the sequences checked, their longest, the shapes used."""
    checked = sequences()
    longest = max(len(replies) for replies, _ in checked)
    shapes = len({reply for replies, _ in checked for reply in replies})
    return f"Bounded: all {len(checked):,} reply sequences of ≤ {longest} from {shapes} shapes"


@cache
def sequences() -> tuple:
    """Every sequence and its outcome, computed once per process for the line laws."""
    found = []
    for count in range(REPLIES_MAX + 1):
        for replies in itertools.product(SHAPES, repeat=count):
            found.append((replies, line(replies)))
    return tuple(found)


def fits(text: str) -> bool:
    return 1 <= utf8_bytes(text) <= LINE_BYTES_MAX


def line_law(claim) -> Verdict:
    for replies, outcome in sequences():
        problem = claim(replies, outcome)
        if problem:
            shapes = [utf8_bytes(r.strip()) for r in replies]
            return Verdict(False, "none", f"replies of {shapes} bytes: {problem}")
    return Verdict(True, line_label())


def calls_at_most_tries(replies, outcome) -> str | None:
    """[gist §4] "Try at most 5 times": 5 is the gist's number, not the model's constant."""
    if outcome.calls > 5 or outcome.calls > len(replies):
        return f"{outcome.calls} calls"
    return None


def kept_fits(replies, outcome) -> str | None:
    """A kept line is 1 to 512 bytes; "" (a failed try) only when no try gave a line."""
    tried = [replies[k].strip() for k in range(outcome.calls) if replies[k].strip() != ""]
    if outcome.text == "" and not tried:
        return None
    if not fits(outcome.text):
        return f"the kept line is {utf8_bytes(outcome.text)} bytes"
    return None


def takes_first_fit(replies, outcome) -> str | None:
    """The first reply that fits ends the tries and is the line (if the tries reach it)."""
    for k in range(outcome.calls):
        text = replies[k].strip()
        if fits(text):
            if k != outcome.calls - 1 or outcome.text != text:
                return f"reply {k} fits but the line is not it or the tries went on"
            return None
    return None


def stops_when_not_shorter(replies, outcome) -> str | None:
    """Every try but the last was over-long and strictly shorter than the ones before it; a
    follow-up that is not shorter is the last try."""
    best = None
    for k in range(outcome.calls - 1):
        size = utf8_bytes(replies[k].strip())
        if size <= LINE_BYTES_MAX or (best is not None and size >= best):
            return f"the tries went on after reply {k}"
        best = size
    return None


def empty_is_a_try(replies, outcome) -> str | None:
    """An empty reply counts as a call and is the last one."""
    for k in range(len(replies)):
        if k >= outcome.calls:
            return None
        if replies[k].strip() == "" and outcome.calls != k + 1:
            return f"empty reply {k} was not the last try"
    return None


def keeps_shortest(replies, outcome) -> str | None:
    """The kept line is the shortest non-empty try, cut; with none, "": a failed try, never the
    node's input [gist §7.5] [P16]."""
    tried = [replies[k].strip() for k in range(outcome.calls) if replies[k].strip() != ""]
    expected = cut(min(tried, key=utf8_bytes), LINE_BYTES_MAX) if tried else ""
    if outcome.text != expected:
        return f"kept {utf8_bytes(outcome.text)} bytes, the shortest try cut is {utf8_bytes(expected)}"
    return None


def gist_too_long(line_text: str) -> str:
    """[gist §4]'s follow-up, transcribed from the gist: N is the line's bytes, then its first
    512 bytes, cut on a character boundary, and the limit mark."""
    data = line_text.encode("utf-8")
    head = data[:512].decode("utf-8", "ignore")
    return ("Too long: your line is %d bytes, over the 512-byte limit. Write\n"
            "the whole line again for the same <input>, cutting just enough of the\n"
            "least valuable items to fit before this cut:\n"
            "%s| ← LIMIT") % (len(data), head)


def follows_up_too_long(replies, outcome) -> str | None:
    """Each try but the last got the gist's "Too long" follow-up for its trimmed line; the last
    got one only if it was over-long, not the fifth, and the replies ran out after it."""
    expected = [gist_too_long(replies[k].strip()) for k in range(outcome.calls - 1)]
    if outcome.calls > 0:
        last = replies[outcome.calls - 1].strip()
        still_best = all(utf8_bytes(last) < utf8_bytes(replies[k].strip()) for k in range(outcome.calls - 1))
        if (utf8_bytes(last) > LINE_BYTES_MAX and still_best and outcome.calls < 5
                and outcome.calls == len(replies)):
            expected.append(gist_too_long(last))
    if list(outcome.follow_ups) != expected:
        return f"{len(outcome.follow_ups)} follow-ups, expected {len(expected)}"
    return None


LAWS = [
    Law("line_matches_production", "§4", f"harness/memory/line.py's `line` behaves as the model's on three replies of ≤ {twins.REPLY_CHARS_MAX} characters: calls, line and follow-ups.", "crosshair", diff_label("line"), lambda budget: diff_law("line_matches_production", "line")),
    Law("cut_matches_production", "§4", f"harness/memory/line.py's `cut` behaves as the model's on texts of ≤ {twins.CUT_CHARS_MAX} characters, budgets 0..{twins.CUT_BYTES_MAX} bytes.", "crosshair", diff_label("cut"), lambda budget: diff_law("cut_matches_production", "cut")),
    Law("due_matches_production", "§3.2", f"harness/memory/planner.py's batch heap (its `_View.entry`, (−(T + 1 − first)·2^(64 − l), first, level): oldest first on ties) orders pairs as the model's scan does, for levels ≤ {twins.LEVEL_MAX} and T ≤ {twins.T_MAX:,}.", "crosshair", diff_label("due"), lambda budget: diff_law("due_matches_production", "due")),
    Law("cut_keeps_whole_characters", "§4", "The model's `cut` and harness/memory/line.py's are the longest prefix within the budget that splits no character (a definition written character by character).", "exhaustive", f"Bounded: {CUT_SCOPE}; at least {CUT_CASES:,} cases", cut_keeps_whole_characters),
    Law("line_calls_at_most_tries", "§4", "A compaction asks for at most 5 replies.", "exhaustive", LABEL, lambda budget: line_law(calls_at_most_tries)),
    Law("line_fits", "§4", "Every kept line is 1 to 512 bytes; with no line at all the try failed.", "exhaustive", LABEL, lambda budget: line_law(kept_fits)),
    Law("line_takes_first_fit", "§4", "The first reply that fits in 512 bytes ends the tries and is the line.", "exhaustive", LABEL, lambda budget: line_law(takes_first_fit)),
    Law("line_stops_when_not_shorter", "§4", "A follow-up not shorter than the best line so far is the last try.", "exhaustive", LABEL, lambda budget: line_law(stops_when_not_shorter)),
    Law("line_empty_is_a_try", "§4", "An empty reply counts as a try and is the last one.", "exhaustive", LABEL, lambda budget: line_law(empty_is_a_try)),
    Law("line_keeps_shortest", "§4", "The kept line is the shortest try, cut to 512 bytes; with none, no line (a failed try), never the node's input.", "exhaustive", LABEL, lambda budget: line_law(keeps_shortest)),
    Law("line_follows_up", "§4", "Each over-long try but the fifth gets the gist's \"Too long\" follow-up, with its trimmed size and its first 512 bytes.", "exhaustive", LABEL, lambda budget: line_law(follows_up_too_long)),
]
