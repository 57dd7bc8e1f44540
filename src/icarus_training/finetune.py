"""The cross-encoder's fine-tuning loop: stages of passes, a checkpoint that a stopped run resumes from.

A run is a list of ``Stage`` s, each its own training pairs, number of passes and learning-rate schedule
(AdamW, linear warm-up over ``WARMUP_SHARE`` of the stage's steps, then linear decay): FEVER first, then the
fact-checking sets, so the second stage starts from what the first learned. After every pass the
validation pairs are scored and the pass with the best selection score is kept, whichever stage it ends.

Checkpoints. With a checkpoint folder, the loop writes ``train-state.pt`` there every ``CHECKPOINT_EVERY``
steps and at the end of every pass: the model, the optimiser and the schedule, where it stands (stage,
pass, step), the passes scored so far and the best model's weights. ``resume=True`` carries on from that
file: the batches of a pass are a function of the seed and the pass, so the resumed run takes the same
batches from the step it stopped at. (A resumed run is not bit-identical to an unbroken one: the order in
which CPU threads add floats is not fixed across processes. Its per-pass scores are recorded the same way.)

Device. A CUDA GPU when torch sees one, else ``threads`` CPU threads (fixed, because float sums depend on the
thread count). The model that leaves this module is on the CPU either way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

__all__ = ["CHECKPOINT_EVERY", "STATE_FILE", "WARMUP_SHARE", "Stage", "device_name", "fine_tune"]

CHECKPOINT_EVERY = 200  # steps between checkpoints: about two minutes on two CPU cores
STATE_FILE = "train-state.pt"
WARMUP_SHARE = 0.06
WEIGHT_DECAY = 0.01


@dataclass(frozen=True)
class Stage:
    """One stage of training: its name, its encoded pairs' batches per pass, labels, weights, learning rate."""

    name: str
    passes: int
    learning_rate: float
    tensors: Callable[[Sequence[int]], dict[str, npt.NDArray[np.int64]]]
    batches: Callable[[int], list[list[int]]]  # pass number (from 0) -> that pass's batches
    labels: npt.NDArray[np.int64]
    weights: npt.NDArray[np.float64]


def device_name() -> str:
    """``cuda`` when torch sees a GPU, else ``cpu``."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _save(path: Path, state: dict[str, Any]) -> None:
    import torch

    scratch = path.with_suffix(".tmp")
    torch.save(state, scratch)
    scratch.replace(path)  # a run killed while writing keeps the previous checkpoint


def fine_tune(
    model: Any,
    stages: Sequence[Stage],
    score: Callable[[Any], tuple[float, dict[str, Any]]],
    *,
    seed: int,
    threads: int,
    console: Console,
    checkpoint: Path | None = None,
    resume: bool = False,
) -> tuple[Any, list[dict[str, Any]]]:
    """Train ``model`` through ``stages``; return it with the best pass's weights (on the CPU) and a record of
    every pass. ``score(model)`` gives (selection score, per-set scores) on the validation pairs."""
    import torch
    from transformers import get_linear_schedule_with_warmup

    torch.manual_seed(seed)
    device = device_name()
    if device == "cpu":
        torch.set_num_threads(threads)
        torch.use_deterministic_algorithms(True)
    model.to(device)
    loss_fn = torch.nn.CrossEntropyLoss(reduction="none")
    state_path = checkpoint / STATE_FILE if checkpoint is not None else None
    if checkpoint is not None and not resume:
        checkpoint.mkdir(parents=True, exist_ok=True)

    saved: dict[str, Any] | None = None
    if resume:
        if state_path is None or not state_path.is_file():
            raise SystemExit(f"nothing to resume: no {STATE_FILE} in {checkpoint}")
        saved = torch.load(state_path, map_location=device, weights_only=False)
        model.load_state_dict(saved["model"])
        console.print(f"resuming stage {saved['stage'] + 1}, pass {saved['pass'] + 1}, step {saved['step']}")
    passes: list[dict[str, Any]] = saved["passes"] if saved else []
    best_score: float = saved["best_score"] if saved else float("-inf")
    best_state: dict[str, Any] | None = saved["best_state"] if saved else None

    at = (saved["stage"], saved["pass"], saved["step"]) if saved else (0, 0, 0)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console) as progress:
        for stage_index, stage in enumerate(stages):
            if stage_index < at[0]:
                continue
            plan = [stage.batches(p) for p in range(stage.passes)]
            steps = sum(len(p) for p in plan)
            optimizer = torch.optim.AdamW(
                model.parameters(), lr=stage.learning_rate, weight_decay=WEIGHT_DECAY
            )
            schedule = get_linear_schedule_with_warmup(  # type: ignore[no-untyped-call,unused-ignore]
                optimizer, int(WARMUP_SHARE * steps), steps
            )
            if saved is not None and stage_index == at[0] and saved["optimizer"] is not None:
                optimizer.load_state_dict(saved["optimizer"])
                schedule.load_state_dict(saved["schedule"])
            for pass_index, batches in enumerate(plan):
                if (stage_index, pass_index) < at[:2]:
                    continue
                first = at[2] if (stage_index, pass_index) == at[:2] else 0
                running = saved["running"] if saved is not None and first else 0.0
                label = f"{stage.name} pass {pass_index + 1}/{stage.passes}"
                task = progress.add_task(label, total=len(batches), completed=first)
                model.train()
                started = time.monotonic()
                for step in range(first, len(batches)):
                    batch = batches[step]
                    feed = {k: torch.from_numpy(v).to(device) for k, v in stage.tensors(batch).items()}
                    logits = model(**feed).logits
                    per_pair = loss_fn(logits, torch.from_numpy(stage.labels[batch]).to(device))
                    weights = torch.from_numpy(stage.weights[batch]).float().to(device)
                    loss = (per_pair * weights).mean()
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    optimizer.step()
                    schedule.step()
                    optimizer.zero_grad()
                    running += float(loss.detach())
                    done = step + 1
                    progress.update(task, advance=1, description=f"{label} loss {running / done:.3f}")
                    if state_path is not None and done % CHECKPOINT_EVERY == 0 and done < len(batches):
                        _save(
                            state_path,
                            {
                                "model": model.state_dict(),
                                "optimizer": optimizer.state_dict(),
                                "schedule": schedule.state_dict(),
                                "stage": stage_index,
                                "pass": pass_index,
                                "step": done,
                                "running": running,
                                "passes": passes,
                                "best_score": best_score,
                                "best_state": best_state,
                            },
                        )
                model.eval()
                selection, scores = score(model)
                record = {
                    "stage": stage.name,
                    "pass": len(passes) + 1,
                    "stage_pass": pass_index + 1,
                    "pairs": sum(len(b) for b in batches),
                    "seconds": round(time.monotonic() - started, 1),
                    "selection_macro_f1": round(selection, 6),
                    "validation": scores,
                }
                passes.append(record)
                console.print(f"{label}: validation selection macro-F1 {selection:.4f}")
                if selection > best_score:
                    best_score = selection
                    best_state = {k: v.detach().to("cpu").clone() for k, v in model.state_dict().items()}
                if state_path is not None:
                    stage_done = pass_index + 1 == stage.passes
                    _save(
                        state_path,
                        {
                            "model": model.state_dict(),
                            # a new stage starts a new optimiser and schedule
                            "optimizer": None if stage_done else optimizer.state_dict(),
                            "schedule": None if stage_done else schedule.state_dict(),
                            "stage": stage_index + stage_done,
                            "pass": 0 if stage_done else pass_index + 1,
                            "step": 0,
                            "running": 0.0,
                            "passes": passes,
                            "best_score": best_score,
                            "best_state": best_state,
                        },
                    )
    assert best_state is not None
    model.to("cpu")
    model.load_state_dict(best_state)
    return model, passes
