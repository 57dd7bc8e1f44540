"""Scholarly metadata from fetched HTML (H16's DOI, H17's journal or preprint): Highwire ``citation_*``,
Dublin Core, JSON-LD, microdata and RDFa; identifiers normalised; hostile markup read in bounded time."""

from __future__ import annotations

import time  # the time bounds here are CPU seconds of this process, so a busy machine cannot fail them
from datetime import UTC, datetime

import pytest

from icarus.fetching import extract_page
from icarus.fetching.scholarly import (
    MAX_ITEMSCOPE_DEPTH,
    MAX_JSON_LD_CHARS,
    MAX_META_TAGS,
    read_html_metadata,
)
from icarus.ledger import PublicationType
from icarus.ledger.identifiers import normalize_doi, normalize_issn

URL = "https://journal.example/articles/jhs-2026-001"
JOURNAL_PAGE = """<!doctype html><html lang="en"><head>
<title>Container traffic at Halden harbour | Journal of Harbour Studies</title>
<meta name="citation_title" content="Container traffic at Halden harbour, 2020-2026">
<meta name="citation_doi" content="doi:10.5555/JHS.2026.001">
<meta name="citation_issn" content="0028-0836">
<meta name="citation_journal_title" content="Journal of Harbour Studies">
<meta name="citation_publication_date" content="2026/10/30">
</head><body><article><h1>Container traffic at Halden harbour</h1>
<p>Container traffic at Halden harbour fell 12% in October against the same month a year before, the port
authority's monthly statistics show. An earlier version of this analysis was posted as a preprint.</p>
</article></body></html>"""


def page(head: str = "", body: str = "<p>text</p>") -> bytes:
    return f"<!doctype html><html><head>{head}</head><body>{body}</body></html>".encode()


def meta(**tags: str) -> str:
    return "".join(f'<meta name="{name}" content="{value}">' for name, value in tags.items())


def test_H17_journal_page_citation_tags_are_read_by_extract_page() -> None:
    extracted = extract_page(JOURNAL_PAGE.encode(), "text/html; charset=utf-8", URL)
    found = extracted.scholarly
    assert found is not None
    assert found.doi == "10.5555/jhs.2026.001"
    assert found.issn == "0028-0836"
    assert found.container_title == "Journal of Harbour Studies"
    assert found.publication_type is PublicationType.JOURNAL_ARTICLE
    assert found.found_in == ("highwire",)
    assert extracted.published_at == datetime(2026, 10, 30, tzinfo=UTC)  # no other date on the page
    assert found.evidence_fields() == {
        "doi": "10.5555/jhs.2026.001",
        "issn": "0028-0836",
        "container_title": "Journal of Harbour Studies",
        "publication_type": PublicationType.JOURNAL_ARTICLE,
    }


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        (
            meta(citation_arxiv_id="2601.01234", citation_doi="10.48550/arXiv.2601.01234"),
            PublicationType.PREPRINT,
        ),
        (
            meta(citation_doi="10.1101/2026.01.02.26300001", citation_journal_title="medRxiv"),
            PublicationType.PREPRINT,
        ),
        (
            meta(citation_journal_title="SSRN Electronic Journal", citation_issn="1556-5068"),
            PublicationType.PREPRINT,
        ),
        (meta(citation_doi="10.21203/rs.3.rs-123456/v1"), PublicationType.PREPRINT),
        (
            meta(citation_publisher="Research Square", citation_title="x"),
            None,
        ),  # a publisher alone: no record
        (
            meta(citation_technical_report_institution="Halden Institute", citation_doi="10.5555/w1"),
            PublicationType.REPORT,
        ),
        # Cold Spring Harbor's journals share bioRxiv's prefix; their DOIs are neither dated nor all digits.
        (
            meta(citation_doi="10.1101/gr.277335.122", citation_journal_title="Genome Research"),
            PublicationType.JOURNAL_ARTICLE,
        ),
    ],
)
def test_H17_publication_type_from_highwire_tags(head: str, kind: PublicationType | None) -> None:
    found = read_html_metadata(page(head), URL)
    assert (found.publication_type if found is not None else None) is kind


def test_H17_doi_only_says_nothing_of_the_kind() -> None:
    found = read_html_metadata(page(meta(citation_doi="https://doi.org/10.5555/Only.1")), URL)
    assert found is not None and found.doi == "10.5555/only.1" and found.publication_type is None


def test_H17_issn_only_is_a_journal() -> None:
    found = read_html_metadata(page(meta(citation_issn="ISSN 1476-4687")), URL)
    assert found is not None and found.issn == "1476-4687"
    assert found.publication_type is PublicationType.JOURNAL_ARTICLE and found.doi is None


def test_json_ld_scholarly_article_through_issue_and_volume() -> None:
    json_ld = """<script type="application/ld+json">{"@context": "https://schema.org", "@graph": [
      {"@type": "WebPage", "name": "not this"},
      {"@type": "ScholarlyArticle", "headline": "Harbour traffic",
       "identifier": {"@type": "PropertyValue", "propertyID": "DOI", "value": "10.5555/LD.7"},
       "datePublished": "2026-05-06",
       "isPartOf": {"@type": "PublicationIssue", "issueNumber": "3", "name": "Issue 3",
                    "isPartOf": {"@type": "PublicationVolume", "isPartOf":
                                 {"@type": "Periodical", "name": "Harbour Letters", "issn": ["1476-4687"]}}}}
    ]}</script>"""
    found = read_html_metadata(page(json_ld), URL)
    assert found is not None
    assert (found.doi, found.issn, found.container_title) == ("10.5555/ld.7", "1476-4687", "Harbour Letters")
    assert found.publication_type is PublicationType.JOURNAL_ARTICLE and found.found_in == ("json-ld",)
    assert found.published_at == datetime(2026, 5, 6, tzinfo=UTC)


def test_json_ld_preprint_status_and_comments_in_the_script() -> None:
    json_ld = """<script type="application/ld+json">
      // written by a template
      {"@type": "ScholarlyArticle", "creativeWorkStatus": "Preprint", "sameAs": "https://doi.org/10.5555/P.2",}
    </script>"""
    found = read_html_metadata(page(json_ld), URL)
    assert found is not None and found.doi == "10.5555/p.2"
    assert found.publication_type is PublicationType.PREPRINT


def test_news_article_json_ld_is_not_scholarly() -> None:
    json_ld = (
        '<script type="application/ld+json">{"@type": "NewsArticle", "identifier": "10.5555/no"}</script>'
    )
    assert read_html_metadata(page(json_ld), URL) is None


def test_microdata_and_rdfa_scholarly_articles() -> None:
    microdata = """<div itemscope itemtype="https://schema.org/ScholarlyArticle"><span itemprop="name">M</span>
      <meta itemprop="sameAs" content="https://doi.org/10.5555/md.3">
      <div itemprop="isPartOf" itemscope itemtype="https://schema.org/Periodical">
        <span itemprop="name">Micro Journal</span><span itemprop="issn">0028-0836</span></div></div>"""
    found = read_html_metadata(page(body=microdata), URL)
    assert found is not None and found.found_in == ("microdata",)
    assert (found.doi, found.issn, found.container_title) == ("10.5555/md.3", "0028-0836", "Micro Journal")
    rdfa = """<div vocab="https://schema.org/" typeof="ScholarlyArticle" resource="#a">
      <span property="name">R</span><span property="sameAs">https://doi.org/10.5555/RDFA.4</span>
      <div property="isPartOf" typeof="Periodical"><span property="name">RDFa Journal</span>
        <span property="issn">1476-4687</span></div></div>"""
    found = read_html_metadata(page(body=rdfa), URL)
    assert found is not None and found.found_in == ("rdfa",)
    assert (found.doi, found.issn, found.container_title) == ("10.5555/rdfa.4", "1476-4687", "RDFa Journal")
    assert found.publication_type is PublicationType.JOURNAL_ARTICLE


def test_dublin_core_identifier_part_of_and_type() -> None:
    head = meta(**{"DC.identifier": "doi:10.5555/DC.5", "dcterms.isPartOf": "urn:issn:0028-0836"})
    found = read_html_metadata(page(head), URL)
    assert found is not None and found.found_in == ("dublin_core",)
    assert (found.doi, found.issn, found.publication_type) == (
        "10.5555/dc.5",
        "0028-0836",
        PublicationType.JOURNAL_ARTICLE,
    )
    preprint = read_html_metadata(page(meta(**{"DC.identifier": "10.5555/dc.6", "DC.type": "Preprint"})), URL)
    assert preprint is not None and preprint.publication_type is PublicationType.PREPRINT


def test_an_ordinary_page_has_no_scholarly_metadata() -> None:
    news = page('<meta property="og:title" content="Harbour news"><meta name="description" content="x">')
    assert read_html_metadata(news, URL) is None
    assert extract_page(news, "text/html", URL).scholarly is None


def test_identifiers_are_normalised_and_checked() -> None:
    assert normalize_doi("https://dx.doi.org/10.1234/ABC.") == "10.1234/abc"
    assert normalize_doi("info:doi/10.1234/x") == "10.1234/x"
    assert normalize_doi("10.1234") is None and normalize_doi("1234/abc") is None
    assert normalize_doi("10.1234/" + "a" * 400) is None
    assert normalize_issn("0028-0836") == "0028-0836"
    assert normalize_issn("issn: 2049 3630") == "2049-3630"
    assert normalize_issn("2434-561x") == "2434-561X"
    assert normalize_issn("0028-0837") is None  # wrong check digit: not an ISSN
    assert normalize_issn("12345678901") is None


def test_a_bad_issn_or_doi_is_dropped_not_guessed() -> None:
    found = read_html_metadata(page(meta(citation_issn="0028-0837", citation_doi="pending")), URL)
    assert found is None


HOSTILE = {
    "json-ld nested past the decoder's limit": page(
        '<script type="application/ld+json">' + "[" * 100_000 + "]" * 100_000 + "</script>"
    ),
    "scholarly json-ld nested 900 deep": page(
        '<script type="application/ld+json">'
        + '{"@type": "ScholarlyArticle", "isPartOf": ' * 900
        + "{}"
        + "}" * 900
        + "</script>"
    ),
    "malformed json-ld": page(
        '<script type="application/ld+json">{"@type": "ScholarlyArticle", "doi": "10.1/z" /* */ , } } ]</script>'
    ),
    "json-ld far over the cap": page(
        '<script type="application/ld+json">{"a": "' + "x/*" * (MAX_JSON_LD_CHARS // 2) + "</script>"
    ),
    "itemscope nested as deep as the parser allows": page(
        body='<div itemscope itemtype="https://schema.org/ScholarlyArticle"><span itemprop="name">n</span>'
        * 5000
        + "</div>" * 5000
    ),
    "rdfa nested as deep as the parser allows": page(
        body='<div vocab="https://schema.org/" typeof="ScholarlyArticle" property="x">' * 5000
        + "</div>" * 5000
    ),
    "many meta tags": page('<meta name="DC.title" content="t">' * (MAX_META_TAGS * 100)),
    "many itemprops": page(
        body="<div itemscope itemtype='https://schema.org/ScholarlyArticle'>"
        + '<span itemprop="n">t</span>' * 100_000
    ),
    "many rdfa properties": page(
        body='<div vocab="https://schema.org/" typeof="ScholarlyArticle">'
        + '<span property="name">t</span>' * 100_000
        + "</div>"
    ),
    "itemref cycle": page(
        body='<div itemscope itemtype="https://schema.org/ScholarlyArticle" id="a" itemref="b">'
        '<span itemprop="x">1</span></div><div itemscope id="b" itemref="a" itemprop="y"></div>'
    ),
    "binary noise": bytes(range(256)) * 1000,
}


@pytest.mark.parametrize("body", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_markup_is_read_in_bounded_time(body: bytes) -> None:
    started = time.process_time()
    read_html_metadata(body, URL)  # must not raise
    assert time.process_time() - started < 5  # about a second at most on the 2-core machines


def test_deep_itemscope_nesting_is_not_handed_to_the_microdata_reader() -> None:
    depth = MAX_ITEMSCOPE_DEPTH + 2
    nested = '<div itemscope itemtype="https://schema.org/ScholarlyArticle">' * depth + "</div>" * depth
    doi = '<div itemscope itemtype="https://schema.org/ScholarlyArticle"><span itemprop="doi">10.5555/m</span></div>'
    assert read_html_metadata(page(body=doi), URL) is not None
    assert read_html_metadata(page(body=nested + doi), URL) is None  # skipped whole, not read slowly
