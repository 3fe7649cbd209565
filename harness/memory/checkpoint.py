"""What a restart keeps [F1] [P10] [P11] [P16]: the planner's durable state (view.json's fields),
when a checkpoint is due, and how a new process takes the state up again.

Each function takes the planner (harness/memory/planner.py's `Planner`, which imports this module,
so this one names it only in words) and works on its state as the planner's own methods do. Like
the planner, it reads no clock, no file and no randomness: the texts and the logs' tail come from
the planner's `Texts` store.
"""

from harness.memory.events import Message
from harness.memory.texts import LEVELS_MAX, BuiltNodes, Node

SAVE_LINES = 128  # [P10] lines logged between checkpoints: the most a restart replays


def fields_of(planner) -> dict:
    """The durable state, view.json's fields: T, both views as [l, i] pairs, both shrinking
    flags, the failure counts, and the node logged last. Texts, and which nodes are built,
    are the store's."""
    return {
        "config": [
            planner.config.view_bytes_ceiling,
            planner.config.view_bytes_floor,
            planner.config.cview_bytes_ceiling,
            planner.config.cview_bytes_floor,
            planner.config.jobs_max,
            planner.config.failures_max,
        ],
        "T": planner.T,
        "view": [[l, i] for l, i in planner.view.lines()],
        "cview": [[l, i] for l, i in planner.cview.lines()],
        "shrinking": planner.shrinking,
        "cshrinking": planner.cshrinking,
        # [P16] the failure cap bounds tries across restarts too
        "failures": [[l, i, count] for (l, i), count in sorted(planner.failures.items())],
        "last_node": planner.texts.last_node(),
    }


def is_due(planner) -> bool:
    """A checkpoint is due [P10]: the logs replay everything but failure counts,
    so those are saved as they change, the rest every SAVE_LINES lines logged."""
    return planner.lines_since_save >= SAVE_LINES or planner.failures != planner.failures_saved


def taken(planner) -> dict:
    """`fields_of`, for the caller to write; the count toward the next one starts again."""
    planner.lines_since_save = 0
    planner.failures_saved = dict(planner.failures)
    return fields_of(planner)


def restore(planner, saved: dict) -> None:
    """A new process [P10], in a planner made with the saved config: the saved views and failure
    counts are loaded, never rebuilt [gist §3.2, §7.3]; what the logs hold beyond them is replayed
    as the live process applied it: each message in turn, each node logged since before the
    message that followed its building (its T). Running calls, retries due and a waiting turn died
    with the old process; the ready queue is rebuilt from the built nodes' frontier [P11]; then
    calls start."""
    texts = planner.texts
    planner.T = saved["T"]
    # a view.json written before nodes carried their place in the log was saved at every
    # change: nothing past it to replay but a message
    tail = texts.nodes_after(saved["last_node"]) if "last_node" in saved else []
    built = BuiltNodes.loaded(texts.built_levels())
    for l, i, _, _ in tail:
        built.discard(l, i)
    planner.built_nodes = built
    planner.view = planner._loaded_view(saved["view"])
    planner.cview = planner._loaded_view(saved["cview"])
    planner.shrinking = saved["shrinking"]
    planner.cshrinking = saved["cshrinking"]
    planner.failures = {(l, i): count for l, i, count in saved["failures"]}
    for l, i in saved["view"]:
        if l == 0 and not planner.built(0, i):
            planner.unbuilt.append(i)
            planner.unbuilt_set.add(i)
    _replay(planner, tail)
    if texts.kept:
        _count_logged_lines(planner, texts.kept)
    # the replay's calls were the old process's, and died with it; a restart merges nothing
    planner.running = []
    planner.ready, planner.ready_set = [], set()
    planner.deferred = []
    planner.retry_later = set()
    planner.merges, planner.cmerges = [], []
    # the replay's looks at the turn's view were the old process's too: the new one looks afresh [P26]
    planner.shown, planner.shown_starts = set(), -1
    _ready_frontier(planner)
    planner._schedule()
    planner._record_built()
    planner.failures_saved = dict(planner.failures)


def _replay(planner, tail: list[tuple[int, int, str, int]]) -> None:
    """The live history past the checkpoint: a node logged at T was built after message T−1
    was applied and before message T; a message's own free nodes are built by the message."""
    count = planner.texts.message_count()
    k = 0
    for t in range(planner.T, count + 1):
        while k < len(tail) and tail[k][3] <= t:
            _adopt(planner, *tail[k][:3])
            k += 1
        if t < count:
            kind, text = planner.texts.message(t)
            planner.apply(Message(kind, text))
    for l, i, text, _ in tail[k:]:
        _adopt(planner, l, i, text)


def _count_logged_lines(planner, kept: list[Node]) -> None:
    """[S29] A node the replay built with another text than its logged line (a message set aside
    or lost since, a byte changed under it) keeps the logged line, so the views count their lines
    as the logged texts show them, as a restart from a checkpoint counts them, not as the replay's
    texts did; the model starts from those views (bridge/lives.py `start_state`)."""
    for l, i in kept:
        planner._recent.pop((i << 6) | l, None)
    planner.view = planner._loaded_view(planner.view.lines())
    planner.cview = planner._loaded_view(planner.cview.lines())


def _adopt(planner, l: int, i: int, text: str) -> None:
    """A logged node, built as its event built it: with its free parent [gist §2], if a
    crash cut the event short before the parent was logged."""
    if planner.built_nodes.has(l, i):
        return
    planner._leave_queues((l, i))
    planner._build(l, i, text)
    planner._record_built()


def _ready_frontier(planner) -> None:
    """Every unbuilt parent whose two halves are built. Below a level's watermark every node
    is built, so such a parent lies between its own level's watermark and half its halves'
    watermark, or is the parent of a half built beyond it: only that frontier is looked at,
    O(levels + the merges waiting + the nodes built out of order)."""
    built = planner.built_nodes
    ready = []
    for l in range(min(built.levels(), LEVELS_MAX - 1)):
        mark = built.watermarks[l]
        parent_level = l + 1
        parent_mark = built.watermarks[parent_level]
        # parents whose halves are both below the watermark, and parents of nodes beyond it
        candidates = set(range(parent_mark, mark >> 1))
        candidates.update(i >> 1 for i in built.beyond[l])
        for parent in candidates:
            if (built.has(l, parent << 1) and built.has(l, (parent << 1) | 1)
                    and not built.has(parent_level, parent)):
                ready.append((l, parent << 1))
    # a free parent is built at once; a crash between a node's log and its free parent's
    # leaves one to build here, as the live process would have [gist §2]
    for l, i in sorted(ready):
        planner._ready_parent(l, i)
