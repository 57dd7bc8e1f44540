"""Choose ``offline-minilm@3``'s side-call floors; write ``weights/offline-minilm-3.json``.

``make select-judge-thresholds`` runs this (``python -m icarus_training.thresholds --data DIR``). It
trains nothing: the floors decide which of ``offline-minilm@2``'s support and refute answers count as
calls (``icarus.judges.thresholded``). Steps:

1. AVeriTeC's ``tune`` half, which no shipped judge was trained on, is scored once with the base judge in
   both of ``icarus eval averitec``'s modes (``--retrieval both``, the default): with its gold evidence,
   and checked over the pooled answers of the half (open retrieval); every answer and every search is
   remembered, so each pair of floors below rescores the same claims without asking the model again;
2. every pair of floors on the grid ``FLOORS`` × ``FLOORS`` (0.00 keeps every call of that side) is scored
   by the evaluation's own code (``evaluation.runner``) under the chosen policy and registry (by default
   the default policy and the registry every check uses); the two modes' claims are counted together;
3. of the pairs whose decided precision is at least ``--min-precision`` (default ``MIN_PRECISION``, the
   precision target in docs/evaluation.md) on at least ``--min-decided`` decided claims (default ``MIN_DECIDED``: a precision over
   one or two decisions measures nothing), the one that decides the most claims is kept; of equal ones the
   more precise, then the lower floors (they keep the most calls). If no pair reaches the target, the most
   precise pair deciding at least that many claims is kept and the record says the target was not met;
4. the record keeps the floors, the base judge's calibration id, the data file's SHA-256, the policy and
   registry, and every pair's counts per mode, so the choice can be read and repeated.

Counting both modes is deliberate: with gold evidence alone the default registry lets only a handful of the
tune claims be decided, too few to choose a floor for refutations on. The ``dev`` half measures the choice.
Reruns on the same files with the same policy and registry give the same record.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Any

from rich.console import Console

from icarus.judges.protocol import AttributionVerdict, Judge, JudgeRequest, StanceVerdict
from icarus.judges.thresholded import BASE_JUDGE, PROVIDER, RECORD_NAME, VERSION, SideThresholds

__all__ = [
    "FLOORS",
    "MIN_DECIDED",
    "MIN_PRECISION",
    "TuneSets",
    "add_selection_arguments",
    "choose",
    "load_tune_sets",
    "main",
    "score_grid",
]

SCRIPT_VERSION = "1"
FLOORS: tuple[Decimal, ...] = (Decimal("0.00"), *(Decimal(f"0.{n}") for n in range(50, 100, 5)))
"""Candidate floors per side: none (0.00), then 0.50, 0.55, … 0.95."""
MIN_PRECISION = Decimal("0.90")
MIN_DECIDED = (
    10  # decided claims (both modes together) a precision must rest on to count as meeting the target
)
BOTH = "both"  # --retrieval: gold evidence and open retrieval, counted together
UNDECIDED = "unverifiable"  # the published label of a claim left ❔
WEIGHTS_DIR = Path(str(resources.files("icarus.judges") / "weights"))  # the runtime reads them there


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


def _tally(labels: Sequence[tuple[str, str]]) -> dict[str, int]:
    """Claims, decided claims and right ones among (gold, published) labels."""
    decided = [(gold, published) for gold, published in labels if published != UNDECIDED]
    return {
        "claims": len(labels),
        "decided": len(decided),
        "right": sum(gold == published for gold, published in decided),
    }


@contextlib.contextmanager
def pooled_checker(open_evalset: Any | None, workdir: Path | None = None) -> Iterator[Any | None]:
    """A ``runner.PooledChecker`` over ``open_evalset``'s pooled documents that runs each distinct search
    once, in a temporary folder under ``workdir``; ``None`` without an open-retrieval set."""
    if open_evalset is None:
        yield None
        return
    from icarus.evaluation.runner import PooledChecker

    with (
        tempfile.TemporaryDirectory(dir=workdir) as folder,
        PooledChecker(open_evalset.documents, Path(folder), remember_searches=True) as checker,
    ):
        yield checker


def score_modes(
    judge: Judge,
    evalset: Any | None,
    checker: Any | None,
    open_evalset: Any | None,
    policy: Any,
    registry: Any,
) -> dict[str, Any]:
    """``judge``'s claims, decided claims, right ones, coverage and decided precision on ``evalset`` (gold
    evidence) and through ``checker`` on ``open_evalset`` (open retrieval), counted together, with each
    mode's counts under ``modes``."""
    from icarus.evaluation.runner import run_evaluation

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
    return {
        "claims": claims,
        "decided": decided,
        "right": right,
        "coverage": round(decided / claims, 4) if claims else None,
        "decided_precision": round(right / decided, 4) if decided else None,
        "modes": modes,
    }


def score_grid(
    evalset: Any | None,
    base: Judge,
    policy: Any,
    registry: Any,
    floors: Sequence[Decimal] = FLOORS,
    *,
    open_evalset: Any | None = None,
    workdir: Path | None = None,
) -> list[dict[str, Any]]:
    """Claims, decided claims, right ones, coverage and decided precision for every pair of floors: on
    ``evalset`` (gold evidence, scored by ``run_evaluation``) and on ``open_evalset`` (checked over its
    pooled documents by ``runner.PooledChecker``), the two counted together and also kept apart under
    ``modes``. Each distinct request is put to ``base`` once and each distinct search run once."""
    from icarus.judges.thresholded import ThresholdedJudge

    remembered = RememberingJudge(base)
    rows = []
    with pooled_checker(open_evalset, workdir) as checker:
        for support in floors:
            for refute in floors:
                judge = ThresholdedJudge(
                    remembered, SideThresholds(support, refute, remembered.calibration_id, {})
                )
                counts = score_modes(judge, evalset, checker, open_evalset, policy, registry)
                rows.append({"support": str(support), "refute": str(refute), **counts})
    return rows


def choose(
    rows: Sequence[dict[str, Any]],
    min_precision: Decimal = MIN_PRECISION,
    min_decided: int = MIN_DECIDED,
) -> tuple[dict[str, Any], bool]:
    """The row kept (module docstring, step 3) and whether it meets the target: decided precision at least
    ``min_precision`` on at least ``min_decided`` decided claims (a precision over fewer measures little).
    Precision is compared exactly: right / decided ≥ min_precision as right ≥ min_precision × decided.
    Without such a row, the most precise row deciding at least ``min_decided`` claims is kept (then the
    widest, then the lower floors), else the most precise row deciding anything."""

    def meets(row: dict[str, Any]) -> bool:
        decided = int(row["decided"])
        return decided >= min_decided and Decimal(int(row["right"])) >= min_precision * decided

    def floors(row: dict[str, Any]) -> tuple[Decimal, Decimal, Decimal]:
        support, refute = Decimal(row["support"]), Decimal(row["refute"])
        return support + refute, support, refute

    def precision(row: dict[str, Any]) -> Decimal:
        return Decimal(int(row["right"])) / int(row["decided"]) if row["decided"] else Decimal(-1)

    feasible = [row for row in rows if meets(row)]
    if feasible:
        return min(feasible, key=lambda r: (-r["decided"], -precision(r), floors(r))), True
    enough = [row for row in rows if row["decided"] >= max(min_decided, 1)]
    deciding = enough or [row for row in rows if row["decided"]] or list(rows)
    return min(deciding, key=lambda r: (-precision(r), -r["decided"], floors(r))), False


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class TuneSets:
    """AVeriTeC's tune half as a selection scores it: the file, the modes asked for, and the half loaded
    with its gold evidence (``gold``) and for open retrieval (``opened``), each ``None`` when not asked."""

    source: Path
    modes: tuple[str, ...]
    gold: Any | None
    opened: Any | None

    @property
    def claims(self) -> int:
        sets = self.gold if self.gold is not None else self.opened
        return len(sets.cases) if sets is not None else 0


def load_tune_sets(data: Path, retrieval: str) -> TuneSets:
    """The tune half under ``data`` in the modes ``retrieval`` names (``--retrieval``: gold, open or both)."""
    from icarus.evaluation import averitec

    source = data / "averitec" / averitec.FILE
    modes = (averitec.GOLD, averitec.OPEN) if retrieval == BOTH else (retrieval,)
    gold = averitec.load(source, split=averitec.TUNE) if averitec.GOLD in modes else None
    opened = (
        averitec.load(source, split=averitec.TUNE, retrieval=averitec.OPEN)
        if averitec.OPEN in modes
        else None
    )
    return TuneSets(source, modes, gold, opened)


def add_selection_arguments(
    parser: argparse.ArgumentParser,
    min_decided_help: str = "decided claims a precision must rest on to count as meeting the target",
) -> None:
    """The options every selection on the tune half takes: where the data is and the record goes, the policy
    and registry it is scored under, the precision target and the modes (``--retrieval``)."""
    from icarus.evaluation import averitec
    from icarus.scoring.icarus.config import DEFAULT_POLICY

    parser.add_argument("--data", type=Path, required=True, help="folder holding the public datasets")
    parser.add_argument("--out", type=Path, default=WEIGHTS_DIR, help="where the record is written")
    parser.add_argument("--policy", default=DEFAULT_POLICY, help="policy the verdicts are scored under")
    parser.add_argument(
        "--reputation", type=Path, action="append", default=[], help="extra registry file (repeatable)"
    )
    parser.add_argument(
        "--min-precision", type=Decimal, default=MIN_PRECISION, help="decided precision target"
    )
    parser.add_argument("--min-decided", type=int, default=MIN_DECIDED, help=min_decided_help)
    parser.add_argument(
        "--retrieval",
        choices=(averitec.GOLD, averitec.OPEN, BOTH),
        default=BOTH,
        help="score the tune half with its gold evidence, by open retrieval, or both counted together",
    )


def selection_inputs(args: argparse.Namespace, base_judge: str) -> tuple[TuneSets, Any, Any, Judge]:
    """What ``add_selection_arguments``' options name: the tune half, the policy, the registry, and the base
    judge ``base_judge``."""
    from icarus.judges.registry import create_judge
    from icarus.reputation.manual import default_registry
    from icarus.scoring.icarus.config import load_policy

    tune = load_tune_sets(args.data, args.retrieval)
    return tune, load_policy(args.policy), default_registry(*args.reputation), create_judge(base_judge)


def selection_facts(args: argparse.Namespace, tune: TuneSets, policy: Any, met: bool) -> dict[str, Any]:
    """The part of a record's ``selection`` every selection on the tune half writes alike."""
    from icarus.evaluation import averitec

    return {
        "min_precision": str(args.min_precision),
        "min_decided": args.min_decided,
        "target_met": met,
        "data": {"file": "averitec/dev.json", "sha256": _sha256(tune.source), "split": averitec.TUNE},
        "modes": list(tune.modes),
        "claims": tune.claims,
        "policy": policy.ref,
        "registry": ["shipped manual records", "shipped default registry", *map(str, args.reputation)],
    }


def write_record(out: Path, name: str, record: dict[str, Any]) -> Path:
    """``record`` as ``out/name.json`` (sorted keys, one space indents), the folder made if missing."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.json"
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m icarus_training.thresholds", description=__doc__)
    add_selection_arguments(parser)
    args = parser.parse_args(argv)
    console = Console(stderr=True)
    tune, policy, registry, base = selection_inputs(args, BASE_JUDGE)
    console.print(
        f"scoring {tune.claims} tune claims ({', '.join(tune.modes)}) under {len(FLOORS) ** 2} pairs of floors"
    )
    rows = score_grid(tune.gold, base, policy, registry, open_evalset=tune.opened)
    best, met = choose(rows, args.min_precision, args.min_decided)
    record = {
        "judge": f"{PROVIDER}@{VERSION}",
        "base": BASE_JUDGE,
        "base_calibration_id": str(getattr(base, "calibration_id", "")),
        "thresholds": {"support": best["support"], "refute": best["refute"]},
        "selection": {
            "script": f"icarus_training.thresholds {SCRIPT_VERSION}",
            "objective": "most decided claims with decided precision >= min_precision on at least "
            "min_decided decided claims; then more precise; then lower floors. Without one: the most precise "
            "pair deciding at least min_decided claims",
            **selection_facts(args, tune, policy, met),
            "chosen": best,
            "grid": rows,
        },
    }
    path = write_record(args.out, RECORD_NAME, record)
    console.print(
        f"support >= {best['support']}, refute >= {best['refute']}: {best['decided']} of {best['claims']} "
        f"decided, precision {best['decided_precision']} (target {'met' if met else 'not met'}); wrote {path}"
    )
    return record


if __name__ == "__main__":
    main()
