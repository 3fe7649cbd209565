"""Planted bugs, each with the check that must catch it, and the runner that proves it does
(`python -m mutants`, `make mutants`): every law, promise and test is seen to fail.

    __main__                `python -m mutants`: each bug in a copy of the tree, its check run there
    base                    a planted bug: one textual replacement in one file, and its check
    judge                   whether a check caught its mutant: failed for its own reason, not a crash
    pytest_plugin           each failed test phase and its exception's type, for the judge
    law_mutants             bugs in the model, each caught by a law
    bridge_mutants          bugs in the production planner, each caught by the bridge or a test
    chat_mutants            bugs in the chat (store, service, turn, tools), each caught by a test
    import_browse_mutants   bugs in `ever import` and `ever browse`, each caught by a test
    recall_mutants          bugs in `ever bench recall`: its facts, its scoring, its arms, each caught by a test
    claims_mutants          the review's planted bugs of the laws' own claims, each caught by the check named for it
    guard_mutants           bugs in the chat's guards: spend per chain and chat, approvals, questions, entrances
    week_mutants            bugs in a first week's commands: the import's estimate at its edges, status, the service unit
    provider_mutants        bugs in the OpenAI providers, their stand-ins and the costs per provider, each caught by a test
    backup_mutants          bugs in `ever backup`, `--check`, `ever restore` and `ever forget`, each caught by a test
    view_mutants            bugs in the view's ceiling in rendered bytes: its rules, its bound, its precondition
    sim_mutants             bugs in the log, the inbox and the owner, each caught by `make sim`'s seeds
    lives_mutants           bugs only the simulation's planner comparison sees (bridge/lives.py)
    models_mutants          bugs in what Ever knows of each model and in the newer models' rules, each caught by a test

May import: anything.
"""
