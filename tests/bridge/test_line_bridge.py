"""Strategy: the production line algorithm (harness/memory/line.py) is written apart from the model's
(model/line.py); Hypothesis feeds both the same reply scripts and texts (over-long, not shorter,
empty, blank, multibyte characters across byte 512) and requires the same outcome, and a few
worked cases pin the behaviour docs/planner.md states.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.memory import line as hl
from model import line as ml

PIECES = ("a", "é", "日", "😀", " ", "\n", "\t", "b" * 100, "c" * 250)
texts = st.lists(st.sampled_from(PIECES), max_size=14).map("".join) | st.text(max_size=30)
replies = st.lists(texts | st.tuples(st.integers(500, 520), texts).map(lambda p: "x" * p[0] + p[1]), max_size=8)


@settings(max_examples=250, deadline=None)
@given(replies=replies)
def test_line_agrees_with_the_model(replies):
    production = hl.line(tuple(replies))
    model = ml.line(tuple(replies))
    assert (production.calls, production.text, production.follow_ups) == (model.calls, model.text, model.follow_ups)


@settings(max_examples=200, deadline=None)
@given(source=texts, a=texts, b=texts)
def test_capped_lines_agree_with_the_model(source, a, b):
    assert hl.capped_line(source) == ml.capped_line(source)
    assert hl.capped_merge(a, b) == ml.capped_merge(a, b)


@settings(max_examples=200, deadline=None)
@given(text=texts, bytes_max=st.integers(0, 700))
def test_cut_agrees_with_the_model(text, bytes_max):
    assert hl.cut(text, bytes_max) == ml.cut(text, bytes_max)


@settings(max_examples=200, deadline=None)
@given(a=texts, b=texts)
def test_merge_input_cut_agrees_with_the_model(a, b):
    assert hl.merge_input_cut(a, b) == ml.merge_input_cut(a, b, 512)


def test_a_multibyte_character_across_the_limit_is_dropped_whole():
    reply = "a" * 511 + "é" + "b" * 10  # é is bytes 512-513
    assert hl.line((reply, reply)).text == "a" * 511


def test_a_follow_up_not_shorter_ends_the_tries():
    first = "x" * 600
    outcome = hl.line((first, "y" * 600, "z" * 10))
    assert outcome.calls == 2
    assert outcome.text == "x" * 512


def test_no_line_at_all_is_a_failed_try_never_the_input():
    outcome = hl.line(("", "never asked"))
    assert outcome.calls == 1
    assert outcome.text == ""
    assert hl.line(("  \n\t ",)).text == ""


def test_the_follow_up_is_the_gists_text_for_the_trimmed_reply():
    reply = "  " + "é" * 300 + "\n"  # trimmed: 600 bytes; the raw reply is 603
    tries = hl.Tries()
    follow_up = tries.take(reply)
    assert follow_up == (
        "Too long: your line is 600 bytes, over the 512-byte limit. Write\n"
        "the whole line again for the same <input>, cutting just enough of the\n"
        "least valuable items to fit before this cut:\n" + "é" * 256 + "| ← LIMIT"
    )
    assert tries.take("short") is None
    assert tries.outcome() == hl.Outcome(2, "short", (follow_up,))


def test_the_fifth_over_long_try_gets_no_follow_up_and_is_kept_cut():
    tries = hl.Tries()
    sent = [tries.take("x" * (600 - k)) for k in range(5)]
    assert sent[:4] == [hl.too_long("x" * (600 - k)) for k in range(4)] and sent[4] is None
    assert tries.outcome().text == "x" * 512 and tries.outcome().calls == 5


def test_a_capped_line_is_the_mark_then_the_input_cut_within_512_bytes():
    mark = "(not summarized, cut: zoom it) "  # docs/planner.md [P16]
    assert hl.capped_line("tool: " + "y" * 900) == mark + ("tool: " + "y" * 900)[: 512 - len(mark)]
    capped = hl.capped_merge("a" * 400, "b" * 400)
    room = 512 - len(mark) - 1  # 480: 240 for each half
    assert capped == mark + "a" * (room // 2) + "\n" + "b" * (room - room // 2)
    assert len(capped.encode()) == 512
