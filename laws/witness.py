"""Concrete witnesses: inputs that show a CrossHair target is not vacuous.

Strategy: CrossHair reads a function's leading asserts as preconditions and its other asserts as
claims; it prints "Confirmed over all paths." also when no input meets the preconditions, or when
no input in the domain reaches a claim (an `assert extra > 4` after `assert 0 <= extra <= 4` is
confirmed at once). So each contract keeps a few concrete inputs beside it; they are run in plain
Python, with the interpreter's line tracing on the contract's own code, and must meet every
precondition, break no claim, and together execute every claim. A diffbehavior pair's witnesses
must pass its domain guard (the `if` that opens each function: the statement after it runs) on
both sides and get the same answer from both. Without that a law is failed, whatever CrossHair
said.
"""

import ast
import inspect
import sys
import textwrap
from collections.abc import Callable, Iterable


def parts(function: Callable) -> tuple[list[int], list[int], int | None]:
    """The source lines of the function's preconditions (its leading asserts, after the
    docstring), of its claims (every other assert) and, when the function opens with an `if`
    (a domain guard), of the statement after it."""
    lines, first = inspect.getsourcelines(function)
    tree = ast.parse(textwrap.dedent("".join(lines)))
    definition = tree.body[0]
    assert isinstance(definition, ast.FunctionDef)
    body = definition.body
    start = 1 if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else 0
    preconditions: list[ast.Assert] = []
    for statement in body[start:]:
        if not isinstance(statement, ast.Assert):
            break
        preconditions.append(statement)
    leading = {id(node) for node in preconditions}
    claims = [node for node in ast.walk(definition) if isinstance(node, ast.Assert) and id(node) not in leading]
    offset = first - 1
    guarded = len(body) > start + 1 and isinstance(body[start], ast.If)
    past_guard = body[start + 1].lineno + offset if guarded else None
    return ([node.lineno + offset for node in preconditions], sorted(node.lineno + offset for node in claims),
            past_guard)


def traced(function: Callable, arguments: tuple) -> tuple[set[int], BaseException | None, object]:
    """Run the function on the arguments; the lines of its own code that ran, and what it raised
    or returned."""
    code = function.__code__
    ran: set[int] = set()

    def local(frame, event, argument):
        if event == "line":
            ran.add(frame.f_lineno)
        return local

    def calls(frame, event, argument):
        return local if frame.f_code is code else None

    previous = sys.gettrace()
    sys.settrace(calls)
    try:
        result = function(*arguments)
    except BaseException as error:  # a witness that raises is reported, whatever it raised
        return ran, error, None
    finally:
        sys.settrace(previous)
    return ran, None, result


def failed_line(function: Callable, error: BaseException) -> int:
    """The line of the function's own code where the error went through it."""
    found = 0
    trace = error.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code is function.__code__:
            found = trace.tb_lineno
        trace = trace.tb_next
    return found


def contract_problem(function: Callable, witnesses: Iterable[tuple]) -> str | None:
    """None when the witnesses meet the preconditions and reach every claim; otherwise why not."""
    preconditions, claims, _ = parts(function)
    if not preconditions:
        return f"{function.__name__} has no leading asserts: CrossHair would check nothing"
    reached: set[int] = set()
    count = 0
    for arguments in witnesses:
        count += 1
        ran, error, _ = traced(function, arguments)
        if error is not None:
            line = failed_line(function, error)
            if line in preconditions:
                return f"witness {arguments} does not meet the precondition at line {line}"
            return f"witness {arguments} breaks the claim at line {line}: {type(error).__name__} {error}"
        reached |= ran
    if count == 0:
        return f"{function.__name__} has no witness"
    unreached = [line for line in claims if line not in reached]
    if unreached:
        return f"no witness reaches the claim{'s' if len(unreached) > 1 else ''} at line {', '.join(map(str, unreached))}"
    return None


def pair_problem(first: Callable, second: Callable, witnesses: Iterable[tuple]) -> str | None:
    """None when every witness passes both functions' domain guards and both give the same
    answer; otherwise why not."""
    for function in (first, second):
        if parts(function)[2] is None:
            return f"{function.__name__} does not open with its domain guard"
    count = 0
    for arguments in witnesses:
        count += 1
        answers = []
        for function in (first, second):
            ran, error, result = traced(function, arguments)
            if error is not None:
                return f"witness {arguments}: {function.__name__} raised {type(error).__name__} {error}"
            if parts(function)[2] not in ran:
                return f"witness {arguments} does not pass {function.__name__}'s domain guard"
            answers.append(result)
        if answers[0] != answers[1]:
            return f"witness {arguments}: {first.__name__} gives {answers[0]!r:.80}, {second.__name__} {answers[1]!r:.80}"
    return None if count else f"{first.__name__} has no witness"
