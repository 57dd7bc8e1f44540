"""A small measurement on real data: the offline judge's stance macro-F1 on Climate-FEVER.

The first 300 claim–evidence pairs of the file, in file order, with the evidence-level labels. Only one
thing is asserted: the judge beats the majority-class baseline's macro-F1 on the same pairs. The figure is
printed (run with ``-s`` to see it). The judge's weights were not chosen on these 300 pairs.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from icarus.judges.offline import OfflineLexicalJudge
from icarus.judges.protocol import JudgeRequest
from tests.datasets import DATASETS

DATA = DATASETS / "climate-fever" / "climate-fever.jsonl"
PAIRS = 300
LABELS = {"SUPPORTS": "support", "REFUTES": "refute", "NOT_ENOUGH_INFO": "neutral"}


def macro_f1(gold: list[str], predicted: list[str]) -> float:
    scores = []
    for label in sorted(set(LABELS.values())):
        tp = sum(g == p == label for g, p in zip(gold, predicted, strict=True))
        fp = sum(p == label != g for g, p in zip(gold, predicted, strict=True))
        fn = sum(g == label != p for g, p in zip(gold, predicted, strict=True))
        scores.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return sum(scores) / len(scores)


def load_pairs() -> list[tuple[JudgeRequest, str]]:
    pairs: list[tuple[JudgeRequest, str]] = []
    with DATA.open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            for evidence in row["evidences"]:
                request = JudgeRequest(
                    claim_id=str(row["claim_id"]),
                    claim_text=row["claim"],
                    evidence_id=evidence["evidence_id"],
                    excerpt=evidence["evidence"],
                )
                pairs.append((request, LABELS[evidence["evidence_label"]]))
                if len(pairs) == PAIRS:
                    return pairs
    return pairs


@pytest.mark.skipif(not DATA.exists(), reason=f"Climate-FEVER not found at {DATA}; measurement skipped")
def test_offline_judge_beats_majority_baseline_on_climate_fever() -> None:
    pairs = load_pairs()
    assert len(pairs) == PAIRS
    gold = [label for _, label in pairs]
    judge = OfflineLexicalJudge()
    predicted = [judge.stance(request).stance.value for request, _ in pairs]
    majority = Counter(gold).most_common(1)[0][0]
    judged, baseline = macro_f1(gold, predicted), macro_f1(gold, [majority] * len(gold))
    print(
        f"\nClimate-FEVER, first {PAIRS} pairs: offline-lexical@1 stance macro-F1 {judged:.3f}; "
        f"majority-class ({majority}) baseline {baseline:.3f}; predicted {dict(Counter(predicted))}"
    )
    assert judged > baseline
