"""The planted bugs of the review of the laws' own claims: each re-planted here, with the check
named for it, which must catch it.

Strategy: each is one of the sixteen bugs the review planted by hand (a placeholder, the fold, the
context's budget, a waiting turn's retries, capped merges, a restart, the prover's cache and
twins, a canary that cannot fail, a narrowed bound, the store's edges) as one textual edit; a
planner bug has its catch by `make test` alone too (the tiny bridge's selection in
tests/bridge/test_bridge.py), so the per-commit gate sees it.
"""

from mutants.base import Mutant
from mutants.law_mutants import law, test

DAMAGE = "harness/memory/damage.py"
LOGFILE = "harness/memory/logfile.py"
EDGES = "tests/memory/test_store_edges.py"

MUTANTS = [
    # o2: after a cut day file and a lost index, a lost id is given again
    Mutant("record_given_one_short", DAMAGE, "        return max((high + 1 for _, high in self.lost), default=0)\n",
           "        return max((high for _, high in self.lost), default=0)\n",
           test(f"{EDGES}::test_an_id_lost_when_a_day_file_was_cut_is_not_given_again_when_the_index_is_lost_too"),
           "the damage record's highest id given is one short: with the index lost, the lost id is given again"),
    # o3: a file torn after its first byte is never ended, and the next acknowledged line is lost
    Mutant("torn_first_byte_not_ended", LOGFILE, "    return size > 0 and disk.pread(fd, 1, size - 1) != b\"\\n\"\n",
           "    return size > 1 and disk.pread(fd, 1, size - 1) != b\"\\n\"\n",
           test(f"{EDGES}::test_a_torn_tail_of_every_length_on_an_empty_file_is_ended_and_the_next_line_stands_alone"),
           "a file torn after its first byte is not ended: the next line is glued to the torn byte"),
    Mutant("torn_first_byte_not_ended_store", LOGFILE, "    return size > 0 and disk.pread(fd, 1, size - 1) != b\"\\n\"\n",
           "    return size > 1 and disk.pread(fd, 1, size - 1) != b\"\\n\"\n",
           test(f"{EDGES}::test_a_day_file_holding_only_a_torn_first_line_of_any_length_keeps_the_next_message"),
           "the same bug, through the store: the next message after a 1-byte torn first line is lost"),
]
