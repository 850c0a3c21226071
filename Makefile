# One command each: `make test`, `make run`. The Makefile builds .venv by itself.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: all venv test test-fast lint run bench protos clean

all: test

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

venv: $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -q

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -x -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check services tests
	$(BIN)/ruff format --check services tests
	$(BIN)/lint-imports

run: $(STAMP)
	$(BIN)/hebei simulate --hands 64 --seed 1

bench: $(STAMP)
	$(BIN)/hebei bench rules

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
