"""Ingest: what a debate is made of, as it arrives. Live segments, a whole transcript, and the speaker map.

Live segments are stored and read for claims at once (``detection_runs.detect_live``). A transcript is
stored whole and its detection requested, or deferred by the speaker gate until every voice is named
(``start_detection`` starts it anyway, or naming the last voice does). Each step returns what it answers
and the work it made (a ``FollowUp``) for the service to hand out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlalchemy.orm import Session

from icarus.debates import repository as repo
from icarus.debates.access import Caller
from icarus.debates.debate import stored_json
from icarus.debates.detection_runs import detect_live
from icarus.debates.errors import InvalidChange, SpeakersWaiting, UnknownSpeaker
from icarus.debates.gate import release_withheld
from icarus.debates.model import Segment
from icarus.debates.page_reads import REJECTED_EVENT
from icarus.debates.results import (
    DebateView,
    DetectionStarted,
    IngestResult,
    SegmentsAccepted,
    debate_view,
)
from icarus.debates.runtime import Clock, DebatePipeline, FollowUp
from icarus.debates.speakers import InvalidSpeakerName, unnamed_voices, validate_speaker_map
from icarus.debates.speakers import UnknownSpeaker as UnheardLabel
from icarus.debates.visibility import visible_debate
from icarus.store.debate_tables import DebateMode, DetectionState
from icarus.store.repository import Store
from icarus.store.tokens import Role

__all__ = ["add_segments", "ingest_transcript", "set_speaker_map", "start_detection"]


def set_speaker_map(
    store: Store, clock: Clock, caller: Caller, debate_id: str, mapping: Mapping[str, str]
) -> tuple[DebateView, FollowUp]:
    """Name diarization labels. Names merge into the map; a label never heard is refused. Naming the last
    unnamed voice releases the withheld claims in order and requests deferred detection."""
    caller.require(Role.API, "naming speakers")
    now = clock()
    released: list[int] = []
    start = False

    def work(session: Session) -> DebateView:
        nonlocal released, start
        row = visible_debate(session, caller, debate_id, lock=True)
        heard = repo.heard_labels(session, debate_id)
        try:
            cleaned = validate_speaker_map(mapping, heard)
        except UnheardLabel as exc:
            raise UnknownSpeaker(exc.labels) from exc
        except InvalidSpeakerName as exc:
            raise InvalidChange(str(exc)) from exc
        names = {**repo.debate_row(row).speakers, **cleaned}
        row.speakers_json = stored_json(names)
        row.updated_at = now
        waiting = unnamed_voices(heard, names)
        repo.add_event(session, debate_id, "speakers", {"speakers": names, "speakers_waiting": waiting}, now)
        released = release_withheld(session, row, names, waiting, now)
        if row.detection_state == DetectionState.DEFERRED.value and not waiting:
            row.detection_state, row.detection_due_at = DetectionState.REQUESTED.value, now
            start = True
        return debate_view(session, row)

    view = store.transaction(work)
    return view, FollowUp.of(released, debate_id if start else None)


def add_segments(
    store: Store,
    clock: Clock,
    pipeline: DebatePipeline,
    caller: Caller,
    debate_id: str,
    batch: Sequence[Segment],
) -> tuple[SegmentsAccepted, FollowUp]:
    """Store a live batch (a segment id already stored is skipped) and detect claims in what is new.

    A segment that stops mid-sentence waits for the next one of its speaker, so a sentence split across
    captions is read whole. Under the speaker gate the detected claims are withheld while any voice
    heard so far is unnamed. A batch sent to a debate made from a file joins its transcript instead."""
    caller.require(Role.API, "sending segments")
    now = clock()

    def store_batch(session: Session) -> tuple[int, int, bool]:
        row = visible_debate(session, caller, debate_id)
        fresh, duplicates = repo.add_segments(session, debate_id, batch, now)
        from_file = row.mode == DebateMode.FILE.value
        if from_file and fresh and row.detection_state != DetectionState.DEFERRED.value:
            row.detection_state, row.detection_due_at = DetectionState.REQUESTED.value, now
        return len(fresh), duplicates, from_file

    accepted, duplicates, from_file = store.transaction(store_batch)
    if from_file:
        # Detection does not change who was heard or named, so the voices waited for are read before it.
        with store.reading() as session:
            row = visible_debate(session, caller, debate_id)
            waiting = unnamed_voices(repo.heard_labels(session, debate_id), repo.debate_row(row).speakers)
        accepted_batch = SegmentsAccepted(debate_id, accepted, duplicates, 0, 0, waiting)
        return accepted_batch, FollowUp.of(detection=debate_id if accepted else None)
    detected, withheld, waiting, panels = detect_live(store, clock, pipeline, debate_id, flush=False)
    return SegmentsAccepted(debate_id, accepted, duplicates, detected, withheld, waiting), FollowUp.of(panels)


def ingest_transcript(
    store: Store, clock: Clock, caller: Caller, debate_id: str, data: bytes, fmt: str | None = None
) -> tuple[IngestResult, FollowUp]:
    """Store a whole transcript (plain text, WebVTT or SRT). Under the speaker gate detection waits until
    every voice is named (``start_detection``); otherwise it is requested now.

    Raises ``TranscriptError`` (naming the line) and ``TranscriptTooLarge`` from the parser; either is
    first recorded as a ``transcript_rejected`` event, so the debate pages show the upload as failed."""
    from icarus.debates.transcripts import TranscriptError, TranscriptTooLarge, parse_transcript

    caller.require(Role.API, "ingesting a transcript")
    with store.reading() as session:
        visible_debate(session, caller, debate_id)
    try:
        parsed = parse_transcript(data, fmt)
    except (TranscriptError, TranscriptTooLarge) as exc:
        refused = {"message": str(exc), "line": getattr(exc, "line", None)}
        store.transaction(
            lambda session: repo.add_event(session, debate_id, REJECTED_EVENT, refused, clock())
        )
        raise
    now = clock()

    def work(session: Session) -> IngestResult:
        row = visible_debate(session, caller, debate_id, lock=True)
        fresh, duplicates = repo.add_segments(session, debate_id, parsed, now)
        debate = repo.debate_row(row)
        heard = repo.heard_labels(session, debate_id)
        waiting = unnamed_voices(heard, debate.speakers)
        row.mode = DebateMode.FILE.value
        if fresh or row.detection_state == DetectionState.IDLE.value:
            gated = debate.settings.speaker_gate_enabled and waiting and not row.skip_speakers
            row.detection_state = (DetectionState.DEFERRED if gated else DetectionState.REQUESTED).value
            row.detection_due_at = now
        row.updated_at = now
        repo.add_event(session, debate_id, "detection", {"state": row.detection_state}, now)
        return IngestResult(
            debate_id, len(parsed), len(fresh), duplicates, DetectionState(row.detection_state), waiting
        )

    result = store.transaction(work)
    requested = result.detection is DetectionState.REQUESTED
    return result, FollowUp.of(detection=debate_id if requested else None)


def start_detection(
    store: Store, clock: Clock, caller: Caller, debate_id: str, skip_speakers: bool = False
) -> tuple[DetectionStarted, FollowUp]:
    """Request the deferred detection of an ingested transcript. Raises ``SpeakersWaiting`` while a voice
    is unnamed, unless ``skip_speakers``: then unnamed voices stay "Speaker N" and the claims that need
    their identity wait until they are named."""
    caller.require(Role.API, "running detection")
    now = clock()
    released: list[int] = []

    def work(session: Session) -> DetectionStarted:
        nonlocal released
        row = visible_debate(session, caller, debate_id, lock=True)
        debate = repo.debate_row(row)
        waiting = unnamed_voices(repo.heard_labels(session, debate_id), debate.speakers)
        if waiting and not skip_speakers:
            raise SpeakersWaiting(waiting)
        if skip_speakers and not row.skip_speakers:
            row.skip_speakers = True
            released = release_withheld(session, row, debate.speakers, waiting, now)
        if row.detection_state != DetectionState.RUNNING.value:
            row.detection_state, row.detection_due_at = DetectionState.REQUESTED.value, now
        row.updated_at = now
        repo.add_event(session, debate_id, "detection", {"state": row.detection_state}, now)
        return DetectionStarted(debate_id, DetectionState(row.detection_state), waiting)

    started = store.transaction(work)
    return started, FollowUp.of(released, debate_id)
