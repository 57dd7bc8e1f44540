"""Whether sentence embeddings help the check-worthiness ranker: the measurement behind docs/evaluation.md.

``python -m icarus_training.checkworthy_embeddings --data ../shared/datasets`` scores each candidate on the
rule ``icarus_training.checkworthy`` fixed before any dev figure was read: train and tune transcripts
pooled, leave one transcript out, the bar where ``FLAGGED_BUDGET`` of the pooled lines lie above it. The
dev transcripts are never read. The embedding is WordLlama's packaged static one (unit length), appended to
``checkworthy@1``'s sparse features with a weight, or used alone.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from icarus.claims.ranking import features
from icarus.evaluation.checkthat import (
    Part,
    Transcript,
    load_transcripts,
    mean_average_precision,
    part_of,
    threshold_figures,
)
from icarus_training.checkworthy import FLAGGED_BUDGET, MIN_COUNT, SEED

__all__ = ["CANDIDATES", "Candidate", "loto_figures", "main"]

# (C, with checkworthy@1's features, embedding weight; 0 = no embedding)
Candidate = tuple[float, bool, float]
CANDIDATES: Final[tuple[Candidate, ...]] = (
    (0.3, True, 0.0),
    (0.3, True, 1.0),
    (0.3, True, 3.0),
    (0.1, True, 3.0),
    (1.0, False, 1.0),
)
Embed = Callable[[Sequence[str]], npt.NDArray[np.float32]]


def wordllama_embed(texts: Sequence[str]) -> npt.NDArray[np.float32]:
    from icarus.judges.packaged import packaged_embeddings

    table = packaged_embeddings()
    rows = np.stack([table.embed(text) for text in texts]).astype(np.float32).reshape(len(texts), -1)
    unit: npt.NDArray[np.float32] = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)
    return unit


def loto_figures(pool: Sequence[Transcript], embed: Embed, candidate: Candidate) -> dict[str, float]:
    """Leave-one-transcript-out MAP, recall at the bar and flagged share of one candidate over ``pool``."""
    from scipy.sparse import csr_matrix, hstack
    from sklearn.linear_model import LogisticRegression

    c, sparse, weight = candidate
    lines = [line for transcript in pool for line in transcript.lines]
    owner = np.array([i for i, transcript in enumerate(pool) for _ in transcript.lines])
    labels = np.array([line.check_worthy for line in lines])
    names = [features(line.text) for line in lines]
    vectors = embed([line.text for line in lines]) if weight else None

    def sparse_block(fit: npt.NDArray[np.bool_], rows: npt.NDArray[np.int_]) -> csr_matrix:
        counts: dict[str, int] = {}
        for i in np.flatnonzero(fit):
            for name in names[i]:
                counts[name] = counts.get(name, 0) + 1
        column = {n: j for j, n in enumerate(sorted(n for n, k in counts.items() if k >= MIN_COUNT))}
        cells = [(r, column[n]) for r, i in enumerate(rows) for n in names[i] if n in column]
        data = ([1.0] * len(cells), ([r for r, _ in cells], [j for _, j in cells]))
        return csr_matrix(data, shape=(len(rows), len(column)))

    rankings = []
    for held in range(len(pool)):
        fit = owner != held
        blocks = []
        for rows in (np.flatnonzero(fit), np.flatnonzero(~fit)):
            parts = [sparse_block(fit, rows)] if sparse else []
            if vectors is not None:
                parts.append(csr_matrix(vectors[rows] * weight))
            blocks.append(hstack(parts).tocsr())
        model = LogisticRegression(C=c, solver="liblinear", max_iter=5000, random_state=SEED)
        model.fit(blocks[0], labels[fit])
        rankings.append((list(model.decision_function(blocks[1])), list(labels[~fit])))
    bar = float(np.quantile(np.concatenate([np.asarray(r) for r, _ in rankings]), 1 - FLAGGED_BUDGET))
    kept = threshold_figures(
        [s for r, _ in rankings for s in r], [v for _, v_ in rankings for v in v_], lambda s: s >= bar
    )
    return {
        "map": round(mean_average_precision(rankings), 4),
        "recall": round(kept.recall, 4),
        "flagged_share": round(kept.flagged_share, 4),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="folder holding the public datasets")
    args = parser.parse_args(argv)
    transcripts = load_transcripts(args.data)
    parts = part_of(t.name for t in transcripts)
    pool = [t for t in transcripts if parts[t.name] is not Part.DEV]
    print("| features | C | embedding weight | LOTO MAP | recall at the bar |")
    print("|---|---|---|---|---|")
    for candidate in CANDIDATES:
        c, sparse, weight = candidate
        figures = loto_figures(pool, wordllama_embed, candidate)
        kind = ("checkworthy@1's" + (" and the embedding" if weight else "")) if sparse else "embedding alone"
        print(f"| {kind} | {c} | {weight} | {figures['map']:.3f} | {figures['recall']:.3f} |", flush=True)


if __name__ == "__main__":
    main()
