"""Canaries: known-false claims that the prover's trusted parts must refuse.

Strategy: a proof on the model's code is only as sound as the rules that run it on Z3 terms
(laws/z3_model.py, laws/z3_core.py), and a rule made unsound proves nothing false as long as no
law happens to need the edge it gets wrong. So each trusted part gets claims that are false, each
aimed at one edge of that part: a loop whose invariant fails at the start, a body that breaks its
invariant, a fold of no steps (a count ≤ 0) claiming the invariant's postcondition, a `while`
whose variant does not drop, a twin asked past its sequence's end, a shift by a count that may be
negative, a mask of the wrong width, a condition asked for a Python bool, a step whose every path
the model's own `assert` cuts, two loops of different counts sharing a cached result. Each canary
goes through the very code a law goes through (`run_law`, `explore`, the twins, `Sym`), and
passes only when that code refuses it: Z3 says `sat` or `unknown`, an obligation or the step
fails, or the code refuses to run. A canary the prover proves is a FAIL of its law, and each part
has a mutant in mutants/law_mutants.py that makes its canary's law fail.

What each canary's truth is, by hand (the golden values): `fold(n, 0, +1)` is 0 for n ≤ 0, n
otherwise, so "it is n" is false at n = −1; `fold(n, 1, +1)` is n + 1, not n; `fold(n, 0, +2)` is
2n, not n; `repeat(v < n, +1)` from 0 is 0 when n ≤ 0, so "it is ≥ 1" is false at n = 0;
`repeat(v < n, +2)` from 0 is n + 1 for odd n; `repeat(v < n, v)` never ends for n > 0; x & 3 is 3
at x = 3; x << c raises for c < 0; Python's x == y has no value when x and y are unknown.
A tuple of n lines has length n; appended, n + 1 lines with the new one at index n (not n − 1);
replaced at k changes line k only, and refuses k = n; padded to c lines has max(c, n) lines (so
0 leaves n ≥ 1, and n + 2 gives n + 2); mapped keeps n lines, line k the change of line k, and a
change that shifts by l − 1 raises at level 0; choose(c, 1, 2) is 2 where c is false; x + 0.5 is
not an integer, nor (x == c) & 2 a condition. Two loops differ when one input does: one step of +1
gives 1 from 0 and 2 from 1, one of +2 gives 2; while v < n from 0 ends at n and while v < m at m.
Each canary names the trusted parts it is aimed at; `trusted_parts` lists them from the prover's
code, and tests/laws/test_canaries.py fails when one has no canary.
"""

import ast
import inspect
import textwrap
from collections.abc import Callable

import z3

import model.planner
from laws import z3_model as zm
from laws.core import Budget, Law, Verdict
from laws.z3_ceiling import RULE_CANARIES
from laws.z3_core import Sym, SymBool


def refused(name: str, run: Callable[[], tuple[bool, str]]) -> tuple[bool, str]:
    """(refused, why) for one canary: `run` gives (proved, problem) from the prover's own code."""
    try:
        proved, problem = run()
    except (TypeError, ValueError) as error:  # the code refused to run on terms: a refusal
        return True, f"{name}: {type(error).__name__}: {error}"
    if proved:
        return False, f"{name}: PROVED, a known-false claim"
    return True, f"{name}: {problem.splitlines()[0][:120] if problem else 'not proved'}"


def law_run(name: str, loops, body) -> tuple[bool, str]:
    proved, problem, _ = zm.run_law(name, loops, body)
    return proved, problem


# ---- the fold rule (a `for` over range(n)) ----


def _plus_one(value, k):
    return value + 1


def _plus_two(value, k):
    return value + 2


def counted(env, k, value):
    """The invariant "the value is the count of steps so far"."""
    return value.term == k.term


def fold_with(start: int, body, count_domain=lambda n: z3.BoolVal(True)) -> tuple[bool, str]:
    """Claim fold(n, start, body) == n, with the invariant value == k."""
    loops = {body.__qualname__: zm.Loop(counted)}

    def claim(proof: zm.Proof) -> None:
        n = z3.Int("n_canary")
        proof.assume(count_domain(n))
        result = zm.fold(Sym(n), start, body)
        proof.check("the fold's result is its count", Sym.lift(result) == n)

    return law_run("canary", loops, claim)


FOLD_CANARIES = (
    ("a fold whose invariant fails at the start (from 1, counting +1)", lambda: fold_with(1, _plus_one, lambda n: n >= 1),
     ("rule fold",)),
    ("a fold whose body breaks its invariant (+2 a step)", lambda: fold_with(0, _plus_two, lambda n: n >= 1),
     ("rule fold",)),
    ("a fold of no steps (n ≤ 0) claiming the invariant's postcondition", lambda: fold_with(0, _plus_one),
     ("rule fold",)),
)


# ---- the repeat rule (a `while`) ----


def repeat_with(step: int, invariant, claim_of) -> tuple[bool, str]:
    """repeat(v < n, v + step) from 0, with the given invariant and the variant n − v."""
    n = z3.Int("n_canary")
    bound = Sym(n)

    def going_on(value):
        return value < bound

    def moved(value):
        return value + step

    loops = {moved.__qualname__: zm.Loop(lambda env, value: invariant(Sym.lift(env["bound"]), value.term),
                                         variant=lambda env, value: Sym.lift(env["bound"]) - value.term)}

    def claim(proof: zm.Proof) -> None:
        proof.assume(n >= 0)
        result = zm.repeat(going_on, moved, 0)
        proof.check("the loop's result", claim_of(n, Sym.lift(result)))

    return law_run("canary", loops, claim)


REPEAT_CANARIES = (
    ("a while whose invariant fails at the start (v ≥ 1 from 0)",
     lambda: repeat_with(1, lambda n, v: v >= 1, lambda n, v: v >= 1), ("rule repeat",)),
    ("a while whose body breaks its invariant (v ≤ n, +2 a step)",
     lambda: repeat_with(2, lambda n, v: v <= n, lambda n, v: v == n), ("rule repeat",)),
    ("a while whose variant does not drop (the body leaves v as it is)",
     lambda: repeat_with(0, lambda n, v: v == 0, lambda n, v: v >= n), ("rule repeat",)),
)


# ---- the sequence twins ----


def twin_past_the_end(use) -> tuple[bool, str]:
    """Run a twin at an edge Python refuses (or gives something else at): its obligation must fail."""

    def claim(proof: zm.Proof) -> None:
        view = zm.ZSeq.fresh(zm.LINE, "canary")
        proof.assume(view.n >= 1)
        use(view)

    return law_run("canary", {}, claim)


def trie_child_at_a_symbolic_digit() -> tuple[bool, str]:
    """A trie's child at a digit known only as a term (2, as an assumption): `twins_agree` checks
    the trie's twin at concrete digits only, where the If chain over digits never runs."""

    def claim(proof: zm.Proof) -> None:
        k = z3.Int("k_canary")
        trie = zm.SymTrie(z3.Const("trie_canary", zm.TRIE))
        proof.assume(zm.TRIE.is_node(trie.term), k == 2)
        proof.check("trie[k] is the next digit's child", trie.at(Sym(k)).term == zm.CHILDREN[2](trie.term))

    return law_run("canary", {}, claim)


LINE = model.view.Line(0, 0, "canary", True, 1)


def twin_claim(check, lines_at_least: int = 1) -> tuple[bool, str]:
    """A claim about a twin on a view of any length ≥ `lines_at_least`: `check(proof, view)`."""

    def claim(proof: zm.Proof) -> None:
        view = zm.ZSeq.fresh(zm.LINE, "canary")
        proof.assume(view.n >= lines_at_least)
        check(proof, view)

    return law_run("canary", {}, claim)


def with_bytes(line, size):
    return model.view.Line(line.l, line.i, line.text, line.built, size)


def mapped_with_a_shift_that_may_be_negative() -> tuple[bool, str]:
    """A change that shifts by the line's level − 1 (negative at level 0, where Python raises):
    mapped must carry the change's obligation, for every line, out to the proof."""
    return twin_claim(lambda proof, view: zm.mapped(view, lambda line: with_bytes(line, line.bytes << (line.l - 1))))


def texts_equal(a, b):
    return zm.SymText.lift(a) == zm.SymText.lift(b)


TWIN_CANARIES = (
    ("item at index length (one past the last line)",
     lambda: twin_past_the_end(lambda v: zm.item(v, Sym(v.n))), ("twin item",)),
    ("pair_replaced at the last line (a pair with no right half)",
     lambda: twin_past_the_end(lambda v: zm.pair_replaced(v, Sym(v.n) - 1, LINE)), ("twin pair_replaced",)),
    ("prefix of length + 1 lines",
     lambda: twin_past_the_end(lambda v: zm.prefix(v, Sym(v.n) + 1)), ("twin prefix",)),
    ("a trie's child at a symbolic digit 2 taken as digit 3's", trie_child_at_a_symbolic_digit, ("twin item",)),
    ("a view's length is one more than its lines",
     lambda: twin_claim(lambda proof, v: proof.check("length", Sym.lift(zm.length(v)) == v.n + 1)), ("twin length",)),
    ("appended keeps the length",
     lambda: twin_claim(lambda proof, v: proof.check("length", Sym.lift(zm.length(zm.appended(v, LINE))) == v.n)),
     ("twin appended",)),
    ("the appended line is at the old last line's index",
     lambda: twin_claim(lambda proof, v: proof.check(
         "at n − 1", texts_equal(zm.item(zm.appended(v, LINE), Sym(v.n) - 1).text, LINE.text))), ("twin appended",)),
    ("replaced at index length (one past the last line)",
     lambda: twin_past_the_end(lambda v: zm.replaced(v, Sym(v.n), LINE)), ("twin replaced",)),
    ("replaced at 0 leaves line 0 as it was",
     lambda: twin_claim(lambda proof, v: proof.check(
         "line 0", texts_equal(zm.item(zm.replaced(v, 0, LINE), 0).text, zm.item(v, 0).text))), ("twin replaced",)),
    ("padded to length + 2 has length + 1",
     lambda: twin_claim(lambda proof, v: proof.check(
         "length", Sym.lift(zm.length(zm.padded(v, Sym(v.n) + 2, LINE))) == v.n + 1)), ("twin padded",)),
    ("padded to 0 lines is cut to 0 (Python pads by nothing)",
     lambda: twin_claim(lambda proof, v: proof.check(
         "length", Sym.lift(zm.length(zm.padded(v, 0, LINE))) == 0)), ("twin padded",)),
    ("mapped with a change that shifts by a count that may be negative",
     mapped_with_a_shift_that_may_be_negative, ("twin mapped",)),
    ("mapped has one more line",
     lambda: twin_claim(lambda proof, v: proof.check(
         "length", Sym.lift(zm.length(zm.mapped(v, lambda line: line))) == v.n + 1)), ("twin mapped",)),
    ("mapped's line 0 is the change of line 1",
     lambda: twin_claim(lambda proof, v: proof.check(
         "line 0", Sym.lift(zm.item(zm.mapped(v, lambda line: with_bytes(line, line.bytes + 1)), 0).bytes)
         == Sym.lift(zm.item(v, 1).bytes) + 1), lines_at_least=2), ("twin mapped",)),
    ("choose on a condition that may be false gives its first value",
     lambda: twin_claim(lambda proof, v: proof.check(
         "then", Sym.lift(zm.choose(Sym(v.n) > 1, 1, 2)) == 1)), ("twin choose",)),
    ("choose on a condition known false gives its first value",
     lambda: twin_claim(lambda proof, v: proof.check(
         "then", Sym.lift(zm.choose(SymBool(z3.BoolVal(False)), 1, 2)) == 1)), ("twin choose",)),
)


# ---- the integer encoding ----


def integer_claim(check) -> tuple[bool, str]:
    def claim(proof: zm.Proof) -> None:
        x, c = Sym(z3.Int("x_canary")), Sym(z3.Int("c_canary"))
        check(proof, x, c)

    return law_run("canary", {}, claim)


def same_as_python_bool(a, b):
    """Model-like code that branches on a comparison: a term must refuse to be a bool."""
    if a == b:
        return 1
    return 0


INTEGER_CANARIES = (
    ("a shift by a count that may be negative",
     lambda: integer_claim(lambda proof, x, c: proof.check("x << c runs", SymBool.lift((x << c) == (x << c)))),
     ("encoding Sym.shifted",)),
    ("x & 3 is at most 2 (false at x = 3)",
     lambda: integer_claim(lambda proof, x, c: proof.check("x & 3 ≤ 2", SymBool.lift((x & 3) <= 2))),
     ("encoding Sym.__and__",)),
    ("`if x == c` on terms decides x == c",
     lambda: integer_claim(lambda proof, x, c: proof.check("the branch gives 1", Sym.lift(same_as_python_bool(x, c)) == 1)),
     ("encoding SymBool.__bool__",)),
    ("x + 0.5 is x (a float in integer code)",
     lambda: integer_claim(lambda proof, x, c: proof.check("x + 0.5", Sym.lift(x + 0.5) == x.term)),
     ("encoding Sym.lift",)),
    ("(x == c) & 2 is x == c (an integer taken as a condition)",
     lambda: integer_claim(lambda proof, x, c: proof.check("& 2", SymBool.lift((x == c) & 2) == (x.term == c.term))),
     ("encoding SymBool.lift",)),
)


# ---- explore: paths cut by the model's own assert ----


def every_path_cut() -> tuple[bool, str]:
    """A message of a kind the model refuses (`assert kind in KINDS`): every path ends at the
    model's assert, so no state follows and nothing may be claimed of it, not even False."""

    def claim(path: zm.Proof) -> None:
        model.planner.message(model.planner.State(), "not a kind", "text")
        path.check("false", z3.BoolVal(False))

    found = zm.explore("canary", {}, claim)
    return found.proved, found.problem


EXPLORE_CANARIES = (
    ("a step whose every path the model's own assert cuts, claiming False", every_path_cut, ("explore's paths",)),
)


# ---- the loop cache: a loop called again gets the same result only for the same inputs ----


def at_least_the_count(env, k, value):
    """The invariant "the value is at least the count of steps so far": true of +1 and +2 from 0 or 1."""
    return value.term >= k.term


def two_folds(first, second) -> tuple[bool, str]:
    """Claim that fold(n, …) and fold(m, …) give the same, for two (count, start, body) calls:
    each takes n for its count when given "n", m when given "m"."""
    loops = {body.__qualname__: zm.Loop(at_least_the_count) for body in (_plus_one, _plus_two)}

    def claim(proof: zm.Proof) -> None:
        counts = {"n": Sym(z3.Int("n_canary")), "m": Sym(z3.Int("m_canary"))}
        proof.assume(counts["n"].term >= 1, counts["m"].term >= 1)
        results = [zm.fold(counts[count], start, body) for count, start, body in (first, second)]
        proof.check("two folds give the same", Sym.lift(results[0]) == Sym.lift(results[1]))

    return law_run("canary", loops, claim)


def two_repeats(first, second) -> tuple[bool, str]:
    """Claim that two whiles `while v < bound: v += step` from a start give the same, for two
    (bound, step, start) calls; "n" and "m" are two unknown bounds."""
    bounds = {"n": Sym(z3.Int("n_canary")), "m": Sym(z3.Int("m_canary"))}
    loops = {}

    def loop(bound_name, step, start):
        bound = bounds[bound_name]

        def going_on(value):
            return value < bound

        def moved(value):
            return value + step

        moved.__qualname__ = f"moved_{bound_name}_{step}"
        loops[moved.__qualname__] = zm.Loop(lambda env, value: value.term >= 0,
                                            variant=lambda env, value: Sym.lift(env["bound"]) - value.term)
        return lambda: zm.repeat(going_on, moved, start)

    runs = [loop(*first), loop(*second)]

    def claim(proof: zm.Proof) -> None:
        proof.assume(bounds["n"].term >= 1, bounds["m"].term >= 1)
        results = [run() for run in runs]
        proof.check("two whiles give the same", Sym.lift(results[0]) == Sym.lift(results[1]))

    return law_run("canary", loops, claim)


CACHE_CANARIES = (
    ("fold(n) and fold(m) of the same body and start are equal",
     lambda: two_folds(("n", 0, _plus_one), ("m", 0, _plus_one)), ("fold's cache: count",)),
    ("a fold from 0 and one from 1 of the same body and count are equal",
     lambda: two_folds(("n", 0, _plus_one), ("n", 1, _plus_one)), ("fold's cache: start",)),
    ("a fold of +1 and one of +2 of the same start and count are equal",
     lambda: two_folds(("n", 0, _plus_one), ("n", 0, _plus_two)), ("fold's cache: body",)),
    ("while v < n and while v < m of the same body and start are equal",
     lambda: two_repeats(("n", 1, 0), ("m", 1, 0)), ("repeat's cache: going_on",)),
    ("a while of +1 and one of +2 of the same guard and start are equal",
     lambda: two_repeats(("n", 1, 0), ("n", 2, 0)), ("repeat's cache: body",)),
    ("a while from 0 and one from 1 of the same guard and body are equal",
     lambda: two_repeats(("n", 1, 0), ("n", 1, 1)), ("repeat's cache: state",)),
)


# ---- the trusted parts, read from the prover's code: each must have a canary ----


def cache_key_inputs(rule: str) -> list[str]:
    """The inputs a loop rule's cache key holds (`key = ("fold", fingerprint(body), …)`)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(getattr(zm, rule))))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "key" for t in node.targets):
            return [ast.unparse(part.args[0]) for part in node.value.elts if isinstance(part, ast.Call)]
    raise AssertionError(f"{rule} has no cache key")


def encoding_parts() -> list[str]:
    """The integer encoding's methods that are more than one of Z3's own operators: each is a
    choice of meaning (a shift as a power, a mask as a remainder, a refusal)."""
    found = []
    for cls in (Sym, SymBool):
        for value in vars(cls).values():
            function = value.__func__ if isinstance(value, staticmethod) else value
            if not inspect.isfunction(function) or function.__name__ in ("__init__", "__repr__"):
                continue
            body = ast.parse(textwrap.dedent(inspect.getsource(function))).body[0].body
            statements = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
            part = f"encoding {cls.__name__}.{function.__name__}"
            if len(statements) > 1 and part not in found:
                found.append(part)
    return found


def trusted_parts() -> list[str]:
    """Every part of the prover a proof trusts, listed from its code: each twin of model/base.py
    (but the unknown functions, which are assumed nothing of), each loop rule and each input
    its cache is keyed by, the integer encoding's own meanings, explore's paths, and any named
    rule of laws/z3_model.py's TRUSTED_FACTS."""
    parts = [f"twin {name}" for name in zm.TWINS if name not in zm.UNKNOWN_FUNCTIONS + zm.LOOP_RULES]
    parts += [f"rule {rule}" for rule in zm.LOOP_RULES]
    parts += [f"{rule}'s cache: {name}" for rule in zm.LOOP_RULES for name in cache_key_inputs(rule)]
    parts += encoding_parts()
    parts += ["explore's paths"]
    parts += [f"rule {name}" for name in zm.TRUSTED_FACTS]
    return parts


def canary_law(name: str, canaries) -> Callable[[Budget], Verdict]:
    def check(budget: Budget) -> Verdict:
        reasons: list[str] = []
        for claim, run, _ in canaries:
            ok, why = refused(claim, run)
            if not ok:
                return Verdict(False, "none", why)
            reasons.append(why)
        return Verdict(True, label(len(canaries), name), "refused as it must be: " + "; ".join(reasons))

    check.__name__ = name
    return check


def label(count: int, part: str) -> str:
    if count == 1:
        return f"Example: a known-false claim through {part}, refused"
    return f"Example: {count} known-false claims through {part}, each refused"


PARTS = (
    # (law, the trusted part, its gist section, canaries)
    ("fold_rule_refuses", "the fold rule", FOLD_CANARIES),
    ("repeat_rule_refuses", "the repeat rule", REPEAT_CANARIES),
    ("sequence_twins_refuse", "the sequence twins", TWIN_CANARIES),
    ("integer_encoding_refuses", "the integer encoding", INTEGER_CANARIES),
    ("cut_paths_prove_nothing", "explore's paths", EXPLORE_CANARIES),
    ("loop_cache_refuses", "the loop cache", CACHE_CANARIES),
    ("line_size_rules_refuse", "the rules on text sizes", RULE_CANARIES),
)

LAWS = [
    Law(name, "—", f"The prover refuses known-false claims through {part}: "
        + "; ".join(claim for claim, _, _ in canaries) + ".", "z3", label(len(canaries), part),
        canary_law(part, canaries))
    for name, part, canaries in PARTS
]
