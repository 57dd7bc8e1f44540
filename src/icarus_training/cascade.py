"""Fit the screened judge's threshold and confidence maps; write ``weights/offline-cascade-1.json``.

``make train-judge-cascade`` runs this (``python -m icarus_training.cascade --data DIR``). It trains
no model: both components ship already (``icarus.judges.cascade`` says how they are combined). Steps:

1. the same pairs and splits as the trainers (``train.read_training_pairs``); every validation and test
   pair is put to the screen (``offline-wordllama@1``) and to the decider (``offline-minilm@2``), and the
   figure rule is read on the pair's candidate passages;
2. each threshold of ``THRESHOLDS`` is scored on the validation split by the trainers' selection rule (the
   mean macro-F1 over ``train.SELECTION_SETS``); the best is kept, and of equal scores the lowest, which
   screens the most pairs and so is the fastest;
3. one isotonic map per branch, from the branch judge's stated confidence to the share of its answers that
   were right, is fitted on the validation answers that branch gave, each set weighing alike and the
   selection sets ``CALIBRATION_TARGET_WEIGHT`` times more (each pair weighs one over its set's size in the
   whole split, not in the branch: a set that seldom lands in a branch weighs little in its map);
4. the record keeps the components' calibration ids, the data files with their SHA-256, every threshold's
   validation scores, and the validation and test numbers of the cascade and of the decider alone.

Reruns on the same files give the same record: both judges are deterministic.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from icarus.evaluation.stancesets import LabelledPair, Split
from icarus.judges.calibration import Calibration, expected_calibration_error
from icarus.judges.cascade import (
    BRANCHES,
    DECIDED,
    DECIDER_JUDGE,
    PARAMETERS_NAME,
    SCREEN_JUDGE,
    SCREENED,
    figures_settle_a_side,
    screens_out,
)
from icarus.judges.cross_encoder import OfflineMiniLMJudge
from icarus.judges.metrics import accuracy, macro_f1
from icarus.judges.parallel import judge_all
from icarus.judges.protocol import Judge, JudgeRequest, to_confidence
from icarus.judges.trained import OfflineWordLlamaJudge, candidate_passages
from icarus.ledger.judgments import Stance
from icarus.llm.quarantine import quarantine
from icarus_training.train import SELECTION_SETS, WEIGHTS_DIR, read_training_pairs

SCRIPT_VERSION = "1"
THRESHOLDS = tuple(round(0.30 + 0.05 * step, 2) for step in range(15))  # 0.30 … 1.00
"""Candidate thresholds. The screen's winning probability is at least a third, so 0.30 screens every
neutral answer of the screen, and 1.00 almost none."""
CALIBRATION_TARGET_WEIGHT = 2.0


@dataclass(frozen=True, slots=True)
class Answer:
    """What one judge said about one pair."""

    stance: str
    confidence: float
    cap: float | None = None


@dataclass(frozen=True, slots=True)
class Observed:
    """Both components' answers on one labelled pair, and whether a figure settles a side."""

    pair: LabelledPair
    screen: Answer
    decider: Answer
    figures_settle: bool

    def branch(self, threshold: float) -> str:
        screened = screens_out(
            Stance(self.screen.stance), self.screen.confidence, threshold, self.figures_settle
        )
        return SCREENED if screened else DECIDED

    def answer(self, threshold: float) -> Answer:
        return self.screen if self.branch(threshold) == SCREENED else self.decider


def _request(n: int, pair: LabelledPair) -> JudgeRequest:
    return JudgeRequest(
        claim_id=f"c{n}", claim_text=pair.claim, evidence_id=f"e{n}", excerpt=pair.passage,
        evidence_text=pair.passage,
    )  # fmt: skip


def _answers(judge: Judge, pairs: Sequence[LabelledPair], progress: Progress, label: str) -> list[Answer]:
    task = progress.add_task(label, total=len(pairs))

    def ask(worker: Judge, numbered: tuple[int, LabelledPair]) -> Answer:
        verdict = worker.stance(_request(*numbered))
        raw = json.loads(verdict.raw_answer)
        cap = raw.get("confidence_cap") if isinstance(raw, dict) else None
        return Answer(
            verdict.stance.value, float(verdict.confidence), float(cap) if cap is not None else None
        )

    return judge_all(judge, ask, list(enumerate(pairs)), lambda: progress.advance(task))


def _figures_settle(pair: LabelledPair) -> bool:
    claim = quarantine(pair.claim).text
    passage = quarantine(pair.passage).text
    return figures_settle_a_side(claim, candidate_passages(claim, passage, passage))


def observe(
    pairs: Sequence[LabelledPair], screen: Judge, decider: Judge, progress: Progress
) -> list[Observed]:
    screened = _answers(screen, pairs, progress, f"screen {SCREEN_JUDGE}")
    decided = _answers(decider, pairs, progress, f"decider {DECIDER_JUDGE}")
    return [
        Observed(pair, s, d, _figures_settle(pair))
        for pair, s, d in zip(pairs, screened, decided, strict=True)
    ]


def _by_set(observed: Sequence[Observed]) -> dict[str, list[Observed]]:
    out: dict[str, list[Observed]] = {}
    for row in observed:
        out.setdefault(row.pair.dataset, []).append(row)
    return dict(sorted(out.items()))


def threshold_scores(observed: Sequence[Observed], threshold: float) -> dict[str, float]:
    """Macro-F1 of the cascade's stances per set, and their mean over the selection sets."""
    scores = {
        name: macro_f1([r.pair.label for r in rows], [r.answer(threshold).stance for r in rows])
        for name, rows in _by_set(observed).items()
    }
    scores["selection"] = float(np.mean([scores[name] for name in SELECTION_SETS if name in scores]))
    return {name: round(value, 6) for name, value in scores.items()}


def choose_threshold(scored: dict[float, dict[str, float]]) -> float:
    """The threshold with the best selection score; of equal scores, the lowest (the fastest)."""
    return min(scored, key=lambda t: (-scored[t]["selection"], t))


def _weights(rows: Sequence[Observed], per_set: Counter[str]) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Each pair weighs one over its set's size in the whole split (``per_set``), so every set counts alike
    and a branch's map sees each set as often as the set lands in that branch."""
    return np.array(
        [
            (CALIBRATION_TARGET_WEIGHT if r.pair.dataset in SELECTION_SETS else 1.0) / per_set[r.pair.dataset]
            for r in rows
        ]
    )


def fit_maps(observed: Sequence[Observed], threshold: float) -> dict[str, Calibration]:
    """One isotonic map per branch from stated confidence to accuracy, on that branch's answers."""
    from sklearn.isotonic import IsotonicRegression

    per_set = Counter(r.pair.dataset for r in observed)
    maps = {}
    for branch in BRANCHES:
        rows = [r for r in observed if r.branch(threshold) == branch]
        if not rows:
            maps[branch] = Calibration(f"{PARAMETERS_NAME}-{branch}", 1.0, (0.0, 1.0), (0.0, 1.0))
            continue
        stated = np.array([r.answer(threshold).confidence for r in rows])
        right = np.array([r.answer(threshold).stance == r.pair.label for r in rows], dtype=np.float64)
        iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip", increasing=True)
        iso.fit(stated, right, sample_weight=_weights(rows, per_set))
        maps[branch] = Calibration(
            f"{PARAMETERS_NAME}-{branch}",
            1.0,
            tuple(round(float(v), 6) for v in iso.X_thresholds_),
            tuple(round(float(v), 6) for v in iso.y_thresholds_),
        )
    return maps


def mapped_confidence(row: Observed, threshold: float, maps: dict[str, Calibration]) -> float:
    """The confidence the judge states: the branch's map of its component's confidence, the figure cap
    kept. Hundredths, rounded down, as verdicts carry it."""
    branch = row.branch(threshold)
    answer = row.answer(threshold)
    value = float(maps[branch].confidence(answer.confidence))
    if answer.cap is not None:
        value = min(value, answer.cap)
    return float(to_confidence(value))


def split_numbers(
    observed: Sequence[Observed], threshold: float, maps: dict[str, Calibration]
) -> dict[str, dict[str, float]]:
    """Per set: pairs, macro-F1, accuracy and ECE of the cascade, the share screened, and the decider's
    macro-F1 and ECE alone on the same pairs."""
    out: dict[str, dict[str, float]] = {}
    for name, rows in _by_set(observed).items():
        gold = [r.pair.label for r in rows]
        stances = [r.answer(threshold).stance for r in rows]
        right = [s == g for s, g in zip(stances, gold, strict=True)]
        decider = [r.decider.stance for r in rows]
        out[name] = {
            "n": float(len(rows)),
            "macro_f1": round(macro_f1(gold, stances), 6),
            "accuracy": round(accuracy(gold, stances), 6),
            "ece": round(
                expected_calibration_error([mapped_confidence(r, threshold, maps) for r in rows], right), 6
            ),
            "screened_share": round(sum(r.branch(threshold) == SCREENED for r in rows) / len(rows), 6),
            "decider_macro_f1": round(macro_f1(gold, decider), 6),
            "decider_ece": round(
                expected_calibration_error(
                    [r.decider.confidence for r in rows],
                    [d == g for d, g in zip(decider, gold, strict=True)],
                ),
                6,
            ),
        }
    return out


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m icarus_training.cascade", description=__doc__)
    parser.add_argument("--data", type=Path, required=True, help="folder holding the public datasets")
    parser.add_argument("--out", type=Path, default=WEIGHTS_DIR, help="where the record is written")
    args = parser.parse_args(argv)
    console = Console(stderr=True)
    started = time.perf_counter()
    data = read_training_pairs(args.data)
    screen, decider = OfflineWordLlamaJudge(), OfflineMiniLMJudge(read_figures=True)  # the two named above
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console) as progress:
        validation = observe(data.splits[Split.VALIDATION], screen, decider, progress)
        test = observe(data.splits[Split.TEST], screen, decider, progress)
    scored = {t: threshold_scores(validation, t) for t in THRESHOLDS}
    threshold = choose_threshold(scored)
    maps = fit_maps(validation, threshold)
    record: dict[str, Any] = {
        "name": PARAMETERS_NAME,
        "script": "icarus_training.cascade",
        "script_version": SCRIPT_VERSION,
        "components": {
            "screen": {"judge": SCREEN_JUDGE, "calibration_id": screen.calibration_id},
            "decider": {"judge": DECIDER_JUDGE, "calibration_id": decider.calibration_id},
        },
        "data_files": data.files,
        "pairs": {
            split.value: dict(Counter(p.dataset for p in data.splits[split]))
            for split in (Split.VALIDATION, Split.TEST)
        },
        "selection_sets": list(SELECTION_SETS),
        "thresholds": {f"{t:.2f}": scores for t, scores in scored.items()},
        "threshold": threshold,
        "calibration": {branch: maps[branch].to_json() for branch in BRANCHES},
        "validation": split_numbers(validation, threshold, maps),
        "test": split_numbers(test, threshold, maps),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"{PARAMETERS_NAME}.json"
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    console.print(
        f"threshold {threshold:.2f} (validation selection {scored[threshold]['selection']:.4f}); "
        f"wrote {path} in {time.perf_counter() - started:.0f} s"
    )
    return record


if __name__ == "__main__":
    main()
