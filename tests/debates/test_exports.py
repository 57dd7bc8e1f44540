"""Exports and alert digests: each claim with its persisted final answer only, never a provisional one."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest

from icarus.debates.errors import DebateNotFound
from icarus.debates.exports import CSV_COLUMNS, rows_csv
from icarus.debates.model import DebateSettings, ResearchMode, Verdict
from icarus.debates.service import DebateService
from icarus.store import Store
from tests.debates.store_fixtures import (
    OPERATOR,
    FakeClock,
    ScriptedResearch,
    api_caller,
    make_service,
    segment,
    sourced,
)
from tests.debates.store_fixtures import clock as clock
from tests.debates.store_fixtures import db_url as db_url
from tests.debates.store_fixtures import store as store

TS, DC = ResearchMode.TWO_STEP, ResearchMode.DECOMPOSE


def provisional_debate(service: DebateService) -> tuple[str, int, dict[ResearchMode, int]]:
    settings = DebateSettings(research_modes=[TS, DC], provisional_claim_verdict=True)
    debate = service.create_debate(OPERATOR, settings)
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.", "Ana Ruiz")])
    [claim] = service.list_claims(OPERATOR, debate.id)
    panels = {p.research_mode: p.panel_id for p in service.claim_results(OPERATOR, claim.claim_id).panels}
    return debate.id, claim.claim_id, panels


def test_a_provisional_answer_is_neither_exported_nor_alerted(store: Store, clock: FakeClock) -> None:
    research = ScriptedResearch(default=Verdict.FALSE)
    service = make_service(store, clock, research, inline=False)
    debate_id, claim_id, panels = provisional_debate(service)
    service.research_panel(panels[TS])
    shown = service.claim_results(OPERATOR, claim_id).claim_verdict
    assert shown is not None and shown.provisional and shown.verdict is Verdict.FALSE  # the page shows it
    [row] = service.export_claims(OPERATOR, debate_id)
    assert (row.verdict, row.basis, row.decided_at, row.sources) == (Verdict.PENDING, None, None, [])
    assert row.speaker_name == "Ana Ruiz"
    assert service.alert_digest(OPERATOR, debate_id) == []


def test_the_final_answer_is_exported_and_alerted_since_it_was_decided(
    store: Store, clock: FakeClock
) -> None:
    research = ScriptedResearch(default=Verdict.FALSE)
    service = make_service(store, clock, research, inline=False)
    debate_id, _claim_id, panels = provisional_debate(service)
    service.research_panel(panels[TS])
    clock.advance(minutes=5)
    decided = clock.now
    service.research_panel(panels[DC])
    [row] = service.export_claims(OPERATOR, debate_id)
    assert (row.verdict, row.basis, row.decided_at) == (Verdict.FALSE, "agreement", decided)
    assert row.sources == ["https://a.example/1"]
    assert [r.claim_id for r in service.alert_digest(OPERATOR, debate_id, decided)] == [row.claim_id]
    assert service.alert_digest(OPERATOR, debate_id, decided + timedelta(seconds=1)) == []


@pytest.mark.parametrize(
    ("verdict", "alerted"),
    [
        (Verdict.FALSE, True),
        (Verdict.MISLEADING, True),
        (Verdict.PARTIALLY_TRUE, True),
        (Verdict.TRUE, False),
        (Verdict.UNVERIFIABLE, False),
    ],
)
def test_the_digest_lists_false_misleading_and_partially_true_answers_only(
    store: Store, clock: FakeClock, verdict: Verdict, alerted: bool
) -> None:
    research = ScriptedResearch(answers={TS: lambda _c: sourced(TS, verdict)})
    service = make_service(store, clock, research)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TS]))
    service.add_segments(OPERATOR, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    assert len(service.alert_digest(OPERATOR, debate.id)) == (1 if alerted else 0)


def test_an_export_stays_inside_the_organisation(store: Store, clock: FakeClock) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[TS]))
    with pytest.raises(DebateNotFound):
        service.export_claims(api_caller(organisation_id=42), debate.id)
    with pytest.raises(DebateNotFound):
        service.alert_digest(api_caller(organisation_id=42), debate.id)


def test_csv_has_a_header_and_defuses_cells_a_spreadsheet_would_run(store: Store, clock: FakeClock) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[]))
    service.add_segments(OPERATOR, debate.id, [segment("s1", "=HYPERLINK(1) rose 5 percent.")])
    text = rows_csv(service.export_claims(OPERATOR, debate.id))
    header, row = list(csv.reader(io.StringIO(text)))
    assert tuple(header) == CSV_COLUMNS
    cells = dict(zip(header, row, strict=True))
    assert cells["text"] == "'=HYPERLINK(1) rose 5 percent." and cells["verdict"] == "pending"
    assert cells["manually_added"] == "false"
