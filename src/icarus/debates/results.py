"""What the debate service answers and announces: the views it returns and the payloads of its events.

The views are plain frozen dataclasses, built from stored rows; the API, the pages and the CLI render them.
The event payloads (``claim_event``, ``panel_event``) are what the live feed carries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from icarus.debates import repository as repo
from icarus.debates.model import ClaimVerdict, DebateSettings, Panel, ResearchDelay, ResearchMode, Verdict
from icarus.debates.speakers import known_names, speaker_display_name, unnamed_voices
from icarus.store.debate_tables import (
    DebateClaimRecord,
    DebateMode,
    DebatePanelRecord,
    DebateRecord,
    DetectionState,
    PanelState,
)

__all__ = [
    "ClaimResults",
    "ClaimSubmitted",
    "ClaimSummary",
    "DebateView",
    "DetectionStarted",
    "FeedbackRecorded",
    "IngestResult",
    "PanelView",
    "SegmentsAccepted",
    "claim_event",
    "claim_summary",
    "debate_view",
    "dump_verdict",
    "panel_event",
    "panel_view",
]


@dataclass(frozen=True)
class DebateView:
    id: str
    title: str
    organisation_id: int | None
    settings: DebateSettings
    speakers: dict[str, str]
    speakers_heard: list[str]
    speakers_waiting: list[str]
    mode: DebateMode
    detection_state: DetectionState
    segment_count: int
    claim_count: int
    held_at: datetime
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class SegmentsAccepted:
    debate_id: str
    accepted: int
    duplicates: int
    claims_detected: int
    claims_withheld: int
    speakers_waiting: list[str]


@dataclass(frozen=True)
class IngestResult:
    debate_id: str
    segments: int
    accepted: int
    duplicates: int
    detection: DetectionState
    speakers_waiting: list[str]


@dataclass(frozen=True)
class DetectionStarted:
    debate_id: str
    detection: DetectionState
    unnamed_speakers: list[str]


@dataclass(frozen=True)
class ClaimSubmitted:
    claim_id: int
    debate_id: str
    created: bool
    panel_ids: list[int]
    research_modes: list[ResearchMode]
    already_researched: list[ResearchMode]


@dataclass(frozen=True)
class PanelView:
    panel_id: int
    claim_id: int
    research_mode: ResearchMode
    state: PanelState
    verdict: Verdict
    panel: Panel | None
    manual: bool
    escalated: bool
    strong_language: bool
    research_delay_reason: ResearchDelay | None
    next_attempt_at: datetime | None
    attempts: int
    cost: float
    corrected_verdict: Verdict | None
    created_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True)
class ClaimSummary:
    claim_id: int
    debate_id: str
    text: str
    speaker_label: str | None
    speaker_name: str | None
    checkworthiness: float
    claim_type: str
    manually_added: bool
    segment_ids: list[str]
    created_at: datetime
    claim_verdict: ClaimVerdict | None
    research_modes: list[ResearchMode]
    panels_done: int
    panels_pending: int
    research_cost: float = 0.0


@dataclass(frozen=True)
class ClaimResults:
    claim_id: int
    debate_id: str
    text: str
    claim_verdict: ClaimVerdict | None
    panels: list[PanelView]
    operator_winner_panel_id: int | None
    conflict: bool = False
    speaker_label: str | None = None
    speaker_name: str | None = None
    manually_added: bool = False

    @property
    def best(self) -> ClaimVerdict | None:
        """A compatibility alias of ``claim_verdict``."""
        return self.claim_verdict


@dataclass(frozen=True)
class FeedbackRecorded:
    feedback_id: int
    kind: str


def debate_view(session: Session, row: DebateRecord) -> DebateView:
    debate = repo.debate_row(row)
    heard = repo.heard_labels(session, row.id)
    return DebateView(
        id=row.id,
        title=row.title,
        organisation_id=row.organisation_id,
        settings=debate.settings,
        speakers=debate.speakers,
        speakers_heard=heard,
        speakers_waiting=unnamed_voices(heard, debate.speakers),
        mode=debate.mode,
        detection_state=debate.detection_state,
        segment_count=repo.segment_count(session, row.id),
        claim_count=len(repo.claim_rows(session, row.id)),
        held_at=debate.held_at,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def panel_view(row: repo.PanelRow) -> PanelView:
    return PanelView(
        panel_id=row.id,
        claim_id=row.claim_id,
        research_mode=row.research_mode,
        state=row.state,
        verdict=row.verdict,
        panel=row.panel,
        manual=row.manual,
        escalated=row.escalated,
        strong_language=row.strong_language,
        research_delay_reason=row.research_delay_reason,
        next_attempt_at=row.next_attempt_at if row.state is not PanelState.DONE else None,
        attempts=row.attempts,
        cost=row.cost,
        corrected_verdict=row.corrected_verdict,
        created_at=row.created_at,
        finished_at=row.finished_at,
    )


def claim_summary(
    claim: DebateClaimRecord,
    debate: repo.DebateRow,
    heard: Sequence[str],
    verdict: ClaimVerdict | None,
    panels: Sequence[DebatePanelRecord],
) -> ClaimSummary:
    done = sum(1 for p in panels if p.state == PanelState.DONE.value)
    return ClaimSummary(
        claim_id=claim.id,
        debate_id=claim.debate_id,
        text=claim.text,
        speaker_label=claim.speaker_label,
        speaker_name=speaker_display_name(claim.speaker_label, heard, known_names(heard, debate.speakers)),
        checkworthiness=claim.checkworthiness,
        claim_type=claim.claim_type,
        manually_added=claim.manually_added,
        segment_ids=repo.claim_row(claim).segment_ids,
        created_at=claim.created_at,
        claim_verdict=verdict,
        research_modes=list(dict.fromkeys(ResearchMode(p.research_mode) for p in panels)),
        panels_done=done,
        panels_pending=len(panels) - done,
        research_cost=round(sum(p.cost for p in panels), 6),
    )


def claim_event(session: Session, claim: DebateClaimRecord, debate: repo.DebateRow) -> dict[str, Any]:
    """The ``claim`` event: a claim is shown."""
    heard = repo.heard_labels(session, claim.debate_id)
    return {
        "claim_id": claim.id,
        "text": claim.text,
        "speaker_label": claim.speaker_label,
        "speaker_name": speaker_display_name(claim.speaker_label, heard, known_names(heard, debate.speakers)),
        "checkworthiness": claim.checkworthiness,
        "manually_added": claim.manually_added,
    }


def panel_event(session: Session, panel: DebatePanelRecord) -> dict[str, Any]:
    """The ``panel`` event: a panel was queued, delayed or answered, with the claim's answer as it stands."""
    view = panel_view(repo.panel_row(panel))
    return {
        "claim_id": panel.claim_id,
        "panel": _panel_dict(view),
        "claim_verdict": dump_verdict(repo.claim_verdict(session, panel.claim_id)),
    }


def _panel_dict(view: PanelView) -> dict[str, Any]:
    body: dict[str, Any] = view.panel.model_dump(mode="json") if view.panel is not None else {}
    body.update(
        panel_id=view.panel_id,
        research_mode=view.research_mode.value,
        verdict=view.verdict.value,
        state=view.state.value,
        manual=view.manual,
        escalated=view.escalated,
        strong_language=view.strong_language,
        research_delay_reason=view.research_delay_reason.value if view.research_delay_reason else None,
    )
    body.setdefault("confidence", 0.0)
    return body


def dump_verdict(verdict: ClaimVerdict | None) -> dict[str, Any] | None:
    return verdict.model_dump(mode="json") if verdict is not None else None
