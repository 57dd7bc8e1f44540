"""Web evidence reaches every look-up a deployment runs: a page found by web search is fetched, and the
check asks RDAP about its domain (H10), fetches it again for drift (H24) and offers its snapshot to C2PA
(H22), which validates the content credentials of a fetched PDF. The search engine, the pages and the RDAP
service are local fakes; the defaults are on."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from icarus.capture import capture_text
from icarus.fetching import SafeFetcher, SnapshotStore
from icarus.judges import create_judge
from icarus.ledger import C2paState, LookupName, LookupStatus
from icarus.lookups import registry_from_settings
from icarus.pipeline.check import CheckServices, run_check
from icarus.reputation import Registry
from icarus.research.web import SearxngProvider
from icarus.scoring.icarus.config import load_policy
from icarus.settings import Settings
from tests.fetching.conftest import FakeServer as PageServer
from tests.fetching.conftest import Reply
from tests.fetching.test_extract import make_pdf
from tests.research.conftest import FakeServer as SearchServer

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
PAGE = """<!doctype html><html lang="en"><head><title>Library hours extended</title></head><body><article>
<h1>Library hours extended</h1><p>The Halden city council voted on Monday to extend the opening hours of the
central library to 9 pm on weekdays, starting in January. The vote passed seven to two, and the library
board said it would hire four more staff to cover the evening shifts from the first week of the year.</p>
</article></body></html>"""
RDAP = b'{"events": [{"eventAction": "registration", "eventDate": "2019-03-01T00:00:00Z"}]}'


def test_a_fetched_web_page_is_looked_up_by_rdap_drift_and_c2pa(
    pages: PageServer, search: SearchServer, tmp_path: Path
) -> None:
    pages.html("/library", PAGE)
    minutes = "The Halden city council voted on Monday to extend library opening hours to 9 pm on weekdays."
    pages.reply("/minutes.pdf", Reply(200, make_pdf([minutes]), {"Content-Type": "application/pdf"}))
    pages.reply("/rdap/domain/127.0.0.1", Reply(200, RDAP, {"Content-Type": "application/rdap+json"}))
    hits = [
        {"url": pages.url("/library"), "title": "Library hours extended", "content": "council voted"},
        {"url": pages.url("/minutes.pdf"), "title": "Council minutes", "content": "council voted"},
    ]
    search.add("/search", json.dumps({"results": hits}).encode())
    settings = Settings(data_dir=tmp_path, offline=False, rdap_url=pages.url("/rdap"), crossref_url="")
    snapshots = SnapshotStore(tmp_path / "snapshots")
    fetcher = SafeFetcher(allow_loopback_for_tests=True, sleep=lambda _seconds: None)
    policy = load_policy("icarus@1.2")
    services = CheckServices(
        judge=create_judge("offline-lexical@1"),
        providers=[SearxngProvider(search.url, sleep=lambda _seconds: None)],
        registry=Registry(),
        snapshots=snapshots,
        policy=policy,
        fetcher=fetcher,
        lookups=registry_from_settings(settings, snapshots, fetcher=fetcher, policy=policy),
    )
    post = "The Halden council voted on Monday to extend library opening hours to 9 pm."
    output = run_check(capture_text(post, NOW), services, NOW)
    page = next(item for item in output.ledger.evidence if item.url == pages.url("/library"))
    results = {result.name: result for result in page.lookups}
    assert results[LookupName.RDAP].status is LookupStatus.OK
    assert results[LookupName.RDAP].domain_created_at == datetime(2019, 3, 1, tzinfo=UTC)
    assert results[LookupName.ARCHIVE].status is LookupStatus.OK
    assert results[LookupName.ARCHIVE].content_changed is False
    assert pages.hits("/library") == 2  # fetched for the check, then again for drift
    # the page is HTML, so there are no content credentials to validate; the look-up saw it and said so
    assert results[LookupName.C2PA].status is LookupStatus.NOT_RUN
    assert "not media" in results[LookupName.C2PA].detail
    # no DOI on a library page: the scholarly look-up is asked and has nothing to ask about
    assert results[LookupName.SCHOLARLY_UPDATES].status is LookupStatus.NOT_RUN
    # a fetched PDF is media: its content credentials are validated (this one carries none: neutral)
    pdf = next(item for item in output.ledger.evidence if item.url == pages.url("/minutes.pdf"))
    c2pa = next(result for result in pdf.lookups if result.name is LookupName.C2PA)
    assert (c2pa.status, c2pa.c2pa_state) == (LookupStatus.OK, C2paState.NONE)
    assert pages.hits("/rdap/domain/127.0.0.1") == 1  # one registered domain, asked once
