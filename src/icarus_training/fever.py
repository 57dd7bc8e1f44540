"""FEVER's training claims as stance pairs for the cross-encoder's first stage (``cross_encoder --fever N``).

FEVER 1.0's training claims come with the text of their gold evidence sentences
(``fever/train/split_wiki_data_*.csv``: ``id, verifiable, label, claim, evidence``, the evidence a Python list
literal of Wikipedia sentences in the Penn Treebank's escapes). Data: Thorne et al. 2018, CC BY-SA 3.0.

Pairs, three kinds:

* **support / refute**: a SUPPORTS or REFUTES claim against its evidence sentences read as one passage (at
  most ``EVIDENCE_SENTENCES`` of them, in the file's order), since several of FEVER's labels need two
  sentences together and a sentence alone would be mislabelled;
* **neutral, retrieved**: a NOT ENOUGH INFO claim against the pooled evidence sentence that TF-IDF ranks
  closest to it: a passage about the claim's subject that the annotators found did not settle it;
* **neutral, same subject**: a supported or refuted claim against the closest pooled sentence that is not its
  own evidence, nor the evidence of a claim that says nearly the same (TF-IDF cosine of the two claims at
  least ``NEAR_CLAIM_COSINE``), whose evidence would settle it too, and not so close to the claim (cosine
  ``SAME_SUBJECT_MAX_COSINE`` or more) that it likely restates it.

The pool is every evidence sentence of the train split. Claims are split by a hash of their id
(``stancesets.split_of``: 70 % train, 15 % validation, 15 % test), so no claim reaches two splits; only the
train split is sampled for training. Sampling is seeded and per label (``LABEL_SHARES``), so a run of N pairs
is the same on every machine.

scikit-learn is a development dependency; this module is used by training only.
"""

from __future__ import annotations

import ast
import csv
import random
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from icarus.evaluation.stancesets import LabelledPair, Split, split_of

__all__ = [
    "DATASET",
    "EVIDENCE_SENTENCES",
    "FILES_GLOB",
    "LABEL_SHARES",
    "NEAR_CLAIM_COSINE",
    "SAME_SUBJECT_MAX_COSINE",
    "FeverClaim",
    "FeverError",
    "detokenize",
    "fever_pairs",
    "read_claims",
]

DATASET = "fever"
FILES_GLOB = "fever/train/split_wiki_data_*.csv"
EVIDENCE_SENTENCES = 3
NEAR_CLAIM_COSINE = 0.5
# A same-subject sentence this close to the claim is likely to restate it (another claim's evidence that
# settles this one too), so it is passed over for a further one.
SAME_SUBJECT_MAX_COSINE = 0.6
# Shares of a sample: refutations are the scarcest and the hardest label, so they are not thinned as much.
LABEL_SHARES = {"support": 0.36, "refute": 0.32, "neutral": 0.32}
NEUTRAL_FROM_UNVERIFIABLE = 0.5  # of the neutral pairs, the share from NOT ENOUGH INFO claims
_LABELS = {"SUPPORTS": "support", "REFUTES": "refute", "NOT ENOUGH INFO": "neutral"}
_CANDIDATES = 8  # retrieved sentences examined for each neutral


class FeverError(ValueError):
    """The FEVER training files are missing or not laid out as ``read_claims`` expects."""


@dataclass(frozen=True, slots=True)
class FeverClaim:
    claim_id: str
    claim: str
    label: str  # support, refute or neutral
    evidence: tuple[str, ...]


_PTB = (
    ("-LRB-", "("),
    ("-RRB-", ")"),
    ("-LSB-", "["),
    ("-RSB-", "]"),
    ("-LCB-", "{"),
    ("-RCB-", "}"),
    ("-COLON-", ":"),
    ("``", '"'),
    ("''", '"'),
)
_SPACE_BEFORE = re.compile(r"\s+([,.;:!?%)\]}])")
_SPACE_AFTER = re.compile(r"([(\[{])\s+")
_QUOTED = re.compile(r'"\s*([^"]*?)\s*"')
_POSSESSIVE = re.compile(r"\s+('s|n't|'re|'ve|'ll|'d|'m)\b")
_SPACES = re.compile(r"\s+")


def detokenize(sentence: str) -> str:
    """A Wikipedia sentence as FEVER stores it (PTB escapes, a space around every token) as plain text."""
    text = sentence
    for escaped, plain in _PTB:
        text = text.replace(escaped, plain)
    text = _SPACE_BEFORE.sub(r"\1", text)
    text = _SPACE_AFTER.sub(r"\1", text)
    text = _POSSESSIVE.sub(r"\1", text)
    text = _QUOTED.sub(r'"\1"', text)
    return _SPACES.sub(" ", text).strip()


def _rows(path: Path) -> Iterator[dict[str, str]]:
    csv.field_size_limit(sys.maxsize)
    with path.open(encoding="utf-8", newline="") as handle:
        yield from csv.DictReader(handle)


def read_claims(root: Path) -> list[FeverClaim]:
    """Every training claim under ``root`` (the datasets folder), in file order, its evidence detokenized."""
    files = sorted(root.glob(FILES_GLOB), key=lambda p: int(re.sub(r"\D", "", p.stem) or 0))
    if not files:
        raise FeverError(f"no FEVER training files under {root} ({FILES_GLOB})")
    claims: list[FeverClaim] = []
    for path in files:
        for number, row in enumerate(_rows(path), start=2):
            try:
                label = _LABELS[row["label"]]
                evidence = ast.literal_eval(row["evidence"]) if row["evidence"].strip() else []
            except (KeyError, ValueError, SyntaxError) as exc:
                raise FeverError(f"{path}:{number}: not a FEVER training row ({exc})") from exc
            if not isinstance(evidence, list):
                raise FeverError(f"{path}:{number}: evidence is not a list")
            sentences = tuple(dict.fromkeys(detokenize(str(s)) for s in evidence if str(s).strip()))
            claims.append(FeverClaim(row["id"], row["claim"].strip(), label, sentences))
    return claims


def _sample(claims: Sequence[FeverClaim], count: int, rng: random.Random) -> list[FeverClaim]:
    chosen = list(claims)
    rng.shuffle(chosen)
    return chosen[:count]


def _passage(claim: FeverClaim) -> str:
    return " ".join(claim.evidence[:EVIDENCE_SENTENCES])


class _Retriever:
    """TF-IDF over the pooled evidence sentences, with the claims that own each sentence."""

    def __init__(self, claims: Sequence[FeverClaim]) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        owners: dict[str, list[int]] = {}
        for index, claim in enumerate(claims):
            for sentence in claim.evidence:
                owners.setdefault(sentence, []).append(index)
        self.sentences = list(owners)
        self.owners = [owners[s] for s in self.sentences]
        self.claims = claims
        self.vectorizer = TfidfVectorizer(sublinear_tf=True, stop_words="english", min_df=2)
        self.matrix = self.vectorizer.fit_transform(self.sentences)
        self.claim_matrix = self.vectorizer.transform([c.claim for c in claims])

    def ranked(self, texts: Sequence[str]) -> list[list[tuple[int, float]]]:
        """For each text, the ``_CANDIDATES`` closest pooled sentences (index, cosine), closest first."""
        import numpy as np

        out: list[list[tuple[int, float]]] = []
        if not texts:
            return out
        queries = self.vectorizer.transform(list(texts))
        for start in range(0, queries.shape[0], 512):
            scores = (queries[start : start + 512] @ self.matrix.T).toarray()
            top = np.argsort(-scores, axis=1, kind="stable")[:, :_CANDIDATES]
            out.extend(
                [(int(j), float(scores[k, j])) for j in row if scores[k, j] > 0] for k, row in enumerate(top)
            )
        return out

    def near(self, claim_index: int, other: int) -> bool:
        """Whether two claims say nearly the same (so one's evidence may settle the other)."""
        a = self.claim_matrix[claim_index]
        b = self.claim_matrix[other]
        return float((a @ b.T).toarray()[0, 0]) >= NEAR_CLAIM_COSINE


def _neutral_from_unverifiable(
    claims: Sequence[FeverClaim], retriever: _Retriever
) -> Iterator[tuple[FeverClaim, str]]:
    for claim, ranked in zip(claims, retriever.ranked([c.claim for c in claims]), strict=True):
        if ranked:
            yield claim, retriever.sentences[ranked[0][0]]


def _neutral_same_subject(
    claims: Sequence[FeverClaim], indices: Sequence[int], retriever: _Retriever
) -> Iterator[tuple[FeverClaim, str]]:
    for claim, index, ranked in zip(
        claims, indices, retriever.ranked([c.claim for c in claims]), strict=True
    ):
        own = set(claim.evidence)
        for j, cosine in ranked:
            sentence = retriever.sentences[j]
            if cosine >= SAME_SUBJECT_MAX_COSINE or sentence in own:
                continue
            if any(retriever.near(index, o) for o in retriever.owners[j]):
                continue
            yield claim, sentence
            break


def fever_pairs(
    root: Path, count: int, seed: int, split: Split = Split.TRAIN
) -> tuple[list[LabelledPair], dict[str, Any]]:
    """About ``count`` labelled pairs from the FEVER claims of ``split`` (module docstring), and a record of
    how many of each kind were made."""
    claims = [c for c in read_claims(root) if split_of(DATASET, c.claim_id) is split]
    rng = random.Random(seed)
    by_label = {label: [c for c in claims if c.label == label] for label in LABEL_SHARES}
    verifiable = [c for c in claims if c.label != "neutral" and c.evidence]
    if not verifiable:
        return [], {"claims_in_split": len(claims), "pool_sentences": 0, "pairs": {}}
    retriever = _Retriever(verifiable)
    pairs: list[LabelledPair] = []
    for label in ("support", "refute"):
        chosen = _sample([c for c in by_label[label] if c.evidence], round(count * LABEL_SHARES[label]), rng)
        pairs += [
            LabelledPair(DATASET, c.claim_id, c.claim, _passage(c), label, {"kind": "gold"}) for c in chosen
        ]
    neutrals = round(count * LABEL_SHARES["neutral"])
    from_unverifiable = round(neutrals * NEUTRAL_FROM_UNVERIFIABLE)
    unverifiable = _sample(by_label["neutral"], from_unverifiable, rng)
    for claim, sentence in _neutral_from_unverifiable(unverifiable, retriever):
        pairs.append(
            LabelledPair(DATASET, claim.claim_id, claim.claim, sentence, "neutral", {"kind": "retrieved"})
        )
    positions = list(range(len(verifiable)))
    rng.shuffle(positions)
    picked = positions[: neutrals - from_unverifiable]
    for claim, sentence in _neutral_same_subject([verifiable[i] for i in picked], picked, retriever):
        pairs.append(
            LabelledPair(DATASET, claim.claim_id, claim.claim, sentence, "neutral", {"kind": "same-subject"})
        )
    rng.shuffle(pairs)
    kinds: dict[str, int] = {}
    for pair in pairs:
        key = f"{pair.label}/{pair.extra['kind']}"
        kinds[key] = kinds.get(key, 0) + 1
    record = {"claims_in_split": len(claims), "pool_sentences": len(retriever.sentences), "pairs": kinds}
    return pairs, record
