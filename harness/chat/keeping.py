"""`ever backup`, `ever restore` and `ever forget`: the chat kept somewhere else, brought back, and
a message removed for good (harness/memory/backup.py, harness/memory/forget.py).

Each ends in one sentence; a check that finds the backup wrong, a restore refused and a forget
whose proof is not clean exit 1. Only click is imported until a command runs. `commands` is given
the CLI's own `echo`, `fail` and `ask_owner_or_open` (harness/chat/cli.py), which adds them.
"""

import sys
from pathlib import Path

import click

from harness.chat.config import load_settings


def commands(echo, fail, ask_owner_or_open) -> tuple[click.Command, ...]:
    """The three commands, saying what they say through the CLI's `echo` and `fail`."""

    def destination(dest, settings) -> str:
        dest = dest or settings.backup_dest
        if not dest:
            fail("name where to back up (`ever backup DEST`: a folder, or restic:REPOSITORY), or set "
                 "`[backup] dest = ...` in config.toml")
        return dest

    def live_view() -> tuple[int, str]:
        """The live chat's messages and view: from its owner, or opened here to read."""
        messages = ask_owner_or_open({"op": "status"})["status"]["messages"]
        return messages, ask_owner_or_open({"op": "view"})["view"]

    @click.command()
    @click.argument("dest", required=False)
    @click.option("--check", "check_only", is_flag=True, help="The restore test: restore the latest backup into a "
                  "temporary home, check every file against its manifest and the live chat, compare the views.")
    @click.option("--snapshots", "list_only", is_flag=True, help="List the backups a folder keeps (its history), "
                  "each with when it was taken and its messages, for `ever restore SRC --snapshot ID`.")
    def backup(dest, check_only: bool, list_only: bool) -> None:
        """Back the chat up into DEST (a folder or drive, or restic:REPOSITORY; default `[backup] dest`):
        its logs, tree, damage record, subagents, usage and settings, never the key or a cache, with a
        manifest of hashes. Each backup copies what is new and verifies the rest."""
        from harness.memory.backup import BackupError, check
        from harness.memory.backup import backup as back_up

        settings = load_settings()
        dest = destination(dest, settings)
        if list_only:
            from harness.memory.backup import is_restic, snapshots

            if is_restic(dest):
                fail("a restic repository lists its own: `restic snapshots --tag ever`; `ever restore "
                     f"{dest} --snapshot ID` restores one")
            kept = snapshots(Path(dest).absolute())
            if not kept:
                fail(f"there is no backup in {dest} (no snapshots/)")
            for one in kept:
                echo(f"{one.id}  {one.manifest.messages:,} messages  {len(one.manifest.entries):,} files "
                     f"({one.manifest.bytes:,} bytes)")
            echo(f"{len(kept):,} snapshot{'' if len(kept) == 1 else 's'}, the last is the latest; "
                 f"`ever restore {dest} --snapshot ID` restores one.")
            return
        if check_only:
            verdict = check(settings.home, dest, live_view=live_view)
            if not verdict.passed:
                fail(verdict.sentence)
            echo(verdict.sentence)
            return
        try:
            manifest = back_up(settings.home, dest)
        except BackupError as error:
            fail(f"{error}.")
        echo(f"Backed up {manifest.messages:,} messages into {dest}: {len(manifest.entries):,} files "
             f"({manifest.bytes:,} bytes), each hashed in its manifest. `ever backup --check {dest}` restores "
             "it into a temporary home and compares it with this chat.")

    @click.command()
    @click.argument("src")
    @click.option("--upto", type=click.IntRange(0), default=None, help="Restore the chat as it was when message "
                  "ID was the last: the logs cut there, the tree's later lines built again by the compactor.")
    @click.option("--snapshot", default="latest", show_default=True, help="Which backup: an older one of a "
                  "folder's history (`ever backup --snapshots SRC` lists them; a prefix will do), or restic's ID.")
    def restore(src, upto, snapshot: str) -> None:
        """Restore the backup in SRC (a folder, or restic:REPOSITORY) into this home, which must be
        empty (the key alone may be there) and not open: moving the chat to another machine."""
        from harness.memory.backup import BackupError
        from harness.memory.backup import restore as restore_from

        settings = load_settings()
        try:
            manifest = restore_from(src, settings.home, upto, snapshot=snapshot)
        except BackupError as error:
            fail(f"{error}.")
        held = manifest.messages if upto is None else upto + 1
        echo(f"Restored {held:,} messages from {src} (backed up {manifest.taken}) into {settings.home}; the view and "
             "the indexes are built at the first open.")

    @click.command()
    @click.argument("ids", nargs=-1, type=click.IntRange(0), required=True)
    @click.option("--why", required=True, help="Why it goes (kept in the forget record; the text itself never is).")
    @click.option("--yes", is_flag=True, help="Forget without asking.")
    def forget(ids, why: str, yes: bool) -> None:
        """Remove messages IDS from every place Ever keeps them (the log, the tree's lines over them,
        the indexes, the inbox, the subagents' logs, the backups it manages, the pages `ever browse
        --out` wrote), then search every file for the text and its encodings to prove it is gone.
        While the chat is open (`ever serve`, `ever chat`), its owner does it between two turns."""
        from harness.memory.forget import Doomed, ForgetError, doomed, managed_dests, report_text
        from harness.memory.forget import forget as forget_them
        from harness.memory.lock import ChatBusy, ChatLock

        settings = load_settings()
        if not (settings.chat_dir / "main").is_dir():
            fail(f"there is no chat in {settings.chat_dir}: nothing to forget")
        lock = ChatLock(settings.chat_dir)
        owner = None
        try:
            lock.take(read_only=False)
        except ChatBusy as busy:
            if not (settings.chat_dir / "socket").exists():
                fail(str(busy))  # a reader, or an owner that serves no socket yet: one sentence
            owner = busy
        if owner is None:
            try:
                going = doomed(settings.home, list(ids))
            except ForgetError as error:
                fail(f"{error}.")
            finally:
                lock.release()
        else:  # [S33] the owner forgets: what goes is read from it
            listed = ask_owner({"op": "messages", "ids": sorted(set(ids))}, owner)
            going = [Doomed(m["id"], m["kind"], m["date"], m["text"]) for m in listed.get("messages", [])]
            missing = sorted(set(ids) - {m.i for m in going})
            if missing:
                count = ask_owner({"op": "status"}, owner)["status"]["messages"]
                have = f"0 to {count - 1}" if count else "no messages"
                fail(f"the chat holds messages {have}; there is no message {missing[0]} to forget.")
        dests = managed_dests(settings.home, settings.backup_dest)
        echo("These go, from the log, the tree, the indexes, the inbox, the subagents' logs"
             + (f" and {len(dests)} backup{'' if len(dests) == 1 else 's'} ({', '.join(dests)})" if dests else "")
             + "; each stays as a tombstone with its id:")
        for message in going:
            first = message.text.strip().split("\n", 1)[0]
            echo(f"  {message.i} · {message.kind} · {message.date} · {first[:100]}{'…' if len(first) > 100 else ''}")
        if not yes:
            if not sys.stdin.isatty():
                fail("forget asks first: run it on a terminal, or add --yes")
            if not click.confirm("Forget them?", default=False):
                echo("Nothing was changed.")
                return
        if owner is not None:
            answer = ask_owner({"op": "forget", "ids": [m.i for m in going], "why": why}, owner)
            if "forgotten" not in answer:
                fail(answer.get("error") or f"the chat's owner gave no answer to forget: {answer}")
            if not answer["forgotten"]["clean"]:
                fail(answer["forgotten"]["text"])
            echo(answer["forgotten"]["text"])
            return
        from harness.browse.browsing import home_page_writer

        try:
            report = forget_them(settings.home, [m.i for m in going], why, dests=dests,
                                 page=home_page_writer(settings.home))
        except ForgetError as error:
            fail(f"{error}.")
        if not report.clean:
            fail(report_text(report))
        echo(report_text(report))

    def ask_owner(request: dict, busy: Exception) -> dict:
        """One request to the chat's running owner; one sentence when it does not answer."""
        import asyncio

        from harness.owner import protocol, socket
        from harness.owner.sender import asked

        settings = load_settings()
        try:
            return asyncio.run(asked(settings, protocol.request_from(request)))
        except (socket.Unanswered, socket.Dropped) as silent:
            fail(f"{busy} It did not answer on {settings.chat_dir / 'socket'} ({silent}); nothing was forgotten.")

    return backup, restore, forget
