"""The laws CrossHair checks on the model's own functions, and the compactor's line, exhaustively.

Strategy: each CrossHair law is a function of laws/contracts/views.py (leading asserts assume and
bound the domain, trailing asserts claim), run as `crosshair check --report_all` with an explicit
iteration budget. It earns **Confirmed (CrossHair)** only when CrossHair prints "Confirmed over all
paths."; a run that ends "Not confirmed." earns only **Searched**, with its budget and seconds; a
counterexample (exit 1) or an error (exit 2) fails the law. CrossHair runs as subprocesses, two at
a time (this machine has 2 cores): each law starts its own run and the next law's, then waits for
its own, so `python -m laws` keeps both cores busy and `--only` runs at most one extra. Nothing is
cached across runs.

`crosshair diffbehavior` compares the model's `line` and `cut` with the production twins in
harness/line.py behind one domain guard (laws/contracts/twins.py). It cannot confirm: a run with
no difference is **Searched**, with the iterations CrossHair reports.

The line laws enumerate every sequence of up to 6 replies drawn from 9 reply shapes (empty after
trimming, short, exactly 512 bytes, 514 bytes of two-byte characters, and over-long replies of
600..1000 bytes), with a 600-byte fallback of two-byte characters: the loop reads at most 6
replies, so longer sequences add nothing.
"""

import atexit
import itertools
import re
import subprocess
import sys
import time
from functools import lru_cache
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from laws.contracts.views import CONTEXT_LEVEL_MAX, LEVEL_MAX, VIEW_LINES_MAX
from laws.registry import Law, Verdict
from model.line import cut, line
from model.view import LINE_BYTES_MAX, utf8_bytes

ROOT = Path(__file__).resolve().parent.parent
ITERATIONS = 300  # --max_uninteresting_iterations for `crosshair check`
DIFF_ITERATIONS = {"line": 2, "cut": 10, "due": 50}
DOMAIN = f"views of ≤ {VIEW_LINES_MAX} lines, levels ≤ {LEVEL_MAX}"
CONTEXT_DOMAIN = f"views of ≤ {VIEW_LINES_MAX} lines, levels ≤ {CONTEXT_LEVEL_MAX}, nodes of level ≤ {CONTEXT_LEVEL_MAX + 1}"

# (job name, argv after `python -m crosshair`), in the order the laws run
JOBS: Dict[str, List[str]] = {
    "merge_is_one_pair": ["check", "laws.contracts.views.merge_is_one_pair"],
    "fit_merges_built": ["check", "laws.contracts.views.fit_merges_built"],
    "fit_reaches_budget": ["check", "laws.contracts.views.fit_reaches_budget"],
    "context_ends_at_node": ["check", "laws.contracts.views.context_ends_at_node"],
    "context_is_prefix": ["check", "laws.contracts.views.context_is_prefix"],
    "line_matches_production": ["diffbehavior", "laws.contracts.twins.model_line", "laws.contracts.twins.harness_line",
                                f"--max_uninteresting_iterations={DIFF_ITERATIONS['line']}"],
    "cut_matches_production": ["diffbehavior", "laws.contracts.twins.model_cut", "laws.contracts.twins.harness_cut",
                               f"--max_uninteresting_iterations={DIFF_ITERATIONS['cut']}"],
    "due_matches_production": ["diffbehavior", "laws.contracts.twins.model_due", "laws.contracts.twins.harness_due",
                               f"--max_uninteresting_iterations={DIFF_ITERATIONS['due']}"],
}
ORDER = list(JOBS)
for _name, _argv in JOBS.items():
    if _argv[0] == "check":
        _argv.extend(["--report_all", f"--max_uninteresting_iterations={ITERATIONS}", "--analysis_kind=asserts"])

RUNNING: Dict[str, Tuple[subprocess.Popen, float]] = {}
FINISHED: Dict[str, Tuple[int, str, float]] = {}


def start(name: str) -> None:
    if name in RUNNING or name in FINISHED:
        return
    process = subprocess.Popen(
        [sys.executable, "-m", "crosshair"] + JOBS[name],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    RUNNING[name] = (process, time.monotonic())


def collect() -> None:
    for name, (process, began) in list(RUNNING.items()):
        if process.poll() is not None:
            output, _ = process.communicate()
            FINISHED[name] = (process.returncode, output, time.monotonic() - began)
            del RUNNING[name]


def run(name: str) -> Tuple[int, str, float]:
    """Start this job, keep two running (two cores) from the jobs of the laws that come after it,
    and wait for this one: (exit status, output, wall seconds)."""
    start(name)
    later = ORDER[ORDER.index(name) + 1 :]
    deadline = time.monotonic() + 600
    while name not in FINISHED:
        collect()
        for other in later:
            if len(RUNNING) >= 2:
                break
            start(other)
        if name not in FINISHED:
            if time.monotonic() > deadline:
                raise TimeoutError(f"crosshair {name} ran over 600 s")
            time.sleep(0.02)
    return FINISHED[name]


@atexit.register
def stop_the_rest() -> None:
    """A job started ahead for a law that was not run is stopped, by its own process id."""
    for process, _ in RUNNING.values():
        if process.poll() is None:
            process.kill()
            process.wait()


def crosshair_law(name: str, domain: str = DOMAIN) -> Verdict:
    status, output, seconds = run(name)
    text = output.strip()
    if status == 1 or ": error:" in text:
        return Verdict(False, "none", f"counterexample: {text[:300]}")
    if status != 0:
        return Verdict(False, "none", f"crosshair exited {status}: {text[:300]}")
    if "Confirmed over all paths." in text:
        return Verdict(True, f"Confirmed (CrossHair): {domain}", f"{seconds:.1f} s wall")
    if "Not confirmed." in text:
        return Verdict(True, f"Searched (CrossHair, {ITERATIONS} iterations / {seconds:.0f} s): {domain}",
                       "not every path was explored")
    return Verdict(False, "none", f"no verdict from crosshair: {text[:300]}")


def diff_law(name: str, iterations_key: str) -> Verdict:
    status, output, seconds = run(name)
    text = output.strip()
    if status != 0 or "No differences found" not in text:
        return Verdict(False, "none", f"diffbehavior: {text[:400]}")
    attempted = re.search(r"attempted (\d+) iterations", text)
    count = attempted.group(1) if attempted else "?"
    return Verdict(True, f"Searched (CrossHair diffbehavior, {count} iterations / {seconds:.0f} s)",
                   f"model vs {'harness/planner.py' if iterations_key == 'due' else 'harness/line.py'}, "
                   f"budget {DIFF_ITERATIONS[iterations_key]} uninteresting iterations")


# ---- the compactor's line, exhaustively ----

SHAPES = ("", "  s  ", "a" * 512, "é" * 257, "b" * 600, "c" * 700, "d" * 800, "e" * 900, "f" * 1000)
FALLBACK = "ü" * 300  # 600 bytes: the fallback is cut on a character boundary
REPLIES_MAX = 6
LABEL = f"Bounded: all {sum(len(SHAPES) ** n for n in range(REPLIES_MAX + 1)):,} reply sequences of ≤ 6 from 9 shapes"


@lru_cache(maxsize=None)
def sequences() -> tuple:
    """Every sequence and its outcome, computed once per process for the six line laws."""
    found = []
    for count in range(REPLIES_MAX + 1):
        for replies in itertools.product(SHAPES, repeat=count):
            found.append((replies, FALLBACK, line(replies, FALLBACK)))
    return tuple(found)


def fits(text: str) -> bool:
    return 1 <= utf8_bytes(text) <= LINE_BYTES_MAX


def line_law(claim) -> Verdict:
    for replies, fallback, outcome in sequences():  # noqa: B007
        problem = claim(replies, fallback, outcome)
        if problem:
            shapes = [utf8_bytes(r.strip()) for r in replies]
            return Verdict(False, "none", f"replies of {shapes} bytes: {problem}")
    return Verdict(True, LABEL)


def calls_at_most_tries(replies, fallback, outcome) -> Optional[str]:
    """[gist §4] "Try at most 5 times": 5 is the gist's number, not the model's constant."""
    if outcome.calls > 5 or outcome.calls > len(replies):
        return f"{outcome.calls} calls"
    return None


def kept_fits(replies, fallback, outcome) -> Optional[str]:
    if not fits(outcome.text):
        return f"the kept line is {utf8_bytes(outcome.text)} bytes"
    return None


def takes_first_fit(replies, fallback, outcome) -> Optional[str]:
    """The first reply that fits ends the tries and is the line (if the tries reach it)."""
    for k in range(outcome.calls):
        text = replies[k].strip()
        if fits(text):
            if k != outcome.calls - 1 or outcome.text != text:
                return f"reply {k} fits but the line is not it or the tries went on"
            return None
    return None


def stops_when_not_shorter(replies, fallback, outcome) -> Optional[str]:
    """Every try but the last was over-long and strictly shorter than the ones before it; a
    follow-up that is not shorter is the last try."""
    best = None
    for k in range(outcome.calls - 1):
        size = utf8_bytes(replies[k].strip())
        if size <= LINE_BYTES_MAX or (best is not None and size >= best):
            return f"the tries went on after reply {k}"
        best = size
    return None


def empty_is_a_try(replies, fallback, outcome) -> Optional[str]:
    """An empty reply counts as a call and is the last one."""
    for k in range(len(replies)):
        if k >= outcome.calls:
            return None
        if replies[k].strip() == "" and outcome.calls != k + 1:
            return f"empty reply {k} was not the last try"
    return None


def keeps_shortest(replies, fallback, outcome) -> Optional[str]:
    """The kept line is the shortest non-empty try, cut; with none, the fallback, cut."""
    tried = [replies[k].strip() for k in range(outcome.calls) if replies[k].strip() != ""]
    expected = cut(min(tried, key=utf8_bytes), LINE_BYTES_MAX) if tried else cut(fallback, LINE_BYTES_MAX)
    if outcome.text != expected:
        return f"kept {utf8_bytes(outcome.text)} bytes, the shortest try cut is {utf8_bytes(expected)}"
    return None


LAWS = [
    Law("line_matches_production", "§4", "harness/line.py's `line` behaves as the model's on three replies and a fallback of ≤ 600 characters.", "crosshair", "Searched (CrossHair diffbehavior, N iterations / S s)", lambda budget: diff_law("line_matches_production", "line")),
    Law("cut_matches_production", "§4", "harness/line.py's `cut` behaves as the model's on texts of ≤ 600 characters.", "crosshair", "Searched (CrossHair diffbehavior, N iterations / S s)", lambda budget: diff_law("cut_matches_production", "cut")),
    Law("due_matches_production", "§3.2", "harness/planner.py's `more_due` ((T + 1 − first)/2^l, oldest first on ties) orders pairs as the model's scan does, for levels ≤ 12 and T ≤ 65,536.", "crosshair", "Searched (CrossHair diffbehavior, N iterations / S s)", lambda budget: diff_law("due_matches_production", "due")),
    Law("line_calls_at_most_tries", "§4", "A compaction asks for at most 5 replies.", "exhaustive", LABEL, lambda budget: line_law(calls_at_most_tries)),
    Law("line_fits", "§4", "Every kept line is 1 to 512 bytes.", "exhaustive", LABEL, lambda budget: line_law(kept_fits)),
    Law("line_takes_first_fit", "§4", "The first reply that fits in 512 bytes ends the tries and is the line.", "exhaustive", LABEL, lambda budget: line_law(takes_first_fit)),
    Law("line_stops_when_not_shorter", "§4", "A follow-up not shorter than the best line so far is the last try.", "exhaustive", LABEL, lambda budget: line_law(stops_when_not_shorter)),
    Law("line_empty_is_a_try", "§4", "An empty reply counts as a try and is the last one.", "exhaustive", LABEL, lambda budget: line_law(empty_is_a_try)),
    Law("line_keeps_shortest", "§4", "The kept line is the shortest try, cut to 512 bytes; with none, the node's input, cut.", "exhaustive", LABEL, lambda budget: line_law(keeps_shortest)),
]
