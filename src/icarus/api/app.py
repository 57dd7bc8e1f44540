"""The FastAPI application: ``create_app(settings)`` wires the store, the queue, auth and the pages.

Everything the app talks to can be handed in (a runner with a fake clock, an enqueue function that runs
jobs inline), so tests exercise the real routes without a worker process or a sleeping clock.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any, Final

from fastapi import FastAPI, HTTPException, Request, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, Response
from fastapi.utils import is_body_allowed_for_status_code
from sqlalchemy.exc import DBAPIError
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from icarus.api.methods import allow_header, served_methods
from icarus.api.model_results import ModelResults
from icarus.api.models_routes import build_models_router
from icarus.api.openapi import DOCS_PATH, DOCS_POLICY, describe_errors, docs_router
from icarus.api.routes import build_router
from icarus.debates.api import build_debate_router
from icarus.debates.service import DebateService
from icarus.debates.web import build_debate_pages, dashboard_debates
from icarus.evidenceverify.api import build_evidence_verify_router
from icarus.evidenceverify.records import VerificationRecords
from icarus.evidenceverify.web import build_evidence_verify_pages
from icarus.http.auth import Security
from icarus.http.limits import Limiter, limiter_for
from icarus.http.page_limits import REFUSAL_PAUSE_S, PageRateLimit
from icarus.http.problems import problem_response
from icarus.jobs.queue import bind_tasks, create_huey
from icarus.jobs.runner import Enqueue, JobRunner, RunnerConfig, settings_services
from icarus.jobs.sweep import DeletionSweep, PostStatusSource, x_status_source
from icarus.ledger import SubjectKind
from icarus.lvf.api import LvfDatabase, build_lvf_router
from icarus.lvf.web import build_lvf_pages
from icarus.settings import Settings
from icarus.store import Store
from icarus.store.engine import database_unavailable
from icarus.store.service import CheckRow
from icarus.store.tokens import TokenStore
from icarus.web.headers import SecurityHeaders, page_policy

__all__ = ["REFUSAL_PAUSE_S", "create_app"]

log = logging.getLogger("icarus.api")
DASHBOARD_ROWS = 50
# The same cap `icarus check --post` puts on an X payload file; every valid request is far smaller.
MAX_BODY_BYTES = 5 * 1024 * 1024


def create_app(
    settings: Settings | None = None,
    *,
    runner: JobRunner | None = None,
    enqueue: Enqueue | None = None,
    status_source: PostStatusSource | None = None,
    limiter: Limiter | None = None,
    debates: DebateService | None = None,
) -> FastAPI:
    """The Icarus service. Without ``runner`` it opens the configured store; without ``enqueue`` it
    queues jobs on the configured huey (SQLite file or Redis) for ``icarus worker`` to run. Without
    ``debates`` the debate endpoints and pages use a ``DebateService`` on the same store."""
    settings = settings or Settings()
    owns_store = runner is None  # a runner handed in belongs to the caller, store and all
    if runner is None:
        store = Store(settings.resolved_database_url).open()
        runner = JobRunner(
            store, settings_services(settings), config=RunnerConfig.from_settings(settings), settings=settings
        )
    queue_owned = enqueue is None and runner.enqueue is None
    if queue_owned:
        enqueue = bind_tasks(create_huey(settings)).enqueue
    if enqueue is not None:
        runner.enqueue = _never_lose(enqueue)
    clock: Callable[[], datetime] = runner.clock
    sweep = DeletionSweep(runner.service, status_source or x_status_source(settings), clock=clock)
    deployment = runner.store.engine.url.render_as_string(hide_password=True)
    security = Security(TokenStore(runner.store), settings, limiter or limiter_for(settings, deployment))
    lvf_runs = LvfDatabase(settings)  # the LVF database `icarus lvf` uses, opened on first use

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> Any:
        yield
        lvf_runs.close()
        if owns_store:
            runner.store.close()

    app = FastAPI(
        title="Icarus",
        summary="Evidence review for factual claims: checks, versioned reports, rechecks.",
        version="1",
        lifespan=lifespan,
        docs_url=None,  # served by docs_router, from this process instead of a CDN
        redoc_url=None,
    )
    _describe_errors_in_openapi(app)
    app.include_router(docs_router(app))
    app.state.runner = runner
    app.state.settings = settings
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY_BYTES)
    app.add_middleware(PageRateLimit, security=security)
    # Outermost, so refusals (413, 429) carry the headers too.
    app.add_middleware(SecurityHeaders, default=page_policy(), policies={DOCS_PATH: DOCS_POLICY})
    app.include_router(build_router(runner, security, settings, sweep))
    app.include_router(build_models_router(runner, security))
    app.include_router(build_lvf_router(runner, security, settings, lvf_runs))
    app.include_router(build_lvf_pages(lvf_runs))
    verifications = VerificationRecords(runner.store, clock)
    app.include_router(build_evidence_verify_router(runner.store, security, settings, verifications))
    app.include_router(build_evidence_verify_pages(verifications))
    debates = debates or debate_service_for_app(runner.store, settings, queue=queue_owned)
    app.include_router(build_debate_router(debates, security))
    app.include_router(build_debate_pages(debates, security))
    _mount_pages(app, runner, dashboard_debates(debates, security))

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.exception_handler(DBAPIError)
    async def unavailable(_request: Request, exc: DBAPIError) -> Response:
        if not database_unavailable(exc):
            raise exc
        log.warning("database unavailable: %s", type(exc.orig).__name__)
        return problem_response(
            status.HTTP_503_SERVICE_UNAVAILABLE,
            "the database is unavailable; try again shortly",
            headers={"Retry-After": "1"},
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == status.HTTP_405_METHOD_NOT_ALLOWED:
            return _not_allowed(app, request)
        if exc.status_code == status.HTTP_400_BAD_REQUEST and exc.detail == UNPARSABLE_BODY:
            # FastAPI's answer to a body that is not UTF-8 or nests too deeply to parse: said like any other
            # body that is not JSON (422, with the field at fault).
            return problem_response(
                status.HTTP_422_UNPROCESSABLE_CONTENT,
                f"body: {NOT_JSON}",
                members={"errors": [{"field": "body", "message": NOT_JSON}]},
            )
        if not is_body_allowed_for_status_code(exc.status_code):
            return Response(status_code=exc.status_code, headers=exc.headers)
        members = getattr(exc, "members", None)  # a ProblemException's members beside its detail
        return problem_response(exc.status_code, exc.detail, headers=exc.headers, members=members)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> Response:
        problems = [
            {"field": ".".join(str(part) for part in error.get("loc", ())), "message": str(error.get("msg"))}
            for error in exc.errors()
        ]
        message = "; ".join(f"{p['field']}: {p['message']}" for p in problems) or "invalid request"
        return problem_response(status.HTTP_422_UNPROCESSABLE_CONTENT, message, members={"errors": problems})

    return app


def _not_allowed(app: FastAPI, request: Request) -> Response:
    """OPTIONS: 204 with every method the path serves in ``Allow``; any other method the path does not
    serve: 405 with the same ``Allow`` (the router's own named the first matching route's methods only)."""
    methods = served_methods(app.router.routes, request.scope)
    headers = {"Allow": allow_header(methods)}
    if request.method == "OPTIONS":
        return Response(status_code=status.HTTP_204_NO_CONTENT, headers=headers)
    served = ", ".join(methods) or "nothing"
    return problem_response(
        status.HTTP_405_METHOD_NOT_ALLOWED,
        f"{request.method} is not served here; this path serves {served}",
        headers=headers,
    )


UNPARSABLE_BODY: Final = "There was an error parsing the body"  # FastAPI's words, matched exactly
NOT_JSON: Final = "not valid JSON (it must be UTF-8 and nest at most a few hundred levels)"


def _describe_errors_in_openapi(app: FastAPI) -> None:
    """``/openapi.json`` with the error answers as they are (see ``icarus.api.openapi``)."""
    generate = app.openapi

    def described() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = describe_errors(generate())
        return app.openapi_schema

    app.openapi = described  # type: ignore[method-assign]


class BodyLimit:
    """Refuse a request body over ``max_bytes`` with 413 instead of reading it all into memory: at once when
    its Content-Length says so, else as soon as the bytes received pass the limit."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    def _too_large(self) -> HTTPException:
        return HTTPException(
            status.HTTP_413_CONTENT_TOO_LARGE,
            detail=f"the request body is larger than {self.max_bytes} bytes",
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isascii() and declared.isdigit() and int(declared) > self.max_bytes:
            error = self._too_large()
            await problem_response(error.status_code, error.detail)(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise self._too_large()  # the route reading the body answers it like any HTTP error
            return message

        await self.app(scope, counted, send)


def _never_lose(enqueue: Enqueue) -> Enqueue:
    """A queue outage must not fail a submission: the job is in the database and the dispatcher will
    hand it out when the queue is back."""

    def safe(check_id: str, run_key: str) -> None:
        try:
            enqueue(check_id, run_key)
        except Exception as exc:
            log.warning("queue unavailable (%s); %s/%s waits for the dispatcher", exc, check_id, run_key)

    return safe


def _mount_pages(app: FastAPI, runner: JobRunner, debates: Callable[[Request], Any] | None = None) -> None:
    """The report page, dashboard and methodology from ``icarus.web``; a plain page if it is absent."""
    try:
        from icarus.web import Links, RecentCheck, ReportPage, create_web_router
    except ImportError:  # pragma: no cover - the pages ship with the package
        _placeholder_pages(app)
        return
    store, service = runner.store, runner.service
    other_models = ModelResults(store, runner.clock)  # the models a check asked for besides its policy

    def hidden(subject_kind: str, subject_id: str) -> str | None:
        if subject_kind != SubjectKind.X_POST.value:
            return None
        removal = service.removal(subject_kind, subject_id)
        return None if removal is None else f"the post was {removal.reason}"

    def recent_row(row: CheckRow) -> RecentCheck:
        """A dashboard row from the check's status rows (never its ledger or result)."""
        return RecentCheck(
            check_id=row.check_id,
            status=row.state.value,
            created_at=row.submitted_at,
            subject_kind=row.subject_kind or row.input_kind,
            subject_id=row.subject_id or (row.post_id or ""),
            latest_version=row.latest_version,
            label=row.label,
            band=row.band,
            as_of=row.as_of,
            headline=None if row.hidden else row.headline,
        )

    def load_report(check_id: str, version: int | None) -> ReportPage | RecentCheck:
        if version is None:
            row = recent_row(service.check_row(check_id))  # NotFound for an unknown check
            if row.latest_version is None:
                return row
            version = row.latest_version
        stored = store.version(check_id, version)
        ledger = stored.ledger()
        subject = ledger.get("subject") or {}
        return ReportPage(
            result=stored.result(),
            ledger=ledger,
            check_id=check_id,
            version=stored.version,
            versions=store.versions(check_id),
            previous_result=store.version(check_id, version - 1).result() if version > 1 else None,
            source_hidden=hidden(str(subject.get("kind", "")), str(subject.get("subject_id", ""))),
            other_models=other_models.for_page(check_id, stored.version, ledger),
        )

    def recent_checks() -> Sequence[RecentCheck]:
        return [recent_row(row) for row in service.check_rows(DASHBOARD_ROWS)]

    app.include_router(
        create_web_router(
            load_report=load_report,
            recent_checks=recent_checks,
            links=Links(),
            dashboard_version=service.newest_event_id,  # every change a row shows is an event
            recent_debates=debates,  # the reader's own, drawn per request
        )
    )


def _placeholder_pages(app: FastAPI) -> None:  # pragma: no cover
    @app.get("/", include_in_schema=False, response_class=HTMLResponse)
    def home() -> str:
        return "<!doctype html><title>Icarus</title><p>Icarus is running. The API is under /v1.</p>"


def debate_service_for_app(store: Store, settings: Settings, *, queue: bool) -> DebateService:
    """The service the API calls: handing research to the debate tasks on the configured queue when
    ``queue``, else leaving it for the workers' periodic dispatcher to find in the database."""
    from icarus.debates.jobs import bind_debate_tasks, debate_service

    tasks = bind_debate_tasks(create_huey(settings)) if queue else None
    return debate_service(store, settings, tasks)
