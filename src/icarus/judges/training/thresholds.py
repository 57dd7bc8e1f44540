"""Choose ``offline-minilm@3``'s side-call floors; write ``weights/offline-minilm-3.json``.

``make select-judge-thresholds`` runs this (``python -m icarus.judges.training.thresholds --data DIR``). It
trains nothing: the floors decide which of ``offline-minilm@2``'s support and refute answers count as
calls (``icarus.judges.thresholded``). Steps:

1. AVeriTeC's ``tune`` half (``icarus eval averitec --split tune``, gold evidence), which no shipped judge
   was trained on, is scored once with the base judge; every answer is remembered, so each pair of floors
   below rescores the same answers without asking the model again;
2. every pair of floors on the grid ``FLOORS`` × ``FLOORS`` (0.00 keeps every call of that side) is scored
   by the evaluation itself (``evaluation.runner.run_evaluation``) under the chosen policy and registry
   (by default the default policy and the registry every check uses);
3. of the pairs whose decided precision is at least ``--min-precision`` (default ``MIN_PRECISION``, the
   issue's target), the one that decides the most claims is kept; of equal ones the more precise, then
   the lower floors (they keep the most calls). If no pair reaches the target, the most precise pair that
   decides anything is kept and the record says the target was not met;
4. the record keeps the floors, the base judge's calibration id, the data file's SHA-256, the policy and
   registry, and every pair's counts, so the choice can be read and repeated.

Reruns on the same files with the same policy and registry give the same record.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from rich.console import Console

from icarus.judges.protocol import AttributionVerdict, Judge, JudgeRequest, StanceVerdict
from icarus.judges.thresholded import BASE_JUDGE, PROVIDER, RECORD_NAME, VERSION, SideThresholds

__all__ = ["FLOORS", "MIN_PRECISION", "choose", "main", "score_grid"]

SCRIPT_VERSION = "1"
FLOORS: tuple[Decimal, ...] = (Decimal("0.00"), *(Decimal(f"0.{n}") for n in range(50, 100, 5)))
"""Candidate floors per side: none (0.00), then 0.50, 0.55, … 0.95."""
MIN_PRECISION = Decimal("0.90")
UNDECIDED = "unverifiable"  # the published label of a claim left ❔
WEIGHTS_DIR = Path(__file__).resolve().parents[1] / "weights"


class RememberingJudge:
    """Asks ``judge`` each distinct request once and answers repeats from memory (the base judge is
    deterministic, so a remembered answer is the answer)."""

    def __init__(self, judge: Judge) -> None:
        self.judge = judge
        self.calibration_id = str(getattr(judge, "calibration_id", ""))
        self._stances: dict[JudgeRequest, StanceVerdict] = {}
        self._attributions: dict[JudgeRequest, list[AttributionVerdict]] = {}

    def stance(self, request: JudgeRequest) -> StanceVerdict:
        if request not in self._stances:
            self._stances[request] = self.judge.stance(request)
        return self._stances[request]

    def attribution(self, request: JudgeRequest) -> list[AttributionVerdict]:
        if request not in self._attributions:
            self._attributions[request] = self.judge.attribution(request)
        return list(self._attributions[request])


def score_grid(
    evalset: Any, base: Judge, policy: Any, registry: Any, floors: Sequence[Decimal] = FLOORS
) -> list[dict[str, Any]]:
    """Decided claims, right ones, coverage and decided precision for every pair of floors."""
    from icarus.evaluation.runner import run_evaluation
    from icarus.judges.thresholded import ThresholdedJudge

    remembered = RememberingJudge(base)
    rows = []
    for support in floors:
        for refute in floors:
            thresholds = SideThresholds(support, refute, remembered.calibration_id, {})
            judge = ThresholdedJudge(remembered, thresholds)
            report = run_evaluation(evalset, judge, f"{PROVIDER}@{VERSION}", policy, registry)
            decided = [c for c in report.claims if c.predicted != UNDECIDED]
            right = sum(c.predicted == c.gold for c in decided)
            rows.append(
                {
                    "support": str(support),
                    "refute": str(refute),
                    "claims": len(report.claims),
                    "decided": len(decided),
                    "right": right,
                    "coverage": round(len(decided) / len(report.claims), 4) if report.claims else None,
                    "decided_precision": round(right / len(decided), 4) if decided else None,
                }
            )
    return rows


def choose(
    rows: Sequence[dict[str, Any]], min_precision: Decimal = MIN_PRECISION
) -> tuple[dict[str, Any], bool]:
    """The row kept (module docstring, step 3) and whether it meets ``min_precision``. Precision is
    compared exactly: right / decided ≥ min_precision as right ≥ min_precision × decided."""

    def meets(row: dict[str, Any]) -> bool:
        decided = int(row["decided"])
        return decided > 0 and Decimal(int(row["right"])) >= min_precision * decided

    def floors(row: dict[str, Any]) -> tuple[Decimal, Decimal, Decimal]:
        support, refute = Decimal(row["support"]), Decimal(row["refute"])
        return support + refute, support, refute

    def precision(row: dict[str, Any]) -> Decimal:
        return Decimal(row["right"]) / row["decided"] if row["decided"] else Decimal(-1)

    feasible = [row for row in rows if meets(row)]
    if feasible:
        best = min(feasible, key=lambda r: (-r["decided"], -precision(r), floors(r)))
        return best, True
    deciding = [row for row in rows if row["decided"]] or list(rows)
    best = min(deciding, key=lambda r: (-precision(r), -r["decided"], floors(r)))
    return best, False


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    from icarus.evaluation import averitec
    from icarus.judges.registry import create_judge
    from icarus.reputation.manual import default_registry
    from icarus.scoring.icarus.config import DEFAULT_POLICY, load_policy

    parser = argparse.ArgumentParser(prog="python -m icarus.judges.training.thresholds", description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="folder holding the public datasets")
    parser.add_argument("--out", type=Path, default=WEIGHTS_DIR, help="where the record is written")
    parser.add_argument("--policy", default=DEFAULT_POLICY, help="policy the verdicts are scored under")
    parser.add_argument(
        "--reputation", type=Path, action="append", default=[], help="extra registry file (repeatable)"
    )
    parser.add_argument(
        "--min-precision", type=Decimal, default=MIN_PRECISION, help="decided precision target"
    )
    args = parser.parse_args(argv)
    console = Console(stderr=True)
    source = args.data / "averitec" / averitec.FILE
    evalset = averitec.load(source, split=averitec.TUNE)
    policy = load_policy(args.policy)
    registry = default_registry(*args.reputation)
    base = create_judge(BASE_JUDGE)
    console.print(f"scoring {len(evalset.cases)} tune claims under {len(FLOORS) ** 2} pairs of floors")
    rows = score_grid(evalset, base, policy, registry)
    best, met = choose(rows, args.min_precision)
    record = {
        "judge": f"{PROVIDER}@{VERSION}",
        "base": BASE_JUDGE,
        "base_calibration_id": str(getattr(base, "calibration_id", "")),
        "thresholds": {"support": best["support"], "refute": best["refute"]},
        "selection": {
            "script": f"icarus.judges.training.thresholds {SCRIPT_VERSION}",
            "objective": "most decided claims with decided precision >= min_precision; then more precise; "
            "then lower floors",
            "min_precision": str(args.min_precision),
            "target_met": met,
            "data": {"file": "averitec/dev.json", "sha256": _sha256(source), "split": averitec.TUNE},
            "claims": len(evalset.cases),
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
        f"support >= {best['support']}, refute >= {best['refute']}: {best['decided']} of {best['claims']} "
        f"decided, precision {best['decided_precision']} (target {'met' if met else 'not met'}); wrote {path}"
    )
    return record


if __name__ == "__main__":
    main()
