"""What `ever simulate` needs besides Ever's own planner: the turn loop's request points, a turn's
conversation as harness/calls/turn.py builds it, the view in blocks of another size, and the two
designs a user would pick instead of Ever, costed on the same messages at the same prices:

- **carried**: one conversation carried turn to turn, every message in it word for word, and
  summarized when its prompt nears the model's context window (as Claude Code does: the summary
  replaces the conversation, and the chat goes on after it). The gist warns against exactly this
  [gist §7.11]: here is what it costs and keeps.
- **window**: a sliding window of the last N messages before each turn, word for word, and nothing
  older.

A turn, in every design [gist §6]: a user message starts it; each reply (the `ever` and `tool`
messages that follow) ends with tool results (`echo`), after which the next request of the same
turn goes out with the conversation so far; a reply with no tool result ends the turn. `note` and
`work` messages are the chat's, not the turn's.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.bench.simulate_meter import Meter, Prices, reply_tokens, tokens_of
from harness.bench.simulate_workloads import Workload
from harness.calls.anthropic import body as wire_body
from harness.calls.anthropic import finished, marked, wire_system, wire_tools
from harness.calls.prompt import Prompt
from harness.calls.provider import SYSTEM, Call

JSON = dict[str, Any]
MAX_TOKENS = 16_000  # the turns' max_tokens (harness/calls/turn.py MAX_TOKENS)
WORKDIR = "/home/you/project"
# a 1x1 PNG: an echo that carries an image carries this one (its size is not what breaks the cache)
TINY_PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
ROLE = {"user": "user", "echo": "user", "note": "user", "work": "user", "ever": "assistant", "tool": "assistant"}

# carried: Sonnet 4.6's context window and where the conversation is summarized (Claude Code
# compacts on its own near the window's end; 80 % leaves the summary call room to run)
CONTEXT_WINDOW_TOKENS = 200_000
SUMMARIZE_AT_SHARE = 0.8
SUMMARY_BYTES = 12_000  # the summary that replaces the conversation: about 3,000 tokens
SUMMARIZE_TASK = ("Summarize this conversation so that the work can go on from the summary alone: "
                  "the user's requests, decisions, files, errors and what is still open.")
WINDOW_MESSAGES = 100  # window: about as many bytes as Ever's view (messages average about 1 KB)


def call_points(kinds: Sequence[str]) -> list[list[tuple[str, int]]]:
    """For each message m, the turn requests that go out just before it is logged, in order:
    ("first", m) for the request a user message starts, ("next", k) for the request after a
    reply's tool results, timed at message k. The list has one more entry, for after the last
    message."""
    points: list[list[tuple[str, int]]] = [[] for _ in range(len(kinds) + 1)]
    in_turn = False
    last = ""  # the turn's last ever, tool or echo
    for m, kind in enumerate(kinds):
        if kind == "user":
            if in_turn and last == "echo":
                points[m].append(("next", m - 1))
            points[m].append(("first", m))
            in_turn, last = True, ""
        elif in_turn and kind in ("ever", "tool", "echo"):
            if kind != "echo" and last == "echo":
                points[m].append(("next", m))
            last = kind
    if in_turn and last == "echo":
        points[len(kinds)].append(("next", len(kinds) - 1))
    return points


def state_text(seconds: float) -> str:
    """The per-turn state after the view [gist §6]: the date and time, and the working directory
    (harness/calls/turn.py's format), on a chat that starts 2026-12-01 09:00 UTC."""
    minutes = int(seconds // 60) + 9 * 60
    day, minute = 1 + minutes // 1440, minutes % 1440
    return f"[2026-12-{day:02d} {minute // 60:02d}:{minute % 60:02d} UTC; working directory: {WORKDIR}]"


def reply_blocks(m: int, kind: str, text: str) -> list[JSON]:
    """What an `ever` or `tool` message is in the reply that made it: a text block (none for a
    whitespace-only text, which `sent_back` drops) or a tool call."""
    if kind == "ever":
        return [{"type": "text", "text": text}] if text.strip() else []
    return [{"type": "tool_use", "id": f"toolu_{m:08d}", "name": "shell", "input": {"command": text}}]


@dataclass
class TurnConversation:
    """A turn's messages as harness/calls/turn.py's `Turn.run` keeps them: its first user message,
    then each reply as it goes back (`sent_back`: no whitespace-only text) and its tool results."""

    messages: list[JSON]
    reply: list[JSON] = field(default_factory=list)
    results: list[JSON] = field(default_factory=list)
    tool_id: str = ""
    view_at: int | None = None  # the view's last whole block, which a turn marks

    def add(self, m: int, kind: str, text: str, image: bool) -> None:
        if kind in ("ever", "tool"):
            self.reply.extend(reply_blocks(m, kind, text))
            if kind == "tool":
                self.tool_id = f"toolu_{m:08d}"
        elif kind == "echo":
            if not self.tool_id:  # a result with no call in this reply: its call is an empty one
                self.tool_id = f"toolu_{m:08d}"
                self.reply.append({"type": "tool_use", "id": self.tool_id, "name": "shell", "input": {}})
            content: Any = text or "(no output)"
            if image:
                content = [{"type": "text", "text": content},
                           {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": TINY_PNG}}]
            self.results.append({"type": "tool_result", "tool_use_id": self.tool_id, "content": content})
            self.tool_id = ""

    def reply_output_tokens(self) -> int:
        return reply_tokens(self.reply)

    def go_on(self) -> None:
        """The reply and its results go back: the next request of the turn carries them."""
        self.messages.append({"role": "assistant", "content": self.reply or [{"type": "text", "text": "(ok)"}]})
        self.messages.append({"role": "user", "content": self.results})
        self.reply, self.results, self.tool_id = [], [], ""

    def body(self, model: str, prompt: Prompt) -> JSON:
        """The request as `Turn.run` finishes it: an end mark on the last block, thinking off."""
        marks = [(SYSTEM, len(prompt.system) - 1), (len(self.messages) - 1, len(self.messages[-1]["content"]) - 1)]
        if self.view_at is not None:
            marks.insert(1, (0, self.view_at))
        return wire_body(Call(model, MAX_TOKENS, prompt.system, prompt.tools, tuple(self.messages), tuple(marks)))


def reblocked(body: JSON, block_lines: int, lines: Sequence[str] | None = None) -> JSON:
    """The request with its view (the first user message's blocks from `<chat>` to `</chat>`) in
    blocks of `block_lines` lines, a mark on the last whole block, as harness/calls/prompt.py's
    `chat_blocks` makes them with 4. `lines`: the view's lines, when the caller has them."""
    content = body["messages"][0]["content"]
    end = next(k for k, block in enumerate(content) if block.get("text", "").endswith("</chat>"))
    if lines is None:
        text = "".join(block["text"] for block in content[:end + 1])
        lines = text[len("<chat>\n"):-len("</chat>")].split("\n")[:-1]
    whole = len(lines) // block_lines
    blocks: list[JSON] = []
    for k in range(whole):
        head = "<chat>\n" if k == 0 else ""
        chunk = lines[k * block_lines:(k + 1) * block_lines]
        blocks.append({"type": "text", "text": head + "".join(line + "\n" for line in chunk)})
    if blocks:
        blocks[-1] = marked(blocks[-1])
    rest = lines[whole * block_lines:]
    blocks.append({"type": "text", "text": ("<chat>\n" if whole == 0 else "")
                   + "".join(line + "\n" for line in rest) + "</chat>"})
    messages = [dict(body["messages"][0], content=blocks + content[end + 1:])] + body["messages"][1:]
    return dict(body, messages=messages)


@dataclass
class Tally:
    """One kind of call's tokens and dollars."""

    calls: int = 0
    prompt_tokens: int = 0
    read_tokens: int = 0
    written_tokens: int = 0
    uncached_tokens: int = 0
    output_tokens: int = 0
    dollars: float = 0.0
    tail_tokens: int = 0  # tokens after the prompt's context: a compaction's task, a turn's message

    def add(self, outcome: Any, dollars: float) -> None:
        self.calls += 1
        self.prompt_tokens += outcome.prompt_tokens
        self.read_tokens += outcome.cache_read_input_tokens
        self.written_tokens += outcome.cache_creation_input_tokens
        self.uncached_tokens += outcome.input_tokens
        self.dollars += dollars

    def read_share(self) -> float:
        return self.read_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    def prefix_read_share(self) -> float:
        """The read share of the prompt without its tail: what the gist calls the prefix."""
        rest = self.prompt_tokens - self.tail_tokens
        return self.read_tokens / rest if rest > 0 else 0.0


@dataclass
class Run:
    """What one design did over the replay: its calls by kind, what it spent on each message, and
    what it kept."""

    mode: str
    messages: int
    messages_per_day: float
    turn_first: Tally = field(default_factory=Tally)
    turn_all: Tally = field(default_factory=Tally)
    compactions: Tally = field(default_factory=Tally)
    dollars: list[float] = field(default_factory=list)  # spent at each message
    read_tokens: list[int] = field(default_factory=list)  # every call's, at each message
    prompt_tokens: list[int] = field(default_factory=list)
    context_bytes: list[int] = field(default_factory=list)  # history in context, at each message
    line_inputs: float = 0.0  # [gist §3.3] 0.1 × cached + 1.25 × written lines, summed
    lines_rewritten: int = 0
    view_lines: int = 0  # summed over messages
    kept_verbatim_bytes: int = 0  # summed over turns: history the turn can read word for word
    kept_summary_bytes: int = 0  # summed over turns: history in context only as summaries
    history_bytes: int = 0  # summed over turns: the whole history before the turn
    turns: int = 0
    notes: str = ""

    def __post_init__(self) -> None:
        if not self.dollars:
            self.dollars = [0.0] * self.messages
            self.read_tokens = [0] * self.messages
            self.prompt_tokens = [0] * self.messages
            self.context_bytes = [0] * self.messages

    def spend(self, m: int, tally_kinds: Sequence[Tally], outcome: Any, dollars: float) -> None:
        for tally in tally_kinds:
            tally.add(outcome, dollars)
        m = min(m, self.messages - 1)
        self.dollars[m] += dollars
        self.read_tokens[m] += outcome.cache_read_input_tokens
        self.prompt_tokens[m] += outcome.prompt_tokens

    def output(self, m: int, tally_kinds: Sequence[Tally], tokens: int, prices: Prices) -> None:
        dollars = tokens * prices.output
        for tally in tally_kinds:
            tally.output_tokens += tokens
            tally.dollars += dollars
        self.dollars[min(m, self.messages - 1)] += dollars

    def keep(self, verbatim: int, summary: int, history: int) -> None:
        self.turns += 1
        self.kept_verbatim_bytes += verbatim
        self.kept_summary_bytes += summary
        self.history_bytes += history


def grouped(blocks: Sequence[tuple[str, JSON]]) -> list[JSON]:
    """(role, block) pairs as API messages: consecutive blocks of one role in one message."""
    messages: list[JSON] = []
    for role, block in blocks:
        grouped_onto(messages, role, block)
    return messages


def marked_at_end(blocks: Sequence[tuple[str, JSON]]) -> list[JSON]:
    """The blocks as API messages with one cache mark, on the last block (as a turn's end mark,
    without copying every block: the history's blocks carry no mark of their own)."""
    messages = grouped(blocks[:-1])
    role, last = blocks[-1]
    return grouped_onto(messages, role, marked(last))


def grouped_onto(messages: list[JSON], role: str, block: JSON) -> list[JSON]:
    if messages and messages[-1]["role"] == role:
        messages[-1]["content"].append(block)
    else:
        messages.append({"role": role, "content": [block]})
    return messages


def history_block(kind: str, text: str) -> tuple[str, JSON]:
    """A message of the history as the carried and window designs send it: one text block."""
    return ROLE.get(kind, "user"), {"type": "text", "text": f"{kind}: {text}" if text else f"{kind}: (empty)"}


def history_blocks(kind: str, text: str, image: bool) -> list[tuple[str, JSON]]:
    """The message's text block, and the image it carried after it: an image added anywhere breaks
    the cache's messages part [gist §3.3]."""
    found = [history_block(kind, text)]
    if image:
        found.append(("user", {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                            "data": TINY_PNG}}))
    return found


def run_carried(workload: Workload, turn_model: str, progress: Any | None = None,
                summarize_at_tokens: int = int(CONTEXT_WINDOW_TOKENS * SUMMARIZE_AT_SHARE),
                summary_bytes: int = SUMMARY_BYTES) -> Run:
    """One conversation carried from turn to turn, summarized near the context window."""
    prompt = Prompt.build("")
    prices = Prices.of(turn_model)
    meter = Meter()
    n = len(workload.messages)
    run = Run("carried", n, workload.messages_per_day,
              notes=f"summarized at {summarize_at_tokens:,} tokens into {summary_bytes:,} bytes")
    prefix_tokens = sum(block.tokens for block in meter.blocks(
        {"model": turn_model, "tools": wire_tools(prompt.tools), "system": wire_system(prompt.system), "messages": []}))
    history: list[tuple[str, JSON]] = []  # since the last summary (the summary first)
    history_tokens = 0
    verbatim_bytes = summary_bytes_now = all_bytes = 0
    points = call_points([message.kind for message in workload.messages])
    reply: list[JSON] = []  # the last request's reply, as its messages come
    answered = False  # a request is out whose reply is not counted yet

    def block_tokens_of(block: tuple[str, JSON]) -> int:
        return tokens_of([block[1]])

    def request(m: int, first: bool) -> None:
        nonlocal history, history_tokens, verbatim_bytes, summary_bytes_now
        at = workload.messages[min(m, n - 1)].seconds
        if prefix_tokens + history_tokens > summarize_at_tokens:
            # the conversation before the user's new message is summarized; the message follows
            kept = history[-1:] if first else []
            summarized = history[:-1] if first else history
            task = ("user", {"type": "text", "text": SUMMARIZE_TASK})
            body = finished({"model": turn_model, "max_tokens": MAX_TOKENS, "tools": wire_tools(prompt.tools),
                             "system": wire_system(prompt.system),
                             "messages": marked_at_end(summarized + [task])})
            outcome = meter.call(body, at)
            run.spend(m, (run.compactions,), outcome, prices.dollars(outcome, 0))
            run.compactions.tail_tokens += block_tokens_of(task)
            summary = ("Summary of the conversation so far: " + "summary " * (summary_bytes // 8))[:summary_bytes]
            run.output(m, (run.compactions,), reply_tokens([{"type": "text", "text": summary}]), prices)
            history = [("user", {"type": "text", "text": summary})] + kept
            history_tokens = sum(block_tokens_of(block) for block in history)
            summary_bytes_now = summary_bytes
            verbatim_bytes = workload.messages[m].size_bytes if first else 0
        body = finished({"model": turn_model, "max_tokens": MAX_TOKENS, "tools": wire_tools(prompt.tools),
                         "system": wire_system(prompt.system), "messages": marked_at_end(history)})
        outcome = meter.call(body, at)
        run.spend(m, (run.turn_first, run.turn_all) if first else (run.turn_all,), outcome, prices.dollars(outcome, 0))
        if first:  # what the history before the user's message keeps
            size = workload.messages[m].size_bytes
            run.keep(verbatim_bytes - size, summary_bytes_now, all_bytes - size)
            run.turn_first.tail_tokens += block_tokens_of(history[-1])  # the user's message

    def answer(m: int) -> None:
        nonlocal reply, answered
        if answered:
            run.output(m, (run.turn_all,), reply_tokens(reply), prices)
        reply, answered = [], True

    for m, message in enumerate(workload.messages):
        text = workload.text(m)
        for point, _ in points[m]:
            if point == "first":
                block = history_block("user", text)
                history.append(block)
                history_tokens += block_tokens_of(block)
                verbatim_bytes += message.size_bytes
                all_bytes += message.size_bytes
            answer(m)
            request(m, point == "first")
        if message.kind != "user":
            blocks = history_blocks(message.kind, text, message.image)
            history.extend(blocks)
            history_tokens += sum(block_tokens_of(block) for block in blocks)
            verbatim_bytes += message.size_bytes
            all_bytes += message.size_bytes
            if message.kind in ("ever", "tool"):
                reply.extend(reply_blocks(m, message.kind, text))
        run.context_bytes[m] = verbatim_bytes + summary_bytes_now
        if progress is not None:
            progress(1)
    for point, _ in points[n]:
        answer(n)
        request(n, False)
    answer(n)
    return run


def run_window(workload: Workload, turn_model: str, progress: Any | None = None,
               window_messages: int = WINDOW_MESSAGES) -> Run:
    """A sliding window of the last `window_messages` messages before each turn, then the turn."""
    prompt = Prompt.build("")
    prices = Prices.of(turn_model)
    meter = Meter()
    n = len(workload.messages)
    run = Run("window", n, workload.messages_per_day, notes=f"the last {window_messages} messages")
    points = call_points([message.kind for message in workload.messages])
    conversation: TurnConversation | None = None
    window_bytes = all_bytes = 0
    sizes = [message.size_bytes for message in workload.messages]

    def request(m: int, first: bool) -> None:
        at = workload.messages[min(m, n - 1)].seconds
        body = conversation.body(turn_model, prompt)
        outcome = meter.call(body, at)
        run.spend(m, (run.turn_first, run.turn_all) if first else (run.turn_all,), outcome, prices.dollars(outcome, 0))
        if first:
            run.turn_first.tail_tokens += meter.blocks(body)[-1].tokens

    for m, message in enumerate(workload.messages):
        text = workload.text(m)
        for point, _ in points[m]:
            if point == "first":
                if conversation is not None:
                    run.output(m, (run.turn_all,), conversation.reply_output_tokens(), prices)
                start = max(0, m - window_messages)
                blocks = [block for k in range(start, m) for block in
                          history_blocks(workload.messages[k].kind, workload.text(k), workload.messages[k].image)]
                window_bytes = sum(sizes[start:m])
                first_message = {"role": "user", "content": [{"type": "text", "text": state_text(message.seconds)},
                                                             {"type": "text", "text": text or "(empty)"}]}
                conversation = TurnConversation(grouped(blocks) + [first_message])
                run.keep(window_bytes, 0, all_bytes)
                request(m, True)
            else:
                run.output(m, (run.turn_all,), conversation.reply_output_tokens(), prices)
                conversation.go_on()
                request(m, False)
        if conversation is not None and message.kind != "user":
            conversation.add(m, message.kind, text, message.image)
        all_bytes += message.size_bytes
        run.context_bytes[m] = window_bytes
        if progress is not None:
            progress(1)
    for point, _ in points[n]:
        run.output(n, (run.turn_all,), conversation.reply_output_tokens(), prices)
        conversation.go_on()
        request(n, False)
    if conversation is not None:  # the last request's reply
        run.output(n, (run.turn_all,), conversation.reply_output_tokens(), prices)
    return run
