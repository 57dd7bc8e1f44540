"""Choose ``offline-minilm@4``'s support floor and relevance gate; write ``weights/offline-minilm-4.json``.

``make select-judge-relevance`` runs this (``python -m icarus.judges.training.relevance --data DIR``). It
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
import contextlib
import json
import tempfile
from collections.abc import Sequence
from decimal import Decimal
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
from icarus.judges.training.thresholds import (
    BOTH,
    MIN_DECIDED,
    MIN_PRECISION,
    RememberingJudge,
    _sha256,
    _tally,
    choose,
)

__all__ = ["MIN_ANCHORS", "MIN_SIMILARITIES", "SUPPORT_FLOORS", "RememberingReader", "grid", "main", "score"]

SCRIPT_VERSION = "1"
SUPPORT_FLOORS: tuple[Decimal, ...] = tuple(Decimal(v) for v in ("0.00", "0.50", "0.60", "0.70", "0.80"))
MIN_ANCHORS: tuple[int, ...] = (0, 1, 2, 3)
MIN_SIMILARITIES: tuple[Decimal | None, ...] = (None, *(Decimal(v) for v in ("0.10", "0.20", "0.30", "0.40")))
WEIGHTS_DIR = Path(__file__).resolve().parents[1] / "weights"


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
    from icarus.evaluation.runner import PooledChecker, run_evaluation

    remembered = RememberingJudge(base)
    read = reader if reader is not None else RememberingReader()
    rows = []
    with contextlib.ExitStack() as stack:
        checker = None
        if open_evalset is not None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(dir=workdir)))
            checker = stack.enter_context(
                PooledChecker(open_evalset.documents, folder, remember_searches=True)
            )
        for support, anchors, similarity in points:
            gate = RelevanceGate(support, anchors, similarity, remembered.calibration_id, {})
            judge = RelevanceJudge(remembered, gate, read)
            modes: dict[str, dict[str, int]] = {}
            if evalset is not None:
                report = run_evaluation(evalset, judge, f"{PROVIDER}@{VERSION}", policy, registry)
                modes["gold"] = _tally([(c.gold, c.predicted) for c in report.claims])
            if checker is not None and open_evalset is not None:
                services = checker.services(judge, policy, registry)
                labels = []
                for case in open_evalset.cases:
                    published = checker.check(case, services).result["claims"][0]
                    labels.append((case.gold.value, str(published["label"])))
                modes["open"] = _tally(labels)
            claims = sum(m["claims"] for m in modes.values())
            decided = sum(m["decided"] for m in modes.values())
            right = sum(m["right"] for m in modes.values())
            rows.append(
                {
                    "support": str(support),
                    "refute": "0.00",
                    "min_anchors": anchors,
                    "min_similarity": None if similarity is None else str(similarity),
                    "claims": claims,
                    "decided": decided,
                    "right": right,
                    "coverage": round(decided / claims, 4) if claims else None,
                    "decided_precision": round(right / decided, 4) if decided else None,
                    "modes": modes,
                }
            )
    return rows


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    from icarus.evaluation import averitec
    from icarus.judges.registry import create_judge
    from icarus.reputation.manual import default_registry
    from icarus.scoring.icarus.config import DEFAULT_POLICY, load_policy

    parser = argparse.ArgumentParser(prog="python -m icarus.judges.training.relevance", description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="folder holding the public datasets")
    parser.add_argument("--out", type=Path, default=WEIGHTS_DIR, help="where the record is written")
    parser.add_argument("--policy", default=DEFAULT_POLICY, help="policy the verdicts are scored under")
    parser.add_argument(
        "--reputation", type=Path, action="append", default=[], help="extra registry file (repeatable)"
    )
    parser.add_argument(
        "--min-precision", type=Decimal, default=MIN_PRECISION, help="decided precision target"
    )
    parser.add_argument(
        "--min-decided", type=int, default=MIN_DECIDED, help="decided claims a precision must rest on"
    )
    parser.add_argument(
        "--retrieval",
        choices=(averitec.GOLD, averitec.OPEN, BOTH),
        default=BOTH,
        help="score the tune half with its gold evidence, by open retrieval, or both counted together",
    )
    args = parser.parse_args(argv)
    console = Console(stderr=True)
    source = args.data / "averitec" / averitec.FILE
    modes = (averitec.GOLD, averitec.OPEN) if args.retrieval == BOTH else (args.retrieval,)
    gold = averitec.load(source, split=averitec.TUNE) if averitec.GOLD in modes else None
    opened = (
        averitec.load(source, split=averitec.TUNE, retrieval=averitec.OPEN)
        if averitec.OPEN in modes
        else None
    )
    policy = load_policy(args.policy)
    registry = default_registry(*args.reputation)
    base = create_judge(BASE_JUDGE)
    points = grid()
    claims = len(gold.cases if gold is not None else opened.cases if opened is not None else [])
    console.print(f"scoring {claims} tune claims ({', '.join(modes)}) at {len(points)} grid points")
    rows = score(gold, base, policy, registry, points, open_evalset=opened)
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
            "script": f"icarus.judges.training.relevance {SCRIPT_VERSION}",
            "objective": "most decided claims with decided precision >= min_precision on at least "
            "min_decided decided claims; then more precise; then lower support floor; then the weaker gate. "
            "Without one: the most precise point deciding at least min_decided claims",
            "min_precision": str(args.min_precision),
            "min_decided": args.min_decided,
            "target_met": met,
            "data": {"file": "averitec/dev.json", "sha256": _sha256(source), "split": averitec.TUNE},
            "modes": list(modes),
            "claims": claims,
            "policy": policy.ref,
            "registry": ["shipped manual records", "shipped default registry", *map(str, args.reputation)],
            "chosen": best,
            "grid": rows,
        },
    }
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"{RECORD_NAME}.json"
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    console.print(
        f"support >= {best['support']}, anchors >= {best['min_anchors']}, similarity >= "
        f"{best['min_similarity']}: {best['decided']} of {best['claims']} decided, precision "
        f"{best['decided_precision']} (target {'met' if met else 'not met'}); wrote {path}"
    )
    return record


if __name__ == "__main__":
    main()
