"""A stance "judge" that answers from the dataset's own labels: the policy's ceiling on a dataset.

``icarus eval NAME --judge gold-labels@1`` scores every claim as if the stance judge were never wrong: each
evidence item gets the stance its dataset gives it, with confidence 1.00 and no inference hops. What is
left between the published labels and the gold ones is then the policy's doing (reputations under the
counting threshold, single origins, gates), not the judge's. It is an evaluation tool only, never a judge a
check can use, so it is not in the judge registry.

Where a passage carries its own stance label (Climate-FEVER's sentences), that label is the answer. Where
only the claim is labelled (AVeriTeC's answers), every passage takes its claim's side: supported → support,
refuted → refute; a claim with not enough evidence, or with conflicting evidence, gives neutral passages,
since its label does not say which passage leans which way. The same claim and text labelled two ways
(claims worded alike) is answered neutral. A set researched from a corpus (SciFact) has no
labels for what research finds, so it is refused.

Attribution (H3) is parsed as the offline judges parse it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal

from icarus.evaluation.cases import DatasetError, EvalSet
from icarus.judges.offline import parsed_attribution_verdicts
from icarus.judges.protocol import (
    AttributionVerdict,
    FailureReason,
    JudgeRequest,
    StanceVerdict,
    failed_stance,
)
from icarus.ledger import Stance
from icarus.ledger.judgments import JudgeProvenance
from icarus.llm.client import prompt_hash
from icarus.scoring.labels import Label

__all__ = ["CLAIM_SIDE", "GOLD_JUDGE", "GoldLabelJudge", "gold_label_judge"]

PROVIDER = "gold-labels"
VERSION = "1"
CALIBRATION_ID = "gold-labels@1-certain"
GOLD_JUDGE = f"{PROVIDER}@{VERSION}"
"""The name ``icarus eval --judge`` takes for this judge."""

_CERTAIN = Decimal("1.00")

CLAIM_SIDE: Mapping[Label, Stance] = {
    Label.SUPPORTED: Stance.SUPPORT,
    Label.NOT_SUPPORTED: Stance.REFUTE,
    Label.UNVERIFIABLE: Stance.NEUTRAL,
    Label.MISLEADING: Stance.NEUTRAL,  # conflicting evidence: the label does not say which passage is which
}
"""The stance an unlabelled passage takes from its claim's gold label."""


class GoldLabelJudge:
    """Answers (claim text, evidence text) pairs from a fixed table of gold stances."""

    provenance = JudgeProvenance(provider=PROVIDER, version=VERSION, calibration_id=CALIBRATION_ID)

    def __init__(self, answers: Mapping[tuple[str, str], Stance]) -> None:
        self._answers = dict(answers)

    def __repr__(self) -> str:
        return f"GoldLabelJudge({GOLD_JUDGE}, {len(self._answers)} pairs)"

    def stance(self, request: JudgeRequest) -> StanceVerdict:
        digest = prompt_hash(
            {"judge": GOLD_JUDGE, "claim": request.claim_text, "text": request.evidence_text}
        )
        stance = self._answers.get((request.claim_text, request.evidence_text))
        if stance is None:
            # An item the table does not know: fail closed like any judge, so the run counts it.
            return failed_stance(
                request,
                reason=FailureReason.INVALID_ANSWER,
                detail="no gold label for this claim and evidence",
                raw_answer="",
                provenance=self.provenance,
                prompt_sha256=digest,
            )
        return StanceVerdict(
            claim_id=request.claim_id,
            evidence_id=request.evidence_id,
            stance=stance,
            confidence=_CERTAIN,
            inference_hops=0,
            raw_answer=json.dumps({"gold": stance.value}),
            provider=PROVIDER,
            version=VERSION,
            calibration_id=CALIBRATION_ID,
            prompt_hash=digest,
        )

    def attribution(self, request: JudgeRequest) -> list[AttributionVerdict]:
        return parsed_attribution_verdicts(request, PROVIDER, VERSION, CALIBRATION_ID)


def gold_label_judge(evalset: EvalSet) -> GoldLabelJudge:
    """The gold-label judge for ``evalset``'s claims and stance pairs. A set whose evidence is found by
    research (a corpus, or pooled documents) has no labels for what is found: that is a ``DatasetError``."""
    if evalset.researched and evalset.cases:
        raise DatasetError(
            f"{GOLD_JUDGE} needs gold evidence with labels; {evalset.name} finds its evidence by research"
        )
    answers: dict[tuple[str, str], Stance] = {}

    def learn(key: tuple[str, str], stance: Stance) -> None:
        # The same claim and text labelled two ways (two claims worded alike): the labels disagree, so
        # neither side is certain and the answer is neutral, whichever came first.
        answers[key] = stance if answers.setdefault(key, stance) is stance else Stance.NEUTRAL

    for case in evalset.cases:
        for passage in case.passages:
            side = passage.gold_stance if passage.gold_stance is not None else CLAIM_SIDE[case.gold]
            learn((case.claim, passage.text), side)
    for pair in evalset.stance_pairs:
        learn((pair.claim, pair.evidence), pair.gold)
    return GoldLabelJudge(answers)
