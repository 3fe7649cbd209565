"""Whether a tool call may run [H4]: shell, write and edit ask first (yes / no / always
for this tool while this chat runs), unless `--yes` or the config's `approve` allows them; `read`
asks for a file outside the working directory. The asking is a callback the CLI gives; a caller
that cannot ask (`ever send` without `--yes`) declines with a result saying so.
"""

import enum
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from harness.calls.tool import TOOLS, summary

# The tools that change things and so ask first; `approve` may name these, and `read`, which asks
# for a file outside the working directory [H4]. The registry says which (harness/calls/tool.py).
ASKING_TOOLS = tuple(tool.name for tool in TOOLS if tool.asks)
APPROVABLE_TOOLS = ASKING_TOOLS + tuple(tool.name for tool in TOOLS if tool.approvable and not tool.asks)


class Answer(enum.Enum):
    YES = "yes"
    NO = "no"
    ALWAYS = "always"  # this tool, without asking, for this sender's messages
    GONE = "gone"  # [A9] no terminal is left to answer: declined, and the log says why


# The CLI's question to the user: (tool name, its input) -> the answer.
Ask = Callable[[str, Mapping[str, Any]], Answer]


class Approval:
    """Whether a tool call may run [H4].

    `allowed`: tools allowed without asking (config `approve`); `yes`: every tool allowed
    (`--yes`); `ask`: the CLI's callback, or None when nobody can be asked."""

    def __init__(self, allowed: Iterable[str] = (), yes: bool = False,
                 ask: Ask | None = None):
        self.allowed: set[str] = set(allowed)
        self.yes = yes
        self.ask = ask

    def decline(self, name: str, tool_input: Mapping[str, Any],
                asks: bool | None = None, why: str = "") -> str | None:
        """None if the call may run; else the text of the declined result for the model. `asks`
        overrides whether the tool asks (a `read` outside the working directory does). `why`
        (a secret file, a write outside the working directory) makes the call ask even where its
        tool is allowed by `approve` or "always": only --yes passes it [H4]."""
        asks = (name in ASKING_TOOLS if asks is None else asks) or bool(why)
        if not asks or self.yes or (name in self.allowed and not why):
            return None
        if self.ask is None:
            what = why or ("a read outside the working directory" if name == "read" else name)
            how = "--yes" if why else f"--yes, or with approve = [\"{name}\"] in config.toml"
            return (f"Not run: {what} asks the user first, and this run cannot ask (it was sent "
                    f"with `ever send` without --yes). Tell the user what you meant to do; they "
                    f"can allow it with {how}.")
        try:
            answer = self.ask(name, tool_input)
        except EOFError:
            answer = Answer.NO
        if answer is Answer.ALWAYS:
            self.allowed.add(name)  # the tool; a call with a `why` still asks next time
            return None
        if answer is Answer.YES:
            return None
        if answer is Answer.GONE:
            return (f"Not run: the terminal asked about this {name} call left, and no other terminal "
                    "is attached to answer it, so it was declined.")
        return f"Not run: the user declined this {name} call."


class Weakest(Approval):
    """The approvals of everyone whose message a call carries: a tool call runs only if each of
    them allows it, so the weakest wins. A message without `--yes` that joins a call started with
    it makes the call ask, or decline, as that sender's own would. Those that cannot ask decide
    first, so nobody is asked about a call another's approval declines anyway."""

    def __init__(self, approvals: Iterable[Approval]):
        parts = []
        for approval in approvals:
            for part in (approval.parts if isinstance(approval, Weakest) else (approval,)):
                if all(part is not seen for seen in parts):
                    parts.append(part)
        self.parts = tuple(sorted(parts, key=lambda part: part.ask is not None))
        super().__init__(set.intersection(*(set(p.allowed) for p in self.parts)),
                         all(p.yes for p in self.parts), None)

    def decline(self, name: str, tool_input: Mapping[str, Any],
                asks: bool | None = None, why: str = "") -> str | None:
        for part in self.parts:
            declined = part.decline(name, tool_input, asks, why)
            if declined is not None:
                return declined
        return None


def weakest(*approvals: Approval) -> Approval:
    """One approval that allows a call only where every one of `approvals` does."""
    distinct = Weakest(approvals)
    return distinct.parts[0] if len(distinct.parts) == 1 else distinct


def approval_summary(name: str, tool_input: Mapping[str, Any]) -> str:
    """One line for the user's question: what the call would do (the registry's summary)."""
    return summary(name, tool_input)
