"""Strategy: a restart of the production planner is save-then-load (`Planner.checkpoint`, view.json's
JSON round trip, `Planner.load` with the logs replayed past the checkpoint), as the bridge and the
memory service do it [F1] [P10] [P16]. Through every tiny run that restarts, each
restart must give back what the live planner had: T, both views line for line, both shrinking
states and the failure counts. The model's own restart is under the law `restart_keeps_state`."""

from bridge.__main__ import Sides
from bridge.scenarios import runs

KEPT = ("T", "view", "cview", "shrinking", "cshrinking", "failures")


def test_save_then_load_keeps_both_views_both_shrinking_states_and_the_failure_counts():
    restarts = shrinking = cshrinking = failing = 0
    for run in runs("tiny", "restarts") + runs("tiny", "stale_outcomes") + runs("tiny", "outages"):
        sides = Sides(run.config)
        for k, event in enumerate(run.events(sides.probe)):
            sides.model_step(k, event)
            if event[0] == "restart":
                live = sides.planner.save()
                sides.harness_step(k, event)
                loaded = sides.planner.save()
                for field in KEPT:
                    assert loaded[field] == live[field], (run.name, run.seed, k, field)
                restarts += 1
                shrinking += live["shrinking"]
                cshrinking += live["cshrinking"]
                failing += len(live["failures"]) > 0
            else:
                sides.harness_step(k, event)
    assert restarts >= 20 and shrinking >= 5 and cshrinking >= 5 and failing >= 5, (restarts, shrinking, cshrinking, failing)
