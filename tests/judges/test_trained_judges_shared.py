"""What both trained offline judges promise alike: the calibrated confidence reaches the ledger as given,
a passage without an excerpt is judged on its clearest sentence, and the same request gets the same answer."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from icarus.judges.cross_encoder import OfflineMiniLMJudge
from icarus.judges.protocol import JudgeRequest, to_claim_judgment, to_confidence
from icarus.judges.trained import OfflineWordLlamaJudge
from icarus.ledger.judgments import Stance

REQUEST = JudgeRequest(
    claim_id="c1",
    claim_text="Arctic sea ice extent has declined since 1979.",
    evidence_id="e1",
    excerpt="Satellite records show that Arctic sea ice extent has declined steadily since 1979.",
)
JUDGES = pytest.mark.parametrize(
    "make_judge", [OfflineWordLlamaJudge, OfflineMiniLMJudge], ids=["wordllama", "minilm"]
)
Judge = OfflineWordLlamaJudge | OfflineMiniLMJudge


@JUDGES
def test_the_ledger_receives_the_calibrated_confidence(make_judge: type[Judge]) -> None:
    judge = make_judge()
    verdict = judge.stance(REQUEST)
    raw = json.loads(verdict.raw_answer)
    calibration = judge.weights.calibration
    top = max(raw["probabilities"].values())
    expected = to_confidence(Decimal(repr(float(calibration.confidence(top)))))
    assert raw["calibrated_confidence"] == pytest.approx(float(calibration.confidence(top)), abs=1e-6)
    assert verdict.confidence == expected
    judgment = to_claim_judgment(verdict)
    assert judgment.stance.confidence == expected
    assert (
        judgment.stance.judge is not None and judgment.stance.judge.calibration_id == verdict.calibration_id
    )


@JUDGES
def test_without_an_excerpt_the_clearest_sentence_is_judged(make_judge: type[Judge]) -> None:
    text = (
        "The museum opened in 1901. Arctic sea ice extent has declined since 1979, satellites show. "
        "Tickets cost ten euros."
    )
    verdict = make_judge().stance(REQUEST.model_copy(update={"excerpt": "", "evidence_text": text}))
    assert "satellites show" in json.loads(verdict.raw_answer)["passage"]
    assert verdict.stance is Stance.SUPPORT


@JUDGES
def test_answers_are_deterministic(make_judge: type[Judge]) -> None:
    assert make_judge().stance(REQUEST) == make_judge().stance(REQUEST)
