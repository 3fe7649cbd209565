"""Facts planted in a chat, and the exact score of an answer about each [M1] [M2].

`ever bench recall` (harness/bench/recall.py) asks a fresh turn about facts it knows the place of.
This module makes the chat and judges the answers; it calls no model.

    chat = generate(seed=7, messages=10_000)        # a synthetic chat and its planted facts
    write(memory, chat, as_notes=False)             # into a chat, as turns (or as notes)
    score(chat.facts[0], "src/ingest/loaders/x.py") # "right", "wrong" or "superseded"
    load("longmemeval_s.json") / load("locomo10.json")   # the published benchmarks, as chats

**The generator.** Seeded: the same seed and size give the same chat, byte for byte. The chat is
a run of exchanges as a coding agent's chat has them: a user message, zero to four tool calls each
with its result, a reply. At 10,000 messages about three in five are of 1–150 bytes (tool calls,
short words: free nodes), a quarter of 300–1,500 and an eighth of 1,500–6,000 (long tool output);
docs/recall.md has the figures. The filler speaks of the same things the facts do (other paths, other commands, other
numbers with the same units, topics never decided), so an answer cannot be guessed from the
filler's words, and only the planted message holds a fact's value. Six kinds, spread evenly over
the chat:

- `decision`: the user decides on a choice for a topic, and says why. Asked: what was decided
  and why. Right when the answer names the choice and the reason's key words.
- `path`: a tool's output says which file holds a thing. Asked: which file. Right when the answer
  holds the path.
- `command`: the user asks for a task, and the next message is the shell call that did it. Asked:
  the exact command. Right when the answer holds the command.
- `number`: a measurement with its unit in a tool's output. Asked: the measurement. Right when
  the answer holds the same number with the same unit (`347 ms`, `347ms`, `347 milliseconds`).
- `instruction`: a standing instruction, changed later once or twice. Asked: what it is now.
  Right when the answer holds the latest value and no earlier one; `superseded` when it holds an
  earlier one ([M2]: the latest word wins, as the gist's prompt says).
- `finding`: a subagent's report (`work`, "[Name] report: …"). Asked: what the subagent found.
  Right when the answer names the culprit it named.

**Exact scoring** [M2]. An answer and each expected value are normalised the same way: Unicode
NFKC, casefolded (paths and commands keep their case), markdown quotes and emphasis (`` ` ``, `*`,
`"`, `'`) and a leading `$ ` removed, runs of white space made one space; hyphens count as spaces
in a reason's key words. A value is found when it occurs in the answer between word boundaries.
A question asks for the answer alone, so naming an old value of an instruction next to the new one
is not exact. Loaded benchmarks' answers are free text: found as the same normalised words in
order, a lenient proxy that `--judge MODEL` checks with a model when asked.

**Loaders.** LongMemEval (`longmemeval_s.json`, `_m`, `_oracle`: a list of instances, each with
its own `haystack_sessions`, lists of `{"role", "content", "has_answer"}` turns, dated by
`haystack_dates`) gives one chat per instance; LoCoMo (`locomo10.json`: a list of samples, each a
`conversation` of `session_N` lists of `{"speaker", "dia_id", "text"}` dated by
`session_N_date_time`, and `qa` items `{"question", "answer", "evidence", "category"}`, the
evidence being the `dia_id`s of the turns that hold the answer) gives one chat per sample. Items without an answer (LoCoMo's adversarial category) are counted as
passed over, never scored.
"""

import json
import random
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

KINDS = ("decision", "path", "command", "number", "instruction", "finding")
PER_KIND_MAX = 6  # as many standing instructions as the generator knows
ANSWER_ALONE = "Reply with the answer alone, in one line."
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


class LoadFailed(Exception):
    """A benchmark file that cannot be read, said in one sentence."""


@dataclass(frozen=True)
class Fact:
    """A fact planted at message `id` (the latest word on it), the question about it and what an
    exact answer holds. `ids` are every message that holds a part of it (an instruction's earlier
    values, a command's request), `needles` the text each of them holds, in the same order."""

    kind: str
    id: int
    question: str
    expected: tuple[str, ...]  # every one must be in the answer
    superseded: tuple[str, ...] = ()  # none may be
    ids: tuple[int, ...] = ()
    needles: tuple[str, ...] = ()
    case: bool = False  # paths and commands keep their case
    label: str = ""  # a loaded benchmark's own question id and category


@dataclass
class Chat:
    """Messages in order (kind, text, date) and the facts planted in them; ids count from 0."""

    name: str
    messages: list[tuple[str, str, datetime]] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    passed_over: int = 0  # a loaded benchmark's questions that have no answer to score


# ---------------------------------------------------------------- scoring


def normal(text: str, case: bool = False) -> str:
    text = unicodedata.normalize("NFKC", text)
    if not case:
        text = text.casefold()
    text = re.sub(r"[`*\"“”‘’]|(?<!\w)'|'(?!\w)", " ", text)
    text = re.sub(r"(^|\n)\s*\$ ", r"\1", text)
    return " ".join(text.split())


UNITS = {"ms": ("ms", "millisecond", "milliseconds", "msec"), "s": ("s", "sec", "second", "seconds"),
         "MB": ("mb", "megabyte", "megabytes"), "GB": ("gb", "gigabyte", "gigabytes"),
         "KiB": ("kib", "kibibyte", "kibibytes"), "%": ("%", "percent", "per cent"),
         "req/s": ("req/s", "requests/s", "requests per second", "rps")}
NUMBER_WITH_UNIT = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(%|req/s|requests/s|requests per second|per cent|"
                              r"[a-z]+)", re.IGNORECASE)


def measures(text: str) -> list[tuple[str, str]]:
    """Every number with a unit the table knows, as (number without separators, canonical unit)."""
    found = []
    for number, unit in NUMBER_WITH_UNIT.findall(unicodedata.normalize("NFKC", text)):
        unit = unit.casefold()
        for canonical, names in UNITS.items():
            if unit in names:
                found.append((number.replace(",", ""), canonical))
    return found


def plain(text: str) -> str:
    """Free text as SQuAD's scorers compare it: casefolded, punctuation and articles dropped."""
    text = re.sub(r"[^\w\s]", " ", normal(text))
    return " ".join(word for word in text.split() if word not in ("a", "an", "the"))


def holds(answer: str, value: str, case: bool = False) -> bool:
    """The value, normalised, between word boundaries of the answer, normalised."""
    value = normal(value, case)
    if not value:
        return False
    pattern = r"(?<![\w/.-])" + re.escape(value) + r"(?![\w/-])"
    return re.search(pattern, normal(answer, case)) is not None


def score(fact: Fact, answer: str) -> str:
    """"right", "wrong" or "superseded" [M2]: see the module's text."""
    if fact.kind == "number":
        wanted = measures(fact.expected[0])
        right = bool(wanted) and wanted[0] in measures(answer)
    elif fact.kind == "decision":
        choice, reason = fact.expected
        right = holds(answer, choice) and holds(answer.replace("-", " "), reason.replace("-", " "))
    elif fact.kind == "answer":  # a loaded benchmark's free text: the same words, in order
        right = all(holds(plain(answer), plain(value)) for value in fact.expected)
    else:
        right = all(holds(answer, value, fact.case) for value in fact.expected)
    if any(holds(answer, old, fact.case) for old in fact.superseded):
        return "superseded"
    return "right" if right else "wrong"


# ---------------------------------------------------------------- the generator

TOPICS = ("the job queue", "the session store", "the metrics backend", "the search engine", "the config format",
          "the HTTP client", "the task runner", "the log shipper", "the secrets store", "the CI cache",
          "the image resizer", "the feature flags", "the PDF renderer", "the schema migrations",
          "the rate limiter", "the websocket layer", "the blob storage", "the test runner")
CHOICES = ("Redis Streams", "SQLite WAL", "VictoriaMetrics", "Tantivy", "TOML", "httpx", "Celery", "Vector",
           "Vault", "sccache", "libvips", "Unleash", "WeasyPrint", "Alembic", "Envoy", "Centrifugo", "MinIO",
           "nextest", "NATS JetStream", "DuckDB", "Meilisearch", "Loki", "Temporal", "Kafka")
REASONS = (("it needs no extra daemon", "daemon"), ("the old one leaked file handles", "file handles"),
           ("it survived the power-cut test", "power cut"), ("its licence is Apache 2.0", "Apache"),
           ("it halves the cold start", "cold start"), ("the team already runs it in production", "production"),
           ("it streams instead of buffering whole files", "streams"),
           ("it keeps working offline", "offline"), ("the vendor dropped ARM support", "ARM"),
           ("it cut the bill by a third", "bill"))
DIRS = ("src", "lib", "app", "services", "pkg", "internal", "tools", "deploy")
SUBDIRS = ("ingest", "billing", "auth", "render", "sync", "storage", "api", "worker", "cli", "search", "queue")
LEAVES = ("loaders", "handlers", "retry", "limits", "schema", "codec", "jobs", "policy", "cache", "hooks")
NAMES = ("yaml_merge", "backoff", "quota", "pool", "tokens", "window", "shards", "cursor", "fanout", "ledger",
         "manifest", "sweeper", "throttle", "batcher", "registry", "digest")
EXTS = ("py", "ts", "go", "rs", "toml", "yaml")
THINGS = ("the retry budget", "the upload size limit", "the session timeout", "the shard count",
          "the thumbnail quality", "the webhook secret's rotation", "the cron schedule of the sweeper",
          "the default page size", "the queue's dead-letter threshold", "the TLS cipher list",
          "the cache's eviction policy", "the log retention", "the max connections of the pool")
TASKS = (("rebuild the search index for shard {a}", "ever-admin reindex --shard {a} --since 2026-0{b}-1{c}"),
         ("rotate the staging TLS certificate", "certctl rotate --env staging --days {a}{b}"),
         ("replay the failed webhooks from last night", "hookd replay --status failed --limit {a}{b}{c}"),
         ("prune the old docker images on the build box", "docker image prune -af --filter until={a}{b}h"),
         ("vacuum the analytics database", "psql -d analytics -c 'VACUUM (ANALYZE) events_{a}{b}'"),
         ("resize the worker pool", "kubectl scale deploy/worker --replicas={a}{b}"),
         ("dump the billing table for the audit", "pg_dump -t billing_{a}{b} -Fc -f /tmp/audit_{c}.dump"),
         ("bisect the flaky login test", "git bisect run pytest -x tests/auth/test_login_{a}{b}.py"),
         ("warm the CDN cache for the docs", "cdnctl warm --site docs --paths /v{a}/ --concurrency {b}{c}"),
         ("compact the event log", "eventlog compact --segment {a}{b}{c} --keep 7d"))
METRICS = (("the p99 latency of the {x} endpoint", "ms"), ("the peak memory of the {x} worker", "MB"),
           ("the cold start of the {x} service", "s"), ("the error rate of the {x} job", "%"),
           ("the throughput of the {x} consumer", "req/s"), ("the bundle size of the {x} page", "KiB"),
           ("the disk used by the {x} shards", "GB"))
SUBJECTS = ("upload", "export", "checkout", "search", "invoice", "avatar", "report", "signup", "sync", "webhook")
INSTRUCTIONS = (
    ("Write commit messages in {v}.", "In which language should commit messages be written?",
     ("French", "German", "Spanish", "Italian", "Dutch")),
    ("Indent new code with {v}.", "How should new code be indented?",
     ("2 spaces", "4 spaces", "tabs", "8 spaces")),
    ("Name new branches with the prefix {v}.", "What prefix should new branch names have?",
     ("feat-", "wip-", "topic-", "dev-", "change-")),
    ("Tag {v} as reviewer on every pull request.", "Whom should be tagged as reviewer on pull requests?",
     ("@marta", "@jonas", "@priya", "@okafor", "@lindqvist")),
    ("Give times in {v} in every report.", "In which time zone should reports give times?",
     ("UTC", "CET", "PST", "JST", "IST")),
    ("Keep lines at most {v} characters long.", "At most how many characters long should lines be?",
     ("88", "100", "120", "79", "132")),
)
AGENTS = ("Scout", "Probe", "Ferret", "Lynx", "Tracer", "Seeker", "Warden", "Sleuth")
PROBLEMS = ("the memory leak in the API", "the slow nightly export", "the duplicate invoices",
            "the flaky login test", "the 502s behind the load balancer", "the stuck sync jobs",
            "the wrong totals on the dashboard", "the growing queue lag")
CLASSES = ("ImagePool", "LedgerWriter", "SessionCache", "RetryPolicy", "ShardRouter", "EventBuffer",
           "TokenBucket", "ExportJob", "SyncCursor", "WebhookQueue")
METHODS = ("evict", "flush", "renew", "backoff", "route", "drain", "refill", "commit", "advance", "ack")
FILLER_WORDS = ("the", "a", "we", "it", "then", "test", "run", "file", "change", "fix", "check", "error",
                "ok", "build", "passes", "fails", "module", "config", "value", "update", "review",
                "deploy", "branch", "merge", "log", "line", "function", "call", "return", "type", "now",
                "still", "again", "after", "before", "because", "should", "could", "works", "missing")


class Source:
    """The generator's seeded draws, and the values already planted (a value is planted once)."""

    def __init__(self, seed: int):
        self.random = random.Random(seed)
        self.taken: set = set()

    def unique(self, make: Callable[[], str]) -> str:
        for _ in range(1000):
            value = make()
            if value not in self.taken:
                self.taken.add(value)
                return value
        raise ValueError("the generator ran out of distinct values: plant fewer facts")

    def pick(self, values: Sequence):
        return self.random.choice(values)

    def path(self) -> str:
        r = self.random
        return f"{r.choice(DIRS)}/{r.choice(SUBDIRS)}/{r.choice(LEAVES)}/{r.choice(NAMES)}_{r.randint(2, 99)}.{r.choice(EXTS)}"

    def words(self, size: int) -> str:
        """Filler of about `size` bytes, with distractors: paths, numbers with units, choices."""
        r = self.random
        out: list[str] = []
        length = 0
        while length < size:
            roll = r.random()
            if roll < 0.03:
                word = self.path()
            elif roll < 0.05:
                word = f"{r.randint(1, 999)} {r.choice(list(UNITS))}"
            elif roll < 0.06:
                word = r.choice(CHOICES)
            else:
                word = r.choice(FILLER_WORDS)
            if word in self.taken:
                continue  # a planted value is held by its own message alone
            out.append(word)
            length += len(word) + 1
        return " ".join(out)[:max(size, 1)].strip() or "ok"

    def size(self, kind: str) -> int:
        r = self.random
        roll = r.random()
        if kind == "echo":
            return r.randint(20, 150) if roll < 0.25 else r.randint(300, 1500) if roll < 0.6 else r.randint(1500, 6000)
        if kind == "tool":
            return r.randint(30, 140)
        if kind == "user":
            return r.randint(10, 150) if roll < 0.7 else r.randint(300, 1200)
        return r.randint(40, 150) if roll < 0.5 else r.randint(300, 1500)

    def exchange(self) -> list[tuple[str, str]]:
        r = self.random
        messages = [("user", self.words(self.size("user")))]
        for _ in range(r.choice((0, 1, 1, 2, 2, 3, 4))):
            name = r.choice(("shell", "read", "read", "edit", "search"))
            if name == "shell":
                call = {"command": f"{r.choice(('pytest -q', 'make', 'git diff', 'ls -la', 'rg'))} {self.path()}"}
            elif name == "search":
                call = {"query": self.words(r.randint(5, 30))}
            else:
                call = {"path": self.path()}
            messages.append(("tool", f"{name} {json.dumps(call, sort_keys=True)}"))
            messages.append(("echo", self.words(self.size("echo"))))
        messages.append(("ever", self.words(self.size("ever"))))
        return messages


def planted_fact(source: Source, kind: str) -> tuple[list[list[tuple[str, str, str]]], Fact]:
    """One fact: its runs of messages (each message (kind, text, needle); needle "" for a message
    that holds no part of it), placed apart in the chat in this order, and its Fact (ids to fill)."""
    r = source.random
    if kind == "decision":
        topic = source.unique(lambda: source.pick(TOPICS))
        choice = source.unique(lambda: source.pick(CHOICES))
        rejected = source.pick([c for c in CHOICES if c != choice])
        reason, key = source.pick(REASONS)
        text = (f"We tried {rejected} first. Decision: for {topic} we go with {choice}, because {reason}. "
                f"Please note it in the design doc.")
        fact = Fact(kind, -1, f"What did we decide to use for {topic}, and why?", (choice, key),
                    needles=(f"for {topic} we go with {choice}, because {reason}",))
        return [[("user", text, fact.needles[0]), ("ever", "Noted; I will add it to the design doc.", "")]], fact
    if kind == "path":
        thing = source.unique(lambda: source.pick(THINGS))
        path = source.unique(source.path)
        line = r.randint(12, 480)
        echo = (f"{source.words(r.randint(80, 400))}\n{path}:{line}: # {thing} is set here\n"
                f"{source.words(r.randint(80, 400))}")
        call = {"command": f"rg -n '{thing.split()[-1]}' {path.split('/')[0]}/"}
        fact = Fact(kind, -1, f"Which file sets {thing}? Give its path.", (path,), case=True,
                    needles=(f"{path}:{line}: # {thing} is set here",))
        return [[("user", f"Where is {thing} set?", ""), ("tool", f"shell {json.dumps(call, sort_keys=True)}", ""),
                 ("echo", echo, fact.needles[0])]], fact
    if kind == "command":
        task, template = TASKS[int(source.unique(lambda: f"task {r.randrange(len(TASKS))}").split()[1])]
        task = task.format(a=r.randint(2, 9))
        command = source.unique(lambda: template.format(a=r.randint(2, 9), b=r.randint(1, 9), c=r.randint(0, 9)))
        call = f"shell {json.dumps({'command': command}, sort_keys=True)}"
        fact = Fact(kind, -1, f"What exact shell command did you run when I asked you to {task}?", (command,),
                    case=True, needles=(f"Please {task}.", json.dumps(command)[1:-1]))
        return [[("user", f"Please {task}.", fact.needles[0]), ("tool", call, fact.needles[1]),
                 ("echo", f"exit 0\n{source.words(r.randint(40, 300))}", ""),
                 ("ever", "Done; it exited 0.", "")]], fact
    if kind == "number":
        template, unit = source.pick(METRICS)
        what = source.unique(lambda: template.format(x=source.pick(SUBJECTS)))
        value = source.unique(lambda: f"{r.randint(11, 987)} {unit}")
        echo = f"{source.words(r.randint(60, 300))}\nresult: {what} = {value}\n{source.words(r.randint(60, 300))}"
        fact = Fact(kind, -1, f"What did we measure as {what}? Give the number with its unit.", (value,),
                    needles=(f"{what} = {value}",))
        return [[("user", f"Measure {what}.", ""), ("tool", 'shell {"command": "make measure"}', ""),
                 ("echo", echo, fact.needles[0])]], fact
    if kind == "instruction":
        index = int(source.unique(lambda: f"instruction {r.randrange(len(INSTRUCTIONS))}").split()[1])
        template, question, values = INSTRUCTIONS[index]
        order = r.sample(values, r.choice((2, 3)))
        runs = [[("user", f"From now on: {template.format(v=order[0])}", template.format(v=order[0])),
                 ("ever", "Understood.", "")]]
        for old, new in zip(order, order[1:]):
            said = f"Change of plan: {template.format(v=new)} Not {old} any more."
            runs.append([("user", said, template.format(v=new)), ("ever", "Understood; from now on.", "")])
        fact = Fact(kind, -1, question, (order[-1],), superseded=tuple(order[:-1]),
                    needles=tuple(template.format(v=v) for v in order))
        return runs, fact
    if kind == "finding":
        name = source.unique(lambda: f"{source.pick(AGENTS)}{r.randint(2, 9)}")
        problem = source.unique(lambda: source.pick(PROBLEMS))
        culprit = source.unique(lambda: f"{source.pick(CLASSES)}.{source.pick(METHODS)}")
        report = (f"[{name}] report: I traced {problem}. The cause is {culprit}, which keeps a reference to "
                  f"every item it has seen. {source.words(r.randint(100, 600))}")
        fact = Fact(kind, -1, f"What did the subagent {name} find was the cause of {problem}?", (culprit,),
                    needles=(f"The cause is {culprit}",))
        return [[("user", f"Ask a subagent to look into {problem}.", ""),
                 ("tool", f"agent {json.dumps({'name': name, 'task': f'Find the cause of {problem}.'}, sort_keys=True)}", ""),
                 ("echo", f"Started {name}.", ""), ("work", report, fact.needles[0])]], fact
    raise ValueError(f"no fact of kind {kind!r}")


def generate(seed: int = 0, messages: int = 10_000, per_kind: int = 5) -> Chat:
    """A chat of exactly `messages` messages with `per_kind` facts of each kind planted in it,
    spread evenly: fact k of F starts in the k-th F-th of the chat (an instruction's changes later,
    in the part after it). Dates start on 2026-01-05 and go forward by 5 s to 2 min a message."""
    if not 1 <= per_kind <= PER_KIND_MAX:
        raise ValueError(f"the generator plants 1 to {PER_KIND_MAX} facts of each kind, not {per_kind}")
    source = Source(seed)
    r = source.random
    kinds = [kind for kind in KINDS for _ in range(per_kind)]
    r.shuffle(kinds)
    planted = [planted_fact(source, kind) for kind in kinds]
    runs_total = sum(sum(len(run) for run in runs) for runs, _ in planted)
    if runs_total * 2 > messages:
        raise ValueError(f"{messages:,} messages cannot hold {len(kinds)} facts among filler: "
                         f"give at least {runs_total * 2:,} messages, or fewer facts")
    # where each run starts: a slot per fact, the later runs of an instruction after it
    starts: list[tuple[int, int, int]] = []  # (position, fact, run)
    slot = messages / len(planted)
    for k, (runs, _) in enumerate(planted):
        first = int(k * slot + r.random() * slot * 0.5)
        starts.append((first, k, 0))
        later = sorted(r.randint(first + 1, max(first + 1, messages - 1)) for _ in runs[1:])
        starts += [(at, k, j) for j, at in enumerate(later, 1)]
    starts.sort()
    chat = Chat(f"planted seed {seed}, {messages:,} messages, {len(planted)} facts")
    ids: dict[tuple[int, int], list[int]] = {}
    now = START
    pending = list(starts)
    body: list[tuple[str, str, str, tuple[int, int] | None]] = []
    while len(body) < messages:
        if pending and pending[0][0] <= len(body):
            _, k, j = pending.pop(0)
            for kind, text, needle in planted[k][0][j]:
                body.append((kind, text, needle, (k, j)))
            continue
        for kind, text in source.exchange():
            body.append((kind, text, "", None))
    # filler past the end is cut; a fact's run is never cut: it was placed before the end
    while len(body) > messages:
        extra = next(at for at in range(len(body) - 1, -1, -1) if body[at][3] is None)
        del body[extra]
    for at, (kind, text, needle, owner) in enumerate(body):
        now += timedelta(seconds=r.randint(5, 120))
        chat.messages.append((kind, text, now))
        if owner is not None and needle:
            ids.setdefault(owner, []).append(at)
    for k, (runs, fact) in enumerate(planted):
        held = [at for j in range(len(runs)) for at in ids.get((k, j), [])]
        chat.facts.append(Fact(fact.kind, held[-1], fact.question, fact.expected, fact.superseded,
                               tuple(held), fact.needles, fact.case))
    return chat


def as_note(chat: Chat, at: int) -> str:
    kind, text, date = chat.messages[at]
    return f"[{chat.name}, message {at}, {kind}, {date.isoformat(timespec='seconds')}] {text}"


def logged(chat: Chat, at: int, as_notes: bool = False) -> tuple[str, str, datetime]:
    """Message `at` as it is logged: its kind and text (turns), or a `note` with a header naming
    where it came from (notes); and its date."""
    kind, text, date = chat.messages[at]
    if as_notes:
        return "note", f"[{chat.name}, message {at}, {kind}, {date.isoformat(timespec='seconds')}] {text}", date
    return kind, text, date


def write(memory, chat: Chat, as_notes: bool = False) -> int:
    """Log the chat's messages into `memory` (a harness.memory.service.Memory), in order; the first
    id is returned (the facts' ids count from it)."""
    first = memory.store.count
    for at in range(len(chat.messages)):
        memory.append(*logged(chat, at, as_notes))
    return first


# ---------------------------------------------------------------- the published benchmarks


def dated(value: object) -> datetime | None:
    """LongMemEval's `2023/05/20 (Sat) 02:21` or LoCoMo's `1:56 pm on 8 May, 2023`, as UTC."""
    if not isinstance(value, str):
        return None
    text = re.sub(r"\s*\(\w+\)\s*", " ", value.strip())
    for shape in ("%Y/%m/%d %H:%M", "%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%Y-%m-%d %H:%M:%S",
                  "%Y-%m-%d"):
        try:
            return datetime.strptime(text, shape).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def answer_text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def longmemeval(items: list, path: Path) -> list[Chat]:
    chats = []
    for number, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("haystack_sessions"), list):
            raise LoadFailed(f"{path}: instance {number} has no haystack_sessions list, so it is not LongMemEval's format")
        chat = Chat(f"LongMemEval {item.get('question_id', number)}")
        dates = item.get("haystack_dates") or []
        evidence = []
        for s, session in enumerate(item["haystack_sessions"]):
            date = dated(dates[s]) if s < len(dates) else None
            date = date or (chat.messages[-1][2] if chat.messages else START)
            for turn in session if isinstance(session, list) else []:
                if not isinstance(turn, dict) or not isinstance(turn.get("content"), str) or not turn["content"]:
                    continue
                if turn.get("has_answer"):
                    evidence.append(len(chat.messages))
                chat.messages.append(("user" if turn.get("role") == "user" else "ever", turn["content"], date))
                date += timedelta(seconds=30)
        if "answer" not in item or "question" not in item:
            chat.passed_over += 1
        else:
            ids = tuple(evidence) or (max(len(chat.messages) - 1, 0),)
            when = item.get("question_date")
            question = f"{item['question']} (Asked on {when}.)" if when else item["question"]
            chat.facts.append(Fact("answer", ids[-1], question, (answer_text(item["answer"]),), ids=tuple(evidence),
                                   label=f"{item.get('question_id', number)} {item.get('question_type', '')}".strip()))
        chats.append(chat)
    return chats


def locomo(items: list, path: Path) -> list[Chat]:
    chats = []
    for number, item in enumerate(items):
        conversation = item.get("conversation") if isinstance(item, dict) else None
        if not isinstance(conversation, dict):
            raise LoadFailed(f"{path}: sample {number} has no conversation object, so it is not LoCoMo's format")
        chat = Chat(f"LoCoMo {item.get('sample_id', number)}")
        where: dict[str, int] = {}
        sessions = sorted((int(key.split("_")[1]), key) for key in conversation
                          if re.fullmatch(r"session_\d+", key) and isinstance(conversation[key], list))
        speaker_a = conversation.get("speaker_a")
        for _, key in sessions:
            date = dated(conversation.get(f"{key}_date_time")) or (chat.messages[-1][2] if chat.messages else START)
            for turn in conversation[key]:
                if not isinstance(turn, dict) or not isinstance(turn.get("text"), str):
                    continue
                text = f"{turn.get('speaker', '?')}: {turn['text']}"
                if turn.get("blip_caption"):
                    text += f" [shares an image: {turn['blip_caption']}]"
                if isinstance(turn.get("dia_id"), str):
                    where[turn["dia_id"]] = len(chat.messages)
                chat.messages.append(("user" if turn.get("speaker") == speaker_a else "ever", text, date))
                date += timedelta(seconds=30)
        for q, qa in enumerate(item.get("qa") or []):
            if not isinstance(qa, dict) or "answer" not in qa or not isinstance(qa.get("question"), str):
                chat.passed_over += 1
                continue
            ids = tuple(where[e] for e in qa.get("evidence") or [] if isinstance(e, str) and e in where)
            chat.facts.append(Fact("answer", ids[-1] if ids else max(len(chat.messages) - 1, 0), qa["question"],
                                   (answer_text(qa["answer"]),), ids=ids,
                                   label=f"{item.get('sample_id', number)} q{q} category {qa.get('category', '?')}"))
        chats.append(chat)
    return chats


def load(path) -> list[Chat]:
    """LongMemEval's or LoCoMo's published JSON file, told apart by its fields, as chats with
    their questions; LoadFailed with one sentence when it is neither."""
    path = Path(path)
    try:
        items = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise LoadFailed(f"{path}: {error.strerror or error}") from None
    except ValueError as error:
        raise LoadFailed(f"{path} is not JSON ({error})") from None
    except RecursionError:  # [H16] nested deeper than the parser goes: no benchmark's file is
        raise LoadFailed(f"{path} is JSON nested deeper than Python's parser goes: not LongMemEval's or "
                         "LoCoMo's format") from None
    try:
        return dispatched(items, path)
    except (TypeError, KeyError, AttributeError, IndexError, RecursionError) as error:
        raise LoadFailed(f"{path} is not LongMemEval's or LoCoMo's format ({type(error).__name__}: "
                         f"{str(error)[:200]})") from None


def dispatched(items: Any, path: Path) -> list[Chat]:
    if isinstance(items, dict):
        items = [items]
    if not isinstance(items, list) or not items or not isinstance(items[0], dict):
        raise LoadFailed(f"{path} holds no list of instances: not LongMemEval's or LoCoMo's format")
    if "haystack_sessions" in items[0]:
        return longmemeval(items, path)
    if "conversation" in items[0]:
        return locomo(items, path)
    raise LoadFailed(f"{path}: its items have neither haystack_sessions (LongMemEval) nor conversation (LoCoMo)")
