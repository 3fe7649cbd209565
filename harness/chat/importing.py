"""`ever import`: old sessions as notes [gist §1] (harness/chat/imports/ reads them and writes
them once); here, what the person sees: what will be added, what it will cost, a question when
that is a lot, and a progress bar."""

import sys
from typing import Callable, Optional, Sequence

import click
from tqdm import tqdm

from harness.chat.config import Settings
from harness.chat.imports import SOURCE_NAMES, ImportFailed, plan, write
from harness.memory.service import Memory

ASK_COMPACTIONS = 500  # above this many estimated compactions, the import asks before it starts


def counted(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def run_import(settings: Settings, paths: Sequence[str], fmt: Optional[str], yes: bool,
               say: Callable[[str], None] = click.echo) -> None:
    memory = Memory.open(settings.home)
    try:
        todo = plan(paths, fmt, memory.store.keys(), own=settings.chat_dir)
        for path, this, notes, skipped in todo.files:
            note = f"; {counted(skipped, 'line')} not read (not JSON, or no time)" if skipped else ""
            say(f"{path}: {counted(notes, 'note')} ({SOURCE_NAMES[this]}){note}")
        for path, why in todo.passed_over:
            say(f"{path}: not imported: {why}")
        summaries, merges = todo.summaries_and_merges
        already = f" ({todo.present:,} already in the chat)" if todo.present else ""
        if not todo.messages:
            say(f"Nothing to add{already}.")
            return
        say(f"{counted(len(todo.messages), 'message')} to add as notes{already}; about "
            f"{counted(summaries + merges, 'compaction')} ({summaries:,} summaries of long notes, "
            f"{merges:,} merges), run by the next `ever chat`.")
        if summaries + merges > ASK_COMPACTIONS and not yes:
            if not sys.stdin.isatty():
                raise ImportFailed(f"that is over {ASK_COMPACTIONS:,} compactions, so the import asks first; "
                                   "run it again with --yes to go on")
            if not click.confirm("Go on?", default=False):
                say("Nothing imported.")
                return
        first = memory.store.count
        with tqdm(total=len(todo.messages), unit="note", file=sys.stderr, disable=None) as bar:
            written = write(memory, todo.messages, bar.update)
        say(f"Added {counted(written, 'note')}: messages {first:,} to {first + written - 1:,}."
            if written else "Nothing added.")
    finally:
        memory.close()
