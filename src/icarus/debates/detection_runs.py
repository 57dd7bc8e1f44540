"""Detection runs: reading a debate's stored segments for claims, exactly once each.

A file's transcript is read by a worker that leases the debate's detection (``run_due_detection``), fenced
like a panel: a worker whose lease ran out cannot record a second run. Live segments are read as they come
(``detect_live``), up to the last one that ends a sentence or a turn, so a sentence split across captions
is read whole; what is left unread for a while is read anyway (``flush``). What the claims are is
``icarus.debates.detection``'s work; which are shown is the speaker gate's (``gate``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final

from sqlalchemy import and_, or_, update
from sqlalchemy.orm import Session

from icarus.debates import repository as repo
from icarus.debates.gate import store_detected
from icarus.debates.model import Segment
from icarus.debates.runtime import Clock, DebatePipeline, ServiceConfig
from icarus.debates.speakers import known_names, unnamed_voices
from icarus.store.debate_tables import DebateRecord, DetectionState
from icarus.store.repository import Store

__all__ = ["SENTENCE_ENDS", "complete_prefix", "detect_live", "detection_runnable", "run_due_detection"]

SENTENCE_ENDS: Final = (".", "!", "?", "…", '"', "”", "'", ")")


def run_due_detection(
    store: Store,
    clock: Clock,
    pipeline: DebatePipeline,
    config: ServiceConfig,
    debate_id: str,
    owner: str,
) -> tuple[str, list[int]]:
    """Run a requested detection over the stored transcript; fenced like a panel. Says what happened, with
    the panels the claims found were given."""
    now = clock()
    lease_until = now + config.detection_lease

    def take(session: Session) -> bool:
        result = session.execute(
            update(DebateRecord)
            .where(DebateRecord.id == debate_id, detection_runnable(now))
            .values(detection_state=DetectionState.RUNNING.value, detection_due_at=lease_until)
            .execution_options(synchronize_session=False)
        )
        return getattr(result, "rowcount", 0) == 1

    if not store.transaction(take):
        return "no detection due", []
    with store.reading() as session:
        debate = repo.debate_row(repo.debate_record(session, debate_id))
        pending = repo.segments(session, debate_id, undetected_only=True)
        names = known_names(repo.heard_labels(session, debate_id), debate.speakers)
    found = pipeline.detect(pending, names, as_of=debate.held_at.date()) if pending else []
    panels: list[int] = []

    def record(session: Session) -> bool:
        nonlocal panels
        row = repo.debate_record(session, debate_id, lock=True)
        if row.detection_state != DetectionState.RUNNING.value or row.detection_due_at != lease_until:
            return False  # our lease ran out and another worker took the run over
        repo.mark_detected(session, debate_id, [s.segment_id for s in pending])
        panels = store_detected(session, row, found, clock(), live=False)
        row.detection_state, row.detection_due_at = DetectionState.DONE.value, None
        repo.add_event(
            session, debate_id, "detection", {"state": row.detection_state, "claims": len(found)}, now
        )
        return True

    if not store.transaction(record):
        return "fenced: another worker finished this detection", []
    return f"{len(found)} claim(s) detected in {len(pending)} segment(s)", panels


def detect_live(
    store: Store, clock: Clock, pipeline: DebatePipeline, debate_id: str, *, flush: bool
) -> tuple[int, int, list[str], list[int]]:
    """Detect claims in the live segments not read yet, up to the last one that ends a sentence or a
    turn (``flush``: all of them). One transaction: segments are marked read together with the claims
    found in them, so none is read twice or lost. Returns (claims, withheld, speakers waiting, panels)."""
    now = clock()

    def work(session: Session) -> tuple[int, int, list[str], list[int]]:
        row = repo.debate_record(session, debate_id, lock=True)
        debate = repo.debate_row(row)
        heard = repo.heard_labels(session, debate_id)
        waiting = unnamed_voices(heard, debate.speakers)
        shown_waiting = waiting if debate.settings.speaker_gate_enabled else []
        pending = repo.segments(session, debate_id, undetected_only=True)
        ready = pending if flush else complete_prefix(pending)
        if not ready:
            return 0, 0, shown_waiting, []
        found = pipeline.detect(ready, known_names(heard, debate.speakers), as_of=debate.held_at.date())
        repo.mark_detected(session, debate_id, [s.segment_id for s in ready])
        before = len(repo.withheld_claims(session, debate_id))
        panels = store_detected(session, row, found, now, live=True)
        withheld = len(repo.withheld_claims(session, debate_id)) - before
        return len(found), withheld, shown_waiting, panels

    return store.transaction(work)


def complete_prefix(segments: Sequence[Segment]) -> list[Segment]:
    """The segments up to the last one that ends a sentence or whose speaker hands over to another."""
    end = 0
    for n, segment in enumerate(segments):
        handover = n + 1 < len(segments) and segments[n + 1].speaker_label != segment.speaker_label
        if handover or segment.text.rstrip().endswith(SENTENCE_ENDS):
            end = n + 1
    return list(segments[:end])


def detection_runnable(now: datetime) -> Any:
    """Where a debate's detection is due: requested and due, or running past its lease (its worker died)."""
    return or_(
        and_(
            DebateRecord.detection_state == DetectionState.REQUESTED.value,
            DebateRecord.detection_due_at <= now,
        ),
        and_(
            DebateRecord.detection_state == DetectionState.RUNNING.value, DebateRecord.detection_due_at < now
        ),
    )
