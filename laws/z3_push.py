"""push_agrees_always: the lemmas of docs/push_agrees_always.md, proved with Z3 over unbounded
integers, and the digit picture checked by computation on the model's push and fold.

Strategy: after t pushes (T = t + 1 messages) push's list is a bijective binary counter: keep bits
d_0 (newest) .. d_{m−1}, T = Σ (1 + d_j)·2^j, entry j one line of level j + d_j. Each lemma below is
one Z3 query whose `unsat` is the proof; the induction lemmas are proved as a base query and a step
query (Z3 does not do induction itself). Powers of two are `pow2` with ground instances of its
axioms. L4 runs the model's own `more_due` on Z3 terms (laws.z3_core.Sym). What Z3 does not check
— that push is the digit increment, and the glue that joins the lemmas — is checked by computation
(`digits_agree`) on the model's push and fold for every t up to the bound.
"""


import z3

from laws import z3_model as zm
from laws.z3_core import POW2, Answer, Sym, formula, obligations, prove, satisfiable
from model.push import States, fold_step, push, push_states, view_items
from model.view import View, more_due


def lemmas(more_due_fn=more_due) -> list[tuple[str, str, Answer, bool]]:
    """(name, claim, Z3's answer, assumptions satisfiable) for L0–L5."""
    a, p, p1, pc, d, r, s = z3.Ints("a p p1 pc d r s")
    digit = z3.Or(d == 0, d == 1)
    doubling = [p >= 1, p1 == 2 * p]
    found = []

    def add(name, claim, body, assumptions):
        found.append((name, claim, prove(body, assumptions), satisfiable(assumptions)))

    # L0 (push_runs_as_the_counter, below, on push's own code) makes push's keep bits a
    # representation of T = t + 1; it is the bijective digits because the representation is
    # unique (by induction on its length, this step).
    v, w, e, x, y = z3.Ints("v w e x y")
    add("L0 unique", "(1 + d) + 2x = (1 + e) + 2y with d, e ∈ {0, 1} ⇒ d = e and x = y",
        z3.And(d == e, x == y), [digit, z3.Or(e == 0, e == 1), x >= 0, y >= 0, (1 + d) + 2 * x == (1 + e) + 2 * y])

    add("L1 base", "A(0) = 2·2^0 − 2", 0 == 2 * p - 2, [p == 1])
    add("L1 step", "all ones: A(j) = 2^(j+1) − 2 ⇒ A(j+1) = 2^(j+2) − 2",
        a + 2 * p == 2 * p1 - 2, doubling + [a == 2 * p - 2])
    add("L2 step", "A(j) ≤ 2^(j+1) − 2 ⇒ A(j+1) ≤ 2^(j+2) − 2",
        a + (1 + d) * p <= 2 * p1 - 2, doubling + [digit, a <= 2 * p - 2, a >= 0])
    add("L3 base", "d_c = 0: A(c+1) ≤ 2^(c+2) − 2 − 2^c",
        a + p <= 2 * p1 - 2 - p, doubling + [a <= 2 * p - 2, a >= 0])
    add("L3 step", "A(j) ≤ 2^(j+1) − 2 − 2^c ⇒ A(j+1) ≤ 2^(j+2) − 2 − 2^c",
        a + (1 + d) * p <= 2 * p1 - 2 - pc, doubling + [digit, pc >= 1, a <= 2 * p - 2 - pc, a >= 0])
    # L4: the carry pair (level la, due exactly 1) is strictly more due than any older sibling
    # pair (level lb > la, at most 2^lb − 2^la messages from its last to the view's end), by the
    # model's own `more_due`; and the older pair is not more due than it.
    la, ia, lb, ib, T = z3.Ints("la ia lb ib T")
    pa, pb = POW2(la), POW2(lb)
    last_a = (ia + 2) * pa - 1
    last_b = (ib + 2) * pb - 1
    setting = [la >= 0, lb > la, ia >= 0, ib >= 0, pa >= 1, pb >= 1,
               T - last_a == pa, T - last_b >= 2, T - last_b <= pb - pa]
    with obligations() as side:
        a_wins = formula(more_due_fn(Sym(la), Sym(ia), Sym(lb), Sym(ib), Sym(T)))
        b_wins = formula(more_due_fn(Sym(lb), Sym(ib), Sym(la), Sym(ia), Sym(T)))
    carry_wins = z3.And([a_wins, z3.Not(b_wins)] + [condition for condition, _ in side])
    found.append(("L4", "the carry pair is strictly the most due", prove(carry_wins, setting),
                  satisfiable(setting + [pa == 2, pb == 8])))
    add("L5 step", "S(j+1) = r·2^(j+2) ⇒ S(j) = (2r + 1 + d_{j+1})·2^(j+1)",
        s + (1 + d) * p == (2 * r + 1 + d) * p, [digit, p >= 1, p1 == 2 * p, s == r * p1, r >= 0])
    return found


# ---- push is the counter: model/push.py's own push, run on Z3 terms ----


class SomeList:
    """Any rest of push's list that the induction hypothesis covers: its entries sit at weight w
    (its newest is entry j of the whole list, w = 2^j), it is well formed (keep bits 0 or 1, life
    0) and good (each state is the start of its line), and its weighted total is `total`."""

    def __init__(self, weight, total):
        self.weight = weight
        self.total = total


def same_weight(entries: SomeList, w) -> None:
    if not z3.is_true(z3.simplify(entries.weight == w)):
        raise ValueError("a rest of the list was read at another weight than its own")


def total_of(entries, w):
    """Σ (1 + keep)·w·2^k over the entries, newest first: T for the whole list at w = 1."""
    if entries is None:
        return z3.IntVal(0)
    if isinstance(entries, SomeList):
        same_weight(entries, w)
        return entries.total
    return (1 + Sym.lift(entries.keep)) * w + total_of(entries.older, 2 * w)


def well_formed(entries):
    if entries is None or isinstance(entries, SomeList):
        return z3.BoolVal(True)
    keep = Sym.lift(entries.keep)
    return z3.And(z3.Or(keep == 0, keep == 1), Sym.lift(entries.life) == 0, well_formed(entries.older))


def good(entries, w):
    """Each entry's state is the start of its line: the total of the entries older than it."""
    if entries is None or isinstance(entries, SomeList):
        return z3.BoolVal(True)
    return z3.And(Sym.lift(entries.state) == total_of(entries.older, 2 * w), good(entries.older, 2 * w))


def pushable(new_state, entries, w):
    """What push needs: a well formed, good list, and the new state at its total."""
    return z3.And(well_formed(entries), good(entries, w), Sym.lift(new_state) == total_of(entries, w))


def pushed(entries, result, w):
    """What push gives: a well formed, good list whose total is one line of weight w more."""
    return z3.And(well_formed(result), good(result, w), total_of(result, w) == total_of(entries, w) + w)


def push_runs_as_the_counter(push_module=None) -> list[tuple[str, str, Answer, bool]]:
    """By induction on the list's length, on model/push.py's own `push`: for a well formed, good
    list and the new state at its total, push gives a well formed, good list whose total is one
    more. Each shape a list that meets the precondition can have is run: empty, or a newest
    entry with keep 0 or 1 and life 0 over any rest (a SomeList). The recursive call on the rest
    is the induction hypothesis: it must meet the precondition (an obligation) and its result is
    assumed to meet the postcondition. The `if life > 0` branch is never taken: life is 0."""
    import model.push as module

    module = push_module or module
    original = module.push
    w, x, s, a = z3.Ints("w x s a")
    required: list = []
    facts: list = []

    def by_hypothesis(new_state, entries):
        if isinstance(entries, SomeList):
            required.append(pushable(new_state, entries, entries.weight))
            result = SomeList(entries.weight, z3.Int(zm.fresh_name("total")))
            facts.append(result.total == entries.total + entries.weight)
            return result
        return original(new_state, entries)

    shapes = [("the empty list", None)] + [
        (f"newest keep {keep}", States(keep, 0, Sym(s), SomeList(2 * w, a))) for keep in (0, 1)]
    found = []
    module.push = by_hypothesis
    try:
        for name, entries in shapes:
            required.clear()
            facts.clear()
            with obligations() as side:
                result = module.push(Sym(x), entries)
            assumptions = [w >= 1, pushable(Sym(x), entries, w)] + facts
            claim = z3.And([pushed(entries, result, w)] + required + [c for c, _ in side])
            found.append((f"L0 {name}", "push keeps the list well formed and good, its total one more",
                          prove(claim, assumptions), satisfiable(assumptions)))
    finally:
        module.push = original
    # the induction over t: push 0 starts from the empty list (total 0, new state 0); after
    # push t (total t before, one more after, at weight 1) push t + 1's new state is the total
    before, after, t = z3.Ints("before after t")
    runs = [before == t, after == before + 1]
    found.append(("L0 runs", "after push t the list meets push t + 1's precondition",
                  prove(z3.And(t + 1 == after, z3.IntVal(0) == total_of(None, 1)), runs), satisfiable(runs)))
    return found


def bijective_digits(T: int) -> tuple[int, ...]:
    """The keep bits d_0 (newest) .. d_{m−1} with T = Σ (1 + d_j)·2^j."""
    digits: tuple[int, ...] = ()
    while T > 0:
        d = 1 if T % 2 == 0 else 0
        digits = digits + (d,)
        T = (T - 1 - d) >> 1
    return digits


def digit_view(digits: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """The view the digits stand for, oldest first, as (id, n): entry j is 2^(j + d_j) messages."""
    items = []
    start = 0
    for j in range(len(digits) - 1, -1, -1):
        n = 1 << (j + digits[j])
        items.append((start, n))
        start += n
    return tuple(items)


def keeps(states: States | None) -> tuple[int, ...]:
    found: tuple[int, ...] = ()
    while states is not None:
        found = found + (states.keep,)
        states = states.older
    return found


def digits_agree(t_max: int, fold=fold_step) -> tuple[bool, str]:
    """For t = 0..t_max: push's keep bits are the bijective digits of T = t + 1, its states start
    the digit view's lines, the fold's view is the digit view, and the fold made one merge
    exactly when some digit was 0 (the carry's), none when every digit was 1."""
    states = None
    view: View = ()
    for t in range(t_max + 1):
        T = t + 1
        before_digits = bijective_digits(t)
        states = push(t, states)
        digits = bijective_digits(T)
        expected = digit_view(digits)
        if keeps(states) != digits:
            return False, f"t={t}: push's keep bits {keeps(states)} are not the digits {digits}"
        if push_states(states) != tuple(start for start, _ in expected):
            return False, f"t={t}: push's states are not the digit view's starts"
        grown = len(view) + 1
        view = fold(view, T, len(push_states(states)), False)
        if view_items(view) != expected:
            return False, f"t={t}: the fold's view is not the digit view"
        merges = grown - len(view)
        carries = 0 if all(d == 1 for d in before_digits) else 1
        if merges != carries:
            return False, f"t={t}: the fold made {merges} merges, the carry {carries}"
    return True, f"t = 0..{t_max:,}"
