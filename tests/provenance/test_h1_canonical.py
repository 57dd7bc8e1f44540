"""H1: one document reached by several addresses is one document."""

from __future__ import annotations

import pytest

from icarus.provenance import build_graph, canonical_url
from icarus.provenance.canonical import item_canonical_url
from icarus.scoring.icarus.config import ProvenanceSettings
from tests.provenance.conftest import item, story

BASE = "https://example.com/world/story-1"


@pytest.mark.parametrize(
    "variant",
    [
        "https://example.com/world/story-1",
        "HTTPS://Example.COM/world/story-1",
        "http://example.com/world/story-1",
        "https://example.com:443/world/story-1",
        "https://example.com/world/story-1/",
        "https://example.com/world/story-1#comments",
        "https://www.example.com/world/story-1",
        "https://m.example.com/world/story-1",
        "https://mobile.example.com/world/story-1",
        "https://amp.example.com/world/story-1",
        "https://example.com/world/story-1?utm_source=twitter&utm_medium=social&utm_campaign=x",
        "https://example.com/world/story-1?fbclid=IwAR0abc",
        "https://example.com/world/story-1?gclid=abc&mc_cid=1&mc_eid=2&ref=home&cmpid=rss",
        "https://example.com/world/story-1/amp",
        "https://example.com/world/story-1/amp/",
        "https://example.com/amp/world/story-1",
        "https://example.com/world/story-1?amp",
        "https://example.com/world/story-1?amp=1",
        "https://example.com/world/story-1?outputType=amp",
        "https://example.com/world/story-1/print",
        "https://example.com/world/story-1?print=1",
        "https://example.com/world/story-1?view=print",
    ],
)
def test_h1_variants_fold_to_one_url(variant: str) -> None:
    assert canonical_url(variant) == BASE


def test_h1_amp_html_suffix_folds_to_html() -> None:
    assert canonical_url("https://example.com/a/story.amp.html") == "https://example.com/a/story.html"


def test_h1_content_parameters_are_kept_and_sorted() -> None:
    assert canonical_url("https://example.com/search?q=rates&page=2&utm_source=x") == (
        "https://example.com/search?page=2&q=rates"
    )
    # view=list is content, only view=print is a rendition
    assert canonical_url("https://example.com/a?view=list") == "https://example.com/a?view=list"


def test_h1_other_ports_and_subdomains_stay() -> None:
    assert canonical_url("https://news.example.com:8443/a") == "https://news.example.com:8443/a"
    assert canonical_url("https://www.bbc.co.uk/news/x") == "https://bbc.co.uk/news/x"


def test_h1_non_web_strings_are_left_alone() -> None:
    assert canonical_url("  mailto:desk@example.com ") == "mailto:desk@example.com"


def test_h1_rel_canonical_then_og_url_on_same_registered_domain() -> None:
    page = item("a", url="https://m.example.com/x?utm_source=feed", rel_canonical="https://example.com/y")
    assert item_canonical_url(page) == "https://example.com/y"
    page = item("a", url="https://m.example.com/x", og_url="https://www.example.com/z/")
    assert item_canonical_url(page) == "https://example.com/z"
    both = item(
        "a",
        url="https://example.com/x",
        rel_canonical="https://example.com/r",
        og_url="https://example.com/o",
    )
    assert item_canonical_url(both) == "https://example.com/r"


def test_h1_rel_canonical_to_another_site_is_ignored() -> None:
    page = item("a", url="https://blog.example/x", rel_canonical="https://apnews.com/article/y")
    assert item_canonical_url(page) == "https://blog.example/x"


def test_h1_duplicates_map_later_id_to_first(settings: ProvenanceSettings) -> None:
    evidence = [
        item("b", url="https://www.example.com/s?utm_source=x", domain="example.com", text=story(1)),
        item("a", url="https://example.com/s/amp", domain="example.com", text=story(2)),
        item("c", url="https://other.example/c", content_sha256="ab" * 32, text=story(3)),
        item("d", url="https://third.example/d", content_sha256="AB" * 32, text=story(4)),
    ]
    graph = build_graph(evidence, [], settings)
    assert graph.duplicate_of == {"b": "a", "d": "c"}
    assert graph.canonical_urls["a"] == graph.canonical_urls["b"] == "https://example.com/s"
    assert ("a", "b") in graph.copy_groups
    assert graph.cluster_of("a") == graph.cluster_of("b")
    assert graph.cluster_of("c") == graph.cluster_of("d")


@pytest.mark.parametrize(
    "variant",
    [
        "https://x.com/Example/status/1790000000000000001",
        "https://x.com/example/status/1790000000000000001/photo/1",
        "https://x.com/i/web/status/1790000000000000001",
        "https://x.com/i/status/1790000000000000001",
        "https://twitter.com/EXAMPLE/statuses/1790000000000000001?s=20&t=abc",
        "https://mobile.twitter.com/example/status/1790000000000000001",
    ],
)
def test_h1_every_address_of_one_post_on_x_is_its_status_number(variant: str) -> None:
    assert canonical_url(variant) == "https://x.com/i/status/1790000000000000001"


def test_h1_other_pages_on_x_keep_their_path() -> None:
    assert canonical_url("https://x.com/Example") == "https://x.com/Example"
    assert canonical_url("https://x.com/search?q=rates") == "https://x.com/search?q=rates"


@pytest.mark.parametrize(
    "variant",
    [
        "https://example-com.cdn.ampproject.org/c/s/example.com/world/story-1",
        "https://example-com.cdn.ampproject.org/v/s/www.example.com/world/story-1/amp?amp_js_v=0.1",
        "https://www.google.com/amp/s/example.com/world/story-1",
        "https://www.google.co.uk/amp/s/www.example.com/world/story-1/amp/",
        "https://example.com/print/world/story-1",
        "https://example.com/world/story-1.amp",
    ],
)
def test_h1_amp_caches_and_more_renditions_fold(variant: str) -> None:
    assert canonical_url(variant) == BASE


def test_h1_a_mobile_label_before_the_site_name_folds() -> None:
    assert (
        canonical_url("https://en.m.wikipedia.org/wiki/Polar_bear")
        == "https://en.wikipedia.org/wiki/Polar_bear"
    )
    assert canonical_url("https://m.example.com/a") == canonical_url("https://example.com/a")
    assert canonical_url("https://news.example.com/a") == "https://news.example.com/a"  # content labels stay


def test_h1_google_pages_that_are_not_amp_stay() -> None:
    assert canonical_url("https://www.google.com/search?q=rates") == "https://google.com/search?q=rates"
