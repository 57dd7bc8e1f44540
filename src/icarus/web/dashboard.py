"""The dashboard: recent checks, newest first, kept current by server-sent events.

The page works without script. With it, ``static/dashboard.js`` opens an ``EventSource`` on
``Links.events`` (``/v1/events`` by default) and applies these events, each carrying one JSON object with
at least ``check_id`` in ``data``:

``status`` (alias ``check.status``)
    ``{"check_id", "state"}`` (or ``"status"``): the row's status changes; an unknown id gets a new row on
    top. This is what the API sends when a check is queued, starts, is recorded or fails.
``version`` (alias ``version.created``)
    ``{"check_id", "version", "label", "band"}``, optionally ``"as_of"``: the row shows the new conclusion.
``check.created``
    ``{"check_id", "subject_kind", "subject_id", "status"}``: a new row with its subject.

Missing fields leave the cell as it was; other event names (``progress``, ``removal``) are ignored. Values
are written as text, never as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from markupsafe import Markup

from icarus.scoring.labels import Label
from icarus.web._env import asset, environment
from icarus.web.model import Links, RecentCheck, RecentDebate

__all__ = ["DEBATES_MARK", "EVENT_NAMES", "render_dashboard", "render_dashboard_debates"]

EVENT_NAMES = ("status", "version", "check.created", "check.status", "version.created")


def _labels() -> dict[str, dict[str, str]]:
    known = {label.value: {"symbol": label.symbol, "heading": label.heading} for label in Label}
    known["pending"] = {"symbol": "\u2026", "heading": "Pending"}
    return known


DEBATES_MARK: Final = "<!-- the reader's debates -->"
"""Where the dashboard's debates go: the router puts the reader's own in its place on each request."""
SUBJECT_ID_SHOWN: Final = 60  # characters of a URL shown in the Subject column


def subject_label(kind: str, subject_id: str) -> str:
    """The Subject column in words: a text is its headline (its id, a content hash, means nothing to a
    reader), a URL is shown (shortened), an X post by its id."""
    if kind == "text":
        return "Text"
    if kind == "x_post":
        return f"X post {subject_id}"
    shown = (
        subject_id if len(subject_id) <= SUBJECT_ID_SHOWN else subject_id[: SUBJECT_ID_SHOWN - 1] + "\u2026"
    )
    words = "URL" if kind == "url" else kind.replace("_", " ").capitalize()
    return f"{words} {shown}".strip()


def render_dashboard_debates(debates: Sequence[RecentDebate] | None) -> str:
    """The dashboard's list of debates (``None``: the reader is not signed in, so a sign-in link)."""
    return environment().get_template("dashboard_debates.html").render(debates=debates)


def render_dashboard(
    checks: Sequence[RecentCheck], links: Links | None = None, *, debates: bool = False
) -> str:
    """The dashboard of ``checks`` (give them newest first) as one HTML document; with ``debates`` it
    keeps a place (``DEBATES_MARK``) for the reader's debates beside them."""
    return (
        environment()
        .get_template("dashboard.html")
        .render(
            checks=checks,
            links=links or Links(),
            labels=_labels(),
            script=Markup(asset("dashboard.js")),
            subject_label=subject_label,
            debates_mark=Markup(DEBATES_MARK) if debates else None,
        )
    )
