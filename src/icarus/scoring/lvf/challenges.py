"""Factual challenges to an LVF run: structured evidence submissions and their review, as pure rules.

A challenge is a request for review, separate from an abuse report. Submitting one publishes nothing and
changes no score. The life of a challenge is a list of events; its state is what the events fold to:

    queued --request_more_info--> awaiting_submitter --info_added--> queued
    queued | awaiting_submitter --reject--> rejected        (final)
    queued --accept--> accepted                             (final: the evidence may inform a later run)
    accepted --used_in_run--> accepted                      (a later stored run read its evidence)

Accepting never edits the challenged run: a later run is a new record, and each stored run that reads an
accepted challenge's evidence adds a ``used_in_run`` event naming itself. Only an accepted challenge can
take that event, so a rejected or pending challenge is never used. Public votes are kept beside the queue
and only decide the order in which queued challenges are reviewed (most votes first, then oldest).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError, field_validator

from icarus.request_schema import SPACE_CLASS
from icarus.scoring.lvf.config import ChallengeLimits

__all__ = [
    "AcceptedChallenge",
    "ChallengeError",
    "ChallengeState",
    "ChallengeSubmission",
    "EventKind",
    "QueueEntry",
    "ReviewAction",
    "SubmittedEvidence",
    "fold_state",
    "next_state",
    "parse_submission",
    "rate_limited",
    "review_order",
]

SUBMITTER_PATTERN = r"^[A-Za-z0-9_.:@-]{1,128}$"
EVIDENCE_URL_PATTERN = rf"^[Hh][Tt][Tt][Pp][Ss]?://[^{SPACE_CLASS}]*$"


class ChallengeError(ValueError):
    """A submission or review that cannot be accepted, with a message a person can act on."""


class SubmittedEvidence(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str = Field(
        min_length=1,
        max_length=2048,
        description="An http(s) address of the evidence.",
        json_schema_extra={"pattern": EVIDENCE_URL_PATTERN},  # what _http below accepts, published
    )
    title: str = Field(default="", max_length=500)
    publisher: str = Field(default="", max_length=200)
    excerpt: str = Field(min_length=1, description="The passage that bears on the claim, quoted exactly.")
    stance: Literal["supports", "refutes", "context"] = Field(
        description="What the passage does to the claim."
    )
    published_at: AwareDatetime | None = None

    @field_validator("url")
    @classmethod
    def _http(cls, value: str) -> str:
        if not value.lower().startswith(("http://", "https://")) or any(c.isspace() for c in value):
            raise ValueError("must be an http:// or https:// address without spaces")
        return value


class ChallengeSubmission(BaseModel):
    """A structured evidence submission against one stored run (the JSON file ``challenge submit`` reads)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run_id: int = Field(ge=1, description="The stored run challenged (``icarus lvf runs`` lists ids).")
    submitter: str = Field(pattern=SUBMITTER_PATTERN, description="An opaque submitter id, not a name.")
    reason: str = Field(min_length=1, description="What the submitter says the run got wrong.")
    evidence: list[SubmittedEvidence] = Field(min_length=1)


class EventKind(StrEnum):
    SUBMITTED = "submitted"
    MORE_INFO_REQUESTED = "more_info_requested"
    INFO_ADDED = "info_added"
    REJECTED = "rejected"
    ACCEPTED = "accepted"
    USED_IN_RUN = "used_in_run"


class ReviewAction(StrEnum):
    """What a reviewer may do with a challenge."""

    REQUEST_MORE_INFO = "request-more-info"
    REJECT = "reject"
    ACCEPT = "accept"

    @property
    def event(self) -> EventKind:
        return _ACTION_EVENTS[self]


_ACTION_EVENTS = {
    ReviewAction.REQUEST_MORE_INFO: EventKind.MORE_INFO_REQUESTED,
    ReviewAction.REJECT: EventKind.REJECTED,
    ReviewAction.ACCEPT: EventKind.ACCEPTED,
}


class ChallengeState(StrEnum):
    QUEUED = "queued"
    AWAITING_SUBMITTER = "awaiting_submitter"
    REJECTED = "rejected"
    ACCEPTED = "accepted"


_TRANSITIONS: dict[tuple[ChallengeState | None, EventKind], ChallengeState] = {
    (None, EventKind.SUBMITTED): ChallengeState.QUEUED,
    (ChallengeState.QUEUED, EventKind.MORE_INFO_REQUESTED): ChallengeState.AWAITING_SUBMITTER,
    (ChallengeState.AWAITING_SUBMITTER, EventKind.INFO_ADDED): ChallengeState.QUEUED,
    (ChallengeState.QUEUED, EventKind.REJECTED): ChallengeState.REJECTED,
    (ChallengeState.AWAITING_SUBMITTER, EventKind.REJECTED): ChallengeState.REJECTED,
    (ChallengeState.QUEUED, EventKind.ACCEPTED): ChallengeState.ACCEPTED,
    (ChallengeState.ACCEPTED, EventKind.USED_IN_RUN): ChallengeState.ACCEPTED,
}


def next_state(state: ChallengeState | None, event: EventKind) -> ChallengeState:
    try:
        return _TRANSITIONS[(state, event)]
    except KeyError:
        where = state.value if state is not None else "a challenge that does not exist yet"
        raise ChallengeError(f"{event.value} is not allowed on {where}") from None


def fold_state(events: Iterable[EventKind]) -> ChallengeState:
    state: ChallengeState | None = None
    for event in events:
        state = next_state(state, event)
    if state is None:
        raise ChallengeError("a challenge has at least its submission event")
    return state


def parse_submission(raw: object, limits: ChallengeLimits) -> ChallengeSubmission:
    """Validate a submission against the schema and the methodology's size limits."""
    try:
        submission = ChallengeSubmission.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()[:8]
        )
        raise ChallengeError(f"invalid challenge submission: {problems}") from exc
    if len(submission.evidence) > limits.max_evidence_items:
        raise ChallengeError(
            f"a submission carries at most {limits.max_evidence_items} evidence items, "
            f"not {len(submission.evidence)}"
        )
    texts = [("reason", submission.reason)] + [
        (f"evidence.{i}.excerpt", e.excerpt) for i, e in enumerate(submission.evidence)
    ]
    for where, text in texts:
        if len(text) > limits.max_text_chars:
            raise ChallengeError(f"{where} is {len(text)} characters; the limit is {limits.max_text_chars}")
    return submission


@dataclass(frozen=True, slots=True)
class QueueEntry:
    challenge_id: str
    run_id: int
    state: ChallengeState
    submitted_at: datetime
    votes: int


def review_order(entries: Sequence[QueueEntry]) -> list[QueueEntry]:
    """Queued challenges, most votes first, then the oldest, then by id. Votes touch nothing else."""
    queued = [e for e in entries if e.state is ChallengeState.QUEUED]
    return sorted(queued, key=lambda e: (-e.votes, e.submitted_at, e.challenge_id))


def rate_limited(previous: Sequence[datetime], now: datetime, limits: ChallengeLimits) -> bool:
    """Whether one more submission now would exceed the submitter's allowance. The window is the
    ``window_hours`` before ``now``; a submission exactly that old has left it."""
    start = now - timedelta(hours=limits.window_hours)
    return sum(1 for moment in previous if moment > start) >= limits.max_per_submitter


@dataclass(frozen=True, slots=True)
class AcceptedChallenge:
    """An accepted challenge as a later run reads it: which claim it is about, and all its evidence (the
    submission's, then any added on request, in order). ``used_by`` lists the stored runs that read it."""

    challenge_id: str
    challenged_run_id: int
    ledger_id: str
    claim_id: str
    accepted_at: datetime
    evidence: tuple[SubmittedEvidence, ...]
    used_by: tuple[int, ...] = ()
