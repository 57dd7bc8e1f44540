"""Choose the offline judge and its side floors on the tune halves pooled over every set, with intervals.

``make select-judge`` runs this (``python -m icarus_training.judge_selection --data DIR``); ``--split dev``
measures the same figures on the dev halves afterwards (``make eval-selection-dev``). It trains nothing.

The rule, fixed before any dev figure was read (selection rule 2):

1. **Sets.** Verdicts on the tune half (``evaluation.cases.half_of``) of AVeriTeC with its gold evidence and by
   open retrieval, SciFact researched over its corpus with the corpus record, and Climate-FEVER; stance
   answers on the validation split of every training-side stance set (``stancesets.READERS``) and
   AVeriTeC's tune answers. Every figure is pooled over the sets: claims are counted together, not averaged.
2. **Candidates.** Each judge of ``REFERENCE_JUDGES`` as registered, and ``FLOORED_JUDGE`` under every pair of
   side floors of ``FLOORS`` (a side call under its side's floor is answered neutral,
   ``judges.thresholded``).
3. **Figures.** Pooled decided precision and coverage, stance macro-F1, each with its 90 % bootstrap interval
   (``intervals``); per set, claims, decided and right.
4. **Qualifying.** A candidate qualifies when it decides at least ``MIN_DECIDED`` claims and the lower bound
   of its pooled decided precision is at least ``MIN_PRECISION_LOW``.
5. **Choice.** Of the qualifying candidates, the one deciding the most claims; then the higher precision lower
   bound; then the lower floors; then the earlier candidate. If none qualifies, none is chosen: the default
   stays where it is and the record holds the curve (coverage against precision) that shows why.

The record (``docs/evaluation/judge-selection/selection-2.json`` and ``.md``, with the curve as a PNG) keeps
every candidate's figures, so the choice can be read and repeated. A chosen candidate becomes the default by
a change to ``judges.registry`` that names this record; floors chosen for ``FLOORED_JUDGE`` would ship as a
new judge version of their own.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any

from rich.console import Console

from icarus_training.intervals import (
    ClaimOutcome,
    macro_f1_interval,
    paired_macro_f1_difference,
    verdict_intervals,
)

__all__ = [
    "FLOORED_JUDGE",
    "FLOORS",
    "MIN_DECIDED",
    "MIN_PRECISION_LOW",
    "REFERENCE_JUDGES",
    "choose",
    "main",
]

SCRIPT_VERSION = "2"
REFERENCE_JUDGES = ("offline-minilm@2", "offline-minilm@5")
FLOORED_JUDGE = "offline-minilm-fever@1"
FLOORS: tuple[Decimal, ...] = tuple(Decimal(f) for f in ("0.00", "0.70", "0.85"))
MIN_DECIDED = 40
MIN_PRECISION_LOW = 0.85
ROOT = Path(__file__).parents[2]
SCIFACT_CORPUS_RECORD = ROOT / "examples" / "reputation" / "scifact-corpus.json"
OUT = ROOT / "docs" / "evaluation" / "judge-selection"
UNDECIDED = "unverifiable"


def _verdict_sets(data: Path, half: str) -> list[tuple[Any, Any]]:
    """Each verdict set's ``half`` with the registry it is scored with (rule 1)."""
    from icarus.evaluation import averitec, climate_fever, scifact
    from icarus.reputation.manual import default_registry

    shipped = default_registry()
    sets = [
        (averitec.load(data / "averitec", split=half), shipped),
        (averitec.load(data / "averitec", split=half, retrieval=averitec.OPEN), shipped),
        (scifact.load(data / "scifact", split=half), default_registry(SCIFACT_CORPUS_RECORD)),
        (climate_fever.load(data / "climate-fever", split=half), shipped),
    ]
    for evalset, _ in sets:
        evalset.stance_pairs = []  # stance answers are measured on the stance pairs below
    return sets


def _stance_pairs(data: Path, split: Any) -> list[Any]:
    from icarus.evaluation.stancesets import HELD_OUT_READERS, READERS, load_pairs

    return [pair for name in (*READERS, *HELD_OUT_READERS) for pair in load_pairs(name, data, split)]


def _outcomes(report: Any) -> list[ClaimOutcome]:
    return [ClaimOutcome(c.predicted != UNDECIDED, c.predicted == c.gold) for c in report.claims]


def score_candidate(
    name: str, judge: Any, sets: Sequence[tuple[Any, Any]], pairs: Sequence[Any], policy: Any
) -> dict[str, Any]:
    """Rule 3's figures for one candidate."""
    from icarus.evaluation.runner import run_evaluation
    from icarus.evaluation.stance_judges import judge_pairs

    outcomes: dict[str, list[ClaimOutcome]] = {}
    per_set: dict[str, dict[str, int]] = {}
    for evalset, registry in sets:
        rows = _outcomes(run_evaluation(evalset, judge, name, policy, registry))
        outcomes[evalset.name] = rows
        per_set[evalset.name] = {
            "claims": len(rows),
            "decided": sum(o.decided for o in rows),
            "right": sum(o.decided and o.right for o in rows),
        }
    judged, _ = judge_pairs(judge, pairs)
    stance = macro_f1_interval([j.pair.label for j in judged], [j.stance for j in judged])
    by_set = {}
    for dataset in dict.fromkeys(j.pair.dataset for j in judged):
        own = [j for j in judged if j.pair.dataset == dataset]
        by_set[dataset] = macro_f1_interval([j.pair.label for j in own], [j.stance for j in own]).to_json()
    pooled = verdict_intervals(outcomes)
    return {
        "candidate": name,
        "claims": sum(s["claims"] for s in per_set.values()),
        "decided": sum(s["decided"] for s in per_set.values()),
        "right": sum(s["right"] for s in per_set.values()),
        "decided_precision": pooled["decided_precision"].to_json(),
        "coverage": pooled["coverage"].to_json(),
        "stance_macro_f1": stance.to_json(),
        "stance_pairs": len(judged),
        "stance_by_set": by_set,
        "sets": per_set,
        "stances": [j.stance for j in judged],  # for paired comparisons; dropped from the record
    }


def qualifies(
    row: dict[str, Any], min_decided: int = MIN_DECIDED, min_low: float = MIN_PRECISION_LOW
) -> bool:
    """Rule 4: enough decisions, and a precision whose interval's lower bound clears the bar."""
    low = row["decided_precision"]["low"]
    return row["decided"] >= min_decided and low is not None and low >= min_low


def choose(
    rows: Sequence[dict[str, Any]], min_decided: int = MIN_DECIDED, min_low: float = MIN_PRECISION_LOW
) -> dict[str, Any] | None:
    """Rule 5: the qualifying row deciding the most, then the most precise at its lower bound, then the
    lowest floors, then the earliest; ``None`` when no row qualifies."""
    feasible = [(n, row) for n, row in enumerate(rows) if qualifies(row, min_decided, min_low)]
    if not feasible:
        return None

    def floors(row: dict[str, Any]) -> Decimal:
        return sum((Decimal(v) for v in row.get("floors", {}).values()), Decimal(0))

    return min(
        feasible, key=lambda nr: (-nr[1]["decided"], -nr[1]["decided_precision"]["low"], floors(nr[1]), nr[0])
    )[1]


def _registered(name: str, _remembered: Any) -> Any:
    from icarus.judges.registry import create_judge

    return create_judge(name)


def _floored(base: Any, support: Decimal, refute: Decimal) -> Any:
    from icarus.judges.thresholded import SideThresholds, ThresholdedJudge

    return ThresholdedJudge(base, SideThresholds(support, refute, str(base.calibration_id), {}))


def candidates(
    floors: Sequence[Decimal] = FLOORS,
) -> list[tuple[str, dict[str, str], Callable[[Any], Any]]]:
    """(name, floors, build) for every candidate of rule 2; ``build`` takes the remembered floored judge."""
    out: list[tuple[str, dict[str, str], Callable[[Any], Any]]] = [
        (name, {}, partial(_registered, name)) for name in REFERENCE_JUDGES
    ]
    for support in floors:
        for refute in floors:
            out.append(
                (
                    f"{FLOORED_JUDGE} support>={support} refute>={refute}",
                    {"support": str(support), "refute": str(refute)},
                    partial(_floored, support=support, refute=refute),
                )
            )
    return out


def markdown(record: dict[str, Any]) -> str:
    """The record as tables a reader can check."""
    chosen = record["chosen"]
    lines = [
        f"# Offline judge selection, rule {SCRIPT_VERSION}: {record['half']} halves, pooled",
        "",
        f"Policy `{record['policy']}`. A candidate qualifies with at least {record['min_decided']} decided "
        f"claims and the lower bound of its 90 % interval of pooled decided precision at least "
        f"{record['min_precision_low']}. Chosen: **{chosen or 'none qualifies'}**.",
        "",
        "| candidate | decided (right) of claims | decided precision [90 %] | coverage [90 %] | stance macro-F1 "
        "[90 %] | qualifies |",
        "|---|---|---|---|---|---|",
    ]

    def cell(interval: dict[str, Any]) -> str:
        if interval["value"] is None:
            return "–"
        return f"{interval['value']:.3f} [{interval['low']:.3f}, {interval['high']:.3f}]"

    for row in record["candidates"]:
        lines.append(
            f"| `{row['candidate']}` | {row['decided']} ({row['right']}) of {row['claims']} | "
            f"{cell(row['decided_precision'])} | {cell(row['coverage'])} | {cell(row['stance_macro_f1'])} | "
            f"{'yes' if qualifies(row, record['min_decided'], record['min_precision_low']) else 'no'} |"
        )
    difference = f"stance_macro_f1_minus_{REFERENCE_JUDGES[0]}"
    if record["candidates"] and difference in record["candidates"][0]:
        stance_sets = list(record["candidates"][0]["stance_by_set"])
        lines += [
            "",
            f"Stance macro-F1 by set [90 %], and the pooled difference from `{REFERENCE_JUDGES[0]}` on the same "
            "pairs (paired bootstrap):",
            "",
            "| candidate | " + " | ".join(stance_sets) + f" | minus `{REFERENCE_JUDGES[0]}` |",
            "|---|" + "---|" * (len(stance_sets) + 1),
        ]
        for row in record["candidates"]:
            cells = [cell(row["stance_by_set"][name]) for name in stance_sets]
            lines.append(f"| `{row['candidate']}` | " + " | ".join(cells) + f" | {cell(row[difference])} |")
    sets = list(record["candidates"][0]["sets"]) if record["candidates"] else []
    lines += ["", "Per set, decided (right) of claims:", "", "| candidate | " + " | ".join(sets) + " |"]
    lines.append("|---|" + "---|" * len(sets))
    for row in record["candidates"]:
        cells = [
            f"{row['sets'][s]['decided']} ({row['sets'][s]['right']}) of {row['sets'][s]['claims']}"
            for s in sets
        ]
        lines.append(f"| `{row['candidate']}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def curve_png(record: dict[str, Any], path: Path) -> None:
    """Coverage against decided precision for every candidate, with both intervals, and the bar."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5.5))
    for row in record["candidates"]:
        p, c = row["decided_precision"], row["coverage"]
        if p["value"] is None:
            continue
        floored = bool(row.get("floors"))
        ax.errorbar(
            c["value"],
            p["value"],
            xerr=[[c["value"] - c["low"]], [c["high"] - c["value"]]],
            yerr=[[p["value"] - p["low"]], [p["high"] - p["value"]]],
            fmt="o" if floored else "s",
            color="tab:blue" if floored else "tab:orange",
            alpha=0.6,
            capsize=2,
        )
        if not floored or row["candidate"] == record["chosen"]:
            ax.annotate(
                row["candidate"],
                (c["value"], p["value"]),
                fontsize=7,
                xytext=(4, 4),
                textcoords="offset points",
            )
    ax.axhline(record["min_precision_low"], color="grey", linestyle="--", linewidth=1)
    ax.set_xlabel(f"pooled coverage ({record['half']} halves), 90 % interval")
    ax.set_ylabel("pooled decided precision, 90 % interval")
    ax.set_title(f"Offline judges on the {record['half']} halves: blue = {FLOORED_JUDGE} under side floors")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    from icarus.evaluation.cases import DEV, TUNE
    from icarus.evaluation.stancesets import Split
    from icarus.judges.registry import create_judge
    from icarus.scoring.icarus.config import DEFAULT_POLICY, load_policy
    from icarus_training.thresholds import RememberingJudge

    parser = argparse.ArgumentParser(prog="python -m icarus_training.judge_selection", description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="folder holding the public datasets")
    parser.add_argument("--out", type=Path, default=OUT, help="where the record is written")
    parser.add_argument("--policy", default=DEFAULT_POLICY, help="policy the verdicts are scored under")
    parser.add_argument("--split", choices=(TUNE, DEV), default=TUNE, help="tune chooses; dev measures")
    parser.add_argument(
        "--candidate",
        action="append",
        default=[],
        help="with --split dev: a candidate name from the tune record to measure (repeatable; default: the "
        "chosen one and the reference judges)",
    )
    parser.add_argument(
        "--floors",
        type=Decimal,
        nargs="+",
        default=list(FLOORS),
        help="the floors of rule 2's grid (each side takes every one)",
    )
    parser.add_argument(
        "--weights",
        type=Path,
        default=None,
        help="where the chosen floors are written (default: the package)",
    )
    args = parser.parse_args(argv)
    console = Console(stderr=True)
    policy = load_policy(args.policy)
    sets = _verdict_sets(args.data, args.split)
    pairs = _stance_pairs(args.data, Split.VALIDATION if args.split == TUNE else Split.TEST)
    remembered = RememberingJudge(create_judge(FLOORED_JUDGE))
    every = candidates(args.floors)
    if args.split == DEV:
        tune = json.loads((args.out / "selection-2.json").read_text(encoding="utf-8"))
        wanted = set(args.candidate) or {*REFERENCE_JUDGES, *([tune["chosen"]] if tune["chosen"] else [])}
        every = [c for c in every if c[0] in wanted]
    rows = []
    for name, floors, build in every:
        row = score_candidate(name, build(remembered), sets, pairs, policy)
        rows.append({**row, "floors": floors})
        console.print(
            f"{name}: {row['decided']} decided ({row['right']} right) of {row['claims']}, precision "
            f"{row['decided_precision']}, stance macro-F1 {row['stance_macro_f1']['value']}"
        )
    gold = [pair.label for pair in pairs]
    baseline = next((row for row in rows if row["candidate"] == REFERENCE_JUDGES[0]), None)
    for row in rows:
        if baseline is not None:
            # an interval that excludes zero says the candidate's stance answers beat the base judge's
            row[f"stance_macro_f1_minus_{REFERENCE_JUDGES[0]}"] = paired_macro_f1_difference(
                gold, row["stances"], baseline["stances"]
            ).to_json()
    for row in rows:
        del row["stances"]
    chosen = choose(rows) if args.split == TUNE else None
    record: dict[str, Any] = {
        "script": f"icarus_training.judge_selection {SCRIPT_VERSION}",
        "half": args.split,
        "policy": policy.ref,
        "min_decided": MIN_DECIDED,
        "min_precision_low": MIN_PRECISION_LOW,
        "chosen": None if chosen is None else chosen["candidate"],
        "chosen_floors": None if chosen is None else chosen["floors"],
        "floored_judge_calibration_id": remembered.calibration_id,
        "candidates": rows,
    }
    stem = "selection-2" if args.split == TUNE else "selection-2-dev"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{stem}.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    (args.out / f"{stem}.md").write_text(markdown(record), encoding="utf-8")
    curve_png(record, args.out / f"{stem}-curve.png")
    console.print(f"chosen: {record['chosen'] or 'none qualifies'}; wrote {args.out / stem}.md")
    return record


if __name__ == "__main__":
    main()
