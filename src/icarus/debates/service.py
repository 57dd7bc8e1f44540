"""The debate service: one door for the API, the CLI and the workers, composing the steps below it.

The database holds the truth: a panel is a row that a worker leases, researches and completes; its answer, the
claim's recomputed answer, any escalated panel it calls for and the events announcing them are written in one
transaction, fenced by the lease (owner and attempt), so a worker that died or overran its lease cannot write
a second answer. The queue (``icarus.debates.jobs``) only makes work happen sooner; the periodic
``dispatch_due`` finds whatever a lost message or a dead worker left behind.

Flow: segments (live) or a transcript (file) (``ingest``) → detection (``detection_runs``, held back by the
speaker gate, ``gate``) → claims, shown even when nothing is researched → one pending panel per configured
method (``panels``) → research (``research_runs``) → the claim's answer (``answers``) → escalation when
enabled. Search outages leave the panel pending with ``search_unavailable`` and retry at +10 min, +30 min,
+2 h, then answer unverifiable. Reviewers and readers respond through ``feedback``; reads are ``queries``.

Each step returns the work it made (a ``FollowUp``); ``DebateService`` alone hands work out, to the
dispatcher's queue, in this thread (``inline``), or to nobody (a worker's ``dispatch_due`` finds it).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from icarus.debates import (
    answers,
    debate,
    detection_runs,
    feedback,
    ingest,
    panels,
    queries,
    research_runs,
    scheduled,
)
from icarus.debates import repository as repo
from icarus.debates.access import Caller
from icarus.debates.exports import ExportRow
from icarus.debates.feedback import FEEDBACK_KINDS
from icarus.debates.model import DebateSettings, ResearchMode, Segment, Verdict
from icarus.debates.results import (
    ClaimResults,
    ClaimSubmitted,
    ClaimSummary,
    DebateView,
    DetectionStarted,
    FeedbackRecorded,
    IngestResult,
    PanelView,
    SegmentsAccepted,
)
from icarus.debates.runtime import (
    Clock,
    DebatePipeline,
    Detector,
    Dispatcher,
    FollowUp,
    Researcher,
    ServiceConfig,
    debate_budget,
    utc_now,
)
from icarus.store.repository import Store

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


class DebateService:
    """Debates for API callers, the CLI and workers. Thread-safe: every call uses its own transactions."""

    def __init__(
        self,
        store: Store,
        pipeline: DebatePipeline,
        *,
        config: ServiceConfig | None = None,
        clock: Clock = utc_now,
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

    # --- debates (``debate``) ----------------------------------------------------------------------------

    def create_debate(
        self, caller: Caller, settings: DebateSettings, title: str = "", held_at: datetime | None = None
    ) -> DebateView:
        """A new debate; ``held_at`` (when it took place) defaults to now, the upload time."""
        return debate.create_debate(self.store, self.clock, caller, settings, title, held_at)

    def get_debate(self, caller: Caller, debate_id: str) -> DebateView:
        return debate.get_debate(self.store, caller, debate_id)

    def list_debates(self, caller: Caller, limit: int = 100) -> list[DebateView]:
        return debate.list_debates(self.store, caller, limit)

    def update_debate(self, caller: Caller, debate_id: str, changes: Mapping[str, Any]) -> DebateView:
        """Replace the named settings (and ``title``, ``held_at``); see ``debate.update_debate``."""
        return debate.update_debate(self.store, self.clock, caller, debate_id, changes)

    def set_model_weights(
        self,
        caller: Caller,
        debate_id: str,
        cost: float | None = None,
        latency: float | None = None,
        quality: float | None = None,
    ) -> DebateView:
        """Set the weights given (each 0.0 to 1.0); the others stay as they were."""
        return self.update_debate(caller, debate_id, debate.weight_changes(cost, latency, quality))

    # --- transcripts and the speaker gate (``ingest``) ---------------------------------------------------

    def set_speaker_map(self, caller: Caller, debate_id: str, mapping: Mapping[str, str]) -> DebateView:
        """Name diarization labels. Names merge into the map; a label never heard is refused. Naming the last
        unnamed voice releases the withheld claims in order and starts deferred detection."""
        view, work = ingest.set_speaker_map(self.store, self.clock, caller, debate_id, mapping)
        self._hand_out(work)
        if work.detection is None:
            return view
        return self.get_debate(caller, debate_id)  # detection may have run already

    def add_segments(self, caller: Caller, debate_id: str, batch: Sequence[Segment]) -> SegmentsAccepted:
        """Store a live batch and detect claims in what is new; see ``ingest.add_segments``."""
        accepted, work = ingest.add_segments(self.store, self.clock, self.pipeline, caller, debate_id, batch)
        self._hand_out(work)
        return accepted

    def ingest_transcript(
        self, caller: Caller, debate_id: str, data: bytes, fmt: str | None = None
    ) -> IngestResult:
        """Store a whole transcript (plain text, WebVTT or SRT); see ``ingest.ingest_transcript``. Raises
        ``TranscriptError`` and ``TranscriptTooLarge``."""
        result, work = ingest.ingest_transcript(self.store, self.clock, caller, debate_id, data, fmt)
        self._hand_out(work)
        return result

    def run_detection(self, caller: Caller, debate_id: str, skip_speakers: bool = False) -> DetectionStarted:
        """Start the deferred detection of an ingested transcript. Raises ``SpeakersWaiting`` while a voice
        is unnamed, unless ``skip_speakers``; see ``ingest.start_detection``."""
        started, work = ingest.start_detection(self.store, self.clock, caller, debate_id, skip_speakers)
        self._hand_out(work)
        return started

    # --- claims (``panels``, ``queries``) ----------------------------------------------------------------

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
        """Add a claim to a debate or check one again; see ``panels.submit_claim``."""
        submitted = panels.submit_claim(
            self.store,
            self.clock,
            self.pipeline,
            caller,
            debate_id,
            text,
            research_mode,
            manually_added=manually_added,
            strong_language=strong_language,
            recheck=recheck,
        )
        self._hand_out(FollowUp.of(submitted.panel_ids))
        return submitted

    def list_claims(self, caller: Caller, debate_id: str) -> list[ClaimSummary]:
        return queries.list_claims(self.store, caller, debate_id)

    def export_claims(self, caller: Caller, debate_id: str) -> list[ExportRow]:
        """Every claim shown, in order, with its speaker and persisted final answer."""
        return queries.export_claims(self.store, caller, debate_id)

    def alert_digest(self, caller: Caller, debate_id: str, since: datetime | None = None) -> list[ExportRow]:
        """The claims whose final answer is false, misleading or partially true, decided since ``since``."""
        return queries.alert_digest(self.store, caller, debate_id, since)

    def claim_results(self, caller: Caller, claim_id: int, debate_id: str | None = None) -> ClaimResults:
        """The claim's one answer (None while research is pending) and every research panel."""
        return queries.claim_results(self.store, caller, claim_id, debate_id)

    def events_after(
        self, caller: Caller, debate_id: str, last_id: int = 0, limit: int = 100
    ) -> list[repo.DebateEvent]:
        """The live feed: events of this debate numbered above ``last_id``, oldest first."""
        return queries.events_after(self.store, caller, debate_id, last_id, limit)

    def last_event_id(self, caller: Caller, debate_id: str) -> int:
        """The newest event id of the debate's feed (0 when none): a page subscribes after it."""
        return queries.last_event_id(self.store, caller, debate_id)

    # --- operators and readers (``feedback``) ------------------------------------------------------------

    def select_winner(self, caller: Caller, claim_id: int, panel_id: int) -> ClaimResults:
        """An operator's winner answers for the claim from now on (basis ``operator``)."""
        return feedback.select_winner(self.store, self.clock, self.pipeline, caller, claim_id, panel_id)

    def reject_winner(self, caller: Caller, claim_id: int, panel_id: int) -> ClaimResults:
        """Record that a selection of ``panel_id`` is rejected. The previous winner stays as it was."""
        return feedback.reject_winner(self.store, self.clock, caller, claim_id, panel_id)

    def correct_verdict(
        self, caller: Caller, panel_id: int, verdict: Verdict, note: str | None = None
    ) -> PanelView:
        """A reviewer's correction of one research panel's verdict, shown beside the panel."""
        return feedback.correct_verdict(self.store, self.clock, caller, panel_id, verdict, note)

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
        """Record feedback of one of ``FEEDBACK_KINDS``; see ``feedback.feedback``."""
        return feedback.feedback(
            self.store,
            self.clock,
            caller,
            kind,
            panel_id=panel_id,
            claim_id=claim_id,
            debate_id=debate_id,
            data=data,
        )

    def rebuild_verdicts(self, caller: Caller, debate_id: str | None = None) -> int:
        """Build every claim's answer again from its panels (one debate, or all); how many changed."""
        return answers.rebuild_verdicts(self.store, self.clock, self.pipeline, caller, debate_id)

    # --- workers ---------------------------------------------------------------------------------------

    def research_panel(self, panel_id: int, owner: str | None = None) -> str:
        """Lease a due panel, research it and record the answer exactly once; says what happened."""
        said, follow_ups = research_runs.research_panel(
            self.store, self.clock, self.pipeline, self.config, panel_id, owner or self.worker_id
        )
        self._hand_out(FollowUp.of(follow_ups))
        return said

    def detect(self, debate_id: str, owner: str | None = None) -> str:
        """Run a requested detection over the stored transcript; fenced like a panel."""
        said, found = detection_runs.run_due_detection(
            self.store, self.clock, self.pipeline, self.config, debate_id, owner or self.worker_id
        )
        self._hand_out(FollowUp.of(found))
        return said

    def dispatch_due(self) -> int:
        """Hand out whatever is due: requested or abandoned detections, deferred detections whose voices are
        now all named, live segments left undetected, and due panels (new, retried, or whose worker died).
        Returns how many were handed out. With neither dispatcher nor ``inline`` nothing runs."""
        now = self.clock()
        detections = scheduled.due_detections(self.store, now)
        for debate_id in detections:
            self._hand_out(FollowUp.of(detection=debate_id))
        grace = None if self.dispatcher is None else self.config.queued_grace
        stale, due = scheduled.due_leftovers_and_panels(
            self.store, now, self.config.live_detection_grace, grace
        )
        for debate_id in stale:
            # Live segments left unread for a while (a sentence never finished, or the process died).
            *_, leftovers = detection_runs.detect_live(
                self.store, self.clock, self.pipeline, debate_id, flush=True
            )
            self._hand_out(FollowUp.of(leftovers))
        self._hand_out(FollowUp.of(due))
        retried = answers.retry_adjudications(self.store, self.pipeline, now)
        return len(detections) + len(stale) + len(due) + retried

    def run_due(self, max_rounds: int = 1000) -> int:
        """Run everything due now in this thread until nothing is left (the CLI and tests); a count."""
        done = 0
        for _ in range(max_rounds):
            detections, due = scheduled.runnable_now(self.store, self.clock())
            if not detections and not due:
                break
            for debate_id in detections:
                self.detect(debate_id)
            for panel_id in due:
                self.research_panel(panel_id)
            done += len(detections) + len(due)
        return done

    def _hand_out(self, work: FollowUp) -> None:
        """Panels first, then the detection: to the dispatcher's queue, or run here when ``inline``."""
        for panel_id in work.panels:
            if self.dispatcher is not None:
                self.dispatcher.research(panel_id)
            elif self.inline:
                self.research_panel(panel_id)
        if work.detection is None:
            return
        if self.dispatcher is not None:
            self.dispatcher.detect(work.detection)
        elif self.inline:
            self.detect(work.detection)
