"""The pages as a FastAPI router the API mounts with one line.

    app.include_router(create_web_router(load_report=..., recent_checks=...))

The router reads nothing itself: it calls what it is given.

``load_report(check_id, version)``
    ``version`` is ``None`` for the latest. Returns a ``ReportPage``, or a ``RecentCheck`` for a check that
    has no version yet (a "check in progress" page is shown). Raises ``LookupError`` (``icarus.store``'s
    ``NotFound`` is one) for an unknown check or version: the page answers 404.
``recent_checks()``
    The dashboard's rows, newest first.
``dashboard_version()`` (optional)
    Any value that changes whenever a dashboard row may have (the API gives its newest event id). The
    dashboard is rendered once per value and served from memory until it changes (at most
    ``DASHBOARD_MAX_AGE_S``), so a crowd of page loads costs one small query each, not a list and a render.
``load_policy(ref)``
    A ``PolicyConfig``; ``LookupError`` (``UnknownPolicyError`` is one) gives 404.
``recent_debates(request)`` (optional)
    The debates the reader of ``request`` may see, newest first, or ``None`` when the reader is not signed
    in. Debates are private to an organisation, so they are drawn for each request into the kept
    dashboard, never into what is kept.

Routes (all ``GET``, HTML, left out of the OpenAPI schema): ``/`` dashboard, ``/checks/{check_id}`` latest
report, ``/checks/{check_id}/versions/{version}`` one version, ``/methodology`` and
``/methodology/{policy}`` (e.g. ``/methodology/icarus@1.0``).
"""

from __future__ import annotations

import functools
import re
import threading
import time
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Final

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from icarus.scoring.icarus.config import DEFAULT_POLICY, PolicyConfig
from icarus.scoring.icarus.config import load_policy as load_shipped_policy
from icarus.web._env import environment
from icarus.web.dashboard import DEBATES_MARK, render_dashboard, render_dashboard_debates
from icarus.web.methodology import render_methodology_page
from icarus.web.model import Links, RecentCheck, RecentDebate, ReportPage
from icarus.web.model_pages import render_model_methodology_page
from icarus.web.report import render_report_page

__all__ = ["ReportLoader", "create_web_router", "render_error_page"]

ReportLoader = Callable[[str, int | None], ReportPage | RecentCheck]
RecentChecks = Callable[[], Sequence[RecentCheck]]
PolicyLoader = Callable[[str], PolicyConfig]
RecentDebates = Callable[[Request], Sequence[RecentDebate] | None]

_CHECK_ID: Final = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_VERSION: Final = re.compile(r"^[1-9][0-9]{0,8}$")
_POLICY: Final = re.compile(r"^[A-Za-z0-9_.-]{1,40}@[0-9][0-9.]{0,15}$")

# Versions never change, but a deletion sweep may hide a post's text within hours: cache briefly.
VERSION_CACHE: Final = "public, max-age=300"
LIVE_CACHE: Final = "no-cache"
POLICY_CACHE: Final = "public, max-age=3600"
ICON_CACHE: Final = "public, max-age=86400"
DASHBOARD_MAX_AGE_S: Final = 30.0  # a rendered dashboard is redrawn at least this often, changed or not
# HEAD answers like GET without the body (link checkers and uptime probes send it).
PAGE_METHODS: Final = ["GET", "HEAD"]


def render_error_page(heading: str, message: str, links: Links | None = None) -> str:
    return (
        environment()
        .get_template("error.html")
        .render(heading=heading, message=message, links=links or Links())
    )


def render_pending_page(check: RecentCheck, links: Links | None = None) -> str:
    return environment().get_template("pending.html").render(check=check, links=links or Links())


def create_web_router(
    *,
    load_report: ReportLoader,
    recent_checks: RecentChecks,
    load_policy: PolicyLoader = load_shipped_policy,
    default_policy: str = DEFAULT_POLICY,
    links: Links | None = None,
    dashboard_version: Callable[[], object] | None = None,
    recent_debates: RecentDebates | None = None,
) -> APIRouter:
    """The pages, reading through the given callables. See the module docstring for the contract."""
    links = links or Links()
    rendered = _RenderedDashboard(
        lambda: render_dashboard(list(recent_checks()), links, debates=recent_debates is not None),
        dashboard_version,
    )
    router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)

    def not_found(what: str) -> HTMLResponse:
        page = render_error_page("Not found", f"There is no {what} here.", links)
        return HTMLResponse(page, status_code=404, headers={"Cache-Control": LIVE_CACHE})

    def report(check_id: str, version: int | None) -> HTMLResponse:
        if not _CHECK_ID.match(check_id):
            return not_found("such check")
        try:
            found = load_report(check_id, version)
        except LookupError:
            return not_found("such check" if version is None else "such version of this check")
        if isinstance(found, RecentCheck):
            return HTMLResponse(render_pending_page(found, links), headers={"Cache-Control": LIVE_CACHE})
        cache = VERSION_CACHE if version is not None else LIVE_CACHE
        return HTMLResponse(render_report_page(found, links), headers={"Cache-Control": cache})

    @router.api_route("/", methods=PAGE_METHODS)
    async def dashboard(request: Request) -> HTMLResponse:
        # The kept page is served on the event loop (one small query); rendering goes to a thread.
        page = rendered.kept()
        if page is None:
            page = await run_in_threadpool(rendered.page)
        if recent_debates is not None:  # private to the reader: never part of the kept page
            debates = await run_in_threadpool(recent_debates, request)
            page = page.replace(DEBATES_MARK, render_dashboard_debates(debates), 1)
        return HTMLResponse(page, headers={"Cache-Control": LIVE_CACHE})

    @router.api_route("/checks/{check_id}", methods=PAGE_METHODS)
    def latest_report(check_id: str) -> HTMLResponse:
        return report(check_id, None)

    @router.api_route("/checks/{check_id}/versions/{version}", methods=PAGE_METHODS)
    def version_report(check_id: str, version: str) -> HTMLResponse:
        if not _VERSION.match(version):
            return not_found("such version of this check")
        return report(check_id, int(version))

    def methodology(ref: str) -> HTMLResponse:
        if not _POLICY.match(ref):
            return not_found("such policy")
        try:
            config = load_policy(ref)
        except LookupError:
            other = render_model_methodology_page(ref, links)  # a ledger model, LVF or EvidenceVerify
            if other is None:
                return not_found("such policy")
            return HTMLResponse(other, headers={"Cache-Control": POLICY_CACHE})
        page = render_methodology_page(config, links)
        return HTMLResponse(page, headers={"Cache-Control": POLICY_CACHE})

    @router.api_route("/methodology", methods=PAGE_METHODS)
    def default_methodology() -> HTMLResponse:
        return methodology(default_policy)

    @router.api_route("/methodology/{ref}", methods=PAGE_METHODS)
    def policy_methodology(ref: str) -> HTMLResponse:
        return methodology(ref)

    @router.api_route("/favicon.ico", methods=PAGE_METHODS, response_class=Response)
    def favicon() -> Response:
        return Response(_favicon(), media_type="image/x-icon", headers={"Cache-Control": ICON_CACHE})

    return router


class _RenderedDashboard:
    """The dashboard's HTML, rendered again only when ``version()`` changes or it is older than
    ``DASHBOARD_MAX_AGE_S``; without ``version`` every load renders it."""

    def __init__(self, render: Callable[[], str], version: Callable[[], object] | None) -> None:
        self._render, self._version = render, version
        self._kept: tuple[object, float, str] | None = None
        self._lock = threading.Lock()

    def kept(self) -> str | None:
        """The page already rendered, if nothing changed since; None when it must be rendered."""
        if self._version is None or (kept := self._kept) is None:
            return None
        fresh = time.monotonic() - kept[1] < DASHBOARD_MAX_AGE_S
        return kept[2] if fresh and kept[0] == self._version() else None

    def page(self) -> str:
        if self._version is None:
            return self._render()
        current, now = self._version(), time.monotonic()
        with self._lock:  # one render for a crowd arriving together; the others take its page
            kept = self._kept
            if kept is not None and kept[0] == current and now - kept[1] < DASHBOARD_MAX_AGE_S:
                return kept[2]
            page = self._render()
            self._kept = (current, now, page)
            return page


@functools.cache
def _favicon() -> bytes:
    return resources.files("icarus.web").joinpath("static", "favicon.ico").read_bytes()
