"""``offline-minilm-fever@1``: its two rules around the base model (reported speech, short excerpts read in
context), tested on a recording base judge; and the shipped weights where they are present."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from icarus.judges.fever_minilm import (
    PROVIDER,
    SHORT_EXCERPT_WORDS,
    VERSION,
    FeverMiniLMJudge,
    unreported_speech,
    widened_excerpt,
)
from icarus.judges.protocol import AttributionVerdict, JudgeRequest, StanceVerdict
from icarus.judges.registry import JUDGES, MINILM_FEVER_JUDGE
from icarus.ledger import Stance


class Recording:
    """A base judge that answers one stance and keeps every request it was asked."""

    calibration_id = "fake-cal"

    def __init__(self, stance: Stance) -> None:
        self.answer = stance
        self.requests: list[JudgeRequest] = []

    def stance(self, request: JudgeRequest) -> StanceVerdict:
        self.requests.append(request)
        return StanceVerdict(
            claim_id=request.claim_id,
            evidence_id=request.evidence_id,
            stance=self.answer,
            confidence=Decimal("0.9"),
            inference_hops=0,
            raw_answer="{}",
            provider="fake",
            version="1",
            calibration_id=self.calibration_id,
            prompt_hash="0" * 64,
        )

    def attribution(self, request: JudgeRequest) -> list[AttributionVerdict]:
        return []


def _request(claim: str, excerpt: str, text: str | None = None) -> JudgeRequest:
    return JudgeRequest(
        claim_id="c1", claim_text=claim, evidence_id="e1", excerpt=excerpt, evidence_text=text or excerpt
    )


MASKS = "The surgeon general and the CDC both previously said masks are not effective"


def test_registered_under_its_own_name() -> None:
    assert f"{PROVIDER}@{VERSION}" == MINILM_FEVER_JUDGE and MINILM_FEVER_JUDGE in JUDGES


def test_evidence_about_the_words_subject_leaves_a_claim_about_speech_neutral() -> None:
    judge = FeverMiniLMJudge(Recording(Stance.REFUTE))
    verdict = judge.stance(_request(MASKS, "Masks cut the spread of the virus by half in a large trial."))
    assert verdict.stance is Stance.NEUTRAL
    assert verdict.confidence == Decimal("0.1")  # what the side call left for "not that side"
    assert (verdict.provider, verdict.version) == (PROVIDER, VERSION)
    raw = json.loads(verdict.raw_answer)
    assert raw["reported_speech"]["speaker"] == "The surgeon general and the CDC"
    assert raw["base"]["stance"] == "refute"


def test_evidence_reporting_the_speaker_keeps_the_side() -> None:
    judge = FeverMiniLMJudge(Recording(Stance.SUPPORT))
    excerpt = "In March 2020 the surgeon general tweeted that masks are not effective for the public."
    verdict = judge.stance(_request(MASKS, excerpt))
    assert verdict.stance is Stance.SUPPORT
    assert "reported_speech" not in json.loads(verdict.raw_answer)


def test_claims_about_the_world_are_untouched() -> None:
    judge = FeverMiniLMJudge(Recording(Stance.REFUTE))
    verdict = judge.stance(_request("Masks are not effective.", "Masks cut the spread by half."))
    assert verdict.stance is Stance.REFUTE
    assert unreported_speech(_request("Masks are not effective.", "x")) is None


def test_a_short_excerpt_is_read_with_the_sentence_before_it() -> None:
    base = Recording(Stance.REFUTE)
    text = "Has the USA listed the NDF as a terrorist group? No, it is not on the list."
    verdict = FeverMiniLMJudge(base).stance(
        _request("The USA lists the NDF as terrorists.", "No, it is not on the list.", text)
    )
    assert base.requests[0].excerpt == text
    assert json.loads(verdict.raw_answer)["excerpt_read_with_context"] == text


def test_widening_boundaries() -> None:
    short = " ".join(["Word"] * (SHORT_EXCERPT_WORDS - 1)) + "."
    text = f"First sentence here. {short}"
    assert widened_excerpt(short, text) == text
    long_enough = " ".join(["Word"] * SHORT_EXCERPT_WORDS) + "."
    assert widened_excerpt(long_enough, f"Before. {long_enough}") == long_enough
    assert widened_excerpt("No.", "No.") == "No."  # nothing before it
    assert widened_excerpt("No.", "Elsewhere entirely.") == "No."  # not found in the text
    assert widened_excerpt("", "Before. After.") == ""


def test_shipped_weights_judge_when_present() -> None:
    from icarus.judges.cross_encoder import weight_files
    from icarus.judges.fever_minilm import WEIGHTS_NAME

    if not all(path.is_file() for path in weight_files(WEIGHTS_NAME)):
        pytest.skip(f"{WEIGHTS_NAME} is not in the package (make train-judge-fever writes it)")
    judge = FeverMiniLMJudge()
    supported = judge.stance(
        _request(
            "Hubert Humphrey served three terms in the Senate.",
            "He served three terms in the Senate from 1949 to 1964.",
        )
    )
    assert supported.stance is Stance.SUPPORT
    assert supported.calibration_id == judge.calibration_id
