"""`ever import`: old sessions as notes [gist §1] (harness/imports/ reads them and writes
them once); here, what the person sees: what will be added, what it will cost, a question when
that is a lot, and a progress bar."""

import json
import sys
from collections.abc import Callable, Sequence

import click
from tqdm import tqdm

from harness.calls.anthropic import wire_system, wire_tools
from harness.calls.models import capabilities
from harness.calls.prompt import Prompt
from harness.chat.config import Settings
from harness.imports.formats import NAMED
from harness.imports.rules import (
    CALL_SECONDS,
    Cost,
    ImportFailed,
    estimate_compactions,
    estimate_cost,
    plan,
    write,
)
from harness.imports.tokens import measured
from harness.memory.planner import Config
from harness.memory.service import Memory

ASK_COMPACTIONS = 500  # above this many estimated compactions, the import asks before it starts


def counted(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def compaction_model(settings: Settings) -> str:
    return settings.model if settings.memory_model == "turns" else settings.memory_model


def prefix_bytes(settings: Settings) -> int:
    """The bytes of the prefix every call shares: the tools and the system prompt, as sent."""
    prompt = Prompt.load(str(settings.home))
    return len(json.dumps([wire_tools(prompt.tools), wire_system(prompt.system)], ensure_ascii=False).encode("utf-8"))


def duration(seconds: int) -> str:
    if seconds < 120:
        return counted(seconds, "second")
    if seconds < 2 * 3600:
        return counted(round(seconds / 60), "minute")
    return f"{seconds / 3600:,.1f} hours"


def cost_sentence(cost: Cost, model: str, jobs_max: int) -> str:
    """The bound in words, every figure an upper bound by its rule (`Cost`)."""
    tokens = (f"about {cost.cache_read_tokens + cost.cache_write_tokens:,} input tokens at most "
              f"({cost.cache_read_tokens:,} read from the cache, {cost.cache_write_tokens:,} written to it) "
              f"and {cost.output_tokens:,} output tokens")
    dollars = (f"about ${cost.cents / 100:,.2f} at {model}'s list prices" if cost.cents is not None
               else f"a price unknown: {model} is not in harness/calls/models.py's table")
    return (f"That is {tokens}: {dollars}; about {duration(cost.seconds)} with {jobs_max} calls at once "
            f"(taken at {CALL_SECONDS} seconds a call).")


def weighed_sentences(likely: Cost, bound: Cost, model: str, jobs_max: int) -> str:
    """[I6] The likely figure first (the API's count of a sample), then the bound beside it."""
    dollars = (f"about ${likely.cents / 100:,.2f} at its list prices" if likely.cents is not None
               else f"a price unknown: {model} is not in harness/calls/models.py's table")
    first = (f"That is about {likely.cache_read_tokens + likely.cache_write_tokens:,} input tokens "
             f"({likely.cache_read_tokens:,} read from the cache, {likely.cache_write_tokens:,} written to it) "
             f"and {likely.output_tokens:,} output tokens by {model}'s count of a sample of the notes: "
             f"{dollars}; about {duration(likely.seconds)} with {jobs_max} calls at once "
             f"(taken at {CALL_SECONDS} seconds a call).")
    worst = f", ${bound.cents / 100:,.2f}" if bound.cents is not None else ""
    second = (f"At most {bound.cache_read_tokens + bound.cache_write_tokens:,} input tokens and "
              f"{bound.output_tokens:,} output tokens{worst}, were every byte a token and every line "
              "512 bytes.")
    return first + "\n" + second


def run_import(settings: Settings, paths: Sequence[str], fmt: str | None, yes: bool,
               say: Callable[[str], None] = click.echo) -> None:
    memory = Memory.open(settings.home)
    try:
        todo = plan(paths, fmt, memory.store.keys(), own=settings.chat_dir)
        adding = {}
        for message in todo.messages:
            added, pages, long = adding.get(message.file, (0, 0, 0))
            split = message.parts > 1
            adding[message.file] = (added + 1, pages + split, long + (split and message.key.endswith(".1")))
        for path, this, notes, skipped, empty_because in todo.files:
            note = f"; {counted(skipped, 'line')} not read (not JSON, or no time)" if skipped else ""
            note += f": {empty_because}" if empty_because and not notes else ""
            added, pages, long = adding.get(str(path), (0, 0, 0))
            if added != notes:  # pages of long notes, repeats kept once, notes already in the chat [I2] [I3] [I4]
                note += f"; {counted(added, 'message')} to add from it"
                note += f" ({counted(long, 'long note')} in {counted(pages, 'page')})" if long else ""
            say(f"{path}: {counted(notes, 'note')} ({NAMED[this].source_name}){note}")
        for path, why in todo.passed_over:
            say(f"{path}: not imported: {why}")
        first = memory.store.count
        summaries, merges = estimate_compactions(todo.sizes, first)
        already = f" ({todo.present:,} already in the chat)" if todo.present else ""
        if not todo.messages:
            say(f"Nothing to add{already}.")
            return
        say(f"{counted(len(todo.messages), 'message')} to add as notes{already}; about "
            f"{counted(summaries + merges, 'compaction')} ({summaries:,} summaries of long notes, "
            f"{merges:,} merges), run by the next `ever chat`.")
        model = compaction_model(settings)
        found = capabilities(model)
        jobs_max = Config().jobs_max
        price = found.price if found is not None else None
        prefix = prefix_bytes(settings)
        cost = estimate_cost(todo.sizes, price, prefix, jobs_max, first)
        prompt = Prompt.load(str(settings.home))
        weight = measured(settings, model, [m.text for m in todo.messages], wire_system(prompt.system),
                          wire_tools(prompt.tools))
        if weight is None:
            say(cost_sentence(cost, model, jobs_max))
        else:
            likely = estimate_cost(todo.sizes, price, prefix, jobs_max, first, weight)
            say(weighed_sentences(likely, cost, model, jobs_max))
        if summaries + merges > ASK_COMPACTIONS and not yes:
            if not sys.stdin.isatty():
                raise ImportFailed(f"that is over {ASK_COMPACTIONS:,} compactions, so the import asks first; "
                                   "run it again with --yes to go on")
            if not click.confirm("Go on?", default=False):
                say("Nothing imported.")
                return
        with tqdm(total=len(todo.messages), unit="note", file=sys.stderr, disable=None) as bar:
            written = write(memory, todo.messages, bar.update)
        say(f"Added {counted(written, 'note')}: messages {first:,} to {first + written - 1:,}."
            if written else "Nothing added.")
    finally:
        memory.close()
