# One command each: `make test`, `make run`. The Makefile builds .venv by itself.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: all venv lock test test-fast lint run bench protos clean

all: test

# Every distribution at the version deploy/constraints.txt pins (see that file).
CONSTRAINTS := deploy/constraints.txt

$(STAMP): pyproject.toml $(CONSTRAINTS)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e '.[dev]'
	@touch $(STAMP)

venv: $(STAMP)

# Re-pin deploy/constraints.txt: the newest versions pyproject.toml's ranges admit, installed
# into a throw-away venv (the current .venv is untouched until `make venv` reads the new pins).
LOCK_VENV := .lock-venv
lock:
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LOCK_VENV)/bin/python -m pip install --quiet -e '.[dev]'
	{ sed -n '/^#/p' $(CONSTRAINTS); $(LOCK_VENV)/bin/python -m pip freeze --exclude-editable --all \
		| grep -v -i '^\(pip\|wheel\)=='; } > $(CONSTRAINTS).new
	mv $(CONSTRAINTS).new $(CONSTRAINTS)
	rm -rf $(LOCK_VENV)
	@echo "$(CONSTRAINTS) re-pinned; run make test"

# buf (contracts lint and breaking-change check): the pinned `buf-bin` wheel in the dev extras.
BUF := $(BIN)/buf

# Generated protobuf/grpc code and stubs: `from hebei.v1 import table_pb2`.
# PROTO_OUT is overridden by the freshness test to regenerate into a temporary folder.
PROTO_OUT ?= services
PROTOC    := $(BIN)/python -m grpc_tools.protoc --proto_path=protos \
	--plugin=protoc-gen-mypy_grpc=$(BIN)/protoc-gen-mypy_grpc

protos: | $(STAMP)
	@mkdir -p $(PROTO_OUT)/hebei/v1
	rm -f $(PROTO_OUT)/hebei/v1/*_pb2*.py $(PROTO_OUT)/hebei/v1/*_pb2*.pyi
	$(PROTOC) --python_out=$(PROTO_OUT) --pyi_out=$(PROTO_OUT) --grpc_python_out=$(PROTO_OUT) \
		--mypy_grpc_out=quiet:$(PROTO_OUT) $(sort $(wildcard protos/hebei/v1/*.proto))

# The suite runs in TEST_WORKERS processes (pytest-xdist), a test file's tests in one of them
# (its module fixtures are started once); each process starts its own embedded servers.
# `make test TEST_WORKERS=0` runs it in one process.
TEST_WORKERS ?= 2
PYTEST := $(BIN)/python -m pytest -q $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile)

test: $(STAMP)
	$(PYTEST)

test-fast: $(STAMP)
	$(PYTEST) -x -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check services tests
	$(BIN)/ruff format --check services tests
	$(BIN)/lint-imports
	cd protos && ../$(BUF) lint
	@# breaking-change check against the previous commit, once it had contracts
	if git cat-file -e HEAD~1:protos/hebei/v1 2>/dev/null; then \
		cd protos && ../$(BUF) breaking --against '../.git#ref=HEAD~1,subdir=protos'; \
	else echo "buf breaking: skipped, the previous commit has no contracts"; fi

run: $(STAMP)
	$(BIN)/hebei demo --players 16 --rounds 4 --hands 4 --seed 1

bench: $(STAMP)
	$(BIN)/hebei bench rules
	$(BIN)/hebei bench ledger
	$(BIN)/hebei bench bots
	$(BIN)/hebei bench stack

clean:
	rm -rf $(VENV) $(LOCK_VENV) .pytest_cache .ruff_cache .hypothesis
