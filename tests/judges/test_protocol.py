"""Verdict invariants and the helpers that turn verdicts into ledger records."""

from __future__ import annotations

from decimal import Decimal

import pytest

from icarus.judges import Judge, OfflineLexicalJudge, OpenAICompatibleJudge
from icarus.judges.protocol import (
    FAILED_HOPS,
    FailureReason,
    JudgeRequest,
    StanceVerdict,
    failed_stance,
    to_claim_judgment,
    to_confidence,
)
from icarus.ledger.judgments import JudgeProvenance, ScopeDimension, Stance
from icarus.llm.client import prompt_hash

PROVENANCE = JudgeProvenance(provider="p", version="v", calibration_id="c", prompt_hash="0" * 64)
REQUEST = JudgeRequest(claim_id="c1", claim_text="x", evidence_id="e1")


def verdict(**changes: object) -> StanceVerdict:
    fields: dict[str, object] = {
        "claim_id": "c1",
        "evidence_id": "e1",
        "stance": Stance.SUPPORT,
        "confidence": Decimal("0.80"),
        "inference_hops": 1,
        "raw_answer": "{}",
        "provider": "p",
        "version": "v",
        "calibration_id": "c",
        "prompt_hash": "0" * 64,
    }
    fields.update(changes)
    return StanceVerdict.model_validate(fields)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.499, "0.49"),
        (0.5, "0.50"),
        (1.7, "1.00"),
        (-0.2, "0.00"),
        (float("nan"), "0.00"),
        (Decimal("0.8765"), "0.87"),
    ],
)
def test_confidence_is_clamped_and_rounded_down(value: float | Decimal, expected: str) -> None:
    assert to_confidence(value) == Decimal(expected)


def test_failed_stance_is_neutral_zero_with_reason() -> None:
    failed = failed_stance(
        REQUEST,
        reason=FailureReason.INVALID_ANSWER,
        detail="bad",
        raw_answer="{oops",
        provenance=PROVENANCE,
        prompt_sha256="a" * 64,
    )
    assert (failed.stance, failed.confidence, failed.inference_hops) == (
        Stance.NEUTRAL,
        Decimal(0),
        FAILED_HOPS,
    )
    assert failed.raw_answer == "{oops" and failed.failure is FailureReason.INVALID_ANSWER
    assert FailureReason.INVALID_ANSWER.value == "invalid_answer"


def test_a_failure_cannot_carry_a_stance() -> None:
    with pytest.raises(ValueError, match="failed answer"):
        verdict(failure=FailureReason.INVALID_ANSWER)


def test_scope_cannot_both_match_and_list_mismatches() -> None:
    with pytest.raises(ValueError, match="scope"):
        verdict(mismatched=(ScopeDimension.PERIOD,))
    record = to_claim_judgment(verdict(scope_matches=False, mismatched=(ScopeDimension.PERIOD,)))
    assert record.scope.mismatched == [ScopeDimension.PERIOD] and record.scope.judge == PROVENANCE


def test_the_ledger_keeps_the_prompt_hash_raw_answer_and_failure() -> None:
    record = to_claim_judgment(verdict(raw_answer='{"stance": "support"}', quarantined=True))
    assert record.stance.judge.prompt_hash == "0" * 64
    assert record.stance.raw_answer == '{"stance": "support"}' and record.stance.quarantined
    failed = to_claim_judgment(
        verdict(
            failure=FailureReason.INVALID_ANSWER,
            stance=Stance.NEUTRAL,
            confidence=Decimal(0),
            raw_answer="{oops",
        )
    )
    assert failed.stance.failure == "invalid_answer" and failed.stance.raw_answer == "{oops"


def test_confidence_outside_unit_interval_is_rejected() -> None:
    with pytest.raises(ValueError):
        verdict(confidence=Decimal("1.2"))


def test_prompt_hash_is_canonical() -> None:
    assert prompt_hash({"b": 1, "a": [1, "é"]}) == prompt_hash({"a": [1, "é"], "b": 1})
    assert prompt_hash({"a": 1}) != prompt_hash({"a": 2})


def test_both_judges_satisfy_the_protocol() -> None:
    assert isinstance(OfflineLexicalJudge(), Judge)
    assert isinstance(OpenAICompatibleJudge("http://127.0.0.1:9/v1", "m"), Judge)
