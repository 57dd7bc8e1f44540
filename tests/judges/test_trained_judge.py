"""The trained offline judge: shipped weights load without any dataset, answers are calibrated and reach the
ledger as given, hops and scope follow their rules, and the recorded validation numbers reproduce."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
import wordllama

from icarus.evaluation.stancesets import DATASET_FILES, LabelledPair, Split, load_pairs
from icarus.judges.features import PairEncoder, feature_width
from icarus.judges.protocol import Judge, JudgeRequest
from icarus.judges.trained import (
    HOPS_CAP,
    PROVIDER,
    UNSTATED_WORDS_PER_HOP,
    WEIGHTS_NAME,
    OfflineWordLlamaJudge,
    inference_hops,
    load_weights,
    scope_mismatches,
)
from icarus.ledger.judgments import ScopeDimension, Stance
from icarus_training.train import score_split
from tests.datasets import DATASETS

WEIGHTS = Path(__file__).resolve().parents[2] / "src" / "icarus" / "judges" / "weights"
SIZE_LIMIT = 30 * 1024 * 1024
JUDGE = OfflineWordLlamaJudge()
REQUEST = JudgeRequest(
    claim_id="c1",
    claim_text="Arctic sea ice extent has declined since 1979.",
    evidence_id="e1",
    excerpt="Satellite records show that Arctic sea ice extent has declined steadily since 1979.",
)


def test_weights_load_with_no_datasets_and_record_their_making(tmp_path: Path) -> None:
    weights = load_weights()
    meta = weights.metadata
    assert meta["script_version"] and meta["seed"] and meta["data_files"]
    assert set(meta["data_files"]) <= {f for files in DATASET_FILES.values() for f in files}
    assert weights.head.input_width == feature_width()
    assert (
        meta["weights_sha256"] == hashlib.sha256((WEIGHTS / f"{WEIGHTS_NAME}.npz").read_bytes()).hexdigest()
    )
    assert weights.calibration.calibration_id == meta["calibration"]["calibration_id"]
    with pytest.raises(RuntimeError, match="not found"):
        load_weights(folder=tmp_path)


def test_what_ships_fits_the_size_limit() -> None:
    embeddings = Path(wordllama.__file__).parent / "weights" / "l2_supercat_256.safetensors"
    shipped = sum(p.stat().st_size for p in WEIGHTS.glob(f"{WEIGHTS_NAME}.*")) + embeddings.stat().st_size
    assert shipped <= SIZE_LIMIT


def test_a_stated_claim_is_supported_and_the_answer_carries_provenance() -> None:
    verdict = JUDGE.stance(REQUEST)
    assert isinstance(JUDGE, Judge)
    assert verdict.stance is Stance.SUPPORT and verdict.failure is None
    assert verdict.provider == PROVIDER and verdict.version == "1"
    assert verdict.calibration_id == load_weights().calibration.calibration_id
    assert verdict.inference_hops == 0 and verdict.scope_matches


def _hops(claim: str, passage: str) -> int:
    alignment = JUDGE.encoder.encode_aligned([claim], [passage])[1][0]
    return inference_hops(claim, passage, alignment)


def test_hops_count_unstated_claim_words() -> None:
    assert _hops("Arctic ice declined", "Arctic ice declined sharply") == 0
    assert _hops("Arctic sea ice declined", "Arctic sea ice declined") == 0
    # "thinned" and "glaciers" are neither stated nor close in meaning: two words, one hop
    assert _hops("Arctic glaciers thinned", "Arctic ice grew") == 1
    assert UNSTATED_WORDS_PER_HOP == 4 and _hops("Arctic ice declined", "") == 1  # three words, four per hop
    claim = (
        "Vaccine trial volunteers reported headaches, fatigue, nausea, dizziness, fever, chills, rashes, "
        "swelling, soreness, insomnia, cramps, coughing, sneezing, itching, vomiting and palpitations"
    )
    assert _hops(claim, "The committee met on Tuesday.") == HOPS_CAP


def test_scope_mismatch_needs_a_different_stated_value() -> None:
    assert scope_mismatches("Sales rose 12% in 2019.", "Sales rose 12% in 2019.") == ()
    assert scope_mismatches("Sales rose 12% in 2019.", "Sales rose sharply.") == ()  # unstated: no mismatch
    assert scope_mismatches("Sales rose 12% in 2019.", "Sales rose 7% in 2019.") == (ScopeDimension.QUANTITY,)
    assert scope_mismatches("Sales rose 12% in 2019.", "Sales rose 12% in 2015.") == (ScopeDimension.PERIOD,)
    assert scope_mismatches("Floods hit Kenya.", "Floods hit Uganda.") == (ScopeDimension.GEOGRAPHY,)
    assert scope_mismatches("Floods hit Kenya.", "Floods hit Uganda and Kenya.") == ()


def _recorded_data_present() -> str | None:
    meta = load_weights().metadata
    for relative, digest in meta["data_files"].items():
        path = DATASETS / relative
        if not path.is_file():
            return f"{path} not found; the reproduction check needs the training-side datasets"
        if hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            return f"{path} differs from the file the weights were trained on"
    return None


@pytest.mark.skipif(_recorded_data_present() is not None, reason=str(_recorded_data_present()))
def test_recorded_validation_numbers_reproduce() -> None:
    weights = load_weights()
    recorded = weights.metadata["validation"]
    encoder = PairEncoder.packaged()
    for name in ("climate-fever", "scifact"):
        pairs: list[LabelledPair] = load_pairs(name, DATASETS, Split.VALIDATION)
        assert len(pairs) == recorded[name]["n"]
        features = encoder.encode([p.claim for p in pairs], [p.passage for p in pairs])
        scores = score_split(weights.head, weights.calibration, features, pairs)[name]
        for key in ("macro_f1", "accuracy", "ece"):
            assert scores[key] == pytest.approx(recorded[name][key], abs=1e-4), (name, key)
    assert np.isfinite(weights.calibration.temperature)
