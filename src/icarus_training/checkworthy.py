"""Train the check-worthiness ranker (``icarus.claims.ranking``) on the CheckThat! 2019 transcripts.

``python -m icarus_training.checkworthy --data ../shared/datasets`` (``make train-checkworthy``).

The rule, fixed before any dev figure was read:

1. Train and tune transcripts are pooled (``icarus.evaluation.checkthat`` fixes the parts). Each
   candidate regularisation strength ``C`` is scored by leave-one-transcript-out: fit on the others,
   rank the held-out transcript's sentences. The candidate with the highest out-of-fold MAP wins; a tie
   goes to the smaller ``C`` (the simpler model).
2. The bar is the out-of-fold score above which ``FLAGGED_BUDGET`` of the pooled lines lie: a desk can
   read about that share of a debate. Recall at the bar is what the ranking earns within that budget.
3. The final model is fit on all pooled transcripts; its bar is the same quantile of its own
   out-of-fold scores' log-odds, so the shipped bar was never fit on the lines it is measured on.
4. The dev transcripts are scored once, for the record, with 90 % bootstrap intervals over transcripts.

Features appearing on fewer than ``MIN_COUNT`` pooled lines are dropped. Training is deterministic
(liblinear with a fixed seed).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from icarus.claims.ranking import MODEL_FILE, features, load_model
from icarus.evaluation.checkthat import (
    Part,
    Transcript,
    load_transcripts,
    mean_average_precision,
    part_of,
    threshold_figures,
)

__all__ = ["FLAGGED_BUDGET", "MIN_COUNT", "SCRIPT_VERSION", "main", "train"]

SCRIPT_VERSION: Final = "train-checkworthy@1"
MODEL_VERSION: Final = "checkworthy@1"
C_GRID: Final = (0.1, 0.3, 1.0)
FLAGGED_BUDGET: Final = 0.15
MIN_COUNT: Final = 2
BOOTSTRAP_REPS: Final = 2000
SEED: Final = 20261202

_MODEL_PATH = Path(__file__).resolve().parents[1] / "icarus" / "claims" / MODEL_FILE
_RECORD = Path("docs/evaluation/checkworthiness")
_LABEL_CHARS: Final = 100  # one row's speaker field runs on with its text; a label is kept short


@dataclass(frozen=True, slots=True)
class _Fitted:
    weights: dict[str, float]
    bias: float

    def log_odds(self, names: Sequence[str]) -> float:
        return self.bias + sum(self.weights.get(name, 0.0) for name in names)


def _fit(lines: list[list[str]], labels: list[bool], c: float) -> _Fitted:
    from scipy.sparse import csr_matrix
    from sklearn.linear_model import LogisticRegression

    counts: dict[str, int] = {}
    for names in lines:
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    vocabulary = sorted(name for name, count in counts.items() if count >= MIN_COUNT)
    index = {name: column for column, name in enumerate(vocabulary)}
    rows, columns = [], []
    for row, names in enumerate(lines):
        for name in names:
            if name in index:
                rows.append(row)
                columns.append(index[name])
    matrix = csr_matrix((np.ones(len(rows)), (rows, columns)), shape=(len(lines), len(vocabulary)))
    model = LogisticRegression(C=c, solver="liblinear", max_iter=5000, random_state=SEED)
    model.fit(matrix, np.asarray(labels))
    weights = {name: float(weight) for name, weight in zip(vocabulary, model.coef_[0], strict=True)}
    return _Fitted(
        {name: round(w, 5) for name, w in weights.items() if abs(w) >= 1e-5}, float(model.intercept_[0])
    )


def _lines(transcripts: Sequence[Transcript]) -> tuple[list[list[str]], list[bool]]:
    return (
        [features(line.text) for t in transcripts for line in t.lines],
        [line.check_worthy for t in transcripts for line in t.lines],
    )


def _out_of_fold(pool: Sequence[Transcript], c: float) -> list[tuple[list[float], list[bool]]]:
    rankings = []
    for held in pool:
        fitted = _fit(*_lines([t for t in pool if t is not held]), c)
        rankings.append(
            (
                [fitted.log_odds(features(line.text)) for line in held.lines],
                [line.check_worthy for line in held.lines],
            )
        )
    return rankings


def _bar(rankings: Sequence[tuple[list[float], list[bool]]]) -> float:
    pooled = np.concatenate([np.asarray(scores) for scores, _ in rankings])
    return float(np.quantile(pooled, 1 - FLAGGED_BUDGET))


def _figures(rankings: Sequence[tuple[list[float], list[bool]]], bar: float) -> dict[str, float]:
    scores = [s for ranking, _ in rankings for s in ranking]
    labels = [label for _, ranking in rankings for label in ranking]
    kept = threshold_figures(scores, labels, lambda score: score >= bar)
    return {
        "transcripts": len(rankings),
        "lines": kept.lines,
        "check_worthy": kept.check_worthy,
        "map": round(mean_average_precision(rankings), 4),
        "flagged": kept.flagged,
        "found": kept.found,
        "recall": round(kept.recall, 4),
        "flagged_share": round(kept.flagged_share, 4),
        "precision": round(kept.precision, 4),
    }


def _intervals(rankings: Sequence[tuple[list[float], list[bool]]], bar: float) -> dict[str, list[float]]:
    """90 % percentile bootstrap over transcripts for MAP, recall and flagged share."""
    rng = np.random.default_rng(SEED)
    draws: dict[str, list[float]] = {"map": [], "recall": [], "flagged_share": []}
    for _ in range(BOOTSTRAP_REPS):
        sample = [rankings[i] for i in rng.integers(0, len(rankings), len(rankings))]
        figures = _figures(sample, bar)
        for key, values in draws.items():
            values.append(figures[key])
    return {
        key: [round(float(np.quantile(v, 0.05)), 4), round(float(np.quantile(v, 0.95)), 4)]
        for key, v in draws.items()
    }


def _baseline(transcripts: Sequence[Transcript]) -> list[tuple[list[float], list[bool]]]:
    """The cue points alone (``cues.checkworthiness``), as the detector ranked before this model."""
    from icarus.claims.cues import checkworthiness

    return [
        ([checkworthiness(line.text).score for line in t.lines], [line.check_worthy for line in t.lines])
        for t in transcripts
    ]


def _detector_rankings(transcripts: Sequence[Transcript]) -> list[tuple[list[float], list[bool]]]:
    """Each line's score as the debate detector gives it (defaults; a line no kept claim touches scores 0),
    one segment per line with the transcript's speaker as its named label."""
    from icarus.debates.detection import detect_claims
    from icarus.debates.model import Segment

    rankings = []
    for transcript in transcripts:
        speakers = {line.speaker[:_LABEL_CHARS] for line in transcript.lines}
        segments = [
            Segment(segment_id=str(line.number), speaker_label=line.speaker[:_LABEL_CHARS], text=line.text)
            for line in transcript.lines
            if line.text
        ]
        best: dict[str, float] = {}
        for claim in detect_claims(segments, {label: label for label in speakers}):
            for segment_id in claim.segment_ids:
                best[segment_id] = max(best.get(segment_id, 0.0), claim.checkworthiness)
        rankings.append(
            (
                [best.get(str(line.number), 0.0) for line in transcript.lines],
                [line.check_worthy for line in transcript.lines],
            )
        )
    return rankings


def detector_figures(transcripts: Sequence[Transcript], *, cue_points: bool = False) -> dict[str, Any]:
    """What the debate detector flags at its default bar, with the shipped ranker or (``cue_points``) the
    cue points on each clause, as the detector ranked before the ranker."""
    from unittest import mock

    from icarus.claims.cues import checkworthiness
    from icarus.debates import detection

    if cue_points:
        with mock.patch.object(detection, "_rank", lambda _sentence, clause: checkworthiness(clause).score):
            rankings = _detector_rankings(transcripts)
    else:
        rankings = _detector_rankings(transcripts)
    bar = detection.DEFAULT_MIN_CHECKWORTHINESS
    return _figures(rankings, bar) | {"intervals": _intervals(rankings, bar)}


def train(datasets: Path, *, grid: Sequence[float] = C_GRID, write: bool = True) -> dict[str, Any]:
    from rich.progress import Progress

    transcripts = load_transcripts(datasets)
    parts = part_of(t.name for t in transcripts)
    pool = [t for t in transcripts if parts[t.name] is not Part.DEV]
    dev = [t for t in transcripts if parts[t.name] is Part.DEV]
    candidates: dict[float, dict[str, float]] = {}
    oof: dict[float, list[tuple[list[float], list[bool]]]] = {}
    with Progress() as progress:
        task = progress.add_task("leave-one-transcript-out", total=len(grid))
        for c in grid:
            oof[c] = _out_of_fold(pool, c)
            candidates[c] = _figures(oof[c], _bar(oof[c]))
            print(f"C={c}: out-of-fold {candidates[c]}", flush=True)
            progress.advance(task)
    chosen = min(grid, key=lambda c: (-candidates[c]["map"], c))
    bar = _bar(oof[chosen])
    final = _fit(*_lines(pool), chosen)
    dev_rankings = [
        ([final.log_odds(features(line.text)) for line in t.lines], [line.check_worthy for line in t.lines])
        for t in dev
    ]
    baseline_dev = _baseline(dev)
    record: dict[str, Any] = {
        "script": SCRIPT_VERSION,
        "model": MODEL_VERSION,
        "rule": "highest leave-one-transcript-out MAP on train+tune (tie: smaller C); bar at the "
        f"{FLAGGED_BUDGET:.0%} flagged-share quantile of the out-of-fold log-odds",
        "split": {part.value: sorted(t.name for t in transcripts if parts[t.name] is part) for part in Part},
        "candidates": {str(c): candidates[c] for c in grid},
        "chosen_c": chosen,
        "bar": round(bar, 5),
        "dev": _figures(dev_rankings, bar) | {"intervals": _intervals(dev_rankings, bar)},
        "dev_cue_points": _figures(baseline_dev, 0.4) | {"intervals": _intervals(baseline_dev, 0.4)},
    }
    if write:
        _MODEL_PATH.write_text(
            json.dumps(_model_record(final, chosen, bar), indent=0) + "\n", encoding="utf-8"
        )
        load_model.cache_clear()
        record["dev_detector"] = detector_figures(dev)
        record["dev_detector_cue_points"] = detector_figures(dev, cue_points=True)
        _RECORD.parent.mkdir(parents=True, exist_ok=True)
        _RECORD.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        _RECORD.with_suffix(".md").write_text(render(record), encoding="utf-8")
    return record


def _model_record(final: _Fitted, chosen: float, bar: float) -> dict[str, Any]:
    return {
        "version": MODEL_VERSION,
        "script": SCRIPT_VERSION,
        "trained_on": "CheckThat! 2019 task 1 training transcripts, train+tune parts",
        "c": chosen,
        "bias": round(final.bias, 5),
        "bar": round(bar, 5),
        "weights": dict(sorted(final.weights.items())),
    }


def _row(name: str, figures: dict[str, Any]) -> str:
    low_high = figures.get("intervals", {})

    def cell(key: str, digits: int = 3) -> str:
        value = f"{figures[key]:.{digits}f}"
        if key in low_high:
            low, high = low_high[key]
            value += f" [{low:.{digits}f}, {high:.{digits}f}]"
        return value

    return (
        f"| {name} | {cell('map')} | {cell('recall')} | {cell('flagged_share')} | "
        f"{figures['found']} / {figures['check_worthy']} | {figures['flagged']} / {figures['lines']} |"
    )


def render(record: dict[str, Any]) -> str:
    """The record as a Markdown page (docs/evaluation/checkworthiness.md)."""
    split = record["split"]
    lines = [
        "# Check-worthiness on the CheckThat! 2019 training transcripts",
        "",
        f"Written by `{record['script']}` (`make train-checkworthy`). Rule: {record['rule']}.",
        "",
        f"Split (fixed by hash before any figure was read): train {len(split['train'])}, tune "
        f"{len(split['tune'])}, dev {len(split['dev'])} transcripts. Dev: {', '.join(split['dev'])}.",
        "",
        "## Candidates (leave one transcript out over train+tune)",
        "",
        "| C | MAP | recall at bar | flagged share |",
        "|---|---|---|---|",
    ]
    for c, figures in record["candidates"].items():
        lines.append(
            f"| {c} | {figures['map']:.3f} | {figures['recall']:.3f} | {figures['flagged_share']:.3f} |"
        )
    lines += [
        "",
        f"Chosen: C = {record['chosen_c']}, bar {record['bar']} (log-odds).",
        "",
        "## Dev transcripts, read once (90 % bootstrap intervals over transcripts)",
        "",
        "| ranking | MAP | recall | flagged share | found | flagged |",
        "|---|---|---|---|---|---|",
        _row("ranker, every line", record["dev"]),
        _row("cue points, every line (bar 0.4)", record["dev_cue_points"]),
    ]
    if "dev_detector" in record:
        lines += [
            _row("debate detector with the ranker", record["dev_detector"]),
            _row("debate detector with cue points (before)", record["dev_detector_cue_points"]),
        ]
    lines += [
        "",
        '"Every line" ranks each sentence by itself; the detector ranks only the checkable claims it keeps',
        "(opinions, predictions, questions and courtesy never flag a line) and flags at its default bar.",
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="folder holding the public datasets")
    parser.add_argument("--grid", default=",".join(str(c) for c in C_GRID), help="comma-separated C values")
    parser.add_argument("--dry-run", action="store_true", help="print the record, write nothing")
    args = parser.parse_args(argv)
    record = train(args.data, grid=[float(c) for c in args.grid.split(",")], write=not args.dry_run)
    print(json.dumps({key: record[key] for key in ("chosen_c", "bar", "dev", "dev_cue_points")}, indent=2))


if __name__ == "__main__":
    main()
