# Ever. Plain `make` lists the targets and their knobs.
PYTHON ?= python3.11
VENV   ?= .venv
PY      = $(VENV)/bin/python
# Knobs
T      ?= 20000
DEEP_T ?= 1000000
SCALE  ?= full
SEED   ?=
PROFILE ?= ci
SIM_SEEDS ?= 200
SIM_LONG_SEEDS ?= 3000
# The tests start hundreds of Python processes, and pytest rewrites every test file's asserts: with
# bytecode never written (a machine's PYTHONDONTWRITEBYTECODE), each does it all again, about a
# tenth of make test's time. The caches go in __pycache__/, which git ignores.
unexport PYTHONDONTWRITEBYTECODE
# where `make install` puts `ever` ($(PREFIX)/bin) and its own environment
PREFIX ?= $(HOME)/.local

.DEFAULT_GOAL := help
.PHONY: help laws laws-deep laws-order test test-slow test-long bridge sim sim-long mutants lint check chat install uninstall bench

help:
	@echo "Ever: one chat that never ends."
	@echo ""
	@echo "  make laws        the subset lint and every law, one line each; a law fails if it earns less"
	@echo "                   than the registry's label (T below 20,000 fails push's laws; no API key)"
	@echo "  make laws-deep   push_agrees to t = DEEP_T (default $(DEEP_T)); the history laws past T = 100,000"
	@echo "  make test        the test suite but the tests marked slow, under 3 minutes (PROFILE=ci|deep)"
	@echo "  make test-slow   the tests marked slow: real processes killed, waited on or replayed, proofs seen to fail"
	@echo "  make test-long   every test, slow ones too, with its long runs (the cache replays, 120 kills)"
	@echo "  make bridge      production planner vs model on every scenario (SCALE=full|tiny)"
	@echo "  make sim         the whole chat under a seeded simulated disk, provider and clock (SIM_SEEDS seeds);"
	@echo "                   then each owner life's planner against the model on its events (bridge/lives.py)"
	@echo "  make sim-long    the same past them, SIM_LONG_SEEDS more seeds"
	@echo "  make mutants     plant each bug, run the check that must catch it (a crash is not a catch)"
	@echo "  make lint        ruff (pyproject.toml), the model's subset lint and the layering rules"
	@echo "  make bench       benchmarks (pytest-benchmark, ratios against a baseline)"
	@echo "  make laws-order  the laws in an order shuffled by SEED (default 1), then each Z3 law in its own process"
	@echo "  make check       lint, laws, laws-order, test-long (PROFILE=deep), bridge and mutants"
	@echo "  make chat        the chat (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, EVER_HOME); installs only what it needs"
	@echo "  make install     \`ever\` in PREFIX/bin (default ~/.local/bin), in an environment of its own"
	@echo "  make uninstall   removes what make install put there"
	@echo ""
	@echo "Knobs: PYTHON=$(PYTHON) VENV=$(VENV) PREFIX=$(PREFIX) T=$(T) DEEP_T=$(DEEP_T) SCALE=$(SCALE) SEED=$(SEED) PROFILE=$(PROFILE) SIM_SEEDS=$(SIM_SEEDS) SIM_LONG_SEEDS=$(SIM_LONG_SEEDS)"

$(VENV)/.installed: requirements.txt requirements-chat.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(VENV)/.chat-installed $@

# the chat alone: no proof tools
$(VENV)/.chat-installed: requirements-chat.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-chat.txt
	$(PY) -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $@

venv: $(VENV)/.installed

laws: $(VENV)/.installed
	$(PY) -m laws --t $(T)

laws-deep: $(VENV)/.installed
	$(PY) -m laws --deep --t $(DEEP_T)

test: $(VENV)/.installed
	HYPOTHESIS_PROFILE=$(PROFILE) $(PY) -m pytest -n 2 --dist worksteal -m "not slow"

test-slow: $(VENV)/.installed
	HYPOTHESIS_PROFILE=$(PROFILE) $(PY) -m pytest -n 2 --dist worksteal -m slow

test-long: $(VENV)/.installed
	HYPOTHESIS_PROFILE=$(PROFILE) EVER_LONG_TESTS=1 EVER_CRASH_FULL=1 EVER_STORE_CRASH_KILLS=100 $(PY) -m pytest -n 2 --dist worksteal

bridge: $(VENV)/.installed
	$(PY) -m bridge --scale $(SCALE) $(if $(SEED),--seed $(SEED))

# each owner life's planner is written to a scratch folder, then compared with the model there
sim: $(VENV)/.installed
	@traces=$$(mktemp -d "$${TMPDIR:-/tmp}/ever-lives-XXXXXX"); \
	$(PY) -m sim --seeds $(SIM_SEEDS) --traces "$$traces" && $(PY) -m bridge.lives "$$traces"; \
	status=$$?; rm -rf "$$traces"; exit $$status

sim-long: $(VENV)/.installed
	$(PY) -m sim --seeds $(SIM_LONG_SEEDS) --first $(SIM_SEEDS)

mutants: $(VENV)/.installed
	$(PY) -m mutants

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q tests/model/test_subset.py tests/memory/test_disk_seam.py

bench: $(VENV)/.installed
	$(PY) -m pytest -s tests/bench/test_bench.py tests/bench/test_bench_chat.py tests/bench/test_bench_simulate.py tests/bench/test_bench_first_day.py tests/bench/test_bench_first_views.py tests/bench/test_bench_inputs.py tests/bench/test_bench_send.py --benchmark-enable --benchmark-only
	$(PY) -m pytest -s tests/bench/test_bench_store.py --benchmark-enable

# the deep Hypothesis profile (tests/conftest.py): random examples, ten times as many
check: PROFILE = deep
check: lint laws laws-order test-long bridge mutants

# the same verdicts in another order and alone: the registry shuffled, each Z3 law in its own process
laws-order: $(VENV)/.installed
	$(PY) -m laws --t $(T) --shuffle $(or $(SEED),1)
	$(PY) -m laws --t $(T) --apart --engine z3

chat: $(VENV)/.chat-installed
	$(VENV)/bin/ever chat

# A copy, not a link to this checkout: `ever` keeps working when the checkout moves or changes.
INSTALL_VENV = $(PREFIX)/share/ever/venv
install:
	$(PYTHON) -m venv $(INSTALL_VENV)
	$(INSTALL_VENV)/bin/python -m pip install -q --disable-pip-version-check -r requirements-chat.txt
	$(INSTALL_VENV)/bin/python -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation .
	mkdir -p $(PREFIX)/bin
	ln -sf $(abspath $(INSTALL_VENV))/bin/ever $(PREFIX)/bin/ever
	@echo "ever is $(PREFIX)/bin/ever."
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) echo "$(PREFIX)/bin is not on your PATH: add it, e.g. export PATH=\"$(PREFIX)/bin:\$$PATH\"";; esac

uninstall:
	@if [ -x $(PREFIX)/bin/ever ]; then $(PREFIX)/bin/ever service uninstall || true; fi
	rm -f $(PREFIX)/bin/ever
	rm -rf $(PREFIX)/share/ever
	@echo "Claude Code and Codex may still list ever: claude mcp remove --scope user ever; in ~/.codex/config.toml, delete [mcp_servers.ever]."
