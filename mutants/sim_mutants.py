"""Bugs planted in the chat that `make sim` must catch within its budget: its 200 seeds, each run
stopping at the first seed that fails on the invariant named (`--until-caught`).

Strategy: one mutant for each way the promises "accepted means kept" and "no id given twice" can
break between the examples the tests write out: an fsync or a directory's fsync left out (only a
power loss shows it), a failed write's bytes left, a torn tail glued onto, a torn line's id given
again, an acknowledgement before the inbox's line, an inbox entry done before its turn logged the
message, a long message's key put on its first piece, a retried key logged again,
the inbox's waiting messages forgotten at open, a folder found made taken as it is. Each is
caught by the simulation alone; mutants/chat_mutants.py has the example tests' own. A long
message's pieces logged twice after a kill (the [S11] count forgotten) is not among them: the
simulation's `never doubled` finds it, but a known finding (sim/known.py, pieces doubled after a
failed append) fails on the same words, and a known finding never counts as a catch. Nor is
a stopped compaction's line applied (the check `if self.tasks.get(node) is not
asyncio.current_task()` left out): no seed of the 200 fails on it.
"""

from mutants.base import Mutant

SEEDS = "200"  # `make sim`'s seeds


def sim(*invariants: str) -> tuple:
    return ("python", "-m", "sim", "--seeds", SEEDS, "--until-caught", ",".join(invariants))


KEPT = "acknowledged means kept"

MUTANTS = [
    Mutant(
        name="sim_line_acknowledged_before_fsync",
        path="harness/memory/logfile.py",
        old="            write_all(self.fd, data, self.disk)\n            self.disk.fsync(self.fd)\n",
        new="            write_all(self.fd, data, self.disk)\n",
        check=sim(KEPT),
        note="a line is acknowledged before its fsync: a power loss takes it",
    ),
    Mutant(
        name="sim_failed_write_left_in_the_file",
        path="harness/memory/logfile.py",
        old="            self._cut_pending = True\n            try:\n                self.cut_back()\n",
        new="            self._cut_pending = True\n            try:\n                pass\n",
        check=sim(KEPT, "refused means not kept", "never doubled", "damage is said"),
        note="a failed write's bytes stay in the file for the next line to glue onto, or to be read",
    ),
    Mutant(
        name="sim_torn_tail_not_ended",
        path="harness/memory/logfile.py",
        old="            elif ends_torn(fd, self.size, disk):\n",
        new="            elif False:\n",
        check=sim(KEPT, "a restart's view is the logs' view", "damage is said"),
        note="a torn tail is not ended before the next line: the next line is glued onto it",
    ),
    Mutant(
        name="sim_torn_id_given_again",
        path="harness/memory/index.py",
        old="                    self._torn_given = max(self._torn_given, expected + 1)  # [S13] its id was given\n",
        new="                    pass\n",
        check=sim("ids never reused"),
        note="an id given again after a torn write of its line [S13]",
    ),
    Mutant(
        name="sim_acknowledged_before_the_inbox",
        path="harness/owner/owner.py",
        old="        self.memory.inbox.accept(message)\n",
        new="",
        check=sim(KEPT),
        note="a message acknowledged with no inbox line on disk: a kill before its turn logs it loses it [S9]",
    ),
    Mutant(
        name="sim_inbox_done_before_logged",
        path="harness/owner/owner.py",
        old="        self.turn = turn = self.new_turn(current.output, current.approval)\n        self.queue_turn = True\n",
        new=("        self.turn = turn = self.new_turn(current.output, current.approval)\n"
             "        self.memory.inbox.done(current.message.key)\n        self.queue_turn = True\n"),
        check=sim(KEPT),
        note="an inbox entry marked done before its message's line is durable [S9]",
    ),
    Mutant(
        name="sim_key_on_the_first_piece",
        path="harness/memory/service.py",
        old="key=message.key if k == len(pieces) - 1 else None)",
        new="key=message.key if k == start else None)",
        check=sim(KEPT, "never doubled"),
        note="a long message's key on its first piece: a kill after it leaves the rest unlogged for good [S11]",
    ),
    Mutant(
        name="sim_retried_key_logged_again",
        path="harness/owner/owner.py",
        old="        if self.memory.store.key_id(key) is not None:\n",
        new="        if False:\n",
        check=sim("never doubled"),
        note="a sender's retry of a logged message is logged again [S8]",
    ),
    Mutant(
        name="sim_inbox_forgotten_at_resume",
        path="harness/owner/owner.py",
        old="        for key, text in self.memory.inbox.pending():\n",
        new="        for key, text in []:\n",
        check=sim(KEPT, "every sender is answered", "the inbox holds only what waits"),
        note="the messages a killed owner accepted and never logged are not delivered at open [S9]",
    ),
    Mutant(
        name="sim_new_file_name_not_fsynced",
        path="harness/memory/logfile.py",
        old="            if created or self.size == 0:\n",
        new="            if False:\n",
        check=sim(KEPT),
        note="a new day file's name is not fsync'd in its directory: a power loss takes the file",
    ),
    Mutant(
        name="sim_new_directory_not_fsynced",
        path="harness/memory/logfile.py",
        old="    disk.chmod(path, DIRECTORY_MODE)\n    fsync_directory(path.parent, disk)\n",
        new="    disk.chmod(path, DIRECTORY_MODE)\n",
        check=sim(KEPT),
        note="a new directory's name is not fsync'd: a power loss takes the chat's folders",
    ),
    Mutant(
        name="sim_existing_directory_not_fsynced",
        path="harness/memory/logfile.py",
        old="        fsync_directory(path.parent, disk)\n        return False\n",
        new="        return False\n",
        check=sim(KEPT),
        note="a folder an open cut short had made is taken as it is, its name never fsync'd (seed 44)",
    ),
]
