# Two entry points that work on a fresh machine: `make demo` and `make test`.
# Each creates the venv and installs what it needs; torch==2.13.0 goes in before
# pyserini, which requires torch and would otherwise pull a multi-GB CUDA build.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test install install-dev clean

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

test: $(VENV)/.installed-dev $(LINT_MODULES)
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) .pytest_cache
