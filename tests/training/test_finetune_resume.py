"""The staged fine-tuning loop: every stage's passes run and are scored, the best pass is kept, and a run
stopped mid-pass resumes from its checkpoint to the same weights an unbroken run reaches."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from rich.console import Console

torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed")
pytest.importorskip("transformers", reason="the train extra (transformers) is not installed")

from icarus_training import finetune  # noqa: E402
from icarus_training.finetune import STATE_FILE, Stage, fine_tune  # noqa: E402

PAIRS = 64
BATCH = 4


class Tiny(torch.nn.Module):  # type: ignore[misc,name-defined]
    """A bag of token embeddings with three outputs: enough to learn and to checkpoint."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.bag = torch.nn.EmbeddingBag(12, 3)

    def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
        return SimpleNamespace(logits=self.bag(input_ids))


def _stage(name: str, passes: int, stop_at: int | None = None) -> Stage:
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 3, size=PAIRS)
    ids = np.stack([labels + 3 * rng.integers(0, 4, size=PAIRS), rng.integers(0, 12, size=PAIRS)], axis=1)
    calls = {"n": 0}

    def tensors(batch: Any) -> dict[str, Any]:
        calls["n"] += 1
        if stop_at is not None and calls["n"] > stop_at:
            raise KeyboardInterrupt  # the run is stopped here
        rows = ids[list(batch)]
        return {
            "input_ids": rows,
            "attention_mask": np.ones_like(rows),
            "token_type_ids": np.zeros_like(rows),
        }

    def batches(n: int) -> list[list[int]]:
        order = np.random.default_rng(100 + n).permutation(PAIRS)
        return [list(map(int, order[k : k + BATCH])) for k in range(0, PAIRS, BATCH)]

    return Stage(name, passes, 0.05, tensors, batches, labels.astype(np.int64), np.ones(PAIRS))


def _score(model: Any) -> tuple[float, dict[str, Any]]:
    return float(model.bag.weight.sum().detach()), {}


def _run(
    tmp: Path | None, stop_at: int | None = None, resume: bool = False
) -> tuple[Any, list[dict[str, Any]]]:
    stages = [_stage("first", 1), _stage("second", 2, stop_at)]
    return fine_tune(
        Tiny(), stages, _score, seed=1, threads=1, console=Console(quiet=True), checkpoint=tmp, resume=resume
    )


def test_every_pass_of_every_stage_is_scored_and_the_best_kept() -> None:
    model, passes = _run(None)
    assert [(p["stage"], p["stage_pass"]) for p in passes] == [("first", 1), ("second", 1), ("second", 2)]
    assert [p["pass"] for p in passes] == [1, 2, 3]
    best = max(p["selection_macro_f1"] for p in passes)
    assert abs(float(model.bag.weight.sum().detach()) - best) < 1e-4


def test_a_stopped_run_resumes_to_the_weights_of_an_unbroken_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(finetune, "CHECKPOINT_EVERY", 5)
    whole, whole_passes = _run(tmp_path / "whole")
    broken = tmp_path / "broken"
    with pytest.raises(KeyboardInterrupt):
        _run(broken, stop_at=12)  # in the second stage's first pass, after its checkpoint at step 10
    assert (broken / STATE_FILE).is_file()
    resumed, resumed_passes = _run(broken, resume=True)
    assert [p["stage_pass"] for p in resumed_passes] == [p["stage_pass"] for p in whole_passes]
    for name, tensor in whole.state_dict().items():
        assert torch.allclose(tensor, resumed.state_dict()[name], atol=1e-6), name


def test_resuming_without_a_checkpoint_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="nothing to resume"):
        _run(tmp_path, resume=True)
