# Ever. Plain `make` lists the targets and their knobs.
PYTHON ?= python3.11
VENV   ?= .venv
PY      = $(VENV)/bin/python
# Knobs
T      ?= 20000
DEEP_T ?= 1000000
SCALE  ?= full
SEED   ?=

.DEFAULT_GOAL := help
.PHONY: help laws laws-deep test bridge mutants lint check chat bench

help:
	@echo "Ever: one chat that never ends."
	@echo ""
	@echo "  make laws        the subset lint and every law, one line each (no API key needed)"
	@echo "  make laws-deep   push_agrees to t = DEEP_T (default $(DEEP_T)); the history laws past T = 100,000"
	@echo "  make test        the test suite (fast; tiny bridge runs)"
	@echo "  make bridge      production planner vs model on every scenario (SCALE=full|tiny)"
	@echo "  make mutants     plant each bug, run the check that must catch it"
	@echo "  make lint        the model's subset lint and the layering rules"
	@echo "  make bench       benchmarks (pytest-benchmark, ratios against a baseline)"
	@echo "  make check       lint, laws, test, bridge and mutants"
	@echo "  make chat        start the chat (not built yet)"
	@echo ""
	@echo "Knobs: PYTHON=$(PYTHON) VENV=$(VENV) T=$(T) DEEP_T=$(DEEP_T) SCALE=$(SCALE) SEED=$(SEED)"

$(VENV)/.installed: requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $@

venv: $(VENV)/.installed

laws: $(VENV)/.installed
	$(PY) -m laws --t $(T)

laws-deep: $(VENV)/.installed
	$(PY) -m laws --deep --t $(DEEP_T)

test: $(VENV)/.installed
	$(PY) -m pytest

bridge: $(VENV)/.installed
	$(PY) -m bridge --scale $(SCALE) $(if $(SEED),--seed $(SEED))

mutants: $(VENV)/.installed
	$(PY) -m mutants

lint: $(VENV)/.installed
	$(PY) -m pytest -q tests/test_subset.py

bench: $(VENV)/.installed
	$(PY) -m pytest -s tests/test_bench.py --benchmark-enable --benchmark-only

check: lint laws test bridge mutants

chat: $(VENV)/.installed
	@echo "The chat (store, compactor, turn loop, ever CLI) is not built yet; see README.md, Use." >&2
	@exit 2
