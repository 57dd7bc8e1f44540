"""What the debate pages read beside ``DebateService``: when each claim was said, and a rejected upload.

Both are reads of stored rows only. Callers check access first (through the service); these functions
take a debate id that the reader is already allowed to see.

``claim_moments``
    Where each claim sits in the debate. A claim detected in the transcript is placed by its first
    segment (``seq``, the order the transcript was received in) and said at that segment's ``start_s``
    (seconds from the start of the recording; unknown for a plain-text transcript). A claim added by hand
    has no segment: it is placed after the segments received before it was added, and carries the time it
    was added instead.
``upload_problems``
    The last transcript upload of each debate that was refused, when nothing was accepted after it: the
    debate pages show such a debate as failed, not as live.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from sqlalchemy import func, select

from icarus.store import Store
from icarus.store.debate_tables import DebateClaimRecord, DebateEventRecord, DebateSegmentRecord

__all__ = [
    "ACCEPTED_EVENT",
    "REJECTED_EVENT",
    "ClaimMoment",
    "UploadProblem",
    "claim_moments",
    "upload_problems",
]

REJECTED_EVENT: Final = "transcript_rejected"
"""The feed event ``DebateService.ingest_transcript`` records when a transcript cannot be read."""
ACCEPTED_EVENT: Final = "detection"
"""The event recorded when a transcript is stored or detection is asked for: it supersedes a refusal."""


@dataclass(frozen=True)
class ClaimMoment:
    claim_id: int
    order: float  # sort key: the first segment's seq, or (for a claim added by hand) just after the last
    said_at_s: float | None  # seconds into the recording, when the transcript carries timings
    added_at: datetime | None  # when a claim with no segment was added by hand


@dataclass(frozen=True)
class UploadProblem:
    message: str
    line: int | None
    at: datetime


def claim_moments(
    store: Store, debate_id: str, claim_ids: Iterable[int] | None = None
) -> dict[int, ClaimMoment]:
    """``claim_id`` → its moment, for the debate's claims (or only ``claim_ids``)."""
    with store.reading() as session:
        query = select(
            DebateClaimRecord.id, DebateClaimRecord.segment_ids_json, DebateClaimRecord.created_at
        ).where(DebateClaimRecord.debate_id == debate_id)
        if claim_ids is not None:
            query = query.where(DebateClaimRecord.id.in_(list(claim_ids)))
        claims = session.execute(query).all()
        wanted = {s for _id, ids_json, _at in claims for s in json.loads(ids_json)[:1]}
        segments: dict[str, tuple[int, float | None]] = {}
        if wanted:
            for segment_id, seq, start_s in session.execute(
                select(
                    DebateSegmentRecord.segment_id, DebateSegmentRecord.seq, DebateSegmentRecord.start_s
                ).where(
                    DebateSegmentRecord.debate_id == debate_id,
                    DebateSegmentRecord.segment_id.in_(sorted(wanted)),
                )
            ):
                segments[segment_id] = (seq, start_s)
        moments: dict[int, ClaimMoment] = {}
        for claim_id, ids_json, created_at in claims:
            first = next(iter(json.loads(ids_json)), None)
            if first is not None and first in segments:
                seq, start_s = segments[first]
                moments[claim_id] = ClaimMoment(claim_id, float(seq), start_s, None)
                continue
            before = session.scalar(
                select(func.max(DebateSegmentRecord.seq)).where(
                    DebateSegmentRecord.debate_id == debate_id, DebateSegmentRecord.received_at <= created_at
                )
            )
            moments[claim_id] = ClaimMoment(claim_id, (before or 0) + 0.5, None, created_at)
        return moments


def upload_problems(store: Store, debate_ids: Sequence[str]) -> dict[str, UploadProblem]:
    """``debate_id`` → its refused upload, for the debates whose latest upload event is a refusal."""
    if not debate_ids:
        return {}
    with store.reading() as session:
        latest = (
            select(DebateEventRecord.debate_id, func.max(DebateEventRecord.seq).label("seq"))
            .where(
                DebateEventRecord.debate_id.in_(list(debate_ids)),
                DebateEventRecord.kind.in_((REJECTED_EVENT, ACCEPTED_EVENT)),
            )
            .group_by(DebateEventRecord.debate_id)
            .subquery()
        )
        rows = session.scalars(
            select(DebateEventRecord).join(
                latest,
                (DebateEventRecord.debate_id == latest.c.debate_id) & (DebateEventRecord.seq == latest.c.seq),
            )
        ).all()
        problems = {}
        for row in rows:
            if row.kind != REJECTED_EVENT:
                continue
            data = json.loads(row.data_json)
            line = data.get("line")
            problems[row.debate_id] = UploadProblem(
                str(data.get("message", "")), line if isinstance(line, int) else None, row.at
            )
        return problems
