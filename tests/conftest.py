"""Hypothesis settings profiles for the whole suite, chosen by HYPOTHESIS_PROFILE.

- `ci` (the default, `make test`): derandomized, so every run tries the same examples and a
  landing never depends on luck; enough of them for the planner state machine to reach the paths
  tests/bridge/test_planner_agreement.py names.
- `deep` (`make check`): random examples, ten times as many, and the example database on, to find
  what the fixed ones miss.
- `fail-fast` (`make mutants`): the `ci` examples without shrinking, so a planted bug is reported
  at its first failing example instead of minutes later.

Tests that set `max_examples` themselves keep it; everything else comes from the profile.

The `api` fixture is a local Messages API (harness/localapi/server.py) shared by a module's tests.
"""

import os

import pytest
from hypothesis import HealthCheck, Phase, settings

from harness.localapi.server import LocalAPI

EXAMPLES_CI = 100

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=EXAMPLES_CI,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    print_blob=True,
)
settings.register_profile(
    "deep",
    derandomize=False,
    max_examples=10 * EXAMPLES_CI,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    print_blob=True,
)
settings.register_profile(
    "fail-fast",
    parent=settings.get_profile("ci"),
    phases=[Phase.explicit, Phase.generate],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="module")
def api():
    """A local Messages API for a module's tests; each test calls `reset()` first."""
    with LocalAPI() as server:
        yield server
