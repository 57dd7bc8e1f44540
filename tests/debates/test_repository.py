"""The debate store's building blocks: idempotent segments, claim keys, fenced leases, events, verdict history."""

from __future__ import annotations

import json
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from icarus.debates import repository as repo
from icarus.debates.model import (
    Basis,
    ClaimVerdict,
    DebateSettings,
    DetectedClaim,
    ResearchMode,
    Segment,
    Verdict,
)
from icarus.store import Store
from icarus.store.debate_tables import ClaimVerdictRecord, DebateSegmentRecord
from tests.debates.store_fixtures import OPERATOR, FakeClock, make_service, segment
from tests.debates.store_fixtures import clock as clock
from tests.debates.store_fixtures import db_url as db_url
from tests.debates.store_fixtures import store as store

LEASE = timedelta(minutes=5)


def _debate(store: Store, clock: FakeClock, modes: list[ResearchMode] | None = None) -> str:
    return (
        make_service(store, clock, inline=False)
        .create_debate(OPERATOR, DebateSettings(research_modes=modes or []))
        .id
    )


def test_segments_are_stored_once_by_id_in_arrival_order(store: Store, clock: FakeClock) -> None:
    debate_id = _debate(store, clock)
    a, b, c = (segment(i, f"text {i}") for i in ("a", "b", "c"))
    changed_a = a.model_copy(update={"text": "a second copy with other words"})
    fresh, duplicates = store.transaction(
        lambda s: repo.add_segments(s, debate_id, [b, a, changed_a], clock.now)
    )
    assert ([x.segment_id for x in fresh], duplicates) == (["b", "a"], 1)
    fresh, duplicates = store.transaction(lambda s: repo.add_segments(s, debate_id, [a, c], clock.now))
    assert ([x.segment_id for x in fresh], duplicates) == (["c"], 1)
    with store.reading() as session:
        stored = repo.segments(session, debate_id)
        seqs = session.scalars(select(DebateSegmentRecord.seq).order_by(DebateSegmentRecord.seq)).all()
    assert [s.segment_id for s in stored] == ["b", "a", "c"] and list(seqs) == [1, 2, 3]
    assert stored[1].text == "text a"  # the first copy of an id stands


def test_the_same_segment_id_in_two_debates_is_two_segments(store: Store, clock: FakeClock) -> None:
    first, second = _debate(store, clock), _debate(store, clock)
    for debate_id in (first, second):

        def add(session: Session, d: str = debate_id) -> tuple[list[Segment], int]:
            return repo.add_segments(session, d, [segment("x", "t")], clock.now)

        assert len(store.transaction(add)[0]) == 1


def test_mark_detected_counts_only_segments_not_yet_detected(store: Store, clock: FakeClock) -> None:
    debate_id = _debate(store, clock)
    store.transaction(
        lambda s: repo.add_segments(s, debate_id, [segment("a", "t"), segment("b", "t")], clock.now)
    )
    assert store.transaction(lambda s: repo.mark_detected(s, debate_id, ["a", "b"])) == 2
    assert store.transaction(lambda s: repo.mark_detected(s, debate_id, ["a", "b"])) == 0


def test_text_key_ignores_case_spacing_and_end_punctuation() -> None:
    assert repo.text_key("  Taxes   ROSE 5 percent.") == repo.text_key("taxes rose 5 percent")
    assert repo.text_key("Taxes rose 5 percent") != repo.text_key("Taxes rose 6 percent")
    assert len(repo.text_key("x" * 5000)) == repo.TEXT_KEY_CHARS


def _panel_id(store: Store, clock: FakeClock) -> int:
    debate_id = _debate(store, clock)

    def work(session: Session) -> int:
        claim = repo.add_claim(
            session,
            debate_id,
            DetectedClaim(text="Taxes rose 5 percent.", checkworthiness=0.9),
            clock.now,
            withheld=None,
        )
        return repo.add_panel(session, claim, ResearchMode.TWO_STEP, clock.now).id

    return store.transaction(work)


def test_a_lease_is_exclusive_until_it_runs_out_and_then_fences_out_its_holder(
    store: Store, clock: FakeClock
) -> None:
    panel_id = _panel_id(store, clock)
    first = store.transaction(lambda s: repo.lease_panel(s, panel_id, "one", clock.now, LEASE))
    assert first is not None and first.attempt == 1
    assert store.transaction(lambda s: repo.lease_panel(s, panel_id, "two", clock.now, LEASE)) is None
    clock.advance(minutes=5)
    assert (
        store.transaction(lambda s: repo.lease_panel(s, panel_id, "two", clock.now, LEASE)) is None
    )  # not yet
    clock.advance(seconds=1)
    second = store.transaction(lambda s: repo.lease_panel(s, panel_id, "two", clock.now, LEASE))
    assert second is not None and second.attempt == 2
    assert store.transaction(lambda s: repo.held_panel(s, first) is None)
    assert store.transaction(lambda s: repo.held_panel(s, second) is not None)


def test_runnable_panels_are_due_pending_ones_and_expired_leases(store: Store, clock: FakeClock) -> None:
    panel_id = _panel_id(store, clock)
    with store.reading() as session:
        assert repo.runnable_panel_ids(session, clock.now) == [panel_id]
    store.transaction(lambda s: repo.lease_panel(s, panel_id, "one", clock.now, LEASE))
    with store.reading() as session:
        assert repo.runnable_panel_ids(session, clock.now) == []
        assert repo.runnable_panel_ids(session, clock.now + LEASE + timedelta(seconds=1)) == [panel_id]


def test_events_are_numbered_per_debate_from_one(store: Store, clock: FakeClock) -> None:
    first, second = _debate(store, clock), _debate(store, clock)
    for n in range(3):

        def add(session: Session, n: int = n) -> int:
            return repo.add_event(session, first, "claim", {"n": n}, clock.now)

        store.transaction(add)
    store.transaction(lambda s: repo.add_event(s, second, "claim", {"n": 0}, clock.now))
    with store.reading() as session:
        events = repo.events_after(session, first, 0, 10)
        assert [(e.id, e.data["n"]) for e in events] == [(1, 0), (2, 1), (3, 2)]
        assert [e.id for e in repo.events_after(session, first, 2, 10)] == [3]
        assert [e.id for e in repo.events_after(session, second, 0, 10)] == [1]


def test_a_replaced_claim_verdict_joins_the_history_and_an_unchanged_one_writes_nothing(
    store: Store, clock: FakeClock
) -> None:
    panel_id = _panel_id(store, clock)
    with store.reading() as session:
        claim_id = repo.panel_record(session, panel_id).claim_id
    first = ClaimVerdict(verdict=Verdict.TRUE, confidence=0.8, basis=Basis.AGREEMENT)
    second = first.model_copy(update={"verdict": Verdict.FALSE, "basis": Basis.OPERATOR})
    assert store.transaction(lambda s: repo.store_claim_verdict(s, claim_id, None, clock.now)) is False
    assert store.transaction(lambda s: repo.store_claim_verdict(s, claim_id, first, clock.now)) is True
    assert store.transaction(lambda s: repo.store_claim_verdict(s, claim_id, first, clock.now)) is False
    assert store.transaction(lambda s: repo.store_claim_verdict(s, claim_id, second, clock.now)) is True
    with store.reading() as session:
        assert repo.claim_verdict(session, claim_id) == second
        row = session.get(ClaimVerdictRecord, claim_id)
        assert row is not None
        assert [h["claim_verdict"]["verdict"] for h in json.loads(row.history_json)] == ["true"]


def test_a_nul_in_a_segment_is_stored_as_a_replacement_character(store: Store, clock: FakeClock) -> None:
    debate_id = _debate(store, clock)
    store.transaction(
        lambda s: repo.add_segments(s, debate_id, [segment("a", "fell\x00 5 percent")], clock.now)
    )
    with store.reading() as session:
        assert repo.segments(session, debate_id)[0].text == "fell\ufffd 5 percent"
