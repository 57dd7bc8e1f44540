"""The Jinja environment and the shipped stylesheet and script, loaded once per process.

Templates autoescape everything: claim text, publisher names and URLs all come from outside. The CSS
and the dashboard script are inlined into each page, so a page is one request with no external assets;
``inline_styles`` and ``inline_scripts`` are every such block, which the pages' Content-Security-Policy
allows by hash (and nothing else inline).
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from importlib.resources import files
from typing import Final

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from icarus.scoring.icarus.config import DEFAULT_POLICY
from icarus.scoring.labels import Label
from icarus.web.graph import graph_css

__all__ = [
    "asset",
    "debate_css",
    "environment",
    "inline_scripts",
    "inline_styles",
    "label_heading",
    "label_symbol",
    "page_css",
]

SCRIPTS: Final = ("dashboard.js", "debate.js")  # each inlined whole into the pages that run it


@cache
def asset(name: str) -> str:
    """The text of ``icarus/web/static/<name>``."""
    return files("icarus.web").joinpath("static", name).read_text(encoding="utf-8")


@cache
def page_css() -> Markup:
    """Every page's stylesheet, inlined verbatim (escaping would turn its ">" selectors into "&gt;")."""
    return Markup(asset("icarus.css") + "\n" + graph_css())


@cache
def debate_css() -> Markup:
    """The debate pages' stylesheet: every page's and their own."""
    return Markup(page_css() + "\n" + asset("debate.css"))


def inline_styles() -> tuple[str, ...]:
    """The text of every ``<style>`` block a page carries."""
    return (str(page_css()), str(debate_css()))


def inline_scripts() -> tuple[str, ...]:
    """The text of every ``<script>`` a page runs."""
    return tuple(asset(name) for name in SCRIPTS)


def label_symbol(label: str | None) -> str:
    try:
        return Label(label or "").symbol
    except ValueError:
        return "\u2026"  # no version yet (pending) or a label this code does not know


def label_heading(label: str | None) -> str:
    try:
        return Label(label or "").heading
    except ValueError:
        return "Pending" if label is None else str(label)


def utc(moment: datetime | str | None) -> str:
    """``2026-11-20 12:00 UTC`` for people; the exact value goes in ``<time datetime>``."""
    if moment is None:
        return ""
    if isinstance(moment, str):
        try:
            parsed = datetime.fromisoformat(moment.replace("Z", "+00:00"))
        except ValueError:
            return moment
        return parsed.strftime("%Y-%m-%d %H:%M UTC")
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def iso(moment: datetime | str | None) -> str:
    if moment is None:
        return ""
    if isinstance(moment, str):
        return moment
    return moment.isoformat().replace("+00:00", "Z")


def capitalize_first(text: str) -> str:
    """The first letter in capitals, the rest as written (Jinja's ``capitalize`` lowercases the rest)."""
    return text[:1].upper() + text[1:]


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("icarus.web", "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["css"] = page_css()
    env.globals["default_policy"] = DEFAULT_POLICY
    env.filters["symbol"] = label_symbol
    env.filters["heading"] = label_heading
    env.filters["utc"] = utc
    env.filters["iso"] = iso
    env.filters["capitalize_first"] = capitalize_first
    return env
