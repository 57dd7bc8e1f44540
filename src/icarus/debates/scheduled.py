"""What is due now: the look-ups behind the periodic ``dispatch_due`` and the in-thread ``run_due``.

The database holds the schedule; a lost queue message or a dead worker only delays work until one of these
finds it again.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from icarus.debates import repository as repo
from icarus.debates.detection_runs import detection_runnable
from icarus.debates.speakers import unnamed_voices
from icarus.store.debate_tables import DebateRecord, DetectionState
from icarus.store.repository import Store

__all__ = ["MAX_PANELS_PER_ROUND", "due_detections", "due_leftovers_and_panels", "runnable_now"]

MAX_PANELS_PER_ROUND: Final = 1000


def due_detections(store: Store, now: datetime) -> list[str]:
    """Request the deferred detections whose voices are now all named; every debate whose detection is due
    (requested, or abandoned by a worker whose lease ran out)."""

    def promote(session: Session) -> list[str]:
        deferred = session.scalars(
            select(DebateRecord).where(DebateRecord.detection_state == DetectionState.DEFERRED.value)
        ).all()
        for row in deferred:
            names = repo.debate_row(row).speakers
            if not unnamed_voices(repo.heard_labels(session, row.id), names):
                row.detection_state, row.detection_due_at = DetectionState.REQUESTED.value, now
        session.flush()
        return list(session.scalars(select(DebateRecord.id).where(detection_runnable(now))).all())

    return store.transaction(promote)


def due_leftovers_and_panels(
    store: Store, now: datetime, live_grace: timedelta, queued_grace: timedelta | None
) -> tuple[list[str], list[int]]:
    """Live debates with segments unread for ``live_grace``, and the due panels (new, retried, or whose
    worker died; a new one only once its first queue message had ``queued_grace``, when given)."""
    with store.reading() as session:
        stale = repo.live_debates_with_undetected(session, now - live_grace)
        panels = repo.runnable_panel_ids(session, now, limit=MAX_PANELS_PER_ROUND, queued_grace=queued_grace)
    return list(stale), list(panels)


def runnable_now(store: Store, now: datetime) -> tuple[list[str], list[int]]:
    """The debates whose detection is due and the panels due, for a round run in this thread."""
    with store.reading() as session:
        detections = list(session.scalars(select(DebateRecord.id).where(detection_runnable(now))).all())
        panels = repo.runnable_panel_ids(session, now, limit=MAX_PANELS_PER_ROUND)
    return detections, list(panels)
