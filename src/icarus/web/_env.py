"""The Jinja environment and the shipped stylesheet and script, loaded once per process.

Templates autoescape everything: claim text, publisher names and URLs all come from outside. The CSS
and the dashboard script are inlined into each page, so a page is one request with no external assets.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from importlib.resources import files

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from icarus.scoring.icarus.config import DEFAULT_POLICY
from icarus.scoring.labels import Label

__all__ = ["asset", "environment", "label_heading", "label_symbol"]


@cache
def asset(name: str) -> str:
    """The text of ``icarus/web/static/<name>``."""
    return files("icarus.web").joinpath("static", name).read_text(encoding="utf-8")


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
    # Our own stylesheet, inlined verbatim (escaping would turn its ">" selectors into "&gt;").
    env.globals["css"] = Markup(asset("icarus.css"))
    env.globals["default_policy"] = DEFAULT_POLICY
    env.filters["symbol"] = label_symbol
    env.filters["heading"] = label_heading
    env.filters["utc"] = utc
    env.filters["iso"] = iso
    env.filters["capitalize_first"] = capitalize_first
    return env
