"""The cross-encoder offline judge: shipped weights load without any dataset and refuse a replaced model,
answers are calibrated, deterministic and independent of what else is judged, hops and scope mean what
they mean for the WordLlama judge, and the recorded validation numbers reproduce."""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from icarus.cli import app
from icarus.evaluation.stancesets import DATASET_FILES, Split, load_pairs
from icarus.judges.cross_encoder import (
    PROBE_PAIRS,
    PROBE_TOLERANCE,
    PROVIDER,
    WEIGHTS_NAME,
    OfflineMiniLMJudge,
    WeightsError,
    load_weights,
    probe_logits,
    weight_files,
)
from icarus.judges.head import CLASSES
from icarus.judges.metrics import accuracy, macro_f1
from icarus.judges.protocol import Judge, JudgeRequest
from icarus.judges.registry import MINILM_JUDGE, create_judge, judge_from_settings
from icarus.judges.trained import UNSTATED_WORDS_PER_HOP, OfflineWordLlamaJudge, unstated_words
from icarus.ledger.judgments import ScopeDimension, Stance
from icarus.settings import Settings
from tests.datasets import DATASETS
from tests.judges.stance_files import write_climate_fever

SIZE_LIMIT = 30 * 1024 * 1024
SELECTION_SETS = ("climate-fever", "scifact")
JUDGE = OfflineMiniLMJudge()
REQUEST = JudgeRequest(
    claim_id="c1",
    claim_text="Arctic sea ice extent has declined since 1979.",
    evidence_id="e1",
    excerpt="Satellite records show that Arctic sea ice extent has declined steadily since 1979.",
)


def test_weights_load_with_no_datasets_and_record_their_making(tmp_path: Path) -> None:
    weights = load_weights()
    meta = weights.metadata
    model, _, _ = weight_files()
    assert meta["name"] == WEIGHTS_NAME and meta["script_version"] and meta["seed"] and meta["base_model"]
    assert meta["data_files"] and set(meta["data_files"]) <= {f for fs in DATASET_FILES.values() for f in fs}
    assert meta["onnx_sha256"] == hashlib.sha256(model.read_bytes()).hexdigest()
    assert weights.calibration.calibration_id == meta["calibration"]["calibration_id"]
    assert set(SELECTION_SETS) <= set(meta["validation"]) and set(SELECTION_SETS) <= set(meta["test"])
    with pytest.raises(WeightsError, match="not found"):
        load_weights(folder=tmp_path)


def test_what_ships_fits_the_size_limit() -> None:
    assert sum(path.stat().st_size for path in weight_files()) <= SIZE_LIMIT


def _copied_weights(folder: Path) -> tuple[Path, dict[str, object]]:
    """The shipped tokenizer and metadata in ``folder``; returns where the model goes and the metadata."""
    model, tokenizer, meta = weight_files(folder=folder)
    _, shipped_tokenizer, shipped_meta = weight_files()
    shutil.copy(shipped_tokenizer, tokenizer)
    shutil.copy(shipped_meta, meta)
    return model, json.loads(meta.read_text())


def test_a_missing_or_replaced_model_is_refused(tmp_path: Path) -> None:
    model, metadata = _copied_weights(tmp_path)
    with pytest.raises(WeightsError, match=r"missing offline-minilm-1\.onnx"):
        load_weights(folder=tmp_path)
    model.write_bytes(weight_files()[0].read_bytes()[:-1] + b"\0")
    with pytest.raises(WeightsError, match="damaged or was replaced"):
        load_weights(folder=tmp_path)
    # a file matching its recorded digest that is no model at all
    model.write_bytes(b"not a model")
    metadata["onnx_sha256"] = hashlib.sha256(b"not a model").hexdigest()
    weight_files(folder=tmp_path)[2].write_text(json.dumps(metadata))
    with pytest.raises(WeightsError, match="cannot be read"):
        load_weights(folder=tmp_path)


def test_classes_in_another_order_are_refused(tmp_path: Path) -> None:
    model, metadata = _copied_weights(tmp_path)
    shutil.copy(weight_files()[0], model)
    metadata["classes"] = ["refute", "support", "neutral"]
    weight_files(folder=tmp_path)[2].write_text(json.dumps(metadata))
    with pytest.raises(WeightsError, match="orders its classes"):
        load_weights(folder=tmp_path)


def test_the_record_keeps_probe_logits_that_reproduce_here() -> None:
    weights = load_weights()
    recorded = np.asarray(weights.metadata["probe_logits"])
    assert recorded.shape == (len(PROBE_PAIRS), len(CLASSES))
    assert np.abs(np.asarray(probe_logits(weights.scorer)) - recorded).max() <= PROBE_TOLERANCE


@pytest.mark.parametrize("moved", [PROBE_TOLERANCE * 0.5, PROBE_TOLERANCE * 2])
def test_a_machine_that_computes_the_model_differently_is_refused(tmp_path: Path, moved: float) -> None:
    model, metadata = _copied_weights(tmp_path)
    shutil.copy(weight_files()[0], model)
    probes = [list(row) for row in metadata["probe_logits"]]  # type: ignore[union-attr]
    probes[1][2] += moved
    metadata["probe_logits"] = probes
    weight_files(folder=tmp_path)[2].write_text(json.dumps(metadata))
    if moved <= PROBE_TOLERANCE:
        assert load_weights(folder=tmp_path).metadata["probe_logits"] == probes
    else:
        with pytest.raises(WeightsError, match="computes the model differently"):
            load_weights(folder=tmp_path)
    del metadata["probe_logits"]  # a record made before probes were kept is not checked
    weight_files(folder=tmp_path)[2].write_text(json.dumps(metadata))
    assert "probe_logits" not in load_weights(folder=tmp_path).metadata


def test_a_stated_claim_is_supported_and_the_answer_carries_provenance() -> None:
    verdict = JUDGE.stance(REQUEST)
    assert isinstance(JUDGE, Judge)
    assert verdict.stance is Stance.SUPPORT and verdict.failure is None
    assert verdict.provider == PROVIDER and verdict.version == "1"
    assert verdict.calibration_id == load_weights().calibration.calibration_id
    assert verdict.inference_hops == 0 and verdict.scope_matches


def test_a_contradicted_claim_is_refuted() -> None:
    excerpt = "Satellite records show that Arctic sea ice extent has not declined since 1979."
    verdict = JUDGE.stance(REQUEST.model_copy(update={"excerpt": excerpt}))
    assert verdict.stance is Stance.REFUTE


def test_answers_are_deterministic_and_a_pair_is_judged_on_its_own() -> None:
    assert JUDGE.stance(REQUEST) == OfflineMiniLMJudge(load_weights()).stance(REQUEST)
    claim, passage = REQUEST.claim_text, REQUEST.excerpt
    alone = JUDGE.probabilities([claim], [passage])
    beside_others = JUDGE.probabilities(
        [claim, "Tickets cost ten euros.", claim],
        [passage, "The museum opened in 1901 in a former mill.", "No."],
    )
    assert np.array_equal(alone[0], beside_others[0])
    assert alone.shape == (1, len(CLASSES)) and alone.sum() == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("claim", "excerpt", "hops", "mismatched"),
    [
        ("Arctic glaciers thinned", "Arctic ice grew.", 1, ()),  # two unstated words: one hop
        (
            "Sales rose 12% in 2019.",
            "Sales rose 7% in 2015.",
            0,
            (ScopeDimension.QUANTITY, ScopeDimension.PERIOD),
        ),
        ("Floods hit Kenya.", "Floods hit Uganda.", 1, (ScopeDimension.GEOGRAPHY,)),
        # five content words, none stated by stem: two hops, though every one has a near-synonym there
        (
            "Automobile purchases plummeted nationwide recently.",
            "Car sales fell across the country lately.",
            2,
            (),
        ),
    ],
)
def test_hops_count_claim_stems_the_passage_lacks_and_scope_is_the_wordllama_judges(
    claim: str, excerpt: str, hops: int, mismatched: tuple[ScopeDimension, ...]
) -> None:
    request = JudgeRequest(claim_id="c", claim_text=claim, evidence_id="e", excerpt=excerpt)
    ours = JUDGE.stance(request)
    assert ours.inference_hops == hops
    assert ours.inference_hops == math.ceil(len(unstated_words(claim, excerpt, [])) / UNSTATED_WORDS_PER_HOP)
    assert ours.mismatched == OfflineWordLlamaJudge().stance(request).mismatched == mismatched
    assert ours.scope_matches is (not mismatched)


def test_the_registry_and_the_setting_create_it_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    assert MINILM_JUDGE == "offline-minilm@1"
    assert isinstance(create_judge(MINILM_JUDGE), OfflineMiniLMJudge)
    monkeypatch.setenv("ICARUS_OFFLINE_JUDGE", MINILM_JUDGE)
    assert isinstance(judge_from_settings(Settings()), OfflineMiniLMJudge)


def test_judge_eval_measures_it(tmp_path: Path) -> None:
    root = write_climate_fever(tmp_path)
    args = ["judge", "eval", "--data", str(root), "--set", "climate-fever", "--split", "all", "--json"]
    result = CliRunner().invoke(app, [*args, "--judge", MINILM_JUDGE])
    assert result.exit_code == 0, result.output
    (report,) = json.loads(result.stdout)["judges"]
    assert report["judge"] == MINILM_JUDGE and report["sets"]["climate-fever"]["n"] == 6
    assert report["pairs_per_second"] > 0 and report["sets"]["climate-fever"]["failures"] == 0


def _selection_data_present() -> str | None:
    recorded = load_weights().metadata["data_files"]
    for relative in (f for name in SELECTION_SETS for f in DATASET_FILES[name]):
        path = DATASETS / relative
        if not path.is_file():
            return f"{path} not found; the reproduction check needs the training-side datasets"
        if hashlib.sha256(path.read_bytes()).hexdigest() != recorded.get(relative):
            return f"{path} differs from the file the weights were trained on"
    return None


@pytest.mark.skipif(_selection_data_present() is not None, reason=str(_selection_data_present()))
def test_recorded_validation_numbers_reproduce() -> None:
    recorded = load_weights().metadata["validation"]
    for name in SELECTION_SETS:
        pairs = load_pairs(name, DATASETS, Split.VALIDATION)
        assert len(pairs) == recorded[name]["n"]
        probabilities = JUDGE.probabilities([p.claim for p in pairs], [p.passage for p in pairs])
        gold, predicted = [p.label for p in pairs], [CLASSES[k] for k in probabilities.argmax(axis=1)]
        assert macro_f1(gold, predicted) == pytest.approx(recorded[name]["macro_f1"], abs=1e-6), name
        assert accuracy(gold, predicted) == pytest.approx(recorded[name]["accuracy"], abs=1e-6), name
