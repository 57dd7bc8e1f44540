"""A debate has a date (``held_at``): set on create and PATCH over HTTP, refused when it cannot be read or
lies in the future, stored (revision 0007 dates older debates by their upload), and read by detection and
research instead of the server clock."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from pydantic import TypeAdapter

from icarus.debates import repository as repo
from icarus.debates.dating import FUTURE_TOLERANCE, accepted_held_at, parse_held_at
from icarus.debates.detection import detect_claims
from icarus.debates.errors import InvalidChange
from icarus.debates.model import DebateSettings, DetectedClaim, Panel, ResearchMode, Segment, Verdict
from icarus.debates.research.base import ClaimToResearch
from icarus.debates.schemas import DebateCreate
from icarus.store import Store
from icarus.store.migrate import alembic_config
from tests.debates.store_fixtures import (
    OPERATOR,
    START,
    FakeClock,
    make_service,
    segment,
    sourced,
)
from tests.debates.store_fixtures import clock as clock
from tests.debates.store_fixtures import db_url as db_url
from tests.debates.store_fixtures import store as store
from tests.debates.test_api import Site, open_site

TWO_STEP = ResearchMode.TWO_STEP
START_TEXT = "2026-12-01T20:00:00Z"  # the test clock's START, as the API writes it


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    yield from open_site(tmp_path)


def _create(site: Site, headers: dict[str, str], **body: Any) -> Any:
    return site.client.post("/v1/debates", json={"research_modes": ["two_step"], **body}, headers=headers)


# --- create, read, PATCH --------------------------------------------------------------------------------


def test_a_debate_without_a_date_is_dated_by_its_upload(site: Site) -> None:
    headers = site.token()
    body = _create(site, headers).json()
    assert body["held_at"] == body["created_at"] == START_TEXT
    assert site.client.get(f"/v1/debates/{body['id']}", headers=headers).json()["held_at"] == START_TEXT


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ({"held_at": "2020-10-22"}, "2020-10-22T00:00:00Z"),  # a date: midnight UTC
        ({"held_at": "2020-10-22T23:30:00+02:00"}, "2020-10-22T21:30:00Z"),  # an offset: converted
        (
            {"held_at": "2020-10-22t21:30:00.250z"},
            "2020-10-22T21:30:00.250000Z",
        ),  # RFC 3339 allows lower case
        ({"as_of": "2020-10-22"}, "2020-10-22T00:00:00Z"),  # the other name
    ],
)
def test_a_debate_is_created_with_the_date_it_took_place(
    site: Site, given: dict[str, str], stored: str
) -> None:
    headers = site.token()
    created = _create(site, headers, title="Vice-presidential debate", **given)
    assert created.status_code == 201, created.text
    assert created.json()["held_at"] == stored
    assert created.json()["created_at"] == START_TEXT  # the upload time stays what it was
    listed = site.client.get("/v1/debates", headers=headers).json()
    assert [d["held_at"] for d in listed] == [stored]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"held_at": "2020-13-01"}, "body.held_at"),
        ({"held_at": "22/10/2020"}, "body.held_at"),
        ({"held_at": "2020-10-22 21:30:00"}, "body.held_at"),  # a space for the T: not what is published
        ({"held_at": "2020-10-22T21:30"}, "body.held_at"),  # no seconds
        ({"held_at": "2020-10-22T21:30:00"}, "body.held_at"),  # no offset: which zone is unknowable
        ({"held_at": 2020}, "body.held_at"),  # a number is not read as Unix seconds (1970)
        ({"held_at": True}, "body.held_at"),
        ({"as_of": "last tuesday"}, "body.as_of"),
        ({"held_at": "2020-10-22", "as_of": "2020-10-22"}, "body"),  # one name, not both
    ],
)
def test_a_malformed_date_is_a_422_naming_the_field(site: Site, body: dict[str, Any], field: str) -> None:
    headers = site.token()
    answer = _create(site, headers, **body)
    assert answer.status_code == 422
    assert field in [e["field"] for e in answer.json()["errors"]], answer.json()
    assert site.client.get("/v1/debates", headers=headers).json() == []  # nothing was created


@pytest.mark.parametrize("held_at", ["2026-12-03", "2027-01-01T00:00:00Z", "1899-12-31"])
def test_a_date_in_the_future_or_before_1900_is_refused(site: Site, held_at: str) -> None:
    headers = site.token()
    answer = _create(site, headers, held_at=held_at)
    assert answer.status_code == 422
    assert "held_at" in answer.text and held_at[:4] in answer.text
    assert site.client.get("/v1/debates", headers=headers).json() == []


def test_a_date_a_little_ahead_of_the_clock_is_accepted(site: Site) -> None:
    ahead = START + FUTURE_TOLERANCE  # a debate dated in a time zone ahead of UTC
    answer = _create(site, site.token(), held_at=ahead.isoformat())
    assert answer.status_code == 201, answer.text
    assert answer.json()["held_at"] == ahead.isoformat().replace("+00:00", "Z")


def test_patch_changes_the_date_and_refuses_a_bad_one(site: Site) -> None:
    headers = site.token()
    debate_id = _create(site, headers, held_at="2020-10-22").json()["id"]
    path = f"/v1/debates/{debate_id}"
    changed = site.client.patch(path, json={"held_at": "2020-10-07T01:00:00Z"}, headers=headers)
    assert changed.status_code == 200, changed.text
    assert changed.json()["held_at"] == "2020-10-07T01:00:00Z"
    assert site.client.patch(path, json={"as_of": "2020-10-08"}, headers=headers).json()["held_at"] == (
        "2020-10-08T00:00:00Z"
    )
    titled = site.client.patch(path, json={"title": "Second debate"}, headers=headers)
    assert titled.json()["held_at"] == "2020-10-08T00:00:00Z"  # a field not named stays
    for bad in ({"held_at": None}, {"held_at": "2020-02-30"}, {"held_at": "2031-01-01"}):
        refused = site.client.patch(path, json=bad, headers=headers)
        assert refused.status_code == 422 and "held_at" in refused.text, (bad, refused.text)
    assert site.client.get(path, headers=headers).json()["held_at"] == "2020-10-08T00:00:00Z"


# --- research reads the debate's date ---------------------------------------------------------------------


def test_research_reads_the_debates_date_and_a_patch_applies_to_later_research(site: Site) -> None:
    seen: list[ClaimToResearch] = []

    def answer(claim: ClaimToResearch) -> Panel:
        seen.append(claim)
        return sourced(TWO_STEP, Verdict.TRUE)

    site.research.answers[TWO_STEP] = answer
    headers = site.token()
    debate_id = _create(site, headers, held_at="2020-10-22T21:00:00Z").json()["id"]
    first = site.claim(headers, debate_id, "Unemployment is 8.4 percent.")
    assert [(c.said_at, c.as_of) for c in seen] == [(datetime(2020, 10, 22, 21, tzinfo=UTC), START)]

    site.client.patch(f"/v1/debates/{debate_id}", json={"held_at": "2020-10-07"}, headers=headers)
    site.claim(headers, debate_id, "Inflation is 1.4 percent.")
    assert seen[-1].said_at == datetime(2020, 10, 7, tzinfo=UTC)
    assert len(seen) == 2  # the claim already checked was not researched again
    results = site.client.get(f"/v1/claims/{first}/results?debate_id={debate_id}", headers=headers)
    assert results.json()["claim_verdict"]["verdict"] == "true"


# --- detection reads the debate's date --------------------------------------------------------------------

PREDICTION_IN_2026 = "Norvale's debt reaches 61 billion dollars in 2026, twice what it was."


def test_a_year_after_the_debates_date_is_a_prediction_whichever_way_segments_arrive(
    store: Store, clock: FakeClock
) -> None:
    days: list[date] = []

    def detect(segments: Sequence[Segment], names: Mapping[str, str], *, as_of: date) -> list[DetectedClaim]:
        days.append(as_of)
        return detect_claims(segments, names, as_of=as_of)

    service = make_service(store, clock, detect=detect)
    settings = DebateSettings(research_modes=[])
    in_2025 = service.create_debate(OPERATOR, settings, held_at=datetime(2025, 3, 1, tzinfo=UTC))
    today = service.create_debate(OPERATOR, settings)  # dated by its upload, 2026-12-01
    for debate in (in_2025, today):
        service.add_segments(OPERATOR, debate.id, [segment("s1", PREDICTION_IN_2026)])
    assert [len(service.list_claims(OPERATOR, d.id)) for d in (in_2025, today)] == [0, 1]
    assert days == [date(2025, 3, 1), START.date()]

    srt = f"1\n00:00:01,000 --> 00:00:04,000\nSPEAKER_1: {PREDICTION_IN_2026}\n".encode()
    service.update_debate(OPERATOR, in_2025.id, {"held_at": "2026-11-01"})  # later detection reads it
    service.ingest_transcript(OPERATOR, in_2025.id, srt, "srt")
    assert days[-1] == date(2026, 11, 1)
    assert [c.text for c in service.list_claims(OPERATOR, in_2025.id)] == [PREDICTION_IN_2026.rstrip(".")]


# --- storage ------------------------------------------------------------------------------------------------


def test_the_migration_dates_existing_debates_by_their_upload(store: Store, clock: FakeClock) -> None:
    service = make_service(store, clock)
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[]))
    config = alembic_config()
    with store.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0006_list_columns")  # the column goes, as before revision 0007
    clock.advance(days=3)
    store.open()  # upgrades again, filling held_at from created_at
    with store.reading() as session:
        row = repo.debate_record(session, debate.id)
        assert row.held_at == row.created_at == START


def test_a_date_from_python_callers_is_read_as_the_api_reads_it() -> None:
    assert accepted_held_at(date(2020, 10, 22), START) == datetime(2020, 10, 22, tzinfo=UTC)
    assert accepted_held_at(None, START) == START  # the upload time
    with pytest.raises(InvalidChange, match="held_at"):
        parse_held_at("the day after the election")


@pytest.mark.parametrize(
    "written",
    [
        "2020-10-22",
        "2020-10-22T21:30:00Z",
        "2020-10-22t21:30:00z",
        "2020-10-22T21:30:00.123456789+02:00",
        "2020-10-22T21:30:00",
        "2020-10-22T21:30:00+0200",
        "2020-10-22 21:30:00",
        "2020-10-22T21:30",
        "2020-10-22T21",
        "20201022",
        "22/10/2020",
        "2020-10-22Z",
    ],
)
def test_the_published_schema_and_validation_take_the_same_written_forms(written: str) -> None:
    import jsonschema

    from icarus.debates.dating import HeldAt

    schema = TypeAdapter(HeldAt).json_schema()
    published = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    ).is_valid(written)
    try:
        parse_held_at(written)
        accepted = True
    except InvalidChange:
        accepted = False
    assert published == accepted, (written, schema)


# --- docs -----------------------------------------------------------------------------------------------


def test_every_field_a_debate_is_created_with_is_documented() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "debates.md").read_text(encoding="utf-8")
    rows = "\n".join(line for line in docs.splitlines() if line.startswith("| `"))
    missing = [name for name in DebateCreate.model_fields if f"`{name}`" not in rows]
    assert missing == []
    assert "`held_at`" in docs and "`as_of`" in docs
