"""Each API call's usage, recorded beside the log, and the report `ever cost` prints.

The records: `chat/usage/YYYY-MM-DD.jsonl` (harness/memory/home.py), one line per API call,
appended, fsync'd, split by the local day of the call as the store splits the log [gist §1]:

    {"time":"2026-10-08T14:03:05+02:00","kind":"turn","turn":41,"model":"claude-sonnet-4-6",
     "input_tokens":210,"cache_creation_input_tokens":1800,"cache_read_input_tokens":31000,
     "output_tokens":420}

`kind` is "turn" (every call of a turn's tool loop), "compaction" or "agent" (a subagent's call,
harness/calls/agents.py); `turn` is the id of the user message that started the turn (for a
compaction, the last user message's id when it ran, or null; for a subagent, its starting turn's).
Subagents' calls are reported apart from the turns', so the turns' cache share stays the turns'.
The token counts are the API's own usage fields; a call's prompt is the sum of the three input
fields (input_tokens is what came after the last cache mark) [gist §3.3].

The report, by pure functions over the records (`report`, `report_json`, `format_report`):
per day and per turn, the calls, tokens, cache writes and reads, the cache-read share (cache reads
over the whole prompt), and the cost; for all turns, for the first call of each turn, and for all
compactions, the share beside the gist's measurement (turns 98.6 %, compactions 96.2 % [gist
§3.3]); the compactor's cost apart from the turns'.

Prices [H5]: Anthropic's list prices in US dollars per million tokens, from the capability
table (harness/calls/models.py, dated `TABLE_DATE`, citing the pricing page
https://platform.claude.com/docs/en/about-claude/pricing). A cache write is priced as a 5-minute
entry (1.25 × input): Ever never buys 1-hour entries [gist §3.3]; the table keeps the 1-hour price
too. Claude Sonnet 5's introductory $2/$10 ended on 2026-08-31: it is priced at $3/$15.

A model's name matches a row exactly, or with a date (`-20250514`) or `-latest` after it. Any other
model (a compatible server's, or one whose price has changed tiers, such as the Haiku 5.5 price by
prompt length) has no price: its calls count as `unpriced_calls` and never as $0. Costs are summed
as whole numbers of 10^-8 dollars (every price is a whole number of cents per million tokens, so
tokens × cents is exact), and shown in dollars.
"""

import io
import json
import math
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

from harness.calls.models import MODELS, TABLE_DATE, capabilities
from harness.memory.disk import REAL_DISK, Disk
from harness.memory.logfile import LogFile, encode_line, is_directory, make_parents, names_in, read_file

KINDS = ("turn", "compaction", "agent")
TOKEN_FIELDS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
                "output_tokens")

# [gist §3.3] "turns read 98.6% of their prefix from the cache, compactions 96.2%"
GIST_CACHE_READ_SHARE = {"turns": Fraction(986, 1000), "compactions": Fraction(962, 1000)}


@dataclass(frozen=True)
class Price:
    """US cents per million tokens."""

    input: int
    cache_write: int  # a 5-minute entry
    cache_read: int
    output: int


# [H29] the prices a config's `[providers.NAME]` table gives its models (`NAME/MODEL`), set once
# by the process from its settings (`use_provider_prices`); a provider without prices stays unpriced
PROVIDER_PRICES: dict[str, Price] = {}


def use_provider_prices(providers: Mapping[str, Any]) -> None:
    """Price each `NAME/MODEL` by its provider's configured prices (harness/calls/providers.py):
    a cache write costs the input price (OpenAI's automatic cache charges nothing more)."""
    PROVIDER_PRICES.clear()
    for name, provider in providers.items():
        if provider.prices is not None:
            input_cents, cached_cents, output_cents = provider.prices
            PROVIDER_PRICES[name] = Price(input_cents, input_cents, cached_cents, output_cents)


def provider_of(model: str) -> str:
    """The provider a usage record's model went through: its `NAME/`, else Anthropic."""
    name, slash, rest = model.partition("/")
    return name if slash and rest else "anthropic"


def price_of(model: str) -> Price | None:
    """The model's price from the capability table (harness/calls/models.py, dated): its row,
    by its id, a listed alias, or its id followed by a date or `-latest`; a `NAME/MODEL` its
    provider's configured prices; else None (unpriced)."""
    name, slash, rest = model.partition("/")
    if slash and rest and name in PROVIDER_PRICES:
        return PROVIDER_PRICES[name]
    row = capabilities(model)
    if row is None:
        for name in MODELS:
            if model.startswith(name) and VERSION_SUFFIX.fullmatch(model[len(name):]):
                row = MODELS[name]
                break
    if row is None or row.price is None:
        return None
    return Price(row.price.input, row.price.cache_write_5m, row.price.cache_read, row.price.output)


VERSION_SUFFIX = re.compile(r"-(\d{8}|latest)")


# --- records ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class UsageRecord:
    time: str  # ISO 8601, local time with its UTC offset
    kind: str
    turn: int | None
    model: str
    input_tokens: int
    cache_creation_input_tokens: int
    cache_read_input_tokens: int
    output_tokens: int
    chain: int | None = None  # [H15] the id of the user message whose chain made the call, if known

    @property
    def day(self) -> str:
        return datetime.fromisoformat(self.time).date().isoformat()

    @property
    def prompt_tokens(self) -> int:
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    def to_json(self) -> dict[str, Any]:
        chain = {} if self.chain is None else {"chain": self.chain}
        return {"time": self.time, "kind": self.kind, "turn": self.turn, "model": self.model,
                **{name: getattr(self, name) for name in TOKEN_FIELDS}, **chain}

    @classmethod
    def from_json(cls, value: Any) -> "UsageRecord":
        """The record a line holds; ValueError saying what is wrong otherwise."""
        if not isinstance(value, dict):
            raise ValueError("not a JSON object")
        for name in ("time", "kind", "turn", "model") + TOKEN_FIELDS:
            if name not in value:
                raise ValueError(f"no {name}")
        if not isinstance(value["time"], str):
            raise ValueError("time is not a string")
        datetime.fromisoformat(value["time"])  # raises ValueError naming the text
        if value["kind"] not in KINDS:
            raise ValueError(f"kind {value['kind']!r} is neither turn nor compaction")
        turn = value["turn"]
        if turn is not None and (isinstance(turn, bool) or not isinstance(turn, int) or turn < 0):
            raise ValueError(f"turn {turn!r} is not a message id")
        if value["kind"] == "turn" and turn is None:
            raise ValueError("a turn's record has no turn id")
        if not isinstance(value["model"], str):
            raise ValueError("model is not a string")
        for name in TOKEN_FIELDS:
            count = value[name]
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise ValueError(f"{name} {count!r} is not a token count")
        chain = value.get("chain")
        if chain is not None and (isinstance(chain, bool) or not isinstance(chain, int) or chain < 0):
            raise ValueError(f"chain {chain!r} is not a message id")
        return cls(value["time"], value["kind"], turn, value["model"],
                   *(value[name] for name in TOKEN_FIELDS), chain)


def usage_record(kind: str, turn: int | None, model: str, usage: Any,
                 when: datetime | None = None, chain: int | None = None) -> UsageRecord:
    """A record from the API's usage (the SDK's `Usage` or a mapping; a missing or null field is
    0), at `when` (default: now, local time)."""
    when = datetime.now().astimezone() if when is None else when

    def count(name: str) -> int:
        value = usage.get(name) if isinstance(usage, Mapping) else getattr(usage, name, None)
        return int(value or 0)

    record = UsageRecord(when.isoformat(timespec="seconds"), kind, turn, model,
                         *(count(name) for name in TOKEN_FIELDS), None if chain is None or chain < 0 else chain)
    return UsageRecord.from_json(record.to_json())  # the same checks as a line read back


def usage_dir(home: Path) -> Path:
    return home / "chat" / "usage"


append_lock = threading.Lock()  # the turn loop and the compactor append from one process


def record_usage(home: Path, record: UsageRecord, disk: Disk = REAL_DISK) -> Path:
    """Append `record` to its day's file on `disk`: one write, fsync'd, mode 0600."""
    directory = usage_dir(home)
    make_parents(directory, disk, mode=0o700)
    path = directory / f"{record.day}.jsonl"
    with append_lock:
        file = LogFile(path, disk=disk)  # ends a torn tail; a new file's name is fsync'd
        try:
            file.append(encode_line(record.to_json()))
        finally:
            file.close()
    return path


@dataclass(frozen=True)
class UsageLog:
    records: tuple[UsageRecord, ...]
    skipped: tuple[str, ...]  # "2026-10-08.jsonl line 3: no model", one per line not read


def read_usage(home: Path, disk: Disk = REAL_DISK) -> UsageLog:
    """Every record, oldest day first and in file order; lines that are not records are skipped
    and named (a line cut off by a crash is one)."""
    records: list[UsageRecord] = []
    skipped: list[str] = []
    directory = usage_dir(home)
    names = names_in(directory, disk) if is_directory(directory, disk) else []
    paths = sorted(directory / name for name in names if name.endswith(".jsonl") and not name.startswith("."))
    for path in paths:
        # read as text with universal newlines, as `open(path, encoding=...)` reads it
        with io.StringIO(read_file(path, disk).decode("utf-8", errors="replace"), newline=None) as file:
            for number, line in enumerate(file, 1):
                if not line.strip():
                    continue
                try:
                    value = json.loads(line)
                except json.JSONDecodeError:
                    skipped.append(f"{path.name} line {number}: not JSON (a line a crash cut "
                                   "off reads so)")
                    continue
                try:
                    records.append(UsageRecord.from_json(value))
                except ValueError as error:
                    skipped.append(f"{path.name} line {number}: {error}")
    return UsageLog(tuple(records), tuple(skipped))


# --- the report ------------------------------------------------------------------------------


def cost_e8(record: UsageRecord) -> int | None:
    """The call's cost in 10^-8 dollars (tokens × cents per million tokens), rounded up where a
    price is not a whole number of cents (Haiku 5.5's 12.5-cent writes); None if unpriced."""
    price = price_of(record.model)
    if price is None:
        return None
    return math.ceil(record.input_tokens * price.input
            + record.cache_creation_input_tokens * price.cache_write
            + record.cache_read_input_tokens * price.cache_read
            + record.output_tokens * price.output)


@dataclass(frozen=True)
class Totals:
    calls: int = 0
    input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    output_tokens: int = 0
    cost_e8: int = 0  # the priced calls' cost
    unpriced_calls: int = 0

    @property
    def prompt_tokens(self) -> int:
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    @property
    def cache_read_share(self) -> Fraction | None:
        """Cache reads over the whole prompt; None with no prompt at all."""
        if not self.prompt_tokens:
            return None
        return Fraction(self.cache_read_input_tokens, self.prompt_tokens)


def totals(records: Iterable[UsageRecord]) -> Totals:
    counts = dict.fromkeys(("calls", "cost_e8", "unpriced_calls") + TOKEN_FIELDS, 0)
    for record in records:
        counts["calls"] += 1
        for name in TOKEN_FIELDS:
            counts[name] += getattr(record, name)
        cost = cost_e8(record)
        if cost is None:
            counts["unpriced_calls"] += 1
        else:
            counts["cost_e8"] += cost
    return Totals(**counts)


@dataclass(frozen=True)
class DayRow:
    day: str
    turns: Totals
    compactions: Totals
    agents: Totals = Totals()


@dataclass(frozen=True)
class TurnRow:
    turn: int
    day: str  # the day of the turn's first call
    totals: Totals


@dataclass(frozen=True)
class Report:
    days: tuple[DayRow, ...]
    turns: tuple[TurnRow, ...]
    all_turns: Totals
    first_calls: Totals  # the first call of each turn: the one that reads the view
    all_compactions: Totals
    unpriced_models: tuple[str, ...]
    skipped: tuple[str, ...] = field(default=())
    all_agents: Totals = Totals()  # subagents' calls, apart from the turns'
    chains: tuple[TurnRow, ...] = ()  # [H15] each chain that is more than its own turn: its root's id
    providers: tuple[tuple[str, Totals], ...] = ()  # every call of each provider, by its name


def report(records: Iterable[UsageRecord], skipped: Iterable[str] = ()) -> Report:
    """The report over `records`, taken in the order they were recorded."""
    records = list(records)
    turn_records = [record for record in records if record.kind == "turn"]
    compaction_records = [record for record in records if record.kind == "compaction"]
    agent_records = [record for record in records if record.kind == "agent"]
    days = []
    for day in sorted({record.day for record in records}):
        days.append(DayRow(day, totals(r for r in turn_records if r.day == day),
                           totals(r for r in compaction_records if r.day == day),
                           totals(r for r in agent_records if r.day == day)))
    by_turn: dict[int, list[UsageRecord]] = {}
    for record in turn_records:
        by_turn.setdefault(record.turn, []).append(record)
    turns = tuple(TurnRow(turn, calls[0].day, totals(calls))
                  for turn, calls in sorted(by_turn.items()))
    unpriced = sorted({record.model for record in records if price_of(record.model) is None})
    by_chain: dict[int, list[UsageRecord]] = {}
    for record in turn_records + agent_records:
        if record.chain is not None:
            by_chain.setdefault(record.chain, []).append(record)
    chains = tuple(TurnRow(root, calls[0].day, totals(calls)) for root, calls in sorted(by_chain.items())
                   if any(r.kind == "agent" or r.turn != root for r in calls))
    return Report(
        days=tuple(days),
        turns=turns,
        all_turns=totals(turn_records),
        first_calls=totals(calls[0] for calls in by_turn.values()),
        all_compactions=totals(compaction_records),
        unpriced_models=tuple(unpriced),
        skipped=tuple(skipped),
        all_agents=totals(agent_records),
        chains=chains,
        providers=tuple((name, totals(r for r in records if provider_of(r.model) == name))
                        for name in sorted({provider_of(record.model) for record in records})),
    )


def dollars(cost: int) -> float:
    return round(cost / 10**8, 8)


def totals_json(value: Totals) -> dict[str, Any]:
    share = value.cache_read_share
    return {
        "calls": value.calls,
        **{name: getattr(value, name) for name in TOKEN_FIELDS},
        "cache_read_share": None if share is None else round(float(share), 6),
        "cost_usd": dollars(value.cost_e8),
        "unpriced_calls": value.unpriced_calls,
    }


def report_json(value: Report) -> dict[str, Any]:
    """The report for `ever cost --json`."""
    return {
        "turns": totals_json(value.all_turns),
        "first_calls": totals_json(value.first_calls),
        "compactions": totals_json(value.all_compactions),
        "agents": totals_json(value.all_agents),
        "gist_cache_read_share": {name: float(share)
                                  for name, share in GIST_CACHE_READ_SHARE.items()},
        "days": [{"day": row.day, "turns": totals_json(row.turns),
                  "compactions": totals_json(row.compactions),
                  "agents": totals_json(row.agents)} for row in value.days],
        "per_turn": [{"turn": row.turn, "day": row.day, **totals_json(row.totals)}
                     for row in value.turns],
        "per_chain": [{"chain": row.turn, "day": row.day, **totals_json(row.totals)} for row in value.chains],
        "providers": {name: totals_json(total) for name, total in value.providers},
        "unpriced_models": list(value.unpriced_models),
        "skipped": list(value.skipped),
    }


def share_text(share: Fraction | None) -> str:
    """`share` in percent to one place, half up, exactly."""
    if share is None:
        return "-"
    tenths = math.floor(share * 1000 + Fraction(1, 2))
    return f"{tenths // 10}.{tenths % 10} %"


def dollars_text(cost: int) -> str:
    """`cost` (10^-8 dollars) in dollars to 4 places, half up, from the integer: no float."""
    units = (cost + 5000) // 10000  # 10^-4 dollars
    return f"${units // 10000}.{units % 10000:04d}"


def cost_text(value: Totals) -> str:
    if value.unpriced_calls and value.unpriced_calls == value.calls:
        return "?"
    shown = dollars_text(value.cost_e8)
    return shown + "+?" if value.unpriced_calls else shown


COLUMNS = ("calls", "input", "cache write", "cache read", "output", "read share", "cost")
WIDTHS = (6, 12, 13, 13, 10, 11, 11)


def row_text(label: str, value: Totals, note: str = "") -> str:
    cells = (f"{value.calls:,}", f"{value.input_tokens:,}",
             f"{value.cache_creation_input_tokens:,}", f"{value.cache_read_input_tokens:,}",
             f"{value.output_tokens:,}", share_text(value.cache_read_share), cost_text(value))
    text = f"{label:<24}" + "".join(f"{cell:>{width}}" for cell, width in zip(cells, WIDTHS))
    return text + note


def heading(label: str) -> str:
    return f"{label:<24}" + "".join(f"{name:>{width}}" for name, width in zip(COLUMNS, WIDTHS))


def format_report(value: Report, turns_shown: int | None = None) -> str:
    """The report as `ever cost` prints it: days, totals beside the gist, then turns (the last
    `turns_shown` of them, or all)."""
    if not value.days:
        return "No API calls recorded yet.\n"
    lines = [f"Tokens per API call's usage; cost at Anthropic's list prices as of {TABLE_DATE} "
             "(harness/calls/models.py).",
             "", heading("day")]
    for row in value.days:
        if row.turns.calls:
            lines.append(row_text(f"{row.day} turns", row.turns))
        if row.compactions.calls:
            lines.append(row_text(f"{row.day} compactions", row.compactions))
        if row.agents.calls:
            lines.append(row_text(f"{row.day} subagents", row.agents))
    gist = GIST_CACHE_READ_SHARE
    lines += ["", heading("all days"),
              row_text("turns", value.all_turns, f"   gist: {share_text(gist['turns'])}"),
              row_text("  first call of each", value.first_calls),
              row_text("compactions", value.all_compactions,
                       f"   gist: {share_text(gist['compactions'])}")]
    if value.all_agents.calls:
        lines.append(row_text("subagents", value.all_agents))
    if [name for name, _ in value.providers] not in ([], ["anthropic"]):
        lines += ["", heading("provider")] + [row_text(name, total) for name, total in value.providers]
    turns = value.turns if turns_shown is None else value.turns[-turns_shown:] if turns_shown else ()
    if turns:
        lines += ["", heading("turn")]
        lines += [row_text(f"{row.turn} ({row.day})", row.totals) for row in turns]
    if value.chains:  # [H15] what each message spent with all it led to: subagents, report turns
        lines += ["", heading("chain (with all it led to)")]
        lines += [row_text(f"{row.turn} ({row.day})", row.totals) for row in value.chains]
    if value.unpriced_models:
        lines += ["", "No price for " + ", ".join(value.unpriced_models)
                  + f": not in the price table of {TABLE_DATE}; their calls show as ? and count in no cost."]
    if value.skipped:
        one = len(value.skipped) == 1
        lines += ["", f"Skipped {len(value.skipped)} line{'' if one else 's'} that {'is' if one else 'are'} "
                      "not usage records:"]
        lines += [f"  {problem}" for problem in value.skipped]
    return "\n".join(lines) + "\n"
