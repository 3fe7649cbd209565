"""Strategy: the production line algorithm (harness/line.py) is written apart from the model's
(model/line.py); Hypothesis feeds both the same reply scripts and texts (over-long, not shorter,
empty, blank, multibyte characters across byte 512) and requires the same outcome, and a few
worked cases pin the behaviour docs/planner.md states.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from harness import line as hl
from model import line as ml

PIECES = ("a", "é", "日", "😀", " ", "\n", "\t", "b" * 100, "c" * 250)
texts = st.lists(st.sampled_from(PIECES), max_size=14).map("".join) | st.text(max_size=30)
replies = st.lists(texts | st.tuples(st.integers(500, 520), texts).map(lambda p: "x" * p[0] + p[1]), max_size=8)


@settings(max_examples=250, deadline=None)
@given(replies=replies, fallback=texts)
def test_line_agrees_with_the_model(replies, fallback):
    production = hl.line(tuple(replies), fallback)
    model = ml.line(tuple(replies), fallback)
    assert (production.calls, production.text) == (model.calls, model.text)


@settings(max_examples=200, deadline=None)
@given(text=texts, bytes_max=st.integers(0, 700))
def test_cut_agrees_with_the_model(text, bytes_max):
    assert hl.cut(text, bytes_max) == ml.cut(text, bytes_max)


@settings(max_examples=200, deadline=None)
@given(a=texts, b=texts)
def test_merge_input_cut_agrees_with_the_model(a, b):
    assert hl.merge_input_cut(a, b) == ml.merge_input_cut(a, b)


def test_a_multibyte_character_across_the_limit_is_dropped_whole():
    reply = "a" * 511 + "é" + "b" * 10  # é is bytes 512-513
    assert hl.line((reply, reply), "").text == "a" * 511


def test_a_follow_up_not_shorter_ends_the_tries():
    first = "x" * 600
    outcome = hl.line((first, "y" * 600, "z" * 10), "fallback")
    assert outcome.calls == 2
    assert outcome.text == "x" * 512


def test_no_line_at_all_keeps_the_fallback_cut():
    outcome = hl.line(("", "never asked"), "f" * 600)
    assert outcome.calls == 1
    assert outcome.text == "f" * 512
