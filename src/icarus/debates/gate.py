"""The speaker gate at the database: detected claims withheld while voices are unnamed, released by names.

Live, while any voice heard so far is unnamed, every detected claim waits (``speakers``) and the backlog goes
out in order once all are named. A claim that depends on who said it (``DetectedClaim.needs_speaker``)
waits for its own speaker's name (``needs_speaker``), even when detection was told to skip the gate.
``speakers.release_backlog`` states the live rule on its own; this module applies it to stored claims.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Final

from sqlalchemy.orm import Session

from icarus.debates import repository as repo
from icarus.debates.model import DetectedClaim
from icarus.debates.panels import show_claim
from icarus.debates.speakers import unnamed_voices
from icarus.store.debate_tables import DebateRecord

__all__ = ["WITHHELD_NEEDS_SPEAKER", "WITHHELD_SPEAKERS", "release_withheld", "store_detected"]

WITHHELD_SPEAKERS: Final = "speakers"  # the live gate: a heard voice is still unnamed
WITHHELD_NEEDS_SPEAKER: Final = "needs_speaker"  # the claim depends on who said it, and they are unnamed


def store_detected(
    session: Session,
    row: DebateRecord,
    found: Sequence[DetectedClaim],
    now: datetime,
    *,
    live: bool,
) -> list[int]:
    """Persist detected claims, withholding what the speaker gate holds back; panels for the rest."""
    debate = repo.debate_row(row)
    gate = debate.settings.speaker_gate_enabled
    waiting = set(unnamed_voices(repo.heard_labels(session, row.id), debate.speakers))
    backlog = live and gate and not row.skip_speakers and (waiting or repo.withheld_claims(session, row.id))
    panels: list[int] = []
    for claim in found:
        unnamed = claim.speaker_label in waiting
        withheld = None
        if gate and claim.needs_speaker and unnamed:
            withheld = WITHHELD_NEEDS_SPEAKER
        elif backlog:
            withheld = WITHHELD_SPEAKERS
        record = repo.add_claim(session, row.id, claim, now, withheld=withheld)
        if withheld is None:
            panels += show_claim(session, record, debate, now)
    return panels


def release_withheld(
    session: Session,
    row: DebateRecord,
    names: Mapping[str, str],
    waiting: Sequence[str],
    now: datetime,
) -> list[int]:
    """Show the withheld claims the names now allow, oldest first; their panels' ids."""
    debate = repo.debate_row(row)
    everyone_named = not waiting or row.skip_speakers
    panels: list[int] = []
    for claim in repo.withheld_claims(session, row.id):
        if claim.withheld == WITHHELD_SPEAKERS and not everyone_named:
            break  # the backlog goes out in order, all together
        if claim.withheld == WITHHELD_NEEDS_SPEAKER and claim.speaker_label in waiting:
            continue
        claim.withheld, claim.released_at = None, now
        session.flush()
        panels += show_claim(session, claim, debate, now)
    return panels
