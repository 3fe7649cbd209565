"""Bugs planted in `ever backup`, `--check`, `ever restore` and `ever forget`, each of which a test
must catch.

Strategy: one mutant per promise harness/memory/backup.py and harness/memory/forget.py make: the
check reads every stored file against its manifest [S20] and the live file against the backup, a
restore writes nothing from a file that is not what its manifest says, a backup killed at any
instant leaves the last manifest and every byte it names [S21], a forget leaves neither the tree's
lines over the message nor the search database that holds its words [S22], makes each page `ever
browse --out` wrote anew and searches it [B5], and under a running owner is the owner's, which
serves the memory it opened again [S33]; a folder's older snapshots keep every file they name [S32].
"""

from mutants.base import Mutant


def test(name: str) -> tuple:
    return ("python", "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", name)


BACKUP = "tests/chat/test_backup.py::"
FORGET = BACKUP + "test_forget_removes_a_secret_from_the_home_and_the_backup_and_changes_no_other_line"

MUTANTS = [
    Mutant(
        name="backup_unread_manifest_taken_for_none",
        path="harness/memory/backup.py",
        old="    except BackupError as error:\n        # taken for a folder with no backup,",
        new="    except BackupError as error:\n        last = {}\n    if False:\n        # taken for a folder with no backup,",
        check=test("tests/memory/test_backup_crash.py::"
                   "test_a_backup_that_cannot_read_the_last_manifest_writes_nothing_over_the_last_backup"),
        note="a last manifest the disk will not read is taken for no backup: the files written anew cut the "
             "copies it names, and a kill leaves no backup valid [S21]",
    ),
    Mutant(
        name="check_raises_on_restored_logs_that_do_not_open",
        path="harness/memory/backup.py",
        old="        except StoreError as error:\n            # the copy's logs hash",
        new="        except ZeroDivisionError as error:\n            # the copy's logs hash",
        check=test(BACKUP + "test_the_check_of_a_backup_whose_logs_do_not_open_says_so_in_one_sentence"),
        note="a backup whose restored logs do not open ends the check on the restore's exception [S20]",
    ),
    Mutant(
        name="check_skips_the_manifest",
        path="harness/memory/backup.py",
        old="        wrong = verified(folder, manifest, source_disk)\n",
        new='        wrong = ""\n',
        check=test(BACKUP + "test_the_check_says_in_one_sentence_what_is_wrong_with_the_backup[damage_flipped]"),
        note="the check restores the backup without reading its files against the manifest [S20]",
    ),
    Mutant(
        name="check_trusts_the_live_files",
        path="harness/memory/backup.py",
        old="            if hash_file(live, entry.size, disk) != entry.sha256:\n",
        new="            if False:\n",
        check=test(BACKUP + "test_the_check_finds_a_live_log_that_no_longer_continues_the_backup"),
        note="the check never asks whether the live log still starts with the backup's bytes [S20]",
    ),
    Mutant(
        name="restore_trusts_a_cut_file",
        path="harness/memory/backup.py",
        old="    wrong = verified(dest, manifest, source_disk)\n",
        new='    wrong = ""\n',
        check=test(BACKUP + "test_a_restore_from_a_cut_backup_is_refused_and_writes_nothing"),
        note="a restore writes a stored file cut short into the new home [S20]",
    ),
    Mutant(
        name="new_generation_over_the_old",
        path="harness/memory/backup.py",
        old="        generation = generation_of(last.stored) + 1 if last is not None else 0\n",
        new="        generation = generation_of(last.stored) if last is not None else 0\n",
        check=test("tests/memory/test_backup_crash.py::"
                   "test_a_backup_stopped_at_each_operation_in_turn_leaves_a_backup_that_restores[rewrite]"),
        note="a file rewritten since the last backup is copied over the one its manifest names [S21]",
    ),
    Mutant(
        name="forget_leaves_the_tree",
        path="harness/memory/forget.py",
        old="            if any((i << l) <= j < ((i + 1) << l) for j in ids) or holds(line, patterns):\n",
        new="            if False:\n",
        check=test(FORGET),
        note="a forget leaves the tree's lines that summarize the forgotten message [S22]",
    ),
    Mutant(
        name="forget_leaves_the_search_index",
        path="harness/memory/forget.py",
        old='CACHES = ("chat/view.json", "chat/search.sqlite", ',
        new='CACHES = ("chat/view.json", ',
        check=test(FORGET),
        note="a forget leaves the search database, whose words still find the message [S22]",
    ),
    Mutant(
        name="forget_leaves_the_pages",
        path="harness/memory/forget.py",
        old="        if page is None or not os.path.lexists(path):\n",
        new="        if True:\n",
        check=test(BACKUP + "test_forget_makes_the_pages_ever_browse_wrote_anew_and_searches_them"),
        note="a forget leaves the pages `ever browse --out` wrote, which hold the message [B5]",
    ),
    Mutant(
        name="proof_skips_the_pages",
        path="harness/memory/forget.py",
        old="            search_file(path, patterns, report, str(path))\n",
        new="            pass\n",
        check=test(BACKUP + "test_a_page_not_made_anew_is_not_clean"),
        note="the proof never searches the pages `ever browse --out` wrote [B5]",
    ),
    Mutant(
        name="owner_serves_the_memory_it_closed",
        path="harness/owner/owner.py",
        old='        self.memory = self.memory_ref["m"] = memory\n',
        new='        self.memory_ref["m"] = memory\n',
        check=test(BACKUP + "test_forget_while_ever_serve_runs_is_done_by_the_owner_which_answers_on"),
        note="the owner forgets, then serves on from the memory it closed for the forget [S33]",
    ),
    Mutant(
        name="sweep_by_the_latest_only",
        path="harness/memory/backup.py",
        old="        sweep(dest, kept, disk)\n",
        new="        sweep(dest, kept[:1], disk)\n",
        check=test(BACKUP + "test_a_folder_keeps_its_history_and_an_older_snapshot_restores"),
        note="a backup removes the stored files only an older snapshot names: the history no longer restores [S32]",
    ),
    Mutant(
        name="sim_stored_copy_not_fsynced",
        path="harness/memory/backup.py",
        old="                    copy_range(source, target, last.size, end, disk, digest)\n                    disk.fsync(target)\n",
        new="                    copy_range(source, target, last.size, end, disk, digest)\n",
        check=("python", "-m", "sim", "--seeds", "200", "--until-caught", "a killed backup leaves the last one valid"),
        note="the bytes a backup appended are not fsync'd before its manifest names them: a power loss "
             "leaves a manifest whose bytes are gone (sim/backup_world.py) [S21]",
    ),
]
