"""The laws the model must satisfy, each labelled with the strength its check earned [gist §2–§6].

`python -m laws` (`make laws`) runs the subset lint, then every law, one line each; a law fails when
it earns less than its registered label. The strengths, strongest first: Proved (Z3), Confirmed
(CrossHair), Bounded, Searched, Example (`core`). docs/laws.md's table is generated from
`registry` (`python -m laws --write-table`) and checked by tests/laws/test_laws_table.py, as are
the README's counts.

    __main__    `python -m laws`: the lint, the laws, a closing count; `--write-table`
    registry    the one list of laws: name, gist section, claim, engine, registered strength
    core        the budget, the verdict, the order of the strengths and the weakest-part rule
    subset      the model's subset lint and the rooms' layering rules (`make lint`)
    bounded     laws checked by computation on every case of a bound
    universal   laws proved with Z3 for every input, and the event laws checked on model runs
    choice      `most_due`'s choice, and the production due order against the model's scan
    restarts    restarts, the batch's floor and the tree
    protocol    a turn's protocol and the view's text
    searched    laws searched by Hypothesis over random configs and histories
    confirmed   the laws CrossHair checks, and the compactor's line and cut
    canaries    known-false claims each trusted part of the prover must refuse (docs/trust.md)
    work_queue  what the history laws leave unknown: `capped_text`'s source, the queue's order and window
    witness     concrete inputs that show a CrossHair target is not vacuous
    contracts/  the CrossHair targets (`views`, and the production `twins`)
    z3_core     the integer encoding: Python integers and conditions as Z3 terms
    z3_model    the model's own code run on Z3 terms (the twins of model/base.py)
    z3_views    what the view laws claim, by hand from the gist, and the loops' invariants
    z3_events   each event of `step` on Z3 terms: the history laws' induction step
    z3_runs     model runs: every transition, and the replay that ties events to view steps
    z3_tree     `tree_lookup_gives_what_was_put`, on model/tree.py's code
    z3_push     push_agrees_always: the counter's lemmas (docs/push_agrees_always.md)
    z3_fold     push_agrees_always: the fold step as the carry's merge
    z3_ceiling  the turn's ceiling in rendered bytes: a sibling-free view's 64 lines, a line's 1,578 bytes, their rules [P20]

May import: the standard library, laws, model, harness (the production twins a law compares with
the model), z3 and hypothesis; CrossHair runs as a command of its own.

What each label trusts: docs/trust.md.
"""
