"""Planted bugs in the view's ceiling in rendered bytes [P19]: the rules on text sizes made too
strong, the model's escape past its bound, the sibling-free count, the ceiling's precondition;
each caught by the law named for it."""

from mutants.base import Mutant
from mutants.law_mutants import law

CEILING = "laws/z3_ceiling.py"
BOUNDED = "laws/bounded.py"
VIEW = "model/view.py"

MUTANTS = [
    Mutant("rule_concatenation_keeps_its_first", CEILING, "U(zm.CONCAT(a, b)) == U(a) + U(b)", "U(zm.CONCAT(a, b)) == U(a)",
           law("line_size_rules_refuse"), "the rule on concatenation drops the second part's bytes"),
    Mutant("rule_decimal_one_digit_short", CEILING, "U(zm.DECIMAL(n)) <= ID_DIGITS_MAX)",
           "U(zm.DECIMAL(n)) <= N_DIGITS_MAX)", law("line_size_rules_refuse"),
           "the rule on decimals gives a number below 10^20 one digit too few"),
    Mutant("rule_escaping_doubles", CEILING, "U(escaping_term(t)) <= 3 * U(t)", "U(escaping_term(t)) <= 2 * U(t)",
           law("line_size_rules_refuse"), "the rule on escaping says it at most doubles a text"),
    Mutant("rule_built_text_511", CEILING, "proof.assume(zm.UTF8_BYTES(text) <= LINE_BYTES_MAX)",
           "proof.assume(zm.UTF8_BYTES(text) <= LINE_BYTES_MAX - 1)", law("line_size_rules_refuse"),
           "a built text is taken to be at most 511 bytes"),
    Mutant("escape_takes_four_bytes", VIEW, 'ESCAPES = (("<", "\\u2039"), ("|", "\\u00a6"))',
           'ESCAPES = (("<", "\\U0001f10b"), ("|", "\\u00a6"))', law("line_size_rules_hold"),
           "`<` shown as a 4-byte look-alike: escaping passes the rule's triple"),
    Mutant("sibling_free_63_lines", CEILING, "LINE_LINES_MAX = 64", "LINE_LINES_MAX = 63",
           law("sibling_free_view_has_64_lines"), "a sibling-free view claimed at most 63 lines"),
    Mutant("ceiling_without_precondition", BOUNDED, "CEILING_BYTES_MIN = 64 * LINE_RENDERED_BYTES_MAX",
           "CEILING_BYTES_MIN = 0", law("view_within_ceiling_on_runs"),
           "the turn's view claimed within any ceiling, as before its precondition (3,646 bytes against 3,014)"),
]
