"""Crossref and Retraction Watch look-ups (H16) on recorded replies and small CSVs, and end to end to G4."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from icarus.ledger import LookupName, LookupStatus, PublicationType, UpdateType
from icarus.lookups import LookupRegistry, enrich
from icarus.lookups.scholarly import (
    CrossrefUpdatesLookup,
    RetractionWatchLookup,
    ScholarlyUpdatesLookup,
    normalize_doi,
    work_type,
)
from icarus.scoring.icarus.config import load_policy
from tests.builders import item, ledger
from tests.datasets import DATASETS
from tests.fetching.conftest import FakeServer, Reply, server
from tests.scoring.scoring_support import score, weight

__all__ = ["server"]

RECORDED = Path(__file__).parent / "recorded"
JSON = {"Content-Type": "application/json"}
RETRACTED = "10.1234/retracted.2020.001"
CORRECTED = "10.1234/corrected.2019.042"
CLEAN = "10.1234/clean.2022.007"
NOTICE = "10.1234/retraction.2021.009"
REAL_RW = DATASETS / "retraction-watch" / "retractionwatch_doi_nature_2025-08-22.csv"


def recorded(name: str) -> Reply:
    return Reply(200, (RECORDED / name).read_bytes(), JSON)


@pytest.fixture
def crossref(server: FakeServer) -> CrossrefUpdatesLookup:
    server.reply(f"/works/{RETRACTED}", recorded("crossref_retracted.json"))
    server.reply(f"/works/{CORRECTED}", recorded("crossref_corrected.json"))
    server.reply(f"/works/{CLEAN}", recorded("crossref_clean.json"))
    server.reply(f"/works/{NOTICE}", recorded("crossref_notice.json"))
    server.reply("/works", Reply(200, b'{"status": "ok", "message": {"items": []}}', JSON))
    return CrossrefUpdatesLookup(server.url(""), mailto="test@example.org", timeout_s=2.0)


def types(result_updates: list) -> set[UpdateType]:  # type: ignore[type-arg]
    return {u.update_type for u in result_updates}


def test_normalize_doi() -> None:
    assert normalize_doi("https://doi.org/10.1234/ABC") == "10.1234/abc"
    assert normalize_doi("doi:10.1/x") == "10.1/x"
    assert normalize_doi("not a doi") is None and normalize_doi(None) is None


def test_crossref_retracted_doi(crossref: CrossrefUpdatesLookup, server: FakeServer) -> None:
    result = crossref.lookup(item("a", doi=RETRACTED))
    assert result.name is LookupName.SCHOLARLY_UPDATES and result.status is LookupStatus.OK
    assert types(result.updates) == {UpdateType.RETRACTION}
    update = result.updates[0]
    assert update.source == "crossref" and update.doi == RETRACTED
    assert update.noticed_at == datetime(2021, 3, 4, tzinfo=UTC)
    assert "mailto=test" in server.requests[-1].path


def test_crossref_corrected_doi(crossref: CrossrefUpdatesLookup) -> None:
    result = crossref.lookup(item("a", doi=f"https://doi.org/{CORRECTED.upper()}"))
    assert result.status is LookupStatus.OK
    assert types(result.updates) == {UpdateType.CORRECTION, UpdateType.EXPRESSION_OF_CONCERN}
    assert all(u.source == "crossref" for u in result.updates)


def test_crossref_clean_doi(crossref: CrossrefUpdatesLookup, server: FakeServer) -> None:
    result = crossref.lookup(item("a", doi=CLEAN))
    assert result.status is LookupStatus.OK and result.updates == []
    assert server.hits("/works") == 0  # an updated-by list was present: no notice search


def test_a_notice_is_not_itself_retracted(crossref: CrossrefUpdatesLookup) -> None:
    result = crossref.lookup(item("a", doi=NOTICE))
    assert result.status is LookupStatus.OK and result.updates == []
    assert f"retraction notice for {RETRACTED}" in result.detail


def test_notice_search_when_the_work_has_no_updated_by(server: FakeServer) -> None:
    bare = b'{"status": "ok", "message": {"DOI": "10.1234/retracted.2020.001"}}'
    server.reply(f"/works/{RETRACTED}", Reply(200, bare, JSON))
    server.reply("/works", recorded("crossref_updates_filter.json"))
    result = CrossrefUpdatesLookup(server.url(""), timeout_s=2.0).lookup(item("a", doi=RETRACTED))
    assert result.status is LookupStatus.OK
    assert types(result.updates) == {UpdateType.RETRACTION}
    assert any("filter=updates" in r.path for r in server.requests)


def test_no_doi_is_not_run(crossref: CrossrefUpdatesLookup) -> None:
    result = crossref.lookup(item("a"))
    assert result.status is LookupStatus.NOT_RUN and result.detail == "no DOI"


def test_crossref_404_500_and_malformed(server: FakeServer) -> None:
    lookup = CrossrefUpdatesLookup(server.url(""), timeout_s=2.0)
    # FakeServer answers 404 for an unregistered path: not registered with Crossref is an ok answer.
    assert lookup.lookup(item("a", doi="10.1/missing")).status is LookupStatus.OK
    server.reply("/works/10.1/down", Reply(500, b"boom", {"Content-Type": "text/plain"}))
    down = lookup.lookup(item("a", doi="10.1/down"))
    assert down.status is LookupStatus.ERROR and "HTTP 500" in down.detail
    server.reply("/works/10.1/junk", Reply(200, b"{nope", JSON))
    junk = lookup.lookup(item("a", doi="10.1/junk"))
    assert junk.status is LookupStatus.ERROR and "malformed" in junk.detail
    server.reply("/works/10.1/shape", Reply(200, b'{"message": []}', JSON))
    assert lookup.lookup(item("a", doi="10.1/shape")).status is LookupStatus.ERROR


SHORT_CSV = "doi,retractionwatch\n10.1/r,Retraction\n10.1/eoc,Expression of concern;Correction\n10.1/back,Retraction;Reinstatement\n"
FULL_CSV = (
    "Record ID,Title,RetractionDate,RetractionDOI,OriginalPaperDOI,RetractionNature,Reason\n"
    '1,"A title",3/4/2021 0:00,10.1/notice,10.1/R,Retraction,"+Data concerns;"\n'
    '2,"B title",1/2/2020 0:00,10.1/n2,10.1/c,Correction,""\n'
)


def test_retraction_watch_short_export(tmp_path: Path) -> None:
    path = tmp_path / "rw.csv"
    path.write_text(SHORT_CSV)
    rw = RetractionWatchLookup(path)
    assert types(rw.lookup(item("a", doi="10.1/R")).updates) == {UpdateType.RETRACTION}
    assert types(rw.lookup(item("a", doi="10.1/eoc")).updates) == {
        UpdateType.EXPRESSION_OF_CONCERN,
        UpdateType.CORRECTION,
    }
    back = rw.lookup(item("a", doi="10.1/back"))
    assert types(back.updates) == {UpdateType.RETRACTION} and "reinstatement" in back.detail
    clean = rw.lookup(item("a", doi="10.1/clean"))
    assert clean.status is LookupStatus.OK and clean.updates == []
    assert all(u.source == "retraction_watch" for u in back.updates)
    assert rw.lookup(item("a")).status is LookupStatus.NOT_RUN


def test_retraction_watch_full_export_with_dates(tmp_path: Path) -> None:
    path = tmp_path / "rw_full.csv"
    path.write_text(FULL_CSV)
    result = RetractionWatchLookup(path).lookup(item("a", doi="10.1/r"))
    assert types(result.updates) == {UpdateType.RETRACTION}
    assert result.updates[0].noticed_at == datetime(2021, 3, 4, tzinfo=UTC)


def test_retraction_watch_missing_file_is_an_error(tmp_path: Path) -> None:
    result = RetractionWatchLookup(tmp_path / "absent.csv").lookup(item("a", doi="10.1/r"))
    assert result.status is LookupStatus.ERROR and "unreadable" in result.detail


@pytest.mark.skipif(not REAL_RW.exists(), reason=f"Retraction Watch export not present at {REAL_RW}")
def test_real_retraction_watch_file() -> None:
    rw = RetractionWatchLookup(REAL_RW)
    result = rw.lookup(item("a", doi="10.1155/2022/5313654"))  # first data row of the 2025-08-22 export
    assert result.status is LookupStatus.OK
    assert UpdateType.RETRACTION in types(result.updates)
    assert rw.lookup(item("b", doi="10.0000/surely-not-listed")).updates == []


def test_combined_merges_sources_and_survives_one_failure(
    crossref: CrossrefUpdatesLookup, tmp_path: Path
) -> None:
    path = tmp_path / "rw.csv"
    path.write_text(f"doi,retractionwatch\n{CORRECTED},Retraction\n")
    both = ScholarlyUpdatesLookup(crossref, RetractionWatchLookup(path))
    result = both.lookup(item("a", doi=CORRECTED))
    assert result.status is LookupStatus.OK and result.name is LookupName.SCHOLARLY_UPDATES
    assert {(u.update_type, u.source) for u in result.updates} == {
        (UpdateType.CORRECTION, "crossref"),
        (UpdateType.EXPRESSION_OF_CONCERN, "crossref"),
        (UpdateType.RETRACTION, "retraction_watch"),
    }
    half = ScholarlyUpdatesLookup(crossref, RetractionWatchLookup(tmp_path / "absent.csv"))
    partial = half.lookup(item("a", doi=RETRACTED))
    assert partial.status is LookupStatus.OK and "error" in partial.detail
    assert both.lookup(item("a")).status is LookupStatus.NOT_RUN


def test_retracted_paper_via_crossref_gets_weight_zero_under_1_1_only(
    crossref: CrossrefUpdatesLookup,
) -> None:
    registry = LookupRegistry({LookupName.SCHOLARLY_UPDATES: ScholarlyUpdatesLookup(crossref)})
    plain = ledger([item("a", doi=RETRACTED), item("b", doi=CLEAN)])
    enriched = enrich(plain, registry, load_policy("icarus@1.1"))
    looked = enriched.evidence[0].lookup(LookupName.SCHOLARLY_UPDATES)
    assert looked is not None and looked.status is LookupStatus.OK
    assert weight(score(enriched, "icarus@1.1"), "a") == 0
    assert weight(score(enriched, "icarus@1.1"), "b") > 0
    # icarus@1.0 does not wire the H16 look-up: the same recorded result is ignored.
    assert weight(score(enriched, "icarus@1.0"), "a") == weight(score(plain, "icarus@1.0"), "a") > 0


def test_an_oversized_crossref_reply_is_an_error_not_read_whole(server: FakeServer) -> None:
    padding = b" " * (6 * 1024 * 1024)  # valid JSON whitespace: a reply read whole would parse
    body = b'{"message": {"updated-by": [{"type": "retraction", "DOI": "10.9/n"}]}' + padding + b"}"
    server.reply(f"/works/{RETRACTED}", Reply(200, body, JSON))
    result = CrossrefUpdatesLookup(server.url(""), timeout_s=2.0).lookup(item("a", doi=RETRACTED))
    assert result.status is LookupStatus.ERROR and "larger than" in result.detail and result.updates == []


PREPRINT = "10.1234/preprint.2026.011"


def test_H17_crossref_work_type_is_kept_for_h17(server: FakeServer) -> None:
    server.reply(f"/works/{PREPRINT}", recorded("crossref_posted_content.json"))
    server.reply(f"/works/{CLEAN}", recorded("crossref_clean.json"))
    lookup = ScholarlyUpdatesLookup(CrossrefUpdatesLookup(server.url(""), timeout_s=2.0))
    preprint = lookup.lookup(item("a", doi=PREPRINT))
    assert preprint.status is LookupStatus.OK and preprint.publication_type is PublicationType.PREPRINT
    assert "registered as posted-content" in preprint.detail
    assert lookup.lookup(item("b", doi=CLEAN)).publication_type is PublicationType.JOURNAL_ARTICLE
    assert work_type({"type": "book-chapter"}) is None and work_type({}) is None
