"""Challenges: validation, rate limit, review transitions, votes that only reorder, an old run that never changes."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DatabaseError

from icarus.lvf.repository import LvfRepository, RateLimited, UnknownRecord
from icarus.scoring.lvf import load_lvf_config, run_lvf
from icarus.scoring.lvf.challenges import (
    ChallengeError,
    ChallengeState,
    EventKind,
    ReviewAction,
    fold_state,
    next_state,
    parse_submission,
    rate_limited,
)
from tests.scoring.lvf.support import FixedAssessor, all_scores, worthy_ledger

V3 = load_lvf_config("lvf@3.0")
LIMITS = V3.challenges
START = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def submission(run_id: int = 1, submitter: str = "sub-1", **changes: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "run_id": run_id,
        "submitter": submitter,
        "reason": "The harbor figure was revised.",
        "evidence": [
            {"url": "https://port.example/revision", "excerpt": "Revised: 9%.", "stance": "refutes"}
        ],
    }
    return raw | changes


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def repo(tmp_path: Path, clock: Clock) -> Iterator[LvfRepository]:
    with LvfRepository(tmp_path / "lvf.db", LIMITS, clock=clock) as repository:
        (run,) = run_lvf(worthy_ledger(), V3, [FixedAssessor(all_scores("8"))])
        assert repository.record_run(run) == 1
        yield repository


def test_submission_is_validated() -> None:
    assert parse_submission(submission(), LIMITS).evidence[0].stance == "refutes"
    bad = [
        submission(evidence=[]),
        submission(evidence=[{"url": "ftp://x.example/a", "excerpt": "e", "stance": "refutes"}]),
        submission(evidence=[{"url": "https://x.example/a", "excerpt": "e", "stance": "maybe"}]),
        submission(submitter="has spaces"),
        submission(extra="field"),
        submission(reason="x" * (LIMITS.max_text_chars + 1)),
        submission(evidence=[submission()["evidence"][0]] * (LIMITS.max_evidence_items + 1)),
    ]
    for raw in bad:
        with pytest.raises(ChallengeError):
            parse_submission(raw, LIMITS)
    assert parse_submission(submission(reason="x" * LIMITS.max_text_chars), LIMITS)


def test_rate_limit_allows_3_per_24_hours_per_submitter_and_the_window_edge_leaves() -> None:
    earlier = [START - timedelta(hours=h) for h in (1, 2, 3)]
    assert rate_limited(earlier, START, LIMITS)
    assert not rate_limited(earlier[:2], START, LIMITS)
    at_edge = [START - timedelta(hours=24), *earlier[:2]]
    assert not rate_limited(at_edge, START, LIMITS)  # exactly 24 h old has left the window
    inside = [START - timedelta(hours=24) + timedelta(seconds=1), *earlier[:2]]
    assert rate_limited(inside, START, LIMITS)


def test_repository_rate_limits_per_submitter(repo: LvfRepository, clock: Clock) -> None:
    for _ in range(LIMITS.max_per_submitter):
        repo.submit(parse_submission(submission(), LIMITS))
    with pytest.raises(RateLimited, match="sub-1"):
        repo.submit(parse_submission(submission(), LIMITS))
    repo.submit(parse_submission(submission(submitter="sub-2"), LIMITS))  # another submitter is unaffected
    clock.now = START + timedelta(hours=24)
    repo.submit(parse_submission(submission(), LIMITS))


def test_a_challenge_against_an_unknown_run_is_refused(repo: LvfRepository) -> None:
    with pytest.raises(UnknownRecord, match="no LVF run 9"):
        repo.submit(parse_submission(submission(run_id=9), LIMITS))


def test_every_review_transition() -> None:
    assert next_state(None, EventKind.SUBMITTED) is ChallengeState.QUEUED
    assert (
        next_state(ChallengeState.QUEUED, EventKind.MORE_INFO_REQUESTED) is ChallengeState.AWAITING_SUBMITTER
    )
    assert next_state(ChallengeState.AWAITING_SUBMITTER, EventKind.INFO_ADDED) is ChallengeState.QUEUED
    assert next_state(ChallengeState.QUEUED, EventKind.REJECTED) is ChallengeState.REJECTED
    assert next_state(ChallengeState.AWAITING_SUBMITTER, EventKind.REJECTED) is ChallengeState.REJECTED
    assert next_state(ChallengeState.QUEUED, EventKind.ACCEPTED) is ChallengeState.ACCEPTED
    refused = [
        (ChallengeState.AWAITING_SUBMITTER, EventKind.ACCEPTED),
        (ChallengeState.ACCEPTED, EventKind.REJECTED),
        (ChallengeState.REJECTED, EventKind.ACCEPTED),
        (ChallengeState.QUEUED, EventKind.INFO_ADDED),
        (None, EventKind.ACCEPTED),
    ]
    for state, event in refused:
        with pytest.raises(ChallengeError, match="not allowed"):
            next_state(state, event)
    with pytest.raises(ChallengeError):
        fold_state([])


def test_request_more_then_accept_for_a_later_run_leaves_the_old_run_unchanged(repo: LvfRepository) -> None:
    before = repo.get_run(1).run_json
    challenge = repo.submit(parse_submission(submission(), LIMITS))
    assert (
        repo.review(challenge, ReviewAction.REQUEST_MORE_INFO, "rev-1", "which table?")
        is ChallengeState.AWAITING_SUBMITTER
    )
    with pytest.raises(ChallengeError, match="only the submitter"):
        repo.add_info(challenge, "someone-else", "more", [])
    assert repo.add_info(challenge, "sub-1", "Table 3.", []) is ChallengeState.QUEUED
    assert repo.review(challenge, ReviewAction.ACCEPT, "rev-1", "good source") is ChallengeState.ACCEPTED
    with pytest.raises(ChallengeError):
        repo.review(challenge, ReviewAction.REJECT, "rev-2")
    assert repo.get_run(1).run_json == before
    assert [c.challenge_id for c in repo.accepted_for_run("test-ledger")] == [challenge]
    kinds = [e.kind for e in repo.challenge(challenge).events]
    assert kinds == ["submitted", "more_info_requested", "info_added", "accepted"]


def test_rejecting_a_challenge(repo: LvfRepository) -> None:
    challenge = repo.submit(parse_submission(submission(), LIMITS))
    assert repo.review(challenge, ReviewAction.REJECT, "rev-1", "off topic") is ChallengeState.REJECTED
    assert repo.review_queue() == []


def test_votes_only_reorder_the_review_queue(repo: LvfRepository, clock: Clock) -> None:
    first = repo.submit(parse_submission(submission(submitter="a"), LIMITS))
    clock.now += timedelta(minutes=1)
    second = repo.submit(parse_submission(submission(submitter="b"), LIMITS))
    assert [e.challenge_id for e in repo.review_queue()] == [first, second]  # oldest first
    before = repo.get_run(1).run_json
    assert repo.vote(second, "v1") and repo.vote(second, "v2")
    assert not repo.vote(second, "v1")  # one vote per voter
    queue = repo.review_queue()
    assert [e.challenge_id for e in queue] == [second, first] and queue[0].votes == 2
    assert repo.get_run(1).run_json == before  # votes never touch a run or its score


def test_stored_rows_are_append_only(repo: LvfRepository, tmp_path: Path) -> None:
    challenge = repo.submit(parse_submission(submission(), LIMITS))
    repo.vote(challenge, "v1")
    engine = create_engine(f"sqlite:///{tmp_path / 'lvf.db'}")
    try:
        for statement in (
            "UPDATE lvf_runs SET status = 'scored'",
            "DELETE FROM lvf_runs",
            "UPDATE lvf_challenge_events SET kind = 'accepted'",
            "DELETE FROM lvf_votes",
        ):
            with pytest.raises(DatabaseError, match="append-only"), engine.begin() as connection:
                connection.execute(text(statement))
    finally:
        engine.dispose()


def test_the_same_run_recorded_twice_is_stored_once_and_a_later_run_is_a_new_record(
    repo: LvfRepository,
) -> None:
    (same,) = run_lvf(worthy_ledger(), V3, [FixedAssessor(all_scores("8"))])
    assert repo.record_run(same) == 1
    (later,) = run_lvf(worthy_ledger(), V3, [FixedAssessor(all_scores("6"))])
    assert repo.record_run(later) == 2
    assert [r.run_id for r in repo.runs()] == [1, 2]
