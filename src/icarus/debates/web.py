"""The live debate page: claims as they arrive, each with its one answer and every other result.

``/debates`` lists the organisation's debates; ``/debates/{id}`` shows a debate's claims, newest first. Each claim card shows the main answer
("Verification in progress" while there is none), a disagreement note on a ``fallback`` answer, thumbs on
the main answer, and a collapsed "See other results" with every research panel and a vote on each.
Primary citations are marked and drawn in blue, alternative sources in amber, curated ones plainly.

The page subscribes to ``/v1/debates/{id}/events``; for each event naming a claim it fetches that claim's
card again (``/debates/{id}/claims/{claim_id}/card``, rendered by the same template) and puts it in place.
Debates are visible only inside their organisation, so the page needs a token: the API headers, or the
``SameSite=Strict`` cookie that ``/debates/sign-in`` sets. Thumbs and votes are recorded and never change
a verdict.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import parse_qs

from fastapi import APIRouter, HTTPException, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from icarus.api.auth import TOKEN_COOKIE, Security
from icarus.debates.access import AccessStore, Caller
from icarus.debates.api import caller_for, claim_results_dict
from icarus.debates.errors import DebateError
from icarus.debates.model import Basis, Verdict
from icarus.debates.service import ClaimResults, ClaimSummary, DebateService
from icarus.store.tokens import Role
from icarus.web._env import asset, environment
from icarus.web.model import Links

__all__ = [
    "BASIS_WORDS",
    "EVENT_NAMES",
    "VERDICT_LOOKS",
    "VerdictLook",
    "build_debate_pages",
    "claim_card",
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
    Basis.AGREEMENT.value: "The research methods agree",
    Basis.ADJUDICATED.value: "Reconciled from the methods' evidence",
    Basis.OPERATOR.value: "Chosen by an editor",
    Basis.FALLBACK.value: "The methods disagree",
}


def claim_card(summary: ClaimSummary | ClaimResults, results: Mapping[str, Any]) -> dict[str, Any]:
    """What one claim card shows: the claim's speaker and the results as the API publishes them."""
    claim_id = summary.claim_id
    answer = results.get("claim_verdict")
    panels = [{**p, "vote_url": f"/v1/panels/{p['panel_id']}/votes"} for p in results.get("panels", [])]
    pending = sum(1 for p in panels if p.get("verdict") == Verdict.PENDING.value)
    return {
        "claim_id": claim_id,
        "text": summary.text,
        "speaker": summary.speaker_name or summary.speaker_label,
        "manually_added": summary.manually_added,
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
        .render(card=card, verdicts=VERDICT_LOOKS, bases=BASIS_WORDS)
    )


def build_debate_pages(service: DebateService, security: Security, links: Links | None = None) -> APIRouter:
    links = links or Links()
    access = AccessStore(service.store)
    router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)
    env = environment()
    page_css = Markup(asset("icarus.css") + "\n" + asset("debate.css"))

    def render(name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
        html = env.get_template(name).render(
            links=links, css=page_css, verdicts=VERDICT_LOOKS, bases=BASIS_WORDS, **context
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
        return [
            one_card(caller, debate_id, s.claim_id)
            for s in reversed(service.list_claims(caller, debate_id))  # newest first, as live ones arrive
        ]

    def one_card(caller: Caller, debate_id: str, claim_id: int) -> dict[str, Any]:
        results = service.claim_results(caller, claim_id, debate_id)
        return claim_card(results, claim_results_dict(results, caller))

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
        rows = [
            {
                "id": d.id,
                "title": d.title,
                "claim_count": d.claim_count,
                "mode": d.mode.value,
                "created_at": d.created_at,
            }
            for d in service.list_debates(caller, DEBATE_LIST_ROWS)
        ]
        return render("debate_list.html", debates=rows)

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
        return render(
            "debate.html",
            debate={
                "id": debate.id,
                "title": debate.title,
                "research_modes": [m.value for m in debate.settings.research_modes],
                "speakers_waiting": debate.speakers_waiting,
            },
            claims=claims,
            events_url=f"/v1/debates/{debate_id}/events?after={seen}",
            card_url=f"/debates/{debate_id}/claims/{{claim_id}}/card",
            event_names=EVENT_NAMES,
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
