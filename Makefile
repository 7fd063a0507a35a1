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

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

demo: $(VENV)/.installed
	$(BIN)/citegraph demo

test: $(VENV)/.installed-dev
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) .pytest_cache
