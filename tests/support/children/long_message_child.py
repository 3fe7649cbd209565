"""An owner killed inside a long message: `python tests/support/children/long_message_child.py
HOME KEY PIECES < TEXT`.

It owns the chat under HOME, accepts TEXT (read from stdin) with KEY in the inbox as `ever send`
does, then logs it as a turn does (harness/memory/service.py's `append_accepted`), and SIGKILLs
itself once PIECES of its pieces are on disk: the kill lands between two pieces of one message,
the moment a slow disk or a tired machine makes likely, every time.
"""

import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from harness.memory.accepted import entering  # noqa: E402
from harness.memory.service import Memory  # noqa: E402


def main() -> None:
    home, key, pieces = sys.argv[1], sys.argv[2], int(sys.argv[3])
    text = sys.stdin.read()
    memory = Memory.open(home)
    message = entering(text, key, "send", lambda valid: valid)
    memory.inbox.accept(message)
    append = memory._log  # where each line of the memory is logged, a piece or any other
    logged = []

    def append_then_die(*args, **kwargs):
        record = append(*args, **kwargs)
        logged.append(record)
        if len(logged) == pieces:
            os.kill(os.getpid(), signal.SIGKILL)
        return record

    memory._log = append_then_die
    memory.append_accepted(message)
    print("logged whole")  # never reached when PIECES < the message's pieces


if __name__ == "__main__":
    main()
