"""`python -m harness` is `ever`."""

from harness.cli import main

main()
