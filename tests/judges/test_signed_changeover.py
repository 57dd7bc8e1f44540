"""A cross-encoder judge on the shared weights starts on the bytes as stored and changes over to the signed
bytes (where exact) once it has been asked ``SIGNED_WORTH_PAIRS`` requests, or that many at once; its
answers stay the same."""

from __future__ import annotations

import pytest

from icarus.judges import cross_encoder
from icarus.judges.cross_encoder import PROBE_PAIRS, OfflineMiniLMJudge, load_weights
from icarus.judges.packaged import WeightsError
from icarus.judges.protocol import JudgeRequest
from icarus.judges.signed_products import cpu_has_vnni

WORTH = 3  # SIGNED_WORTH_PAIRS for these tests, so that a few requests reach it


def _requests(count: int) -> list[JudgeRequest]:
    return [
        JudgeRequest(claim_id=f"c{i}", claim_text=claim, evidence_id=f"e{i}", excerpt=passage)
        for i, (claim, passage) in enumerate((PROBE_PAIRS * count)[:count])
    ]


@pytest.fixture
def worth(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(cross_encoder, "SIGNED_WORTH_PAIRS", WORTH)
    return WORTH


def _signed(judge: OfflineMiniLMJudge) -> bool:
    return judge.weights.scorer.signed_products


def test_a_judge_on_the_shared_weights_starts_on_the_stored_bytes() -> None:
    assert not _signed(OfflineMiniLMJudge(read_figures=True))


def test_it_changes_over_at_the_request_that_reaches_the_count(worth: int) -> None:
    judge = OfflineMiniLMJudge(read_figures=True)
    requests = _requests(worth)
    for request in requests[:-1]:
        judge.stance(request)
    assert not _signed(judge)  # one request short
    judge.stance(requests[-1])
    assert _signed(judge) is cpu_has_vnni()


def test_the_answers_are_the_same_on_both_byte_forms(worth: int) -> None:
    judge = OfflineMiniLMJudge(read_figures=True)
    requests = _requests(worth)
    before = [judge.stance(request) for request in requests]
    assert _signed(judge) is cpu_has_vnni()
    assert [judge.stance(request) for request in requests] == before


def test_weights_handed_in_run_as_they_are(worth: int) -> None:
    judge = OfflineMiniLMJudge(load_weights(signed=False), read_figures=True)
    for request in _requests(2 * worth):
        judge.stance(request)
    assert not _signed(judge)


def test_many_requests_at_once_change_over_before_the_twin_is_made(
    worth: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cross_encoder, "usable_cores", lambda: 2)
    judge = OfflineMiniLMJudge(read_figures=True)
    twin, threads = judge.parallel_worker(cross_encoder.TWIN_WORTH_PAIRS)
    assert threads == 2 and isinstance(twin, OfflineMiniLMJudge) and twin is not judge
    assert _signed(judge) is cpu_has_vnni()
    assert _signed(twin) is cpu_has_vnni()


def test_a_failed_change_over_keeps_judging_on_the_stored_bytes(
    worth: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    def replaced() -> None:
        raise WeightsError("offline-minilm-1.onnx has another SHA-256")

    monkeypatch.setattr(cross_encoder, "_shared_signed", replaced)
    judge = OfflineMiniLMJudge(read_figures=True)
    requests = _requests(worth + 1)
    answers = [judge.stance(request) for request in requests]
    assert not _signed(judge)
    assert all(answer.failure is None for answer in answers)
