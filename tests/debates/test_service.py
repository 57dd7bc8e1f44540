"""The debate service: the speaker gate, claims and panels, escalation, outages, exactly-once completion."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from datetime import date, timedelta

import pytest

from icarus.debates.adjudication import AdjudicationOutcome, AdjudicationRequest, OfflineAdjudicator
from icarus.debates.detection import detect_claims
from icarus.debates.errors import (
    ClaimNotFound,
    DebateNotFound,
    InvalidChange,
    PanelNotFound,
    SpeakersWaiting,
    UnknownSpeaker,
)
from icarus.debates.model import (
    Basis,
    DebateSettings,
    DetectedClaim,
    ResearchDelay,
    ResearchMode,
    Segment,
    Verdict,
)
from icarus.debates.research_runs import record_answer
from icarus.debates.retries import AdjudicationRetryPolicy
from icarus.debates.service import DebateService, ServiceConfig
from icarus.store import Store
from icarus.store.debate_tables import DetectionState, PanelState
from icarus.store.tokens import Role
from tests.debates.store_fixtures import (
    OPERATOR,
    FakeClock,
    ScriptedResearch,
    api_caller,
    make_service,
    outage,
    segment,
    sourced,
)
from tests.debates.store_fixtures import clock as clock
from tests.debates.store_fixtures import db_url as db_url
from tests.debates.store_fixtures import store as store

TWO_STEP = ResearchMode.TWO_STEP
DECOMPOSE = ResearchMode.DECOMPOSE
LOCAL = ResearchMode.LOCAL

TRANSCRIPT = b"""1
00:00:01,000 --> 00:00:04,000
SPEAKER_1: Unemployment fell to 3.9 percent in 2023.

2
00:00:05,000 --> 00:00:08,000
SPEAKER_2: I cut taxes for 2 million families.

3
00:00:09,000 --> 00:00:12,000
SPEAKER_1: Inflation reached 7 percent last year.
"""


def gated(*modes: ResearchMode) -> DebateSettings:
    return DebateSettings(research_modes=list(modes), speaker_gate_enabled=True)


# --- the live speaker gate -------------------------------------------------------------------------------


def test_live_gate_withholds_claims_until_every_heard_voice_is_named_then_releases_them_in_order(
    store: Store, clock: FakeClock
) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, gated(TWO_STEP))
    first = service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.", "A")])
    assert (first.claims_detected, first.claims_withheld, first.speakers_waiting) == (1, 1, ["A"])
    service.add_segments(OPERATOR, debate.id, [segment("s2", "Crime fell 10 percent.", "B")])
    assert service.list_claims(OPERATOR, debate.id) == []

    service.set_speaker_map(OPERATOR, debate.id, {"A": "Ana"})
    assert service.list_claims(OPERATOR, debate.id) == []  # B is still unnamed: the whole backlog waits
    assert service.get_debate(OPERATOR, debate.id).speakers_waiting == ["B"]

    service.set_speaker_map(OPERATOR, debate.id, {"B": "Ben"})
    claims = service.list_claims(OPERATOR, debate.id)
    assert [c.text for c in claims] == ["Taxes rose 5 percent.", "Crime fell 10 percent."]
    assert [c.speaker_name for c in claims] == ["Ana", "Ben"]
    assert all(c.claim_verdict is not None for c in claims)  # released claims were researched


def test_a_new_unnamed_voice_withholds_later_batches_again(store: Store, clock: FakeClock) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, gated())
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.", "A")])
    service.set_speaker_map(OPERATOR, debate.id, {"A": "Ana"})
    later = service.add_segments(OPERATOR, debate.id, [segment("s2", "Crime fell 10 percent.", "C")])
    assert later.claims_withheld == 1 and later.speakers_waiting == ["C"]
    assert len(service.list_claims(OPERATOR, debate.id)) == 1


def test_without_the_gate_claims_show_at_once(store: Store, clock: FakeClock) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[]))
    accepted = service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.", "A")])
    assert (accepted.claims_detected, accepted.claims_withheld, accepted.speakers_waiting) == (1, 0, [])


def test_naming_a_label_never_heard_is_refused(store: Store, clock: FakeClock) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, gated())
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.", "A")])
    with pytest.raises(UnknownSpeaker) as refused:
        service.set_speaker_map(OPERATOR, debate.id, {"A": "Ana", "Z": "Zed"})
    assert refused.value.labels == ["Z"] and refused.value.http_status == 422
    assert service.get_debate(OPERATOR, debate.id).speakers == {}  # nothing of the refused map was kept
    with pytest.raises(InvalidChange):
        service.set_speaker_map(OPERATOR, debate.id, {"A": "   "})


def test_a_segment_sent_twice_is_one_segment_and_one_claim(store: Store, clock: FakeClock) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[]))
    once = segment("s1", "Taxes rose 5 percent.")
    first = service.add_segments(OPERATOR, debate.id, [once, once])
    again = service.add_segments(OPERATOR, debate.id, [once])
    assert (first.accepted, first.duplicates, again.accepted, again.duplicates) == (1, 1, 0, 1)
    assert service.get_debate(OPERATOR, debate.id).segment_count == 1
    assert len(service.list_claims(OPERATOR, debate.id)) == 1


def real_detection(
    segments: Sequence[Segment], speaker_names: Mapping[str, str], *, as_of: date
) -> list[DetectedClaim]:
    return detect_claims(segments, speaker_names, as_of=as_of)


def test_a_sentence_split_across_live_captions_is_read_whole(store: Store, clock: FakeClock) -> None:
    service = make_service(store, clock, detect=real_detection)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[]))
    first = service.add_segments(
        OPERATOR, debate.id, [segment("s1", "Unemployment fell from 6.3 percent in")]
    )
    assert first.claims_detected == 0  # the sentence is not finished: it waits for the next caption
    second = service.add_segments(OPERATOR, debate.id, [segment("s2", "2019 to 4.7 percent in 2024.")])
    assert second.claims_detected == 1
    [claim] = service.list_claims(OPERATOR, debate.id)
    assert claim.text.rstrip(".") == "Unemployment fell from 6.3 percent in 2019 to 4.7 percent in 2024"
    assert claim.segment_ids == ["s1", "s2"]


def test_an_unfinished_live_sentence_is_read_once_it_has_waited_a_while(
    store: Store, clock: FakeClock
) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[]))
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent and")])
    assert service.list_claims(OPERATOR, debate.id) == []
    clock.advance(minutes=2)
    service.dispatch_due()
    assert [c.text for c in service.list_claims(OPERATOR, debate.id)] == ["Taxes rose 5 percent and"]


def test_segments_sent_to_a_debate_made_from_a_file_join_its_transcript(
    store: Store, clock: FakeClock
) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[]))
    service.ingest_transcript(OPERATOR, debate.id, TRANSCRIPT, "srt")
    added = service.add_segments(OPERATOR, debate.id, [segment("late", "Wages grew 3 percent.")])
    assert added.accepted == 1
    assert len(service.list_claims(OPERATOR, debate.id)) == 4


# --- file ingest: deferred detection -----------------------------------------------------------------------


def test_file_ingest_defers_detection_until_named_and_run_detection_says_who_it_waits_for(
    store: Store, clock: FakeClock
) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, gated(TWO_STEP))
    ingested = service.ingest_transcript(OPERATOR, debate.id, TRANSCRIPT, "srt")
    assert ingested.detection is DetectionState.DEFERRED
    assert ingested.speakers_waiting == ["SPEAKER_1", "SPEAKER_2"]
    with pytest.raises(SpeakersWaiting) as waiting:
        service.run_detection(OPERATOR, debate.id)
    assert waiting.value.still_waiting == ["SPEAKER_1", "SPEAKER_2"] and waiting.value.http_status == 409
    assert waiting.value.members() == {"still_waiting": ["SPEAKER_1", "SPEAKER_2"]}
    assert service.list_claims(OPERATOR, debate.id) == []

    service.set_speaker_map(OPERATOR, debate.id, {"SPEAKER_1": "Ana", "SPEAKER_2": "Ben"})  # starts by itself
    view = service.get_debate(OPERATOR, debate.id)
    assert view.detection_state is DetectionState.DONE and view.speakers_waiting == []
    claims = service.list_claims(OPERATOR, debate.id)
    assert [c.speaker_name for c in claims] == ["Ana", "Ben", "Ana"]
    assert all(c.claim_verdict is not None and c.claim_verdict.verdict is Verdict.TRUE for c in claims)


def test_skip_speakers_runs_detection_and_holds_back_only_the_claims_that_need_a_name(
    store: Store, clock: FakeClock
) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, gated())
    service.ingest_transcript(OPERATOR, debate.id, TRANSCRIPT, "srt")
    started = service.run_detection(OPERATOR, debate.id, skip_speakers=True)
    assert started.unnamed_speakers == ["SPEAKER_1", "SPEAKER_2"]
    shown = service.list_claims(OPERATOR, debate.id)
    assert [c.speaker_name for c in shown] == ["Speaker 1", "Speaker 1"]  # "I cut taxes" waits for a name
    service.set_speaker_map(OPERATOR, debate.id, {"SPEAKER_2": "Ben"})
    named = [c.speaker_name for c in service.list_claims(OPERATOR, debate.id)]
    assert named == ["Speaker 1", "Ben", "Speaker 1"]  # in the order spoken


def test_deferred_detection_starts_from_the_periodic_dispatcher_once_every_voice_is_named(
    store: Store, clock: FakeClock
) -> None:
    producer = make_service(store, clock, inline=False)  # the API: nothing runs in the request
    debate = producer.create_debate(OPERATOR, gated())
    producer.ingest_transcript(OPERATOR, debate.id, TRANSCRIPT, "srt")
    producer.set_speaker_map(OPERATOR, debate.id, {"SPEAKER_1": "Ana", "SPEAKER_2": "Ben"})
    assert producer.get_debate(OPERATOR, debate.id).detection_state is DetectionState.REQUESTED
    worker = make_service(store, clock, inline=True)
    assert worker.dispatch_due() >= 1
    assert len(worker.list_claims(OPERATOR, debate.id)) == 3


def test_a_transcript_without_the_gate_is_detected_at_once(store: Store, clock: FakeClock) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[]))
    assert service.ingest_transcript(OPERATOR, debate.id, TRANSCRIPT).detection is DetectionState.REQUESTED
    assert len(service.list_claims(OPERATOR, debate.id)) == 3


# --- claims and panels --------------------------------------------------------------------------------------


def test_no_research_modes_means_claims_persisted_and_shown_but_never_researched(
    store: Store, clock: FakeClock
) -> None:
    research = ScriptedResearch()
    service = make_service(store, clock, research)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[]))
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    [claim] = service.list_claims(OPERATOR, debate.id)
    results = service.claim_results(OPERATOR, claim.claim_id, debate.id)
    assert results.panels == [] and results.claim_verdict is None and results.best is None
    assert research.calls == []


def test_one_pending_panel_per_configured_method_and_one_answer_when_all_agree(
    store: Store, clock: FakeClock
) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP, DECOMPOSE]))
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    [claim] = service.list_claims(OPERATOR, debate.id)
    results = service.claim_results(OPERATOR, claim.claim_id, debate.id)
    assert [p.research_mode for p in results.panels] == [TWO_STEP, DECOMPOSE]
    assert results.claim_verdict is not None and results.claim_verdict.basis is Basis.AGREEMENT
    assert results.best == results.claim_verdict and results.conflict is False


def test_the_answer_is_null_while_a_configured_method_is_pending(store: Store, clock: FakeClock) -> None:
    service = make_service(store, clock, inline=False)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP, DECOMPOSE]))
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    [claim] = service.list_claims(OPERATOR, debate.id)
    panels = service.claim_results(OPERATOR, claim.claim_id, debate.id).panels
    service.research_panel(panels[0].panel_id)
    results = service.claim_results(OPERATOR, claim.claim_id, debate.id)
    assert results.claim_verdict is None
    assert [p.verdict for p in results.panels] == [Verdict.TRUE, Verdict.PENDING]


def test_a_shared_claim_researches_only_the_missing_method(store: Store, clock: FakeClock) -> None:
    research = ScriptedResearch()
    service = make_service(store, clock, research)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP]))
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    submitted = service.submit_claim(OPERATOR, debate.id, "taxes rose 5 percent", [TWO_STEP, DECOMPOSE])
    assert not submitted.created
    assert submitted.research_modes == [DECOMPOSE] and submitted.already_researched == [TWO_STEP]
    assert [mode for mode, _text, _strong in research.calls] == [TWO_STEP, DECOMPOSE]
    again = service.submit_claim(OPERATOR, debate.id, "Taxes rose 5 percent.", [TWO_STEP, DECOMPOSE])
    assert again.panel_ids == [] and len(research.calls) == 2


def test_a_manually_added_method_widens_what_the_answer_waits_for(store: Store, clock: FakeClock) -> None:
    service = make_service(store, clock, inline=False)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP]))
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    service.run_due()
    [claim] = service.list_claims(OPERATOR, debate.id)
    assert claim.claim_verdict is not None
    submitted = service.submit_claim(OPERATOR, debate.id, claim.text, LOCAL, manually_added=True)
    assert service.claim_results(OPERATOR, claim.claim_id, debate.id).claim_verdict is None  # waits for local
    service.research_panel(submitted.panel_ids[0])
    results = service.claim_results(OPERATOR, claim.claim_id, debate.id)
    assert results.claim_verdict is not None
    assert next(p for p in results.panels if p.research_mode is LOCAL).manual


def test_a_new_claim_by_post_is_added_and_researched_with_the_debate_methods(
    store: Store, clock: FakeClock
) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP]))
    submitted = service.submit_claim(OPERATOR, debate.id, "The deficit doubled since 2019.")
    assert submitted.created and submitted.research_modes == [TWO_STEP]
    [claim] = service.list_claims(OPERATOR, debate.id)
    assert claim.manually_added and claim.claim_verdict is not None


def test_strong_language_reruns_the_stored_methods_searching_in_english_and_spanish(
    store: Store, clock: FakeClock
) -> None:
    research = ScriptedResearch(default=Verdict.UNVERIFIABLE)
    service = make_service(store, clock, research)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP]))
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    research.default = Verdict.TRUE
    rerun = service.submit_claim(OPERATOR, debate.id, "Taxes rose 5 percent.", strong_language=True)
    assert rerun.research_modes == [TWO_STEP] and research.calls[-1][2] is True
    [claim] = service.list_claims(OPERATOR, debate.id)
    assert (
        claim.claim_verdict is not None and claim.claim_verdict.verdict is Verdict.TRUE
    )  # the rerun answers


def test_strong_language_auto_retry_is_off_by_default_and_reruns_unverifiable_when_on(
    store: Store, clock: FakeClock
) -> None:
    research = ScriptedResearch(default=Verdict.UNVERIFIABLE)
    service = make_service(store, clock, research)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP]))
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    assert [strong for _mode, _text, strong in research.calls] == [False]
    auto = make_service(store, clock, research, config=ServiceConfig(strong_language_auto_retry=True))
    auto.add_segments(OPERATOR, debate.id, [segment("s2", "Crime fell 10 percent.")])
    assert [strong for _mode, _text, strong in research.calls] == [False, False, True]


def test_strong_language_auto_retry_waits_until_every_panel_of_the_claim_is_unverifiable(
    store: Store, clock: FakeClock
) -> None:
    research = ScriptedResearch(answers={TWO_STEP: lambda _c: sourced(TWO_STEP, Verdict.UNVERIFIABLE)})
    auto = make_service(store, clock, research, config=ServiceConfig(strong_language_auto_retry=True))
    debate = auto.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP, DECOMPOSE]))
    auto.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    assert [strong for _mode, _text, strong in research.calls] == [False, False]  # decompose said true


def test_strong_language_auto_retry_reruns_each_method_once_when_all_are_unverifiable(
    store: Store, clock: FakeClock
) -> None:
    research = ScriptedResearch(default=Verdict.UNVERIFIABLE)
    auto = make_service(store, clock, research, config=ServiceConfig(strong_language_auto_retry=True))
    debate = auto.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP, DECOMPOSE]))
    auto.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    calls = [(mode, strong) for mode, _text, strong in research.calls]
    assert calls == [(TWO_STEP, False), (DECOMPOSE, False), (TWO_STEP, True), (DECOMPOSE, True)]


VOICE_TAGGED = b"""WEBVTT

00:00:01.000 --> 00:00:04.000
<v Helena Marsh>Unemployment fell to 3.9 percent in 2023.

00:00:05.000 --> 00:00:08.000
<v SPEAKER_2>Inflation reached 7 percent last year.
"""


def test_a_voice_tag_that_is_a_name_names_its_speaker_for_the_gate_and_detection(
    store: Store, clock: FakeClock
) -> None:
    seen: list[dict[str, str]] = []

    def detect(segments: Sequence[Segment], names: Mapping[str, str], *, as_of: date) -> list[DetectedClaim]:
        seen.append(dict(names))
        return detect_claims(segments, names, as_of=as_of)

    service = make_service(store, clock, detect=detect)
    debate = service.create_debate(OPERATOR, gated(TWO_STEP))
    ingested = service.ingest_transcript(OPERATOR, debate.id, VOICE_TAGGED, "vtt")
    assert ingested.speakers_waiting == ["SPEAKER_2"]  # Helena Marsh is named by her tag
    assert ingested.detection is DetectionState.DEFERRED
    service.set_speaker_map(OPERATOR, debate.id, {"SPEAKER_2": "Ana Ruiz"})
    assert seen and seen[-1] == {"Helena Marsh": "Helena Marsh", "SPEAKER_2": "Ana Ruiz"}
    speakers = {c.speaker_name for c in service.list_claims(OPERATOR, debate.id)}
    assert speakers == {"Helena Marsh", "Ana Ruiz"}


def test_the_last_event_id_is_the_feeds_newest_and_only_inside_the_organisation(
    store: Store, clock: FakeClock
) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP]))
    assert service.last_event_id(OPERATOR, debate.id) == 0
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    events = service.events_after(OPERATOR, debate.id, 0, 1000)
    assert events and service.last_event_id(OPERATOR, debate.id) == events[-1].id
    with pytest.raises(DebateNotFound):
        service.last_event_id(api_caller(organisation_id=99), debate.id)


# --- escalation ----------------------------------------------------------------------------------------------


def test_escalation_adds_the_next_rung_when_every_method_is_unverifiable_and_recomputes(
    store: Store, clock: FakeClock
) -> None:
    research = ScriptedResearch(answers={TWO_STEP: lambda _c: sourced(TWO_STEP, Verdict.UNVERIFIABLE)})
    service = make_service(store, clock, research)
    settings = DebateSettings(research_modes=[TWO_STEP], escalate_enabled=True, escalate_max_steps=1)
    debate = service.create_debate(OPERATOR, settings)
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    [claim] = service.list_claims(OPERATOR, debate.id)
    results = service.claim_results(OPERATOR, claim.claim_id, debate.id)
    assert [(p.research_mode, p.escalated) for p in results.panels] == [(TWO_STEP, False), (DECOMPOSE, True)]
    assert results.claim_verdict is not None and results.claim_verdict.verdict is Verdict.TRUE
    assert set(results.claim_verdict.panel_ids) == {p.panel_id for p in results.panels}


def test_escalation_stays_off_unless_enabled_and_stops_at_the_step_bound(
    store: Store, clock: FakeClock
) -> None:
    research = ScriptedResearch(default=Verdict.UNVERIFIABLE)
    service = make_service(store, clock, research)
    off = service.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP]))
    service.add_segments(OPERATOR, off.id, [segment("s1", "Taxes rose 5 percent.")])
    bounded = service.create_debate(
        OPERATOR, DebateSettings(research_modes=[TWO_STEP], escalate_enabled=True, escalate_max_steps=2)
    )
    service.add_segments(OPERATOR, bounded.id, [segment("s1", "Taxes rose 5 percent.")])
    [quiet] = service.list_claims(OPERATOR, off.id)
    [climbed] = service.list_claims(OPERATOR, bounded.id)
    assert len(service.claim_results(OPERATOR, quiet.claim_id).panels) == 1
    modes = [p.research_mode for p in service.claim_results(OPERATOR, climbed.claim_id).panels]
    assert modes == [TWO_STEP, DECOMPOSE, ResearchMode.DECOMPOSE_INVEST]


# --- search outage ---------------------------------------------------------------------------------------------


def test_search_outage_keeps_the_panel_pending_and_retries_at_10_30_120_minutes_then_unverifiable(
    store: Store, clock: FakeClock
) -> None:
    research = ScriptedResearch(answers={TWO_STEP: lambda _c: outage(TWO_STEP)})
    service = make_service(store, clock, research)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP]))
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    [claim] = service.list_claims(OPERATOR, debate.id)
    for minutes in (10, 30, 120):
        [panel] = service.claim_results(OPERATOR, claim.claim_id, debate.id).panels
        assert panel.verdict is Verdict.PENDING
        assert panel.research_delay_reason is ResearchDelay.SEARCH_UNAVAILABLE
        assert panel.next_attempt_at == clock.now + timedelta(minutes=minutes)
        clock.advance(minutes=minutes - 1)
        assert service.run_due() == 0  # not due a minute early
        clock.advance(minutes=1)
        assert service.run_due() == 1
    results = service.claim_results(OPERATOR, claim.claim_id, debate.id)
    assert [p.verdict for p in results.panels] == [Verdict.UNVERIFIABLE]
    assert results.panels[0].research_delay_reason is None
    assert results.claim_verdict is not None and results.claim_verdict.verdict is Verdict.UNVERIFIABLE
    assert len(research.calls) == 4


def test_a_search_that_comes_back_answers_normally(store: Store, clock: FakeClock) -> None:
    answers = iter([outage(TWO_STEP), sourced(TWO_STEP, Verdict.FALSE)])
    service = make_service(store, clock, ScriptedResearch(answers={TWO_STEP: lambda _c: next(answers)}))
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP]))
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    [claim] = service.list_claims(OPERATOR, debate.id)
    assert service.claim_results(OPERATOR, claim.claim_id).claim_verdict is None  # not the barrier
    clock.advance(minutes=10)
    service.run_due()
    verdict = service.claim_results(OPERATOR, claim.claim_id).claim_verdict
    assert verdict is not None and verdict.verdict is Verdict.FALSE


# --- exactly once --------------------------------------------------------------------------------------------------


def test_a_worker_killed_mid_panel_leaves_it_to_another_and_the_panel_completes_exactly_once(
    store: Store, clock: FakeClock
) -> None:
    killed_worker = make_service(store, clock, inline=False)
    debate = killed_worker.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP]))
    killed_worker.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    [claim] = killed_worker.list_claims(OPERATOR, debate.id)
    [pending] = killed_worker.claim_results(OPERATOR, claim.claim_id).panels

    # The first worker leases the panel and "dies" inside its research: it never returns in time.
    from icarus.debates import repository as repo

    stale = store.transaction(
        lambda s: repo.lease_panel(
            s, pending.panel_id, "dead-worker", clock.now, killed_worker.config.panel_lease
        )
    )
    assert stale is not None
    assert killed_worker.research_panel(pending.panel_id).startswith("not runnable")  # still leased

    clock.advance(seconds=killed_worker.config.panel_lease.total_seconds() + 1)
    survivor = make_service(store, clock, ScriptedResearch(default=Verdict.FALSE), inline=False)
    assert survivor.dispatch_due() == 1  # the expired lease makes the panel due again
    assert survivor.research_panel(pending.panel_id) == "answered false"

    # The dead worker wakes up and tries to write its own (different) answer: the fence refuses it.
    late = (killed_worker.store, killed_worker.clock, killed_worker.pipeline, killed_worker.config, stale)
    said, _ = record_answer(*late, sourced(TWO_STEP, Verdict.TRUE))
    assert said.startswith("fenced")
    results = survivor.claim_results(OPERATOR, claim.claim_id)
    assert [(p.verdict, p.state) for p in results.panels] == [(Verdict.FALSE, PanelState.DONE)]
    assert results.claim_verdict is not None and results.claim_verdict.verdict is Verdict.FALSE
    panel_events = [e for e in survivor.events_after(OPERATOR, debate.id) if e.kind == "panel"]
    assert [e.data["panel"]["verdict"] for e in panel_events] == ["pending", "false"]


def test_a_method_that_keeps_failing_is_retried_then_answered_unverifiable(
    store: Store, clock: FakeClock
) -> None:
    def broken(_claim: object) -> object:
        raise RuntimeError("provider exploded")

    service = make_service(store, clock, ScriptedResearch(answers={TWO_STEP: broken}))  # type: ignore[dict-item]
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP]))
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    [claim] = service.list_claims(OPERATOR, debate.id)
    for _ in range(service.config.max_attempts - 1):
        assert service.claim_results(OPERATOR, claim.claim_id).panels[0].state is PanelState.PENDING
        clock.advance(hours=1)
        service.run_due()
    [panel] = service.claim_results(OPERATOR, claim.claim_id).panels
    assert panel.verdict is Verdict.UNVERIFIABLE and panel.panel is not None
    assert panel.panel.trace["failure"] == "stopped on an error"
    assert "on each of its 3 attempts" in panel.panel.explanation


# --- operators, readers, settings, events ---------------------------------------------------------------------------


def test_winner_selection_answers_for_the_claim_and_a_rejection_leaves_the_previous_winner(
    store: Store, clock: FakeClock
) -> None:
    research = ScriptedResearch(
        answers={DECOMPOSE: lambda _c: sourced(DECOMPOSE, Verdict.FALSE, url="https://b.example/2")}
    )
    service = make_service(store, clock, research)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP, DECOMPOSE]))
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    [claim] = service.list_claims(OPERATOR, debate.id)
    two_step, decompose = service.claim_results(OPERATOR, claim.claim_id).panels
    reviewer = api_caller(role=Role.REVIEWER)
    chosen = service.select_winner(reviewer, claim.claim_id, decompose.panel_id)
    assert chosen.claim_verdict is not None and chosen.claim_verdict.basis is Basis.OPERATOR
    assert chosen.claim_verdict.verdict is Verdict.FALSE
    after = service.reject_winner(reviewer, claim.claim_id, two_step.panel_id)
    assert (
        after.operator_winner_panel_id == decompose.panel_id and after.claim_verdict == chosen.claim_verdict
    )
    with pytest.raises(PanelNotFound):
        service.select_winner(reviewer, claim.claim_id, 999_999)


def test_votes_corrections_and_winners_apply_only_to_research_panels(store: Store, clock: FakeClock) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP]))
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    [claim] = service.list_claims(OPERATOR, debate.id)
    [panel] = service.claim_results(OPERATOR, claim.claim_id).panels
    before = service.claim_results(OPERATOR, claim.claim_id).claim_verdict
    service.vote(api_caller(role=Role.READER), panel.panel_id, -1)
    service.feedback(
        api_caller(role=Role.READER),
        "answer_feedback",
        claim_id=claim.claim_id,
        data={"shown_verdict": "true", "basis": "agreement", "panel_ids": [panel.panel_id], "consent": True},
    )
    assert service.claim_results(OPERATOR, claim.claim_id).claim_verdict == before  # feedback never decides
    for bad_id in (claim.claim_id + 1000, 0, -3, 2**40):
        with pytest.raises(PanelNotFound):
            service.vote(api_caller(role=Role.READER), bad_id, 1)
        with pytest.raises(PanelNotFound):
            service.correct_verdict(api_caller(role=Role.REVIEWER), bad_id, Verdict.FALSE)
    corrected = service.correct_verdict(api_caller(role=Role.REVIEWER), panel.panel_id, Verdict.MISLEADING)
    assert corrected.corrected_verdict is Verdict.MISLEADING


def test_unknown_ids_are_not_found(store: Store, clock: FakeClock) -> None:
    service = make_service(store, clock)
    with pytest.raises(DebateNotFound):
        service.get_debate(OPERATOR, "nope")
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[]))
    with pytest.raises(ClaimNotFound):
        service.claim_results(OPERATOR, 12345, debate.id)
    with pytest.raises(ClaimNotFound):
        service.claim_results(OPERATOR, 2**40, debate.id)


def test_settings_changes_are_validated_and_weights_set_alone(store: Store, clock: FakeClock) -> None:
    research = ScriptedResearch()
    service = make_service(store, clock, research)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP]))
    with pytest.raises(InvalidChange):
        service.update_debate(OPERATOR, debate.id, {"cost_weight": 1.5})
    with pytest.raises(InvalidChange):
        service.update_debate(OPERATOR, debate.id, {"research_modes": ["telepathy"]})
    with pytest.raises(InvalidChange):
        service.update_debate(OPERATOR, debate.id, {"no_such_setting": True})
    service.set_model_weights(OPERATOR, debate.id, cost=0.7)
    view = service.set_model_weights(OPERATOR, debate.id, latency=0.0)
    assert (view.settings.cost_weight, view.settings.latency_weight, view.settings.quality_weight) == (
        0.7,
        0.0,
        None,
    )
    service.submit_claim(OPERATOR, debate.id, "Taxes rose 5 percent.")
    assert research.settings_seen[-1].cost_weight == 0.7  # the weights reach the research methods
    changed = service.update_debate(OPERATOR, debate.id, {"escalate_enabled": True, "title": "Final debate"})
    assert changed.settings.escalate_enabled and changed.title == "Final debate"


def test_the_event_feed_numbers_events_per_debate_and_carries_panels_with_the_claim_verdict(
    store: Store, clock: FakeClock
) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP]))
    other = service.create_debate(OPERATOR, DebateSettings(research_modes=[]))
    service.add_segments(OPERATOR, other.id, [segment("s1", "Crime fell 10 percent.")])
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    events = service.events_after(OPERATOR, debate.id)
    assert [e.id for e in events] == list(range(1, len(events) + 1))
    assert [e.kind for e in events] == ["claim", "panel", "panel", "claim_verdict"]
    answered = events[2].data
    assert answered["panel"]["verdict"] == "true" and answered["claim_verdict"] is not None
    assert service.events_after(OPERATOR, debate.id, last_id=events[1].id) == events[2:]


def test_roles_are_enforced(store: Store, clock: FakeClock) -> None:
    service = make_service(store, clock)
    reader = api_caller(role=Role.READER)
    with pytest.raises(PermissionError):
        service.create_debate(reader, DebateSettings())
    debate = service.create_debate(api_caller(), DebateSettings(research_modes=[]))
    with pytest.raises(PermissionError):
        service.add_segments(reader, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    with pytest.raises(PermissionError):
        service.select_winner(api_caller(), 1, 1)
    assert service.get_debate(reader, debate.id).id == debate.id


def test_workers_racing_for_the_same_panels_answer_each_exactly_once(store: Store, clock: FakeClock) -> None:
    producer = make_service(store, clock, inline=False)
    debate = producer.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP, DECOMPOSE]))
    batch = [segment(f"s{n}", f"Taxes rose {n} percent.") for n in range(8)]
    producer.add_segments(OPERATOR, debate.id, batch)
    research = ScriptedResearch()
    workers = [make_service(store, clock, research, inline=False) for _ in range(4)]
    outcomes: list[str] = []

    def drain(worker: DebateService) -> None:
        panel_ids = [
            p.panel_id
            for c in worker.list_claims(OPERATOR, debate.id)
            for p in worker.claim_results(OPERATOR, c.claim_id).panels
        ]
        for panel_id in panel_ids:  # every worker tries every panel, in the same order: maximum contention
            outcomes.append(worker.research_panel(panel_id))

    threads = [threading.Thread(target=drain, args=(w,)) for w in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(o.startswith("answered") for o in outcomes) == 16
    assert len(research.calls) == 16  # nobody researched a panel another worker held
    events = producer.events_after(OPERATOR, debate.id, 0, 1000)
    answered = [e for e in events if e.kind == "panel" and e.data["panel"]["state"] == "done"]
    assert len(answered) == 16 and len({e.data["panel"]["panel_id"] for e in answered}) == 16
    assert [e.id for e in events] == list(range(1, len(events) + 1))
    claims = producer.list_claims(OPERATOR, debate.id)
    assert len(claims) == 8 and all(c.claim_verdict is not None for c in claims)


def test_a_rebuild_keeps_unchanged_answers_and_restores_a_lost_one(store: Store, clock: FakeClock) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP, DECOMPOSE]))
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    [claim] = service.list_claims(OPERATOR, debate.id)
    assert service.rebuild_verdicts(OPERATOR) == 0  # nothing changed, nothing rewritten
    from icarus.debates import repository as repo

    store.transaction(lambda s: repo.store_claim_verdict(s, claim.claim_id, None, clock.now))  # a lost answer
    assert service.claim_results(OPERATOR, claim.claim_id).claim_verdict is None
    assert service.rebuild_verdicts(OPERATOR, debate.id) == 1
    assert service.claim_results(OPERATOR, claim.claim_id).claim_verdict == claim.claim_verdict
    with pytest.raises(PermissionError):
        service.rebuild_verdicts(api_caller(role=Role.REVIEWER))


# --- metered adjudication: retries with backoff, attempts per conflict, the daily cap ---------------------


class FlakyAdjudicator:
    """Unavailable for its first ``failures`` calls, then the offline adjudicator's answer."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    def adjudicate(self, request: AdjudicationRequest) -> AdjudicationOutcome | None:
        self.calls += 1
        return None if self.calls <= self.failures else OfflineAdjudicator().adjudicate(request)


def conflicting(
    store: Store,
    clock: FakeClock,
    adjudicator: FlakyAdjudicator,
    policy: AdjudicationRetryPolicy,
    claims: int = 1,
) -> tuple[DebateService, str]:
    research = ScriptedResearch(
        answers={
            TWO_STEP: lambda _c: sourced(TWO_STEP, Verdict.TRUE, url="https://a.example/1"),
            DECOMPOSE: lambda _c: sourced(DECOMPOSE, Verdict.FALSE, url="https://b.example/2"),
        }
    )
    service = make_service(store, clock, research)
    service.pipeline.adjudicator = adjudicator
    service.pipeline.adjudication_policy = policy
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TWO_STEP, DECOMPOSE]))
    batch = [segment(f"s{n}", f"Taxes rose {n + 5} percent.") for n in range(claims)]
    service.add_segments(OPERATOR, debate.id, batch)
    return service, debate.id


def test_a_failed_adjudication_is_retried_with_backoff_until_it_answers(
    store: Store, clock: FakeClock
) -> None:
    adjudicator = FlakyAdjudicator(failures=2)
    policy = AdjudicationRetryPolicy(max_attempts=4, base_delay=timedelta(minutes=5))
    service, debate_id = conflicting(store, clock, adjudicator, policy)
    [claim] = service.list_claims(OPERATOR, debate_id)
    assert claim.claim_verdict is not None and claim.claim_verdict.basis is Basis.FALLBACK
    clock.advance(minutes=4)
    service.dispatch_due()
    assert adjudicator.calls == 1  # backing off
    clock.advance(minutes=1)
    service.dispatch_due()
    assert adjudicator.calls == 2  # second failure: the next wait doubles
    clock.advance(minutes=9)
    service.dispatch_due()
    assert adjudicator.calls == 2
    clock.advance(minutes=1)
    service.dispatch_due()
    [claim] = service.list_claims(OPERATOR, debate_id)
    assert claim.claim_verdict is not None and claim.claim_verdict.basis is Basis.ADJUDICATED
    clock.advance(days=1)
    service.dispatch_due()
    assert adjudicator.calls == 3  # answered: nothing more is scheduled


def test_adjudication_stops_after_its_attempts_and_keeps_the_fallback(store: Store, clock: FakeClock) -> None:
    adjudicator = FlakyAdjudicator(failures=99)
    policy = AdjudicationRetryPolicy(max_attempts=2, base_delay=timedelta(minutes=5))
    service, debate_id = conflicting(store, clock, adjudicator, policy)
    for _ in range(5):
        clock.advance(hours=1)
        service.dispatch_due()
    assert adjudicator.calls == 2
    [claim] = service.list_claims(OPERATOR, debate_id)
    assert claim.claim_verdict is not None and claim.claim_verdict.basis is Basis.FALLBACK


def test_the_daily_cap_is_shared_and_a_capped_conflict_waits_for_the_next_day(
    store: Store, clock: FakeClock
) -> None:
    adjudicator = FlakyAdjudicator(failures=0)
    policy = AdjudicationRetryPolicy(daily_cap=1)
    service, debate_id = conflicting(store, clock, adjudicator, policy, claims=2)
    first, second = service.list_claims(OPERATOR, debate_id)
    assert first.claim_verdict is not None and first.claim_verdict.basis is Basis.ADJUDICATED
    assert second.claim_verdict is not None and second.claim_verdict.basis is Basis.FALLBACK
    assert adjudicator.calls == 1
    clock.advance(hours=3)  # 23:00 UTC: still the same day
    service.dispatch_due()
    assert adjudicator.calls == 1
    clock.advance(hours=1)  # midnight: a new day's calls
    service.dispatch_due()
    _, second = service.list_claims(OPERATOR, debate_id)
    assert second.claim_verdict is not None and second.claim_verdict.basis is Basis.ADJUDICATED
