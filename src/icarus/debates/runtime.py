"""What the debate service runs on: its parts (detection, research, adjudication), its timing and its queue.

``DebatePipeline`` names the parts, ``ServiceConfig`` the leases, attempts and retry delays, ``Dispatcher``
the queue that makes work happen sooner. Each step of the service (ingest, detection runs, panel research,
answers, feedback) returns the work it made as a ``FollowUp``; only ``DebateService`` hands it out.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Protocol, TypeVar

from icarus.debates.adjudication import Adjudicator, OfflineAdjudicator
from icarus.debates.elector import Chooser
from icarus.debates.model import DebateSettings, DetectedClaim, Panel, ResearchMode, Segment
from icarus.debates.research.base import Budget, ClaimToResearch
from icarus.debates.retries import AdjudicationRetryPolicy
from icarus.settings import Settings

__all__ = [
    "Clock",
    "DebatePipeline",
    "Detector",
    "Dispatcher",
    "FollowUp",
    "Researcher",
    "ServiceConfig",
    "debate_budget",
    "utc_now",
]

Clock = Callable[[], datetime]
T = TypeVar("T", int, float)


def utc_now() -> datetime:
    return datetime.now(UTC)


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


@dataclass(frozen=True)
class FollowUp:
    """The work a step made: panels to research, then (when set) a debate whose detection is due."""

    panels: tuple[int, ...] = ()
    detection: str | None = None

    @classmethod
    def of(cls, panels: Sequence[int] = (), detection: str | None = None) -> FollowUp:
        return cls(tuple(panels), detection)


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
