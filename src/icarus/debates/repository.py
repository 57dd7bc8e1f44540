"""The debate store: rows in, views out, every function one step inside a caller's transaction.

The service composes these in ``Store.transaction`` so that what belongs together (a panel's answer, the
claim's new verdict, the escalated panel it calls for and the events that announce them) is written at
once or not at all. Nothing here decides policy; the service's steps (``ingest``, ``panels``, ``answers``
and the rest) do.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.orm import Session

from icarus.debates.errors import ClaimNotFound, DebateNotFound, PanelNotFound
from icarus.debates.model import (
    ClaimVerdict,
    DebateSettings,
    DetectedClaim,
    Panel,
    ResearchDelay,
    ResearchMode,
    Segment,
    StoredPanel,
    Verdict,
)
from icarus.store.debate_tables import (
    ClaimVerdictRecord,
    DebateClaimRecord,
    DebateEventRecord,
    DebateMode,
    DebatePanelRecord,
    DebateRecord,
    DebateSegmentRecord,
    DetectionState,
    PanelState,
    WinnerSelectionRecord,
    WinnerState,
)

__all__ = [
    "TEXT_KEY_CHARS",
    "ClaimRow",
    "DebateEvent",
    "DebateRow",
    "Lease",
    "PanelRow",
    "add_claim",
    "add_event",
    "add_panel",
    "add_segments",
    "claim_row",
    "claim_rows",
    "claim_verdict",
    "current_winner",
    "debate_row",
    "events_after",
    "heard_labels",
    "lease_panel",
    "new_debate_id",
    "panel_row",
    "panel_rows",
    "runnable_panel_ids",
    "segments",
    "store_claim_verdict",
    "stored_panel",
    "text_key",
]

TEXT_KEY_CHARS: Final = 512
_SPACES: Final = re.compile(r"\s+")
_PENDING_CONFIDENCE: Final = 0.0


def new_debate_id() -> str:
    return uuid.uuid4().hex


def text_key(text: str) -> str:
    """What makes two claim texts the same claim: case, spacing and end punctuation aside."""
    return _SPACES.sub(" ", text).strip().rstrip(".!?…").casefold()[:TEXT_KEY_CHARS]


# --- views -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DebateRow:
    id: str
    organisation_id: int | None
    created_by: int | None
    title: str
    settings: DebateSettings
    speakers: dict[str, str]
    mode: DebateMode
    detection_state: DetectionState
    skip_speakers: bool
    held_at: datetime  # when the debate took place: the date its claims are read as of
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class ClaimRow:
    id: int
    debate_id: str
    text: str
    speaker_label: str | None
    segment_ids: list[str]
    checkworthiness: float
    claim_type: str
    manually_added: bool
    withheld: str | None
    created_by: int | None
    created_at: datetime
    released_at: datetime | None


@dataclass(frozen=True)
class PanelRow:
    id: int
    claim_id: int
    debate_id: str
    research_mode: ResearchMode
    state: PanelState
    manual: bool
    escalated: bool
    strong_language: bool
    attempts: int
    search_failures: int
    next_attempt_at: datetime | None
    research_delay_reason: ResearchDelay | None
    panel: Panel | None
    fingerprint: str | None
    corrected_verdict: Verdict | None
    cost: float
    billed_token_id: int | None
    billed_organisation_id: int | None
    error: str | None
    created_at: datetime
    finished_at: datetime | None

    @property
    def verdict(self) -> Verdict:
        return (
            self.panel.verdict
            if self.panel is not None and self.state is PanelState.DONE
            else Verdict.PENDING
        )


@dataclass(frozen=True)
class Lease:
    """A worker's hold on a panel: the completion write must name both to land."""

    panel_id: int
    owner: str
    attempt: int


@dataclass(frozen=True)
class DebateEvent:
    """One live-feed event; ``id`` increases by one per debate, in commit order."""

    id: int
    debate_id: str
    kind: str
    data: dict[str, Any]
    at: datetime


# --- debates -----------------------------------------------------------------------------------------


def debate_record(session: Session, debate_id: str, *, lock: bool = False) -> DebateRecord:
    query = select(DebateRecord).where(DebateRecord.id == debate_id)
    if lock:
        query = query.with_for_update()
    row = session.scalars(query).first()
    if row is None:
        raise DebateNotFound(debate_id)
    return row


def debate_row(row: DebateRecord) -> DebateRow:
    return DebateRow(
        id=row.id,
        organisation_id=row.organisation_id,
        created_by=row.created_by,
        title=row.title,
        settings=DebateSettings.model_validate_json(row.settings_json),
        speakers=json.loads(row.speakers_json),
        mode=DebateMode(row.mode),
        detection_state=DetectionState(row.detection_state),
        skip_speakers=row.skip_speakers,
        held_at=row.held_at or row.created_at,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


# --- segments ----------------------------------------------------------------------------------------


def add_segments(
    session: Session, debate_id: str, batch: Sequence[Segment], now: datetime
) -> tuple[list[Segment], int]:
    """Store the segments not stored yet (by segment id); returns them in order and the duplicate count."""
    wanted = list({s.segment_id: s for s in reversed(batch)}.values())[::-1]  # first copy of an id wins
    ids = [s.segment_id for s in wanted]
    known: set[str] = set()
    for chunk in _chunks(ids, 500):
        known.update(
            session.scalars(
                select(DebateSegmentRecord.segment_id).where(
                    DebateSegmentRecord.debate_id == debate_id, DebateSegmentRecord.segment_id.in_(chunk)
                )
            )
        )
    fresh = [s for s in wanted if s.segment_id not in known]
    last = session.scalar(
        select(func.max(DebateSegmentRecord.seq)).where(DebateSegmentRecord.debate_id == debate_id)
    )
    seq = last or 0
    for segment in fresh:
        seq += 1
        session.add(
            DebateSegmentRecord(
                debate_id=debate_id,
                segment_id=segment.segment_id,
                seq=seq,
                speaker_label=segment.speaker_label,
                start_s=segment.start_s,
                end_s=segment.end_s,
                text=segment.text,
                detected=False,
                received_at=now,
            )
        )
    session.flush()  # a concurrent sender of the same segment surfaces here; the retry then skips it
    return fresh, len(batch) - len(fresh)


def segments(session: Session, debate_id: str, *, undetected_only: bool = False) -> list[Segment]:
    query = select(DebateSegmentRecord).where(DebateSegmentRecord.debate_id == debate_id)
    if undetected_only:
        query = query.where(DebateSegmentRecord.detected.is_(False))
    rows = session.scalars(query.order_by(DebateSegmentRecord.seq, DebateSegmentRecord.id)).all()
    return [
        Segment(
            segment_id=r.segment_id,
            speaker_label=r.speaker_label,
            start_s=r.start_s,
            end_s=r.end_s,
            text=r.text,
        )
        for r in rows
    ]


def mark_detected(session: Session, debate_id: str, segment_ids: Sequence[str]) -> int:
    """Mark segments as read by detection; returns how many were not marked yet (0: someone else did)."""
    marked = 0
    for chunk in _chunks(list(segment_ids), 500):
        result = session.execute(
            update(DebateSegmentRecord)
            .where(
                DebateSegmentRecord.debate_id == debate_id,
                DebateSegmentRecord.segment_id.in_(chunk),
                DebateSegmentRecord.detected.is_(False),
            )
            .values(detected=True)
            .execution_options(synchronize_session=False)
        )
        marked += int(getattr(result, "rowcount", 0) or 0)
    return marked


def heard_labels(session: Session, debate_id: str) -> list[str]:
    """Every diarization label heard in the debate, in first-heard order."""
    rows = session.execute(
        select(DebateSegmentRecord.speaker_label, func.min(DebateSegmentRecord.seq))
        .where(DebateSegmentRecord.debate_id == debate_id, DebateSegmentRecord.speaker_label.is_not(None))
        .group_by(DebateSegmentRecord.speaker_label)
    ).all()
    return [label for label, _ in sorted(rows, key=lambda r: r[1]) if label is not None]


def segment_count(session: Session, debate_id: str) -> int:
    return int(
        session.scalar(
            select(func.count())
            .select_from(DebateSegmentRecord)
            .where(DebateSegmentRecord.debate_id == debate_id)
        )
        or 0
    )


def live_debates_with_undetected(session: Session, before: datetime) -> list[str]:
    """Live debates holding segments detection has not read though they arrived before ``before``."""
    rows = session.scalars(
        select(DebateSegmentRecord.debate_id)
        .join(DebateRecord, DebateRecord.id == DebateSegmentRecord.debate_id)
        .where(
            DebateRecord.mode == DebateMode.LIVE.value,
            DebateSegmentRecord.detected.is_(False),
            DebateSegmentRecord.received_at < before,
        )
        .distinct()
    ).all()
    return list(rows)


# --- claims ------------------------------------------------------------------------------------------


def add_claim(
    session: Session,
    debate_id: str,
    claim: DetectedClaim,
    now: datetime,
    *,
    withheld: str | None,
    manually_added: bool = False,
    created_by: int | None = None,
) -> DebateClaimRecord:
    row = DebateClaimRecord(
        debate_id=debate_id,
        text=claim.text,
        text_key=text_key(claim.text),
        speaker_label=claim.speaker_label,
        segment_ids_json=json.dumps(claim.segment_ids),
        checkworthiness=claim.checkworthiness,
        claim_type=claim.claim_type[:32],
        manually_added=manually_added,
        withheld=withheld,
        created_by=created_by,
        created_at=now,
        released_at=None if withheld else now,
    )
    session.add(row)
    session.flush()
    return row


def claim_row(row: DebateClaimRecord) -> ClaimRow:
    return ClaimRow(
        id=row.id,
        debate_id=row.debate_id,
        text=row.text,
        speaker_label=row.speaker_label,
        segment_ids=json.loads(row.segment_ids_json),
        checkworthiness=row.checkworthiness,
        claim_type=row.claim_type,
        manually_added=row.manually_added,
        withheld=row.withheld,
        created_by=row.created_by,
        created_at=row.created_at,
        released_at=row.released_at,
    )


def claim_record(session: Session, claim_id: int, debate_id: str | None = None) -> DebateClaimRecord:
    row = session.get(DebateClaimRecord, claim_id) if 0 < claim_id <= 2**31 - 1 else None
    if row is None or (debate_id is not None and row.debate_id != debate_id):
        raise ClaimNotFound(claim_id, debate_id)
    return row


def claim_rows(session: Session, debate_id: str, *, released_only: bool = True) -> list[DebateClaimRecord]:
    query = select(DebateClaimRecord).where(DebateClaimRecord.debate_id == debate_id)
    if released_only:
        query = query.where(DebateClaimRecord.withheld.is_(None))
    return list(session.scalars(query.order_by(DebateClaimRecord.id)).all())


def withheld_claims(session: Session, debate_id: str) -> list[DebateClaimRecord]:
    return list(
        session.scalars(
            select(DebateClaimRecord)
            .where(DebateClaimRecord.debate_id == debate_id, DebateClaimRecord.withheld.is_not(None))
            .order_by(DebateClaimRecord.id)
        ).all()
    )


def find_claim(session: Session, debate_id: str, text: str) -> DebateClaimRecord | None:
    """The shown claim of this debate with the same text, the oldest if several."""
    return session.scalars(
        select(DebateClaimRecord)
        .where(
            DebateClaimRecord.debate_id == debate_id,
            DebateClaimRecord.text_key == text_key(text),
            DebateClaimRecord.withheld.is_(None),
        )
        .order_by(DebateClaimRecord.id)
        .limit(1)
    ).first()


# --- panels ------------------------------------------------------------------------------------------


def add_panel(
    session: Session,
    claim: DebateClaimRecord,
    mode: ResearchMode,
    now: datetime,
    *,
    manual: bool = False,
    escalated: bool = False,
    strong_language: bool = False,
    billed_token_id: int | None = None,
    billed_organisation_id: int | None = None,
) -> DebatePanelRecord:
    row = DebatePanelRecord(
        claim_id=claim.id,
        debate_id=claim.debate_id,
        research_mode=mode.value,
        state=PanelState.PENDING.value,
        manual=manual,
        escalated=escalated,
        strong_language=strong_language,
        attempts=0,
        search_failures=0,
        next_attempt_at=now,
        cost=0.0,
        billed_token_id=billed_token_id,
        billed_organisation_id=billed_organisation_id,
        created_at=now,
    )
    session.add(row)
    session.flush()
    return row


def panel_record(session: Session, panel_id: int) -> DebatePanelRecord:
    row = session.get(DebatePanelRecord, panel_id) if 0 < panel_id <= 2**31 - 1 else None
    if row is None:
        raise PanelNotFound(panel_id)
    return row


def panel_rows(session: Session, claim_id: int) -> list[DebatePanelRecord]:
    return list(
        session.scalars(
            select(DebatePanelRecord)
            .where(DebatePanelRecord.claim_id == claim_id)
            .order_by(DebatePanelRecord.id)
        ).all()
    )


def panel_row(row: DebatePanelRecord) -> PanelRow:
    return PanelRow(
        id=row.id,
        claim_id=row.claim_id,
        debate_id=row.debate_id,
        research_mode=ResearchMode(row.research_mode),
        state=PanelState(row.state),
        manual=row.manual,
        escalated=row.escalated,
        strong_language=row.strong_language,
        attempts=row.attempts,
        search_failures=row.search_failures,
        next_attempt_at=row.next_attempt_at,
        research_delay_reason=ResearchDelay(row.research_delay_reason) if row.research_delay_reason else None,
        panel=Panel.model_validate_json(row.panel_json) if row.panel_json else None,
        fingerprint=row.fingerprint,
        corrected_verdict=Verdict(row.corrected_verdict) if row.corrected_verdict else None,
        cost=row.cost,
        billed_token_id=row.billed_token_id,
        billed_organisation_id=row.billed_organisation_id,
        error=row.error,
        created_at=row.created_at,
        finished_at=row.finished_at,
    )


def stored_panel(row: PanelRow) -> StoredPanel:
    """A panel as the elector sees it; one not answered yet stands as PENDING."""
    panel = row.panel if row.panel is not None and row.state is PanelState.DONE else None
    if panel is None:
        panel = Panel(
            research_mode=row.research_mode,
            verdict=Verdict.PENDING,
            confidence=_PENDING_CONFIDENCE,
            research_delay_reason=row.research_delay_reason,
        )
    return StoredPanel(
        panel_id=row.id,
        panel=panel,
        manual=row.manual,
        escalated=row.escalated,
        fingerprint=row.fingerprint or "",
    )


def runnable_panel_ids(
    session: Session, now: datetime, limit: int = 100, *, queued_grace: timedelta | None = None
) -> list[int]:
    """Panels due for an attempt: pending and due, or running under a lease that has run out.

    ``queued_grace``: leave out panels never attempted that became due less than this long ago; their
    first message is presumably still in the queue (the dispatcher hands out only the ones it lost)."""
    runnable = _panel_runnable(now)
    if queued_grace is not None:
        runnable = and_(
            runnable,
            or_(
                DebatePanelRecord.attempts > 0,
                DebatePanelRecord.state == PanelState.RUNNING.value,
                DebatePanelRecord.next_attempt_at <= now - queued_grace,
            ),
        )
    rows = session.scalars(
        select(DebatePanelRecord.id)
        .where(runnable)
        .order_by(DebatePanelRecord.next_attempt_at, DebatePanelRecord.id)
        .limit(limit)
    ).all()
    return list(rows)


def lease_panel(session: Session, panel_id: int, owner: str, now: datetime, lease: timedelta) -> Lease | None:
    """Take a runnable panel for ``owner``; None when it is not due, done or held. One conditional UPDATE
    decides, so two workers racing for it cannot both win."""
    result = session.execute(
        update(DebatePanelRecord)
        .where(DebatePanelRecord.id == panel_id, _panel_runnable(now))
        .values(
            state=PanelState.RUNNING.value,
            lease_owner=owner,
            lease_until=now + lease,
            attempts=DebatePanelRecord.attempts + 1,
        )
        .execution_options(synchronize_session=False)
    )
    if getattr(result, "rowcount", 0) != 1:
        return None
    attempt = session.scalar(select(DebatePanelRecord.attempts).where(DebatePanelRecord.id == panel_id))
    return Lease(panel_id, owner, int(attempt or 0))


def held_panel(session: Session, lease: Lease) -> DebatePanelRecord | None:
    """The panel if ``lease`` still holds it (locked for the write), else None: the fence."""
    return session.scalars(
        select(DebatePanelRecord)
        .where(
            DebatePanelRecord.id == lease.panel_id,
            DebatePanelRecord.state == PanelState.RUNNING.value,
            DebatePanelRecord.lease_owner == lease.owner,
            DebatePanelRecord.attempts == lease.attempt,
        )
        .with_for_update()
    ).first()


def _panel_runnable(now: datetime) -> Any:
    return or_(
        and_(DebatePanelRecord.state == PanelState.PENDING.value, DebatePanelRecord.next_attempt_at <= now),
        and_(DebatePanelRecord.state == PanelState.RUNNING.value, DebatePanelRecord.lease_until < now),
    )


# --- claim verdicts and winners ------------------------------------------------------------------------


def claim_verdict(session: Session, claim_id: int) -> ClaimVerdict | None:
    row = session.get(ClaimVerdictRecord, claim_id)
    if row is None or row.verdict_json is None:
        return None
    return ClaimVerdict.model_validate_json(row.verdict_json)


def claim_verdicts(session: Session, claim_ids: Sequence[int]) -> dict[int, ClaimVerdict]:
    found: dict[int, ClaimVerdict] = {}
    for chunk in _chunks(list(claim_ids), 500):
        for row in session.scalars(select(ClaimVerdictRecord).where(ClaimVerdictRecord.claim_id.in_(chunk))):
            if row.verdict_json is not None:
                found[row.claim_id] = ClaimVerdict.model_validate_json(row.verdict_json)
    return found


def store_claim_verdict(session: Session, claim_id: int, verdict: ClaimVerdict | None, now: datetime) -> bool:
    """Keep ``verdict`` as the claim's answer (the old one joins the history); False when unchanged."""
    text = verdict.model_dump_json() if verdict is not None else None
    row = session.get(ClaimVerdictRecord, claim_id)
    if row is None:
        if text is None:
            return False
        session.add(
            ClaimVerdictRecord(claim_id=claim_id, verdict_json=text, history_json="[]", updated_at=now)
        )
        session.flush()
        return True
    if row.verdict_json == text:
        return False
    if row.verdict_json is not None:
        history = json.loads(row.history_json)
        history.append({"replaced_at": now.isoformat(), "claim_verdict": json.loads(row.verdict_json)})
        row.history_json = json.dumps(history)
    row.verdict_json, row.updated_at = text, now
    return True


def current_winner(session: Session, claim_id: int) -> int | None:
    return session.scalars(
        select(WinnerSelectionRecord.panel_id)
        .where(
            WinnerSelectionRecord.claim_id == claim_id,
            WinnerSelectionRecord.state == WinnerState.CURRENT.value,
        )
        .order_by(WinnerSelectionRecord.id.desc())
        .limit(1)
    ).first()


def winner_rows(session: Session, claim_id: int) -> list[WinnerSelectionRecord]:
    return list(
        session.scalars(
            select(WinnerSelectionRecord)
            .where(WinnerSelectionRecord.claim_id == claim_id)
            .order_by(WinnerSelectionRecord.id)
        ).all()
    )


# --- events ------------------------------------------------------------------------------------------


def add_event(session: Session, debate_id: str, kind: str, data: Mapping[str, Any], now: datetime) -> int:
    """Append an event with the debate's next number, so numbers follow commit order. On PostgreSQL the
    debate row is locked first: a second writer waits and then reads the first one's number. (Should two
    writers still pick the same number, the unique pair refuses the later and its transaction is retried.)
    SQLite writers are serial already."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(select(DebateRecord.id).where(DebateRecord.id == debate_id).with_for_update())
    last = session.scalar(
        select(func.max(DebateEventRecord.seq)).where(DebateEventRecord.debate_id == debate_id)
    )
    seq = (last or 0) + 1
    session.add(
        DebateEventRecord(
            debate_id=debate_id, seq=seq, kind=kind, data_json=json.dumps(data, default=str), at=now
        )
    )
    session.flush()
    return seq


def last_event_id(session: Session, debate_id: str) -> int:
    """The newest event id of the debate's feed; 0 when it has none."""
    found = session.scalar(
        select(func.max(DebateEventRecord.seq)).where(DebateEventRecord.debate_id == debate_id)
    )
    return int(found or 0)


def events_after(session: Session, debate_id: str, last_id: int, limit: int) -> list[DebateEvent]:
    rows = session.scalars(
        select(DebateEventRecord)
        .where(DebateEventRecord.debate_id == debate_id, DebateEventRecord.seq > last_id)
        .order_by(DebateEventRecord.seq)
        .limit(limit)
    ).all()
    return [DebateEvent(r.seq, r.debate_id, r.kind, json.loads(r.data_json), r.at) for r in rows]


def _chunks(items: Sequence[Any], size: int) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
