"""The report page: conclusion, claims in the post's own words with reasons, origins, timeline, diffs."""

from __future__ import annotations

from datetime import UTC, datetime
from html.parser import HTMLParser

import pytest

from icarus.web import Links, ReportPage, render_report_page, report_context
from icarus.web.report import claim_changes, reason_kind
from tests.builders import claim, item, ledger, subject
from tests.scoring.scoring_support import score
from tests.web.support import Entry, scored

HOSTILE = 'Budget <script>alert(1)</script> & "quotes" approved.'
T1 = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
T2 = datetime(2026, 11, 20, 13, 0, tzinfo=UTC)


class Outline(HTMLParser):
    """Headings in order and landmark elements, to check structure without a browser."""

    def __init__(self) -> None:
        super().__init__()
        self.headings: list[int] = []
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        if len(tag) == 2 and tag[0] == "h" and tag[1].isdigit():
            self.headings.append(int(tag[1]))


def outline(page: str) -> Outline:
    parser = Outline()
    parser.feed(page)
    return parser


def cycle_page(**extra: object) -> ReportPage:
    led, result = scored("circular-reporting")
    return ReportPage(result=result, ledger=led.model_dump(mode="json"), check_id="chk1", version=1, **extra)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("rule-4@1", "decision"),
        ("G1@1", "gate"),
        ("G7@1", "gate"),
        ("H19@1", "validity rule"),
        ("penalty@1", "confidence penalty"),
        ("overall@1", "overall"),
        ("Gx@1", "note"),  # a G not followed by a digit is not a gate
        ("Hello", "note"),
    ],
)
def test_reason_kinds(code: str, kind: str) -> None:
    assert reason_kind(code) == kind


def test_the_page_shows_the_conclusion_claim_span_reasons_and_origins() -> None:
    page = render_report_page(cycle_page())
    assert "Unverifiable" in page and "confidence low" in page
    # the claim, verbatim, with its place in the post highlighted
    assert "Verbatim from the post text, characters 24\u201378" in page
    assert "<mark>container traffic at Halden harbor fell 12% in October</mark>" in page
    # reasons: the gate that fired is named in words, with its code
    assert (
        '<a href="/methodology/icarus@1.1" title="Single origin: see the methodology"><code>G1@1</code></a>'
        "</td><td>gate</td><td><strong>Single origin</strong>: single source, developing</td>"
    ) in page
    # origins: one cluster, origin starred and named, circular reporting said in words, snapshot links
    assert "Origin 1: Coastline Courier" in page and "\u21bb circular reporting" in page
    assert page.count('class="snapshot" href="/v1/snapshots/sha256:') == 2
    assert "Circular reporting: Coastline Courier \u2194 Harbor Watch." in page
    tree = outline(page)
    assert tree.headings[0] == 1 and tree.headings.count(1) == 1
    assert all(b - a <= 1 for a, b in zip(tree.headings, tree.headings[1:], strict=False))  # no skipped level
    assert {"main", "nav", "header", "footer"} <= tree.tags
    assert "<script" not in page  # the report page needs no script


def test_post_text_is_escaped_everywhere() -> None:
    result = score(
        ledger([item("a"), item("b")], claims=[claim(text=HOSTILE, source=HOSTILE)], subject=subject(HOSTILE))
    )
    page = render_report_page(ReportPage(result=result))
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_timeline_marks_the_shown_version_and_links_the_others() -> None:
    versions = [
        Entry(1, T1, T1, "icarus@1.0", "unverifiable", "low", "first", "first version"),
        Entry(
            2,
            T2,
            T2,
            "icarus@1.1",
            "supported",
            "medium",
            "recheck",
            "overall unverifiable/low \u2192 supported/medium",
        ),
    ]
    page = render_report_page(cycle_page(versions=versions))
    assert '<a href="/checks/chk1/versions/2">Version 2</a>' in page
    assert '<span aria-current="page">Version 1 (this page)</span>' in page
    assert "This is an earlier version." in page and 'href="/checks/chk1/versions/2">Read the latest' in page
    assert "overall unverifiable/low \u2192 supported/medium" in page


def test_what_changed_lists_claims_whose_conclusion_moved() -> None:
    _, before = scored("circular-reporting", "icarus@1.0")
    after = {**before, "claims": [{**before["claims"][0], "label": "supported", "band": "medium"}]}
    changes = claim_changes(before, after)
    assert [(c.claim_id, c.before, c.after) for c in changes] == [
        ("c1", ("unverifiable", "low"), ("supported", "medium"))
    ]
    assert claim_changes(before, before) == [] and claim_changes(None, after) == []
    page = render_report_page(ReportPage(result=after, previous_result=before))
    assert "Claims whose conclusion changed since the previous version" in page


def test_a_hidden_source_keeps_verdict_and_evidence_but_not_the_post_words() -> None:
    page = render_report_page(cycle_page(source_hidden="the post was deleted"))
    assert "container traffic at Halden harbor" not in page
    assert "[the post&#39;s words are hidden: the post was deleted]" in page
    assert "Unverifiable" in page and "Origin 1: Coastline Courier" in page


def test_links_follow_the_templates_given() -> None:
    links = Links(snapshot="/blobs/{ref}", methodology="/policy/{policy}.html")
    context = report_context(cycle_page(), links)
    assert context["policy_url"] == "/policy/icarus@1.1.html"
    member = context["claims"][0]["origins"]["groups"][0]["members"][0]
    assert member["snapshot_url"].startswith("/blobs/sha256:") and member["origin"]


def test_links_under_a_base_url_are_absolute_for_a_saved_page() -> None:
    links = Links.under("https://icarus.example/")  # the trailing slash is not doubled
    assert links.dashboard == "https://icarus.example/"
    assert links.methodology_url("icarus@1.1") == "https://icarus.example/methodology/icarus@1.1"
    assert links.version_json_url("c1", 2) == "https://icarus.example/v1/checks/c1/versions/2"
    assert links.snapshot_url("sha256:ab") == "https://icarus.example/v1/snapshots/sha256:ab"
    defaults = Links()
    assert links.events == "https://icarus.example" + defaults.events


def test_a_claim_with_no_evidence_says_finding_nothing_is_not_evidence_against() -> None:
    _, result = scored("finding-nothing")
    page = render_report_page(ReportPage(result=result))
    assert "Finding nothing is not evidence against it." in page


def test_an_excerpt_that_is_not_the_snapshot_text_is_withheld_not_quoted() -> None:
    # G3 fails closed on display: a quote the snapshot does not hold never reaches a reader.
    good = item("a")
    forged = item("b", excerpt={"span": {"start": 0, "end": 10}, "text": "FABRICATED"})
    led = ledger([good, forged])
    page = render_report_page(ReportPage(result=score(led), ledger=led.model_dump(mode="json")))
    assert "FABRICATED" not in page
    assert f'<q class="excerpt">{good.excerpt.text}</q>' in page  # type: ignore[union-attr]
    assert page.count("excerpt withheld: it is not the snapshot") == 1


def test_report_page_lists_the_blockers_of_an_unverifiable_claim() -> None:
    led, result = scored("wire-pickups")
    page = render_report_page(ReportPage(result=result, ledger=led.model_dump(mode="json")))
    assert "<h4>What would settle it (blockers)</h4>" in page
    assert "<code>independent_origins</code> 1 of 2 independent origins (support: apnews.com)" in page


def test_report_page_lists_what_kept_a_decided_claim_below_high() -> None:
    led, result = scored("two-independent-wires")
    context = report_context(ReportPage(result=result, ledger=led.model_dump(mode="json")))
    (claim_view,) = context["claims"]
    assert [b["code"] for b in claim_view["blockers"]] == ["confidence_below_high"]
    page = render_report_page(ReportPage(result=result, ledger=led.model_dump(mode="json")))
    assert "<h4>What kept it below high confidence</h4>" in page
    assert "confidence 0.691347, high needs 0.70" in page


def test_report_page_of_a_result_without_blockers_has_no_blockers_list() -> None:
    led, result = scored("wire-pickups")
    for c in result["claims"]:
        del c["blockers"]  # a version stored before results carried blockers
    page = render_report_page(ReportPage(result=result, ledger=led.model_dump(mode="json")))
    assert 'class="blockers"' not in page
