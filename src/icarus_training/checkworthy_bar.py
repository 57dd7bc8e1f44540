"""Place the check-worthiness bar so the debate detector uses its line budget, on a fixed rule.

``python -m icarus_training.checkworthy_bar --data ../shared/datasets --cache .checkworthy-oof.json``
(``make train-checkworthy-bar``; needs the ``train`` extra to refit the fold models).

``checkworthy@2``'s bar is where 15 % of the pooled out-of-fold lines score above it. Two things make the
detector flag fewer lines than that on transcripts it never saw:

* the detector's own filters (questions, opinions, predictions, courtesy) drop lines above the bar;
* the shipped encoder, fitted on all 15 transcripts, scores unseen lines on another scale than the fold
  models whose out-of-fold scores set the bar.

A line the desk could have read within the budget but that was never flagged is recall given away. The
rule below places the bar for the detector as it runs, from the train and tune transcripts only. It was
written down before any figure it produces was read; the dev transcripts are read once, at the end.

1. *Eligible lines.* The detector is run on each pooled transcript with every sentence scoring 1: the
   lines it then keeps a claim on are the ones its filters let through.
2. *The bar on the out-of-fold scale.* At a bar b, the detector flags the eligible lines whose
   out-of-fold log-odds z is at least b. A held-back test is a handful of transcripts, so
   ``DRAWS`` samples of ``TEST_TRANSCRIPTS`` transcripts are drawn with replacement from the 15
   (seed ``SEED``). b* is the lowest bar at which the pooled share of lines flagged is at most
   ``FLAGGED_BUDGET`` in at least ``CONFIDENCE`` of the samples. Its *level* p is the share of all pooled
   out-of-fold scores below b*.
3. *The shipped model's scale.* Each fold model is fitted again (the same seed and settings as its
   out-of-fold scores) and scores the lines it was fitted on; d is the mean over folds of its in-sample
   p-quantile minus its out-of-fold p-quantile. The shipped model scores the 15 transcripts (all of them
   lines it was fitted on); the shipped bar is its in-sample p-quantile minus d: the optimism a fold model
   shows on its own lines, taken off the shipped model's.
4. The shipped encoder is unchanged; its record gets the new bar under a new version, ``checkworthy@3``,
   and keeps b*, p and d beside it.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np
from rich.console import Console

from icarus.evaluation.checkthat import Transcript
from icarus_training.checkworthy import FLAGGED_BUDGET

__all__ = [
    "CONFIDENCE",
    "DRAWS",
    "TEST_TRANSCRIPTS",
    "bar_on_oof_scale",
    "eligible_lines",
    "level_of",
    "main",
    "shipped_bar",
]

SCRIPT_VERSION: Final = "place-checkworthy-bar@1"
MODEL_VERSION: Final = "checkworthy@3"
TEST_TRANSCRIPTS: Final = 7  # the lab's 2019 test set holds seven
DRAWS: Final = 2000
CONFIDENCE: Final = 0.9
SEED: Final = 20261203
_LABEL_CHARS: Final = 100
ENCODER_NAME: Final = "checkworthy-2"
WEIGHTS_NAME: Final = "checkworthy-3"
WEIGHTS_DIR: Final = Path(__file__).resolve().parents[1] / "icarus" / "claims" / "weights"
_RECORD: Final = Path("docs/evaluation/checkworthiness-3")

Scored = tuple[list[float], list[bool]]  # (out-of-fold log-odds, eligible) per line of one transcript


def eligible_lines(transcript: Transcript) -> list[bool]:
    """Rule 1: whether the detector keeps a claim on each line when every sentence scores 1."""
    from unittest import mock

    from icarus.debates import detection
    from icarus.debates.model import Segment

    segments = [
        Segment(segment_id=str(line.number), speaker_label=line.speaker[:_LABEL_CHARS], text=line.text)
        for line in transcript.lines
        if line.text
    ]
    names = {line.speaker[:_LABEL_CHARS]: line.speaker[:_LABEL_CHARS] for line in transcript.lines}
    with mock.patch.object(detection, "_rank", lambda _sentence, _claim: 1.0):
        claims = detection.detect_claims(segments, names, min_checkworthiness=0.0)
    touched = {segment_id for claim in claims for segment_id in claim.segment_ids}
    return [str(line.number) in touched for line in transcript.lines]


def _flagged_share(sample: Sequence[Scored], bar: float) -> float:
    lines = sum(len(z) for z, _ in sample)
    flagged = sum(1 for z, ok in sample for score, e in zip(z, ok, strict=True) if e and score >= bar)
    return flagged / lines if lines else 0.0


def bar_on_oof_scale(
    scored: Sequence[Scored],
    *,
    budget: float = FLAGGED_BUDGET,
    draws: int = DRAWS,
    size: int = TEST_TRANSCRIPTS,
    confidence: float = CONFIDENCE,
    seed: int = SEED,
) -> float:
    """Rule 2: the lowest bar whose pooled flagged share stays within ``budget`` in ``confidence`` of the
    samples. The candidates are the eligible lines' own scores, so the answer is one of them."""
    rng = np.random.default_rng(seed)
    samples = [[scored[i] for i in rng.integers(0, len(scored), size)] for _ in range(draws)]
    # shares fall as the bar rises: search the sorted candidate bars for the lowest that passes
    candidates = sorted({score for z, ok in scored for score, e in zip(z, ok, strict=True) if e})
    if not candidates:
        raise ValueError("no eligible line: nothing the detector could flag")

    def passes(bar: float) -> bool:
        within = sum(_flagged_share(sample, bar) <= budget for sample in samples)
        return within >= confidence * draws

    low, high = 0, len(candidates) - 1
    if not passes(candidates[high]):
        return float(np.nextafter(candidates[high], np.inf))  # flag nothing rather than break the budget
    while low < high:
        middle = (low + high) // 2
        if passes(candidates[middle]):
            high = middle
        else:
            low = middle + 1
    return float(candidates[low])


def level_of(scores: Sequence[float], bar: float) -> float:
    """The share of ``scores`` below ``bar``: the bar's quantile level."""
    values = np.asarray(scores, dtype=np.float64)
    return float((values < bar).mean()) if values.size else 0.0


def shipped_bar(
    level: float,
    fold_in_sample: Sequence[Sequence[float]],
    fold_out_of_fold: Sequence[Sequence[float]],
    shipped_in_sample: Sequence[float],
) -> tuple[float, float]:
    """Rule 3: (the shipped bar, d), d being the fold models' mean in-sample minus out-of-fold quantile."""
    if len(fold_in_sample) != len(fold_out_of_fold) or not fold_in_sample:
        raise ValueError("one in-sample and one out-of-fold set of scores per fold")
    gaps = [
        float(np.quantile(inside, level)) - float(np.quantile(outside, level))
        for inside, outside in zip(fold_in_sample, fold_out_of_fold, strict=True)
    ]
    optimism = float(np.mean(gaps))
    return float(np.quantile(shipped_in_sample, level)) - optimism, optimism


def _fold_scores(pool: Sequence[Transcript], console: Console) -> tuple[list[list[float]], list[list[float]]]:
    """Each fold model's scores on its own training lines and on its held-out lines (rule 3)."""
    from icarus_training.checkworthy_minilm import SEED as FOLD_SEED
    from icarus_training.checkworthy_minilm import _examples, _fine_tune, _torch_log_odds, folds

    inside, outside = [], []
    pool_folds = folds(pool)
    for k, held in enumerate(pool_folds):
        train = [t for j, fold in enumerate(pool_folds) if j != k for t in fold]
        examples, labels = _examples(train, False)
        model, encoder = _fine_tune(examples, labels, console, FOLD_SEED + 1000 * k)
        inside.append(_torch_log_odds(model, encoder, examples))
        outside.append(_torch_log_odds(model, encoder, _examples(held, False)[0]))
    return inside, outside


def run(
    datasets: Path,
    cache: Path,
    console: Console,
    fold_scores: Callable[[Sequence[Transcript], Console], tuple[list[list[float]], list[list[float]]]]
    | None = None,
) -> dict[str, Any]:
    """Rules 1–3 on the pooled transcripts."""
    from rich.progress import track

    from icarus.claims.encoder_ranking import load_encoder_ranker
    from icarus_training.checkworthy_context import _pool
    from icarus_training.checkworthy_minilm import run_cv

    cv = run_cv(datasets, ["minilm"], console, cache)
    oof = cv["oof"]["minilm"]
    pool = _pool(datasets)
    eligible = {t.name: eligible_lines(t) for t in track(pool, description="eligible lines", console=console)}
    scored = [(oof[t.name][0], eligible[t.name]) for t in pool]
    b_star = bar_on_oof_scale(scored)
    pooled = [score for t in pool for score in oof[t.name][0]]
    level = level_of(pooled, b_star)
    inside, outside = (fold_scores or _fold_scores)(pool, console)
    encoder = load_encoder_ranker(ENCODER_NAME)  # the encoder itself, whatever bar ships with it now
    shipped = [
        encoder.log_odds(line.text)
        for t in track(pool, description="shipped scores", console=console)
        for line in t.lines
    ]
    bar, optimism = shipped_bar(level, inside, outside, shipped)
    return {
        "script": SCRIPT_VERSION,
        "eligible_share": round(sum(sum(e) for e in eligible.values()) / len(pooled), 4),
        "oof_bar": round(b_star, 5),
        "level": round(level, 5),
        "optimism": round(optimism, 5),
        "bar": round(bar, 5),
        "previous_bar": float(encoder.metadata["bar"]),
    }


def ship(placed: dict[str, Any], folder: Path = WEIGHTS_DIR) -> dict[str, Any]:
    """Rule 4: ``checkworthy@3``'s record, the encoder it reads and the bar placed for it."""
    encoder_meta = json.loads((folder / f"{ENCODER_NAME}.json").read_text(encoding="utf-8"))
    record = {
        "version": MODEL_VERSION,
        "encoder": ENCODER_NAME,
        "encoder_sha256": encoder_meta["onnx_sha256"],
        "bar": placed["bar"],
        "placed": {key: value for key, value in placed.items() if key != "bar"}
        | {
            "budget": FLAGGED_BUDGET,
            "test_transcripts": TEST_TRANSCRIPTS,
            "draws": DRAWS,
            "confidence": CONFIDENCE,
        },
    }
    path = folder / f"{WEIGHTS_NAME}.json"
    path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return record


def dev_figures(datasets: Path) -> dict[str, Any]:
    """The dev transcripts, read once with what ships: every line, and the detector."""
    from icarus.claims.ranking import load_ranker
    from icarus.debates import detection
    from icarus.evaluation.checkthat import Part, load_transcripts, part_of
    from icarus_training.checkworthy import _figures, _intervals, detector_figures

    transcripts = load_transcripts(datasets)
    parts = part_of(t.name for t in transcripts)
    dev = [t for t in transcripts if parts[t.name] is Part.DEV]
    load_ranker.cache_clear()
    detection._sentence_score.cache_clear()
    ranker = load_ranker()
    bar = detection.DEFAULT_MIN_CHECKWORTHINESS
    rankings = [
        ([ranker.score(line.text) for line in t.lines], [line.check_worthy for line in t.lines]) for t in dev
    ]
    return {
        "ranker": ranker.version,
        "every_line": _figures(rankings, bar) | {"intervals": _intervals(rankings, bar)},
        "detector": detector_figures(dev),
    }


def render(record: dict[str, Any]) -> str:
    """The record as a Markdown page (docs/evaluation/checkworthiness-3.md)."""
    from icarus_training.checkworthy import _row

    placed = record["shipped"]["placed"]
    lines = [
        "# Check-worthiness 3: checkworthy@2's encoder with its bar placed for the detector",
        "",
        f"Written by `{SCRIPT_VERSION}` (`make train-checkworthy-bar`); the rule is the module's docstring, "
        "written before any figure below was read.",
        "",
        "| step | value |",
        "|---|---|",
        f"| lines the detector's filters let through (train+tune) | {placed['eligible_share']:.1%} |",
        f"| bar on the out-of-fold scale (budget {FLAGGED_BUDGET:.0%} in {CONFIDENCE:.0%} of "
        f"{DRAWS} samples of {TEST_TRANSCRIPTS} transcripts) | {placed['oof_bar']:.3f} |",
        f"| its level (share of out-of-fold scores below it) | {placed['level']:.3f} |",
        f"| fold models' in-sample minus out-of-fold quantile at that level | {placed['optimism']:.3f} |",
        f"| shipped bar (log-odds) | {record['shipped']['bar']:.3f} |",
        f"| checkworthy@2's bar | {placed['previous_bar']:.3f} |",
    ]
    if "dev" in record:
        dev = record["dev"]
        lines += [
            "",
            "## Dev transcripts, read once (90 % bootstrap intervals over transcripts)",
            "",
            "| ranking | MAP | recall | flagged share | found | flagged |",
            "|---|---|---|---|---|---|",
            _row(f"{dev['ranker']}, every line", dev["every_line"]),
            _row(f"debate detector with {dev['ranker']}", dev["detector"]),
        ]
    lines.append("")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m icarus_training.checkworthy_bar", description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="folder holding the public datasets")
    parser.add_argument("--cache", type=Path, required=True, help="the encoder's out-of-fold scores")
    parser.add_argument(
        "--ship", action="store_true", help="write checkworthy@3's record and read the dev transcripts once"
    )
    args = parser.parse_args(argv)
    console = Console()
    record = run(args.data, args.cache, console)
    console.print_json(json.dumps(record))
    if args.ship:
        write_record(args.data, record, console)
    return record


def write_record(datasets: Path, placed: dict[str, Any], console: Console) -> dict[str, Any]:
    """Rule 4 and the record: ship the bar, then read dev once with it."""
    record: dict[str, Any] = {"script": SCRIPT_VERSION, "shipped": ship(placed)}
    record["dev"] = dev_figures(datasets)
    _RECORD.parent.mkdir(parents=True, exist_ok=True)
    _RECORD.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    _RECORD.with_suffix(".md").write_text(render(record), encoding="utf-8")
    console.print_json(json.dumps(record["dev"]))
    return record


if __name__ == "__main__":
    main()
