"""Panel research scheduling: which research panels a claim gets, billed to whom, within which limits.

A detected claim, once shown, gets one pending panel per configured method, billed to the debate's creator
(``show_claim``); a claim an operator submits gets the methods ``rechecks.plan_methods`` picks, billed to
them (``submit_claim``). Quota and spend limits refuse research, never the claim. The panels' ids go back
to the caller, who hands them to the queue.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.orm import Session

from icarus.debates import repository as repo
from icarus.debates.access import Caller, check_budget, check_methods, plan_for_organisation
from icarus.debates.answers import recompute
from icarus.debates.errors import InvalidChange, QuotaExceeded, SpendLimitReached
from icarus.debates.model import DetectedClaim, ResearchMode
from icarus.debates.rechecks import plan_methods
from icarus.debates.results import ClaimSubmitted, claim_event, panel_event
from icarus.debates.runtime import Clock, DebatePipeline
from icarus.debates.visibility import visible_debate
from icarus.store.debate_tables import DebateClaimRecord
from icarus.store.repository import Store
from icarus.store.tokens import Role

__all__ = ["show_claim", "submit_claim"]


def show_claim(
    session: Session, claim: DebateClaimRecord, debate: repo.DebateRow, now: datetime
) -> list[int]:
    """Announce a claim and queue one panel per configured method, billed to the debate's creator."""
    repo.add_event(session, claim.debate_id, "claim", claim_event(session, claim, debate), now)
    modes = debate.settings.research_modes
    if not modes:
        return []
    try:
        plan = plan_for_organisation(session, debate.organisation_id)
        check_budget(session, debate.organisation_id, plan, now, new_claim=True)
    except (QuotaExceeded, SpendLimitReached) as refused:
        repo.add_event(
            session,
            claim.debate_id,
            "research_refused",
            {"claim_id": claim.id, "reason": str(refused)},
            now,
        )
        return []
    ids = []
    for mode in modes:
        panel = repo.add_panel(
            session,
            claim,
            mode,
            now,
            billed_token_id=debate.created_by,
            billed_organisation_id=debate.organisation_id,
        )
        ids.append(panel.id)
        repo.add_event(session, claim.debate_id, "panel", panel_event(session, panel), now)
    return ids


def submit_claim(
    store: Store,
    clock: Clock,
    pipeline: DebatePipeline,
    caller: Caller,
    debate_id: str,
    text: str,
    research_mode: ResearchMode | Sequence[ResearchMode] | None = None,
    manually_added: bool = False,
    strong_language: bool = False,
    recheck: bool = False,
) -> ClaimSubmitted:
    """Add a claim to a debate or check one again; the panels queued are in ``panel_ids``.

    Only the methods the claim has no panel for yet run, unless ``recheck`` (the methods named run
    again) or ``strong_language`` (they all run again, searching also in English and Spanish); see
    ``rechecks.plan_methods``. Without ``research_mode``: the debate's methods for a new claim, the
    claim's own for a rerun; an empty list researches nothing. ``manually_added`` panels widen what
    the answer waits for but never vote. Administrators may run any method, others only their plan's;
    quota and spend limit apply to all."""
    caller.require(Role.API, "submitting a claim")
    text = text.strip()
    if not text:
        raise InvalidChange("a claim needs text")
    asked = None if research_mode is None else _modes(research_mode)
    if asked:
        check_methods(caller, asked)
    now = clock()

    def work(session: Session) -> ClaimSubmitted:
        row = visible_debate(session, caller, debate_id)
        debate = repo.debate_row(row)
        claim = repo.find_claim(session, debate_id, text)
        created = claim is None
        existing = [] if claim is None else [repo.panel_row(p) for p in repo.panel_rows(session, claim.id)]
        plan = plan_methods(
            asked,
            recheck=recheck,
            strong_language=strong_language,
            configured=debate.settings.research_modes,
            existing=existing,
        )
        check_methods(caller, plan.considered)
        to_run = plan.to_run
        if to_run:
            check_budget(session, caller.organisation_id, caller.plan, now, new_claim=created)
        if claim is None:
            detected = DetectedClaim(text=text, checkworthiness=1.0, claim_type="manual")
            claim = repo.add_claim(
                session,
                debate_id,
                detected,
                now,
                withheld=None,
                manually_added=True,
                created_by=caller.token_id,
            )
            repo.add_event(session, debate_id, "claim", claim_event(session, claim, debate), now)
        ids = []
        for mode in to_run:
            panel = repo.add_panel(
                session,
                claim,
                mode,
                now,
                manual=manually_added,
                strong_language=strong_language,
                billed_token_id=caller.token_id,
                billed_organisation_id=caller.organisation_id,
            )
            ids.append(panel.id)
            repo.add_event(session, debate_id, "panel", panel_event(session, panel), now)
        if ids:
            recompute(
                session, claim, debate, now, pipeline
            )  # a manual method joins what the answer waits for
        return ClaimSubmitted(claim.id, debate_id, created, ids, list(to_run), plan.already_researched)

    return store.transaction(work)


def _modes(research_mode: ResearchMode | Sequence[ResearchMode]) -> list[ResearchMode]:
    if isinstance(research_mode, str):
        research_mode = [research_mode]
    try:
        return list(dict.fromkeys(ResearchMode(m) for m in research_mode))
    except ValueError as exc:
        raise InvalidChange(f"unsupported research method: {exc}") from exc
