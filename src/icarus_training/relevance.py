"""Choose ``offline-minilm@4``'s support floor and relevance gate; write ``weights/offline-minilm-4.json``.

``make select-judge-relevance`` runs this (``python -m icarus_training.relevance --data DIR``). It
trains nothing and works as ``training.thresholds`` does:

1. AVeriTeC's ``tune`` half is scored once with the base judge (``offline-minilm@2``) in both modes (gold
   evidence, and open retrieval over the half's pooled answers); every answer, every search and every gate
   reading (``relevance.measure``) is remembered, so each grid point rescores the same claims without asking
   the model again;
2. every point of ``SUPPORT_FLOORS`` × ``MIN_ANCHORS`` × ``MIN_SIMILARITIES`` (refutes keep no floor: their
   confidence does not separate right from wrong ones) is scored by the evaluation's own code under the
   chosen policy and registry, both modes' claims counted together;
3. the point kept is ``training.thresholds.choose``'s: the most decided claims with decided precision at
   least the target on at least ``MIN_DECIDED`` decided claims; then the more precise, the lower support
   floor, then the earlier point in grid order (fewer anchors first, then no similarity floor, then lower
   ones: the weaker gate). Without such a point, the most precise one deciding at least that many claims;
4. the record keeps the floor and the gate, the base judge's calibration id, the data file's SHA-256, the
   policy and registry, and every point's counts per mode.

The ``dev`` half measures the choice. Reruns on the same files, policy and registry give the same record.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Any

from rich.console import Console

from icarus.judges.protocol import Judge, JudgeRequest
from icarus.judges.relevance import (
    BASE_JUDGE,
    PROVIDER,
    RECORD_NAME,
    VERSION,
    Relevance,
    RelevanceGate,
    RelevanceJudge,
    measure,
)
from icarus_training.thresholds import (
    RememberingJudge,
    add_selection_arguments,
    choose,
    pooled_checker,
    score_modes,
    selection_facts,
    selection_inputs,
    write_record,
)

__all__ = ["MIN_ANCHORS", "MIN_SIMILARITIES", "SUPPORT_FLOORS", "RememberingReader", "grid", "main", "score"]

SCRIPT_VERSION = "1"
SUPPORT_FLOORS: tuple[Decimal, ...] = tuple(Decimal(v) for v in ("0.00", "0.50", "0.60", "0.70", "0.80"))
MIN_ANCHORS: tuple[int, ...] = (0, 1, 2, 3)
MIN_SIMILARITIES: tuple[Decimal | None, ...] = (None, *(Decimal(v) for v in ("0.10", "0.20", "0.30", "0.40")))
WEIGHTS_DIR = Path(str(resources.files("icarus.judges") / "weights"))  # the runtime reads them there


class RememberingReader:
    """``relevance.measure`` once per distinct request."""

    def __init__(self) -> None:
        self._seen: dict[JudgeRequest, Relevance] = {}

    def __call__(self, request: JudgeRequest) -> Relevance:
        if request not in self._seen:
            self._seen[request] = measure(request)
        return self._seen[request]


def grid(
    supports: Sequence[Decimal] = SUPPORT_FLOORS,
    anchors: Sequence[int] = MIN_ANCHORS,
    similarities: Sequence[Decimal | None] = MIN_SIMILARITIES,
) -> list[tuple[Decimal, int, Decimal | None]]:
    """Grid points in the order ties are broken in (module docstring, step 3)."""
    return [(s, a, m) for a in anchors for m in similarities for s in supports]


def score(
    evalset: Any | None,
    base: Judge,
    policy: Any,
    registry: Any,
    points: Sequence[tuple[Decimal, int, Decimal | None]],
    *,
    open_evalset: Any | None = None,
    workdir: Path | None = None,
    reader: Any = None,
) -> list[dict[str, Any]]:
    """Counts for every grid point, as ``training.thresholds.score_grid`` gives them for pairs of floors;
    each row also names its ``min_anchors`` and ``min_similarity`` (``refute`` is always none)."""
    remembered = RememberingJudge(base)
    read = reader if reader is not None else RememberingReader()
    rows = []
    with pooled_checker(open_evalset, workdir) as checker:
        for support, anchors, similarity in points:
            gate = RelevanceGate(support, anchors, similarity, remembered.calibration_id, {})
            judge = RelevanceJudge(remembered, gate, read)
            counts = score_modes(judge, evalset, checker, open_evalset, policy, registry)
            rows.append(
                {
                    "support": str(support),
                    "refute": "0.00",
                    "min_anchors": anchors,
                    "min_similarity": None if similarity is None else str(similarity),
                    **counts,
                }
            )
    return rows


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m icarus_training.relevance", description=__doc__)
    add_selection_arguments(parser, min_decided_help="decided claims a precision must rest on")
    args = parser.parse_args(argv)
    console = Console(stderr=True)
    tune, policy, registry, base = selection_inputs(args, BASE_JUDGE)
    points = grid()
    console.print(f"scoring {tune.claims} tune claims ({', '.join(tune.modes)}) at {len(points)} grid points")
    rows = score(tune.gold, base, policy, registry, points, open_evalset=tune.opened)
    best, met = choose(rows, args.min_precision, args.min_decided)
    record = {
        "judge": f"{PROVIDER}@{VERSION}",
        "base": BASE_JUDGE,
        "base_calibration_id": str(getattr(base, "calibration_id", "")),
        "gate": {
            "support": best["support"],
            "min_anchors": best["min_anchors"],
            "min_similarity": best["min_similarity"],
        },
        "selection": {
            "script": f"icarus_training.relevance {SCRIPT_VERSION}",
            "objective": "most decided claims with decided precision >= min_precision on at least "
            "min_decided decided claims; then more precise; then lower support floor; then the weaker gate. "
            "Without one: the most precise point deciding at least min_decided claims",
            **selection_facts(args, tune, policy, met),
            "chosen": best,
            "grid": rows,
        },
    }
    path = write_record(args.out, RECORD_NAME, record)
    console.print(
        f"support >= {best['support']}, anchors >= {best['min_anchors']}, similarity >= "
        f"{best['min_similarity']}: {best['decided']} of {best['claims']} decided, precision "
        f"{best['decided_precision']} (target {'met' if met else 'not met'}); wrote {path}"
    )
    return record


if __name__ == "__main__":
    main()
