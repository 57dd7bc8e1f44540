"""Web search results are fetched and snapshotted before judging; a page that cannot be read falls back to
the engine's snippet, marked snippet-only (H28). Everything runs against local fake servers."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from icarus.capture import capture_text
from icarus.fetching import SafeFetcher, SnapshotStore
from icarus.judges import create_judge
from icarus.ledger import Access
from icarus.pipeline.check import CheckServices, run_check
from icarus.reputation import Registry
from icarus.research.web import SearxngProvider
from icarus.scoring.icarus.config import load_policy
from tests.fetching.conftest import FakeServer as PageServer
from tests.research.conftest import FakeServer as SearchServer

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
PAGE = """<!doctype html><html lang="en"><head><title>Library hours extended</title></head><body><article>
<h1>Library hours extended</h1><p>The Halden city council voted on Monday to extend the opening hours of the
central library to 9 pm on weekdays, starting in January. The vote passed seven to two.</p>
</article></body></html>"""


def test_web_hits_are_fetched_snapshotted_and_judged(
    pages: PageServer, search: SearchServer, tmp_path: Path
) -> None:
    pages.html("/library", PAGE)
    results = {
        "results": [
            {
                "url": pages.url("/library"),
                "title": "Library hours extended",
                "content": "council voted to extend",
            },
            {
                "url": pages.url("/gone"),
                "title": "Gone page",
                "content": "The council voted to extend library hours.",
            },
        ]
    }
    search.add("/search", json.dumps(results).encode())
    services = CheckServices(
        judge=create_judge("offline-lexical@1"),
        providers=[SearxngProvider(search.url, sleep=lambda _seconds: None)],  # no real rate-limit waits
        registry=Registry(),
        snapshots=SnapshotStore(tmp_path / "snapshots"),
        policy=load_policy("icarus@1.1"),
        fetcher=SafeFetcher(allow_loopback_for_tests=True, sleep=lambda _seconds: None),
    )
    post = "The Halden council voted on Monday to extend library opening hours to 9 pm."
    output = run_check(capture_text(post, NOW), services, NOW)
    by_url = {item.url: item for item in output.ledger.evidence}
    fetched = by_url[pages.url("/library")]
    assert "seven to two" in fetched.text  # the page itself, not the engine's snippet
    assert services.snapshots.get(fetched.snapshot.ref if fetched.snapshot else "") is not None
    assert fetched.flags.access is Access.FULL
    fallback = by_url[pages.url("/gone")]
    assert fallback.text == "The council voted to extend library hours."
    assert fallback.flags.access is Access.SNIPPET_ONLY
    trace_items = output.result["trace"]["claims"][0]["passes"][-1]["items"]
    snippet_trace = next(i for i in trace_items if i["evidence_id"] == fallback.evidence_id)
    assert "H28" in snippet_trace["flags"]
