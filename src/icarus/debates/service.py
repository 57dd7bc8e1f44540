"""The debate service: debates, transcripts, the speaker gate, claims, research panels and the one answer.

Everything the API, the CLI and the workers do with debates goes through ``DebateService``. The database
holds the truth: a panel is a row that a worker leases, researches and completes; its answer, the claim's
recomputed verdict, any escalated panel it calls for and the events announcing them are written in one
transaction, fenced by the lease (owner and attempt), so a worker that died or overran its lease cannot
write a second answer. The queue (``icarus.debates.jobs``) only makes work happen sooner; the periodic
``dispatch_due`` finds whatever a lost message or a dead worker left behind.

Flow: segments (live) or a transcript (file) → detection (held back by the speaker gate) → claims, shown
even when nothing is researched → one pending panel per configured method → research → claim verdict
(``build_claim_verdict``) → escalation (``next_rung``) when enabled. Search outages leave the panel pending
with ``search_unavailable`` and retry at +10 min, +30 min, +2 h, then answer unverifiable.
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any, Final, Protocol, TypeVar, cast

from pydantic import ValidationError
from sqlalchemy import and_, case, or_, select, update
from sqlalchemy.orm import Session

from icarus.debates import repository as repo
from icarus.debates.access import Caller, check_budget, check_methods, plan_for_organisation
from icarus.debates.adjudication import (
    Adjudicator,
    OfflineAdjudicator,
    build_claim_verdict,
    panel_fingerprint,
)
from icarus.debates.dating import HELD_AT_FIELD, accepted_held_at
from icarus.debates.elector import Chooser
from icarus.debates.errors import (
    ClaimNotFound,
    DebateError,
    DebateNotFound,
    InvalidChange,
    PanelNotFound,
    QuotaExceeded,
    SpeakersWaiting,
    SpendLimitReached,
    UnknownSpeaker,
)
from icarus.debates.escalation import next_rung
from icarus.debates.exports import ExportRow, export_row, is_alert
from icarus.debates.language import should_auto_retry
from icarus.debates.model import (
    Basis,
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
from icarus.debates.model_choice import ModelWeights
from icarus.debates.page_reads import REJECTED_EVENT
from icarus.debates.rechecks import plan_methods
from icarus.debates.research.base import Budget, ClaimToResearch
from icarus.debates.retries import (
    AdjudicationBudget,
    AdjudicationGate,
    AdjudicationRetry,
    AdjudicationRetryPolicy,
    BudgetedAdjudicator,
    adjudication_gate,
    apply_winner_rejection,
    conflict_fingerprint,
    give_up_panel,
    next_search_retry,
    record_adjudication_failure,
)
from icarus.debates.speakers import (
    InvalidSpeakerName,
    known_names,
    speaker_display_name,
    speakers_waiting,
    validate_speaker_map,
)
from icarus.debates.speakers import UnknownSpeaker as UnheardLabel
from icarus.settings import Settings
from icarus.store.debate_tables import (
    AdjudicationBudgetRecord,
    ClaimVerdictRecord,
    DebateClaimRecord,
    DebateFeedbackRecord,
    DebateMode,
    DebatePanelRecord,
    DebateRecord,
    DetectionState,
    PanelState,
    WinnerSelectionRecord,
    WinnerState,
)
from icarus.store.repository import Store
from icarus.store.tokens import Role

__all__ = [
    "FEEDBACK_KINDS",
    "ClaimResults",
    "ClaimSubmitted",
    "ClaimSummary",
    "DebatePipeline",
    "DebateService",
    "DebateView",
    "DetectionStarted",
    "Detector",
    "Dispatcher",
    "FeedbackRecorded",
    "IngestResult",
    "PanelView",
    "Researcher",
    "SegmentsAccepted",
    "ServiceConfig",
    "debate_budget",
]

log = logging.getLogger("icarus.debates")

Clock = Callable[[], datetime]
T = TypeVar("T", int, float)

WITHHELD_SPEAKERS: Final = "speakers"  # the live gate: a heard voice is still unnamed
WITHHELD_NEEDS_SPEAKER: Final = "needs_speaker"  # the claim depends on who said it, and they are unnamed
FEEDBACK_KINDS: Final = frozenset(
    {"vote", "panel_feedback", "answer_feedback", "claim_extraction", "translation"}
)
SETTINGS_FIELDS: Final = frozenset(DebateSettings.model_fields)
WEIGHT_FIELDS: Final = ("cost_weight", "latency_weight", "quality_weight")


class Detector(Protocol):
    """Finds the checkable claims in segments (``icarus.debates.detection.detect_claims``); ``as_of`` is
    the debate's date (``held_at``), after which a stated year is a prediction."""

    def __call__(
        self, segments: Sequence[Segment], speaker_names: Mapping[str, str], *, as_of: date
    ) -> list[DetectedClaim]: ...


class Researcher(Protocol):
    """Researches one claim with one method (``icarus.debates.research.run_method``) for a debate with
    ``settings`` (its model-selection weights bias which model the method's LLM calls use)."""

    def __call__(
        self, mode: ResearchMode, claim: ClaimToResearch, debate_settings: DebateSettings
    ) -> Panel: ...


class Dispatcher(Protocol):
    """Makes queued work happen soon (the huey tasks); without one, ``run_due`` or the periodic task does."""

    def research(self, panel_id: int) -> None: ...

    def detect(self, debate_id: str) -> None: ...


@dataclass
class DebatePipeline:
    """The parts the service runs: detection, research, adjudication and the elector's chooser."""

    detect: Detector
    research: Researcher
    adjudicator: Adjudicator | None = field(default_factory=OfflineAdjudicator)
    chooser: Chooser | None = None
    adjudication_policy: AdjudicationRetryPolicy | None = None
    """For a metered adjudicator (a model that is paid for or may fail): retries with backoff, a bounded
    number of attempts per conflict and a shared daily call cap. None: unmetered (the offline one)."""

    @classmethod
    def from_settings(cls, settings: Settings) -> DebatePipeline:
        """Detection by ``detect_claims``; research by ``run_method`` on the services ``settings`` describe
        (built on first use, once), within the debate budgets ``settings`` set over each method's own.

        With an LLM endpoint configured, its candidate models (``llm_candidate_models``, in each debate's
        weighted order) answer the methods' calls; conflicts are adjudicated by the model, metered (retries
        with backoff, a daily cap), and the elector's choice among disagreeing panels is the model's.
        Detection asks no model. Raises ``CandidateSpecError`` when the candidate list cannot be read."""
        from icarus.debates.detection import detect_claims
        from icarus.debates.language import research_in_languages
        from icarus.debates.llm_adjudication import LLMAdjudicator, LLMChooser
        from icarus.debates.model_choice import ModelWeights, parse_candidates
        from icarus.debates.research.base import ResearchServices, default_budget
        from icarus.debates.research.llm import DebateLlmConfig, with_model_weights

        candidates = settings.llm_candidate_models
        if candidates:
            parse_candidates(candidates)  # refuse an unreadable list at start-up, not at the first call
        services: list[ResearchServices] = []
        lock = threading.Lock()

        def detect(
            segments: Sequence[Segment], speaker_names: Mapping[str, str], *, as_of: date
        ) -> list[DetectedClaim]:
            return detect_claims(segments, speaker_names, as_of=as_of)

        def research(mode: ResearchMode, claim: ClaimToResearch, debate_settings: DebateSettings) -> Panel:
            with lock:
                if not services:
                    services.append(ResearchServices.from_settings(settings))
            weighted = with_model_weights(services[0], ModelWeights.of(debate_settings), candidates)
            # A strong-language rerun also researches in English and Spanish (labelled); else run_method.
            return research_in_languages(mode, claim, weighted, debate_budget(settings, default_budget(mode)))

        llm = DebateLlmConfig.for_debate(settings, ModelWeights(), candidates)
        if llm is None:
            return cls(detect=detect, research=research)
        return cls(
            detect=detect,
            research=research,
            adjudicator=LLMAdjudicator.from_config(llm),
            chooser=LLMChooser.from_config(llm),
            adjudication_policy=AdjudicationRetryPolicy(),
        )


@dataclass(frozen=True)
class ServiceConfig:
    panel_lease: timedelta = timedelta(minutes=5)
    detection_lease: timedelta = timedelta(minutes=5)
    max_attempts: int = 3
    error_backoff: timedelta = timedelta(minutes=2)
    search_retry_delays: tuple[timedelta, ...] = (
        timedelta(minutes=10),
        timedelta(minutes=30),
        timedelta(hours=2),
    )
    strong_language_auto_retry: bool = False
    live_detection_grace: timedelta = timedelta(minutes=1)
    queued_grace: timedelta = timedelta(minutes=1)
    """How long a new panel's first queue message has before the dispatcher sends another."""

    @classmethod
    def from_settings(cls, settings: Settings) -> ServiceConfig:
        return cls(
            panel_lease=timedelta(seconds=settings.debate_panel_lease_s),
            max_attempts=settings.job_max_attempts,
            search_retry_delays=tuple(timedelta(minutes=m) for m in settings.search_retry_minutes),
            strong_language_auto_retry=settings.strong_language_auto_retry,
        )


def debate_budget(settings: Settings, base: Budget) -> Budget:
    """A method's budget with the debate limits ``settings`` set in place of its own."""
    return Budget(
        max_searches=_given(settings.debate_max_searches, base.max_searches),
        max_pages=_given(settings.debate_max_pages, base.max_pages),
        max_depth=_given(settings.debate_max_depth, base.max_depth),
        max_seconds=_given(settings.debate_max_seconds, base.max_seconds),
    )


def _given(value: T | None, default: T) -> T:
    return default if value is None else value


# --- what the service answers ----------------------------------------------------------------------------


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


def _utc_now() -> datetime:
    return datetime.now(UTC)


class DebateService:
    """Debates for API callers, the CLI and workers. Thread-safe: every call uses its own transactions."""

    def __init__(
        self,
        store: Store,
        pipeline: DebatePipeline,
        *,
        config: ServiceConfig | None = None,
        clock: Clock = _utc_now,
        dispatcher: Dispatcher | None = None,
        inline: bool = False,
    ) -> None:
        """``inline``: without a dispatcher, research and detection run in the calling thread as soon as they
        are due (the CLI and tests); otherwise they wait for a worker."""
        self.store = store
        self.pipeline = pipeline
        self.config = config or ServiceConfig()
        self.clock = clock
        self.dispatcher = dispatcher
        self.inline = inline
        self.worker_id = uuid.uuid4().hex[:16]

    # --- debates ---------------------------------------------------------------------------------------

    def create_debate(
        self, caller: Caller, settings: DebateSettings, title: str = "", held_at: datetime | None = None
    ) -> DebateView:
        """A new debate; ``held_at`` (when it took place) defaults to now, the upload time."""
        caller.require(Role.API, "creating a debate")
        check_methods(caller, settings.research_modes)
        now = self.clock()
        held = accepted_held_at(held_at, now)
        debate_id = repo.new_debate_id()

        def work(session: Session) -> DebateView:
            session.add(
                DebateRecord(
                    id=debate_id,
                    organisation_id=caller.organisation_id,
                    created_by=caller.token_id,
                    title=title[:512],
                    settings_json=settings.model_dump_json(),
                    speakers_json="{}",
                    mode=DebateMode.LIVE.value,
                    detection_state=DetectionState.IDLE.value,
                    skip_speakers=False,
                    held_at=held,
                    created_at=now,
                    updated_at=now,
                )
            )
            session.flush()
            return self._view(session, repo.debate_record(session, debate_id))

        return self.store.transaction(work)

    def get_debate(self, caller: Caller, debate_id: str) -> DebateView:
        with self.store.reading() as session:
            return self._view(session, self._visible(session, caller, debate_id))

    def list_debates(self, caller: Caller, limit: int = 100) -> list[DebateView]:
        with self.store.reading() as session:
            query = (
                select(DebateRecord).order_by(DebateRecord.created_at.desc(), DebateRecord.id).limit(limit)
            )
            if not caller.is_admin:
                org = caller.organisation_id
                query = query.where(
                    DebateRecord.organisation_id == org
                    if org is not None
                    else DebateRecord.organisation_id.is_(None)
                )
            return [self._view(session, row) for row in session.scalars(query).all()]

    def update_debate(self, caller: Caller, debate_id: str, changes: Mapping[str, Any]) -> DebateView:
        """Replace the named settings (and ``title``, ``held_at``). Claims already detected keep their
        panels; research and detection that run later read a new ``held_at``."""
        caller.require(Role.API, "changing a debate")
        unknown = sorted(set(changes) - SETTINGS_FIELDS - {"title", HELD_AT_FIELD})
        if unknown:
            raise InvalidChange("unknown debate setting(s): " + ", ".join(unknown))
        now = self.clock()
        held = accepted_held_at(changes[HELD_AT_FIELD], now) if HELD_AT_FIELD in changes else None
        named = {k: v for k, v in changes.items() if k not in ("title", HELD_AT_FIELD)}

        def work(session: Session) -> DebateView:
            row = self._visible(session, caller, debate_id, lock=True)
            current = repo.debate_row(row).settings
            settings = _settings_with(current, named)
            if settings.research_modes != current.research_modes:
                check_methods(caller, settings.research_modes)
            row.settings_json = settings.model_dump_json()
            if "title" in changes:
                row.title = str(changes["title"])[:512]
            if held is not None:
                row.held_at = held
            row.updated_at = now
            return self._view(session, row)

        return self.store.transaction(work)

    def set_model_weights(
        self,
        caller: Caller,
        debate_id: str,
        cost: float | None = None,
        latency: float | None = None,
        quality: float | None = None,
    ) -> DebateView:
        """Set the weights given (each 0.0 to 1.0); the others stay as they were."""
        given = dict(zip(WEIGHT_FIELDS, (cost, latency, quality), strict=True))
        return self.update_debate(caller, debate_id, {k: v for k, v in given.items() if v is not None})

    # --- transcripts and the speaker gate -------------------------------------------------------------

    def set_speaker_map(self, caller: Caller, debate_id: str, mapping: Mapping[str, str]) -> DebateView:
        """Name diarization labels. Names merge into the map; a label never heard is refused. Naming the last
        unnamed voice releases the withheld claims in order and starts deferred detection."""
        caller.require(Role.API, "naming speakers")
        now = self.clock()
        released: list[int] = []
        start_detection = False

        def work(session: Session) -> DebateView:
            nonlocal released, start_detection
            row = self._visible(session, caller, debate_id, lock=True)
            heard = repo.heard_labels(session, debate_id)
            try:
                cleaned = validate_speaker_map(mapping, heard)
            except UnheardLabel as exc:
                raise UnknownSpeaker(exc.labels) from exc
            except InvalidSpeakerName as exc:
                raise InvalidChange(str(exc)) from exc
            names = {**repo.debate_row(row).speakers, **cleaned}
            row.speakers_json = _json(names)
            row.updated_at = now
            waiting = _waiting(heard, names)
            repo.add_event(
                session, debate_id, "speakers", {"speakers": names, "speakers_waiting": waiting}, now
            )
            released = self._release_withheld(session, row, names, waiting, now)
            if row.detection_state == DetectionState.DEFERRED.value and not waiting:
                row.detection_state, row.detection_due_at = DetectionState.REQUESTED.value, now
                start_detection = True
            return self._view(session, row)

        view = self.store.transaction(work)
        self._kick_panels(released)
        if not start_detection:
            return view
        self._kick_detection(debate_id)
        return self.get_debate(caller, debate_id)  # detection may have run already

    def add_segments(self, caller: Caller, debate_id: str, batch: Sequence[Segment]) -> SegmentsAccepted:
        """Store a live batch (a segment id already stored is skipped) and detect claims in what is new.

        A segment that stops mid-sentence waits for the next one of its speaker, so a sentence split across
        captions is read whole. Under the speaker gate the detected claims are withheld while any voice
        heard so far is unnamed. A batch sent to a debate made from a file joins its transcript instead."""
        caller.require(Role.API, "sending segments")
        now = self.clock()

        def store_batch(session: Session) -> tuple[int, int, bool]:
            row = self._visible(session, caller, debate_id)
            fresh, duplicates = repo.add_segments(session, debate_id, batch, now)
            from_file = row.mode == DebateMode.FILE.value
            if from_file and fresh and row.detection_state != DetectionState.DEFERRED.value:
                row.detection_state, row.detection_due_at = DetectionState.REQUESTED.value, now
            return len(fresh), duplicates, from_file

        accepted, duplicates, from_file = self.store.transaction(store_batch)
        if from_file:
            if accepted:
                self._kick_detection(debate_id)
            waiting = self.get_debate(caller, debate_id).speakers_waiting
            return SegmentsAccepted(debate_id, accepted, duplicates, 0, 0, waiting)
        detected, withheld, waiting, panels = self._detect_live(debate_id, flush=False)
        self._kick_panels(panels)
        return SegmentsAccepted(debate_id, accepted, duplicates, detected, withheld, waiting)

    def ingest_transcript(
        self, caller: Caller, debate_id: str, data: bytes, fmt: str | None = None
    ) -> IngestResult:
        """Store a whole transcript (plain text, WebVTT or SRT). Under the speaker gate detection waits until
        every voice is named (``run_detection``); otherwise it starts now.

        Raises ``TranscriptError`` (naming the line) and ``TranscriptTooLarge`` from the parser; either is
        first recorded as a ``transcript_rejected`` event, so the debate pages show the upload as failed."""
        from icarus.debates.transcripts import TranscriptError, TranscriptTooLarge, parse_transcript

        caller.require(Role.API, "ingesting a transcript")
        with self.store.reading() as session:
            self._visible(session, caller, debate_id)
        try:
            parsed = parse_transcript(data, fmt)
        except (TranscriptError, TranscriptTooLarge) as exc:
            refused = {"message": str(exc), "line": getattr(exc, "line", None)}
            self.store.transaction(
                lambda session: repo.add_event(session, debate_id, REJECTED_EVENT, refused, self.clock())
            )
            raise
        now = self.clock()

        def work(session: Session) -> IngestResult:
            row = self._visible(session, caller, debate_id, lock=True)
            fresh, duplicates = repo.add_segments(session, debate_id, parsed, now)
            debate = repo.debate_row(row)
            heard = repo.heard_labels(session, debate_id)
            waiting = _waiting(heard, debate.speakers)
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

        result = self.store.transaction(work)
        if result.detection is DetectionState.REQUESTED:
            self._kick_detection(debate_id)
        return result

    def run_detection(self, caller: Caller, debate_id: str, skip_speakers: bool = False) -> DetectionStarted:
        """Start the deferred detection of an ingested transcript. Raises ``SpeakersWaiting`` while a voice
        is unnamed, unless ``skip_speakers``: then unnamed voices stay "Speaker N" and the claims that need
        their identity wait until they are named."""
        caller.require(Role.API, "running detection")
        now = self.clock()
        released: list[int] = []

        def work(session: Session) -> DetectionStarted:
            nonlocal released
            row = self._visible(session, caller, debate_id, lock=True)
            debate = repo.debate_row(row)
            waiting = _waiting(repo.heard_labels(session, debate_id), debate.speakers)
            if waiting and not skip_speakers:
                raise SpeakersWaiting(waiting)
            if skip_speakers and not row.skip_speakers:
                row.skip_speakers = True
                released = self._release_withheld(session, row, debate.speakers, waiting, now)
            if row.detection_state != DetectionState.RUNNING.value:
                row.detection_state, row.detection_due_at = DetectionState.REQUESTED.value, now
            row.updated_at = now
            repo.add_event(session, debate_id, "detection", {"state": row.detection_state}, now)
            return DetectionStarted(debate_id, DetectionState(row.detection_state), waiting)

        started = self.store.transaction(work)
        self._kick_panels(released)
        self._kick_detection(debate_id)
        return started

    # --- claims ---------------------------------------------------------------------------------------

    def submit_claim(
        self,
        caller: Caller,
        debate_id: str,
        text: str,
        research_mode: ResearchMode | Sequence[ResearchMode] | None = None,
        manually_added: bool = False,
        strong_language: bool = False,
        recheck: bool = False,
    ) -> ClaimSubmitted:
        """Add a claim to a debate or check one again.

        Only the methods the claim has no panel for yet run, unless ``recheck`` (the methods named run
        again) or ``strong_language`` (they all run again, searching also in English and Spanish); see
        ``rechecks.plan_methods``. Without ``research_mode``: the debate's methods for a new claim, the
        claim's own for a rerun; an empty list researches nothing. ``manually_added`` panels widen what
        the answer waits for but never vote. Administrators may run any method, others only their plan's;
        quota and spend limit apply to all."""
        caller.require(Role.API, "submitting a claim")
        text = text.strip()
        if not text:
            raise InvalidChange("a claim needs text")
        asked = None if research_mode is None else _modes(research_mode)
        if asked:
            check_methods(caller, asked)
        now = self.clock()

        def work(session: Session) -> ClaimSubmitted:
            row = self._visible(session, caller, debate_id)
            debate = repo.debate_row(row)
            claim = repo.find_claim(session, debate_id, text)
            created = claim is None
            existing = (
                [] if claim is None else [repo.panel_row(p) for p in repo.panel_rows(session, claim.id)]
            )
            plan = plan_methods(
                asked,
                recheck=recheck,
                strong_language=strong_language,
                configured=debate.settings.research_modes,
                existing=existing,
            )
            check_methods(caller, plan.considered)
            to_run = plan.to_run
            if to_run:
                check_budget(session, caller.organisation_id, caller.plan, now, new_claim=created)
            if claim is None:
                detected = DetectedClaim(text=text, checkworthiness=1.0, claim_type="manual")
                claim = repo.add_claim(
                    session,
                    debate_id,
                    detected,
                    now,
                    withheld=None,
                    manually_added=True,
                    created_by=caller.token_id,
                )
                repo.add_event(session, debate_id, "claim", self._claim_event(session, claim, debate), now)
            ids = []
            for mode in to_run:
                panel = repo.add_panel(
                    session,
                    claim,
                    mode,
                    now,
                    manual=manually_added,
                    strong_language=strong_language,
                    billed_token_id=caller.token_id,
                    billed_organisation_id=caller.organisation_id,
                )
                ids.append(panel.id)
                repo.add_event(session, debate_id, "panel", self._panel_event(session, panel), now)
            if ids:
                self._recompute(
                    session, claim, debate, now
                )  # a manual method joins what the answer waits for
            return ClaimSubmitted(
                claim.id,
                debate_id,
                created,
                ids,
                list(to_run),
                plan.already_researched,
            )

        submitted = self.store.transaction(work)
        self._kick_panels(submitted.panel_ids)
        return submitted

    def list_claims(self, caller: Caller, debate_id: str) -> list[ClaimSummary]:
        with self.store.reading() as session:
            row = self._visible(session, caller, debate_id)
            debate = repo.debate_row(row)
            heard = repo.heard_labels(session, debate_id)
            claims = repo.claim_rows(session, debate_id)
            verdicts = repo.claim_verdicts(session, [c.id for c in claims])
            panels: dict[int, list[DebatePanelRecord]] = {}
            for panel in session.scalars(
                select(DebatePanelRecord)
                .where(DebatePanelRecord.debate_id == debate_id)
                .order_by(DebatePanelRecord.id)
            ):
                panels.setdefault(panel.claim_id, []).append(panel)
            return [_summary(c, debate, heard, verdicts.get(c.id), panels.get(c.id, [])) for c in claims]

    def export_claims(self, caller: Caller, debate_id: str) -> list[ExportRow]:
        """Every claim shown, in order, with its speaker and persisted final answer (``pending`` while
        there is none: a provisional answer is not exported)."""
        with self.store.reading() as session:
            row = self._visible(session, caller, debate_id)
            heard = repo.heard_labels(session, debate_id)
            names = known_names(heard, repo.debate_row(row).speakers)
            claims = repo.claim_rows(session, debate_id)
            records = {
                r.claim_id: r
                for r in session.scalars(
                    select(ClaimVerdictRecord)
                    .join(DebateClaimRecord, DebateClaimRecord.id == ClaimVerdictRecord.claim_id)
                    .where(DebateClaimRecord.debate_id == debate_id)
                )
            }
            rows = []
            for claim in claims:
                record = records.get(claim.id)
                verdict = (
                    ClaimVerdict.model_validate_json(record.verdict_json)
                    if record is not None and record.verdict_json
                    else None
                )
                rows.append(
                    export_row(
                        claim_id=claim.id,
                        debate_id=debate_id,
                        text=claim.text,
                        speaker_label=claim.speaker_label,
                        speaker_name=speaker_display_name(claim.speaker_label, heard, names),
                        manually_added=claim.manually_added,
                        created_at=claim.created_at,
                        verdict=verdict,
                        decided_at=record.updated_at if record is not None else None,
                    )
                )
            return rows

    def alert_digest(self, caller: Caller, debate_id: str, since: datetime | None = None) -> list[ExportRow]:
        """The claims whose final answer is false, misleading or partially true, decided at or after
        ``since`` (all when None), in order. Provisional answers never alert."""
        return [row for row in self.export_claims(caller, debate_id) if is_alert(row, since)]

    def claim_results(self, caller: Caller, claim_id: int, debate_id: str | None = None) -> ClaimResults:
        """The claim's one answer (None while research is pending) and every research panel."""
        with self.store.reading() as session:
            claim = repo.claim_record(session, claim_id, debate_id)
            if claim.withheld is not None:
                raise ClaimNotFound(claim_id, debate_id)
            row = self._visible(session, caller, claim.debate_id, missing=ClaimNotFound(claim_id, debate_id))
            heard = repo.heard_labels(session, claim.debate_id)
            speakers = known_names(heard, repo.debate_row(row).speakers)
            panels = [_panel_view(repo.panel_row(p)) for p in repo.panel_rows(session, claim_id)]
            return ClaimResults(
                claim_id=claim.id,
                debate_id=claim.debate_id,
                text=claim.text,
                claim_verdict=repo.claim_verdict(session, claim_id),
                panels=panels,
                operator_winner_panel_id=repo.current_winner(session, claim_id),
                speaker_label=claim.speaker_label,
                speaker_name=speaker_display_name(claim.speaker_label, heard, speakers),
                manually_added=claim.manually_added,
            )

    # --- operators and readers ------------------------------------------------------------------------

    def select_winner(self, caller: Caller, claim_id: int, panel_id: int) -> ClaimResults:
        """An operator's winner answers for the claim from now on (basis ``operator``)."""
        caller.require(Role.REVIEWER, "choosing a winner")
        now = self.clock()

        def work(session: Session) -> str:
            panel, claim, debate = self._research_panel(session, caller, panel_id, claim_id, finished=True)
            session.execute(
                update(WinnerSelectionRecord)
                .where(
                    WinnerSelectionRecord.claim_id == claim.id,
                    WinnerSelectionRecord.state == WinnerState.CURRENT.value,
                )
                .values(state=WinnerState.SUPERSEDED.value)
                .execution_options(synchronize_session=False)
            )
            session.add(
                WinnerSelectionRecord(
                    claim_id=claim.id,
                    panel_id=panel.id,
                    state=WinnerState.CURRENT.value,
                    token_id=caller.token_id,
                    at=now,
                )
            )
            session.flush()
            self._recompute(session, claim, debate, now)
            return claim.debate_id

        debate_id = self.store.transaction(work)
        return self.claim_results(caller, claim_id, debate_id)

    def reject_winner(self, caller: Caller, claim_id: int, panel_id: int) -> ClaimResults:
        """Record that a selection of ``panel_id`` is rejected. The previous winner stays as it was."""
        caller.require(Role.REVIEWER, "rejecting a winner")
        now = self.clock()

        def work(session: Session) -> str:
            panel, claim, _debate = self._research_panel(session, caller, panel_id, claim_id)
            kept = apply_winner_rejection(repo.current_winner(session, claim.id), panel.id)
            session.add(
                WinnerSelectionRecord(
                    claim_id=claim.id,
                    panel_id=panel.id,
                    state=WinnerState.REJECTED.value,
                    token_id=caller.token_id,
                    at=now,
                )
            )
            session.add(
                DebateFeedbackRecord(
                    kind="winner_rejection",
                    debate_id=claim.debate_id,
                    claim_id=claim.id,
                    panel_id=panel.id,
                    token_id=caller.token_id,
                    data_json=_json({"winner_kept": kept}),
                    at=now,
                )
            )
            return claim.debate_id

        debate_id = self.store.transaction(work)
        return self.claim_results(caller, claim_id, debate_id)

    def correct_verdict(
        self, caller: Caller, panel_id: int, verdict: Verdict, note: str | None = None
    ) -> PanelView:
        """A reviewer's correction of one research panel's verdict, shown beside the panel; ``note`` (why,
        optional) is kept with it."""
        caller.require(Role.REVIEWER, "correcting a verdict")
        if verdict is Verdict.PENDING:
            raise InvalidChange("a correction names a verdict, not pending")
        now = self.clock()

        def work(session: Session) -> PanelView:
            panel, claim, _debate = self._research_panel(session, caller, panel_id)
            panel.corrected_verdict = verdict.value
            session.add(
                DebateFeedbackRecord(
                    kind="correction",
                    debate_id=claim.debate_id,
                    claim_id=claim.id,
                    panel_id=panel.id,
                    token_id=caller.token_id,
                    data_json=_json({"verdict": verdict.value, "note": (note or "").strip() or None}),
                    at=now,
                )
            )
            session.flush()
            return _panel_view(repo.panel_row(panel))

        return self.store.transaction(work)

    def vote(self, caller: Caller, panel_id: int, value: int | str) -> FeedbackRecorded:
        """A reader's vote on a research panel: recorded as feedback, never changing a verdict."""
        return self.feedback(caller, "vote", panel_id=panel_id, data={"value": value})

    def feedback(
        self,
        caller: Caller,
        kind: str,
        *,
        panel_id: int | None = None,
        claim_id: int | None = None,
        debate_id: str | None = None,
        data: Mapping[str, Any] | None = None,
    ) -> FeedbackRecorded:
        """Record feedback: ``vote``/``panel_feedback``/``translation`` name a research panel,
        ``answer_feedback`` a claim (shown verdict, basis, considered panel ids, reasons, benchmark consent),
        ``claim_extraction`` a claim or a debate. None of it changes a verdict or picks a winner."""
        caller.require(Role.READER, "giving feedback")
        if kind not in FEEDBACK_KINDS:
            raise InvalidChange(f"unknown feedback kind {kind!r}")
        now = self.clock()

        def work(session: Session) -> FeedbackRecorded:
            nonlocal claim_id, debate_id
            if kind in ("vote", "panel_feedback", "translation"):
                if panel_id is None:
                    raise InvalidChange(f"{kind} names a research panel")
                _panel, claim, _debate = self._research_panel(session, caller, panel_id, claim_id)
                claim_id, debate_id = claim.id, claim.debate_id
            elif claim_id is not None:
                claim = repo.claim_record(session, claim_id, debate_id)
                self._visible(session, caller, claim.debate_id, missing=ClaimNotFound(claim_id, debate_id))
                debate_id = claim.debate_id
            elif debate_id is not None and kind == "claim_extraction":
                self._visible(session, caller, debate_id)
            else:
                raise InvalidChange(f"{kind} names a claim")
            row = DebateFeedbackRecord(
                kind=kind,
                debate_id=debate_id,
                claim_id=claim_id,
                panel_id=panel_id,
                token_id=caller.token_id,
                data_json=_json(dict(data or {})),
                at=now,
            )
            session.add(row)
            session.flush()
            return FeedbackRecorded(row.id, kind)

        return self.store.transaction(work)

    def events_after(
        self, caller: Caller, debate_id: str, last_id: int = 0, limit: int = 100
    ) -> list[repo.DebateEvent]:
        """The live feed: events of this debate numbered above ``last_id``, oldest first."""
        with self.store.reading() as session:
            self._visible(session, caller, debate_id)
            return repo.events_after(session, debate_id, max(0, last_id), max(1, min(limit, 1000)))

    def last_event_id(self, caller: Caller, debate_id: str) -> int:
        """The newest event id of the debate's feed (0 when none): a page subscribes after it."""
        with self.store.reading() as session:
            self._visible(session, caller, debate_id)
            return repo.last_event_id(session, debate_id)

    def rebuild_verdicts(self, caller: Caller, debate_id: str | None = None) -> int:
        """Build every claim's answer again from its panels (one debate, or all); how many changed.

        Agreements come back without an adjudication call; an unchanged valid adjudicated answer survives
        (``build_claim_verdict``). For an upgrade that changes how answers are built, or a backfill."""
        caller.require(Role.ADMIN, "rebuilding claim verdicts")
        with self.store.reading() as session:
            query = select(DebateClaimRecord.id).where(DebateClaimRecord.withheld.is_(None))
            if debate_id is not None:
                self._visible(session, caller, debate_id)
                query = query.where(DebateClaimRecord.debate_id == debate_id)
            claim_ids = list(session.scalars(query.order_by(DebateClaimRecord.id)).all())
        changed = 0
        for claim_id in claim_ids:

            def work(session: Session, claim_id: int = claim_id) -> bool:
                claim = session.scalars(
                    select(DebateClaimRecord).where(DebateClaimRecord.id == claim_id).with_for_update()
                ).one()
                debate = repo.debate_row(repo.debate_record(session, claim.debate_id))
                before = repo.claim_verdict(session, claim_id)
                self._recompute(session, claim, debate, self.clock())
                return repo.claim_verdict(session, claim_id) != before

            changed += self.store.transaction(work)
        return changed

    # --- workers ---------------------------------------------------------------------------------------

    def research_panel(self, panel_id: int, owner: str | None = None) -> str:
        """Lease a due panel, research it and record the answer exactly once; says what happened."""
        owner = f"{owner or self.worker_id}:{uuid.uuid4().hex[:16]}"  # one owner per attempt: the fence
        now = self.clock()
        lease = self.store.transaction(
            lambda s: repo.lease_panel(s, panel_id, owner, now, self.config.panel_lease)
        )
        if lease is None:
            return "not runnable (not due, answered, or held by another worker)"
        with self.store.reading() as session:
            panel_rec = repo.panel_record(session, panel_id)
            row = repo.panel_row(panel_rec)
            claim = repo.claim_row(repo.claim_record(session, row.claim_id))
            debate = repo.debate_row(repo.debate_record(session, row.debate_id))
            heard = repo.heard_labels(session, row.debate_id)
        request = ClaimToResearch(
            text=claim.text,
            as_of=now,
            held_at=debate.held_at,
            language=debate.settings.language,
            country=debate.settings.country,
            strong_language=row.strong_language,
            speaker=speaker_display_name(claim.speaker_label, heard, known_names(heard, debate.speakers)),
        )
        try:
            panel = self.pipeline.research(row.research_mode, request, debate.settings)
        except Exception as exc:  # any failure of a method is retried, then answered
            log.exception("research of panel %d (%s) failed", panel_id, row.research_mode.value)
            return self._failed(lease, row, exc)
        panel = panel.model_copy(update={"research_mode": row.research_mode})
        if panel.verdict is Verdict.PENDING:
            return self._delayed(lease, row, panel)
        return self._complete(lease, panel)

    def detect(self, debate_id: str, owner: str | None = None) -> str:
        """Run a requested detection over the stored transcript; fenced like a panel."""
        owner = owner or self.worker_id
        now = self.clock()
        lease_until = now + self.config.detection_lease

        def take(session: Session) -> bool:
            result = session.execute(
                update(DebateRecord)
                .where(DebateRecord.id == debate_id, _detection_runnable(now))
                .values(detection_state=DetectionState.RUNNING.value, detection_due_at=lease_until)
                .execution_options(synchronize_session=False)
            )
            return getattr(result, "rowcount", 0) == 1

        if not self.store.transaction(take):
            return "no detection due"
        with self.store.reading() as session:
            debate = repo.debate_row(repo.debate_record(session, debate_id))
            pending = repo.segments(session, debate_id, undetected_only=True)
            names = known_names(repo.heard_labels(session, debate_id), debate.speakers)
        found = self.pipeline.detect(pending, names, as_of=debate.held_at.date()) if pending else []
        panels: list[int] = []

        def record(session: Session) -> bool:
            nonlocal panels
            row = repo.debate_record(session, debate_id, lock=True)
            if row.detection_state != DetectionState.RUNNING.value or row.detection_due_at != lease_until:
                return False  # our lease ran out and another worker took the run over
            repo.mark_detected(session, debate_id, [s.segment_id for s in pending])
            panels = self._store_detected(session, row, found, self.clock(), live=False)
            row.detection_state, row.detection_due_at = DetectionState.DONE.value, None
            repo.add_event(
                session, debate_id, "detection", {"state": row.detection_state, "claims": len(found)}, now
            )
            return True

        if not self.store.transaction(record):
            return "fenced: another worker finished this detection"
        self._kick_panels(panels)
        return f"{len(found)} claim(s) detected in {len(pending)} segment(s)"

    def dispatch_due(self) -> int:
        """Hand out whatever is due: requested or abandoned detections, deferred detections whose voices are
        now all named, live segments left undetected, and due panels (new, retried, or whose worker died).
        Returns how many were handed out. With neither dispatcher nor ``inline`` nothing runs."""
        now = self.clock()

        def promote(session: Session) -> list[str]:
            deferred = session.scalars(
                select(DebateRecord).where(DebateRecord.detection_state == DetectionState.DEFERRED.value)
            ).all()
            for row in deferred:
                names = repo.debate_row(row).speakers
                if not _waiting(repo.heard_labels(session, row.id), names):
                    row.detection_state, row.detection_due_at = DetectionState.REQUESTED.value, now
            session.flush()
            return list(session.scalars(select(DebateRecord.id).where(_detection_runnable(now))).all())

        detections = self.store.transaction(promote)
        for debate_id in detections:
            self._kick_detection(debate_id)
        with self.store.reading() as session:
            stale = repo.live_debates_with_undetected(session, now - self.config.live_detection_grace)
            grace = None if self.dispatcher is None else self.config.queued_grace
            panels = repo.runnable_panel_ids(session, now, limit=1000, queued_grace=grace)
        for debate_id in stale:
            self._detect_leftovers(debate_id)
        self._kick_panels(panels)
        retried = self._adjudication_retries(now)
        return len(detections) + len(stale) + len(panels) + retried

    def run_due(self, max_rounds: int = 1000) -> int:
        """Run everything due now in this thread until nothing is left (the CLI and tests); a count."""
        done = 0
        for _ in range(max_rounds):
            now = self.clock()
            with self.store.reading() as session:
                detections = list(
                    session.scalars(select(DebateRecord.id).where(_detection_runnable(now))).all()
                )
                panels = repo.runnable_panel_ids(session, now, limit=1000)
            if not detections and not panels:
                break
            for debate_id in detections:
                self.detect(debate_id)
            for panel_id in panels:
                self.research_panel(panel_id)
            done += len(detections) + len(panels)
        return done

    # --- internals: detection -----------------------------------------------------------------------

    def _detect_live(self, debate_id: str, *, flush: bool) -> tuple[int, int, list[str], list[int]]:
        """Detect claims in the live segments not read yet, up to the last one that ends a sentence or a
        turn (``flush``: all of them). One transaction: segments are marked read together with the claims
        found in them, so none is read twice or lost. Returns (claims, withheld, speakers waiting, panels)."""
        now = self.clock()

        def work(session: Session) -> tuple[int, int, list[str], list[int]]:
            row = repo.debate_record(session, debate_id, lock=True)
            debate = repo.debate_row(row)
            heard = repo.heard_labels(session, debate_id)
            waiting = _waiting(heard, debate.speakers)
            shown_waiting = waiting if debate.settings.speaker_gate_enabled else []
            pending = repo.segments(session, debate_id, undetected_only=True)
            ready = pending if flush else _complete_prefix(pending)
            if not ready:
                return 0, 0, shown_waiting, []
            found = self.pipeline.detect(
                ready, known_names(heard, debate.speakers), as_of=debate.held_at.date()
            )
            repo.mark_detected(session, debate_id, [s.segment_id for s in ready])
            before = len(repo.withheld_claims(session, debate_id))
            panels = self._store_detected(session, row, found, now, live=True)
            withheld = len(repo.withheld_claims(session, debate_id)) - before
            return len(found), withheld, shown_waiting, panels

        return self.store.transaction(work)

    def _detect_leftovers(self, debate_id: str) -> None:
        """Live segments left unread for a while (a sentence never finished, or the process died): read
        them now."""
        _, _, _, panels = self._detect_live(debate_id, flush=True)
        self._kick_panels(panels)

    def _store_detected(
        self,
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
        waiting = set(_waiting(repo.heard_labels(session, row.id), debate.speakers))
        backlog = (
            live and gate and not row.skip_speakers and (waiting or repo.withheld_claims(session, row.id))
        )
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
                panels += self._show_claim(session, record, debate, now)
        return panels

    def _release_withheld(
        self,
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
            panels += self._show_claim(session, claim, debate, now)
        return panels

    def _show_claim(
        self, session: Session, claim: DebateClaimRecord, debate: repo.DebateRow, now: datetime
    ) -> list[int]:
        """Announce a claim and queue one panel per configured method, billed to the debate's creator."""
        repo.add_event(session, claim.debate_id, "claim", self._claim_event(session, claim, debate), now)
        modes = debate.settings.research_modes
        if not modes:
            return []
        try:
            plan = plan_for_organisation(session, debate.organisation_id)
            check_budget(session, debate.organisation_id, plan, now, new_claim=True)
        except (QuotaExceeded, SpendLimitReached) as refused:
            repo.add_event(
                session,
                claim.debate_id,
                "research_refused",
                {"claim_id": claim.id, "reason": str(refused)},
                now,
            )
            return []
        ids = []
        for mode in modes:
            panel = repo.add_panel(
                session,
                claim,
                mode,
                now,
                billed_token_id=debate.created_by,
                billed_organisation_id=debate.organisation_id,
            )
            ids.append(panel.id)
            repo.add_event(session, claim.debate_id, "panel", self._panel_event(session, panel), now)
        return ids

    # --- internals: research outcomes ------------------------------------------------------------------

    def _complete(self, lease: repo.Lease, panel: Panel) -> str:
        now = self.clock()
        follow_ups: list[int] = []

        def work(session: Session) -> bool:
            nonlocal follow_ups
            claim = self._locked_claim_of(session, lease.panel_id)
            row = repo.held_panel(session, lease)
            if row is None:
                return False
            debate = repo.debate_row(repo.debate_record(session, row.debate_id))
            row.state, row.lease_owner, row.lease_until = PanelState.DONE.value, None, None
            row.panel_json, row.verdict = panel.model_dump_json(), panel.verdict.value
            row.fingerprint = panel_fingerprint(panel)
            row.research_delay_reason = None
            row.cost, row.finished_at, row.error = panel.cost, now, None
            session.flush()
            follow_ups = self._after_panel(session, claim, row, debate, now)
            return True

        if not self.store.transaction(work):
            return "fenced: this panel was answered or taken over by another worker"
        self._kick_panels(follow_ups)
        return f"answered {panel.verdict.value}"

    def _delayed(self, lease: repo.Lease, row: repo.PanelRow, panel: Panel) -> str:
        """Every main search failed: retry on the outage schedule, then answer unverifiable."""
        now = self.clock()
        retry_at = next_search_retry(row.search_failures, now, self.config.search_retry_delays)
        if retry_at is None:
            return self._complete(lease, give_up_panel(panel, row.search_failures))
        delayed = panel.model_copy(update={"research_delay_reason": ResearchDelay.SEARCH_UNAVAILABLE})

        def work(session: Session) -> bool:
            self._locked_claim_of(session, lease.panel_id)
            held = repo.held_panel(session, lease)
            if held is None:
                return False
            held.state, held.lease_owner, held.lease_until = PanelState.PENDING.value, None, None
            held.next_attempt_at, held.search_failures = retry_at, held.search_failures + 1
            held.research_delay_reason = ResearchDelay.SEARCH_UNAVAILABLE.value
            held.panel_json = delayed.model_dump_json()
            held.cost += panel.cost
            session.flush()
            repo.add_event(session, held.debate_id, "panel", self._panel_event(session, held), now)
            return True

        if not self.store.transaction(work):
            return "fenced: this panel was answered or taken over by another worker"
        return f"search unavailable; retry at {retry_at.isoformat()}"

    def _failed(self, lease: repo.Lease, row: repo.PanelRow, exc: Exception) -> str:
        """A method raised: retry after a backoff; after the last attempt answer unverifiable, saying why."""
        if lease.attempt - row.search_failures >= self.config.max_attempts:
            failed = Panel(
                research_mode=row.research_mode,
                verdict=Verdict.UNVERIFIABLE,
                confidence=0.0,
                explanation=f"This method could not run ({type(exc).__name__}); nothing it found is shown.",
                trace={"failed": f"{type(exc).__name__}: {exc}"[:2000], "attempts": lease.attempt},
            )
            return self._complete(lease, failed)
        now = self.clock()

        def work(session: Session) -> bool:
            held = repo.held_panel(session, lease)
            if held is None:
                return False
            held.state, held.lease_owner, held.lease_until = PanelState.PENDING.value, None, None
            held.next_attempt_at = now + self.config.error_backoff * lease.attempt
            held.error = f"{type(exc).__name__}: {exc}"[:2000]
            return True

        self.store.transaction(work)
        return f"failed ({type(exc).__name__}); retried later"

    def _after_panel(
        self,
        session: Session,
        claim: DebateClaimRecord,
        row: DebatePanelRecord,
        debate: repo.DebateRow,
        now: datetime,
    ) -> list[int]:
        """A panel was answered: escalation, the strong-language auto retry, the claim's new answer, events."""
        follow_ups: list[int] = []
        if debate.settings.escalate_enabled:
            follow_ups += self._escalate(session, claim, debate, now)
        follow_ups += self._strong_language_retry(session, claim, debate, now)
        self._recompute(session, claim, debate, now, answered=row)
        return follow_ups

    def _strong_language_retry(
        self, session: Session, claim: DebateClaimRecord, debate: repo.DebateRow, now: datetime
    ) -> list[int]:
        """``STRONG_LANGUAGE_AUTO_RETRY``: once every current panel of the claim has answered unverifiable,
        rerun each of their methods once, searching also in English and Spanish."""
        if not self.config.strong_language_auto_retry:
            return []
        rows = [repo.panel_row(p) for p in repo.panel_rows(session, claim.id)]
        plain = [r for r in rows if not r.strong_language]
        current = _current_panels(plain, self._expected(plain, debate))
        if not should_auto_retry(
            [p.panel.verdict for p in current],
            self.config.strong_language_auto_retry,
            already_retried=any(r.strong_language for r in rows),
        ):
            return []
        by_id = {r.id: r for r in plain}
        retries: list[int] = []
        for stored in current:
            source = by_id[stored.panel_id]
            retry = repo.add_panel(
                session,
                claim,
                source.research_mode,
                now,
                manual=source.manual,
                escalated=source.escalated,
                strong_language=True,
                billed_token_id=source.billed_token_id,
                billed_organisation_id=source.billed_organisation_id,
            )
            repo.add_event(session, claim.debate_id, "panel", self._panel_event(session, retry), now)
            retries.append(retry.id)
        return retries

    def _escalate(
        self, session: Session, claim: DebateClaimRecord, debate: repo.DebateRow, now: datetime
    ) -> list[int]:
        rows = [repo.panel_row(p) for p in repo.panel_rows(session, claim.id)]
        stored = _current_panels(rows, self._expected(rows, debate))
        steps = sum(1 for r in rows if r.escalated)
        rung = next_rung(
            debate.settings.research_modes,
            stored,
            steps,
            debate.settings.escalate_max_steps,
            debate.settings.primary_source_policy,
        )
        if rung is None or any(r.research_mode is rung for r in rows):
            return []
        panel = repo.add_panel(
            session,
            claim,
            rung,
            now,
            escalated=True,
            billed_token_id=debate.created_by,
            billed_organisation_id=debate.organisation_id,
        )
        repo.add_event(session, claim.debate_id, "panel", self._panel_event(session, panel), now)
        return [panel.id]

    def _recompute(
        self,
        session: Session,
        claim: DebateClaimRecord,
        debate: repo.DebateRow,
        now: datetime,
        *,
        answered: DebatePanelRecord | None = None,
    ) -> None:
        """Build the claim's answer from its current panels and keep it if it changed (an event says so).

        ``answered``: the panel just answered, announced with the answer it leads to, before that answer."""
        rows = [repo.panel_row(p) for p in repo.panel_rows(session, claim.id)]
        expected = self._expected(rows, debate)
        current = _current_panels(rows, expected)
        weights = ModelWeights.of(debate.settings)
        adjudicator = _biased(self.pipeline.adjudicator, weights)
        metered = _MeteredAdjudication.start(session, self.pipeline, adjudicator, claim.id, current, now)
        verdict = build_claim_verdict(
            current,
            expected,
            operator_winner_panel_id=repo.current_winner(session, claim.id),
            previous=repo.claim_verdict(session, claim.id),
            adjudicator=metered.adjudicator if metered is not None else adjudicator,
            provisional_allowed=debate.settings.provisional_claim_verdict,
            elector_enabled=debate.settings.elector_enabled,
            chooser=_biased(self.pipeline.chooser, weights),
            claim_text=claim.text,
        )
        changed = repo.store_claim_verdict(session, claim.id, verdict, now)
        if metered is not None:
            metered.finish(session, verdict)
        if answered is not None:
            repo.add_event(session, claim.debate_id, "panel", self._panel_event(session, answered), now)
        if changed:
            data = {"claim_id": claim.id, "claim_verdict": _dump(verdict)}
            repo.add_event(session, claim.debate_id, "claim_verdict", data, now)

    def _adjudication_retries(self, now: datetime) -> int:
        """Build again the answers whose metered adjudication failed and is due for another attempt."""
        with self.store.reading() as session:
            due = list(
                session.scalars(
                    select(ClaimVerdictRecord.claim_id).where(ClaimVerdictRecord.adjudication_due_at <= now)
                ).all()
            )
        for claim_id in due:

            def work(session: Session, claim_id: int = claim_id) -> None:
                claim = session.scalars(
                    select(DebateClaimRecord).where(DebateClaimRecord.id == claim_id).with_for_update()
                ).one()
                record = session.get(ClaimVerdictRecord, claim_id)
                if record is None or record.adjudication_due_at is None or record.adjudication_due_at > now:
                    return  # another worker retried it already
                debate = repo.debate_row(repo.debate_record(session, claim.debate_id))
                self._recompute(session, claim, debate, now)

            self.store.transaction(work)
        return len(due)

    @staticmethod
    def _expected(rows: Sequence[repo.PanelRow], debate: repo.DebateRow) -> list[ResearchMode]:
        """The methods the answer waits for: configured (those with a panel), escalated and manual ones.

        A configured method with no panel (quota reached, or configured after the claim was shown) is not
        waited for; neither is a plain recheck of another method."""
        have = {r.research_mode for r in rows}
        modes = [m for m in debate.settings.research_modes if m in have]
        modes += [r.research_mode for r in rows if r.escalated or r.manual]
        return list(dict.fromkeys(modes))

    def _locked_claim_of(self, session: Session, panel_id: int) -> DebateClaimRecord:
        """The panel's claim, locked: answers for one claim are written one after another, so the last one
        always sees every other panel finished (PostgreSQL; SQLite writers are serial anyway)."""
        claim_id = session.scalar(select(DebatePanelRecord.claim_id).where(DebatePanelRecord.id == panel_id))
        if claim_id is None:
            raise PanelNotFound(panel_id)
        claim = session.scalars(
            select(DebateClaimRecord).where(DebateClaimRecord.id == claim_id).with_for_update()
        ).one()
        return claim

    # --- internals: access and views ---------------------------------------------------------------------

    def _visible(
        self,
        session: Session,
        caller: Caller,
        debate_id: str,
        *,
        lock: bool = False,
        missing: DebateError | None = None,
    ) -> DebateRecord:
        try:
            row = repo.debate_record(session, debate_id, lock=lock)
        except DebateNotFound:
            if missing is not None:
                raise missing from None
            raise
        if not caller.may_see(row.organisation_id):
            raise missing or DebateNotFound(debate_id)
        return row

    def _research_panel(
        self,
        session: Session,
        caller: Caller,
        panel_id: int,
        claim_id: int | None = None,
        *,
        finished: bool = False,
    ) -> tuple[DebatePanelRecord, DebateClaimRecord, repo.DebateRow]:
        """A research panel the caller may act on (its claim's when ``claim_id`` is given); else 404."""
        panel = repo.panel_record(session, panel_id)
        if claim_id is not None and panel.claim_id != claim_id:
            raise PanelNotFound(panel_id)
        if finished and panel.state != PanelState.DONE.value:
            raise PanelNotFound(panel_id)
        claim = repo.claim_record(session, panel.claim_id)
        row = self._visible(session, caller, claim.debate_id, missing=PanelNotFound(panel_id))
        return panel, claim, repo.debate_row(row)

    def _view(self, session: Session, row: DebateRecord) -> DebateView:
        debate = repo.debate_row(row)
        heard = repo.heard_labels(session, row.id)
        return DebateView(
            id=row.id,
            title=row.title,
            organisation_id=row.organisation_id,
            settings=debate.settings,
            speakers=debate.speakers,
            speakers_heard=heard,
            speakers_waiting=_waiting(heard, debate.speakers),
            mode=debate.mode,
            detection_state=debate.detection_state,
            segment_count=repo.segment_count(session, row.id),
            claim_count=len(repo.claim_rows(session, row.id)),
            held_at=debate.held_at,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )

    def _claim_event(
        self, session: Session, claim: DebateClaimRecord, debate: repo.DebateRow
    ) -> dict[str, Any]:
        heard = repo.heard_labels(session, claim.debate_id)
        return {
            "claim_id": claim.id,
            "text": claim.text,
            "speaker_label": claim.speaker_label,
            "speaker_name": speaker_display_name(
                claim.speaker_label, heard, known_names(heard, debate.speakers)
            ),
            "checkworthiness": claim.checkworthiness,
            "manually_added": claim.manually_added,
        }

    def _panel_event(self, session: Session, panel: DebatePanelRecord) -> dict[str, Any]:
        view = _panel_view(repo.panel_row(panel))
        return {
            "claim_id": panel.claim_id,
            "panel": _panel_dict(view),
            "claim_verdict": _dump(repo.claim_verdict(session, panel.claim_id)),
        }

    # --- internals: handing work out ---------------------------------------------------------------------

    def _kick_panels(self, panel_ids: Sequence[int]) -> None:
        if not panel_ids:
            return
        if self.dispatcher is not None:
            for panel_id in panel_ids:
                self.dispatcher.research(panel_id)
        elif self.inline:
            for panel_id in panel_ids:
                self.research_panel(panel_id)

    def _kick_detection(self, debate_id: str) -> None:
        if self.dispatcher is not None:
            self.dispatcher.detect(debate_id)
        elif self.inline:
            self.detect(debate_id)


# --- helpers -----------------------------------------------------------------------------------------


Part = TypeVar("Part")


def _biased(part: Part, weights: ModelWeights) -> Part:
    """An adjudicator or chooser that asks models (``llm_adjudication``), biased by a debate's weights;
    any other as it is."""
    bias = getattr(part, "biased", None)
    return cast(Part, bias(weights)) if callable(bias) else part


def _waiting(heard: Sequence[str], speakers: Mapping[str, str]) -> list[str]:
    """The heard labels still unnamed: a voice tag that is a name ("Helena Marsh") names itself."""
    return speakers_waiting(heard, known_names(heard, speakers))


def _detection_runnable(now: datetime) -> Any:
    return or_(
        and_(
            DebateRecord.detection_state == DetectionState.REQUESTED.value,
            DebateRecord.detection_due_at <= now,
        ),
        and_(
            DebateRecord.detection_state == DetectionState.RUNNING.value, DebateRecord.detection_due_at < now
        ),
    )


@dataclass
class _MeteredAdjudication:
    """One answer build's use of a metered adjudicator: whether the conflict may be adjudicated now (attempts,
    backoff, the daily cap), the calls it spends, and the retry it schedules when adjudication fails."""

    session: Session
    claim_id: int
    fingerprint: str
    policy: AdjudicationRetryPolicy
    retry: AdjudicationRetry | None
    budget: AdjudicationBudget
    gate: AdjudicationGate
    adjudicator: BudgetedAdjudicator | None
    now: datetime

    @classmethod
    def start(
        cls,
        session: Session,
        pipeline: DebatePipeline,
        inner: Adjudicator | None,
        claim_id: int,
        panels: Sequence[StoredPanel],
        now: datetime,
    ) -> _MeteredAdjudication | None:
        policy = pipeline.adjudication_policy
        if policy is None or inner is None:
            return None
        record = session.get(ClaimVerdictRecord, claim_id)
        retry = (
            AdjudicationRetry.model_validate_json(record.adjudication_json)
            if record is not None and record.adjudication_json
            else None
        )
        row = session.get(AdjudicationBudgetRecord, BUDGET_ROW)
        day = datetime.fromisoformat(row.day).date() if row is not None and row.day else None
        budget = AdjudicationBudget(day=day, calls=row.calls if row is not None else 0)
        fingerprint = conflict_fingerprint(panels)
        gate = adjudication_gate(retry, fingerprint, budget, now, policy)
        allowed = gate is AdjudicationGate.ALLOWED
        adjudicator = BudgetedAdjudicator(inner, budget, now, policy) if allowed else None
        return cls(session, claim_id, fingerprint, policy, retry, budget, gate, adjudicator, now)

    def finish(self, session: Session, verdict: ClaimVerdict | None) -> None:
        record = session.get(ClaimVerdictRecord, self.claim_id)
        if record is None:
            return
        fallback = verdict is not None and verdict.basis is Basis.FALLBACK
        if self.gate is AdjudicationGate.DAILY_CAP and fallback:
            # The day's calls are spent: this conflict waits for tomorrow's (its attempts are untouched).
            tomorrow = self.now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
            record.adjudication_due_at = tomorrow + timedelta(days=1)
            return
        if self.adjudicator is None:
            return  # backing off (already due later) or out of attempts
        spent = self.adjudicator.budget.calls_on(self.now) - self.budget.calls_on(self.now)
        if spent <= 0:
            return  # no conflict to adjudicate: nothing spent, nothing to retry
        _spend(session, self.now, spent)
        if fallback:
            retry = record_adjudication_failure(self.retry, self.fingerprint, self.now, self.policy)
            record.adjudication_json = retry.model_dump_json()
            exhausted = retry.attempts >= self.policy.max_attempts
            record.adjudication_due_at = None if exhausted else retry.next_attempt_at
        else:
            record.adjudication_json, record.adjudication_due_at = None, None


BUDGET_ROW: Final = 1


def _spend(session: Session, now: datetime, calls: int) -> None:
    """Add ``calls`` to today's count in one statement, so concurrent builds never lose a call (the cap may
    be passed by the calls already under way when it is reached)."""
    today = now.astimezone(UTC).date().isoformat()
    if session.get(AdjudicationBudgetRecord, BUDGET_ROW) is None:
        session.add(AdjudicationBudgetRecord(id=BUDGET_ROW, day=today, calls=0))
        session.flush()
    session.execute(
        update(AdjudicationBudgetRecord)
        .where(AdjudicationBudgetRecord.id == BUDGET_ROW)
        .values(
            calls=case(
                (AdjudicationBudgetRecord.day == today, AdjudicationBudgetRecord.calls + calls), else_=calls
            ),
            day=today,
        )
        .execution_options(synchronize_session=False)
    )


SENTENCE_ENDS: Final = (".", "!", "?", "…", '"', "”", "'", ")")


def _complete_prefix(segments: Sequence[Segment]) -> list[Segment]:
    """The segments up to the last one that ends a sentence or whose speaker hands over to another."""
    end = 0
    for n, segment in enumerate(segments):
        handover = n + 1 < len(segments) and segments[n + 1].speaker_label != segment.speaker_label
        if handover or segment.text.rstrip().endswith(SENTENCE_ENDS):
            end = n + 1
    return list(segments[:end])


def _current_panels(rows: Sequence[repo.PanelRow], expected: Sequence[ResearchMode]) -> list[StoredPanel]:
    """Per method the newest answered panel (a rerun replaces the answer before it), else its newest pending
    one when the answer waits for that method. Manual and automatic panels of a method are kept apart."""
    chosen: dict[tuple[ResearchMode, bool], repo.PanelRow] = {}
    for row in rows:  # oldest first, so a later row of the same standing replaces an earlier one
        key = (row.research_mode, row.manual)
        held = chosen.get(key)
        answered = row.state is PanelState.DONE
        awaited = row.research_mode in expected or row.manual
        if answered or ((held is None or held.state is not PanelState.DONE) and awaited):
            chosen[key] = row
    return [repo.stored_panel(r) for r in sorted(chosen.values(), key=lambda r: r.id)]


def _settings_with(current: DebateSettings, changes: Mapping[str, Any]) -> DebateSettings:
    try:
        return DebateSettings.model_validate({**current.model_dump(), **changes})
    except ValidationError as exc:
        errors = [{"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]} for e in exc.errors()]
        raise InvalidChange("invalid debate settings", errors) from exc


def _modes(research_mode: ResearchMode | Sequence[ResearchMode]) -> list[ResearchMode]:
    if isinstance(research_mode, str):
        research_mode = [research_mode]
    try:
        return list(dict.fromkeys(ResearchMode(m) for m in research_mode))
    except ValueError as exc:
        raise InvalidChange(f"unsupported research method: {exc}") from exc


def _panel_view(row: repo.PanelRow) -> PanelView:
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


def _summary(
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


def _dump(verdict: ClaimVerdict | None) -> dict[str, Any] | None:
    return verdict.model_dump(mode="json") if verdict is not None else None


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)
