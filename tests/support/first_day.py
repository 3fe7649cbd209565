"""A real user's first day, measured from what reaches the local Messages API: the ceilings and the
windows written out from their sources (not read from the code), the bytes of a request's
`<chat>`, and Claude Code session files to import.

- `TURN_CEILING`, `COMPACTION_CEILING`, `TAGS`: a turn's `<chat>` and a compaction's, tags apart
  [gist §3.2, §4]; `WINDOWS`: the models' context windows in tokens, from their pages.
- `chat_bytes(body)`, `request_bytes(body)`, `is_compaction(body)`: a recorded request measured.
- `claude_code_sessions(folder, short, long)`: session files of `short` notes that are each their
  own line and `long` ones that each cost a summary, in Claude Code's format.
"""

import json
import random
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.support.chat_files import words

TURN_CEILING, COMPACTION_CEILING = 128_000, 32_000  # [gist §3.2, §4]
TAGS = len("<chat>\n") + len("</chat>")
# tokens, the models' pages (the 5.5 lineup's: 1M windows, the models overview of late 2026)
WINDOWS = {"claude-sonnet-4-6": 1_000_000, "claude-haiku-4-5": 200_000,
           "claude-sonnet-5-5": 1_000_000, "claude-haiku-5-5": 1_000_000}
CHAT = re.compile(r"<chat>\n.*?</chat>", re.S)


def chat_bytes(body: dict) -> int:
    """The bytes of the request's `<chat>` … `</chat>`, tags included: the view comes in the first
    message as text blocks of a few lines each, which joined are the rendered view."""
    content = body["messages"][0]["content"]
    joined = "".join(block["text"] for block in content if isinstance(block, dict) and block.get("type") == "text")
    (view,) = CHAT.findall(joined)
    return len(view.encode())


# A line that says its dates and source: an imported note's header names its tool and its time
# (harness/imports/rules.py `header`), e.g. "[imported: Claude Code · user · 2025-06-01T10:00:00]".
# a built line by its note's header, a placeholder by what it covers (harness/memory/covers.py) [P22]
SAYS_DATE_AND_SOURCE = re.compile(r"imported: (Claude Code|Codex)\b.*\d{4}-\d{2}-\d{2}"
                                  r"|\|[^|]*, (Claude Code|Codex)\b[^|]*, \d{4}-\d{2}-\d{2}[^|]*not summarized yet")
PLACEHOLDER_WORDS = "not summarized yet"


def view_shares(body: dict) -> tuple[int, int, int]:
    """(lines, built, saying their dates and source) of the request's `<chat>`: a line is built
    when it is not a placeholder [gist §5]."""
    content = body["messages"][0]["content"]
    joined = "".join(block["text"] for block in content if isinstance(block, dict) and block.get("type") == "text")
    (view,) = CHAT.findall(joined)
    lines = [line for line in view.split("\n") if "|" in line]
    built = sum(1 for line in lines if PLACEHOLDER_WORDS not in line)
    dated = sum(1 for line in lines if SAYS_DATE_AND_SOURCE.search(line))
    return len(lines), built, dated


def request_bytes(body: dict) -> int:
    """The body's UTF-8 bytes as JSON, without max_tokens: at least its input tokens."""
    return len(json.dumps({k: v for k, v in body.items() if k != "max_tokens"}, ensure_ascii=False).encode())


def is_compaction(body: dict) -> bool:
    content = body["messages"][0]["content"]
    return any(isinstance(b, dict) and b.get("text", "").startswith("Compaction:") for b in content)


# A note's header is `[imported: Claude Code · user · 2026-03-01T10:00:00+00:00]` and a newline,
# 66 bytes with the role `assistant`, and the line is `note: ` and the note: a body of at most
# 440 bytes keeps it within the 512 bytes of a line [gist §2], one of 600 or more does not.
SHORT_BODY_BYTES = (200, 440)
LONG_BODY_BYTES = (600, 3_000)
SESSIONS = 10


def claude_code_sessions(folder: Path, short: int, long: int, seed: int = 11) -> list[Path]:
    """`SESSIONS` session files under `folder` holding `short` + `long` messages in a shuffled order,
    a user's and an assistant's in turn, a second apart; each body is words, so none repeats."""
    rng = random.Random(seed)
    sizes = ([rng.randint(*SHORT_BODY_BYTES) for _ in range(short)]
             + [rng.randint(*LONG_BODY_BYTES) for _ in range(long)])
    rng.shuffle(sizes)
    folder.mkdir(parents=True, exist_ok=True)
    start = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    per_session = -(-len(sizes) // SESSIONS)
    paths = []
    for s in range(SESSIONS):
        records, parent = [], None
        for k in range(s * per_session, min(len(sizes), (s + 1) * per_session)):
            body = words(rng, sizes[k] // 4)[:sizes[k]].strip()
            role = ("user", "assistant")[k % 2]
            message = ({"role": "user", "content": body} if role == "user" else
                       {"role": "assistant", "id": f"msg_{k:05d}", "content": [{"type": "text", "text": body}]})
            when = (start + timedelta(seconds=k)).isoformat(timespec="seconds").replace("+00:00", "Z")
            records.append({"type": role, "uuid": f"u{k:05d}", "parentUuid": parent, "sessionId": f"s{s}",
                            "timestamp": when, "isSidechain": False, "message": message})
            parent = f"u{k:05d}"
        path = folder / f"session-{s:02d}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        paths.append(path)
    return paths
