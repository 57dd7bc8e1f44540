"""The Markdown renderer reads the published result shape (the HTML page is tested in tests/web)."""

from __future__ import annotations

from icarus.reports.render import render_markdown
from tests.builders import claim, item, ledger, subject
from tests.scoring.scoring_support import score

HOSTILE = 'Budget <script>alert(1)</script> & "quotes" approved.'


def hostile_result() -> dict:
    return score(
        ledger([item("a"), item("b")], claims=[claim(text=HOSTILE, source=HOSTILE)], subject=subject(HOSTILE))
    )


def test_markdown_shows_label_band_reasons() -> None:
    md = render_markdown(hostile_result())
    assert md.startswith("# \u2705 Supported")
    assert "`rule-4@1`" in md
