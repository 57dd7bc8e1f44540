"""The ``/v1`` endpoints: checks, their versions and timeline, ledgers and traces, ClaimReview, events,
snapshots, policies, and the admin-only diagnostics."""

from datetime import datetime
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request, status
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from icarus.api.cache import LruCache
from icarus.api.model_results import CheckSubmission, ModelResults, model_or_none
from icarus.api.models_routes import parse_models
from icarus.api.schemas import (
    CheckAccepted,
    CheckList,
    CheckStatusOut,
    CorrectionIn,
    Diagnostics,
    PolicyOut,
    PolicySummary,
    RecheckIn,
    RemovalIn,
    RunAccepted,
    ScheduledRun,
    SnapshotOut,
    TimelineOut,
    VersionEntry,
    VersionOut,
    WorkerOut,
)
from icarus.api.sse import EventStream
from icarus.http.auth import Principal, Security
from icarus.jobs.inputs import CaptureFailed
from icarus.jobs.runner import JobRunner
from icarus.jobs.sweep import DeletionSweep, PostStatus
from icarus.judges.registry import OPENAI_COMPATIBLE_JUDGE
from icarus.ledger import SubjectKind
from icarus.reports.claimreview import claim_reviews
from icarus.reports.methodology import published_methodology
from icarus.reports.redaction import redact_ledger, redact_result
from icarus.reputation.review import pending
from icarus.scoring.canonical import canonical_json
from icarus.scoring.icarus.config import POLICY_FILES, UnknownPolicyError, load_policy
from icarus.settings import Settings
from icarus.store import NotFound, StoredVersion, WorkerInfo, WorkerRegistry
from icarus.store.service import CheckRow, RequestInfo
from icarus.store.tables import INTEGER_MAX

__all__ = ["build_router"]

CHECK_ID: Final = r"^[A-Za-z0-9_-]{1,64}$"
VERSION_CACHE_SIZE: Final = 2048
HEARTBEATS_MISSED_BEFORE_DEAD: Final = 3
CheckId = Annotated[str, Path(pattern=CHECK_ID, description="The check id returned on submission.")]
VersionNo = Annotated[int, Path(ge=1, le=INTEGER_MAX, description="Version number, 1 for the first.")]

_NOT_FOUND: Final[dict[int | str, dict[str, Any]]] = {
    404: {
        "description": "Unknown check or version, or a check with no version recorded yet (`detail` says which)"
    }
}


def build_router(
    runner: JobRunner, security: Security, settings: Settings, sweep: DeletionSweep
) -> APIRouter:
    router = APIRouter(prefix="/v1")
    service, store = runner.service, runner.store
    workers = WorkerRegistry(store)
    base = settings.public_url.rstrip("/")
    events = EventStream(service)
    model_results = ModelResults(store, runner.clock)
    bodies: LruCache[tuple[str, int, str | None], bytes] = LruCache(VERSION_CACHE_SIZE)
    Reader = Annotated[Principal, Depends(security.reader)]
    Api = Annotated[Principal, Depends(security.api)]
    Admin = Annotated[Principal, Depends(security.admin)]
    HiddenAdmin = Annotated[Principal, Depends(security.hidden_admin)]

    def links(check_id: str) -> dict[str, str]:
        return {
            "self": f"/v1/checks/{check_id}",
            "report": f"/v1/checks/{check_id}/report",
            "timeline": f"/v1/checks/{check_id}/timeline",
            "events": f"/v1/checks/{check_id}/events",
            "page": f"/checks/{check_id}",
        }

    def hidden_for(subject_kind: str, subject_id: str) -> str | None:
        if subject_kind != SubjectKind.X_POST.value:
            return None
        removal = service.removal(subject_kind, subject_id)
        return None if removal is None else removal.reason

    def hidden_reason(request_info: RequestInfo | None, stored: StoredVersion | None) -> str | None:
        if request_info is not None and request_info.post_id is not None:
            return hidden_for(SubjectKind.X_POST.value, request_info.post_id)
        if stored is not None:
            summary = store.check(stored.check_id)
            return hidden_for(summary.subject_kind, summary.subject_id)
        return None

    def request_or_404(check_id: str) -> RequestInfo:
        try:
            return service.status(check_id)
        except NotFound as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc)) from None

    def status_of(row: CheckRow) -> CheckStatusOut:
        return CheckStatusOut(
            id=row.check_id,
            state=row.state.value,
            state_reason=row.state_reason,
            detail=row.detail,
            input_kind=row.input_kind,
            post_id=row.post_id,
            submitted_at=row.submitted_at,
            updated_at=row.updated_at,
            latest_version=row.latest_version,
            label=row.label,
            band=row.band,
            next_run_at=row.next_run_at,
            source_hidden=row.hidden,
            links=links(row.check_id),
        )

    def version_or_404(check_id: str, version: int | None) -> StoredVersion:
        try:
            return store.latest(check_id) if version is None else store.version(check_id, version)
        except NotFound as exc:
            if service.report_head(check_id) is None:  # not captured yet: known, but nothing to show
                raise not_ready(request_or_404(check_id)) from None
            raise HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc)) from None

    def not_ready(info: RequestInfo) -> HTTPException:
        return HTTPException(
            status.HTTP_404_NOT_FOUND,
            detail=f"check {info.check_id!r} has no version yet (it is {info.state.value}); its report, "
            "ledger, trace and ClaimReview appear once the first version is recorded",
        )

    def version_body(stored: StoredVersion, hidden: str | None) -> bytes:
        """The version as JSON. The stored result is embedded as stored (it is canonical JSON already),
        so serving a version costs no parse and no re-serialisation unless words must be hidden."""
        meta = VersionOut.model_construct(
            id=stored.check_id,
            version=stored.version,
            url=f"{base}{stored.url_path}",
            created_at=stored.created_at,
            as_of=stored.as_of,
            policy=stored.policy,
            config_hash=stored.config_hash,
            code_hash=stored.code_hash,
            ledger_hash=stored.ledger_hash,
            trace_hash=stored.trace_hash,
            label=stored.label,
            band=stored.band,
            reason=stored.reason.value,
            what_changed=stored.what_changed,
            source_hidden=hidden,
            result={},
        ).model_dump_json()
        result = (
            stored.result_json if hidden is None else canonical_json(redact_result(stored.result(), hidden))
        )
        return (meta.removesuffix('"result":{}}') + '"result":' + result + "}").encode("utf-8")

    def version_response(check_id: str, version: int | None) -> Response:
        """One version (latest when None): one small query, then the body from the cache if it is there.

        It runs on the event loop (the report routes are ``async``): the query is a sub-millisecond index
        look-up, cheaper than handing the request to a thread.

        Versions never change, so their bodies are cached by (check, version, hidden); a removal changes
        the key, so hidden words are never served from the cache."""
        head = service.report_head(check_id)
        if head is None:  # a submitted check still queued: known, but nothing to show yet
            raise not_ready(request_or_404(check_id))
        number = version if version is not None else head.latest_version
        if number is None:
            raise not_ready(request_or_404(check_id))
        hidden = head.hidden
        key = (check_id, number, hidden)
        body = bodies.get(key)
        if body is None:
            body = version_body(version_or_404(check_id, number), hidden)
            bodies.put(key, body)
        return Response(body, media_type="application/json")

    @router.post(
        "/checks",
        status_code=status.HTTP_202_ACCEPTED,
        response_model=CheckAccepted,
        responses={422: {"description": "Invalid input"}, 401: {"description": "No or bad token"}},
    )
    def submit_check(body: CheckSubmission, _caller: Api) -> JSONResponse:
        """Submit a check: exactly one of `text`, `url`, `post` (tagging reply id/URL) or `payload`;
        `models` also scores its ledger under those models (see `/v1/checks/{id}/models`)."""
        chosen = parse_models(body.models, "body.models") if body.models is not None else []
        try:
            check_id = runner.submit(body)
        except CaptureFailed as exc:
            raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, detail=str(exc)) from None
        if chosen:
            model_results.request(check_id, [model.ref for model in chosen])
        accepted = CheckAccepted(id=check_id, state="queued", links=links(check_id))
        return JSONResponse(
            accepted.model_dump(), status_code=202, headers={"Location": f"/v1/checks/{check_id}"}
        )

    @router.get("/checks", response_model=CheckList)
    def list_checks(
        _caller: Reader,
        post_id: Annotated[
            str | None, Query(pattern=r"^[0-9]{1,25}$", description="Only checks of this X post.")
        ] = None,
        limit: Annotated[int, Query(ge=1, le=200)] = 50,
    ) -> Response:
        """Recent checks, newest first, or every check of one X post. Never by person."""
        rows = service.check_rows(limit, post_id=post_id)
        return Response(
            CheckList(checks=[status_of(row) for row in rows]).model_dump_json(),
            media_type="application/json",
        )

    @router.get("/checks/{check_id}", response_model=CheckStatusOut, responses=_NOT_FOUND)
    async def check_status(check_id: CheckId, _caller: Reader) -> Response:
        """Where a check stands: queued, running, recorded, pending (with a reason) or failed.

        What pollers call, so it reads status rows only (one indexed query, on the event loop like the
        report routes), never a version's ledger or result."""
        try:
            row = service.check_row(check_id)
        except NotFound as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc)) from None
        return Response(status_of(row).model_dump_json(), media_type="application/json")

    @router.get("/checks/{check_id}/report", response_model=VersionOut, responses=_NOT_FOUND)
    async def latest_report(check_id: CheckId, _caller: Reader) -> Response:
        """The latest version's published result. 404 until the first version is recorded."""
        return version_response(check_id, None)

    @router.get("/checks/{check_id}/versions", response_model=list[VersionEntry], responses=_NOT_FOUND)
    def list_versions(check_id: CheckId, _caller: Reader) -> list[VersionEntry]:
        """Every version, first to latest, with what changed and why."""
        request_or_404(check_id)
        try:
            entries = store.versions(check_id)
        except NotFound:
            entries = []
        return [_entry(e, base) for e in entries]

    @router.get("/checks/{check_id}/versions/{version}", response_model=VersionOut, responses=_NOT_FOUND)
    async def one_version(check_id: CheckId, version: VersionNo, _caller: Reader) -> Response:
        """One version exactly as published (its own URL, policy, hashes and trace)."""
        return version_response(check_id, version)

    @router.get("/checks/{check_id}/versions/{version}/ledger", responses=_NOT_FOUND)
    def version_ledger(check_id: CheckId, version: VersionNo, _caller: Reader) -> dict[str, Any]:
        """The evidence ledger the version was scored from (`icarus score` reproduces it)."""
        stored = version_or_404(check_id, version)
        hidden = hidden_reason(None, stored)
        return redact_ledger(stored.ledger(), hidden) if hidden else stored.ledger()

    @router.get("/checks/{check_id}/versions/{version}/trace", responses=_NOT_FOUND)
    def version_trace(check_id: CheckId, version: VersionNo, _caller: Reader) -> dict[str, Any]:
        """The version's scoring trace with the hashes that pin it."""
        stored = version_or_404(check_id, version)
        return {
            "id": stored.check_id,
            "version": stored.version,
            "trace_hash": stored.trace_hash,
            "ledger_hash": stored.ledger_hash,
            "config_hash": stored.config_hash,
            "code_hash": stored.code_hash,
            "trace": stored.result()["trace"],
        }

    @router.get("/checks/{check_id}/timeline", response_model=TimelineOut, responses=_NOT_FOUND)
    def timeline(check_id: CheckId, _caller: Reader) -> TimelineOut:
        """Versions with what changed and why, and every run: done, scheduled or cancelled."""
        request_or_404(check_id)
        try:
            entries = store.versions(check_id)
        except NotFound:
            entries = []
        runs = [
            ScheduledRun(
                run_key=j.run_key,
                reason=j.reason,
                due_at=j.due_at,
                state=j.state.value,
                note=j.note,
                outcome=j.outcome,
            )
            for j in service.jobs(check_id)
        ]
        return TimelineOut(id=check_id, versions=[_entry(e, base) for e in entries], runs=runs)

    @router.get("/checks/{check_id}/claimreview", responses=_NOT_FOUND)
    def claimreview(check_id: CheckId, _caller: Reader) -> JSONResponse:
        """schema.org ClaimReview JSON-LD for the latest version's decided claims (an empty graph if none)."""
        stored = version_or_404(check_id, None)
        hidden = hidden_reason(None, stored)
        result = redact_result(stored.result(), hidden) if hidden else stored.result()
        subject = stored.ledger().get("subject") or {}
        reviews = claim_reviews(
            result,
            report_url=f"{base}{stored.url_path}",
            published_at=stored.created_at.isoformat(),
            organisation_url=base,
            subject_url=None if hidden else subject.get("url"),
        )
        return JSONResponse(
            {"@context": "https://schema.org", "@graph": reviews}, media_type="application/ld+json"
        )

    @router.get(
        "/checks/{check_id}/events",
        response_class=StreamingResponse,
        responses={200: {"content": {"text/event-stream": {}}}, **_NOT_FOUND},
    )
    async def check_events(
        request: Request,
        check_id: CheckId,
        _caller: Reader,
        once: Annotated[bool, Query(description="Send the events so far and close.")] = False,
    ) -> StreamingResponse:
        """Server-sent events: `status`, `progress`, `version` and `removal`. Resumes from `Last-Event-ID`."""
        await run_in_threadpool(request_or_404, check_id)
        return await events.response(request, check_id, once=once)

    @router.get(
        "/events", response_class=StreamingResponse, responses={200: {"content": {"text/event-stream": {}}}}
    )
    async def all_events(
        request: Request,
        _caller: Reader,
        once: Annotated[bool, Query(description="Send the events so far and close.")] = False,
    ) -> StreamingResponse:
        """Server-sent events of every check (the dashboard's live feed); new events only unless resuming."""
        return await events.response(request, None, once=once)

    @router.post(
        "/checks/{check_id}/rechecks",
        status_code=status.HTTP_202_ACCEPTED,
        response_model=RunAccepted,
        responses=_NOT_FOUND,
    )
    def request_recheck(check_id: CheckId, body: RecheckIn, _caller: Api) -> RunAccepted:
        """Queue a recheck now; it becomes a new version (reason `recheck`)."""
        try:
            run_key = runner.request_run(check_id, correction=False, note=body.note)
        except NotFound as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc)) from None
        return RunAccepted(id=check_id, run_key=run_key)

    @router.post(
        "/checks/{check_id}/corrections",
        status_code=status.HTTP_202_ACCEPTED,
        response_model=RunAccepted,
        responses=_NOT_FOUND,
    )
    def request_correction(check_id: CheckId, body: CorrectionIn, _caller: Admin) -> RunAccepted:
        """Queue a correction run (admin): a new version, reason `correction`, saying what and why."""
        try:
            run_key = runner.request_run(check_id, correction=True, note=body.note)
        except NotFound as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc)) from None
        return RunAccepted(id=check_id, run_key=run_key)

    @router.get("/snapshots/{ref}", response_model=list[SnapshotOut], responses=_NOT_FOUND)
    def snapshot(
        ref: Annotated[str, Path(pattern=r"^sha256:[0-9a-f]{64}$")], _caller: Reader
    ) -> list[SnapshotOut]:
        """Every address the snapshot's bytes were fetched from, and when."""
        try:
            return [SnapshotOut(**vars(info)) for info in store.snapshots(ref)]
        except NotFound as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc)) from None

    @router.get("/policies", response_model=list[PolicySummary])
    def policies(_caller: Reader) -> list[PolicySummary]:
        """The shipped policy versions and their config hashes."""
        return [
            PolicySummary(ref=ref, config_hash=load_policy(ref).config_hash) for ref in sorted(POLICY_FILES)
        ]

    @router.get(
        "/policies/{ref}", response_model=PolicyOut, responses={404: {"description": "Unknown policy"}}
    )
    def policy(ref: Annotated[str, Path(max_length=64)], _caller: Reader) -> PolicyOut:
        """A policy's methodology page (Markdown, rendered from its config) and the config itself."""
        try:
            config = load_policy(ref)
        except UnknownPolicyError as exc:
            model = model_or_none(ref)  # a ledger model, LVF or EvidenceVerify: every registered model
            if model is None:
                raise HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc)) from None
            return PolicyOut(
                ref=ref,
                config_hash=model.config_hash,
                methodology_markdown=model.methodology(),
                config=model.config_data(),
            )
        return PolicyOut(
            ref=ref,
            config_hash=config.config_hash,
            methodology_markdown=published_methodology(config),
            config=config.model_dump(mode="json"),
        )

    @router.get("/admin/diagnostics", response_model=Diagnostics, include_in_schema=False)
    def diagnostics(_caller: HiddenAdmin) -> Diagnostics:
        return Diagnostics(
            database=store.engine.dialect.name,
            queue="redis" if settings.redis_url else "sqlite",
            requests=service.request_counts(),
            jobs=service.job_counts(),
            due_now=len(service.due(runner.clock())),
            last_event_id=service.last_event_id(),
            reputation_files=[str(path) for path in settings.reputation_files],
            review_queue=str(settings.resolved_review_queue_path),
            review_pending=_review_pending(settings),
            workers=[_worker(info, runner.clock(), settings.job_heartbeat_s) for info in workers.recent()],
            policy=settings.policy,
            judge=_configured_judge(settings),
        )

    @router.post("/admin/removals", include_in_schema=False, status_code=status.HTTP_201_CREATED)
    def record_removal(body: RemovalIn, _caller: HiddenAdmin) -> dict[str, Any]:
        added = sweep.hide(body.post_id, PostStatus(body.reason))
        return {"post_id": body.post_id, "reason": body.reason, "new": added}

    @router.post("/admin/sweep", include_in_schema=False)
    def run_sweep(_caller: HiddenAdmin) -> dict[str, Any]:
        report = sweep.run()
        return {"looked_at": report.looked_at, "hidden": report.hidden, "unknown": report.unknown}

    return router


def _worker(info: WorkerInfo, now: datetime, heartbeat_s: float) -> WorkerOut:
    age = (now - info.heartbeat_at).total_seconds()
    return WorkerOut(
        name=info.name,
        host=info.host,
        pid=info.pid,
        started_at=info.started_at,
        last_heartbeat=info.heartbeat_at,
        seconds_since_heartbeat=round(age, 1),
        alive=info.stopped_at is None and age <= HEARTBEATS_MISSED_BEFORE_DEAD * heartbeat_s,
        jobs_held=info.jobs_held,
        stopped_at=info.stopped_at,
    )


def _configured_judge(settings: Settings) -> str:
    """The judge the worker's checks use, named without loading it (what ``judge_from_settings`` picks)."""
    if settings.llm_base_url and settings.llm_model:
        return f"{OPENAI_COMPATIBLE_JUDGE} ({settings.llm_model})"
    return settings.offline_judge


def _review_pending(settings: Settings) -> int | None:
    """Items waiting in the H4 review queue; None when the queue cannot be read."""
    try:
        return len(pending(settings.resolved_review_queue_path))
    except OSError:
        return None


def _entry(entry: Any, base: str) -> VersionEntry:
    return VersionEntry(
        version=entry.version,
        url=f"{base}{entry.url_path}",
        created_at=entry.created_at,
        as_of=entry.as_of,
        policy=entry.policy,
        label=entry.label,
        band=entry.band,
        reason=entry.reason.value,
        what_changed=entry.what_changed,
        trace_hash=entry.trace_hash,
    )
