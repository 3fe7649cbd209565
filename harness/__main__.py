"""`python -m harness` is `ever`."""

from harness.chat.cli import main

main()
