"""The one registry of Ever's laws: each law's name, gist section, claim, engine and strength.

Strategy: a law is a plain check over the model that returns a Verdict, and the Verdict carries
the strength *earned in this run* (Proved only on Z3's `unsat`, Confirmed only when CrossHair
reports every path confirmed, Bounded with its bound, Searched with its count, Example for a
worked example). `python -m laws` prints those earned labels; the README's table is generated
from this registry (`python -m laws --markdown`) and a test fails when the two differ.
"""

from dataclasses import dataclass
from typing import Callable

ENGINES = ("exhaustive", "example", "z3", "crosshair", "hypothesis")


@dataclass(frozen=True)
class Budget:
    t: int = 20_000  # the bound of the bounded runs over push's steps
    deep: bool = False


@dataclass(frozen=True)
class Verdict:
    passed: bool
    strength: str  # the label this run earned; "none" when it failed
    detail: str = ""


@dataclass(frozen=True)
class Law:
    name: str  # a present-tense claim: `view_covers`
    gist: str  # "§3.2"
    says: str
    engine: str
    strength: str  # the label a passing run at the default budget earns
    check: Callable[[Budget], Verdict]


def laws() -> list[Law]:
    """Every law, in the order `make laws` runs them."""
    from laws import bounded

    found = list(bounded.LAWS)
    for module in ("laws.universal", "laws.confirmed"):
        try:
            loaded = __import__(module, fromlist=["LAWS"])
        except ModuleNotFoundError as error:
            if error.name != module:
                raise
            continue
        found.extend(loaded.LAWS)
    names = [law.name for law in found]
    assert len(names) == len(set(names)), "a law name is registered twice"
    for law in found:
        assert law.engine in ENGINES, f"{law.name}: unknown engine {law.engine}"
    return found


def markdown_table(rows: list[Law]) -> str:
    lines = [
        "| Law | Gist | Says | Strength | Engine |",
        "|---|---|---|---|---|",
    ]
    for law in rows:
        lines.append(f"| `{law.name}` | {law.gist} | {law.says} | {law.strength} | {law.engine} |")
    return "\n".join(lines)
