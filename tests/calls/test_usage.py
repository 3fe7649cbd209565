"""Strategy: five API calls over two days (two calls of one turn, one of another, a compaction on
a priced model and one on a model with no price) are written through `record_usage` into a
temporary EVER_HOME, read back, and reported. Every count, share and cost below is worked out by
hand in the comments from the records and from Anthropic's price list as harness/calls/usage.py's
docstring cites it (written here as literal cents per million tokens, not read from the module).
The file format is checked line for line, and damaged lines must be skipped and named.
"""

import json
import os
import stat
from datetime import datetime, timedelta, timezone
from fractions import Fraction
from types import SimpleNamespace

import pytest

from harness.calls.usage import (
    Price,
    Totals,
    format_report,
    price_of,
    read_usage,
    record_usage,
    report,
    report_json,
    usage_dir,
    usage_record,
)

PLUS_2 = timezone(timedelta(hours=2))


def at(day, hour, minute, second=0):
    return datetime(2026, 10, day, hour, minute, second, tzinfo=PLUS_2)


def usage(input_tokens, creation, read, output):
    return {"input_tokens": input_tokens, "cache_creation_input_tokens": creation,
            "cache_read_input_tokens": read, "output_tokens": output}


# Sonnet 4.6: 300 / 375 / 30 / 1500 cents per million tokens (input, 5m write, read, output);
# Haiku 4.5: 100 / 125 / 10 / 500.
CALLS = [
    # A: 200·300 + 1,000·375 + 30,000·30 + 400·1500 = 60,000 + 375,000 + 900,000 + 600,000
    #    = 1,935,000 × 10^-8 dollars
    ("turn", 7, "claude-sonnet-4-6", usage(200, 1000, 30000, 400), at(7, 10, 0, 0)),
    # B: 50·300 + 600·375 + 31,200·30 + 100·1500 = 15,000 + 225,000 + 936,000 + 150,000
    #    = 1,326,000
    ("turn", 7, "claude-sonnet-4-6", usage(50, 600, 31200, 100), at(7, 10, 0, 5)),
    # C: 20·100 + 500·125 + 8,000·10 + 80·500 = 2,000 + 62,500 + 80,000 + 40,000 = 184,500
    ("compaction", None, "claude-haiku-4-5-20251001", usage(20, 500, 8000, 80), at(7, 10, 0, 10)),
    # D: 300·300 + 2,000·375 + 0 + 200·1500 = 90,000 + 750,000 + 300,000 = 1,140,000
    ("turn", 9, "claude-sonnet-4-6", usage(300, 2000, 0, 200), at(8, 9, 0, 0)),
    # E: no price
    ("compaction", 9, "my-local-model", usage(10, 0, 90, 5), at(8, 9, 0, 30)),
]


@pytest.fixture
def home(tmp_path):
    for kind, turn, model, counts, when in CALLS:
        record_usage(tmp_path, usage_record(kind, turn, model, counts, when))
    return tmp_path


def test_each_call_is_one_line_in_its_days_file_for_the_user_alone(home):
    directory = usage_dir(home)
    assert directory == home / "chat" / "usage"
    assert sorted(path.name for path in directory.iterdir()) == ["2026-10-07.jsonl",
                                                                 "2026-10-08.jsonl"]
    assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(directory / "2026-10-08.jsonl").st_mode) == 0o600
    assert (directory / "2026-10-08.jsonl").read_text() == (
        '{"time":"2026-10-08T09:00:00+02:00","kind":"turn","turn":9,'
        '"model":"claude-sonnet-4-6","input_tokens":300,"cache_creation_input_tokens":2000,'
        '"cache_read_input_tokens":0,"output_tokens":200}\n'
        '{"time":"2026-10-08T09:00:30+02:00","kind":"compaction","turn":9,'
        '"model":"my-local-model","input_tokens":10,"cache_creation_input_tokens":0,'
        '"cache_read_input_tokens":90,"output_tokens":5}\n')


def test_a_record_takes_the_sdks_usage_with_null_cache_fields():
    sdk_usage = SimpleNamespace(input_tokens=12, output_tokens=3,
                                cache_creation_input_tokens=None, cache_read_input_tokens=None)
    record = usage_record("turn", 4, "m", sdk_usage, at(8, 23, 59, 59))
    assert record.to_json() == {"time": "2026-10-08T23:59:59+02:00", "kind": "turn", "turn": 4,
                                "model": "m", "input_tokens": 12,
                                "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                                "output_tokens": 3}
    with pytest.raises(ValueError, match="a turn's record has no turn id"):
        usage_record("turn", None, "m", sdk_usage, at(8, 1, 0))


def test_a_line_cut_off_by_a_crash_is_skipped_and_the_next_line_stands_alone(home):
    path = usage_dir(home) / "2026-10-08.jsonl"
    with open(path, "a") as file:
        file.write('{"time": "2026-10-08T09:01:00+02:00", "kind": "tu')
        file.flush()
    record_usage(home, usage_record("turn", 11, "m", usage(1, 0, 0, 1), at(8, 9, 2)))
    with open(path, "a") as file:
        file.write('{"time": "2026-10-08T09:03:00+02:00", "kind": "chat", "turn": 1, "model": '
                   '"m", "input_tokens": 1, "cache_creation_input_tokens": 0, '
                   '"cache_read_input_tokens": 0, "output_tokens": -1}\n')
    log = read_usage(home)
    assert [record.turn for record in log.records] == [7, 7, None, 9, 9, 11]
    assert log.skipped == (
        "2026-10-08.jsonl line 3: not JSON (a line a crash cut off reads so)",
        "2026-10-08.jsonl line 5: kind 'chat' is neither turn nor compaction",
    )


def test_prices_come_from_the_documented_table():
    assert price_of("claude-sonnet-4-6") == Price(300, 375, 30, 1500)
    assert price_of("claude-sonnet-4-20250514") == Price(300, 375, 30, 1500)
    assert price_of("claude-sonnet-4-5-20250929") == Price(300, 375, 30, 1500)
    # models/sonnet-5/overview: "Input pricing: $2 / MTok · Output pricing: $10 / MTok" (the
    # $3/$15 once announced from 2026-09-01 did not come)
    assert price_of("claude-sonnet-5") == Price(200, 250, 20, 1000)
    assert price_of("claude-opus-4-8") == Price(500, 625, 50, 2500)
    assert price_of("claude-opus-4-6") == Price(500, 625, 50, 2500)
    assert price_of("claude-opus-4-1-20250805") == Price(1500, 1875, 150, 7500)
    assert price_of("claude-haiku-4-5-20251001") == Price(100, 125, 10, 500)
    assert price_of("claude-3-5-haiku-latest") == Price(80, 100, 8, 400)
    assert price_of("claude-3-haiku-20240307") == Price(25, 30, 3, 125)
    # an unlisted version is never priced as its neighbour
    assert price_of("claude-sonnet-4-7") is None
    assert price_of("claude-haiku-6-5") is None
    # models/haiku-5-5/overview: "From $0.10 / MTok", "From $0.50 / MTok"; a 5-minute write at
    # the pricing page's 1.25x is 12.5 cents, kept exact
    assert price_of("claude-haiku-5-5") == Price(10, Fraction(25, 2), 1, 50)
    assert price_of("my-local-model") is None
    # models/opus-5/overview: "Input pricing: $5 / MTok · Output pricing: $25 / MTok"
    assert price_of("claude-opus-5") == Price(500, 625, 50, 2500)


def test_the_report_per_day_per_turn_and_in_all(home):
    value = report(read_usage(home).records)
    day_7, day_8 = value.days
    assert day_7.day == "2026-10-07"
    # A + B: cost 1,935,000 + 1,326,000 = 3,261,000
    assert day_7.turns == Totals(calls=2, input_tokens=250, cache_creation_input_tokens=1600,
                                 cache_read_input_tokens=61200, output_tokens=500,
                                 cost_e8=3261000, unpriced_calls=0)
    assert day_7.compactions == Totals(1, 20, 500, 8000, 80, 184500, 0)
    assert day_8.turns == Totals(1, 300, 2000, 0, 200, 1140000, 0)
    assert day_8.compactions == Totals(1, 10, 0, 90, 5, 0, 1)
    # all turns: A + B + D, cost 3,261,000 + 1,140,000 = 4,401,000
    assert value.all_turns == Totals(3, 550, 3600, 61200, 700, 4401000, 0)
    # the first call of each turn: A and D
    assert value.first_calls == Totals(2, 500, 3000, 30000, 600, 3075000, 0)
    assert value.all_compactions == Totals(2, 30, 500, 8090, 85, 184500, 1)
    assert [(row.turn, row.day, row.totals.calls) for row in value.turns] == [
        (7, "2026-10-07", 2), (9, "2026-10-08", 1)]
    assert value.unpriced_models == ("my-local-model",)
    # cache reads over the whole prompt: 61,200 of 550 + 3,600 + 61,200 = 65,350
    assert value.all_turns.cache_read_share == Fraction(61200, 65350)
    assert value.first_calls.cache_read_share == Fraction(30000, 33500)
    assert value.all_compactions.cache_read_share == Fraction(8090, 8620)
    assert Totals().cache_read_share is None


def test_the_json_report(home):
    value = report_json(report(read_usage(home).records))
    assert value["turns"] == {
        "calls": 3, "input_tokens": 550, "cache_creation_input_tokens": 3600,
        "cache_read_input_tokens": 61200, "output_tokens": 700,
        "cache_read_share": 0.936496,  # 61,200 / 65,350 = 0.9364957…
        "cost_usd": 0.04401, "unpriced_calls": 0}
    assert value["first_calls"]["cache_read_share"] == 0.895522  # 30,000 / 33,500
    assert value["first_calls"]["cost_usd"] == 0.03075
    assert value["compactions"]["cache_read_share"] == 0.938515  # 8,090 / 8,620
    assert value["compactions"]["cost_usd"] == 0.001845
    assert value["compactions"]["unpriced_calls"] == 1
    assert value["gist_cache_read_share"] == {"turns": 0.986, "compactions": 0.962}
    assert [day["day"] for day in value["days"]] == ["2026-10-07", "2026-10-08"]
    assert value["days"][1]["compactions"]["cost_usd"] == 0.0
    assert [turn["turn"] for turn in value["per_turn"]] == [7, 9]
    assert value["per_turn"][0]["cost_usd"] == 0.03261
    assert value["unpriced_models"] == ["my-local-model"]
    assert json.loads(json.dumps(value)) == value


def line(label, *cells, note=""):
    # the documented layout: a 24-wide label, then cells right-aligned to these widths
    widths = (6, 12, 13, 13, 10, 11, 11)
    return label.ljust(24) + "".join(cell.rjust(width) for cell, width in zip(cells, widths)) + note


def test_the_printed_report(home):
    columns = ("calls", "input", "cache write", "cache read", "output", "read share", "cost")
    expected = "\n".join([
        "Tokens per API call's usage; cost at Anthropic's list prices as of 2026-12-01 "
        "(harness/calls/models.py).",
        "",
        line("day", *columns),
        # 61,200 / 63,050 = 97.07 %; 3,261,000 × 10^-8 = $0.03261
        line("2026-10-07 turns", "2", "250", "1,600", "61,200", "500", "97.1 %", "$0.0326"),
        # 8,000 / 8,520 = 93.90 %; $0.001845
        line("2026-10-07 compactions", "1", "20", "500", "8,000", "80", "93.9 %", "$0.0018"),
        line("2026-10-08 turns", "1", "300", "2,000", "0", "200", "0.0 %", "$0.0114"),
        line("2026-10-08 compactions", "1", "10", "0", "90", "5", "90.0 %", "?"),
        "",
        line("all days", *columns),
        # 61,200 / 65,350 = 93.65 %
        line("turns", "3", "550", "3,600", "61,200", "700", "93.6 %", "$0.0440",
             note="   gist: 98.6 %"),
        # 30,000 / 33,500 = 89.55 %; $0.03075, half up
        line("  first call of each", "2", "500", "3,000", "30,000", "600", "89.6 %", "$0.0308"),
        # 8,090 / 8,620 = 93.85 %
        line("compactions", "2", "30", "500", "8,090", "85", "93.9 %", "$0.0018+?",
             note="   gist: 96.2 %"),
        "",
        line("turn", *columns),
        line("9 (2026-10-08)", "1", "300", "2,000", "0", "200", "0.0 %", "$0.0114"),
        "",
        "No price for my-local-model: not in the price table of 2026-12-01; their calls show as ? and count in no cost.",
    ]) + "\n"
    assert format_report(report(read_usage(home).records), turns_shown=1) == expected


def test_an_empty_record_says_so(tmp_path):
    assert format_report(report(read_usage(tmp_path).records)) == "No API calls recorded yet.\n"


def test_the_status_line_shows_the_view_the_cache_share_and_the_last_calls_cost():
    from types import SimpleNamespace

    from harness.calls.turn import TurnResult
    from harness.memory.planner import Config
    from harness.owner.owner import Owner as Chat

    planner = SimpleNamespace(view=SimpleNamespace(bytes=96_512), config=Config())
    chat = SimpleNamespace(memory=SimpleNamespace(planner=planner, paused=""), last=None,
                           spend=SimpleNamespace(stopped=""), hub=SimpleNamespace(waiting_question=lambda: ""),
                           settings=SimpleNamespace(priced=True))
    assert Chat.status_line(chat) == "mem 96K/128K · cache - · -"
    chat.last = TurnResult("ok", calls=2, cache_read_share=0.9862, cost_e8=1_234_567)
    assert Chat.status_line(chat) == "mem 96K/128K · cache 99% · $0.0123"  # 1,234,567e-8 dollars
    chat.last = TurnResult("ok", calls=1, cache_read_share=0.5, cost_e8=None, tokens=12_345)  # no price
    assert Chat.status_line(chat) == "mem 96K/128K · cache 50% · 12,345 tokens, unpriced"  # [H29]
    chat.last, chat.settings.priced = TurnResult("ok", calls=1, cache_read_share=0.5, cost_e8=1_234_567), False
    assert Chat.status_line(chat) == "mem 96K/128K · cache 50% · free: a local echo"  # `ever chat --local`
