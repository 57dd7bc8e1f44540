"""What the trained offline judge reads from a claim and a passage: static embeddings and lexical cues.

Embeddings come from WordLlama's packaged static model (token vectors, no network, no torch). For one
pair, with ``c`` and ``p`` the mean-pooled, unit-length claim and passage vectors:

* ``c``, ``p``, ``c·p`` (element-wise) and ``|c − p|``: what both say and how they differ;
* ``claim_rest``: claim tokens weighted by how poorly the passage matches them (1 − their best cosine with
  any passage token): what the claim says that the passage does not;
* ``passage_rest``: the same from the passage side: what the passage adds (a "not", a "fell");
* ``SCALARS``: token alignment (mean, lowest, lower quartile of each claim token's best cosine; mean of each
  passage token's), sentence cosine, and the lexical judge's cues (coverage, negation on either side and
  their asymmetry, antonym pairs, figures and years that agree or conflict, hedging), and both lengths.

The layout is fixed by ``FEATURE_VERSION``; trained weights record the version they were fitted on and
refuse to load against another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from icarus.judges.offline import stance_features
from icarus.text.wordllama import EMBEDDING_DIM, load_wordllama

__all__ = [
    "FEATURE_VERSION",
    "SCALARS",
    "PairEncoder",
    "TokenMatch",
    "feature_width",
]

FEATURE_VERSION = "pair-features@1"
SCALARS = (
    "align_mean",
    "align_min",
    "align_q25",
    "passage_align_mean",
    "cosine",
    "coverage",
    "claim_negated",
    "passage_negated",
    "negation_asymmetry",
    "antonyms",
    "number_agrees",
    "number_conflicts",
    "date_agrees",
    "date_conflicts",
    "hedged",
    "claim_tokens_log",
    "passage_tokens_log",
)
_VECTOR_BLOCKS = 6  # c, p, c*p, |c-p|, claim_rest, passage_rest
_TOKEN_LIMIT = 256  # passage tokens read per pair: a long passage is judged on its start

Matrix = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class TokenMatch:
    """One claim token: its character span in the claim and its best cosine with any passage token."""

    start: int
    end: int
    best: float


def feature_width() -> int:
    return _VECTOR_BLOCKS * EMBEDDING_DIM + len(SCALARS)


@dataclass
class PairEncoder:
    """Turns (claim, passage) pairs into the fixed feature layout. Deterministic; numpy only."""

    model: Any

    def __post_init__(self) -> None:
        # Rows are widened and normalised as they are read: a pair reads a few dozen of the table's rows,
        # and doing the whole table up front took a tenth of a second (each row's norm is its own, so the
        # numbers are those of normalising the whole table)
        self._table = self.model.embedding
        self._tokenizer = self.model.tokenizer

    def _unit(self, ids: npt.NDArray[np.int64]) -> Matrix:
        """The table's rows ``ids``, widened to float32 and scaled to unit length."""
        rows = np.asarray(self._table[ids], dtype=np.float32)
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        unit: Matrix = rows / np.maximum(norms, 1e-8)
        return unit

    @classmethod
    def packaged(cls) -> PairEncoder:
        return cls(load_wordllama())

    def _encoded(self, texts: list[str]) -> list[tuple[npt.NDArray[np.int64], list[tuple[int, int]]]]:
        """Token ids (padding dropped, at most ``_TOKEN_LIMIT``) and their character spans, per text."""
        encoded = self._tokenizer.encode_batch(texts, is_pretokenized=False, add_special_tokens=False)
        limit = self._table.shape[0] - 1
        out = []
        for enc in encoded:
            kept = [
                (i, span) for i, m, span in zip(enc.ids, enc.attention_mask, enc.offsets, strict=True) if m
            ]
            kept = kept[:_TOKEN_LIMIT]
            ids = np.clip(np.asarray([i for i, _ in kept], dtype=np.int64), 0, limit)
            out.append((ids, [span for _, span in kept]))
        return out

    def _pooled(self, ids: npt.NDArray[np.int64]) -> Matrix:
        if ids.size == 0:
            return np.zeros(EMBEDDING_DIM, dtype=np.float32)
        vector: Matrix = np.asarray(self._table[ids], dtype=np.float32).mean(axis=0)
        return vector / max(float(np.linalg.norm(vector)), 1e-8)

    def encode(self, claims: list[str], passages: list[str]) -> Matrix:
        """One row of ``feature_width()`` values per pair."""
        return self.encode_aligned(claims, passages)[0]

    def encode_aligned(self, claims: list[str], passages: list[str]) -> tuple[Matrix, list[list[TokenMatch]]]:
        """The feature rows, and for each pair how well the passage matches each claim token: its character
        span in the claim and its best cosine with any passage token."""
        if len(claims) != len(passages):
            raise ValueError("claims and passages must pair up")
        rows = np.zeros((len(claims), feature_width()), dtype=np.float32)
        claim_encoded, passage_encoded = self._encoded(claims), self._encoded(passages)
        alignments: list[list[TokenMatch]] = []
        d = EMBEDDING_DIM
        for row, (claim, passage, (cids, spans), (pids, _)) in enumerate(
            zip(claims, passages, claim_encoded, passage_encoded, strict=True)
        ):
            alignment: list[TokenMatch] = []
            alignments.append(alignment)
            c, p = self._pooled(cids), self._pooled(pids)
            out = rows[row]
            out[0:d], out[d : 2 * d], out[2 * d : 3 * d], out[3 * d : 4 * d] = c, p, c * p, np.abs(c - p)
            scalars = np.zeros(len(SCALARS), dtype=np.float32)
            if cids.size and pids.size:
                claim_tokens, passage_tokens = self._unit(cids), self._unit(pids)
                # ufuncs, not BLAS: these products are tiny, and BLAS threads fight over a busy CPU
                similarity = np.einsum("id,jd->ij", claim_tokens, passage_tokens)
                claim_best, passage_best = similarity.max(axis=1), similarity.max(axis=0)
                alignment.extend(
                    TokenMatch(start, end, float(score))
                    for (start, end), score in zip(spans, claim_best, strict=True)
                )
                claim_gap = np.clip(1.0 - claim_best, 0.0, None)
                passage_gap = np.clip(1.0 - passage_best, 0.0, None)
                out[4 * d : 5 * d] = np.einsum("i,id->d", claim_gap, claim_tokens) / max(
                    float(claim_gap.sum()), 1e-6
                )
                out[5 * d : 6 * d] = np.einsum("j,jd->d", passage_gap, passage_tokens) / max(
                    float(passage_gap.sum()), 1e-6
                )
                scalars[0:4] = (
                    claim_best.mean(),
                    claim_best.min(),
                    np.sort(claim_best)[(claim_best.size - 1) // 4],
                    passage_best.mean(),
                )
            lexical = stance_features(claim, passage)
            scalars[4:] = (
                float((c * p).sum()),
                lexical.coverage,
                lexical.claim_negated,
                lexical.passage_negated,
                lexical.negation_asymmetry,
                len(lexical.antonyms),
                lexical.number_agrees,
                lexical.number_conflicts,
                lexical.date_agrees,
                lexical.date_conflicts,
                lexical.hedged,
                np.log1p(cids.size),
                np.log1p(pids.size),
            )
            out[6 * d :] = scalars
        return rows, alignments
