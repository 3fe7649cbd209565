"""`ever simulate`'s pictures (matplotlib, drawn to PNG files with no display) and the one-page HTML
report that shows them beside the table of modes.

matplotlib is imported here, inside the functions that draw: `ever chat` and every other command
start without it (tests/chat/test_simulate.py checks it).
"""

import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.bench.simulate_designs import Run

DAYS_IN_A_MONTH = 30
SHARE_WINDOW_MESSAGES = 500  # the cache-read share is drawn over windows of this many messages
PICTURES = {
    "view_bytes.png": "History in context at each message: Ever's view is a sawtooth between 64 and 128 KB",
    "cache_share.png": f"Cache-read share of every call's prompt, over windows of {SHARE_WINDOW_MESSAGES} messages",
    "cost_per_message.png": "Dollars per message, by mode",
    "month_dollars.png": "Cumulative dollars over a month of use",
}
COLORS = {"ever": "#1f6feb", "push": "#d62728", "blocks16": "#9467bd", "same-model": "#8c564b",
          "pauses": "#e377c2", "carried": "#ff7f0e", "window": "#2ca02c"}


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display, no window
    from matplotlib import pyplot

    return pyplot


def draw(runs: Sequence[Run], out: Path) -> list[Path]:
    """The four pictures of the runs, as PNG files in `out`; their paths."""
    pyplot = _pyplot()
    out.mkdir(parents=True, exist_ok=True)
    written = []

    def save(figure: Any, name: str) -> None:
        figure.tight_layout()
        path = out / name
        figure.savefig(path, dpi=110)
        pyplot.close(figure)
        written.append(path)

    figure, axes = pyplot.subplots(figsize=(9, 4.2))
    for run in runs:
        if run.mode in ("ever", "push", "carried", "window"):
            axes.plot(range(run.messages), [b / 1000 for b in run.context_bytes], lw=0.8,
                      color=COLORS[run.mode], label=run.mode)
    axes.set_xlabel("message")
    axes.set_ylabel("KB of history in the next turn's prompt")
    axes.set_title(PICTURES["view_bytes.png"], fontsize=10)
    axes.legend(fontsize=8)
    save(figure, "view_bytes.png")

    figure, axes = pyplot.subplots(figsize=(9, 4.2))
    for run in runs:
        starts = list(range(0, run.messages, SHARE_WINDOW_MESSAGES))
        shares = []
        for start in starts:
            prompt = sum(run.prompt_tokens[start:start + SHARE_WINDOW_MESSAGES])
            read = sum(run.read_tokens[start:start + SHARE_WINDOW_MESSAGES])
            shares.append(100 * read / prompt if prompt else float("nan"))
        axes.plot(starts, shares, lw=1.2, marker=".", color=COLORS[run.mode], label=run.mode)
    axes.set_xlabel("message")
    axes.set_ylabel("% of prompt tokens read from the cache")
    axes.set_ylim(0, 100)
    axes.set_title(PICTURES["cache_share.png"], fontsize=10)
    axes.legend(fontsize=8, ncol=2)
    save(figure, "cache_share.png")

    figure, axes = pyplot.subplots(figsize=(9, 4.2))
    names = [run.mode for run in runs]
    turns = [run.turn_all.dollars / run.messages * 100 for run in runs]
    compactions = [run.compactions.dollars / run.messages * 100 for run in runs]
    axes.bar(names, turns, color=[COLORS[name] for name in names], label="turns")
    axes.bar(names, compactions, bottom=turns, color="#bbbbbb", label="compactions and summaries")
    for k, (t, c) in enumerate(zip(turns, compactions)):
        axes.text(k, t + c, f"{t + c:.2f}¢", ha="center", va="bottom", fontsize=8)
    axes.set_ylabel("US cents per message")
    axes.set_title(PICTURES["cost_per_message.png"], fontsize=10)
    axes.legend(fontsize=8)
    save(figure, "cost_per_message.png")

    figure, axes = pyplot.subplots(figsize=(9, 4.2))
    for run in runs:
        days, total, spent = [], 0.0, []
        for m, dollars in enumerate(run.dollars):
            total += dollars
            days.append((m + 1) / run.messages_per_day)
            spent.append(total)
        axes.plot(days, spent, lw=1.4, color=COLORS[run.mode], label=run.mode)
        if days and days[-1] < DAYS_IN_A_MONTH:  # the rest of the month at the run's own rate
            rate = total / days[-1]
            axes.plot([days[-1], DAYS_IN_A_MONTH], [total, rate * DAYS_IN_A_MONTH], lw=1, ls="--",
                      color=COLORS[run.mode])
    axes.set_xlabel("day")
    axes.set_ylabel("dollars, cumulative")
    axes.set_xlim(0, DAYS_IN_A_MONTH)
    axes.set_title(PICTURES["month_dollars.png"] + " (dashed: the run's rate carried on)", fontsize=10)
    axes.legend(fontsize=8, ncol=2)
    save(figure, "month_dollars.png")
    return written


def page(figures: Sequence[dict], table: Sequence[Sequence[str]], command: str, workload: str, out: Path,
         pictures: Sequence[Path]) -> Path:
    """The one-page report, `report.html` in `out`, beside the pictures: `table` is the table of
    modes, its head first."""
    head = "".join(f"<th>{html.escape(cell)}</th>" for cell in table[0])
    rows = "".join("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>"
                   for row in table[1:])
    modes = "".join(f"<li><b>{html.escape(f['mode'])}</b>: {html.escape(f['description'])}</li>" for f in figures)
    images = "".join(f'<figure><img src="{html.escape(path.name)}" alt="{html.escape(PICTURES[path.name])}">'
                     f"<figcaption>{html.escape(PICTURES[path.name])}</figcaption></figure>" for path in pictures)
    text = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Ever: what a chat costs</title>
<style>
body {{ font: 14px/1.45 system-ui, sans-serif; max-width: 1000px; margin: 2em auto; padding: 0 1em; }}
table {{ border-collapse: collapse; font-size: 12px; }} th, td {{ border: 1px solid #ccc; padding: 3px 6px; }}
td:not(:first-child) {{ text-align: right; }} figure {{ margin: 1.5em 0; }} img {{ max-width: 100%; }}
code {{ background: #f4f4f4; padding: 1px 4px; }}
</style></head><body>
<h1>What a chat costs</h1>
<p>{html.escape(workload)}, replayed with <code>{html.escape(command)}</code>: every mode on the same
messages at the capability table's prices, against the local API's cache model (no key, no network).</p>
<ul>{modes}</ul>
<table><tr>{head}</tr>{rows}</table>
<p>Line-inputs per message are the gist's unit: 0.1 &times; cached + 1.25 &times; written lines of the view,
one call per message. Shares are of prompt tokens read from the cache: a turn's first request, and every
request; compactions include a carried conversation's summaries. Kept in context: bytes of history the next
turn's prompt holds, on average; reach verbatim: the share of the history it can read word for word
(Ever by zoom).</p>
{images}
</body></html>
"""
    path = out / "report.html"
    path.write_text(text, encoding="utf-8")
    return path
