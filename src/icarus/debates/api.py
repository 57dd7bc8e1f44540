"""The debate endpoints under ``/v1``: debates, transcripts and the live stream, the speaker gate, claims,
their one answer and every research panel, operator choices, reader feedback and the live feed.

Every route reads through ``DebateService`` as the caller the token stands for (``AccessStore.caller``:
role, organisation, plan). A debate outside the caller's organisation answers 404, exactly like one that
does not exist. Every ``DebateError`` becomes its own HTTP status in one place (``_answering``). Citation
``diagnostics`` reach administrators only and are not in the published schema.

Tokens are sent as ``Authorization: Bearer`` or ``X-Auth-Token``; the debate page may use its cookie.
(No ``from __future__ import annotations``: FastAPI reads the route signatures, whose aliases are local.)
"""

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Annotated, Any, Final, Literal

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request, status
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from icarus.debates.access import AccessStore, Caller
from icarus.debates.errors import DebateError
from icarus.debates.exports import ExportFormat, rows_csv
from icarus.debates.model import ResearchMode
from icarus.debates.repository import DebateEvent
from icarus.debates.schemas import (
    DEBATE_ID_PATTERN,
    AlertDigestOut,
    AnswerFeedbackIn,
    ClaimAccepted,
    ClaimIn,
    ClaimList,
    ClaimResultsOut,
    ClaimSummaryOut,
    ClaimVerdictOut,
    CorrectionIn,
    DebateCreate,
    DebateExportOut,
    DebateOut,
    DebateUpdate,
    DetectionOut,
    FeedbackRecorded,
    ModelWeightsIn,
    PanelFeedbackIn,
    PanelOut,
    RecentResults,
    SegmentsAccepted,
    SegmentsIn,
    SpeakerMapIn,
    TranscriptAccepted,
    TranslationIn,
    VoteIn,
    WinnerIn,
    strip_diagnostics,
)
from icarus.debates.service import ClaimResults, ClaimSummary, DebateService, DebateView, PanelView
from icarus.debates.sse import debate_event_stream
from icarus.http.auth import Principal, Security
from icarus.http.problems import ProblemException
from icarus.store.tables import INTEGER_MAX
from icarus.store.tokens import Role

__all__ = [
    "answer_dict",
    "build_debate_router",
    "caller_for",
    "claim_results_dict",
    "debate_links",
    "public_events",
]

DebateId = Annotated[str, Path(pattern=DEBATE_ID_PATTERN, description="The debate id.")]
ClaimId = Annotated[int, Path(ge=1, le=INTEGER_MAX, description="The claim id.")]
PanelId = Annotated[int, Path(ge=1, le=INTEGER_MAX, description="A research panel's id.")]
DebateQuery = Annotated[
    str, Query(pattern=DEBATE_ID_PATTERN, description="The debate this claim occurrence belongs to.")
]

MAX_EVENT_ID: Final = 10**18 - 1  # what an 18-digit Last-Event-ID can name
RECENT_RESULTS_DEFAULT: Final = 20
RECENT_RESULTS_MAX: Final = 100
TRANSCRIPT_TYPES: Final = {
    "text/vtt": "vtt",
    "application/x-subrip": "srt",
    "application/srt": "srt",
    "text/srt": "srt",
    "text/plain": None,  # plain text, or captions told apart by their content
}
_NOT_FOUND: Final[dict[int | str, dict[str, Any]]] = {
    404: {"description": "Unknown id, or outside your organisation"}
}
_AUTH: Final[dict[int | str, dict[str, Any]]] = {
    401: {"description": "No token, or an unknown or revoked one"},
    403: {"description": "The token's role (or plan) does not allow this"},
}


def debate_links(debate_id: str) -> dict[str, str]:
    return {
        "self": f"/v1/debates/{debate_id}",
        "claims": f"/v1/debates/{debate_id}/claims",
        "events": f"/v1/debates/{debate_id}/events",
        "page": f"/debates/{debate_id}",
    }


def claim_links(claim_id: int, debate_id: str) -> dict[str, str]:
    return {
        "results": f"/v1/claims/{claim_id}/results?debate_id={debate_id}",
        "best": f"/v1/claims/{claim_id}/best?debate_id={debate_id}",
    }


def caller_for(access: AccessStore, principal: Principal) -> Caller:
    """The debate caller a signed-in principal stands for (its organisation and plan from the store)."""
    if principal.token is None or principal.role is None:  # pragma: no cover - routes sign in first
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, detail="this needs a token")
    return access.caller(principal.token)


@contextmanager
def _answering() -> Iterator[None]:
    """Each refusal of the service (and of the transcript reader) as its HTTP status."""
    try:
        yield
    except DebateError as exc:  # TranscriptError (422, with line and reason) and TranscriptTooLarge (413)
        raise ProblemException(exc.http_status, str(exc), **exc.members()) from None


def debate_out(view: DebateView) -> DebateOut:
    return DebateOut(
        id=view.id,
        title=view.title,
        settings=view.settings,
        speaker_map=view.speakers,
        speakers_heard=view.speakers_heard,
        speakers_waiting=view.speakers_waiting,
        mode=view.mode.value,
        detection_state=view.detection_state.value,
        segment_count=view.segment_count,
        claim_count=view.claim_count,
        held_at=view.held_at,
        created_at=view.created_at,
        updated_at=view.updated_at,
        links=debate_links(view.id),
    )


def panel_dict(view: PanelView) -> dict[str, Any]:
    """One panel as the API publishes it: the method's answer (none yet while pending) and its job."""
    body: dict[str, Any] = (
        view.panel.model_dump(mode="json")
        if view.panel is not None
        else {"research_mode": view.research_mode.value, "confidence": 0.0}
    )
    body.update(
        panel_id=view.panel_id,
        verdict=view.verdict.value,
        state=view.state.value,
        manual=view.manual,
        escalated=view.escalated,
        strong_language=view.strong_language,
        research_delay_reason=view.research_delay_reason.value if view.research_delay_reason else None,
        next_attempt_at=view.next_attempt_at.isoformat() if view.next_attempt_at else None,
        corrected_verdict=view.corrected_verdict.value if view.corrected_verdict else None,
    )
    return PanelOut.model_validate(body).model_dump(mode="json")


def answer_dict(results: ClaimResults) -> dict[str, Any] | None:
    if results.claim_verdict is None:
        return None
    return ClaimVerdictOut.model_validate(results.claim_verdict.model_dump()).model_dump(mode="json")


def claim_results_dict(results: ClaimResults, caller: Caller) -> dict[str, Any]:
    """``GET /v1/claims/{id}/results`` as JSON for ``caller``: diagnostics for administrators only."""
    answer = answer_dict(results)
    body = {
        "claim_id": results.claim_id,
        "debate_id": results.debate_id,
        "text": results.text,
        "claim_verdict": answer,
        "panels": [panel_dict(p) for p in results.panels],
        "best": answer,
        "operator_winner_panel_id": results.operator_winner_panel_id,
        "conflict": False,
    }
    return body if caller.is_admin else strip_diagnostics(body)


def summary_dict(summary: ClaimSummary, caller: Caller) -> dict[str, Any]:
    verdict = summary.claim_verdict
    body = ClaimSummaryOut(
        claim_id=summary.claim_id,
        text=summary.text,
        speaker_label=summary.speaker_label,
        speaker_name=summary.speaker_name,
        manually_added=summary.manually_added,
        checkworthiness=summary.checkworthiness,
        claim_type=summary.claim_type,
        created_at=summary.created_at,
        research_modes=summary.research_modes,
        panels_done=summary.panels_done,
        panels_pending=summary.panels_pending,
        claim_verdict=ClaimVerdictOut.model_validate(verdict.model_dump()) if verdict else None,
        links=claim_links(summary.claim_id, summary.debate_id),
    ).model_dump(mode="json")
    return body if caller.is_admin else strip_diagnostics(body)


def public_events(events: list[DebateEvent], caller: Caller) -> list[DebateEvent]:
    """The feed as ``caller`` may read it: the admin-only diagnostics taken out of each event."""
    if caller.is_admin:
        return events
    return [dataclasses.replace(e, data=strip_diagnostics(e.data)) for e in events]


def build_debate_router(service: DebateService, security: Security) -> APIRouter:
    router = APIRouter(prefix="/v1", tags=["debates"], responses=_AUTH)
    access = AccessStore(service.store)

    def signed_in(needed: Role) -> Any:
        def dependency(request: Request) -> Caller:
            return caller_for(access, security.signed_in(request, needed, cookie=True))

        return Depends(dependency)

    Reader = Annotated[Caller, signed_in(Role.READER)]
    Api = Annotated[Caller, signed_in(Role.API)]
    Reviewer = Annotated[Caller, signed_in(Role.REVIEWER)]

    def results_or_404(caller: Caller, claim_id: int, debate_id: str) -> ClaimResults:
        with _answering():
            return service.claim_results(caller, claim_id, debate_id)

    # --- debates ----------------------------------------------------------------------------------------

    @router.post(
        "/debates",
        status_code=status.HTTP_201_CREATED,
        response_model=DebateOut,
        responses={
            422: {
                "description": "An unsupported research method, a weight outside 0.0–1.0, or a `held_at` "
                "that is not a date or lies in the future"
            }
        },
    )
    def create_debate(body: DebateCreate, caller: Api) -> JSONResponse:
        """Create a debate. `research_modes` defaults to `["agentic", "decompose"]`; `[]` detects and
        shows claims but researches nothing until asked. `held_at`, when the debate took place, defaults
        to now; its claims are read as of that date."""
        with _answering():
            view = service.create_debate(caller, body.settings(), body.title, body.held_at)
        return JSONResponse(
            debate_out(view).model_dump(mode="json"),
            status_code=status.HTTP_201_CREATED,
            headers={"Location": f"/v1/debates/{view.id}"},
        )

    @router.get("/debates", response_model=list[DebateOut])
    def list_debates(caller: Reader, limit: Annotated[int, Query(ge=1, le=200)] = 50) -> list[DebateOut]:
        """Your organisation's debates, newest first."""
        with _answering():
            return [debate_out(v) for v in service.list_debates(caller, limit)]

    @router.get("/debates/{debate_id}", response_model=DebateOut, responses=_NOT_FOUND)
    def get_debate(debate_id: DebateId, caller: Reader) -> DebateOut:
        """A debate's settings, speakers (`speakers_waiting`: heard, not yet named) and detection state."""
        with _answering():
            return debate_out(service.get_debate(caller, debate_id))

    @router.patch("/debates/{debate_id}", response_model=DebateOut, responses=_NOT_FOUND)
    def update_debate(debate_id: DebateId, body: DebateUpdate, caller: Api) -> DebateOut:
        """Change the settings named; the others stay. Claims already detected keep their panels; a new
        `held_at` applies to detection and research that run from then on."""
        with _answering():
            return debate_out(service.update_debate(caller, debate_id, body.changes()))

    @router.patch("/session/model-weights", response_model=DebateOut, responses=_NOT_FOUND)
    def model_weights(body: ModelWeightsIn, caller: Api) -> DebateOut:
        """Bias which model a live debate's detector and workers use (cost, latency, quality; 0.0–1.0).
        No model is ever excluded; null goes back to no bias."""
        with _answering():
            return debate_out(service.update_debate(caller, body.debate_id, body.changes()))

    # --- transcripts and the speaker gate ---------------------------------------------------------------

    @router.post("/session/speaker-map", response_model=DebateOut, responses=_NOT_FOUND)
    def speaker_map(body: SpeakerMapIn, caller: Api) -> DebateOut:
        """Name diarization labels (`{"SPEAKER_00": "Ana Ruiz"}`). A label never heard is a 422. Naming
        the last unnamed voice releases withheld claims and starts deferred detection."""
        with _answering():
            return debate_out(service.set_speaker_map(caller, body.debate_id, body.map))

    @router.post(
        "/debates/{debate_id}/segments",
        status_code=status.HTTP_202_ACCEPTED,
        response_model=SegmentsAccepted,
        responses=_NOT_FOUND,
    )
    def add_segments(debate_id: DebateId, body: SegmentsIn, caller: Api) -> SegmentsAccepted:
        """A batch of the live stream. A segment id sent again is stored once."""
        with _answering():
            done = service.add_segments(caller, debate_id, body.segments)
        return SegmentsAccepted(**dataclasses.asdict(done))

    @router.post(
        "/debates/{debate_id}/transcript",
        status_code=status.HTTP_202_ACCEPTED,
        response_model=TranscriptAccepted,
        responses={
            **_NOT_FOUND,
            413: {"description": "Larger than the transcript cap"},
            422: {"description": "Unreadable; `line` names the line and `reason` says why"},
        },
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {"text/plain": {"schema": {"type": "string"}}},
                "description": "Plain text (`NAME: words`), WebVTT or SRT, UTF-8.",
            }
        },
    )
    async def ingest_transcript(
        request: Request,
        debate_id: DebateId,
        caller: Api,
        format: Annotated[
            Literal["text", "vtt", "srt"] | None,
            Query(description="Told from Content-Type or the content when left out."),
        ] = None,
    ) -> TranscriptAccepted:
        """A whole transcript. Under the speaker gate detection waits until every voice is named."""
        data = await request.body()
        media = request.headers.get("content-type", "").split(";")[0].strip().lower()
        fmt = format or TRANSCRIPT_TYPES.get(media)

        def ingest() -> TranscriptAccepted:
            with _answering():
                done = service.ingest_transcript(caller, debate_id, data, fmt)
            return TranscriptAccepted(
                debate_id=done.debate_id,
                segments=done.segments,
                accepted=done.accepted,
                duplicates=done.duplicates,
                detection_state=done.detection.value,
                speakers_waiting=done.speakers_waiting,
            )

        return await run_in_threadpool(ingest)

    @router.post(
        "/debates/{debate_id}/run-detection",
        status_code=status.HTTP_202_ACCEPTED,
        response_model=DetectionOut,
        responses={**_NOT_FOUND, 409: {"description": "`still_waiting` lists the unnamed voices"}},
    )
    def run_detection(
        debate_id: DebateId,
        caller: Api,
        skip_speakers: Annotated[bool, Query(description="Start although voices are unnamed.")] = False,
    ) -> DetectionOut:
        """Start the deferred detection of an ingested transcript."""
        with _answering():
            started = service.run_detection(caller, debate_id, skip_speakers)
        return DetectionOut(
            debate_id=started.debate_id,
            detection_state=started.detection.value,
            speakers_unnamed=started.unnamed_speakers,
        )

    # --- claims and their answers -----------------------------------------------------------------------

    @router.get("/debates/{debate_id}/claims", response_model=ClaimList, responses=_NOT_FOUND)
    def list_claims(debate_id: DebateId, caller: Reader) -> JSONResponse:
        """Every claim shown so far, in order, with its one answer (null while pending)."""
        with _answering():
            claims = service.list_claims(caller, debate_id)
        return JSONResponse({"debate_id": debate_id, "claims": [summary_dict(c, caller) for c in claims]})

    @router.get("/debates/{debate_id}/results", response_model=RecentResults, responses=_NOT_FOUND)
    def recent_results(
        debate_id: DebateId,
        caller: Reader,
        limit: Annotated[int, Query(ge=1, le=RECENT_RESULTS_MAX)] = RECENT_RESULTS_DEFAULT,
    ) -> JSONResponse:
        """The newest claims' results, newest first: each claim's one answer with every method's panel."""
        with _answering():
            newest = service.list_claims(caller, debate_id)[-limit:][::-1]
            results = [service.claim_results(caller, c.claim_id, debate_id) for c in newest]
        return JSONResponse(
            {"debate_id": debate_id, "results": [claim_results_dict(r, caller) for r in results]}
        )

    @router.get(
        "/debates/{debate_id}/export",
        response_model=DebateExportOut,
        responses={**_NOT_FOUND, 200: {"content": {"text/csv": {}}}},
    )
    def export_claims(
        debate_id: DebateId,
        caller: Reader,
        format: Annotated[ExportFormat, Query(description="json (the default) or csv")] = ExportFormat.JSON,
    ) -> Response:
        """Every claim with its speaker and persisted final answer; `pending` while there is none (a
        provisional answer is never exported)."""
        with _answering():
            rows = service.export_claims(caller, debate_id)
        if format is ExportFormat.CSV:
            return Response(
                rows_csv(rows),
                media_type="text/csv; charset=utf-8",
                headers={"Content-Disposition": f'attachment; filename="debate-{debate_id}.csv"'},
            )
        return JSONResponse({"debate_id": debate_id, "claims": [r.as_json() for r in rows]})

    @router.get("/debates/{debate_id}/digest", response_model=AlertDigestOut, responses=_NOT_FOUND)
    def alert_digest(
        debate_id: DebateId,
        caller: Reader,
        since: Annotated[
            datetime | None, Query(description="Only answers decided at or after this time (UTC if no zone).")
        ] = None,
    ) -> JSONResponse:
        """The claims whose final answer is false, misleading or partially_true, decided since `since`.
        Provisional answers never alert."""
        when = since.replace(tzinfo=UTC) if since is not None and since.tzinfo is None else since
        with _answering():
            rows = service.alert_digest(caller, debate_id, when)
        return JSONResponse(
            {
                "debate_id": debate_id,
                "since": when.isoformat() if when else None,
                "alerts": [r.as_json() for r in rows],
            }
        )

    @router.post(
        "/claim",
        status_code=status.HTTP_202_ACCEPTED,
        response_model=ClaimAccepted,
        responses={**_NOT_FOUND, 429: {"description": "Claim quota or spend limit reached"}},
    )
    def submit_claim(body: ClaimIn, caller: Api) -> ClaimAccepted:
        """Add a claim or check one again. `research_mode` re-checks with that method, even one already
        run (a new panel; the earlier one stays); `research_modes` runs only the listed methods the claim
        lacks; neither: the debate's methods the claim lacks. `strong_language` reruns them searching in
        English and Spanish too."""
        named, recheck = body.named_methods()
        with _answering():
            done = service.submit_claim(
                caller,
                body.debate_id,
                body.text,
                research_mode=named,
                manually_added=body.manually_added,
                strong_language=body.strong_language,
                recheck=recheck,
            )
        return ClaimAccepted(
            claim_id=done.claim_id,
            debate_id=done.debate_id,
            new_claim=done.created,
            panel_ids=done.panel_ids,
            queued_methods=[ResearchMode(m) for m in done.research_modes],
            already_researched=[ResearchMode(m) for m in done.already_researched],
            links=claim_links(done.claim_id, done.debate_id),
        )

    @router.get("/claims/{claim_id}/results", response_model=ClaimResultsOut, responses=_NOT_FOUND)
    def claim_results(claim_id: ClaimId, debate_id: DebateQuery, caller: Reader) -> JSONResponse:
        """The claim's one answer (`claim_verdict`, null while pending), every research panel, `best`
        (the same answer) and `conflict` (always false; `basis: fallback` marks an unresolved answer)."""
        return JSONResponse(claim_results_dict(results_or_404(caller, claim_id, debate_id), caller))

    @router.get("/claims/{claim_id}/best", response_model=ClaimResultsOut, responses=_NOT_FOUND)
    def claim_best(claim_id: ClaimId, debate_id: DebateQuery, caller: Reader) -> JSONResponse:
        """The same answer as `/results`."""
        return JSONResponse(claim_results_dict(results_or_404(caller, claim_id, debate_id), caller))

    # --- operator choices -------------------------------------------------------------------------------

    @router.post("/claims/{claim_id}/winner", response_model=ClaimResultsOut, responses=_NOT_FOUND)
    def select_winner(claim_id: ClaimId, body: WinnerIn, caller: Reviewer) -> JSONResponse:
        """Choose the research panel that answers for the claim (basis `operator`)."""
        results_or_404(caller, claim_id, body.debate_id)
        with _answering():
            results = service.select_winner(caller, claim_id, body.panel_id)
        return JSONResponse(claim_results_dict(results, caller))

    @router.post("/claims/{claim_id}/winner/rejections", response_model=ClaimResultsOut, responses=_NOT_FOUND)
    def reject_winner(claim_id: ClaimId, body: WinnerIn, caller: Reviewer) -> JSONResponse:
        """Reject a winner selection of this panel; the previous winner stays as it was."""
        results_or_404(caller, claim_id, body.debate_id)
        with _answering():
            results = service.reject_winner(caller, claim_id, body.panel_id)
        return JSONResponse(claim_results_dict(results, caller))

    @router.post("/panels/{panel_id}/corrections", response_model=PanelOut, responses=_NOT_FOUND)
    def correct_verdict(panel_id: PanelId, body: CorrectionIn, caller: Reviewer) -> JSONResponse:
        """A reviewer's verdict for one research panel, shown beside the method's own."""
        with _answering():
            view = service.correct_verdict(caller, panel_id, body.verdict, body.note)
        body_out = panel_dict(view)
        return JSONResponse(body_out if caller.is_admin else strip_diagnostics(body_out))

    @router.post(
        "/panels/{panel_id}/translations",
        status_code=status.HTTP_201_CREATED,
        response_model=FeedbackRecorded,
        responses=_NOT_FOUND,
    )
    def translate(panel_id: PanelId, body: TranslationIn, caller: Api) -> FeedbackRecorded:
        """A translation of a research panel's explanation."""
        with _answering():
            done = service.feedback(caller, "translation", panel_id=panel_id, data=body.model_dump())
        return FeedbackRecorded(id=done.feedback_id, kind=done.kind, panel_id=panel_id)

    # --- reader feedback: recorded, never changing a verdict --------------------------------------------

    @router.post(
        "/panels/{panel_id}/votes",
        status_code=status.HTTP_201_CREATED,
        response_model=FeedbackRecorded,
        responses=_NOT_FOUND,
    )
    def vote(panel_id: PanelId, body: VoteIn, caller: Reader) -> FeedbackRecorded:
        """A vote on a research panel. Votes are panel feedback; they never decide the answer."""
        with _answering():
            done = service.vote(caller, panel_id, body.value)
        return FeedbackRecorded(id=done.feedback_id, kind=done.kind, panel_id=panel_id)

    @router.post(
        "/panels/{panel_id}/feedback",
        status_code=status.HTTP_201_CREATED,
        response_model=FeedbackRecorded,
        responses=_NOT_FOUND,
    )
    def panel_feedback(panel_id: PanelId, body: PanelFeedbackIn, caller: Reader) -> FeedbackRecorded:
        """Thumbs (with reasons and optional benchmark consent) on one research panel."""
        with _answering():
            done = service.feedback(caller, "panel_feedback", panel_id=panel_id, data=body.model_dump())
        return FeedbackRecorded(id=done.feedback_id, kind=done.kind, panel_id=panel_id)

    @router.post(
        "/claims/{claim_id}/feedback",
        status_code=status.HTTP_201_CREATED,
        response_model=FeedbackRecorded,
        responses={**_NOT_FOUND, 409: {"description": "There is no answer yet to give feedback on"}},
    )
    def claim_feedback(claim_id: ClaimId, body: AnswerFeedbackIn, caller: Reader) -> FeedbackRecorded:
        """Thumbs on the main answer, or on the claim's extraction (`kind: extraction`).

        On an agreement, operator or fallback answer they review the panel it shows; on an adjudicated
        answer they are answer feedback recording the verdict, basis and panels shown."""
        results = results_or_404(caller, claim_id, body.debate_id)
        data = body.model_dump(exclude={"debate_id", "kind"})
        with _answering():
            if body.kind == "extraction":
                done = service.feedback(
                    caller, "claim_extraction", claim_id=claim_id, debate_id=body.debate_id, data=data
                )
                return FeedbackRecorded(id=done.feedback_id, kind=done.kind, claim_id=claim_id)
            answer = results.claim_verdict
            if answer is None:
                raise HTTPException(status.HTTP_409_CONFLICT, detail="this claim has no answer yet")
            shown = {
                "shown_verdict": answer.verdict.value,
                "basis": answer.basis.value,
                "panel_ids": list(answer.panel_ids),
            }
            if answer.basis.value != "adjudicated" and answer.selected_panel_id is not None:
                panel_id = answer.selected_panel_id
                done = service.feedback(
                    caller, "panel_feedback", panel_id=panel_id, data={**data, **shown, "via": "answer"}
                )
                return FeedbackRecorded(
                    id=done.feedback_id, kind=done.kind, claim_id=claim_id, panel_id=panel_id
                )
            done = service.feedback(
                caller, "answer_feedback", claim_id=claim_id, debate_id=body.debate_id, data={**data, **shown}
            )
        return FeedbackRecorded(id=done.feedback_id, kind=done.kind, claim_id=claim_id)

    # --- the live feed ----------------------------------------------------------------------------------

    @router.get(
        "/debates/{debate_id}/events",
        response_class=StreamingResponse,
        responses={200: {"content": {"text/event-stream": {}}}, **_NOT_FOUND},
    )
    async def debate_events(
        request: Request,
        debate_id: DebateId,
        caller: Reader,
        once: Annotated[bool, Query(description="Send the events so far and close.")] = False,
        after: Annotated[
            int | None, Query(ge=0, le=MAX_EVENT_ID, description="Start after this event id.")
        ] = None,
    ) -> StreamingResponse:
        """Server-sent events: `claim`, `panel` (each with the current `claim_verdict`), `claim_verdict`,
        `speakers` and `detection`. Resumes after `Last-Event-ID`, else starts after `after`, else at the
        debate's first event."""

        def fetch(after: int, limit: int) -> list[DebateEvent]:
            with _answering():
                return public_events(service.events_after(caller, debate_id, after, limit), caller)

        return await debate_event_stream(request, debate_id, fetch, once=once, after=after)

    return router
