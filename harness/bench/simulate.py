"""`ever simulate`: what a chat costs, replayed with no key and no network, beside the designs a user
would pick instead (docs/simulate.md).

Each message of a workload (harness/bench/simulate_workloads.py) goes through the production planner
(harness/memory/planner.py); each call it leads to is built by the real request builders (the
compactor's `Compactor.request`, the turn's `chat_blocks` and the provider's body) and
costed against the local API's prompt cache (harness/bench/simulate_meter.py) at the capability
table's prices. The compactor is never late: after each message every call the planner starts
runs, up to 8 at once in waves, before the next message [gist §4]; its line is 380 to 512 bytes
(lines use the space [gist §7.8]). A turn's replies and tool results are the workload's own
messages (harness/bench/simulate_designs.py). Thinking is not simulated.

The modes, on the same messages at the same prices:

    ever       Ever as configured: batches from 128 KB down to 64 KB [gist §3.2]
    push       merging at every message: the view held at 96 KB, push as is [gist §3.3]
    blocks16   Ever with the view in blocks of 16 lines instead of 4 [gist §3.3]
    same-model Ever with the compactor on the turns' model
    pauses     Ever with every user message after a pause longer than the cache's 5 minutes
    carried    one conversation carried turn to turn, summarized near the context window
    window     a sliding window of the last 100 messages

The gist's own unit [gist §3.3], for the modes with a view: at each message a call reads the view
as the last message's call left it: the lines before the first changed one are cached, the rest
written; cost-weighted line-inputs are 0.1 × cached + 1.25 × written.
"""

import multiprocessing
import os
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from harness.bench.simulate_designs import (
    Run,
    TurnConversation,
    call_points,
    reblocked,
    run_carried,
    run_window,
    state_text,
)
from harness.bench.simulate_meter import Meter, Prices, reply_tokens, tokens_of
from harness.bench.simulate_workloads import Workload, with_pauses
from harness.calls.compactor import Compactor, MemorySettings, job_for
from harness.calls.prompt import Prompt, chat_blocks, view_mark
from harness.memory.events import Built, Message
from harness.memory.planner import Config, Planner, last_message

DEFAULT_MESSAGES = 30_000  # [gist §3.3] the gist's simulation; a month of the seeded chat
CACHE_LIFE_SECONDS = 300  # [gist §3.3] 5-minute entries
PAUSE_SECONDS = CACHE_LIFE_SECONDS + 60
PUSH_VIEW_BYTES = 96_000  # [gist §3.3] push at a fixed size: the batched view's average
PUSH_CVIEW_BYTES = 24_000  # [gist §4] the compaction view's average
BLOCK_LINES = 4
MODES = ("ever", "push", "blocks16", "same-model", "pauses", "carried", "window")
DESCRIPTIONS = {
    "ever": "Ever as configured: the view batched from 128 KB to 64 KB, blocks of 4 lines",
    "push": "merging at every message: the view held at 96 KB (push as is)",
    "blocks16": "Ever with the view in blocks of 16 lines",
    "same-model": "Ever with the compactor on the turns' model",
    "pauses": "Ever with each user message after a pause past the cache's 5 minutes",
    "carried": "one conversation carried turn to turn, summarized near the context window",
    "window": "a sliding window of the last 100 messages",
}


@dataclass(frozen=True)
class ViewMode:
    """A design with Ever's view: its compactor's model, its blocks, its pauses."""

    name: str
    compaction_model: str
    block_lines: int = BLOCK_LINES
    pause_seconds: float = 0.0


class Rendered:
    """The planner as `job_for` reads it, faster: each built line rendered once (a node is built
    once and never changes [gist §2]), and the compaction view's lines listed once per state of
    the planner (`changed` says when it moves) instead of once per job. `Planner.context`'s
    rule, on that list: the lines that end by the node's end, up to the first unbuilt line
    [gist §4]; tests/chat/test_simulate.py checks both give the same."""

    def __init__(self, planner: Planner) -> None:
        self.planner = planner
        self.texts = planner.texts
        self._lines: dict[tuple[int, int], str] = {}
        self._cview: list[tuple[int, int]] | None = None
        self._lasts: list[int] = []
        self._built_count = 0

    def changed(self) -> None:
        self._cview = None

    def rendered(self, l: int, i: int) -> str:
        line = self._lines.get((l, i))
        if line is None:
            line = self.planner.rendered(l, i)
            if self.planner.built(l, i):
                self._lines[(l, i)] = line
        return line

    def context(self, l: int, i: int) -> list[tuple[int, int]]:
        if self._cview is None:
            lines = self.planner.cview.lines()
            built = self.planner.built
            count = 0
            while count < len(lines) and built(*lines[count]):
                count += 1
            # [P19] the context also stops at the first line that takes it past its budget
            budget, total, fits = self.planner.config.cview_bytes_ceiling, 0, 0
            line_bytes = self.planner.cview.line_bytes
            while fits < count:
                line_l, line_i = lines[fits]
                total += line_bytes[line_i << line_l]
                if total > budget:
                    break
                fits += 1
            count = fits
            self._cview = lines
            self._lasts = [last_message(line_l, line_i) for line_l, line_i in lines]
            self._built_count = count
        end = i - 1 if l == 0 else last_message(l, i)
        return self._cview[:min(bisect_right(self._lasts, end), self._built_count)]

    def text(self, l: int, i: int):
        return self.planner.text(l, i)


def made_line(l: int, i: int, line_bytes: tuple[int, int] = (380, 512)) -> str:
    """The compactor's line for node (l, i): `line_bytes` long (from, to), the same for the same
    node."""
    low, high = line_bytes
    size = low + ((i * 2654435761 + l * 40503) >> 7) % (high - low + 1)
    head = f"summary of {i << l}+{1 << l}: "
    return (head + "user: asked; ever: did; echo: ok " * 20)[:size]


# what a model may say its own way: its name, and its thinking (Haiku 5.5's "off" is `disabled`,
# Haiku 4.5's no field at all) [H32]
OWN_FIELDS = ("model", "thinking", "output_config")


def same_but_model(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two requests that differ at most in their model and its thinking fields (the same messages
    are the same objects)."""
    if a is b:
        return True
    shared = set(a) - set(OWN_FIELDS)
    return shared == set(b) - set(OWN_FIELDS) and all(a[k] == b[k] for k in shared if k != "messages") \
        and a["messages"] == b["messages"]


def common_prefix(old: list[tuple[int, int]], new: list[tuple[int, int]]) -> int:
    """How many lines the two views share from the start."""
    if len(new) >= len(old) and new[:len(old)] == old:
        return len(old)
    k = 0
    for a, b in zip(old, new):
        if a != b:
            break
        k += 1
    return k


@dataclass
class LineInputs:
    """The gist's unit [gist §3.3]: at each message a call reads the view as the last one left it;
    the lines before the first changed one are cached, the rest written."""

    line_inputs: float = 0.0  # 0.1 x cached + 1.25 x written, summed
    lines_rewritten: int = 0
    view_lines: int = 0
    previous: tuple = ()

    def see(self, lines: list[tuple[int, int]]) -> None:
        common = common_prefix(list(self.previous), lines)
        written = len(lines) - common
        self.line_inputs += 0.1 * common + 1.25 * written
        self.lines_rewritten += written
        self.view_lines += len(lines)
        self.previous = tuple(lines)


def view_unit(workload: Workload, config: Config) -> LineInputs:
    """The gist's unit alone, with no request built: the planner, the compactor's lines."""
    planner = Planner(config)
    unit = LineInputs()
    for m, message in enumerate(workload.messages):
        unit.see(planner.view.lines())
        planner.apply(Message(message.kind, workload.text(m)))
        while planner.running:
            for l, i in list(planner.running):
                planner.apply(Built(l, i, made_line(l, i, workload.line_bytes)))
    return unit


def run_view(workload: Workload, config: Config, modes: Sequence[ViewMode], turn_model: str,
             progress: Callable[[int], None] | None = None) -> list[Run]:
    """Ever's design (and its variants, which share its planner) on the workload."""
    planner = Planner(config)
    rendered = Rendered(planner)
    prompt = Prompt.build("")
    n = len(workload.messages)
    kinds = [message.kind for message in workload.messages]
    points = call_points(kinds)
    turn_prices = Prices.of(turn_model)
    runs = [Run(mode.name, n, workload.messages_per_day) for mode in modes]
    meters = [Meter() for _ in modes]
    times = []
    for mode in modes:
        timed = with_pauses(workload, mode.pause_seconds) if mode.pause_seconds else workload
        times.append([message.seconds for message in timed.messages])
    compactors = {mode.compaction_model: Compactor(None, prompt, MemorySettings(model=mode.compaction_model))
                  for mode in modes}
    compaction_prices = {model: Prices.of(model) for model in compactors}
    block_sizes = sorted({mode.block_lines for mode in modes})
    conversation: TurnConversation | None = None
    view: list[str] = []  # the running turn's view, rendered
    unit = LineInputs()
    all_bytes = 0

    def prepared_by_blocks(bodies: dict[int, dict[str, Any]]) -> dict[int, Any]:
        return {lines: meters[0].prepare(body) for lines, body in bodies.items()}

    def turn_request(m: int, at: int, first: bool) -> None:
        body = conversation.body(turn_model, prompt)
        sent = {lines: body if lines == BLOCK_LINES else reblocked(body, lines, view) for lines in block_sizes}
        prepared = prepared_by_blocks(sent)
        # the state and the message: after the view, new at every turn
        tail = tokens_of(conversation.messages[0]["content"][-2:]) if first else 0
        for mode, meter, run, timing in zip(modes, meters, runs, times):
            outcome = meter.look(turn_model, prepared[mode.block_lines], timing[at])
            kinds_spent = (run.turn_first, run.turn_all) if first else (run.turn_all,)
            run.spend(m, kinds_spent, outcome, turn_prices.dollars(outcome, 0))
            run.turn_first.tail_tokens += tail

    def reply_output(m: int) -> None:
        tokens = conversation.reply_output_tokens()
        for run in runs:
            run.output(m, (run.turn_all,), tokens, turn_prices)

    def settle(m: int) -> None:
        """Every call the planner starts runs before the next message, in waves of up to 8."""
        while planner.running:
            jobs = [job_for(rendered, l, i) for l, i in planner.running]
            for job in jobs:
                line = made_line(job.l, job.i, workload.line_bytes)
                output = reply_tokens([{"type": "text", "text": line}])
                bodies = {model: compactor.request(job) for model, compactor in compactors.items()}
                first_body = bodies[modes[0].compaction_model]
                for body in bodies.values():
                    # one chain for every model: only the model may differ between the requests
                    assert same_but_model(body, first_body), "the compactors' requests differ beyond the model"
                sent = {lines: first_body if lines == BLOCK_LINES else reblocked(first_body, lines, job.context)
                        for lines in block_sizes}
                prepared = prepared_by_blocks(sent)
                tail = tokens_of(first_body["messages"][-1]["content"][-1:])  # the task: new at every call
                for mode, meter, run, timing in zip(modes, meters, runs, times):
                    outcome = meter.look(mode.compaction_model, prepared[mode.block_lines], timing[m])
                    prices = compaction_prices[mode.compaction_model]
                    run.spend(m, (run.compactions,), outcome, prices.dollars(outcome, 0))
                    run.output(m, (run.compactions,), output, prices)
                    run.compactions.tail_tokens += tail
            for job in jobs:
                planner.apply(Built(job.l, job.i, made_line(job.l, job.i, workload.line_bytes)))
            rendered.changed()

    for m, message in enumerate(workload.messages):
        text = workload.text(m)
        lines = planner.view.lines()
        unit.see(lines)
        for point, at in points[m]:
            if point == "first":
                if conversation is not None:
                    reply_output(m)
                view = [rendered.rendered(l, i) for l, i in lines]
                first = chat_blocks(view) + [{"type": "text", "text": state_text(workload.messages[m].seconds)},
                                             {"type": "text", "text": text or "(empty)"}]
                conversation = TurnConversation([{"role": "user", "content": first}], view_at=view_mark(view))
                for run in runs:  # zoom reaches every message word for word [gist §3]
                    run.keep(all_bytes, planner.view.bytes, all_bytes)
                turn_request(m, at, True)
            else:
                reply_output(m)
                conversation.go_on()
                turn_request(m, at, False)
        if conversation is not None and message.kind != "user":
            conversation.add(m, message.kind, text, message.image)
        planner.apply(Message(message.kind, text))
        rendered.changed()
        all_bytes += message.size_bytes
        settle(m)
        for run in runs:
            run.context_bytes[m] = planner.view.bytes
        if progress is not None:
            progress(len(modes))
    for point, at in points[n]:
        reply_output(n)
        conversation.go_on()
        turn_request(n, at, False)
    if conversation is not None:
        reply_output(n)
    for run in runs:
        run.line_inputs, run.lines_rewritten, run.view_lines = unit.line_inputs, unit.lines_rewritten, unit.view_lines
    return runs


# ---------------------------------------------------------------- the modes, side by side


def tasks(modes: Sequence[str], turn_model: str, compaction_model: str) -> list[tuple[str, tuple[Any, ...]]]:
    """The runs that make the modes asked for: the modes that share Ever's planner run together."""
    ever_config = Config()
    push_config = Config(PUSH_VIEW_BYTES, PUSH_VIEW_BYTES, PUSH_CVIEW_BYTES, PUSH_CVIEW_BYTES)
    view_modes = {
        "ever": ViewMode("ever", compaction_model),
        "blocks16": ViewMode("blocks16", compaction_model, block_lines=16),
        "same-model": ViewMode("same-model", turn_model),
        "pauses": ViewMode("pauses", compaction_model, pause_seconds=PAUSE_SECONDS),
    }
    shared = [view_modes[name] for name in modes if name in view_modes]
    found: list[tuple[str, tuple[Any, ...]]] = []
    # Ever's variants in one run: a variant adds little beside the planner's run and the requests
    # it builds (measured: four cost 1.1 times two); the longest runs first, so the processes end
    # about together
    if shared:
        found.append(("view", (ever_config, tuple(shared))))
    if "push" in modes:
        found.append(("view", (push_config, (ViewMode("push", compaction_model),))))
    for name in ("carried", "window"):
        if name in modes:
            found.append((name, ()))
    return found


_progress_counter: Any = None


def _count(k: int) -> None:
    if _progress_counter is not None:
        with _progress_counter.get_lock():
            _progress_counter.value += k


def _init_worker(counter: Any) -> None:
    global _progress_counter
    _progress_counter = counter


def _run_task(task: tuple[str, tuple[Any, ...]], workload: Workload, turn_model: str) -> list[Run]:
    kind, arguments = task
    if kind == "view":
        config, modes = arguments
        return run_view(workload, config, modes, turn_model, _count)
    if kind == "carried":
        return [run_carried(workload, turn_model, _count)]
    return [run_window(workload, turn_model, _count)]


def simulate(workload: Workload, turn_model: str, compaction_model: str, modes: Sequence[str] = MODES,
             processes: int = 2, bar: Any = None) -> list[Run]:
    """Every mode asked for, on the workload; `bar` (a tqdm) shows messages replayed over all
    modes. With processes > 1 the runs share that many processes."""
    unknown = [name for name in modes if name not in MODES]
    if unknown:
        raise ValueError(f"no mode {unknown[0]!r} (modes: {', '.join(MODES)})")
    work = tasks(modes, turn_model, compaction_model)
    runs: list[Run] = []
    if processes <= 1 or len(work) == 1 or "fork" not in multiprocessing.get_all_start_methods():
        def local(k: int) -> None:
            if bar is not None:
                bar.update(k)

        for task in work:
            kind, arguments = task
            if kind == "view":
                runs += run_view(workload, arguments[0], arguments[1], turn_model, local)
            elif kind == "carried":
                runs.append(run_carried(workload, turn_model, local))
            else:
                runs.append(run_window(workload, turn_model, local))
    else:
        context = multiprocessing.get_context("fork")
        counter = context.Value("q", 0)
        with context.Pool(processes, initializer=_init_worker, initargs=(counter,)) as pool:
            pending = [pool.apply_async(_run_task, (task, workload, turn_model)) for task in work]
            shown = 0
            while not all(result.ready() for result in pending):
                pending[0].wait(0.2)
                if bar is not None:
                    bar.update(counter.value - shown)
                    shown = counter.value
            for result in pending:
                runs += result.get()
            if bar is not None:
                bar.update(counter.value - shown)
    order = {name: k for k, name in enumerate(MODES)}
    return sorted(runs, key=lambda run: order[run.mode])


# ---------------------------------------------------------------- figures


def figures(run: Run) -> dict[str, Any]:
    """One mode's figures; see docs/simulate.md for each."""
    n = run.messages
    turns, compactions = run.turn_all, run.compactions
    has_view = run.mode not in ("carried", "window")
    dollars = turns.dollars + compactions.dollars
    turns_count = max(run.turns, 1)
    return {
        "mode": run.mode,
        "description": DESCRIPTIONS[run.mode],
        "messages": n,
        "line_inputs_per_message": run.line_inputs / n if has_view else None,
        "lines_rewritten_per_message": run.lines_rewritten / n if has_view else None,
        "view_lines": run.view_lines / n if has_view else None,
        "turn_first_read_share": run.turn_first.read_share(),
        "turn_first_prefix_read_share": run.turn_first.prefix_read_share(),
        "turn_read_share": turns.read_share(),
        "compaction_read_share": compactions.read_share() if compactions.calls else None,
        "compaction_prefix_read_share": compactions.prefix_read_share() if compactions.calls else None,
        "turn_requests": turns.calls,
        "turns": run.turns,
        "compactions": compactions.calls,
        "compactions_per_message": compactions.calls / n,
        "tokens_per_message": {
            "uncached": (turns.uncached_tokens + compactions.uncached_tokens) / n,
            "cache_written": (turns.written_tokens + compactions.written_tokens) / n,
            "cache_read": (turns.read_tokens + compactions.read_tokens) / n,
            "output": (turns.output_tokens + compactions.output_tokens) / n,
        },
        "dollars": dollars,
        "dollars_turns": turns.dollars,
        "dollars_compactions": compactions.dollars,
        "dollars_per_message": dollars / n,
        "dollars_per_day": dollars / n * run.messages_per_day,
        "messages_per_day": run.messages_per_day,
        "kept": {
            "context_bytes": (run.kept_summary_bytes + (0 if has_view else run.kept_verbatim_bytes)) / turns_count,
            "verbatim_reach_bytes": run.kept_verbatim_bytes / turns_count,
            "history_bytes": run.history_bytes / turns_count,
            "verbatim_reach_share": run.kept_verbatim_bytes / run.history_bytes if run.history_bytes else 1.0,
            "in_context": ("summaries of every message; every message by zoom" if has_view else
                           "the conversation since its last summary, word for word, and the summary"
                           if run.mode == "carried" else "the last messages, word for word; nothing older"),
        },
        "notes": run.notes,
    }


def percent(share: float | None) -> str:
    return "—" if share is None else f"{share:.1%}"


def number(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


TABLE_HEAD = ("mode", "line-inputs/msg", "lines rewritten/msg", "turns read (first)", "turns read (all)",
              "compactions read", "compactions/msg", "tokens/msg", "$/msg", "$/day", "kept in context",
              "reach verbatim")


def table_rows(all_figures: Sequence[dict[str, Any]]) -> list[tuple[str, ...]]:
    rows = []
    for f in all_figures:
        tokens = f["tokens_per_message"]
        kept = f["kept"]
        rows.append((
            f["mode"], number(f["line_inputs_per_message"]), number(f["lines_rewritten_per_message"]),
            percent(f["turn_first_read_share"]), percent(f["turn_read_share"]),
            percent(f["compaction_read_share"]), number(f["compactions_per_message"], 2),
            f"{sum(tokens.values()):,.0f}", f"{f['dollars_per_message']:.4f}", f"{f['dollars_per_day']:,.2f}",
            f"{kept['context_bytes'] / 1000:,.0f} KB", percent(kept["verbatim_reach_share"]),
        ))
    return rows


def text_table(all_figures: Sequence[dict[str, Any]]) -> str:
    rows = [TABLE_HEAD] + table_rows(all_figures)
    widths = [max(len(row[k]) for row in rows) for k in range(len(TABLE_HEAD))]
    return "\n".join("  ".join(cell.ljust(width) if k == 0 else cell.rjust(width)
                               for k, (cell, width) in enumerate(zip(row, widths))) for row in rows)


def markdown_table(all_figures: Sequence[dict[str, Any]]) -> str:
    rows = table_rows(all_figures)
    lines = ["| " + " | ".join(TABLE_HEAD) + " |", "|" + "---|" * len(TABLE_HEAD)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def default_processes() -> int:
    return max(1, min(2, os.cpu_count() or 1))


# ---------------------------------------------------------------- the command

# [gist §3.3] the figures the gist gives, for the side-by-side in the report
GIST = {
    "line_inputs_per_message": {"ever": 21, "push": 80},
    "lines_rewritten_per_message": {"ever": 2, "push": 53},
    "view_lines": 192,
    "turn_prefix_read_share": 0.986,
    "compaction_prefix_read_share": 0.962,
}


def gist_comparison(all_figures: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Our figures beside the gist's, where the modes are there to compare."""
    by_mode = {f["mode"]: f for f in all_figures}
    found: dict[str, Any] = {}
    for key in ("line_inputs_per_message", "lines_rewritten_per_message"):
        for mode, theirs in GIST[key].items():
            if mode in by_mode:
                found[f"{key} ({mode})"] = {"gist": theirs, "simulated": by_mode[mode][key]}
    if "ever" in by_mode:
        ever = by_mode["ever"]
        found["view_lines (ever)"] = {"gist": GIST["view_lines"], "simulated": ever["view_lines"]}
        found["turn prefix read share (ever)"] = {"gist": GIST["turn_prefix_read_share"],
                                                  "simulated": ever["turn_first_prefix_read_share"]}
        found["compaction prefix read share (ever)"] = {"gist": GIST["compaction_prefix_read_share"],
                                                        "simulated": ever["compaction_prefix_read_share"]}
    return found


def workload_for(messages: int | None, seed: int, workload: str, import_notes: int, from_log: str | None) -> Workload:
    """The workload asked for: `messages` of it (None: 30,000, or the whole log)."""
    from pathlib import Path

    from harness.bench.simulate_workloads import bulk_import, full_lines, seeded
    from harness.bench.simulate_workloads import from_log as read_log

    if from_log:
        return read_log(Path(from_log), messages)
    messages = DEFAULT_MESSAGES if messages is None else messages
    if workload == "import":
        return bulk_import(messages, import_notes, seed)
    if workload == "full-lines":
        return full_lines(messages, seed)
    return seeded(messages, seed)


def describe(workload: Workload) -> str:
    n = len(workload.messages)
    days = n / workload.messages_per_day
    kinds: dict[str, int] = {}
    for message in workload.messages:
        kinds[message.kind] = kinds.get(message.kind, 0) + 1
    mix = ", ".join(f"{count:,} {kind}" for kind, count in sorted(kinds.items(), key=lambda item: -item[1]))
    skipped = f"; {workload.skipped_lines:,} lines of the log did not read" if workload.skipped_lines else ""
    return (f"{workload.name}: {n:,} messages ({mix}), {workload.messages_per_day:,.0f} a day, "
            f"{days:,.1f} days{skipped}")


def run_command(messages: int | None, seed: int, workload_name: str, import_notes: int, from_log: str | None,
                modes: Sequence[str], out: str | None, as_json: bool, processes: int,
                turn_model: str, compaction_model: str, command: str,
                say: Callable[[str], None] = print) -> dict[str, Any]:
    """`ever simulate`: the table (or JSON) on stdout, the pictures and the report in `out`."""
    import json
    import sys
    from pathlib import Path

    from tqdm import tqdm

    if out:
        Path(out).mkdir(parents=True, exist_ok=True)  # a folder that cannot be made is said before the replay
    workload = workload_for(messages, seed, workload_name, import_notes, from_log)
    work = len(workload.messages) * len(modes)
    with tqdm(total=work, unit="msg", file=sys.stderr, disable=None, desc="simulating") as bar:
        runs = simulate(workload, turn_model, compaction_model, modes, processes, bar)
    all_figures = [figures(run) for run in runs]
    result = {
        "command": command,
        "workload": describe(workload),
        "turn_model": turn_model,
        "compaction_model": compaction_model,
        "unit": "line-inputs: 0.1 x cached + 1.25 x written lines of the view, one call per message [gist §3.3]",
        "modes": all_figures,
        "gist": gist_comparison(all_figures),
    }
    if out:
        from harness.bench.simulate_pictures import draw, page

        folder = Path(out)
        pictures = draw(runs, folder)
        (folder / "figures.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        table = [TABLE_HEAD] + table_rows(all_figures)
        report = page(all_figures, table, command, result["workload"], folder, pictures)
        result["report"] = str(report)
    if as_json:
        say(json.dumps(result, indent=2))
    else:
        say(result["workload"] + f"; turns on {turn_model}, compactions on {compaction_model}")
        say(text_table(all_figures))
        if out:
            say(f"report: {result['report']}")
    return result
