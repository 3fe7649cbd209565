"""What every law shares: the budget a run gives it, the verdict it returns, its registry entry,
and the order of the strengths a verdict can earn.

Strategy: a label opens with its kind, and the kinds are ordered, strongest first:

    Proved (Z3) > Confirmed (CrossHair) > Bounded > Searched > Example

A label that names more than one kind (a proof with a searched or bounded link) ranks as the
weakest it names (`kind`): a law is as strong as its weakest part.

Proved holds for every input; Confirmed for every input of a stated finite domain, by a
solver's exploration of every path; Bounded for every case of a stated bound, by computation;
Searched for the cases a search or seeded runs happened to reach; Example for one worked case.
A law passes `make laws` only when the label it earned is at least the registry's: of a stronger
kind, or of the same kind with the same text, where each count the registry writes as
"at least N" is N or more. So a run can never print, or write into the README, more than it
checked. The registry (laws/registry.py) holds every law; the law modules take these shapes from here, never from the registry.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

# "runs": seeded runs of the model, every state of each checked: a search, not a bound.
ENGINES = ("exhaustive", "example", "runs", "z3", "crosshair", "hypothesis")

STRENGTHS = ("Proved (Z3)", "Confirmed (CrossHair)", "Bounded", "Searched", "Example")  # strongest first

AT_LEAST = re.compile(r"at least ([\d,]+)")

# What the prover's rules rest on, and the laws that check each part: named in every label of a
# proof on the model's code. The twins are checked on small cases (`twins_agree`, Bounded) and
# each part must refuse known-false claims (laws/canaries.py).
TRUSTED_ENCODING = "the integer encoding (integer_encoding_refuses)"
TRUSTED_RULES = ("7 sequence twins (twins_agree: Bounded; sequence_twins_refuse), 2 loop rules "
                 "(fold_rule_refuses, repeat_rule_refuses), loop results cached per call (loop_cache_refuses)")
# A label's part from "; trusted: " on names the prover's own parts and how each is checked; like
# Z3 itself, they are the tools a proof runs on, not links of its claim, so a kind named there
# (twins_agree: Bounded) does not rank the law. A claim's own links come before it.
TRUSTED_CLAUSE = "; trusted: "


@dataclass(frozen=True)
class Budget:
    t: int = 20_000  # the bound of the bounded runs over push's steps
    deep: bool = False


@dataclass(frozen=True)
class Verdict:
    passed: bool
    strength: str  # the label this run earned; "none" when it failed
    detail: str = ""
    # The seconds of the law's own work when it did not run inside its turn (a CrossHair job
    # started ahead while other laws ran); None: the seconds the law's turn took.
    seconds: float | None = None


@dataclass(frozen=True)
class Law:
    name: str  # a present-tense claim: `view_covers`
    gist: str  # "§3.2"
    says: str
    engine: str
    strength: str  # the least label a passing run must earn; "at least N" marks a minimum count
    check: Callable[[Budget], Verdict]


def opening(label: str) -> str:
    """The kind a label opens with: one of STRENGTHS."""
    for name in STRENGTHS:
        if label.startswith(name) and label[len(name) : len(name) + 1] in (":", " "):
            return name
    raise ValueError(f"a label must open with one of {', '.join(STRENGTHS)}: {label!r}")


# A kind named anywhere in a label: a part of the claim that rests on that kind of check.
NAMED = re.compile("(" + "|".join(re.escape(name) for name in STRENGTHS) + r")(?=[:,; ]|$)")


def kind(label: str) -> str:
    """The kind a label ranks as: the weakest it names. A law is as strong as its weakest part,
    so "Proved (Z3): each step; steps = events: Searched, 4,800 events" ranks as Searched."""
    claim = label.split(TRUSTED_CLAUSE, 1)[0]
    parts = [opening(label)] + NAMED.findall(claim)
    return max(parts, key=STRENGTHS.index)


def stronger(a: str, b: str) -> bool:
    """Label a is of a strictly stronger kind than label b."""
    return STRENGTHS.index(kind(a)) < STRENGTHS.index(kind(b))


def number(text: str) -> int:
    return int(text.replace(",", ""))


def shortfall(registered: str, earned: str) -> str | None:
    """None when the earned label is at least the registered one; otherwise why it is not."""
    if earned == "none":
        return "the law failed"
    if stronger(earned, registered):
        return None
    if stronger(registered, earned):
        return f"earned \"{earned}\", a weaker kind than the registry's \"{registered}\""
    pieces = AT_LEAST.split(registered)  # text, count, text, count, …, text
    pattern = "".join(re.escape(piece) if k % 2 == 0 else r"([\d,]+)" for k, piece in enumerate(pieces))
    match = re.fullmatch(pattern, earned)
    if match is None:
        return f"earned \"{earned}\", not the registry's \"{registered}\""
    for found, minimum in zip(match.groups(), pieces[1::2]):
        if number(found) < number(minimum):
            return f"earned \"{earned}\": {found} is below the registry's minimum {minimum}"
    return None
