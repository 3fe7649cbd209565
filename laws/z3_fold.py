"""push_agrees_always, the fold's side: model/push.py's `fold_step` (its append, then model/view.py's
`fit`, `most_due`, `more_due`, `merge`, `view_bytes`) run on Z3 terms over the digit view of any
length, proved to give the digit view of one more message by exactly the carry's merge.

Strategy: the digit view of N messages with m lines (laws.z3_model's arrays, of a symbolic
length) is written as what its lines are, oldest first: line p is entry j = m − 1 − p of the
counter, its level is j + d with a digit d ∈ {0, 1}, it is a unit line (built, empty text, one
unit), the first starts at 0, each ends where the next starts, the last ends at N (`parts`,
`digit_view_parts`). Powers of two are the uninterpreted `pow2`; the only facts used of it are
instances of its axioms at the view's entries and levels (`pow2_at`). A fact that speaks of lines
p and p + 1 is instantiated only where a query names the line (`each_line`), so none loops.

Three facts of any digit view are lemmas (`view_lemmas`), each a ground query at a symbolic line:
L5 (a 0-digit line has an even index), siblings (adjacent lines of one level are indices i and
i + 1), and eukhe's pa.Good (a line with only 1-digits after it ends 2^(j+1) − 2 messages before
the view's end, one with the lowest 0-digit Z after it at most 2^(j+1) − 2 − 2^(m−1−Z)), an
induction over the lines: base and step. Appending message N's line keeps each fact
(`grown_lemmas`); in the grown view the carry pair (lines Z, Z + 1) is two siblings due exactly 1,
an older pair that can merge is due less than 1 (pa.old_one), no later pair can merge
(`carry_lemmas`); and by the model's `more_due`, due 1 beats due less than 1 (`wins_lemma`).

The step is then the model's own code (`fold_steps`): `fold_step(V, N + 1, budget)` with the
budget the digit count of N + 1 (m if some digit is 0, m + 1 if every digit is 1), under the loop
rules with these invariants: most_due's scan holds a pair older than the carry pair until it
meets it, and the carry pair after (its step assumes the lemmas' instances at the scanned pair
and the best so far); fit's batch is the grown view with the carry pair as its most due, or the
carry's merge. Z3 proves the result is the grown view with the carry pair replaced by its parent
(or the grown view itself when every digit was 1), and then, line by line, that it is the digit
view of N + 1 (pa.step, pa.same_lines). With laws.z3_push's L0 (push is the counter) and the
uniqueness of the digits, docs/push_agrees_always.md joins the steps by induction over t.
"""


import z3

import model.base as base
from laws import z3_model as zm
from laws import z3_views as zv
from laws.z3_core import POW2, Answer, Sym, failed_answer, formula, obligations, prove, satisfiable, vacuous
from model.push import fold_step, unit_line
from model.view import more_due


def P(V: zm.ZSeq, p):
    return V.arrays["l"][p], V.arrays["i"][p]


def digit(V: zm.ZSeq, m, p):
    return V.arrays["l"][p] - (m - 1 - p)


def weight(m, p):
    """2^j for line p's entry j = m − 1 − p."""
    return POW2(m - 1 - p)


def start(V: zm.ZSeq, p):
    l, i = P(V, p)
    return i * POW2(l)


def end(V: zm.ZSeq, p):
    l, i = P(V, p)
    return (i + 1) * POW2(l)


def index(name: str):
    return zv.fresh_index(name)


# A fact that speaks of line p and line p + 1 would, instantiated at every line term it meets,
# make a new line term and go on without end (a matching loop). Such facts are instantiated only
# where a query names `at_line(q)`: a pattern, no meaning (an unknown function nothing else uses).
AT_LINE = z3.Function("at_line", z3.IntSort(), z3.IntSort())


def each_line(p, body):
    """∀p body, instantiated only at the lines a query names with at_line."""
    return z3.ForAll([p], body, patterns=[AT_LINE(p)])


def unit(V: zm.ZSeq, p):
    A = V.arrays
    return z3.And(A["built"][p], A["bytes"][p] == 1, A["text"][p] == zm.literal(""))


def line_at(V: zm.ZSeq, m, p):
    """Line p of the digit view (0 ≤ p < m): digit 0 or 1, a node index ≥ 0, a unit line."""
    return z3.Implies(z3.And(0 <= p, p < m), z3.And(
        z3.Or(digit(V, m, p) == 0, digit(V, m, p) == 1), V.arrays["i"][p] >= 0, unit(V, p)))


def joined_at(V: zm.ZSeq, m, p):
    """Line p ends where line p + 1 starts."""
    return z3.Implies(z3.And(0 <= p, p + 1 < m), end(V, p) == start(V, p + 1))


def pow2_at(V: zm.ZSeq, m, p):
    """Instances of pow2's axioms (pow2(0) = 1, pow2(l + 1) = 2·pow2(l), pow2(l) ≥ 1 for l ≥ 0)
    at line p's entry and level: true of every view, assumed, never proved."""
    L = V.arrays["l"]
    return z3.Implies(z3.And(0 <= p, p < m), z3.And(
        weight(m, p) >= 1,
        z3.Implies(digit(V, m, p) == 1, POW2(L[p]) == 2 * weight(m, p)),
        z3.Implies(digit(V, m, p) == 0, POW2(L[p]) == weight(m, p)),
        z3.Implies(p + 1 < m, weight(m, p) == 2 * weight(m, p + 1))))


def lowest_zero(V: zm.ZSeq, m, Z):
    """Z is the lowest 0-digit's line (the newest), or −1 when every digit is 1."""
    q = index("q_low")
    ones_after = lambda after: z3.ForAll([q], z3.Implies(z3.And(after < q, q < m), digit(V, m, q) == 1))  # noqa: E731
    return z3.Or(z3.And(Z == -1, ones_after(-1)),
                 z3.And(0 <= Z, Z < m, digit(V, m, Z) == 0, ones_after(Z)))


def good_at(V: zm.ZSeq, m, N, Z, p):
    """pa.Good at line p: the messages after it are 2^(j+1) − 2 when every later digit is 1, and
    at most 2^(j+1) − 2 − 2^(m−1−Z) when the lowest 0-digit Z is later."""
    after = N - end(V, p)
    return z3.And(z3.Implies(p >= Z, after == 2 * weight(m, p) - 2),
                  z3.Implies(p < Z, after <= 2 * weight(m, p) - 2 - weight(m, Z)))


def good_in(V: zm.ZSeq, m, N, Z, p):
    return z3.Implies(z3.And(0 <= p, p < m), good_at(V, m, N, Z, p))


def aligned_at(V: zm.ZSeq, m, p):
    """L5: a line whose digit is 0 has an even index (it is the left half of a node)."""
    return z3.Implies(z3.And(0 <= p, p < m, digit(V, m, p) == 0), V.arrays["i"][p] % 2 == 0)


def sibling_at(V: zm.ZSeq, m, p):
    """Two adjacent lines of one level are node indices i and i + 1."""
    L, I = V.arrays["l"], V.arrays["i"]
    return z3.Implies(z3.And(0 <= p, p + 1 < m, L[p] == L[p + 1]), I[p + 1] == I[p] + 1)


def parts(V: zm.ZSeq, m, N, Z) -> list[tuple[str, object, bool]]:
    """What the step assumes of lines 0 .. m − 1 of V, as (name, formula or a function of a line
    p, whether it speaks of line p + 1 too): the digit view, pow2's instances, the lowest zero,
    and three lemmas (`view_lemmas`, for every digit view)."""
    return [
        ("m ≥ 1", m >= 1, False), ("N ≥ 1", N >= 1, False), ("the view holds m lines", V.n >= m, False),
        ("each line", lambda p: line_at(V, m, p), False),
        ("the first line starts at 0", V.arrays["i"][0] == 0, False),
        ("each line ends where the next starts", lambda p: joined_at(V, m, p), True),
        ("the last line ends at N", end(V, m - 1) == N, False),
        ("pow2(0) = 1", POW2(0) == 1, False),
        ("pow2 at each line", lambda p: pow2_at(V, m, p), True),
        ("the lowest zero", lowest_zero(V, m, Z), False),
        ("Good", lambda p: good_in(V, m, N, Z, p), True),
        ("L5 aligned", lambda p: aligned_at(V, m, p), False),
        ("siblings", lambda p: sibling_at(V, m, p), True),
    ]


def quantified(found) -> object:
    """The parts as one formula: each function of p under ∀p (with at_line as its pattern when it
    speaks of line p + 1)."""
    p = index("p_fact")
    formulas = []
    for _, part, next_line in found:
        if callable(part):
            formulas.append(each_line(p, part(p)) if next_line else z3.ForAll([p], part(p)))
        else:
            formulas.append(part)
    return z3.And(formulas)


def ground(found, points) -> list:
    """The parts' instances at the given lines."""
    formulas = []
    for _, part, _ in found:
        if callable(part):
            formulas += [part(q) for q in points]
        else:
            formulas.append(part)
    return formulas


def facts_of(V: zm.ZSeq, m, N, Z):
    return quantified(parts(V, m, N, Z))


def digit_view_parts(V: zm.ZSeq, m, N):
    """V is the digit view of N messages: exactly m lines, each as `line_at`, the first from 0,
    each ending where the next starts, the last ending at N."""
    return [
        ("m lines", V.n == m, False), ("m ≥ 1", m >= 1, False), ("N ≥ 1", N >= 1, False),
        ("each line", lambda p: line_at(V, m, p), False),
        ("the first line starts at 0", V.arrays["i"][0] == 0, False),
        ("each line ends where the next starts", lambda p: joined_at(V, m, p), True),
        ("the last line ends at N", end(V, m - 1) == N, False),
    ]


def digit_view(V: zm.ZSeq, m, N):
    return quantified(digit_view_parts(V, m, N))


def view_lemmas() -> list[tuple[str, str, Answer, bool]]:
    """L5, the sibling indices and pa.Good, for any digit view: (name, claim, answer, witnessed).
    Each query is ground, on the instances of the digit view's facts at the lines it names (a
    product cancelled by pow2 ≥ 1 is nonlinear, which Z3 decides well only without quantifiers);
    the claim is at any line p, so it holds at every line. Good is an induction over the lines,
    newest first: its base and its step."""
    V, m, N, Z = zv.fresh_view("D"), z3.Int("m"), z3.Int("N"), z3.Int("Z")
    p = z3.Int("p")
    definition = parts(V, m, N, Z)[:10]  # the digit view, pow2's instances and the lowest zero

    def setting(points):
        ones = [z3.Implies(z3.And(Z < x, x < m), digit(V, m, x) == 1) for x in points]
        return ground(definition, points) + ones + [V.n == m]

    found = []

    def add(name, claim, body, points):
        assumptions = setting(points)
        witness = satisfiable(assumptions + [m == 3, digit_view(V, m, N), lowest_zero(V, m, Z)])
        found.append((name, claim, prove(body, assumptions), witness))

    add("L5 aligned", "a 0-digit line has an even index", aligned_at(V, m, p), (p - 1, p))
    add("siblings", "adjacent lines of one level are indices i, i + 1", sibling_at(V, m, p), (p, p + 1))
    add("Good base", "the newest line ends at the view's end", good_in(V, m, N, Z, m - 1), (m - 1,))
    add("Good step", "Good at line p + 1 ⇒ Good at line p",
        z3.Implies(z3.And(0 <= p, p + 1 < m, good_in(V, m, N, Z, p + 1)), good_in(V, m, N, Z, p)), (p, p + 1))
    return found


# ---- the step, on the model's code ----


def grown(G: zm.ZSeq, m, N, Z):
    """G is the digit view of N messages (lines 0 .. m − 1) with message N's unit line appended."""
    L, I = G.arrays["l"], G.arrays["i"]
    return z3.And(G.n == m + 1, facts_of(G, m, N, Z), L[m] == 0, I[m] == N, unit(G, m))


def ground_facts(G: zm.ZSeq, m, N, Z, points) -> list:
    """The instances at the given lines of what `grown` says of G (each implied by it)."""
    L, I = G.arrays["l"], G.arrays["i"]
    ones = [z3.Implies(z3.And(Z < q, q < m), digit(G, m, q) == 1) for q in points]
    return ground(parts(G, m, N, Z), points) + ones + [G.n == m + 1, L[m] == 0, I[m] == N, unit(G, m)]


def grown_lemmas() -> list[tuple[str, str, Answer, bool]]:
    """For any digit view V of N messages with the facts of `parts`, V with message N's unit line
    appended (the model's own `appended` twin and `unit_line`) meets `grown`: each part at any
    line p, from V's facts at lines p and p + 1."""
    V, m, T, Z = zv.fresh_view("V"), z3.Int("m"), z3.Int("T"), z3.Int("Z")
    N = T - 1
    p = z3.Int("p")
    with zm.running(zm.Proof({})):
        G = base.appended(V, unit_line(0, Sym(T) - 1))
    given = ground(parts(V, m, N, Z), (p, p + 1)) + [V.n == m]
    found = []
    claims = [(name, part(p) if callable(part) else part) for name, part, _ in parts(G, m, N, Z)]
    L, I = G.arrays["l"], G.arrays["i"]
    claims += [("m + 1 lines", G.n == m + 1), ("the new line", z3.And(L[m] == 0, I[m] == N, unit(G, m)))]
    for name, claim in claims:
        found.append((f"grown: {name}", "appending message N's line keeps lines 0 .. m − 1",
                      prove(claim, given), satisfiable(given + [m == 2])))
    return found


def last(G: zm.ZSeq, p):
    """The last message of the pair at lines p, p + 1 as the gist counts it: (i + 2)·2^l − 1."""
    l, i = P(G, p)
    return (i + 2) * POW2(l) - 1


def carry_claims(G: zm.ZSeq, m, N, Z, k, b):
    """(name, claim, premise, the lines whose facts it uses) of the carry pair and the others in
    the grown view G, T = N + 1 messages: each proved once for any G, then used at the scan's
    step as an instance."""
    T, L = N + 1, G.arrays["l"]
    return [
        ("the carry pair is two siblings", zv.siblings(G, Z), Z >= 0, (Z - 1, Z, Z + 1)),
        ("the carry pair is due exactly 1", z3.And(L[Z] >= 0, POW2(L[Z]) >= 1, T - last(G, Z) == POW2(L[Z])),
         Z >= 0, (Z, Z + 1)),
        ("pa.old_one: an older pair that can merge is due less than 1",
         z3.And(L[b] >= 0, POW2(L[b]) >= 1, T - last(G, b) < POW2(L[b])),
         z3.And(Z >= 0, 0 <= b, b < Z, zv.siblings(G, b)), (Z, b, b + 1)),
        ("no pair after the carry pair can merge", z3.Not(zv.siblings(G, k)),
         z3.And(Z >= 0, Z < k, k < m), (k, k + 1)),
    ]


def carry_lemmas() -> list[tuple[str, str, Answer, bool]]:
    G, m, N, Z, k, b = zv.fresh_view("G"), z3.Int("m"), z3.Int("N"), z3.Int("Z"), z3.Int("k"), z3.Int("b")
    found = []
    for name, claim, premise, points in carry_claims(G, m, N, Z, k, b):
        assumptions = ground_facts(G, m, N, Z, points) + [premise]
        found.append((name, "in the grown digit view", prove(claim, assumptions), satisfiable(assumptions)))
    return found


def wins_premise(la, ia, lb, ib, T):
    pa, pb = POW2(la), POW2(lb)
    return z3.And(la >= 0, lb >= 0, pa >= 1, pb >= 1,
                  T - ((ia + 2) * pa - 1) == pa, T - ((ib + 2) * pb - 1) < pb)


def wins_lemma(more_due_fn) -> tuple[str, str, Answer, bool]:
    """L4 as the scan uses it, on the model's more_due: a pair due exactly 1 is more due than a
    pair due less than 1."""
    la, ia, lb, ib, T = z3.Ints("la ia lb ib T")
    premise = wins_premise(la, ia, lb, ib, T)
    with obligations() as side:
        wins = formula(more_due_fn(Sym(la), Sym(ia), Sym(lb), Sym(ib), Sym(T)))
    claim = z3.And([wins] + [condition for condition, _ in side])
    return ("L4 due 1 wins", "a pair due exactly 1 is more due than one due less than 1",
            prove(claim, [premise]), satisfiable([premise, la == 1, lb == 2]))


def same_lines(A: zm.ZSeq, a, B: zm.ZSeq, b):
    return z3.And([A.arrays[f][a] == B.arrays[f][b] for f, _ in zm.LINE.fields])


def carried_at(W: zm.ZSeq, G: zm.ZSeq, m, Z, p):
    return z3.And(z3.Implies(z3.And(0 <= p, p < Z), same_lines(W, p, G, p)),
                  z3.Implies(z3.And(Z < p, p < m), same_lines(W, p, G, p + 1)))


def merged_line(W: zm.ZSeq, G: zm.ZSeq, Z):
    L, I = G.arrays["l"], G.arrays["i"]
    return z3.And(W.arrays["l"][Z] == L[Z] + 1, W.arrays["i"][Z] == I[Z] / 2, unit(W, Z))


def carried(W: zm.ZSeq, G: zm.ZSeq, m, Z):
    """W is G with the carry pair (lines Z and Z + 1) replaced by its parent's unit line."""
    p = index("p_car")
    return z3.And(W.n == m, z3.ForAll([p], carried_at(W, G, m, Z, p)), merged_line(W, G, Z))


def same_view(A: zm.ZSeq, B: zm.ZSeq):
    return zm.same(zm.Shape(zm.LINE), A, B)


class Setting:
    """The constants of one step: m lines, T = N + 1 messages after it, the lowest zero's line Z."""

    def __init__(self, more_due_fn):
        self.m, self.T, self.Z = z3.Ints("m T Z")
        self.N = self.T - 1
        self.more_due = more_due_fn

    def budget(self):
        """The digit count of N + 1: push's length after the push (L0 and the digits' uniqueness)."""
        return z3.If(self.Z >= 0, self.m, self.m + 1)

    def on_carry(self, env):
        return z3.And(grown(env["view"], self.m, self.N, self.Z), self.Z >= 0, Sym.lift(env["T"]) == self.T)

    def carry_scan_loop(self) -> zm.Loop:
        """most_due's scan: `scanned` (laws.z3_views), and on the grown digit view with a 0-digit,
        the best is older than the carry pair until the scan reaches it, and the carry pair after."""
        m, N, Z = self.m, self.N, self.Z

        def invariant(env, k, best):
            view = env["view"]
            b, k = best.term, k.term
            return z3.And(zv.scanned(view, k, b, zv.built_by(env["parents"])), z3.Implies(
                self.on_carry(env), z3.And(z3.Implies(k <= Z, b < Z), z3.Implies(k > Z, b == Z))))

        def requires(env, count):
            return z3.And(zv.nodes(env["view"]), count.term == env["view"].n - 1)

        def index_facts(env, k, best) -> list:
            """Instances of carry_lemmas at this step's pair and best, and of L4 due 1 wins."""
            view, T = env["view"], Sym.lift(env["T"])
            here = [z3.Implies(z3.And(self.on_carry(env), premise), claim)
                    for _, claim, premise, _ in carry_claims(view, m, N, Z, k.term, best.term)]
            la, ia = P(view, k.term)
            lb, ib = P(view, best.term)
            with obligations() as side:
                wins = formula(self.more_due(Sym(la), Sym(ia), Sym(lb), Sym(ib), Sym(T)))
            here.append(z3.Implies(wins_premise(la, ia, lb, ib, T), z3.And([wins] + [c for c, _ in side])))
            return here

        return zm.Loop(invariant, requires=requires, index_facts=index_facts)

    def fit_loop(self) -> zm.Loop:
        """fit's batch: the grown view with the carry pair as its most due (any pair when every
        digit is 1), or the carry's merge. The variant is the view's length."""
        m, N, Z = self.m, self.N, self.Z

        def invariant(env, state):
            view, _, k = state
            G = env["view"]
            return z3.Or(z3.And(same_view(view, G), z3.Implies(Z >= 0, Sym.lift(k) == Z)),
                         z3.And(Z >= 0, carried(view, G, m, Z)))

        def variant(env, state):
            return state[0].n

        def requires(env):
            return z3.And(grown(env["view"], m, N, Z), Sym.lift(env["T"]) == self.T,
                          Sym.lift(env["budget_bytes"]) == self.budget())

        return zm.Loop(invariant, variant, zv.FITTING, requires=requires)

    def loops(self):
        return {
            "most_due.<locals>.better": self.carry_scan_loop(),
            "view_bytes.<locals>.add": unit_bytes_loop(),
            "fit.<locals>.merge_most_due": self.fit_loop(),
        }


def unit_bytes_loop() -> zm.Loop:
    """view_bytes's sum over unit lines: the count of lines so far."""

    def invariant(env, k, total):
        return Sym.lift(total) == k.term

    def requires(env, count):
        view = env["view"]
        q = index("q_bytes")
        return z3.And(count.term == view.n, z3.ForAll([q], z3.Implies(z3.And(0 <= q, q < view.n),
                                                                      view.arrays["bytes"][q] == 1)))

    return zm.Loop(invariant, requires=requires)


def pointwise(name: str, claims, given, witness, cases=lambda p: [z3.BoolVal(True)],
              case_given=None) -> list[tuple[str, Answer]]:
    """Each claim (a formula, or a function of a line p) proved from the ground facts `given`
    (a function of p): a claim at a fresh line p holds at every line. A claim of p is proved in
    each of `cases(p)` (which must cover every p: their disjunction is proved too)."""
    p = z3.Int(f"p_{name}")
    found = []
    assumptions = given(p)
    if case_given is None:
        case_given = lambda p, number: assumptions  # noqa: E731
    split = cases(p)
    found.append((f"{name}: its cases cover every line", prove(z3.Or(split), assumptions)))
    for part_name, part, _ in claims:
        if not callable(part):
            found.append((f"{name}: {part_name}", prove(part, assumptions)))
            continue
        for number, case in enumerate(split):
            found.append((f"{name}: {part_name} (case {number + 1})",
                          prove(part(p), case_given(p, number) + [case])))
    if not satisfiable(assumptions + witness):
        raise zm.Unproved(vacuous(name))
    return found


def concrete_carry(V: zm.ZSeq, T) -> list:
    """The carry's witness as one concrete digit view, so Z3 need not search for one: 12
    messages as lines 0+8, 8+2, 10+2 (digits 1, 0, 1: the carry pair is lines 1 and 2), T = 13.
    Left to find a view itself, Z3 took from 2.7 to 8 million units as the names of the query's
    terms changed, once past its limit (a full run's "no values meet its assumptions")."""
    L, I = V.arrays["l"], V.arrays["i"]
    return [T == 13, L[0] == 3, I[0] == 0, L[1] == 1, I[1] == 4, L[2] == 1, I[2] == 5] + [
        POW2(k) == 2 ** k for k in range(5)]


def fold_steps(fold=fold_step, more_due_fn=more_due) -> tuple[bool, str, list[tuple[str, Answer]]]:
    """pa.step on the model's code: for the digit view V of N messages (m lines, lowest zero Z),
    fold_step(V, N + 1, the digit count of N + 1) is the grown view with the carry pair merged
    (Z ≥ 0) or the grown view itself (every digit 1), and is the digit view of N + 1."""
    s = Setting(more_due_fn)
    m, T, N, Z = s.m, s.T, s.N, s.Z
    after: list = []

    def body(proof: zm.Proof) -> None:
        V = zv.fresh_view("V")
        G = base.appended(V, unit_line(0, Sym(T) - 1))
        proof.assume(V.n == m, grown(G, m, N, Z))  # grown_lemmas: it follows from V's digit view
        fitted = fold(V, Sym(T), Sym(s.budget()), False)
        L = G.arrays["l"]
        with proof.under(Z >= 0) as given:
            given.check("some digit is 0: the fold makes exactly the carry's merge", carried(fitted, G, m, Z))
            given.witnessed("a carry", m == 3, Z == 1, *concrete_carry(V, T))
        with proof.under(Z < 0) as given:
            given.check("every digit is 1: the fold merges nothing", same_view(fitted, G))
            given.witnessed("all ones", m == 2)

        def carry_facts(p):
            points = (0, p - 1, p, p + 1, p + 2, Z - 1, Z, Z + 1, m - 1)
            return ground_facts(G, m, N, Z, points) + [carried_at(fitted, G, m, Z, q) for q in (0, p, p + 1, m - 1)] + [
                Z >= 0, fitted.n == m, merged_line(fitted, G, Z),
                z3.Implies(L[Z] >= 0, POW2(L[Z] + 1) == 2 * POW2(L[Z]))]

        def carry_case_facts(p, number):
            """Case 1 (p < Z − 1): lines p and p + 1 are G's own, so only their facts are given.
            With all of carry_facts, Z3's search for "each line ends where the next starts" there
            took from 2.5 to more than 20 million units as the names of the query's terms changed
            (docs/trust.md, "Stable verdicts"); with these, under 300,000 whatever the names."""
            if number != 0:
                return carry_facts(p)
            return ground_facts(G, m, N, Z, (p, p + 1)) + [carried_at(fitted, G, m, Z, q) for q in (p, p + 1)] + [
                Z >= 0, fitted.n == m]

        def ones_facts(p):
            return ground_facts(G, m, N, Z, (0, p - 1, p, p + 1, m - 1)) + [Z < 0, same_view(fitted, G)]

        after.extend(pointwise("the carry's merge is the digit view of N + 1", digit_view_parts(fitted, m, T),
                               carry_facts, [m == 3, Z == 1],
                               lambda p: [p < Z - 1, p == Z - 1, p == Z, p > Z],
                               carry_case_facts))
        after.extend(pointwise("the grown view is the digit view of N + 1", digit_view_parts(fitted, m + 1, T),
                               ones_facts, [m == 2]))

    ok, problem, answers = zm.run_law("push_agrees_always: the fold step", s.loops(), body)
    answers = answers + after
    for name, answer in after:
        if ok and not answer.proved:
            ok, problem = False, failed_answer(name, answer)
    return ok, problem, answers


def first_step(fold=fold_step) -> tuple[str, str, Answer, bool]:
    """I(0): the fold's first step (message 0, push's one-entry list as the budget), run on Python
    values, is the digit view of 1 message."""
    view = fold((), 1, 1, False)
    with zm.running(zm.Proof({})):
        W = zm.ZSeq.of(zm.LINE, view)
    claim = z3.And(digit_view(W, 1, 1), pow2_at(W, 1, 0))
    return ("I(0)", "the fold's first view is the digit view of 1", prove(claim, [POW2(0) == 1]), True)


def fold_proofs(fold=fold_step, more_due_fn=more_due) -> tuple[bool, str, int, float]:
    """Every query of the fold's side: the lemmas of any digit view, the grown view, the carry
    pair, L4 as the scan uses it, I(0), and the step on the model's code. (proved, problem,
    queries, seconds)."""
    queries, seconds = 0, 0.0
    lemmas = view_lemmas() + grown_lemmas() + carry_lemmas() + [wins_lemma(more_due_fn), first_step(fold)]
    for name, claim, answer, witnessed in lemmas:
        queries, seconds = queries + 1, seconds + answer.seconds
        if not answer.proved:
            return False, failed_answer(f"{name} ({claim})", answer), queries, seconds
        if not witnessed:
            return False, vacuous(name), queries, seconds
    ok, problem, answers = fold_steps(fold, more_due_fn)
    queries += len(answers)
    seconds += sum(answer.seconds for _, answer in answers)
    return ok, problem, queries, seconds
