"""Renderers read the published result shape and escape everything that came from a post."""

from __future__ import annotations

from html.parser import HTMLParser

from icarus.reports.render import render_html, render_markdown
from tests.builders import claim, item, ledger, subject
from tests.scoring.scoring_support import score

HOSTILE = 'Budget <script>alert(1)</script> & "quotes" approved.'


def hostile_result() -> dict:
    return score(
        ledger([item("a"), item("b")], claims=[claim(text=HOSTILE, source=HOSTILE)], subject=subject(HOSTILE))
    )


def test_html_escapes_post_text_and_parses() -> None:
    page = render_html(hostile_result())
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    parser = HTMLParser()
    parser.feed(page)
    assert '<html lang="en">' in page and "<title>" in page


def test_markdown_shows_label_band_reasons() -> None:
    md = render_markdown(hostile_result())
    assert md.startswith("# \u2705 Supported")
    assert "`rule-4@1`" in md
