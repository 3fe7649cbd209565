"""Strategy: what a model takes comes from its provider's list first, the hand table second, the
config third, and is assumed last. The API's answers here are written out by hand in the shape
of Anthropic's ModelInfo (the SDK's `anthropic.types.ModelInfo`: `max_input_tokens`,
`max_tokens`, `capabilities.thinking.types`, `capabilities.effort`, `capabilities.image_input`),
never produced by the code under test; the table's figures are checked against the pages they
cite (each row's `page`), the numbers typed from those pages.
"""

from datetime import UTC, datetime, timedelta

import pytest

from harness.calls import capabilities as caps
from harness.calls import models


def info(model_id, window, output, *, adaptive=True, enabled=False, disabled=True, between=False,
         efforts=("low", "medium", "high"), images=True, lifecycle="active"):
    """A ModelInfo as the API sends it, typed from the SDK's types (model_info.py and the
    capability types beside it)."""
    level = {name: {"supported": name in efforts} for name in ("low", "medium", "high", "max")}
    level["xhigh"] = {"supported": "xhigh" in efforts}
    return {
        "id": model_id, "type": "model", "display_name": model_id.replace("-", " ").title(),
        "created_at": "2026-12-01T00:00:00Z", "lifecycle": lifecycle, "max_input_tokens": window,
        "max_tokens": output,
        "capabilities": {
            "thinking": {"supported": adaptive or enabled, "types": {
                "adaptive": {"supported": adaptive}, "enabled": {"supported": enabled},
                "disabled": {"supported": disabled}, "between_tools": {"supported": between}}},
            "effort": {"supported": bool(efforts), **level},
            "image_input": {"supported": images},
        },
    }


@pytest.fixture(autouse=True)
def no_listing():
    models.use_listing({})
    yield
    models.use_listing({})


def test_a_window_the_api_gives_wins_over_the_table():
    # the table says Haiku 4.5 has 200,000 tokens; an API that says 300,000 is believed
    listed = caps.from_api_models([info("claude-haiku-4-5", 300_000, 64_000, adaptive=False, enabled=True,
                                        efforts=())])
    models.use_listing(listed)
    record = models.lookup("claude-haiku-4-5")
    assert record.window == 300_000
    assert record.source == "api"
    assert record.price == models.HAIKU_4_5_PRICE  # the API gives no price: the table's stays
    assert models.window_tokens({"model": "claude-haiku-4-5"}) == 300_000


def test_a_model_only_the_api_lists_works_with_its_own_window_unpriced():
    models.use_listing(caps.from_api_models([info("claude-nova-6", 2_000_000, 256_000, efforts=EFFORTS_ALL)]))
    record = models.lookup("claude-nova-6")
    assert (record.window, record.output_cap, record.source, record.price) == (2_000_000, 256_000, "api", None)
    assert record.efforts == ("low", "medium", "high", "xhigh", "max")
    assert models.setting_problem("claude-nova-6", "xhigh", 16_000) is None
    assert models.request_problem({"model": "claude-nova-6", "max_tokens": 300_000, "messages": []}) \
        == "max_tokens 300,000 is above claude-nova-6's output cap of 256,000"


EFFORTS_ALL = ("low", "medium", "high", "xhigh", "max")


def test_a_model_nobody_lists_is_assumed_with_the_smallest_window_and_no_price():
    record = models.lookup("claude-tomorrow-7")
    assert (record.source, record.window, record.price) == ("assumed", 200_000, None)
    assert record.thinking_fields("off") == {}
    configured = models.lookup("llama-3-70b", window=32_768)
    assert (configured.source, configured.window) == ("config", 32_768)


def test_the_thinking_types_the_api_lists_decide_what_off_sends():
    models.use_listing(caps.from_api_models([
        info("claude-sonnet-5-5", 1_000_000, 128_000, disabled=False, between=True),
        info("claude-new-off", 1_000_000, 128_000, disabled=True)]))
    assert models.lookup("claude-sonnet-5-5").thinking_fields("off") == {"thinking": {"type": "between_tools"}}
    assert models.lookup("claude-new-off").thinking_fields("off") == {"thinking": {"type": "disabled"}}


def test_the_listing_is_kept_under_the_home_with_its_date(tmp_path):
    answer = [info("claude-nova-6", 2_000_000, 256_000)]
    when = datetime(2026, 12, 2, 19, 0, tzinfo=UTC)
    caps.save_listing(tmp_path, answer, when, base_url="http://127.0.0.1:1")
    assert (tmp_path / "models.json").stat().st_mode & 0o777 == 0o600
    assert caps.read_listing(tmp_path, base_url="http://127.0.0.1:1") == (answer, when)
    # another endpoint's answer is not this one's
    assert caps.read_listing(tmp_path, base_url="http://127.0.0.1:2") is None
    assert not caps.stale(when, when + timedelta(hours=23))
    assert caps.stale(when, when + timedelta(hours=25))
    assert set(caps.learned(tmp_path, base_url="http://127.0.0.1:1")) == {"claude-nova-6"}
    assert models.lookup("claude-nova-6").window == 2_000_000


def test_a_damaged_listing_is_no_listing(tmp_path):
    (tmp_path / "models.json").write_text("{not json")
    assert caps.read_listing(tmp_path) is None
    assert caps.learned(tmp_path) == {}


# --- the table, against its pages --------------------------------------------------------------

@pytest.mark.parametrize("model, window, output, dollars_in, dollars_out, legacy", [
    # models/haiku-5-5/overview: "Context window: 1M tokens · Max output: 128K tokens · Input
    # pricing: From $0.10 / MTok · Output pricing: From $0.50 / MTok"
    ("claude-haiku-5-5", 1_000_000, 128_000, "0.10", "0.50", False),
    # models/sonnet-5-5/overview: 1M, 128K, $2 / $10
    ("claude-sonnet-5-5", 1_000_000, 128_000, "2", "10", False),
    # whats-new-opus-5-5: "priced at $4 / $20"; the lineup table: 1M, 128K
    ("claude-opus-5-5", 1_000_000, 128_000, "4", "20", False),
    # models/sonnet-5/overview: "Legacy", 1M, 128K, "$2 / MTok", "$10 / MTok"
    ("claude-sonnet-5", 1_000_000, 128_000, "2", "10", True),
    # models/fable-5/overview: "Legacy", 1M, 128K, $10 / $50
    ("claude-fable-5", 1_000_000, 128_000, "10", "50", True),
    # models/haiku-4-5/overview: "Legacy", 200K, 64K, $1 / $5
    ("claude-haiku-4-5", 200_000, 64_000, "1", "5", True),
])
def test_the_lineup_rows_hold_their_pages_figures(model, window, output, dollars_in, dollars_out, legacy):
    from fractions import Fraction
    row = models.table_row(model)
    assert (row.window, row.output_cap, row.legacy, row.source) == (window, output, legacy, "table")
    assert Fraction(row.price.input) == Fraction(dollars_in) * 100
    assert Fraction(row.price.output) == Fraction(dollars_out) * 100


def test_sonnet_4_6_is_legacy_and_every_row_cites_a_page():
    assert models.table_row("claude-sonnet-4-6").legacy
    assert all(row.page.startswith("https://platform.claude.com/docs/") for row in models.MODELS.values())
