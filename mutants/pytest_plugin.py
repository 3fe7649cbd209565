"""A pytest plugin for the mutant runner: each failed test phase, with its exception's type,
one line each, appended to the file EVER_MUTANT_REPORT names (mutants/judge.py reads it)."""

import os

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    path = os.environ.get("EVER_MUTANT_REPORT")
    if path and report.failed:
        exception = call.excinfo.typename if call.excinfo is not None else "none"
        with open(path, "a", encoding="utf-8") as sink:
            sink.write(f"{report.nodeid}\t{report.when}\t{exception}\n")
