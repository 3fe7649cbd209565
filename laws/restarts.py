"""Restarts, the batch's floor and the tree: laws of the model's state that no view proof reaches.

Strategy: a restart [F1] and a batch [gist §3.2] are decisions of `step` and `batch`, which
dispatch on the event's type and branch on the view's size, so they are checked on every state of
the same seeded model runs as the other event laws (laws.universal `all_transitions`):

- a restart keeps what view.json saves (both views, both shrinking states, the failure counts
  [P10] [P16]), T and the tree, and forgets only what dies with the process;
- a batch ends at or under its floor unless no pair can merge; and because a batch that stops
  one byte early passes that on almost every run, each batch is run again at a floor one byte
  under the size where it ended: it must merge on;
- the tree gives back, for every node put, the text put, and nothing for a node never put:
  proved on model/tree.py's own code for any tree, level and i ≥ 0 (laws.z3_tree); every i below
  2^16 at levels 0 to 2 is still run, as a cross-check by computation.
"""

from dataclasses import replace

from laws.core import TRUSTED_ENCODING, Budget, Law, Verdict
from laws.z3_runs import DEEP, transitions
from model.planner import Message, Restart, State, step, tree_parents
from model.tree import Tree, tree_get, tree_put
from model.view import merge, most_due, view_bytes


def none_can_merge(state: State, view) -> bool:
    return most_due(view, state.T, tree_parents(state.tree), False) < 0


KEPT = ("T", "view", "shrinking", "cview", "cshrinking", "failures", "tree")


def restart_keeps_state(budget: Budget) -> Verdict:
    """[F1] [P10] [P16] After a restart the views, both shrinking states, the failure
    counts, T and the tree are what they were; no call runs but those the new process starts, no
    retry is due and no turn waits."""
    from laws.universal import all_transitions

    seen = shrinking = cshrinking = failing = 0
    for _, _, state in all_transitions():
        after = step(state, Restart())
        seen += 1
        shrinking += state.shrinking
        cshrinking += state.cshrinking
        failing += len(state.failures) > 0
        for field in KEPT:
            if getattr(after, field) != getattr(state, field):
                return Verdict(False, "none", f"T={state.T}: a restart changed {field}")
        if after.retry_later or after.waiting:
            return Verdict(False, "none", f"T={state.T}: a retry is due or a turn waits after a restart")
        if step(replace(state, running=(), retry_later=(), waiting=False), Restart()).running != after.running:
            return Verdict(False, "none", f"T={state.T}: a restart kept a call of the old process running")
    if min(shrinking, cshrinking, failing) < 100:
        return Verdict(False, "none", f"too few states: {shrinking} shrinking, {cshrinking} with the compaction view shrinking, {failing} with failures")
    return Verdict(True, f"Searched: {seen:,} states of model runs", f"{shrinking} shrinking, {cshrinking} compaction views shrinking, {failing} with failure counts")


# A prompt compactor, so most batches stop at their floor rather than at unbuilt parents:
# (messages, seed) at laws.z3_runs's DEEP config, views of about ten lines.
PROMPT_RUNS = ((1_500, 7),)


def batch_transitions():
    from laws.universal import all_transitions

    yield from all_transitions()
    for messages, seed in PROMPT_RUNS:
        yield from transitions(messages, seed, DEEP, prompt=True)


def sizes_on_the_way(before: State, event: Message, merges: int):
    """The view's bytes after each of the batch's first `merges` merges: the message applied with
    no batch (ceilings out of reach), then the model's most_due pair merged, again and again."""
    c = before.config
    unbatched = replace(before, shrinking=False, config=replace(c, view_bytes_ceiling=1 << 60, cview_bytes_ceiling=1 << 60))
    grown = step(unbatched, event)
    parents = tree_parents(grown.tree)
    view, sizes = grown.view, []
    for _ in range(merges):
        k = most_due(view, grown.T, parents, False)
        if k < 0:
            break
        view = merge(view, k, parents)
        sizes.append(view_bytes(view))
    return sizes


def batch_ends_at_floor(budget: Budget) -> Verdict:
    """[gist §3.2] [P4] A batch ends with the view at or under its floor unless no pair
    can merge; the same for the compaction view. A batch of two merges or more is also run again
    at a floor one byte under the size its last merge but one left: it must make the last."""
    batches = again = 0
    for before, event, after in batch_transitions():
        if not isinstance(event, Message) or not (after.merges or after.cmerges or before.shrinking or before.cshrinking):
            continue
        batches += 1
        c = after.config
        # a batch ran on the view while it was shrinking or when it merged; on the compaction
        # view when the view merged, while it was shrinking, or when it merged
        view_ran = bool(after.merges) or before.shrinking
        cview_ran = bool(after.merges or after.cmerges) or before.cshrinking
        for which, floor, ran in (("view", c.view_bytes_floor, view_ran), ("cview", c.cview_bytes_floor, cview_ran)):
            view = getattr(after, which)
            if ran and view_bytes(view) > floor and not none_can_merge(after, view):
                return Verdict(False, "none", f"T={after.T}: the {which} ended at {view_bytes(view)} bytes, over its floor {floor}, with a pair that can merge")
        if len(after.merges) < 2:
            continue
        sizes = sizes_on_the_way(before, event, len(after.merges))
        if len(sizes) != len(after.merges):
            return Verdict(False, "none", f"T={after.T}: the batch made {len(after.merges)} merges, most_due allows {len(sizes)}")
        lower = sizes[-2] - 1
        rerun = step(replace(before, config=replace(c, view_bytes_floor=lower)), event)
        again += 1
        if view_bytes(rerun.view) > lower and not none_can_merge(rerun, rerun.view):
            return Verdict(False, "none", f"T={after.T}: at a floor of {lower} bytes the view ended at {view_bytes(rerun.view)}, with a pair that can merge")
    if again < 200:
        return Verdict(False, "none", f"only {again} batches run again one byte under their last merge but one")
    return Verdict(True, f"Searched: {batches:,} batches of model runs, {again:,} run again one byte under their last merge but one", "")


TREE_LEVELS = 3
TREE_INDICES = 1 << 16
TREE_LABEL = ("Proved (Z3): model/tree.py for any tree, any level and i ≥ 0, trie_put by induction on i; "
              f"trusted: {TRUSTED_ENCODING}, 4 sequence twins on levels and tries (twins_agree: Bounded, the "
              "trie's at concrete digits only), 2 recursion rules")


def tree_lookup_gives_what_was_put(budget: Budget) -> Verdict:
    """[gist §2] A lookup gives the text put at that node, and nothing for a node never put: for
    any tree and any nodes, on Z3 terms (laws.z3_tree); then, as a cross-check by computation,
    every i below 2^16 at three levels."""
    from laws.z3_tree import tree_proofs

    proved, problem, answers, paths = tree_proofs()
    if not proved:
        return Verdict(False, "none", problem)
    ok, detail = tree_exhaustive()
    if not ok:
        return Verdict(False, "none", detail)
    seconds = sum(answer.seconds for _, answer in answers)
    return Verdict(True, TREE_LABEL, f"{len(answers)} Z3 queries over {paths} paths in {seconds * 1000:.0f} ms; "
                   f"cross-check: {detail}")


def tree_exhaustive():
    """Every i < TREE_INDICES at levels 0 to TREE_LEVELS − 1 (every node, every other, every
    third) put, then looked up, and level TREE_LEVELS empty."""
    tree = Tree()
    for l in range(TREE_LEVELS):
        for i in range(0, TREE_INDICES >> l, 1 + l):  # level 1: every other node; level 2: every third
            tree = tree_put(tree, l, i, f"{l}.{i}")
    checked = 0
    for l in range(TREE_LEVELS + 1):
        for i in range(TREE_INDICES >> min(l, TREE_LEVELS - 1)):
            put = l < TREE_LEVELS and i % (1 + l) == 0 and i < TREE_INDICES >> l
            got = tree_get(tree, l, i)
            checked += 1
            if got != (f"{l}.{i}" if put else None):
                return False, f"node ({l}, {i}) reads {got!r}"
    return True, f"{checked:,} lookups, every i < {TREE_INDICES:,} at levels 0 to {TREE_LEVELS - 1}"


LAWS = [
    Law("restart_keeps_state", "§3.2", "A restart keeps both views, both shrinking states, the failure counts, T and the tree; only running calls, due retries and a waiting turn die with the process [F1] [P10] [P16].", "runs", "Searched: at least 4,000 states of model runs", restart_keeps_state),
    Law("batch_ends_at_floor", "§3.2, §4", "A batch ends with the view at or under its floor unless no pair can merge, the compaction view too; run again at a floor one byte under its last merge but one, it makes the last.", "runs", "Searched: at least 3,000 batches of model runs, at least 600 run again one byte under their last merge but one", batch_ends_at_floor),
    Law("tree_lookup_gives_what_was_put", "§2", "A lookup of node (l, i) gives the text put there, and nothing for a node never put.", "z3", TREE_LABEL, tree_lookup_gives_what_was_put),
]
