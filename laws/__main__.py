"""`python -m laws`: the subset lint, then every law, one line each, and a closing summary.

Each line gives the law, the strength this run earned, the verdict and the seconds. The exit
status is 1 if the lint or any law fails.
"""

import argparse
import sys
import time

from laws.registry import Budget, laws, markdown_table
from laws.subset import all_violations


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m laws", description=__doc__.splitlines()[0])
    parser.add_argument("--t", type=int, default=20_000, help="the bound of push_agrees (default 20,000)")
    parser.add_argument("--deep", action="store_true", help="run only push_agrees, to --t")
    parser.add_argument("--only", action="append", default=[], help="run only this law (repeatable)")
    parser.add_argument("--markdown", action="store_true", help="print the README's laws table and stop")
    arguments = parser.parse_args()
    registered = laws()
    if arguments.markdown:
        print(markdown_table(registered))
        return 0
    selected = registered
    if arguments.deep:
        selected = [law for law in registered if law.name == "push_agrees"]
    if arguments.only:
        unknown = set(arguments.only) - {law.name for law in registered}
        if unknown:
            parser.error(f"no such law: {', '.join(sorted(unknown))}")
        selected = [law for law in registered if law.name in arguments.only]
    budget = Budget(t=arguments.t, deep=arguments.deep)
    started = time.monotonic()
    violations = all_violations()
    for violation in violations:
        print(violation)
    print(f"{'subset_lint':<28} {'Exact: an AST walk of model/ and harness/':<58} "
          f"{'pass' if not violations else 'FAIL':<5} {time.monotonic() - started:7.2f}s", flush=True)
    failed = 1 if violations else 0
    for law in selected:
        began = time.monotonic()
        try:
            verdict = law.check(budget)
        except Exception as error:  # a crashing law is a failing law, said plainly
            verdict_line = f"crashed: {type(error).__name__}: {error}"
            passed, strength = False, "none"
        else:
            verdict_line = verdict.detail
            passed, strength = verdict.passed, verdict.strength
        seconds = time.monotonic() - began
        failed += 0 if passed else 1
        print(f"{law.name:<28} {strength:<58} {'pass' if passed else 'FAIL':<5} {seconds:7.2f}s"
              + (f"  {verdict_line}" if verdict_line else ""), flush=True)
    total = time.monotonic() - started
    print(f"laws: {len(selected) + 1 - failed} of {len(selected) + 1} passed in {total:.1f}s"
          + (f"; {failed} FAILED" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
