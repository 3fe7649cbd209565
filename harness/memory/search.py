"""Search: every message found by its words, on SQLite's full-text index (FTS5) [R1].

The gist gives the model two tools to reach its memory, zoom and date [gist §6]; a word the view's
lines dropped can then only be found by zooming down a guess. Search finds it in one call: each
hit names its message and the view line that covers it, so zoom goes on from there.

The index is a cache, as the store's own index is: the logs are the truth [S7]. It is the one
file of the chat kept outside the disk the store was given (harness/memory/disk.py): SQLite reads
and writes it through its own layer, and a disk that loses it loses nothing the logs cannot give
back at the next search.

`chat/search.sqlite` (harness/memory/home.py) holds an FTS5 table of the messages' texts
(contentless: the texts stay in the log, the index keeps only what finds them), and `meta` with the
number of messages indexed and the date and size of the last one.

`sync` adds the messages logged since the last call, in one transaction, so the index is current
at every search and costs nothing between searches. If the file is lost, damaged, of another
format, or disagrees with the log (more messages than the chat, or its last one not the log's),
it is rebuilt from the logs. On a read-only chat the index lives in memory for the call.

A query is words: each is matched as a phrase (so `PANGOLIN-73` and `a.b/c` need no escaping;
FTS5's own syntax is not exposed), all of them first; if no message holds all, any of them.
Hits are ranked by BM25, newer first among equals. A query held by more than
`RANKED_MATCHES_MAX` messages ranks the newest that many and says there are more [R4]: BM25 over
every match of a common word costs seconds on a long chat (it scores each one), and pages past
the first thousand are read by no one. Only messages are indexed, not the tree's
lines: a line is made of its messages' words, and the hit names the line that covers it. The
model's own search calls and their results are left out: each would be found by the next search
for the same words.
"""

import hashlib
import os
import re
import sqlite3
import stat
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from harness.memory.store import Store
from harness.memory.text import valid_text

SEARCH_FILE = "search.sqlite"
SEARCH_FORMAT = 1
HITS_PER_PAGE = 10
SNIPPET_CHARS = 160
SYNC_BATCH = 5000
# the index's one table, as SQLite keeps its text (`sqlite_master.sql`, its first words upper case)
MESSAGES_TABLE = ("CREATE VIRTUAL TABLE messages using fts5(text, content='', "
                  "tokenize='unicode61 remove_diacritics 2')")
QUERY_CHARS_MAX = 1000
RANKED_MATCHES_MAX = 10_000  # [R4] matches counted and ranked; past it, the newest

Node = tuple[int, int]


class SearchError(Exception):
    """A query that cannot be run, said in one sentence."""


@dataclass(frozen=True)
class Hit:
    id: int
    date: str
    kind: str
    snippet: str
    line: str  # the view line that covers the message, `id+n`

    def as_dict(self) -> dict:
        return {"id": self.id, "date": self.date, "kind": self.kind, "snippet": self.snippet,
                "line": self.line}


@dataclass(frozen=True)
class Found:
    query: str
    hits: tuple[Hit, ...]
    total: int
    page: int
    pages: int
    any_word: bool  # no message held every word: these hold some
    more: bool = False  # more than `total` messages match; the newest `total` are ranked [R4]

    def as_dict(self) -> dict:
        return {"query": self.query, "hits": [hit.as_dict() for hit in self.hits], "total": self.total,
                "page": self.page, "pages": self.pages, "any_word": self.any_word, "more": self.more}

    @classmethod
    def from_dict(cls, found: dict) -> "Found":
        """A `Found` as `as_dict` gave it, e.g. answered by the chat's owner."""
        return cls(found["query"], tuple(Hit(**hit) for hit in found["hits"]), found["total"], found["page"],
                   found["pages"], found["any_word"], found.get("more", False))


def words(query: str) -> list[str]:
    """The query's words: runs of non-space text, or "quoted phrases" kept whole."""
    found = []
    for quoted, word in re.findall(r'"([^"]*)"|(\S+)', query):
        text = (quoted or word).strip()
        if text:
            found.append(text)
    return found


def match_expression(terms: Sequence[str], joiner: str) -> str:
    """Each term as an FTS5 string (a phrase), so no character of it is FTS5 syntax."""
    return f" {joiner} ".join('"' + term.replace('"', '""') + '"' for term in terms)


def snippet(text: str, terms: Sequence[str], chars: int = SNIPPET_CHARS) -> str:
    """About `chars` characters of `text` around the first term found in it, on one line."""
    folded = text.casefold()
    places = [place for place in (folded.find(term.casefold()) for term in terms) if place >= 0]
    start = max(0, min(places) - chars // 3) if places else 0
    piece = " ".join(text[start:start + chars].split())
    return ("…" if start > 0 else "") + piece + ("…" if start + chars < len(text) else "")


def is_search_call(record: dict, before: dict | None) -> bool:
    """A search call of the model's, or its result: not indexed, since each would be found by the
    next search for the same words, crowding out the messages that hold them."""
    if record["kind"] == "tool":
        return record["text"].startswith("search {")
    return record["kind"] == "echo" and before is not None and is_search_call(before, None)


def covering_line(lines: Sequence[Node], message: int) -> str:
    """The view line `id+n` that covers `message`: the view's lines tile the chat, oldest first."""
    starts = [i << l for l, i in lines]
    k = bisect_right(starts, message) - 1
    if k < 0:
        return f"{message}+1"
    l, i = lines[k]
    if message >= (i + 1) << l:  # a message logged after the view was rendered
        return f"{message}+1"
    return f"{i << l}+{1 << l}"


class SearchIndex:
    """The full-text index of one chat's messages."""

    def __init__(self, connection: sqlite3.Connection, store: Store):
        self.connection = connection
        self.store = store

    @classmethod
    def open(cls, store: Store) -> "SearchIndex":
        """The chat's index, made or rebuilt as needed, then brought up to the log's last message."""
        # A chat opened read-only (`ever search` with no owner) still keeps its index on disk when
        # the disk allows: the index is a cache, not the log, and rebuilding it costs seconds.
        path = Path(store.chat) / SEARCH_FILE
        try:
            connection = cls._connect(path if os.access(store.chat, os.W_OK) else None)
        except OSError:  # a link or a foreign file in its place: the index lives in memory
            connection = cls._connect(None)
        index = cls(connection, store)
        try:
            if not index._usable():
                index._reset()
        except sqlite3.DatabaseError:  # not a database, or damaged: the logs are the truth
            index.close()
            path.unlink(missing_ok=True)
            index = cls(cls._connect(path), store)
            index._reset()
        index.sync()
        return index

    @staticmethod
    def _connect(path: Path | None) -> sqlite3.Connection:
        if path is None:
            return sqlite3.connect(":memory:", isolation_level=None)
        try:  # [H17] a FIFO, a device or a folder in its place is no index: opening it would hang
            if not stat.S_ISREG(os.lstat(path).st_mode):
                raise OSError(f"{path} is not a regular file")
        except FileNotFoundError:
            pass
        try:  # 0600 from the start, as every file of the chat; never through a link, never waiting
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600))
        except FileExistsError:
            pass
        return sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)

    def close(self) -> None:
        self.connection.close()

    def _meta(self) -> dict:
        try:
            return dict(self.connection.execute("select k, v from meta").fetchall())
        except sqlite3.DatabaseError:
            return {}

    def _usable(self) -> bool:
        meta = self._meta()
        if meta.get("format") != SEARCH_FORMAT or not isinstance(meta.get("indexed"), int):
            return False
        indexed = meta["indexed"]
        if indexed > self.store.count:
            return False
        # [H17] an index is a file anyone with the chat's rights may have written: its table must
        # be the one made here and hold no message the chat has not given, or it is made again
        schema = self.connection.execute("select sql from sqlite_master where name = 'messages'").fetchone()
        if schema != (MESSAGES_TABLE,):
            return False
        first = self.connection.execute("select rowid from messages order by rowid limit 1").fetchone()
        last = self.connection.execute("select rowid from messages order by rowid desc limit 1").fetchone()
        if first is not None and not (0 <= first[0] and last[0] < indexed):
            return False
        if meta.get("aside") != self.aside():  # [H17] a message set aside since is found no more
            return False
        if indexed == 0:
            return True
        last = self.store.message(indexed - 1)
        return meta.get("last") == f"{last['date']} {last['size']}"

    def _reset(self) -> None:
        with self._transaction():
            self.connection.execute("drop table if exists messages")
            self.connection.execute("drop table if exists meta")
            self.connection.execute(MESSAGES_TABLE)
            self.connection.execute("create table meta(k text primary key, v)")
            self.connection.executemany("insert into meta values (?, ?)",
                                        [("format", SEARCH_FORMAT), ("indexed", 0), ("last", ""),
                                         ("aside", self.aside())])

    def aside(self) -> str:
        """[H17] What the damage record sets aside and names lost, as a fingerprint: an index made
        before the record changed holds the text of lines set aside since, so it is made again."""
        record = getattr(getattr(self.store, "index", None), "record", None)
        if record is None:
            return ""
        named = repr((sorted(record.lost), sorted(record.set_aside.items())))
        return hashlib.sha256(named.encode()).hexdigest()[:16]

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """`begin immediate` … `commit`: the owner and an `ever search` may sync at once, and
        each batch reads what is indexed inside the write lock, so no message goes in twice."""
        self.connection.execute("begin immediate")
        try:
            yield
        except BaseException:
            self.connection.execute("rollback")
            raise
        self.connection.execute("commit")

    def indexed(self) -> int:
        return self._meta().get("indexed", 0)

    def sync(self) -> int:
        """Index the messages logged since the last sync; how many were added."""
        count = self.store.count
        added = 0
        while True:
            with self._transaction():  # one transaction a batch: a kill leaves whole batches
                start = self.indexed()
                if start >= count:
                    return added
                stop = min(count, start + SYNC_BATCH)
                records = self.store.messages(max(0, start - 1), stop)
                kept = [(record["i"], record["text"]) for before, record in zip([None, *records], records)
                        if record["i"] >= start and not is_search_call(record, before)]
                self.connection.executemany("insert into messages(rowid, text) values (?, ?)", kept)
                last = records[-1]
                self.connection.execute("update meta set v = ? where k = 'indexed'", (stop,))
                self.connection.execute("update meta set v = ? where k = 'last'",
                                        (f"{last['date']} {last['size']}",))
            added += stop - start

    def search(self, query: str, lines: Sequence[Node], page: int = 1,
               per_page: int = HITS_PER_PAGE) -> Found:
        """The query's hits, best first, page `page` of them (each page `per_page` hits)."""
        if "\0" in query:  # [S27] SQLite cannot bind it: said, not raised
            raise SearchError("a search cannot hold a NUL character; search for the words around it")
        query = valid_text(query)  # [S27] a lone surrogate (bytes not UTF-8) becomes U+FFFD
        if len(query) > QUERY_CHARS_MAX:
            raise SearchError(f"a search is at most {QUERY_CHARS_MAX:,} characters; this one has {len(query):,}")
        terms = words(query)
        if not terms:
            raise SearchError("search for at least one word")
        if page < 1:
            raise SearchError(f"page must be 1 or more, not {page}")
        self.sync()
        any_word = False
        total = self._count(match_expression(terms, "AND"))
        expression = match_expression(terms, "AND")
        if total == 0 and len(terms) > 1:
            expression = match_expression(terms, "OR")
            total = self._count(expression)
            any_word = total > 0
        more, newest = total > RANKED_MATCHES_MAX, 0
        if more:  # [R4] rank the newest RANKED_MATCHES_MAX: those from the oldest of them on
            total = RANKED_MATCHES_MAX
            (newest,) = self.connection.execute(
                "select rowid from messages where messages match ? order by rowid desc limit 1 offset ?",
                (expression, RANKED_MATCHES_MAX - 1)).fetchone()
        pages = max(1, -(-total // per_page))
        rows = self.connection.execute(
            "select rowid from messages where messages match ? and rowid >= ? order by rank, rowid desc "
            "limit ? offset ?", (expression, newest, per_page, (page - 1) * per_page)).fetchall()
        hits = []
        for (message,) in rows:
            record = self.store.message(message)
            hits.append(Hit(message, str(record["date"]), record["kind"], snippet(record["text"], terms),
                            covering_line(lines, message)))
        return Found(query, tuple(hits), total, page, pages, any_word, more)

    def _count(self, expression: str) -> int:
        """The messages that match, counted up to one past RANKED_MATCHES_MAX [R4]."""
        return self.connection.execute(
            "select count(*) from (select rowid from messages where messages match ? limit ?)",
            (expression, RANKED_MATCHES_MAX + 1)).fetchone()[0]


def found_text(found: Found) -> str:
    """The hits as the model and a person read them: one line each, then where more are."""
    if not found.hits:
        return f"search: no message holds {' or '.join(repr(term) for term in words(found.query))}"
    held = "hold some of the words" if found.any_word else "match"
    if found.more:
        head = (f"more than {found.total:,} messages {held}; the newest {found.total:,} are ranked; "
                f"page {found.page} of {found.pages}")
    else:
        head = f"{found.total:,} message{'' if found.total == 1 else 's'} {held}; page {found.page} of {found.pages}"

    rows = [f"{hit.id} (in {hit.line}) {hit.date} {hit.kind}: {hit.snippet}" for hit in found.hits]
    return "\n".join([head, *rows])


def run_search(store: Store, lines: Sequence[Node], query: str, page: int = 1,
               per_page: int = HITS_PER_PAGE) -> Found | None:
    """Open the index, search, close: for a process that searches once. [S27] An index SQLite
    cannot make or read (a full disk) is a sentence, never the end of the turn that searched."""
    try:
        index = SearchIndex.open(store)
    except sqlite3.Error as error:
        raise SearchError(f"the search index could not be made ({error}); the log is whole, and "
                          "zoom still reads it") from None
    try:
        return index.search(query, lines, page, per_page)
    except sqlite3.Error as error:
        raise SearchError(f"the search index could not be read ({error}); the log is whole, and "
                          "zoom still reads it") from None
    finally:
        index.close()
