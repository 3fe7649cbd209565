"""CrossHair diffbehavior targets: the model's pure functions and the production twins, behind the
same domain guard (diffbehavior ignores contracts, so each wrapper guards its own inputs).

Strategy: both sides of a pair take the same arguments, apply the same guard, and return plain
tuples, so a difference CrossHair reports is a difference of behaviour, not of types.
"""

from typing import Tuple

import harness.line as production
import model.line as reference

REPLY_CHARS_MAX = 600


def guard(a: str, b: str, c: str, fallback: str) -> bool:
    return all(len(text) <= REPLY_CHARS_MAX for text in (a, b, c, fallback))


def model_line(a: str, b: str, c: str, fallback: str) -> Tuple[int, str]:
    if not guard(a, b, c, fallback):
        return (-1, "")
    outcome = reference.line((a, b, c), fallback)
    return (outcome.calls, outcome.text)


def harness_line(a: str, b: str, c: str, fallback: str) -> Tuple[int, str]:
    if not guard(a, b, c, fallback):
        return (-1, "")
    outcome = production.line((a, b, c), fallback)
    return (outcome.calls, outcome.text)


def model_cut(text: str, bytes_max: int) -> str:
    if len(text) > REPLY_CHARS_MAX or not 0 <= bytes_max <= 520:
        return ""
    return reference.cut(text, bytes_max)


def harness_cut(text: str, bytes_max: int) -> str:
    if len(text) > REPLY_CHARS_MAX or not 0 <= bytes_max <= 520:
        return ""
    return production.cut(text, bytes_max)
