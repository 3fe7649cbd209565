"""The token counts behind docs/recall.md's cost estimate: `ever bench recall` run whole against
the local Messages API with the scripted model of tests/support/recall_model.py, its `--json` printed.

    python -m tests.support.recall_costs --messages 10000 --questions 30 > recall-local.json

The figures are the local API's token rule and prompt cache, priced at the capability table's list
prices; the scripted model's lines and turns are shorter than a real model's, which
docs/recall.md's estimate corrects. They say what the run costs, nothing about memory.
"""

import argparse
import sys
import tempfile
from pathlib import Path

from harness.bench.planted import generate
from harness.localapi.server import LocalAPI
from tests.support.chat import environment, ever
from tests.support.recall_model import scripted


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.support.recall_costs")
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as home, LocalAPI() as api:
        api.responder = scripted(generate(arguments.seed, arguments.messages))
        run = ever(["bench", "recall", "--messages", str(arguments.messages), "--seed", str(arguments.seed),
                    "--questions", str(arguments.questions), "--memory-model", "claude-haiku-4-5", "--json", "--yes"],
                   environment(Path(home), api), timeout_seconds=24 * 3600)
    sys.stderr.write(run.stderr)
    sys.stdout.write(run.stdout)
    sys.exit(run.returncode)


if __name__ == "__main__":
    main()
