"""Strategy: a Hypothesis state machine sends the same events to the model (`step`) and to the
production `Planner` (through the bridge's `Sides`, so a restart is save-then-load on the
production side) with small configs, and asserts after every step that their trace records
(bridge/FORMAT.md) are equal. Messages are short (free) or long, with newlines and multibyte
characters; outcomes name a running call; stale outcomes for calls that are not running check
[decision P7]. A failure shrinks to a few events, which seeded bridge runs cannot do.
"""

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from bridge import model_trace
from bridge.__main__ import Sides
from harness import trace as harness_trace
from harness.line import cut

KINDS = ("user", "ever", "tool", "echo", "work", "note")
PIECES = ("a", "b c", "\n", "\r\n", "é", "日本", "😀", " ", "x" * 40)

piece_texts = st.lists(st.sampled_from(PIECES), max_size=6).map("".join)
# Long enough that a message or a merge is not free (over 512 bytes with its head or partner).
long_texts = st.tuples(st.integers(200, 700), piece_texts).map(lambda pair: "z" * pair[0] + pair[1])
message_texts = st.one_of(piece_texts, long_texts)
built_texts = st.one_of(
    piece_texts.filter(lambda text: text != ""),
    st.tuples(st.integers(150, 500), piece_texts).map(lambda pair: cut("w" * pair[0] + pair[1], 512)),
)


@st.composite
def configs(draw):
    view_ceiling = draw(st.sampled_from((120, 250, 500, 1000, 2000)))
    view_floor = draw(st.integers(1, view_ceiling))
    cview_ceiling = draw(st.integers(1, view_floor))
    cview_floor = draw(st.integers(1, cview_ceiling))
    return (view_ceiling, view_floor, cview_ceiling, cview_floor, draw(st.integers(1, 4)), draw(st.integers(1, 3)))


class PlannersAgree(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.sides = None
        self.k = 0

    @initialize(config=configs())
    def start(self, config):
        self.sides = Sides(config)

    def send(self, event):
        model_lines = self.sides.model_step(self.k, event)
        harness_lines = self.sides.harness_step(self.k, event)
        assert model_lines == harness_lines
        self.k += 1

    @rule(kind=st.sampled_from(KINDS), text=message_texts)
    def message(self, kind, text):
        self.send(("message", kind, text))

    @precondition(lambda self: len(self.sides.state.running) > 0)
    @rule(data=st.data(), text=built_texts)
    def built(self, data, text):
        l, i = data.draw(st.sampled_from(self.sides.state.running))
        self.send(("built", l, i, text))

    @precondition(lambda self: len(self.sides.state.running) > 0)
    @rule(data=st.data())
    def failed(self, data):
        l, i = data.draw(st.sampled_from(self.sides.state.running))
        self.send(("failed", l, i))

    @precondition(lambda self: self.sides.state.T > 0)
    @rule(data=st.data(), text=built_texts)
    def stale_built(self, data, text):
        i = data.draw(st.integers(0, self.sides.state.T - 1))
        if (0, i) not in self.sides.state.running:
            self.send(("built", 0, i, text))

    @rule()
    def wait(self):
        self.send(("wait",))

    @rule()
    def turn_end(self):
        self.send(("turn_end",))

    @rule()
    def restart(self):
        self.send(("restart",))

    @invariant()
    def rendered_views_agree(self):
        if self.sides is not None:
            model_end = model_trace.end_records(self.k, self.sides.state)
            harness_end = harness_trace.final_records(self.k, self.sides.planner)
            assert model_end == harness_end


PlannersAgree.TestCase.settings = settings(
    max_examples=150,
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestPlannersAgree = PlannersAgree.TestCase
