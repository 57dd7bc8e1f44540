"""Link scoring for ricochet's offline navigation: relevant, primary and same-site links first; social,
navigation, asset and already-seen links skipped."""

from __future__ import annotations

from icarus.debates.research.links import (
    MIN_LINK_SCORE,
    PRIMARY_CUE_BONUS,
    SAME_ORIGIN_BONUS,
    PageLink,
    claim_terms,
    followable,
    page_links,
    score_links,
)

CLAIM = "Unemployment in Spain fell to 11.7 percent in 2023"
PAGE = "https://news.example.com/2024/jobs-story"

HTML = b"""<html><body>
<p>Story text. <a href="/2024/other-news">Other news</a>
<a href="https://www.ine.es/en/labour/unemployment-2023.htm">Unemployment statistics for Spain, 2023</a>
<a href="https://twitter.com/someone/status/1">Spain unemployment 2023 on Twitter</a>
<a href="https://news.example.com/share?u=x">Share</a>
<a href="https://news.example.com/img/chart.png">Unemployment chart</a>
<a href="https://blog.example.net/spain-unemployment-fell">Why Spain's unemployment fell</a>
<a href="https://www.ine.es/en/labour/unemployment-2023.htm#table">the same report again</a>
<a href="mailto:editor@example.com">Mail us</a>
<a href="#top">Top</a>
</body></html>"""


def links_of(body: bytes = HTML) -> list[PageLink]:
    return page_links(body, "text/html; charset=utf-8", PAGE)


def test_page_links_reads_anchor_text_and_absolute_http_links() -> None:
    links = links_of()
    urls = [link.url for link in links]
    assert "https://news.example.com/2024/other-news" in urls
    assert not any(url.startswith("mailto:") for url in urls)
    assert urls.count("https://www.ine.es/en/labour/unemployment-2023.htm") == 1  # fragment folded
    ine = next(link for link in links if "ine.es" in link.url)
    assert ine.anchor == "Unemployment statistics for Spain, 2023"


def test_a_page_that_is_not_html_gives_the_bare_link_list() -> None:
    assert page_links(b"%PDF-1.4", "application/pdf", PAGE, ["https://a.example/x"]) == [
        PageLink("https://a.example/x")
    ]


def test_primary_relevant_link_ranks_first_and_social_links_are_skipped() -> None:
    scored = score_links(links_of(), claim_terms(CLAIM), PAGE)
    best = scored[0]
    assert best.url.startswith("https://www.ine.es/") and "primary-source cue" in best.reasons
    skipped = {link.url: link.skipped for link in scored if link.skipped}
    assert skipped["https://twitter.com/someone/status/1"] == "social network"
    assert skipped["https://news.example.com/share?u=x"] == "navigation page"
    assert skipped["https://news.example.com/img/chart.png"] == "not a document"
    follow = [link.url for link in followable(scored)]
    assert follow[0].startswith("https://www.ine.es/")
    assert "https://blog.example.net/spain-unemployment-fell" in follow
    # an unrelated same-site link scores only the same-site bonus: below the threshold
    assert "https://news.example.com/2024/other-news" not in follow


def test_already_seen_canonical_urls_are_skipped() -> None:
    seen = {"https://ine.es/en/labour/unemployment-2023.htm"}  # www. and scheme fold away
    scored = score_links(links_of(), claim_terms(CLAIM), PAGE, seen)
    ine = [link for link in scored if "ine.es" in link.url]
    assert ine and all(link.skipped == "already seen" for link in ine)


def test_x_and_other_social_hosts_are_never_followed_however_relevant() -> None:
    links = [
        PageLink("https://x.com/a/status/2", CLAIM),
        PageLink("https://mobile.twitter.com/a", CLAIM),
        PageLink("https://www.facebook.com/post", CLAIM),
        PageLink("https://t.co/abc", CLAIM),
    ]
    assert followable(score_links(links, claim_terms(CLAIM), PAGE)) == []


def test_score_parts_and_the_threshold_boundary() -> None:
    terms = frozenset({"alpha", "beta"})
    plain = score_links([PageLink("https://other.example/x", "alpha beta")], terms, PAGE)[0]
    assert plain.score == 0.6  # every term in the anchor, none in the address
    same_site = score_links([PageLink("https://news.example.com/page", "")], terms, PAGE)[0]
    assert same_site.score == SAME_ORIGIN_BONUS < MIN_LINK_SCORE
    primary = score_links([PageLink("https://other.example/data", "")], terms, PAGE)[0]
    assert primary.score == PRIMARY_CUE_BONUS
    # exactly at the threshold is followed
    assert followable([primary], min_score=PRIMARY_CUE_BONUS) == [primary]
    assert followable([primary], min_score=PRIMARY_CUE_BONUS + 0.01) == []


def test_ties_keep_page_order() -> None:
    links = [PageLink(f"https://site{i}.example/p", "alpha") for i in range(3)]
    scored = score_links(links, frozenset({"alpha"}), PAGE)
    assert [link.url for link in scored] == [link.url for link in links]
