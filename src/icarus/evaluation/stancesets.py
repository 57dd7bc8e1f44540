"""Labelled claim–passage pairs read from the public stance datasets, and the split every judge is measured on.

Each reader turns one dataset, read from wherever the user keeps it (the folder layout of
``../shared/datasets``), into ``LabelledPair`` rows with a three-way label: support, refute or neutral.
Nothing is copied or downloaded. Label mappings:

* ``climate-fever``: each of a claim's five evidence sentences; SUPPORTS / REFUTES / NOT_ENOUGH_INFO.
* ``scifact``: rationale sentences of the cited abstracts (SUPPORT → support, CONTRADICT → refute) and, as
  neutral, the ``SCIFACT_NEUTRAL_PER_CLAIM`` other sentences of those abstracts that share the most words
  with the claim (the hard negatives a retrieval step would bring).
* ``healthver``: the labelled passage pairs (Supports / Refutes / Neutral).
* ``fnc-1``: headline against the body's ``FNC_SENTENCES`` best-covering sentences; agree → support,
  disagree → refute, discuss and unrelated → neutral (unrelated thinned to ``FNC_UNRELATED_KEEP`` in 10).
* ``emergent``: claim headline against article headline; for / against / observing.
* ``covidfact``: claim against its evidence sentences; SUPPORTED / REFUTED (refuted claims are machine-made
  counter-claims, so this set teaches word swaps more than real disagreement).
* ``wice``: a supported claim against one of its supporting sentence sets → support, and against the
  best-covering sentence outside every set → neutral. WiCE has no refuting label.

Splits are by claim (or by story, where several claims share one source), from a hash of the dataset name
and the group key, so a claim never has pairs on both sides and the split never depends on file order:
``SPLIT_BUCKETS`` sends 70 % to train, 15 % to validation (model selection and calibration) and 15 % to
test (the numbers reported).

Held-out sets (``HELD_OUT_READERS``) are sets no shipped judge was trained on; training reads ``READERS``
only. They have no train split: their validation split chooses thresholds, their test split measures them.

* ``averitec``: each dev claim's answers (the answer as the passage; the question and the answer as the item's
  whole text, ``EVIDENCE_TEXT``, as the checker's evidence item holds them), each labelled
  with its claim's side as the gold-label judge reads it (``evaluation.gold_judge.CLAIM_SIDE``): Supported →
  support, Refuted → refute, Not Enough Evidence → neutral; claims with conflicting evidence are left out,
  since their label says nothing of any one answer. The label is the claim's, not the answer's: an answer
  of a refuted claim that only gives background is labelled refute, so recall here is a floor. The
  validation split is the ``tune`` half of ``evaluation.averitec.half_of``, the test split the ``dev``
  half, so thresholds chosen here are measured on the claims ``icarus eval averitec --split dev`` scores.

FEVER (``fever/paper_dev.jsonl``) and HoVer (``hover/hover_dev_release_v1.1.json``) would be held-out sets
too, but their evidence is given as Wikipedia page titles and sentence numbers only; the sentences
themselves (the FEVER and HotpotQA Wikipedia dumps) are not in the datasets folder, so there is no passage
to judge.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from icarus.jsonlines import json_objects
from icarus.text import words as tx

__all__ = [
    "DATASET_FILES",
    "EVIDENCE_TEXT",
    "FNC_SENTENCES",
    "FNC_UNRELATED_KEEP",
    "HELD_OUT_FILES",
    "HELD_OUT_READERS",
    "PAIRS_FILE_MAX_BYTES",
    "READERS",
    "SCIFACT_NEUTRAL_PER_CLAIM",
    "SPLIT_BUCKETS",
    "STANCE_LABELS",
    "LabelledPair",
    "Split",
    "StanceSetError",
    "load_pairs",
    "load_pairs_file",
    "split_of",
]

STANCE_LABELS = ("support", "refute", "neutral")
EVIDENCE_TEXT = "evidence_text"
"""``LabelledPair.extra`` key of the item's whole text where the passage is an excerpt of it (AVeriTeC: the
question, then the answer), so that a judge is asked as the checker asks it."""
SCIFACT_NEUTRAL_PER_CLAIM = 2
FNC_SENTENCES = 2
FNC_UNRELATED_KEEP = 1
SPLIT_BUCKETS = (70, 85)  # bucket < 70: train; < 85: validation; else test (buckets 0–99)


class StanceSetError(ValueError):
    """A dataset name is unknown, its files are not where they were looked for, or a file cannot be read
    as that dataset (a line that is not JSON, a record without a field the reader needs)."""


class Split(StrEnum):
    TRAIN = "train"
    VALIDATION = "validation"
    TEST = "test"
    ALL = "all"


@dataclass(frozen=True, slots=True)
class LabelledPair:
    """One claim, one passage, the gold stance; ``group`` keys the split; ``extra`` keeps what the hops and
    scope measurements need (a dataset's own finer label, a counterpart claim)."""

    dataset: str
    group: str
    claim: str
    passage: str
    label: str
    extra: dict[str, str] = field(default_factory=dict)


DATASET_FILES: dict[str, tuple[str, ...]] = {
    "climate-fever": ("climate-fever/climate-fever.jsonl",),
    "scifact": ("scifact/claims_train.jsonl", "scifact/corpus.jsonl"),
    "healthver": ("healthver/healthver_dev.csv",),
    "fnc-1": ("fnc-1/competition_test_stances.csv", "fnc-1/competition_test_bodies.csv"),
    "emergent": ("emergent/url-versions-2015-06-14-clean.csv",),
    "covidfact": ("covidfact/COVIDFACT_dataset.jsonl",),
    "wice": ("wice/claim_dev.jsonl",),
}
"""The files each reader opens, relative to the datasets folder: the training side only (the SciFact dev
claims, the WiCE and HealthVer test splits and part of Climate-FEVER are held back elsewhere)."""


def split_of(dataset: str, group: str) -> Split:
    """Which split a group falls in: fixed by a hash, so it is the same on every machine and every run. A
    held-out set's claims fall in validation or test, as their half says (module docstring)."""
    if dataset == "averitec":
        from icarus.evaluation.averitec import TUNE, half_of

        return Split.VALIDATION if half_of(group) == TUNE else Split.TEST
    bucket = int(hashlib.sha256(f"{dataset}\x00{group}".encode()).hexdigest()[:8], 16) % 100
    if bucket < SPLIT_BUCKETS[0]:
        return Split.TRAIN
    if bucket < SPLIT_BUCKETS[1]:
        return Split.VALIDATION
    return Split.TEST


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        for _, row in json_objects(lines, path, StanceSetError):
            yield row


def _csv(path: Path) -> Iterator[dict[str, str]]:
    csv.field_size_limit(sys.maxsize)
    with path.open(encoding="utf-8", newline="") as handle:
        yield from csv.DictReader(handle)


def _coverage(claim_stems: set[str], sentence: str) -> float:
    if not claim_stems:
        return 0.0
    return len(claim_stems & set(tx.content_stems(tx.tokens(sentence)))) / len(claim_stems)


def _best(claim: str, sentences: list[str], count: int) -> list[int]:
    """Indices of the ``count`` sentences covering most of the claim's words; ties keep text order."""
    stems = set(tx.content_stems(tx.tokens(claim)))
    ranked = sorted(range(len(sentences)), key=lambda i: (-_coverage(stems, sentences[i]), i))
    return ranked[:count]


def _climate_fever(root: Path) -> Iterator[LabelledPair]:
    labels = {"SUPPORTS": "support", "REFUTES": "refute", "NOT_ENOUGH_INFO": "neutral"}
    for row in _jsonl(root / "climate-fever/climate-fever.jsonl"):
        evidences = row["evidences"]
        assert isinstance(evidences, list)
        for evidence in evidences:
            yield LabelledPair(
                "climate-fever",
                str(row["claim_id"]),
                str(row["claim"]),
                str(evidence["evidence"]),
                labels[evidence["evidence_label"]],
                {"claim_label": str(row["claim_label"])},
            )


def _scifact(root: Path) -> Iterator[LabelledPair]:
    corpus: dict[str, list[str]] = {}
    for doc in _jsonl(root / "scifact/corpus.jsonl"):
        abstract = doc["abstract"]
        assert isinstance(abstract, list)
        corpus[str(doc["doc_id"])] = [str(s).strip() for s in abstract]
    labels = {"SUPPORT": "support", "CONTRADICT": "refute"}
    for row in _jsonl(root / "scifact/claims_train.jsonl"):
        claim, group = str(row["claim"]), str(row["id"])
        evidence = row["evidence"]
        cited = row["cited_doc_ids"]
        assert isinstance(evidence, dict) and isinstance(cited, list)
        rationale: set[tuple[str, int]] = set()
        for doc_id, sets in evidence.items():
            sentences = corpus.get(str(doc_id), [])
            for entry in sets:
                for index in entry["sentences"]:
                    if (str(doc_id), index) in rationale or index >= len(sentences):
                        continue
                    rationale.add((str(doc_id), index))
                    yield LabelledPair("scifact", group, claim, sentences[index], labels[entry["label"]])
        others = [
            (str(doc_id), i, sentence)
            for doc_id in cited
            for i, sentence in enumerate(corpus.get(str(doc_id), []))
            if (str(doc_id), i) not in rationale
        ]
        for index in _best(claim, [s for _, _, s in others], SCIFACT_NEUTRAL_PER_CLAIM):
            yield LabelledPair("scifact", group, claim, others[index][2], "neutral")


def _healthver(root: Path) -> Iterator[LabelledPair]:
    labels = {"Supports": "support", "Refutes": "refute", "Neutral": "neutral"}
    for row in _csv(root / "healthver/healthver_dev.csv"):
        yield LabelledPair(
            "healthver", row["claim"].strip(), row["claim"], row["evidence"], labels[row["label"]]
        )


def _fnc(root: Path) -> Iterator[LabelledPair]:
    labels = {"agree": "support", "disagree": "refute", "discuss": "neutral", "unrelated": "neutral"}
    bodies = {row["Body ID"]: row["articleBody"] for row in _csv(root / "fnc-1/competition_test_bodies.csv")}
    sentences_of: dict[str, list[str]] = {}
    for n, row in enumerate(_csv(root / "fnc-1/competition_test_stances.csv")):
        if row["Stance"] == "unrelated" and n % 10 >= FNC_UNRELATED_KEEP:
            continue
        body_id, headline = row["Body ID"], row["Headline"]
        if body_id not in sentences_of:
            text = bodies.get(body_id, "")
            sentences_of[body_id] = [text[a:b] for a, b in tx.sentence_spans(text)]
        sentences = sentences_of[body_id]
        chosen = sorted(_best(headline, sentences, FNC_SENTENCES))
        passage = " ".join(sentences[i] for i in chosen)
        yield LabelledPair(
            "fnc-1", headline, headline, passage, labels[row["Stance"]], {"fnc": row["Stance"]}
        )


def _emergent(root: Path) -> Iterator[LabelledPair]:
    labels = {"for": "support", "against": "refute", "observing": "neutral"}
    for row in _csv(root / "emergent/url-versions-2015-06-14-clean.csv"):
        stance = labels.get(row["articleHeadlineStance"])
        if stance is not None:
            yield LabelledPair(
                "emergent", row["claimId"], row["claimHeadline"], row["articleHeadline"], stance
            )


def _covidfact(root: Path) -> Iterator[LabelledPair]:
    rows = list(_jsonl(root / "covidfact/COVIDFACT_dataset.jsonl"))
    supported = {str(r["gold_source"]): str(r["claim"]) for r in rows if r["label"] == "SUPPORTED"}
    for row in rows:
        evidence = row["evidence"]
        assert isinstance(evidence, list)
        source = str(row["gold_source"])
        label = "support" if row["label"] == "SUPPORTED" else "refute"
        extra = {"counterpart": supported[source]} if label == "refute" and source in supported else {}
        yield LabelledPair("covidfact", source, str(row["claim"]), " ".join(map(str, evidence)), label, extra)


def _wice(root: Path) -> Iterator[LabelledPair]:
    for row in _jsonl(root / "wice/claim_dev.jsonl"):
        evidence, sets, meta = row["evidence"], row["supporting_sentences"], row["meta"]
        assert isinstance(evidence, list) and isinstance(sets, list) and isinstance(meta, dict)
        sentences = [str(s) for s in evidence]
        group, claim, label = str(meta["id"]), str(row["claim"]), str(row["label"])
        used = {i for indices in sets for i in indices}
        for indices in sets[:1]:
            passage = " ".join(sentences[i] for i in sorted(indices) if i < len(sentences))
            stance = "support" if label == "supported" else "neutral"
            yield LabelledPair("wice", group, claim, passage, stance, {"wice": label})
        free = [i for i in range(len(sentences)) if i not in used]
        for index in _best(claim, [sentences[i] for i in free], 1):
            yield LabelledPair("wice", group, claim, sentences[free[index]], "neutral", {"wice": "outside"})


def _averitec(root: Path) -> Iterator[LabelledPair]:
    from icarus.evaluation.averitec import FILE, answer_passages
    from icarus.evaluation.cases import CLAIM_LABELS
    from icarus.evaluation.gold_judge import CLAIM_SIDE
    from icarus.scoring.labels import Label

    path = root / "averitec" / FILE
    rows = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(rows, list)
    for index, row in enumerate(rows):
        label = CLAIM_LABELS[row["label"]]
        if label is Label.MISLEADING:
            continue
        claim = str(row["claim"])
        for passage in answer_passages(row, f"{path}: claim {index}"):
            answer = passage.text[passage.quote_start :]
            extra = {"claim_label": str(row["label"]), EVIDENCE_TEXT: passage.text}
            yield LabelledPair("averitec", claim, claim, answer, CLAIM_SIDE[label].value, extra)


READERS: dict[str, Callable[[Path], Iterator[LabelledPair]]] = {
    "climate-fever": _climate_fever,
    "scifact": _scifact,
    "healthver": _healthver,
    "fnc-1": _fnc,
    "emergent": _emergent,
    "covidfact": _covidfact,
    "wice": _wice,
}
"""The training-side sets, which every shipped judge was trained, selected and calibrated on."""

HELD_OUT_READERS: dict[str, Callable[[Path], Iterator[LabelledPair]]] = {"averitec": _averitec}
"""Sets no shipped judge was trained on (module docstring); never read by training."""

HELD_OUT_FILES: dict[str, tuple[str, ...]] = {"averitec": ("averitec/dev.json",)}

_SPACE = re.compile(r"\s+")


def _squeezed(text: str) -> str:
    """One space for every run of white space, none at the ends: how every pair's texts are kept."""
    return _SPACE.sub(" ", text).strip()


def load_pairs(name: str, root: Path, split: Split = Split.ALL) -> list[LabelledPair]:
    """Every labelled pair of dataset ``name`` under ``root`` that falls in ``split``, in file order."""
    reader = READERS.get(name) or HELD_OUT_READERS.get(name)
    if reader is None:
        known = sorted({*READERS, *HELD_OUT_READERS})
        raise StanceSetError(f"no stance set named {name!r}; known: {', '.join(known)}")
    files = DATASET_FILES.get(name) or HELD_OUT_FILES[name]
    missing = [f for f in files if not (root / f).is_file()]
    if missing:
        raise StanceSetError(f"{name}: not found under {root}: {', '.join(missing)}")
    pairs = []
    try:
        for pair in reader(root):
            if split is not Split.ALL and split_of(pair.dataset, pair.group) is not split:
                continue
            claim, passage = _squeezed(pair.claim), _squeezed(pair.passage)
            if claim and passage:
                pairs.append(LabelledPair(pair.dataset, pair.group, claim, passage, pair.label, pair.extra))
    except StanceSetError:
        raise
    except UnicodeDecodeError as exc:
        raise StanceSetError(f"{name}: a file under {root} is not UTF-8 text ({exc.reason})") from exc
    except (KeyError, TypeError, ValueError, AttributeError, AssertionError, csv.Error) as exc:
        # a record without a field the reader needs, or with a field of another type: the wrong file or
        # another release of the dataset
        detail = f"missing field {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
        raise StanceSetError(
            f"{name}: a record under {root} is not laid out as this reader expects ({detail})"
        ) from exc
    return pairs


_PAIR_FIELDS = ("claim", "passage", "label")
# A pairs file is read whole; past this it is not a hand-made set but something to run through `--set`.
PAIRS_FILE_MAX_BYTES = 64 * 1024 * 1024


def load_pairs_file(path: Path) -> list[LabelledPair]:
    """A user's own labelled pairs: JSON Lines, one ``{"claim", "passage", "label"}`` object per line
    (``label`` one of ``support``, ``refute``, ``neutral``; other string fields are kept as ``extra``).
    The pairs are named after the file's stem. Raises ``StanceSetError`` naming the first bad line."""
    try:
        size = path.stat().st_size
        if size > PAIRS_FILE_MAX_BYTES:
            raise StanceSetError(f"{path}: {size} bytes, over the {PAIRS_FILE_MAX_BYTES}-byte limit")
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise StanceSetError(f"{path}: not UTF-8 text ({exc.reason})") from exc
    except OSError as exc:
        raise StanceSetError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    pairs = []
    for number, row in json_objects(lines, path, StanceSetError):
        missing = [f for f in _PAIR_FIELDS if not isinstance(row.get(f), str) or not row[f].strip()]
        if missing:
            raise StanceSetError(f"{path}:{number}: needs non-empty text in {', '.join(missing)}")
        if row["label"] not in STANCE_LABELS:
            raise StanceSetError(
                f"{path}:{number}: label {row['label']!r} is not one of {', '.join(STANCE_LABELS)}"
            )
        claim, passage = _squeezed(row["claim"]), _squeezed(row["passage"])
        extra = {k: v for k, v in row.items() if k not in _PAIR_FIELDS and isinstance(v, str)}
        pairs.append(LabelledPair(path.stem, claim, claim, passage, row["label"], extra))
    if not pairs:
        raise StanceSetError(f"{path}: no pairs")
    return pairs
