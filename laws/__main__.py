"""`python -m laws`: the subset lint, then every law, one line each, and a closing summary.

Each line gives the law, the strength this run earned, the verdict and the seconds. The exit
status is 1 if the lint or any law fails.
"""

import argparse
import sys
import time

from pathlib import Path

from laws.registry import README_BEGIN, README_END, Budget, label_matches, laws, markdown_table
from laws.subset import all_violations

# The laws `--deep` runs: push to --t, and the links of the history laws at T ≥ 100,000.
DEEP_LAWS = ("push_agrees", "view_covers", "cview_covers", "view_summarized", "cview_summarized")


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m laws", description=__doc__.splitlines()[0])
    parser.add_argument("--t", type=int, default=20_000, help="the bound of push_agrees (default 20,000)")
    parser.add_argument("--deep", action="store_true",
                        help="run only push_agrees, to --t, and the history laws' event links on a chat past T = 100,000")
    parser.add_argument("--only", action="append", default=[], help="run only this law (repeatable)")
    parser.add_argument("--markdown", action="store_true", help="print the README's laws table and stop")
    parser.add_argument("--write-readme", action="store_true",
                        help="run every law and write the table, with this run's seconds, into README.md")
    arguments = parser.parse_args()
    registered = laws()
    if arguments.markdown:
        print(markdown_table(registered))
        return 0
    selected = registered
    if arguments.deep:
        selected = [law for law in registered if law.name in DEEP_LAWS]
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
    seconds_by_law: dict[str, float] = {}
    differing: list[str] = []
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
        seconds_by_law[law.name] = seconds
        failed += 0 if passed else 1
        # the registry's labels are those of the default budget; --t changes the bounds
        if passed and budget == Budget() and not label_matches(law.strength, strength):
            differing.append(f"{law.name}: earned \"{strength}\", the registry says \"{law.strength}\"")
        print(f"{law.name:<28} {strength:<58} {'pass' if passed else 'FAIL':<5} {seconds:7.2f}s"
              + (f"  {verdict_line}" if verdict_line else ""), flush=True)
    total = time.monotonic() - started
    print(f"laws: {len(selected) + 1 - failed} of {len(selected) + 1} passed in {total:.1f}s"
          + (f"; {failed} FAILED" if failed else ""))
    for note in differing:
        print(f"note: {note}")
    if arguments.write_readme and differing:
        print("README.md not written: a label earned in this run differs from the registry's")
        return 1
    if arguments.write_readme and not failed and selected == registered:
        write_readme(markdown_table(registered, seconds_by_law))
    elif arguments.write_readme:
        print("README.md not written: it takes a full run where every law passes")
        return 1
    return 1 if failed else 0


def write_readme(table: str) -> None:
    readme = Path(__file__).resolve().parent.parent / "README.md"
    text = readme.read_text()
    head, rest = text.split(README_BEGIN, 1)
    _, tail = rest.split(README_END, 1)
    readme.write_text(head + README_BEGIN + "\n" + table + "\n" + README_END + tail)


if __name__ == "__main__":
    sys.exit(main())
