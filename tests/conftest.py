"""Hypothesis settings profiles for the whole suite, chosen by HYPOTHESIS_PROFILE.

- `ci` (the default, `make test`): derandomized, so every run tries the same examples and a
  landing never depends on luck; enough of them for the planner state machine to reach the paths
  tests/bridge/test_planner_agreement.py names.
- `deep` (`make check`): random examples, ten times as many, and the example database on, to find
  what the fixed ones miss.
- `fail-fast` (`make mutants`): the `ci` examples without shrinking, so a planted bug is reported
  at its first failing example instead of minutes later.

Tests that set `max_examples` themselves keep it; everything else comes from the profile.

The local Messages API (harness/localapi/server.py): `shared_api` is one server for a module's
tests (each costs tens of milliseconds to start); `api` is that server as new for each test. A
module that needs another server class, a standing responder, or every scripted reply used says so
once: `pytestmark = pytest.mark.local_api(server=StallingAPI, responder=f, every_reply_used=True)`.
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


def pytest_configure(config):
    config.addinivalue_line("markers", "local_api(*, server=LocalAPI, responder=None, "
                            "every_reply_used=False): the module's local Messages API")
    config.addinivalue_line("markers", "slow: seconds of real processes, kills or proofs each; "
                            "`make test-slow` runs them, `make test` leaves them out")


def _local_api(node):
    marker = node.get_closest_marker("local_api")
    options = dict(marker.kwargs) if marker else {}
    return options.pop("server", LocalAPI), options


@pytest.fixture(scope="module")
def shared_api(request):
    """One local Messages API for the module's tests, with the module's responder."""
    server_class, options = _local_api(request.node)
    with server_class() as server:
        server.responder = options.get("responder")
        yield server


@pytest.fixture
def api(shared_api, request):
    """The module's server as new: `reset` forgets what the test before left (queue, requests,
    failures, cache), and the module's responder answers again. With `every_reply_used`, a test
    that leaves a scripted reply unused fails."""
    _, options = _local_api(request.node)
    shared_api.reset()
    shared_api.responder = options.get("responder")
    yield shared_api
    if options.get("every_reply_used"):
        assert shared_api.pending == 0, "a test left scripted replies unused"
