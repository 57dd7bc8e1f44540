"""Fixtures for the debate store and service tests: SQLite always, PostgreSQL when ICARUS_DATABASE_URL names one.

Import the fixtures into a test module (``from tests.debates.store_fixtures import db_url, store``); the
PostgreSQL runs use a throwaway schema per test, as the store tests do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from icarus.debates.access import Caller
from icarus.debates.model import (
    Citation,
    DebateSettings,
    DetectedClaim,
    Panel,
    ResearchDelay,
    ResearchMode,
    Segment,
    Verdict,
)
from icarus.debates.research.base import ClaimToResearch
from icarus.debates.service import DebatePipeline, DebateService, Detector, ServiceConfig
from icarus.store import Store
from icarus.store.tokens import Role
from tests.store.conftest import _postgres_url

START = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
OPERATOR = Caller.operator()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'data' / 'icarus.db'}"
    else:
        yield from _postgres_url()


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(db_url: str, clock: FakeClock) -> Iterator[Store]:
    opened = Store(db_url, clock=clock).open()
    yield opened
    opened.close()


def sentence_claims(
    segments: Sequence[Segment], speaker_names: Mapping[str, str], *, as_of: date | None = None
) -> list[DetectedClaim]:
    """A detector for tests: every segment holding a digit is one claim, in order; an unnamed speaker's
    claim that starts with "I " needs the speaker. The debate's date (``as_of``) is not read."""
    found = []
    for segment in segments:
        if any(ch.isdigit() for ch in segment.text):
            unnamed = segment.speaker_label is not None and segment.speaker_label not in speaker_names
            found.append(
                DetectedClaim(
                    text=segment.text,
                    speaker_label=segment.speaker_label,
                    segment_ids=[segment.segment_id],
                    checkworthiness=0.9,
                    needs_speaker=unnamed and segment.text.startswith("I "),
                )
            )
    return found


def sourced(
    mode: ResearchMode, verdict: Verdict, *, cost: float = 0.0, url: str = "https://a.example/1"
) -> Panel:
    return Panel(
        research_mode=mode,
        verdict=verdict,
        confidence=0.8,
        explanation=f"{mode.value} says {verdict.value}",
        sources=[Citation(url=url, domain=url.split("/")[2], trust=0.7)],
        cost=cost,
    )


def outage(mode: ResearchMode) -> Panel:
    return Panel(
        research_mode=mode,
        verdict=Verdict.PENDING,
        confidence=0.0,
        research_delay_reason=ResearchDelay.SEARCH_UNAVAILABLE,
    )


@dataclass
class ScriptedResearch:
    """Research that answers from a script: ``answers[mode]`` is a panel or a function of the claim."""

    answers: dict[ResearchMode, Callable[[ClaimToResearch], Panel]] = field(default_factory=dict)
    default: Verdict = Verdict.TRUE
    calls: list[tuple[ResearchMode, str, bool]] = field(default_factory=list)
    settings_seen: list[DebateSettings] = field(default_factory=list)

    def __call__(self, mode: ResearchMode, claim: ClaimToResearch, debate_settings: DebateSettings) -> Panel:
        self.calls.append((mode, claim.text, claim.strong_language))
        self.settings_seen.append(debate_settings)
        answer = self.answers.get(mode)
        return answer(claim) if answer is not None else sourced(mode, self.default)


def make_service(
    store: Store,
    clock: FakeClock,
    research: ScriptedResearch | None = None,
    *,
    inline: bool = True,
    config: ServiceConfig | None = None,
    detect: Detector = sentence_claims,
) -> DebateService:
    pipeline = DebatePipeline(detect=detect, research=research or ScriptedResearch())
    return DebateService(store, pipeline, clock=clock, inline=inline, config=config)


def api_caller(token_id: int | None = 1, organisation_id: int | None = None, role: Role = Role.API) -> Caller:
    return Caller(token_id=token_id, organisation_id=organisation_id, role=role)


def segment(segment_id: str, text: str, speaker: str | None = "SPEAKER_1") -> Segment:
    return Segment(segment_id=segment_id, speaker_label=speaker, text=text)
