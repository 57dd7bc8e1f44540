"""Choose the default offline judge on the tune halves of every verdict set; write what was measured.

``make select-default-judge`` runs this (``python -m icarus_training.default_judge --data DIR``). It trains
nothing. Each candidate judge scores the ``tune`` half (``evaluation.cases.half_of``) of each verdict set
under the policy:

- AVeriTeC with gold evidence and with open retrieval over the half's pooled answers;
- SciFact (``claims_train.jsonl``), researched over its corpus, with the corpus record
  (``examples/reputation/scifact-corpus.json``) layered on the shipped records;
- Climate-FEVER with its evidence sentences.

The rule puts precision first, as the policy asks of a judge (a wrong ✅, ⚠️ or ❌ costs a reader more than a
❔): a candidate qualifies when, on every set where it decides any claim, its decided precision is at least
``--min-precision``, and it decides at least ``--min-decided`` claims over all sets together. Of those, the
one deciding the most claims is chosen; then the more precise; then the earlier candidate. Without one,
none is chosen and the record says so. The ``dev`` halves (``make eval-splits``) measure the choice.

Only AVeriTeC trained no judge. SciFact and Climate-FEVER sentences were among the judges' training pairs,
so a judge looks better on them than on claims it never met; the halves are still split by claim, and that
bias favours the judge that leans hardest on its training, not a more cautious one.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any

from rich.console import Console

from icarus_training.thresholds import MIN_PRECISION

__all__ = ["CANDIDATES", "SetScore", "choose_default", "main", "score_sets"]

SCRIPT_VERSION = "1"
CANDIDATES = ("offline-minilm@2", "offline-minilm@3", "offline-minilm@4", "offline-minilm@5")
MIN_DECIDED = 10
ROOT = Path(__file__).parents[2]
SCIFACT_CORPUS_RECORD = ROOT / "examples" / "reputation" / "scifact-corpus.json"
OUT = ROOT / "docs" / "evaluation" / "judge-selection"


@dataclass(frozen=True)
class SetScore:
    """One candidate on one tune set: claims, decided claims and the right ones among them."""

    judge: str
    dataset: str
    claims: int
    decided: int
    right: int

    @property
    def precision(self) -> Decimal | None:
        if not self.decided:
            return None
        return (Decimal(self.right) / self.decided).quantize(Decimal("0.001"), ROUND_HALF_EVEN)


def choose_default(
    scores: Sequence[SetScore], min_precision: Decimal, min_decided: int
) -> tuple[str | None, dict[str, dict[str, Any]]]:
    """The chosen judge (``None`` when none qualifies) and, per judge, its totals and whether it qualifies
    (module docstring)."""
    judges = list(dict.fromkeys(score.judge for score in scores))
    table: dict[str, dict[str, Any]] = {}
    for judge in judges:
        own = [score for score in scores if score.judge == judge]
        decided = sum(score.decided for score in own)
        right = sum(score.right for score in own)
        precise_everywhere = all(score.precision is None or score.precision >= min_precision for score in own)
        table[judge] = {
            "decided": decided,
            "right": right,
            "precise_on_every_set": precise_everywhere,
            "qualifies": precise_everywhere and decided >= min_decided,
        }
    qualified = [judge for judge in judges if table[judge]["qualifies"]]
    if not qualified:
        return None, table

    def order(judge: str) -> tuple[int, Decimal, int]:
        row = table[judge]
        pooled = Decimal(row["right"]) / row["decided"]
        return (-row["decided"], -pooled, judges.index(judge))

    return min(qualified, key=order), table


def _tune_sets(data: Path) -> list[tuple[Any, Any]]:
    """Each tune set with the registry it is scored with."""
    from icarus.evaluation import averitec, climate_fever, scifact
    from icarus.evaluation.cases import TUNE
    from icarus.reputation.manual import default_registry

    shipped = default_registry()
    with_corpus_record = default_registry(SCIFACT_CORPUS_RECORD)
    sets = [
        (averitec.load(data / "averitec", split=TUNE), shipped),
        (averitec.load(data / "averitec", split=TUNE, retrieval=averitec.OPEN), shipped),
        (scifact.load(data / "scifact", split=TUNE), with_corpus_record),
        (climate_fever.load(data / "climate-fever", split=TUNE), shipped),
    ]
    for evalset, _ in sets:
        evalset.stance_pairs = []  # verdicts only: the stance pairs are measured elsewhere
    return sets


def score_sets(data: Path, candidates: Sequence[str], policy_ref: str, console: Console) -> list[SetScore]:
    """Every candidate on every tune set."""
    from icarus.evaluation.runner import run_evaluation
    from icarus.judges.registry import create_judge
    from icarus.scoring.icarus.config import load_policy

    policy = load_policy(policy_ref)
    sets = _tune_sets(data)
    scores: list[SetScore] = []
    for name in candidates:
        judge = create_judge(name)
        for evalset, registry in sets:
            report = run_evaluation(evalset, judge, name, policy, registry)
            decided = [claim for claim in report.claims if claim.predicted != "unverifiable"]
            score = SetScore(
                name,
                evalset.name,
                len(report.claims),
                len(decided),
                sum(claim.predicted == claim.gold for claim in decided),
            )
            console.print(f"{name} on {evalset.name}: {score.decided} decided, {score.right} right")
            scores.append(score)
    return scores


def markdown(record: dict[str, Any]) -> str:
    """The record as a table a reader can check."""
    selection = record["selection"]
    datasets = list(dict.fromkeys(row["dataset"] for row in selection["scores"]))
    lines = [
        "# Default offline judge: selection on the tune halves",
        "",
        f"Policy `{selection['policy']}`; precision target {selection['min_precision']} on every set where a "
        f"judge decides; at least {selection['min_decided']} decided claims over all sets. "
        f"Chosen: **{record['chosen'] or 'none qualifies'}**.",
        "",
        "| judge | " + " | ".join(datasets) + " | decided (right) | precise on every set | qualifies |",
        "|---|" + "---|" * (len(datasets) + 3),
    ]
    for judge, totals in selection["totals"].items():
        cells = []
        for dataset in datasets:
            (row,) = [r for r in selection["scores"] if r["judge"] == judge and r["dataset"] == dataset]
            cells.append(f"{row['decided']} ({row['right']}) of {row['claims']}")
        lines.append(
            f"| `{judge}` | "
            + " | ".join(cells)
            + f" | {totals['decided']} ({totals['right']}) | {'yes' if totals['precise_on_every_set'] else 'no'}"
            f" | {'yes' if totals['qualifies'] else 'no'} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    from icarus.scoring.icarus.config import DEFAULT_POLICY

    parser = argparse.ArgumentParser(prog="python -m icarus_training.default_judge", description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="folder holding the public datasets")
    parser.add_argument("--out", type=Path, default=OUT, help="where selection.json and .md are written")
    parser.add_argument("--policy", default=DEFAULT_POLICY, help="policy the verdicts are scored under")
    parser.add_argument("--judge", action="append", default=[], help="a candidate (repeatable)")
    parser.add_argument("--min-precision", type=Decimal, default=MIN_PRECISION)
    parser.add_argument("--min-decided", type=int, default=MIN_DECIDED)
    args = parser.parse_args(argv)
    console = Console(stderr=True)
    candidates = tuple(args.judge) or CANDIDATES
    scores = score_sets(args.data, candidates, args.policy, console)
    chosen, totals = choose_default(scores, args.min_precision, args.min_decided)
    record = {
        "chosen": chosen,
        "selection": {
            "script": f"icarus_training.default_judge {SCRIPT_VERSION}",
            "policy": args.policy,
            "min_precision": str(args.min_precision),
            "min_decided": args.min_decided,
            "candidates": list(candidates),
            "scores": [
                {
                    "judge": s.judge,
                    "dataset": s.dataset,
                    "claims": s.claims,
                    "decided": s.decided,
                    "right": s.right,
                    "precision": None if s.precision is None else str(s.precision),
                }
                for s in scores
            ],
            "totals": totals,
        },
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "selection.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    (args.out / "selection.md").write_text(markdown(record), encoding="utf-8")
    console.print(f"chosen: {chosen or 'none qualifies'}; wrote {args.out / 'selection.md'}")
    return record


if __name__ == "__main__":
    main()
