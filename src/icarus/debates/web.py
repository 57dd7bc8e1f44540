"""The live debate page: claims as they arrive, each with its one answer and every other result.

``/debates`` lists the organisation's debates with where each stands (a refused upload says so);
``/debates/{id}`` shows a debate's claims in the order they were said, each with the time it was said.
Each claim card shows the main answer ("Verification in progress" while there is none) with its
confidence band and what the research methods found, a disagreement note on a ``fallback`` answer, thumbs
on the main answer, and a collapsed "See other results" with every research panel (its method in words)
and a vote on each. ``/debates/{id}/claims/{claim_id}`` is one claim on a page of its own. Primary
citations are marked and drawn in blue, alternative sources in amber, curated ones plainly.

The page subscribes to ``/v1/debates/{id}/events``; for each event naming a claim it fetches that claim's
card again (``/debates/{id}/claims/{claim_id}/card``, rendered by the same template) and puts it in place.
Debates are visible only inside their organisation, so the page needs a token: the API headers, or the
``SameSite=Strict`` cookie that ``/debates/sign-in`` sets. Thumbs and votes are recorded and never change
a verdict.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import parse_qs

from fastapi import APIRouter, HTTPException, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from icarus.debates.access import AccessStore, Caller
from icarus.debates.api import caller_for, claim_results_dict
from icarus.debates.errors import DebateError
from icarus.debates.model import Basis, Verdict
from icarus.debates.page_reads import ClaimMoment, UploadProblem, claim_moments, upload_problems
from icarus.debates.page_words import (
    ESCALATED_WORDS,
    confidence_band,
    debate_status,
    method_name,
    panels_found,
    said_at,
)
from icarus.debates.service import ClaimResults, ClaimSummary, DebateService, DebateView
from icarus.http.auth import TOKEN_COOKIE, Security
from icarus.store.tokens import Role
from icarus.web._env import asset, debate_css, environment
from icarus.web.model import Links, RecentDebate

__all__ = [
    "BASIS_WORDS",
    "EVENT_NAMES",
    "VERDICT_LOOKS",
    "VerdictLook",
    "build_debate_pages",
    "claim_card",
    "dashboard_debates",
    "render_claim_card",
]

EVENT_NAMES: Final = ("claim", "panel", "claim_verdict")
"""The feed's events that name a claim; the page refreshes that claim's card on each."""

_DEBATE_ID: Final = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_CLAIM_ID: Final = re.compile(r"^[1-9][0-9]{0,17}$")
COOKIE_MAX_AGE_S: Final = 12 * 3600  # one working day of a live desk
NO_STORE: Final = "no-store"
MAX_FORM_BYTES: Final = 1024
DEBATE_LIST_ROWS: Final = 100
DASHBOARD_DEBATES: Final = 10  # debates the dashboard lists beside the checks


@dataclass(frozen=True)
class VerdictLook:
    symbol: str
    heading: str
    tone: str  # ok | warn | bad | unk, the colour family in debate.css


VERDICT_LOOKS: Final = {
    Verdict.TRUE.value: VerdictLook("\u2705", "True", "ok"),
    Verdict.FALSE.value: VerdictLook("\u274c", "False", "bad"),
    Verdict.PARTIALLY_TRUE.value: VerdictLook("\u25d0", "Partly true", "warn"),
    Verdict.MISLEADING.value: VerdictLook("\u26a0\ufe0f", "Misleading", "warn"),
    Verdict.UNVERIFIABLE.value: VerdictLook("\u2754", "Unverifiable", "unk"),
    Verdict.PENDING.value: VerdictLook("\u2026", "Pending", "unk"),
}

BASIS_WORDS: Final = {
    Basis.AGREEMENT.value: "",  # what the methods found says it, counted (page_words.panels_found)
    Basis.ADJUDICATED.value: "Reconciled from the methods' evidence",
    Basis.OPERATOR.value: "Chosen by an editor",
    Basis.FALLBACK.value: "The methods disagree",
}


def claim_card(
    summary: ClaimSummary | ClaimResults, results: Mapping[str, Any], moment: ClaimMoment | None = None
) -> dict[str, Any]:
    """What one claim card shows: the claim's speaker, when it was said, and the results as the API
    publishes them, with each confidence as its band and each method in words."""
    claim_id = summary.claim_id
    answer = results.get("claim_verdict")
    panels = [
        {
            **p,
            "vote_url": f"/v1/panels/{p['panel_id']}/votes",
            "method": method_name(str(p.get("research_mode", ""))),
            "band": confidence_band(p.get("confidence"))
            if p.get("verdict") != Verdict.PENDING.value
            else None,
            "escalated_words": ESCALATED_WORDS,
        }
        for p in results.get("panels", [])
    ]
    pending = sum(1 for p in panels if p.get("verdict") == Verdict.PENDING.value)
    if answer is not None:
        answer = {**answer, "band": confidence_band(answer.get("confidence"))}
    return {
        "claim_id": claim_id,
        "debate_id": summary.debate_id,
        "text": summary.text,
        "speaker": summary.speaker_name or summary.speaker_label,
        "manually_added": summary.manually_added,
        "said": said_at(moment.said_at_s) if moment else None,
        "added_at": moment.added_at if moment else None,
        "order": moment.order if moment else float(claim_id),
        "found": panels_found(panels),
        "claim_verdict": answer,
        "selected_panel_id": answer.get("selected_panel_id") if answer else None,
        "panels": panels,
        "waiting": f"{pending} of {len(panels)} methods still researching" if pending else "",
        "answer_feedback_url": f"/v1/claims/{claim_id}/feedback",
        "answer_feedback_kind": "answer",
    }


def render_claim_card(card: Mapping[str, Any]) -> str:
    """One claim card as HTML (what the page shows and the live script swaps in)."""
    return (
        environment()
        .get_template("debate_claim.html")
        .render(card=card, verdicts=VERDICT_LOOKS, bases=BASIS_WORDS, claim_url=claim_page_url)
    )


def claim_page_url(debate_id: str, claim_id: int) -> str:
    return f"/debates/{debate_id}/claims/{claim_id}"


def debate_header(view: DebateView, problem: UploadProblem | None) -> dict[str, Any]:
    """What a debate's header and its line in the list show: title, methods in words, where it stands."""
    tone, words = debate_status(view.mode.value, view.segment_count, view.detection_state.value, problem)
    return {
        "id": view.id,
        "title": view.title,
        "methods": [method_name(m.value) for m in view.settings.research_modes],
        "speakers_waiting": view.speakers_waiting,
        "claim_count": view.claim_count,
        "created_at": view.created_at,
        "held_on": f"{view.held_at:%-d %B %Y}",
        "status": words,
        "status_tone": tone,
        "problem": problem,
    }


def dashboard_debates(
    service: DebateService, security: Security, limit: int = DASHBOARD_DEBATES
) -> Callable[[Request], list[RecentDebate] | None]:
    """The dashboard's debates for the reader of a request (``None`` when not signed in), newest first."""
    access = AccessStore(service.store)

    def read(request: Request) -> list[RecentDebate] | None:
        try:
            principal = security.principal(request, cookie=True)
        except HTTPException:
            return None  # a bad or revoked cookie: the dashboard still shows, with the sign-in link
        if principal.role is None:
            return None
        views = service.list_debates(caller_for(access, principal), limit)
        problems = upload_problems(service.store, [v.id for v in views])
        rows = []
        for view in views:
            head = debate_header(view, problems.get(view.id))
            rows.append(
                RecentDebate(
                    view.id,
                    view.title,
                    head["status"],
                    head["status_tone"],
                    view.claim_count,
                    view.created_at,
                    f"/debates/{view.id}",
                )
            )
        return rows

    return read


def build_debate_pages(service: DebateService, security: Security, links: Links | None = None) -> APIRouter:
    links = links or Links()
    access = AccessStore(service.store)
    router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)
    env = environment()
    page_css = debate_css()

    def render(name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
        html = env.get_template(name).render(
            links=links,
            css=page_css,
            verdicts=VERDICT_LOOKS,
            bases=BASIS_WORDS,
            claim_url=claim_page_url,
            **context,
        )
        return HTMLResponse(html, status_code=status_code, headers={"Cache-Control": NO_STORE})

    def not_found() -> HTMLResponse:
        return render(
            "error.html",
            status.HTTP_404_NOT_FOUND,
            heading="Not found",
            message="There is no such debate here.",
        )

    def sign_in_page(next_path: str, problem: str = "", status_code: int = 401) -> HTMLResponse:
        return render(
            "debate_sign_in.html",
            status_code,
            next=next_path,
            problem=problem,
            sign_in_url="/debates/sign-in",
        )

    def caller_of(request: Request) -> Caller | None:
        """The signed-in reader, or None (anonymous: the sign-in page). A bad token raises 401."""
        principal = security.principal(request, cookie=True)
        if principal.role is None:
            return None
        return caller_for(access, principal)

    def cards(caller: Caller, debate_id: str) -> list[dict[str, Any]]:
        """Every shown claim's card, in the order the claims were said."""
        shown = service.list_claims(caller, debate_id)
        moments = claim_moments(service.store, debate_id)
        found = [one_card(caller, debate_id, s.claim_id, moments.get(s.claim_id)) for s in shown]
        return sorted(found, key=lambda card: (card["order"], card["claim_id"]))

    def one_card(
        caller: Caller, debate_id: str, claim_id: int, moment: ClaimMoment | None = None
    ) -> dict[str, Any]:
        results = service.claim_results(caller, claim_id, debate_id)  # access is checked here
        if moment is None:
            moment = claim_moments(service.store, debate_id, [claim_id]).get(claim_id)
        return claim_card(results, claim_results_dict(results, caller), moment)

    @router.get("/debates/sign-in")
    def sign_in_form(next: str = "/debates") -> HTMLResponse:
        return sign_in_page(_local(next), status_code=200)

    @router.post("/debates/sign-in")
    async def sign_in(request: Request) -> Response:
        """Keep a valid token in a cookie for the debate pages and go on to ``next`` (a local path).

        The form is read by hand (``application/x-www-form-urlencoded``): two short fields."""
        form = parse_qs((await request.body())[:MAX_FORM_BYTES].decode("utf-8", "replace"))
        token = (form.get("token") or [""])[0].strip()
        next = (form.get("next") or ["/debates"])[0]
        info = await run_in_threadpool(security.tokens.authenticate, token) if token else None
        if info is None or not info.role.allows(Role.READER):
            return sign_in_page(_local(next), "That token is unknown or revoked.")
        response = RedirectResponse(_local(next), status_code=status.HTTP_303_SEE_OTHER)
        response.set_cookie(
            TOKEN_COOKIE,
            token,
            max_age=COOKIE_MAX_AGE_S,
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
            path="/",
        )
        return response

    @router.get("/debates")
    def debate_list(request: Request) -> HTMLResponse:
        """The caller's organisation's debates, newest first."""
        try:
            caller = caller_of(request)
        except HTTPException as exc:
            return sign_in_page("/debates", str(exc.detail), exc.status_code)
        if caller is None:
            return sign_in_page("/debates")
        return render("debate_list.html", debates=debate_rows(caller))

    def debate_rows(caller: Caller, limit: int = DEBATE_LIST_ROWS) -> list[dict[str, Any]]:
        views = service.list_debates(caller, limit)
        problems = upload_problems(service.store, [v.id for v in views])
        return [debate_header(v, problems.get(v.id)) for v in views]

    @router.get("/debates/{debate_id}")
    def debate_page(request: Request, debate_id: str) -> HTMLResponse:
        if not _DEBATE_ID.match(debate_id):
            return not_found()
        try:
            caller = caller_of(request)
        except HTTPException as exc:
            return sign_in_page(f"/debates/{debate_id}", str(exc.detail), exc.status_code)
        if caller is None:
            return sign_in_page(f"/debates/{debate_id}")
        try:
            debate = service.get_debate(caller, debate_id)
            # read before the claims: whatever happens after this, the feed delivers
            seen = service.last_event_id(caller, debate_id)
            claims = cards(caller, debate_id)
        except DebateError:
            return not_found()
        problem = upload_problems(service.store, [debate.id]).get(debate.id)
        return render(
            "debate.html",
            debate=debate_header(debate, problem),
            claims=claims,
            events_url=f"/v1/debates/{debate_id}/events?after={seen}",
            card_url=f"/debates/{debate_id}/claims/{{claim_id}}/card",
            event_names=EVENT_NAMES,
            script=Markup(asset("debate.js")),
        )

    @router.get("/debates/{debate_id}/claims/{claim_id}")
    def claim_page(request: Request, debate_id: str, claim_id: str) -> HTMLResponse:
        """One claim on a page of its own, every result shown."""
        if not (_DEBATE_ID.match(debate_id) and _CLAIM_ID.match(claim_id)):
            return not_found()
        here = claim_page_url(debate_id, int(claim_id))
        try:
            caller = caller_of(request)
        except HTTPException as exc:
            return sign_in_page(here, str(exc.detail), exc.status_code)
        if caller is None:
            return sign_in_page(here)
        try:
            debate = service.get_debate(caller, debate_id)
            card = one_card(caller, debate_id, int(claim_id))
        except DebateError:
            return not_found()
        problem = upload_problems(service.store, [debate.id]).get(debate.id)
        return render(
            "debate_claim_page.html",
            debate=debate_header(debate, problem),
            card=card,
            single=True,
            script=Markup(asset("debate.js")),
        )

    @router.get("/debates/{debate_id}/claims/{claim_id}/card")
    def claim_card_fragment(request: Request, debate_id: str, claim_id: str) -> Response:
        """One claim card, as the page shows it (the live script swaps it in)."""
        if not (_DEBATE_ID.match(debate_id) and _CLAIM_ID.match(claim_id)):
            return Response(status_code=status.HTTP_404_NOT_FOUND)
        caller = caller_of(request)
        if caller is None:
            return Response(status_code=status.HTTP_401_UNAUTHORIZED)
        try:
            card = one_card(caller, debate_id, int(claim_id))
        except DebateError:
            return Response(status_code=status.HTTP_404_NOT_FOUND)
        return HTMLResponse(render_claim_card(card), headers={"Cache-Control": NO_STORE})

    return router


def _local(path: str) -> str:
    """``path`` if it stays on this site, else ``/`` (no open redirect through ``next``)."""
    if path.startswith("/") and not path.startswith("//") and "\\" not in path:
        return path
    return "/"
