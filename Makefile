# Set-up is part of every target: a fresh clone needs only `make run` or `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench lint setup clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

# The main job on the embedded default: score the shipped example ledgers under the current policy.
# The main job on the embedded default (local corpus, offline judge, SQLite): index the sample corpus,
# check the sample post, print the report. Sample state lives in .icarus-sample/, rebuilt on every run.
SAMPLE := ICARUS_DATA_DIR=.icarus-sample
run: $(STAMP)
	rm -rf .icarus-sample
	$(SAMPLE) $(BIN)/icarus corpus add examples/sample-corpus/*.html
	$(SAMPLE) $(BIN)/icarus check --post examples/sample-post.json --reputation examples/sample-corpus/reputation.json
	@for ledger in examples/ledgers/*.json; do echo "== $$ledger"; $(BIN)/icarus score $$ledger; done

test: $(STAMP)
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python -m bench

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy src

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
