"""Every path under the home, `$EVER_HOME` (default `~/.ever`), in one table: what writes it, what
kind of thing it is, its mode, and a line saying what it holds. `ever files` lists the rows that
exist, `ever doctor` says each path whose mode is wider than its row's, and a backup copies by kind.
Each file's format is documented by the module that writes it.

The kinds, by what losing the file costs:

    truth        the chat itself: lost, it is lost; a backup copies it
    secret       the API key: a backup copies it only when told to
    settings     what the person wrote or chose
    checkpoint   state the truth implies, saved so an open need not rebuild it; rebuilt if lost
    cache        made again from the truth, or by the next process, at no loss to the chat

A folder's kind is the strongest of what it holds (in that order), so a backup that copies a kind
makes every folder of that kind, then copies the files of that kind's rows.

Files are 0600 and folders 0700, whatever the umask (harness/memory/logfile.py): the chat is the
user's alone. A path is a row's when it matches the row's pattern: `YYYY-MM-DD` is a day, `<...>`
one name (no dot in it), a folder ends in `/`; `<file>.tmp` is any file of the table being replaced
whole, which a crash may leave behind. `demo/` is a home of its own, laid out as this one; what
`bench/` holds is the bench's.
"""

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

TRUTH = "truth"
SECRET = "secret"
SETTINGS = "settings"
CHECKPOINT = "checkpoint"
CACHE = "cache"
KINDS = (TRUTH, SECRET, SETTINGS, CHECKPOINT, CACHE)  # the strongest first
FILE = 0o600
FOLDER = 0o700


@dataclass(frozen=True)
class Place:
    name: str  # what `ever files` calls it, at most 9 characters; a folder's ends in "/"
    path: str  # relative to the home; "" is the home itself; a folder ends in "/"
    writer: str  # the module that writes it (or who, when no module does)
    kind: str
    mode: int
    what: str
    holds: str = ""  # "home": another home, laid out as this table; "anything": not the table's

    @property
    def folder(self) -> bool:
        return self.path == "" or self.path.endswith("/")


PLACES = (
    Place("home", "", "harness/chat/config.py", TRUTH, FOLDER,
          "the home: the chat, its settings and the key"),
    Place("config", "config.toml", "harness/chat/config.py", SETTINGS, FILE,
          "the settings: written by the person, or by /memory-model (the rest kept as it was)"),
    Place("prompt", "instructions.md", "the person (read by harness/calls/prompt.py)", SETTINGS, FILE,
          "the person's own instructions, after the system prompt"),
    Place("key", "key", "harness/chat/config.py", SECRET, FILE,
          "the API key, when ANTHROPIC_API_KEY is not set; refused while others may read it"),
    Place("history", "history", "harness/chat/terminal.py", CACHE, FILE,
          "the lines typed in `ever chat`, the key hidden, for Up: a convenience, not the log"),
    Place("models", "models.json", "harness/calls/capabilities.py", CACHE, FILE,
          "the Models API's answer, dated: each model's window, output cap and what it takes"),
    Place("tokens", "tokens.json", "harness/imports/tokens.py", CACHE, FILE,
          "the API's count of a sample of notes an import weighed: its bytes per token [I6]"),
    Place("chat", "chat/", "harness/memory/store.py", TRUTH, FOLDER,
          "the chat: its logs and what is made from them"),
    Place("lock", "chat/lock", "harness/memory/lock.py", CACHE, FILE,
          "flock'd by the process that owns the chat, its pid inside; empty once it closed"),
    Place("socket", "chat/socket", "harness/owner/socket.py", CACHE, FILE,
          "the owner's Unix socket, while it runs: how `ever send` and other terminals reach it"),
    Place("main/", "chat/main/", "harness/memory/daylog.py", TRUTH, FOLDER, "the messages' day files"),
    Place("messages", "chat/main/YYYY-MM-DD.jsonl", "harness/memory/store.py", TRUTH, FILE,
          "the messages, one line each, appended and fsync'd, never edited"),
    Place("tree/", "chat/tree/", "harness/memory/daylog.py", TRUTH, FOLDER, "the tree's day files"),
    Place("nodes", "chat/tree/YYYY-MM-DD.jsonl", "harness/memory/store.py", TRUTH, FILE,
          "the tree's nodes, one line each with the T it was built at [gist §2]"),
    Place("view", "chat/view.json", "harness/memory/service.py", CHECKPOINT, FILE,
          "the planner's checkpoint [P10], replaced whole; checked against the logs at open"),
    Place("inbox", "chat/inbox.jsonl", "harness/memory/inbox.py", TRUTH, FILE,
          "messages accepted and not yet answered [S9]"),
    Place("images/", "chat/images/", "harness/memory/images.py", TRUTH, FOLDER, "the images tools gave"),
    Place("image", "chat/images/<sha256>.<ext>", "harness/memory/images.py", TRUTH, FILE,
          "an image a tool gave, named by the SHA-256 of its bytes, kept for zoom"),
    Place("index/", "chat/index/", "harness/memory/index.py", CACHE, FOLDER, "the store's index [S7]"),
    Place("index", "chat/index/meta.json", "harness/memory/index.py", CACHE, FILE,
          "what the index covers; rebuilt from the logs when lost or stale [S7]"),
    Place("entries", "chat/index/index-<generation>.bin", "harness/memory/index.py", CACHE, FILE,
          "where each message and node starts, as int64s"),
    Place("damage/", "chat/damage/", "harness/memory/damage.py", TRUTH, FOLDER,
          "what `ever doctor --repair` set aside, and the ids lost [S13]"),
    Place("damage", "chat/damage/record.jsonl", "harness/memory/damage.py", TRUTH, FILE,
          "the ids lost and the lines set aside: an id is never given twice [S13]"),
    Place("set aside", "chat/damage/<log>-YYYY-MM-DD.jsonl", "harness/memory/damage.py", TRUTH, FILE,
          "the damaged lines of one day file, byte for byte [S13]"),
    Place("search", "chat/search.sqlite", "harness/memory/search.py", CACHE, FILE,
          "every message's words, for `ever search` and the search tool [R1]"),
    Place("journal", "chat/search.sqlite-journal", "harness/memory/search.py", CACHE, FILE,
          "SQLite's journal while the search index is written"),
    Place("agents/", "chat/agents/", "harness/memory/agentlog.py", TRUTH, FOLDER, "the subagents' logs"),
    Place("subagents", "chat/agents/<Name>.jsonl", "harness/memory/agentlog.py", TRUTH, FILE,
          "a subagent's steps, its end, and where its report went"),
    Place("usage/", "chat/usage/", "harness/calls/usage.py", TRUTH, FOLDER, "the calls' usage"),
    Place("usage", "chat/usage/YYYY-MM-DD.jsonl", "harness/calls/usage.py", TRUTH, FILE,
          "each API call's tokens, for `ever cost`"),
    Place("forgotten", "chat/forgotten.jsonl", "harness/memory/forget.py", TRUTH, FILE,
          "what `ever forget` removed: the ids, when, why and a hash, never the text [S23]"),
    Place("backups", "chat/backup.json", "harness/memory/backup_state.py", CACHE, FILE,
          "the backups made from this home, when each was taken and last checked [S20]"),
    Place("page", "chat/memory.html", "harness/browse/browsing.py", CACHE, FILE,
          "`ever browse`'s page of the whole memory, when no --out is given"),
    Place("pages", "chat/pages.json", "harness/memory/pages.py", CACHE, FILE,
          "where `ever browse --out` wrote a page, for `ever forget` to make each anew [B5]"),
    Place("replacing", "<file>.tmp", "harness/memory/logfile.py", CACHE, FILE,
          "a file being replaced whole; a crash may leave it, and the next write replaces it"),
    Place("demo/", "demo/", "harness/chat/demo.py", CACHE, FOLDER,
          "`ever chat --local`'s chat: a home of its own, on a local API that echoes", holds="home"),
    Place("bench/", "bench/", "harness/bench/recall.py", CACHE, FOLDER,
          "`ever bench recall`'s chats, each with its bench's files", holds="anything"),
)
PARTS = re.compile(r"YYYY-MM-DD|<[^>]+>")


def _pattern(path: str) -> re.Pattern:
    pieces = []
    at = 0
    for part in PARTS.finditer(path):
        pieces.append(re.escape(path[at:part.start()]))
        # a name holds no dot: no row's names do, so `NAME.tmp` is never a row's own
        pieces.append(r"\d{4}-\d{2}-\d{2}" if part[0] == "YYYY-MM-DD" else r"[^/.]+")
        at = part.end()
    pieces.append(re.escape(path[at:]))
    return re.compile("".join(pieces))


PATTERNS = tuple((_pattern(place.path), place) for place in PLACES if not place.path.startswith("<file>"))
REPLACING = next(place for place in PLACES if place.path == "<file>.tmp")


def place_of(relative: str) -> Place | None:
    """The row a path belongs to, given relative to the home with "/" between its parts and a
    folder's ending in "/"; None when no row declares it."""
    for pattern, place in PATTERNS:
        if pattern.fullmatch(relative):
            return place
        if place.holds and relative.startswith(place.path):
            if place.holds == "anything":
                return place
            return place if place_of(relative[len(place.path):]) is not None else None
    if relative.endswith(".tmp"):
        replaced = place_of(relative[: -len(".tmp")])
        if replaced is not None and not replaced.folder:
            return REPLACING
    return None


def walk(home: Path) -> list[tuple[str, os.stat_result]]:
    """Every path under the home (and the home), relative as `place_of` takes them, with its
    lstat; what a row that holds anything holds is not walked."""
    found = []
    try:
        found.append(("", os.lstat(home)))
    except FileNotFoundError:
        return []
    folders = [""]
    while folders:
        folder = folders.pop()
        with os.scandir(home / folder) as entries:
            for entry in entries:
                status = entry.stat(follow_symlinks=False)
                relative = folder + entry.name + ("/" if stat.S_ISDIR(status.st_mode) else "")
                found.append((relative, status))
                if stat.S_ISDIR(status.st_mode):
                    place = place_of(relative)
                    if place is None or place.holds != "anything" or place.path != relative:
                        folders.append(relative)
    return sorted(found)


def undeclared(home: Path) -> list[str]:
    """The paths under the home that no row declares."""
    return [relative for relative, _ in walk(home) if place_of(relative) is None]


def present(home: Path) -> list[Place]:
    """The rows that have a path under the home, in the table's order."""
    seen = {place_of(relative) for relative, _ in walk(home)}
    return [place for place in PLACES if place in seen]


def wider_modes(home: Path) -> list[str]:
    """One sentence for each path whose mode lets more in than its row's (a link is not a
    file of Ever's and has no mode of its own)."""
    said = []
    for relative, status in walk(home):
        place = place_of(relative)
        if place is None or stat.S_ISLNK(status.st_mode):
            continue
        mode = stat.S_IMODE(status.st_mode)
        if mode & ~place.mode:
            path = home / relative
            said.append(f"{path} is {mode:04o}, open wider than the {place.mode:04o} Ever keeps it at: "
                        f"chmod {place.mode:o} {path}")
    return said
