"""Self-evidence comes first: the pages a post links are snapshotted and checked against its claims (H20)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from icarus.capture import capture_text
from icarus.fetching import SafeFetcher, SnapshotStore
from icarus.judges import create_judge
from icarus.ledger import EvidenceRole
from icarus.pipeline.check import CheckServices, refused_link_note, run_check
from icarus.reputation import load_registry
from icarus.research import LocalCorpus, LocalCorpusProvider
from icarus.scoring.icarus.config import load_policy
from tests.fetching.conftest import FakeServer

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
EXAMPLES = Path(__file__).parents[2] / "examples" / "sample-corpus"
STUDY = """<!doctype html><html lang="en"><head><title>HX-4 and weight gain</title>
<meta property="og:site_name" content="Journal of Metabolic Studies"></head><body><article>
<h1>HX-4 and weight gain</h1>
<p>In mice fed a high-fat diet, daily doses of compound HX-4 reduced weight gain by 40 percent over six
weeks. No human participants were studied. The authors call for trials in people before any conclusion
about human weight is drawn.</p></article></body></html>"""


def services(tmp_path: Path, fetcher: SafeFetcher | None) -> CheckServices:
    corpus = LocalCorpus(tmp_path / "corpus.db")
    corpus.add(sorted(EXAMPLES.glob("*.html")))
    return CheckServices(
        judge=create_judge("offline-lexical@1"),
        providers=[LocalCorpusProvider(corpus)],
        registry=load_registry(EXAMPLES / "reputation.json"),
        snapshots=SnapshotStore(tmp_path / "snapshots"),
        policy=load_policy("icarus@1.1"),
        fetcher=fetcher,
    )


def test_H20_a_dropped_qualifier_in_the_cited_study_makes_the_post_misleading(
    server: FakeServer, tmp_path: Path
) -> None:
    server.html("/study", STUDY)
    post = f"Compound HX-4 reduced weight gain by 40 percent, a new study finds {server.url('/study')}"
    with SafeFetcher(allow_loopback_for_tests=True, sleep=lambda _seconds: None) as fetcher:
        output = run_check(capture_text(post, NOW), services(tmp_path, fetcher), NOW)
    cited = [item for item in output.ledger.evidence if item.role is EvidenceRole.CITED_BY_SUBJECT]
    assert len(cited) == 1 and cited[0].publisher == "Journal of Metabolic Studies"
    claim = output.result["claims"][0]
    assert claim["label"] == "misleading", claim["reasons"]
    h20 = [r["message"] for r in claim["reasons"] if r["code"] == "H20@1"]
    assert h20 and "In mice" in h20[0]


def test_without_a_fetcher_cited_links_are_noted_not_fetched(server: FakeServer, tmp_path: Path) -> None:
    server.html("/study", STUDY)
    post = f"Compound HX-4 reduced weight gain by 40 percent {server.url('/study')}"
    output = run_check(capture_text(post, NOW), services(tmp_path, None), NOW)
    assert output.link_notes == [f"{server.url('/study')}: not fetched (no network configured)"]
    assert server.hits("/study") == 0


def test_a_cited_link_to_a_private_address_is_refused_and_noted(tmp_path: Path) -> None:
    post = "The budget doubled, see http://169.254.169.254/latest/meta-data/"
    with SafeFetcher() as fetcher:
        output = run_check(capture_text(post, NOW), services(tmp_path, fetcher), NOW)
    assert output.link_notes == [refused_link_note(1, 1)]
    assert "refused" in output.link_notes[0] and "169.254" not in output.link_notes[0]  # nothing echoed
    assert not [i for i in output.ledger.evidence if i.role is EvidenceRole.CITED_BY_SUBJECT]


def test_a_cited_host_that_resolves_to_a_private_address_is_refused_without_echoing_it(
    tmp_path: Path,
) -> None:
    post = "Turnout fell by half, see http://intranet.example.test/report and http://localhost:8080/x"
    with SafeFetcher() as fetcher:
        output = run_check(capture_text(post, NOW), services(tmp_path, fetcher), NOW)
    refused = [note for note in output.link_notes if "refused" in note]
    assert refused and refused[-1] == refused_link_note(2, 2)
    assert not any("localhost" in note or "127.0.0.1" in note for note in output.link_notes)


def test_H24_an_archived_copy_stands_in_for_a_cited_page_that_is_gone(
    server: FakeServer, tmp_path: Path
) -> None:
    from icarus.fetching import WaybackArchive
    from tests.fetching.test_snapshots import wayback

    gone = server.url("/study-moved")  # not served: the live fetch gets a 404
    wayback(server, gone, "20261101000000", STUDY.encode())
    post = f"Compound HX-4 reduced weight gain by 40 percent, a new study finds {gone}"
    with SafeFetcher(allow_loopback_for_tests=True, sleep=lambda _seconds: None) as fetcher:
        found = services(tmp_path, fetcher)
        found.archive = WaybackArchive(server.url(""), fetcher)
        output = run_check(capture_text(post, NOW), found, NOW)
    cited = [item for item in output.ledger.evidence if item.role is EvidenceRole.CITED_BY_SUBJECT]
    assert len(cited) == 1 and cited[0].snapshot is not None and cited[0].snapshot.archived
    claim = output.result["claims"][0]
    assert any("archived copy" in caveat for caveat in claim["caveats"])
    assert claim["label"] == "misleading"  # the archived study still shows the dropped "in mice"


def test_a_url_subject_is_fetched_snapshotted_and_its_page_text_checked(
    server: FakeServer, tmp_path: Path
) -> None:
    from icarus.ledger import FieldName, SubjectKind
    from icarus.pipeline.services import capture_web_page

    server.html("/article", STUDY)
    snapshots = SnapshotStore(tmp_path / "subject-snapshots")
    with SafeFetcher(allow_loopback_for_tests=True, sleep=lambda _seconds: None) as fetcher:
        subject, ref = capture_web_page(server.url("/article"), fetcher, snapshots)
    assert subject.kind is SubjectKind.URL and server.url("/article") in subject.artifact_urls
    page_text = subject.field_text(FieldName.PAGE_TEXT)
    assert page_text is not None and "In mice fed a high-fat diet" in page_text
    assert b"In mice" in snapshots.get(ref)
    output = run_check(subject, services(tmp_path, None), NOW)
    assert output.result["claims"], "the page's sentences become claims"
