"""Markdown to HTML for the methodology and model pages.

Raw HTML in the Markdown is escaped, not passed through: a page shows what its config says and nothing
else can ride along.
"""

from __future__ import annotations

from functools import cache

from markdown_it import MarkdownIt

__all__ = ["markdown_to_html"]


@cache
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def markdown_to_html(text: str) -> str:
    html: str = _markdown().render(text)
    return html
