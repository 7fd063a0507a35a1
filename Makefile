# Two entry points that work on a fresh machine: `make demo` and `make test`.
# Each creates the venv and installs what it needs; torch==2.13.0 goes in before
# pyserini, which requires torch and would otherwise pull a multi-GB CUDA build.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

# The fast tier: no ArcadeDB server, no Lucene, no Chromium, nothing slow. A JVM started anyway
# (by a test that lacks its marker) fails to start: JAVA_TOOL_OPTIONS names an agent that is not there.
FAST_MARKERS := not server and not lucene and not browser and not slow
NO_JVM := JAVA_TOOL_OPTIONS=-javaagent:/no-jvm-in-the-fast-test-tier.jar

.PHONY: demo test test-fast test-without-shared lint repro install install-dev clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[lucene,dense,dev]'
	@# The explorer tests drive Debian's chromium (they skip, saying so, without it).
	command -v chromium >/dev/null || [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null || \
	  { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium; } || \
	  echo "chromium could not be installed: the explorer tests will be skipped"
	touch $@

# Neo4j's own Cypher front-end for tests/test_cypher_lint.py (skipped, saying so, without node).
LINT_MODULES := tools/cypher-lint/node_modules/.package-lock.json
$(LINT_MODULES): tools/cypher-lint/package-lock.json
	if command -v npm >/dev/null; then cd tools/cypher-lint && npm ci --no-audit --no-fund; \
	else echo "node/npm absent: the Neo4j Cypher lint will be skipped"; fi

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev $(LINT_MODULES)

demo: $(VENV)/.installed
	$(BIN)/citegraph demo

# pytest's exit code 5 (no tests collected, e.g. everything deselected) is not a failure here.
test: $(VENV)/.installed-dev $(LINT_MODULES)
	$(MAKE) --no-print-directory lint
	$(BIN)/python -m pytest || [ $$? -eq 5 ]
	$(MAKE) --no-print-directory test-without-shared
	$(BIN)/citegraph repro run --fast

test-fast: $(VENV)/.installed-dev $(LINT_MODULES)
	$(NO_JVM) $(BIN)/python -m pytest -m "$(FAST_MARKERS)" || [ $$? -eq 5 ]

# ruff (lint and format) and mypy, configured in pyproject.toml: zero findings.
PY_TREES := citegraph tests benchmarks tools
lint: $(VENV)/.installed-dev
	$(BIN)/ruff check $(PY_TREES)
	$(BIN)/ruff format --check $(PY_TREES)
	$(BIN)/mypy citegraph

# A clone with no ../shared beside it, as a newcomer has: the fast tier again, then every test
# file that reads the reference folder by its path rather than through conftest.shared() (which
# skips) — a test there that needs the data without skipping fails here, not on a user's machine.
NO_SHARED := CITEGRAPH_SHARED=/nonexistent/shared
test-without-shared: $(VENV)/.installed-dev $(LINT_MODULES)
	$(NO_SHARED) $(NO_JVM) $(BIN)/python -m pytest -q -m "$(FAST_MARKERS)" || [ $$? -eq 5 ]
	$(NO_SHARED) $(BIN)/python -m pytest -q -m "not ($(FAST_MARKERS))" $$(grep -l 'SHARED' tests/test_*.py) || [ $$? -eq 5 ]

# Every reproduction condition whose data is here (citegraph/repro/conditions/*.yaml).
repro: $(VENV)/.installed-dev
	$(BIN)/citegraph repro run

clean:
	rm -rf $(VENV) .pytest_cache
