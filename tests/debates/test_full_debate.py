"""A whole debate: a caption file through the speaker gate to one answer per claim, researched for real.

Detection, the speaker gate, two_step research on the local sample corpus (offline judge), the elector's
answer and the live feed, on SQLite and PostgreSQL: nothing faked but the clock.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Final

import pytest

from icarus.debates.detection import detect_claims
from icarus.debates.errors import SpeakersWaiting
from icarus.debates.model import DebateSettings, ResearchMode, Segment, Verdict
from icarus.debates.research.base import ClaimToResearch, ResearchServices, run_method
from icarus.debates.service import DebatePipeline, DebateService
from icarus.store import Store
from icarus.store.debate_tables import DetectionState
from tests.debates.research.corpora import sample_services
from tests.debates.store_fixtures import OPERATOR, FakeClock
from tests.debates.store_fixtures import clock as clock
from tests.debates.store_fixtures import db_url as db_url
from tests.debates.store_fixtures import store as store

EXAMPLE: Final = Path(__file__).parents[2] / "examples" / "debates" / "debate-90min.srt"
OPENING_CUES: Final = 40  # the opening minutes: enough for every voice and a handful of claims

HALDEN_LINES: Final = (
    "SPEAKER_1: Let's turn to the harbour.",
    "SPEAKER_2: Container traffic at Halden harbor fell 12% in October.",
    "SPEAKER_3: Thank you for having me tonight.",
)


def halden_cues(first: int) -> str:
    """Three more cues, numbered from ``first``, nine minutes in: one claim the sample corpus settles."""
    return "".join(
        f"{first + n}\n00:09:{10 * n:02d},000 --> 00:09:{10 * n + 8:02d},000\n{line}\n\n"
        for n, line in enumerate(HALDEN_LINES)
    )


def opening(cues: int) -> bytes:
    """The first ``cues`` cues of the example debate, as a caption file of its own."""
    blocks = EXAMPLE.read_text(encoding="utf-8").strip().split("\n\n")
    return ("\n\n".join(blocks[:cues]) + "\n").encode()


@pytest.fixture
def services(tmp_path: Path) -> ResearchServices:
    return sample_services(tmp_path / "research")


def real_service(store: Store, clock: FakeClock, services: ResearchServices) -> DebateService:
    def detect(segments: list[Segment], speaker_names: dict[str, str], *, as_of: date) -> list:  # type: ignore[type-arg]
        return detect_claims(segments, speaker_names, as_of=as_of)

    def research(mode: ResearchMode, claim: ClaimToResearch, _settings: DebateSettings) -> object:
        return run_method(mode, claim, services)

    pipeline = DebatePipeline(detect=detect, research=research)  # type: ignore[arg-type]
    return DebateService(store, pipeline, clock=clock, inline=True)


def test_a_caption_file_goes_through_the_speaker_gate_to_an_answer_for_every_claim(
    store: Store, clock: FakeClock, services: ResearchServices
) -> None:
    service = real_service(store, clock, services)
    settings = DebateSettings(research_modes=[ResearchMode.TWO_STEP], speaker_gate_enabled=True)
    debate = service.create_debate(OPERATOR, settings, "Norvale governor's debate")
    caption = opening(OPENING_CUES) + b"\n" + halden_cues(OPENING_CUES + 1).encode()
    ingested = service.ingest_transcript(OPERATOR, debate.id, caption, "srt")
    assert ingested.detection is DetectionState.DEFERRED
    assert ingested.speakers_waiting == ["SPEAKER_1", "SPEAKER_2", "SPEAKER_3"]
    with pytest.raises(SpeakersWaiting):
        service.run_detection(OPERATOR, debate.id)
    assert service.list_claims(OPERATOR, debate.id) == []

    names = {"SPEAKER_1": "Ruth Calloway", "SPEAKER_2": "Helena Marsh", "SPEAKER_3": "Daniel Okoro"}
    service.set_speaker_map(OPERATOR, debate.id, names)  # the last name starts detection by itself
    claims = service.list_claims(OPERATOR, debate.id)
    assert len(claims) >= 5
    assert {c.speaker_name for c in claims} <= set(names.values())
    assert all(c.claim_verdict is not None for c in claims), "every claim has its one answer"

    halden = next(c for c in claims if "Halden" in c.text)
    results = service.claim_results(OPERATOR, halden.claim_id, debate.id)
    assert results.claim_verdict is not None and results.claim_verdict.verdict is Verdict.TRUE
    assert results.panels[0].panel is not None and results.panels[0].panel.sources
    norvale = [c for c in claims if "Norvale" in c.text and c.claim_verdict is not None]
    assert norvale and all(c.claim_verdict.verdict is Verdict.UNVERIFIABLE for c in norvale)  # type: ignore[union-attr]

    feed = service.events_after(OPERATOR, debate.id, 0, 1000)
    verdict_events = {e.data["claim_id"] for e in feed if e.kind == "claim_verdict"}
    assert verdict_events == {c.claim_id for c in claims}


def test_a_live_stream_loses_no_claim_and_shows_each_within_a_second(tmp_path: Path) -> None:
    from bench.debates import SMALL, _live_run

    live = _live_run(SMALL, tmp_path / "live")
    assert live["segments_stored"] == live["segments_sent"] == SMALL.live_segments
    assert live["claims_missing"] == 0 and live["claims"] >= live["claims_expected"] > 0
    assert live["p50_s"] < 1.0
