"""The turn's ceiling in rendered bytes: a view with no two siblings side by side has at most 64
lines below 2^64, and a line renders at most 1,578 bytes with its newline [P19].

Strategy: `turn_view_within_ceiling` proves, on the model's code, that the view a turn sends is
within its ceiling or has no two sibling lines side by side. What bounds the second case is
proved here, in two laws.

- `sibling_free_view_has_64_lines`: the hand proof of docs/planner.md [P19], in Z3 over
  unbounded integers. For a tiling of 0..T−1 (T < 2^64) with no two siblings side by side, by
  induction along the view: each line's index is even and its level plus its position is at
  most 63. The base (line 0 starts at 0, and 2^l ≤ T < 2^64 gives l ≤ 63) and the step (line
  j + 1 starts at an odd multiple of 2^l_j; a higher level cannot start there, the same level
  there is line j's sibling, so its level is lower and its index even) are each Z3's `unsat`;
  so the view has at most 64 lines. The step uses pow2(a + b) = pow2(a)·pow2(b), proved by
  induction on b (base and step `unsat`), and is asked with each power of two Z3 needs as an
  integer of its own, tied to the others by those facts (a generalization: a proof for any
  integers meeting the facts holds for the powers). Trusted: the two inductions.
- `line_renders_within_its_bound`: the model's own `rendered` (model/view.py) run on Z3 terms
  for a line of any node of a chat below 2^64, built or not, any text: its UTF-8 bytes and
  newline are at most 1,578 = 20 (id) + 1 + 19 (n) + 1 + 3·512 + 1. The text functions stay
  uninterpreted (laws/z3_model.py); what the bound needs of them is five named rules, each true
  of Python's functions (checked on their edges by `line_size_rules_hold`, Bounded) and each
  seen to refuse a false claim (`line_size_rules_refuse`): UTF-8 length adds over
  concatenation; a decimal of n < 10^k has at most k digits; escaping (the model's own
  `escaped(flatten(·))`, as the term its code builds) at most triples a text's bytes [P18]; a
  literal's length is Python's; a built text is at most 512 bytes [P13] (the planner's own
  asserts: a `Built` text, a free node's `<= LINE_BYTES_MAX`, the capped line's cut).

With `turn_view_within_ceiling` (whose second part proves the sent view tiles 0..T−1 when the
view does, so its sibling-free case is this tiling), a turn's view counts at most max(ceiling,
64 · 1,578 = 100,992) bytes. `turn_view_within_ceiling` is proved in rendered bytes (each built
line's `rendered` and newline, each placeholder's head, 128 bytes and newline [P22]), for a view
whose built lines count what they render: that premise of the chat's view is not proved of every
history (the history laws do not carry it); `view_within_ceiling` and `view_bytes_rendered`
check it on runs (Searched).
"""

import z3

import model.view
from laws import z3_model as zm
from laws.core import TRUSTED_ENCODING, Budget, Law, Verdict
from laws.z3_core import POW2, Answer, Sym, failed_answer, pow2_axioms, prove, satisfiable

T_BITS = 64
LINE_LINES_MAX = 64
ID_DIGITS_MAX = 20  # 2^64 − 1 has 20 decimal digits
N_DIGITS_MAX = 19  # 2^63 has 19
LINE_BYTES_MAX = model.view.LINE_BYTES_MAX
LINE_RENDERED_BYTES_MAX = ID_DIGITS_MAX + 1 + N_DIGITS_MAX + 1 + 3 * LINE_BYTES_MAX + 1  # 1,578


def power_facts(top: int) -> list:
    """pow2(k + 1) = 2·pow2(k) for k < top: ground instances of the axiom."""
    return [POW2(k + 1) == 2 * POW2(k) for k in range(top)] + [POW2(0) == 1]


def times(a, b):
    """The instance at (a, b) of pow2(a + b) = pow2(a)·pow2(b), proved by `product_lemma`."""
    return z3.Implies(z3.And(a >= 0, b >= 0), POW2(a + b) == POW2(a) * POW2(b))


def product_lemma() -> list[tuple[str, object]]:
    """pow2(a + b) = pow2(a)·pow2(b) for a, b ≥ 0, by induction on b: its base and its step."""
    a, b = z3.Ints("a_pow b_pow")
    base = prove(z3.ForAll([a], z3.Implies(a >= 0, POW2(a + 0) == POW2(a) * POW2(0))), pow2_axioms())
    step = prove(POW2(a + b + 1) == POW2(a) * POW2(b + 1),
                 pow2_axioms() + [a >= 0, b >= 0, POW2(a + b) == POW2(a) * POW2(b)])
    return [("pow2 of a sum, base", base), ("pow2 of a sum, step", step)]


def as_integers(terms: list, claim, powers: list):
    """The query with each power of two in `powers` as an integer of its own: Z3's nonlinear
    arithmetic proves these products where it cannot see through pow2's applications."""
    fresh = [(power, z3.Int(f"P{k}")) for k, power in enumerate(powers)]
    return [z3.substitute(term, *fresh) for term in terms], z3.substitute(claim, *fresh)


def sibling_free_steps() -> list[tuple[str, object]]:
    """The base and the three cases of the step of the induction along the view."""
    answers = product_lemma()
    la, ia, lb, ib, j, T = z3.Ints("la ia lb ib j T")
    # base: line 0 is (la, ia), it starts at 0 and ends by T < 2^64
    base_facts = [la >= 0, ia >= 0, ia * POW2(la) == 0, (ia + 1) * POW2(la) <= T, T < 2 ** T_BITS,
                  POW2(la) >= 1, times(z3.IntVal(T_BITS), la - T_BITS)] + power_facts(T_BITS)
    answers.append(("line 0: index 0, level at most 63", prove(z3.And(ia == 0, la <= T_BITS - 1), base_facts)))
    # step: line j (la, ia) meets the invariant, line j + 1 (lb, ib) starts where it ends and is
    # not its sibling
    given = [la >= 0, ia >= 0, lb >= 0, ib >= 0, j >= 0, ia % 2 == 0, la + j <= T_BITS - 1,
             (ia + 1) * POW2(la) == ib * POW2(lb), z3.Not(z3.And(la == lb, ib == ia + 1))]
    invariant = z3.And(ib % 2 == 0, lb + j + 1 <= T_BITS - 1)
    d = z3.Int("d")
    up = given + [lb > la, d == lb - la - 1, POW2(lb) == POW2(la) * POW2(lb - la),
                  POW2(lb - la) == 2 * POW2(d), POW2(la) >= 1, POW2(d) >= 1]
    same = given + [lb == la, POW2(lb) == POW2(la), POW2(la) >= 1]
    down = given + [lb < la, d == la - lb - 1, POW2(la) == POW2(lb) * POW2(la - lb),
                    POW2(la - lb) == 2 * POW2(d), POW2(lb) >= 1, POW2(d) >= 1]
    for case, facts, powers in (
        ("a higher level", up, [POW2(lb), POW2(lb - la), POW2(la), POW2(d)]),
        ("the same level", same, [POW2(la), POW2(lb)]),
        ("a lower level", down, [POW2(la), POW2(la - lb), POW2(lb), POW2(d)]),
    ):
        terms, claim = as_integers(facts, invariant, powers)
        answers.append((f"line j + 1 at {case}: index even, level below line j's", prove(claim, terms)))
    if not satisfiable(base_facts + [la == 2, ia == 0, T == 5]) or not satisfiable(down + [la == 1, ia == 0, lb == 0, ib == 2, j == 0]):
        answers.append(("the base and the lower level", Answer("vacuous", 0.0)))
    # the invariant at the last line, level ≥ 0, gives the count
    n = z3.Int("n")
    answers.append(("at most 64 lines", prove(n <= LINE_LINES_MAX, [n >= 1, lb >= 0, lb + (n - 1) <= T_BITS - 1])))
    return answers


def proved_all(answers, label: str) -> Verdict:
    for name, answer in answers:
        if not answer.proved:
            return Verdict(False, "none", failed_answer(name, answer))
    return Verdict(True, label, f"{len(answers)} Z3 queries in {sum(a.seconds for _, a in answers):.2f} s")


SIBLING_FREE_LABEL = (f"Proved (Z3): every T below 2^64, the induction's base and step and pow2 of a sum; "
                      f"trusted: {TRUSTED_ENCODING}, the inductions along the view and over b")


def sibling_free_view_has_64_lines(budget: Budget) -> Verdict:
    """[P19] A tiling of 0..T−1, T < 2^64, with no two sibling lines side by side has its
    levels falling and at most 64 lines (docs/planner.md's hand proof)."""
    return proved_all(sibling_free_steps(), SIBLING_FREE_LABEL)


# ---- a line's rendered bytes ----


def escaping_term(text):
    """The term the model's `escaped(flatten(text))` builds on a text term: the rule on
    escaping speaks of exactly what the model's code computes."""
    return model.view.escaped(model.view.flatten(zm.SymText(text))).term


def line_size_rules() -> list:
    """The five rules on text sizes the bound needs, as Z3 facts (each checked true of Python's
    functions by `line_size_rules_hold`, and each refusing a false claim)."""
    a, b, t, n = z3.Const("a_rule", zm.TEXT), z3.Const("b_rule", zm.TEXT), z3.Const("t_rule", zm.TEXT), z3.Int("n_rule")
    U = zm.UTF8_BYTES
    literals = [U(zm.literal(text)) == len(text.encode("utf-8")) for text in ("+", "|", model.view.PLACEHOLDER)]
    return [
        # UTF-8 length adds over concatenation
        z3.ForAll([a, b], U(zm.CONCAT(a, b)) == U(a) + U(b)),
        # a decimal of n < 10^k has at most k digits (k = 19, 20)
        z3.ForAll([n], z3.Implies(z3.And(0 <= n, n < 10 ** ID_DIGITS_MAX), U(zm.DECIMAL(n)) <= ID_DIGITS_MAX)),
        z3.ForAll([n], z3.Implies(z3.And(0 <= n, n < 10 ** N_DIGITS_MAX), U(zm.DECIMAL(n)) <= N_DIGITS_MAX)),
        # escaping at most triples a text's bytes [P18]
        z3.ForAll([t], U(escaping_term(t)) <= 3 * U(t)),
    ] + literals


def rendered_bytes(proof: zm.Proof, built: bool, bound: int):
    """The model's `rendered` of a line of node (l, i) of a chat below 2^64, its text any text
    of at most 512 bytes if built, claimed at most `bound` bytes with its newline."""
    l, i, T = z3.Ints("l_line i_line T_line")
    text = z3.Const("text_line", zm.TEXT)
    # a node of a chat of T < 2^64 messages, so l ≤ 63 and 2^l ≤ 2^63
    proof.assume(l >= 0, i >= 0, (i + 1) * POW2(l) <= T, T < 2 ** T_BITS, POW2(l) >= 1,
                 times(z3.IntVal(T_BITS), l - T_BITS), times(l, (T_BITS - 1) - l), POW2((T_BITS - 1) - l) >= 1,
                 *power_facts(T_BITS))
    if built:
        proof.assume(zm.UTF8_BYTES(text) <= LINE_BYTES_MAX)  # a built text's 512 bytes [P13]
    # the domain is met (the rules are true of Python's functions, so they add no contradiction;
    # asked with them, Z3 could never answer `sat`: no finite model meets them)
    proof.witnessed("line_renders_within_its_bound", l == 60, i == 14, T == 2 ** T_BITS - 1)
    proof.assume(*line_size_rules())
    line = model.view.Line(Sym(l), Sym(i), zm.SymText(text), built, 0)
    size = model.view.utf8_bytes(model.view.rendered(line)) + 1
    proof.check(f"a {'built' if built else 'placeholder'} line renders at most {bound} bytes", Sym.lift(size) <= bound)


def line_renders_within_its_bound(budget: Budget) -> Verdict:
    """[P19] [P18] A line of any node of a chat below 2^64 renders, with its newline, at most
    1,578 bytes, whether built (any text of at most 512 bytes) or a placeholder."""
    answers = []
    for built in (True, False):
        proved, problem, found = zm.run_law("line_renders_within_its_bound",
                                            {}, lambda proof, built=built: rendered_bytes(proof, built, LINE_RENDERED_BYTES_MAX))
        answers += found
        if not proved:
            return Verdict(False, "none", problem)
    return Verdict(True, LINE_LABEL, f"{len(answers)} Z3 queries in {sum(a.seconds for _, a in answers):.2f} s")


LINE_LABEL = (f"Proved (Z3): model/view.py rendered, any node below 2^64, built or not, any text; trusted: "
              f"{TRUSTED_ENCODING}, 5 rules on text sizes (line_size_rules_hold: Bounded; line_size_rules_refuse, laws/canaries.py)")


# ---- the rules: true of Python's functions, and each refusing a false claim ----


def line_size_rules_hold(budget: Budget) -> Verdict:
    """Each rule of `line_size_rules` on Python's own functions, at its edges: concatenation on
    every pair of a set of texts of 1 to 4 bytes a character; the decimal of every n at a power
    of ten's edge below 10^20 and every power of two to 2^64; escaping on every Unicode scalar
    value alone, after and before each escaped character, and on the task marks."""
    from model.view import escaped, flatten

    texts = ["", "a", "é", "€", "😀", "<", "|", "\r\n", "\x85", "Compaction:", "a<b|c"]
    cases = 0
    for a in texts:
        for b in texts:
            cases += 1
            if len((a + b).encode()) != len(a.encode()) + len(b.encode()):
                return Verdict(False, "none", f"concatenation of {a!r} and {b!r}")
    edges = sorted({n for k in range(ID_DIGITS_MAX + 1) for n in (10 ** k - 1, 10 ** k) if n < 10 ** ID_DIGITS_MAX}
                   | {1 << l for l in range(T_BITS + 1)} | {(1 << T_BITS) - 1})
    for n in edges:
        cases += 1
        for k in (N_DIGITS_MAX, ID_DIGITS_MAX):
            if n < 10 ** k and len(str(n).encode()) > k:
                return Verdict(False, "none", f"decimal of {n}: {len(str(n))} digits")
    # a text's escape is its characters' escapes but for `\r\n` (one space) and the task marks
    # (one character for one): every scalar value alone, and every text of up to 3 characters
    # from the characters where the escape changes more than one character
    for code in range(0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        cases += 1
        ch = chr(code)
        if len(escaped(flatten(ch)).encode()) > 3 * len(ch.encode()):
            return Verdict(False, "none", f"escaping {ch!r} more than triples it")
    special = ["\r", "\n", "<", "|", ":", "a", "\u2039"]
    texts = [""] + special
    for _ in range(2):
        texts = [text + ch for text in texts for ch in [""] + special]
    texts += [mark + tail for mark in model.view.TASK_MARKS for tail in ("", ":", "<", "\r\n", mark)]
    for text in set(texts):
        cases += 1
        if len(escaped(flatten(text)).encode()) > 3 * len(text.encode()):
            return Verdict(False, "none", f"escaping {text!r} more than triples it")
    return Verdict(True, f"Bounded: {cases:,} cases at the rules' edges")


# The rules quantify over texts whose lengths add, which no finite model meets: Z3 never answers
# `sat` under them, so a false claim comes back `unknown`. A canary asks with this smaller limit
# on Z3's work (a query of the line law uses under 20,000 units): a rule made too strong proves
# its canary well within it (mutants/view_mutants.py), and a refusal costs seconds, not minutes.
CANARY_RLIMIT = 100_000


def rule_refuses(false_claim) -> tuple[bool, str]:
    """(proved, problem) for a false claim asked with the rules as its only facts."""
    answer = prove(false_claim, line_size_rules(), CANARY_RLIMIT)
    return answer.proved, failed_answer("canary", answer)


def _text(tag: str):
    return z3.Const(tag, zm.TEXT)


def _line_too_tight(built: bool) -> tuple[bool, str]:
    """The line law's own query one byte tighter: the bound is met by a node of 20 digits and n
    of 19 (14·2^60 + 2^60, say) with 512 bytes of `<`, so it must not be proved."""
    proof = zm.Proof({}, [], rlimit=CANARY_RLIMIT)
    try:
        with zm.running(proof):
            rendered_bytes(proof, built, LINE_RENDERED_BYTES_MAX - 1)
    except zm.Unproved as error:
        return False, str(error)
    return True, ""


def _decimal_refuses() -> tuple[bool, str]:
    """decimal(2) = "1" asked with the rule on decimal(1) as its only fact: a rule said of every
    number, not of 1 alone, would prove it."""
    from laws.z3_events import decimal_of_one

    answer = prove(zm.DECIMAL(2) == zm.literal("1"), [decimal_of_one()], CANARY_RLIMIT)
    return answer.proved, failed_answer("canary", answer)


# The rules' names, as laws/z3_model.py's TRUSTED_FACTS lists them (each "rule NAME" a trusted
# part that laws/canaries.py's `line_size_rules_refuse` aims a canary at).
RULE_NAMES = ("utf8_bytes adds over concatenation", "a decimal below 10^k has k digits",
              "escaping at most triples", "a literal's bytes", "a built text's 512 bytes", "decimal(1) is its digit")

# (claim, run, the trusted parts it aims at): laws/canaries.py's shape
RULE_CANARIES = (
    ("concatenation's length is its first part's",
     lambda: rule_refuses(zm.UTF8_BYTES(zm.CONCAT(_text("a_c"), _text("b_c"))) == zm.UTF8_BYTES(_text("a_c"))),
     ("rule utf8_bytes adds over concatenation",)),
    ("a decimal below 10^20 has at most 19 digits",
     lambda: rule_refuses(z3.ForAll([z3.Int("n_c")], z3.Implies(
         z3.And(0 <= z3.Int("n_c"), z3.Int("n_c") < 10 ** ID_DIGITS_MAX),
         zm.UTF8_BYTES(zm.DECIMAL(z3.Int("n_c"))) <= N_DIGITS_MAX))),
     ("rule a decimal below 10^k has k digits",)),
    ("escaping at most doubles a text's bytes",
     lambda: rule_refuses(zm.UTF8_BYTES(escaping_term(_text("t_c"))) <= 2 * zm.UTF8_BYTES(_text("t_c"))),
     ("rule escaping at most triples",)),
    ("the placeholder is 28 bytes",
     lambda: rule_refuses(zm.UTF8_BYTES(zm.literal(model.view.PLACEHOLDER)) == 28),
     ("rule a literal's bytes",)),
    ("a built line renders at most 1,577 bytes", lambda: _line_too_tight(True), ("rule a built text's 512 bytes",)),
    ("decimal(2) is \"1\"", lambda: _decimal_refuses(), ("rule decimal(1) is its digit",)),
)

LAWS = [
    Law("sibling_free_view_has_64_lines", "§2 [P19]", "A tiling of 0..T−1, T below 2^64, with no two sibling lines side by side has its levels falling and at most 64 lines.", "z3", SIBLING_FREE_LABEL, sibling_free_view_has_64_lines),
    Law("line_size_rules_hold", "§3 [P18]", "The rules on text sizes the line bound trusts are true of Python's functions at their edges: UTF-8 length adds, a decimal below 10^k has at most k digits, escaping at most triples a text.", "exhaustive", "Bounded: at least 1,100,000 cases at the rules' edges", line_size_rules_hold),
    Law("line_renders_within_its_bound", "§3 [P18] [P19]", "A line of any node of a chat below 2^64, built (any text of at most 512 bytes) or a placeholder, renders at most 1,578 bytes with its newline.", "z3", LINE_LABEL, line_renders_within_its_bound),
]
