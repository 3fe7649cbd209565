"""Seeds kept as regression runs: each found a bug, since fixed, and runs in every `make sim`
(beside the seeds drawn) with the bug it found named."""

KEPT: tuple[tuple[int, str], ...] = (
    (44, "a chat folder made by an open that a disk error cut short was never fsync'd in its parent: "
         "the next open found it there and did not fsync it, and a power loss took the whole chat "
         "(harness/memory/logfile.py make_directory)"),
)
