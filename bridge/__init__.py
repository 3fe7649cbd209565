"""The production planner against the model, trace by trace, byte for byte.

`python -m bridge` (`make bridge`; `SCALE=tiny` for the small runs) sends one seeded list of events
to `model/planner.py` and to `harness/memory/planner.py`, prints each side's trace with its own
printer, and compares them after every event; on a difference it prints the first differing line
and the one command that replays the run. A finite differential test, not a proof (docs/trust.md).

    __main__     `python -m bridge`: the runs, in worker processes, and what they agree on
    scenarios    seeded, named scenarios: the events both planners get
    model_trace  the model's trace, printed from its state as FORMAT.md specifies
    branches     `python -m bridge.branches`: the production planner's branches each tiny run reaches
    lives        `python -m bridge.lives DIR`: each owner life the simulation wrote, against the model
    FORMAT.md    every column of a trace line (the production side prints it in harness/memory/trace.py)

May import: model and harness.memory. Never harness.calls, harness.chat or harness.localapi.
"""
