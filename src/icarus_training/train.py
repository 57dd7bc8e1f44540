"""Train, select and calibrate the embedding judge's head; write the weights the package ships.

``make train-judge`` runs this (``python -m icarus_training --data ../shared/datasets``). Steps:

1. read every training-side stance set (``stancesets.READERS``) and split each by claim (70/15/15); add
   contradictions made from supporting training pairs and restated or contradicted claims (``augment``);
2. encode every pair (``features.PairEncoder``);
3. fit each candidate head on the train split with scikit-learn, ``SEED`` fixed, each pair weighted so the
   labels of a dataset weigh the same and the sets the targets are set on weigh ``target_weight`` times more;
4. pick the candidate with the best mean validation macro-F1 over ``SELECTION_SETS``;
5. fit temperature scaling and an isotonic confidence map on the validation split;
6. write ``weights/<name>.npz`` and ``.json`` (script version, seed, data files with their SHA-256, the
   candidates' validation scores, and the chosen head's validation and test numbers).

scikit-learn is a development dependency: only training needs it; the judge itself runs on numpy.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from icarus.evaluation.stancesets import DATASET_FILES, READERS, LabelledPair, Split, load_pairs, split_of
from icarus.judges.calibration import Calibration, expected_calibration_error
from icarus.judges.features import FEATURE_VERSION, SCALARS, PairEncoder, feature_width
from icarus.judges.head import CLASSES, StanceHead
from icarus.judges.metrics import accuracy, macro_f1
from icarus_training.augment import AUGMENT_EVERY, contradictions, restatements

__all__ = [
    "CANDIDATES",
    "SCRIPT_VERSION",
    "SEED",
    "SELECTION_SETS",
    "TrainingPairs",
    "file_sha256",
    "fit_calibration",
    "main",
    "pair_weights",
    "read_training_pairs",
    "score_split",
    "scores_by_dataset",
    "selection_score",
]

SCRIPT_VERSION = "train-judge@1"
SEED = 20_240_611
SELECTION_SETS = ("climate-fever", "scifact")
"""Sets the targets are set on: they choose the candidate and weigh ``Candidate.target_weight`` each."""
ENCODE_BATCH = 512
WEIGHTS_DIR = Path(str(resources.files("icarus.judges") / "weights"))  # the runtime reads them there
DEFAULT_NAME = "offline-wordllama-1"
AUGMENTED = "augmented"


@dataclass(frozen=True)
class Candidate:
    name: str
    kind: str  # "logreg" or "mlp"
    columns: str  # "all" or "scalars"
    strength: float  # C for logreg, alpha for mlp
    hidden: int = 0
    target_weight: float = 2.0  # weight of each selection set relative to the others


CANDIDATES = (
    Candidate("cues-logreg", "logreg", "scalars", 1.0),
    Candidate("embed-logreg-C0.05", "logreg", "all", 0.05),
    Candidate("embed-mlp-128-a1e-2", "mlp", "all", 1e-2, 128),
    Candidate("embed-mlp-256-a1e-2", "mlp", "all", 1e-2, 256),
    Candidate("embed-mlp-128-a1e-2-w4", "mlp", "all", 1e-2, 128, 4.0),
)


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file, read in blocks (data files and shipped weights are recorded by it)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def pair_weights(pairs: Sequence[LabelledPair], target_weight: float) -> npt.NDArray[np.float64]:
    """One weight per pair: each set's labels weigh alike within the set, and the selection sets weigh
    ``target_weight`` times more than the others."""
    counts = Counter((p.dataset, p.label) for p in pairs)
    per_set = Counter(p.dataset for p in pairs)
    labels_in = defaultdict(set)
    for p in pairs:
        labels_in[p.dataset].add(p.label)
    return np.array(
        [
            (target_weight if p.dataset in SELECTION_SETS else 1.0)
            * per_set[p.dataset]
            / (len(labels_in[p.dataset]) * counts[(p.dataset, p.label)])
            for p in pairs
        ]
    )


def _columns(candidate: Candidate) -> npt.NDArray[np.int64]:
    width = feature_width()
    if candidate.columns == "scalars":
        return np.arange(width - len(SCALARS), width)
    return np.arange(width)


def _fit(candidate: Candidate, x: npt.NDArray[np.float32], y: npt.NDArray[np.int64], w: Any) -> StanceHead:
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier

    cols = _columns(candidate)
    mean = x[:, cols].mean(axis=0)
    scale = x[:, cols].std(axis=0)
    scale[scale < 1e-6] = 1.0
    z = (x[:, cols] - mean) / scale
    layers: tuple[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]], ...]
    if candidate.kind == "logreg":
        model = LogisticRegression(C=candidate.strength, max_iter=2000, random_state=SEED)
        model.fit(z, y, sample_weight=w)
        layers = ((model.coef_.T.astype(np.float32), model.intercept_.astype(np.float32)),)
    else:
        mlp = MLPClassifier(
            hidden_layer_sizes=(candidate.hidden,),
            alpha=candidate.strength,
            early_stopping=True,
            validation_fraction=0.1,
            n_iter_no_change=8,
            max_iter=200,
            random_state=SEED,
        )
        mlp.fit(z, y, sample_weight=w)
        layers = tuple(
            (c.astype(np.float32), b.astype(np.float32))
            for c, b in zip(mlp.coefs_, mlp.intercepts_, strict=True)
        )
    full_mean = np.zeros(x.shape[1], dtype=np.float32)
    full_scale = np.ones(x.shape[1], dtype=np.float32)
    first_w, first_b = layers[0]
    full_first = np.zeros((x.shape[1], first_w.shape[1]), dtype=np.float32)
    full_mean[cols], full_scale[cols], full_first[cols] = mean, scale, first_w
    return StanceHead(full_mean, full_scale, ((full_first, first_b), *layers[1:]))


def fit_calibration(
    logits: npt.NDArray[np.float64],
    y: npt.NDArray[np.int64],
    name: str,
    weights: npt.NDArray[np.float64] | None = None,
) -> Calibration:
    """Temperature by weighted negative log-likelihood, then the isotonic map, on held-out pairs; ``weights``
    (one per pair, default all equal) let the fit weigh pairs as training did."""
    from scipy.optimize import minimize_scalar
    from sklearn.isotonic import IsotonicRegression

    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)

    def nll(log_t: float) -> float:
        z = logits / np.exp(log_t)
        z = z - z.max(axis=1, keepdims=True)
        log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return float(-(w * log_p[np.arange(len(y)), y]).sum() / w.sum())

    temperature = float(np.exp(minimize_scalar(nll, bounds=(-3.0, 3.0), method="bounded").x))
    scaled = Calibration(name, temperature, (0.0, 1.0), (0.0, 1.0))
    probabilities = scaled.probabilities(logits)
    top = probabilities.max(axis=1)
    correct = (probabilities.argmax(axis=1) == y).astype(np.float64)
    iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip", increasing=True)
    iso.fit(top, correct, sample_weight=w)
    knots_x = tuple(round(float(v), 6) for v in iso.X_thresholds_)
    knots_y = tuple(round(float(v), 6) for v in iso.y_thresholds_)
    return Calibration(name, round(temperature, 6), knots_x, knots_y)


def scores_by_dataset(
    logits: npt.NDArray[np.float64], pairs: Sequence[LabelledPair], calibration: Calibration | None = None
) -> dict[str, dict[str, float]]:
    """Macro-F1, accuracy and (when calibrated) ECE per dataset for one split's logits."""
    out: dict[str, dict[str, float]] = {}
    for dataset in sorted({p.dataset for p in pairs}):
        idx = np.array([i for i, p in enumerate(pairs) if p.dataset == dataset])
        gold = [pairs[i].label for i in idx]
        predicted = [CLASSES[k] for k in logits[idx].argmax(axis=1)]
        row = {
            "n": float(len(idx)),
            "macro_f1": macro_f1(gold, predicted),
            "accuracy": accuracy(gold, predicted),
        }
        if calibration is not None:
            probabilities = calibration.probabilities(logits[idx])
            confidence = calibration.confidence(probabilities.max(axis=1))
            correct = [g == p for g, p in zip(gold, predicted, strict=True)]
            row["ece"] = expected_calibration_error(confidence, correct)
        out[dataset] = {k: round(v, 6) for k, v in row.items()}
    return out


def score_split(
    head: StanceHead,
    calibration: Calibration | None,
    x: npt.NDArray[np.float32],
    pairs: Sequence[LabelledPair],
) -> dict[str, dict[str, float]]:
    """Macro-F1, accuracy and (when calibrated) ECE per dataset, for one split's encoded pairs."""
    return scores_by_dataset(head.logits(x), pairs, calibration)


@dataclass(frozen=True)
class TrainingPairs:
    """Every training-side stance set read and split by claim, the augmentation made from the train split,
    and a record of the data: each file's SHA-256 and the pair counts per split and set."""

    splits: dict[Split, list[LabelledPair]]
    augmented: list[LabelledPair]
    files: dict[str, str]
    counts: dict[str, dict[str, int]]


def read_training_pairs(data: Path) -> TrainingPairs:
    splits: dict[Split, list[LabelledPair]] = {Split.TRAIN: [], Split.VALIDATION: [], Split.TEST: []}
    files: dict[str, str] = {}
    for name in READERS:
        for pair in load_pairs(name, data):
            splits[split_of(pair.dataset, pair.group)].append(pair)
        for relative in DATASET_FILES[name]:
            files[relative] = file_sha256(data / relative)
    augmented = contradictions(splits[Split.TRAIN]) + restatements(splits[Split.TRAIN])
    counts = {s.value: dict(Counter(p.dataset for p in rows)) for s, rows in splits.items()}
    counts["train"][AUGMENTED] = len(augmented)
    return TrainingPairs(splits, augmented, files, counts)


def selection_score(scores: dict[str, dict[str, float]]) -> float:
    """What model selection maximises: the mean macro-F1 over ``SELECTION_SETS``."""
    return float(np.mean([scores[name]["macro_f1"] for name in SELECTION_SETS if name in scores]))


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m icarus_training", description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="folder holding the public datasets")
    parser.add_argument("--out", type=Path, default=WEIGHTS_DIR, help="where the weights are written")
    parser.add_argument("--name", default=DEFAULT_NAME, help="file stem of the weights")
    parser.add_argument(
        "--features-cache", type=Path, help="keep the encoded pairs in this .npz and reuse them when present"
    )
    args = parser.parse_args(argv)
    console = Console()
    started = time.monotonic()

    data = read_training_pairs(args.data)
    pairs, augmented, files, counts = data.splits, data.augmented, data.files, data.counts
    console.print(f"pairs per split: {counts}")

    encoder = PairEncoder.packaged()
    groups: dict[str, list[LabelledPair]] = {s.value: rows for s, rows in pairs.items()}
    groups[AUGMENTED] = augmented
    encoded: dict[str, npt.NDArray[np.float32]] = {}
    cache = args.features_cache
    if cache is not None and cache.is_file():
        with np.load(cache) as stored:
            encoded = {key: stored[key] for key in groups if key in stored}
        encoded = {key: x for key, x in encoded.items() if len(x) == len(groups[key])}
    with Progress(console=console) as progress:
        for key, rows in groups.items():
            if key in encoded:
                continue
            task = progress.add_task(f"encoding {key}", total=len(rows))
            blocks = []
            for start in range(0, len(rows), ENCODE_BATCH):
                chunk = rows[start : start + ENCODE_BATCH]
                blocks.append(encoder.encode([p.claim for p in chunk], [p.passage for p in chunk]))
                progress.advance(task, len(chunk))
            encoded[key] = np.vstack(blocks)
    if cache is not None:
        np.savez(cache, **encoded)  # type: ignore[arg-type]

    train_pairs = [*pairs[Split.TRAIN], *augmented]
    x_train = np.vstack([encoded["train"], encoded[AUGMENTED]])
    y_train = np.array([CLASSES.index(p.label) for p in train_pairs])
    results: dict[str, dict[str, dict[str, float]]] = {}
    heads: dict[str, StanceHead] = {}
    table = Table(title="validation macro-F1 by candidate")
    table.add_column("candidate")
    for name in sorted(READERS):
        table.add_column(name, justify="right")
    for candidate in CANDIDATES:
        console.print(f"fitting {candidate.name}")
        weights = pair_weights(train_pairs, candidate.target_weight)
        head = _fit(candidate, x_train, y_train, weights)
        heads[candidate.name] = head
        results[candidate.name] = score_split(head, None, encoded["validation"], pairs[Split.VALIDATION])
        row = results[candidate.name]
        table.add_row(
            candidate.name, *(f"{row[n]['macro_f1']:.3f}" if n in row else "" for n in sorted(READERS))
        )
    console.print(table)

    best = max(CANDIDATES, key=lambda c: (selection_score(results[c.name]), c.name))
    head = heads[best.name]
    y_val = np.array([CLASSES.index(p.label) for p in pairs[Split.VALIDATION]])
    calibration = fit_calibration(head.logits(encoded["validation"]), y_val, args.name)
    validation = score_split(head, calibration, encoded["validation"], pairs[Split.VALIDATION])
    test = score_split(head, calibration, encoded["test"], pairs[Split.TEST])

    args.out.mkdir(parents=True, exist_ok=True)
    head.save(args.out / f"{args.name}.npz")
    metadata: dict[str, Any] = {
        "name": args.name,
        "script_version": SCRIPT_VERSION,
        "feature_version": FEATURE_VERSION,
        "seed": SEED,
        "classes": list(CLASSES),
        "selected": best.name,
        "selection_sets": list(SELECTION_SETS),
        "target_weight": best.target_weight,
        "augment_every": AUGMENT_EVERY,
        "data_files": files,
        "pairs": counts,
        "candidates_validation": results,
        "calibration": calibration.to_json(),
        "validation": validation,
        "test": test,
        "weights_sha256": file_sha256(args.out / f"{args.name}.npz"),
        "train_seconds": round(time.monotonic() - started, 1),
    }
    (args.out / f"{args.name}.json").write_text(json.dumps(metadata, indent=2, sort_keys=True) + "\n")
    console.print(f"selected {best.name}; calibration {calibration.calibration_id}")
    console.print(f"validation: {json.dumps(validation)}")
    console.print(f"test: {json.dumps(test)}")
    console.print(f"wrote {args.out / args.name}.npz and .json")
    return metadata
