"""Bugs only the simulation's planner comparison sees (sim/planner_trace.py, bridge/lives.py):
each owner life's production planner against the model on the events it took.

Strategy: one mutant for the bug the comparison found, undone: a read the disk refuses inside
one of the planner's events raised on, the planner left half an event on and the chat going on
with it [S37] (seed 121, and now seed 850); the simulation's own invariants all pass on it, and the bridge never
fails a read. And one for the load's order in harness/memory/checkpoint.py: calls started before
the ready merges are rebuilt, so a new process starts no merge until its next event (8 of seed 40's
lives differ at their event 0; the tiny bridge's restarts see it too). And one for a line the store kept
from its logged text [S29] counted at a load as the replay's text was (seed 124, life 5.1). Each is caught by a
test of tests/sim/test_planner_lives.py, which runs the seeds and compares their lives.
"""

from mutants.base import Mutant

TESTS = "tests/sim/test_planner_lives.py"


def lives_test(name: str) -> tuple:
    return ("python", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", f"{TESTS}::{name}")


MUTANTS = [
    Mutant(
        name="lives_read_refused_half_an_event",
        path="harness/memory/service.py",
        old="        except OSError as error:\n            self._reload(event, error)\n",
        new="        except OSError:\n            raise\n",
        check=lives_test("test_the_seed_that_found_a_read_refused_inside_an_event_agrees"),
        note="a read refused inside an event raised on: the chat goes on with a planner half an event on [S37]",
    ),
    Mutant(
        name="lives_load_starts_calls_before_its_ready_merges",
        path="harness/memory/checkpoint.py",
        old="    _ready_frontier(planner)\n    planner._schedule()\n",
        new="    planner._schedule()\n    _ready_frontier(planner)\n",
        check=lives_test("test_every_owner_life_of_a_few_seeds_agrees_with_the_model"),
        note="a load starts its calls before it rebuilds the ready merges: no merge starts until the next event",
    ),
    Mutant(
        name="lives_kept_line_counted_as_its_replay",
        path="harness/memory/checkpoint.py",
        old="    planner.view = planner._loaded_view(planner.view.lines())\n    planner.cview = planner._loaded_view(planner.cview.lines())\n",
        new="",
        check=lives_test("test_the_seed_whose_repair_left_a_kept_line_agrees"),
        note="a line the store kept from its logged text [S29] counted at a load as the replay's text was",
    ),
]
