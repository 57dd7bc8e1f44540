"""H17 reads the item's own scholarly metadata: a journal article is not a preprint, a preprint server's page
is, and a DOI alone settles nothing. The case that exposed it: a journal page carrying ``citation_doi``,
``citation_issn`` and ``citation_journal_title`` was discounted as "preprint, not peer reviewed"."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from icarus.ledger import LookupName, LookupResult, LookupStatus, PublicationType, SourceClass
from tests.builders import item, ledger, unique_text
from tests.scoring.scoring_support import item_trace, score

# Journal pages say "preprint" for other reasons: an earlier version, a link to the preprint server.
WORDING = " An earlier version of this article was posted as a preprint."
LIVE = ("icarus@1.1", "icarus@1.2")


def journal_page(**fields: object) -> object:
    return item(
        "j",
        source_class=SourceClass.SCHOLARLY,
        domain="journal.example",
        text=unique_text("j") + WORDING,
        **fields,
    )


def h17(result: dict[str, object], evidence_id: str) -> list[str]:
    return [f["note"] for f in item_trace(result, evidence_id)["factors"] if f["rule"] == "H17"]


@pytest.mark.parametrize("policy", LIVE)
def test_H17_journal_metadata_is_peer_reviewed_not_a_preprint(policy: str) -> None:
    journal = journal_page(
        doi="10.5555/jhs.2026.001",
        issn="0028-0836",
        container_title="Journal of Harbour Studies",
        publication_type=PublicationType.JOURNAL_ARTICLE,
    )
    result = score(ledger([journal]), policy)
    assert h17(result, "j") == []
    assert D(item_trace(result, "j")["V"]) == 1


def test_H17_metadata_is_not_read_where_it_is_not_live() -> None:
    journal = journal_page(doi="10.5555/x", issn="0028-0836", container_title="Journal of Harbour Studies")
    assert D(item_trace(score(ledger([journal]), "icarus@1.0"), "j")["V"]) == D("0.8")  # wording alone


@pytest.mark.parametrize("policy", LIVE)
def test_H17_preprint_server_page_is_a_preprint(policy: str) -> None:
    server = item("p", domain="biorxiv.org", doi="10.1101/2026.01.02.123456", container_title="bioRxiv")
    assert D(item_trace(score(ledger([server]), policy), "p")["V"]) == D("0.8")


@pytest.mark.parametrize("policy", LIVE)
def test_H17_preprint_metadata_off_a_preprint_host(policy: str) -> None:
    # A university repository copy of an arXiv paper: the host is not a server, the metadata says preprint.
    copy = item("r", domain="repository.example.edu", publication_type=PublicationType.PREPRINT)
    result = score(ledger([copy]), policy)
    assert h17(result, "r") == ["a preprint by its metadata, not peer reviewed"]
    assert D(item_trace(result, "r")["V"]) == D("0.8")
    assert D(item_trace(score(ledger([copy]), "icarus@1.0"), "r")["V"]) == 1


def test_H17_report_metadata_is_not_peer_reviewed() -> None:
    report = item("w", domain="nber.example", publication_type=PublicationType.REPORT)
    assert h17(score(ledger([report])), "w") == [
        "a report or working paper by its metadata, not peer reviewed"
    ]


def test_H17_preprint_host_wins_over_journal_metadata() -> None:
    # SSRN gives its papers a container title and an ISSN ("SSRN Electronic Journal", 1556-5068).
    ssrn = item("s", domain="ssrn.com", issn="1556-5068", container_title="SSRN Electronic Journal")
    assert D(item_trace(score(ledger([ssrn])), "s")["V"]) == D("0.8")


def test_H17_doi_only_leaves_the_wording_standing() -> None:
    assert D(item_trace(score(ledger([journal_page(doi="10.5555/only")])), "j")["V"]) == D("0.8")
    # Without the wording a DOI is enough for a scholarly item not to count as an unpublished study.
    quiet = item("q", source_class=SourceClass.SCHOLARLY, doi="10.5555/only")
    assert D(item_trace(score(ledger([quiet])), "q")["V"]) == 1


@pytest.mark.parametrize("fields", [{"issn": "0028-0836"}, {"container_title": "Journal of Harbour Studies"}])
def test_H17_issn_or_journal_title_alone_is_journal_metadata(fields: dict[str, str]) -> None:
    assert D(item_trace(score(ledger([journal_page(**fields)])), "j")["V"]) == 1


def test_H17_scholarly_item_without_any_metadata_stays_a_preprint() -> None:
    bare = item("b", source_class=SourceClass.SCHOLARLY)
    assert h17(score(ledger([bare])), "b") == ["preprint, not peer reviewed"]


def crossref_says(kind: PublicationType) -> LookupResult:
    return LookupResult(
        name=LookupName.SCHOLARLY_UPDATES,
        status=LookupStatus.OK,
        provider="crossref@1",
        publication_type=kind,
    )


def test_H17_crossref_posted_content_is_a_preprint_whatever_the_page_says() -> None:
    journal = journal_page(
        doi="10.5555/posted", issn="0028-0836", lookups=[crossref_says(PublicationType.PREPRINT)]
    )
    result = score(ledger([journal]), "icarus@1.2")
    assert h17(result, "j") == ["a preprint by Crossref's record, not peer reviewed"]


def test_H17_crossref_journal_article_clears_the_wording_of_a_doi_only_page() -> None:
    doi_only = journal_page(doi="10.5555/jhs.1", lookups=[crossref_says(PublicationType.JOURNAL_ARTICLE)])
    assert h17(score(ledger([doi_only]), "icarus@1.2"), "j") == []
    # Crossref's record counts only where the look-up is live, and only when it answered.
    failed = crossref_says(PublicationType.JOURNAL_ARTICLE).model_copy(update={"status": LookupStatus.ERROR})
    assert h17(score(ledger([journal_page(doi="10.5555/jhs.1", lookups=[failed])]), "icarus@1.2"), "j") == [
        "preprint, not peer reviewed"
    ]
    assert h17(score(ledger([doi_only]), "icarus@1.0"), "j") == ["preprint, not peer reviewed"]
