"""The Markdown renderer reads the published result shape (the HTML page is tested in tests/web)."""

from __future__ import annotations

from rich.console import Console

from icarus.reports.render import render_console, render_markdown
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


def test_markdown_lists_blockers_under_an_unverifiable_claim() -> None:
    md = render_markdown(score(ledger([item("a", domain="reuters.com")])))
    assert "What would settle it (blockers):" in md
    assert "- `independent_origins` 1 of 2 independent origins (support: reuters.com)" in md


def test_markdown_lists_what_kept_a_decided_claim_below_high() -> None:
    md = render_markdown(hostile_result())
    assert "What kept it below high confidence:" in md
    assert "- `confidence_below_high` confidence " in md


def test_console_table_has_a_blockers_column() -> None:
    console = Console(record=True, width=200)
    render_console(score(ledger([item("a", domain="reuters.com")])), console)
    text = console.export_text()
    assert "blockers" in text
    assert "1 of 2 independent origins (support: reuters.com)" in text


def test_renderers_accept_a_result_scored_before_blockers() -> None:
    result = score(ledger([item("a")]))
    for c in result["claims"]:
        del c["blockers"]
    assert "What would settle it" not in render_markdown(result)
    render_console(result, Console(record=True, width=200))
