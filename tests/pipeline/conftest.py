"""Local fake servers for the pipeline tests: pages to fetch and search APIs to query, on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from icarus.research import web
from tests.fetching.conftest import FakeServer as PageServer
from tests.research.conftest import FakeServer as SearchServer

EXAMPLES = Path(__file__).parents[2] / "examples"
SAMPLE_RECORDS = EXAMPLES / "sample-corpus" / "reputation.json"
UNREVIEWED = "shiptrack.example"  # one of the sample post's two independent origins


def registry_without(domain: str, out: Path) -> Path:
    """The sample corpus's reputation file less ``domain``'s record, written to ``out``: a check of the
    sample post then scores that origin with an estimate that could change its label (H4)."""
    on_file = json.loads(SAMPLE_RECORDS.read_text())
    kept = [entry for entry in on_file if entry["record"]["domain"] != domain]
    assert len(kept) == len(on_file) - 1, f"{domain} is not in {SAMPLE_RECORDS}"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(kept))
    return out


@pytest.fixture
def pages() -> Iterator[PageServer]:
    fake = PageServer()
    fake.thread.start()
    yield fake
    fake.httpd.shutdown()
    fake.httpd.server_close()


@pytest.fixture
def server(pages: PageServer) -> PageServer:
    """The page server, for tests that need only one."""
    return pages


@pytest.fixture
def search() -> Iterator[SearchServer]:
    fake = SearchServer()
    fake.start()
    yield fake
    fake.stop()


@pytest.fixture(autouse=True)
def fresh_rate_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    # The providers' request slots are shared per class; start each test (and leave the others) clean.
    monkeypatch.setattr(web._WebProvider, "_next_start", {})
