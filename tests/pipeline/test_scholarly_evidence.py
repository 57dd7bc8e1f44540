"""A check reads the scholarly metadata of the pages it fetches and of the corpus documents it finds: the
DOI goes to the Crossref look-up (H16, recorded replies on a local server), the journal or preprint to H17.
The case that exposed it: a journal page with ``citation_doi``, ``citation_issn`` and
``citation_journal_title`` was discounted x0.80 as a preprint."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from icarus.capture import capture_text
from icarus.fetching import SafeFetcher, SnapshotStore
from icarus.judges import create_judge
from icarus.ledger import (
    EvidenceItem,
    LookupName,
    LookupStatus,
    PublicationType,
    ReputationMethod,
    ReputationRecord,
    SourceClass,
    SourceTier,
)
from icarus.lookups import LookupRegistry
from icarus.lookups.scholarly import CrossrefUpdatesLookup, RetractionWatchLookup, ScholarlyUpdatesLookup
from icarus.pipeline.check import CheckOutput, CheckServices, run_check
from icarus.reputation import Registry
from icarus.reputation.entry import RegistryEntry
from icarus.research import LocalCorpus, LocalCorpusProvider, SearchProvider
from icarus.research.web import SearxngProvider
from icarus.scoring.icarus.config import load_policy
from tests.fetching.conftest import FakeServer as PageServer
from tests.fetching.conftest import Reply
from tests.research.conftest import FakeServer as SearchServer

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
RECORDED = Path(__file__).parents[1] / "lookups" / "recorded"
RETRACTED = "10.1234/retracted.2020.001"  # tests/lookups/recorded/crossref_retracted.json
POST = "Container traffic at Halden harbour fell 12% in October, a harbour study found."
BODY = """<p>Container traffic at Halden harbour fell 12% in October against the same month a year before,
the harbour study found from the port authority's monthly statistics. An earlier version of this analysis
was posted as a preprint.</p>"""


def journal_page(doi: str, journal: str = "Journal of Harbour Studies", issn: str = "0028-0836") -> str:
    return f"""<!doctype html><html lang="en"><head><title>Harbour traffic | {journal}</title>
<meta name="citation_title" content="Container traffic at Halden harbour">
<meta name="citation_doi" content="{doi}"><meta name="citation_issn" content="{issn}">
<meta name="citation_journal_title" content="{journal}">
</head><body><article><h1>Container traffic at Halden harbour</h1>{BODY}</article></body></html>"""


def scholarly_registry(url: str) -> Registry:
    """A registry that knows the test server's host as a journal publisher (scholarly class)."""
    record = ReputationRecord(
        domain="127.0.0.1",
        score=Decimal("0.85"),
        tier=SourceTier.SCHOLARLY,
        method=ReputationMethod.MANUAL,
        produced_by="test-review",
        version="1",
    )
    registry = Registry(entries={"127.0.0.1": RegistryEntry(record, SourceClass.SCHOLARLY)})
    assert registry.lookup(url).source_class is SourceClass.SCHOLARLY
    return registry


def check(
    providers: list[SearchProvider], registry: Registry, tmp_path: Path, lookups: LookupRegistry | None = None
) -> CheckOutput:
    services = CheckServices(
        judge=create_judge("offline-lexical@1"),
        providers=providers,
        registry=registry,
        snapshots=SnapshotStore(tmp_path / "snapshots"),
        policy=load_policy("icarus@1.2"),
        fetcher=SafeFetcher(allow_loopback_for_tests=True, sleep=lambda _seconds: None),
        lookups=lookups or LookupRegistry(),
    )
    return run_check(capture_text(POST, NOW), services, NOW)


def searched(search: SearchServer, *urls: str) -> SearxngProvider:
    results = {
        "results": [{"url": url, "title": "Harbour traffic", "content": "traffic fell"} for url in urls]
    }
    search.add("/search", json.dumps(results).encode())
    return SearxngProvider(search.url, sleep=lambda _seconds: None)


def item_for(output: CheckOutput, url: str) -> EvidenceItem:
    return next(item for item in output.ledger.evidence if item.url == url)


def trace_of(output: CheckOutput, evidence_id: str) -> dict[str, Any]:
    items = output.result["trace"]["claims"][0]["passes"][-1]["items"]
    found: dict[str, Any] = next(i for i in items if i["evidence_id"] == evidence_id)
    return found


def test_H17_fetched_journal_page_is_not_discounted_as_a_preprint(
    pages: PageServer, search: SearchServer, tmp_path: Path
) -> None:
    pages.html("/article", journal_page("10.5555/JHS.2026.001"))
    url = pages.url("/article")
    output = check([searched(search, url)], scholarly_registry(url), tmp_path)
    item = item_for(output, url)
    assert (item.doi, item.issn, item.container_title) == (
        "10.5555/jhs.2026.001",
        "0028-0836",
        "Journal of Harbour Studies",
    )
    assert item.publication_type is PublicationType.JOURNAL_ARTICLE
    trace = trace_of(output, item.evidence_id)
    assert "H17" not in trace["flags"]
    assert [f for f in trace["factors"] if f["rule"] == "H17"] == []


def test_H17_fetched_preprint_server_page_is_discounted(
    pages: PageServer, search: SearchServer, tmp_path: Path
) -> None:
    pages.html("/preprint", journal_page("10.1101/2026.10.30.26300001", journal="medRxiv", issn="2049-3630"))
    url = pages.url("/preprint")
    output = check([searched(search, url)], scholarly_registry(url), tmp_path)
    item = item_for(output, url)
    assert item.publication_type is PublicationType.PREPRINT
    factors = [f["note"] for f in trace_of(output, item.evidence_id)["factors"] if f["rule"] == "H17"]
    assert factors == ["a preprint by its metadata, not peer reviewed"]


def test_H16_doi_from_a_fetched_page_reaches_crossref_and_g4(
    pages: PageServer, search: SearchServer, tmp_path: Path
) -> None:
    pages.html("/retracted", journal_page(f"https://doi.org/{RETRACTED.upper()}"))
    recorded = (RECORDED / "crossref_retracted.json").read_bytes()
    pages.reply(f"/crossref/works/{RETRACTED}", Reply(200, recorded, {"Content-Type": "application/json"}))
    crossref = CrossrefUpdatesLookup(pages.url("/crossref"), timeout_s=2.0)
    lookups = LookupRegistry({LookupName.SCHOLARLY_UPDATES: ScholarlyUpdatesLookup(crossref)})
    url = pages.url("/retracted")
    output = check([searched(search, url)], scholarly_registry(url), tmp_path, lookups)
    item = item_for(output, url)
    assert item.doi == RETRACTED
    looked = item.lookup(LookupName.SCHOLARLY_UPDATES)
    assert looked is not None and looked.status is LookupStatus.OK
    assert [u.update_type.value for u in looked.updates] == ["retraction"]
    assert pages.hits(f"/crossref/works/{RETRACTED}") == 1
    trace = trace_of(output, item.evidence_id)
    assert "G4" in trace["flags"] and Decimal(trace["weight"]) == 0


def test_H16_doi_from_a_fetched_page_reaches_the_retraction_watch_list(
    pages: PageServer, search: SearchServer, tmp_path: Path
) -> None:
    listed = tmp_path / "retraction-watch.csv"
    listed.write_text("doi,retractionwatch\n10.5555/listed.2024.3,Retraction\n", encoding="utf-8")
    lookups = LookupRegistry(
        {LookupName.SCHOLARLY_UPDATES: ScholarlyUpdatesLookup(retraction_watch=RetractionWatchLookup(listed))}
    )
    pages.html("/listed", journal_page("10.5555/LISTED.2024.3"))
    url = pages.url("/listed")
    output = check([searched(search, url)], scholarly_registry(url), tmp_path, lookups)
    looked = item_for(output, url).lookup(LookupName.SCHOLARLY_UPDATES)
    assert looked is not None and [(u.source, u.update_type.value) for u in looked.updates] == [
        ("retraction_watch", "retraction")
    ]
    assert "G4" in trace_of(output, item_for(output, url).evidence_id)["flags"]


def test_H16_a_page_without_a_doi_is_not_looked_up(
    pages: PageServer, search: SearchServer, tmp_path: Path
) -> None:
    pages.html(
        "/plain", f"<!doctype html><html><head><title>Harbour</title></head><body>{BODY}</body></html>"
    )
    crossref = CrossrefUpdatesLookup(pages.url("/crossref"), timeout_s=2.0)
    lookups = LookupRegistry({LookupName.SCHOLARLY_UPDATES: ScholarlyUpdatesLookup(crossref)})
    url = pages.url("/plain")
    output = check([searched(search, url)], Registry(), tmp_path, lookups)
    looked = item_for(output, url).lookup(LookupName.SCHOLARLY_UPDATES)
    assert looked is not None and looked.status is LookupStatus.NOT_RUN
    assert not any(r.path.startswith("/crossref") for r in pages.requests)


def test_H17_corpus_document_keeps_its_metadata_from_corpus_add(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "article.html").write_text(journal_page("doi:10.5555/JHS.2026.002"), encoding="utf-8")
    with LocalCorpus(tmp_path / "corpus.sqlite") as corpus:
        corpus.add([folder])
        output = check([LocalCorpusProvider(corpus)], Registry(), tmp_path)
    (item,) = output.ledger.evidence
    assert (item.doi, item.issn, item.publication_type) == (
        "10.5555/jhs.2026.002",
        "0028-0836",
        PublicationType.JOURNAL_ARTICLE,
    )
    assert "H17" not in trace_of(output, item.evidence_id)["flags"]
