"""Conformance vectors: `python -m model push N` and `python -m model fold N --due last|first`.

For t = 0..N, one line: t, a tab, then the view oldest first as `id+n` items separated by single
spaces. `push` prints Taelin's list read as a view [gist §3.1]; `fold` prints the fold's view with
push's length as the budget, on its own history [gist §3.2]. This file only parses arguments and
prints: the one file of model/ outside the subset.
"""

import argparse
import sys

from model.push import fold_step, format_items, push, push_states, push_view, view_items


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m model", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    push_command = commands.add_parser("push", help="push's view for t = 0..N")
    push_command.add_argument("N", type=int)
    fold_command = commands.add_parser("fold", help="the fold's view for t = 0..N")
    fold_command.add_argument("N", type=int)
    fold_command.add_argument("--due", choices=("last", "first"), default="last",
                              help="measure a pair's age from its last message (the gist) or its first (the known bug)")
    arguments = parser.parse_args()
    if arguments.N < 0:
        parser.error("N must be at least 0")
    states = None
    view = ()
    out = sys.stdout
    for t in range(arguments.N + 1):
        states = push(t, states)
        if arguments.command == "push":
            items = push_view(states, t + 1)
        else:
            view = fold_step(view, t + 1, len(push_states(states)), arguments.due == "first")
            items = view_items(view)
        out.write(f"{t}\t{format_items(items)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
