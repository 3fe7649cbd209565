"""Ever's reference model of the planner: the specification, written for clarity, not speed.

The model is written in a restricted subset of Python so that a reader, CrossHair and Z3 can all
reason about it. `tests/model/test_subset.py` walks the AST of every file of `model/` (but
`__main__.py`, which only parses arguments and prints) and rejects:

- imports other than `typing`, `dataclasses` and `model` itself;
- float literals, `/` and `**` (dues compare by integer cross-multiplication; powers of two are
  shifts);
- list, dict and set displays and comprehensions, `global`, `nonlocal`, and assignment into an
  attribute or a subscript: state is frozen dataclasses and tuples, and a step returns a new state;
- calls that mutate in place (`append`, `extend`, `insert`, `pop`, `remove`, `clear`, `update`,
  `add`, `discard`, `sort`, `setdefault`, `popitem`);
- I/O, clocks and randomness: `open`, `print`, `input`, `eval`, `exec`, `compile`,
  `__import__`, and any name from `os`, `sys`, `time`, `random`, `datetime`.

The modules, in the order they build on each other:

- `base`: the operations the view's code is written in, which the laws also run on Z3 terms.
- `tree`: a persistent map from node `(l, i)` to its text, a trie per level on the base-16 digits
  of `i`.
- `view`: nodes, lines, their rendered bytes, the due order, `fit`, rendering, `context`.
- `push`: Taelin's rollback push, exactly as [gist §3.1] gives it, and the fold beside it.
- `line`: the compactor's line algorithm [gist §4].
- `planner`: the planner's state and `step(state, event)` over the event alphabet.
- `__main__`: the conformance vectors' command line (`python -m model push 9`); outside the subset.

May import: typing, dataclasses and model; nothing outside the subset (tests/model/test_subset.py).
"""

ALLOWED_IMPORTS = ("typing", "dataclasses", "model")
