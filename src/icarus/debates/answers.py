"""A claim's one answer, built again whenever its panels change, and the panels an answer calls for.

``recompute`` builds the answer from the claim's current panels (``adjudication.build_claim_verdict``: the
elector, adjudication of a conflict, an operator's winner) and keeps it when it changed. ``after_panel``
runs when a panel was answered: escalation (``escalation.next_rung``), the strong-language auto retry, then
the new answer. Metered adjudication that failed is retried by ``retry_adjudications``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TypeVar, cast

from sqlalchemy import select
from sqlalchemy.orm import Session

from icarus.debates import repository as repo
from icarus.debates.access import Caller
from icarus.debates.adjudication import build_claim_verdict
from icarus.debates.adjudication_meter import MeteredAdjudication
from icarus.debates.escalation import next_rung
from icarus.debates.language import should_auto_retry
from icarus.debates.model import ResearchMode, StoredPanel
from icarus.debates.model_choice import ModelWeights
from icarus.debates.results import dump_verdict, panel_event
from icarus.debates.runtime import Clock, DebatePipeline
from icarus.debates.visibility import visible_debate
from icarus.store.debate_tables import ClaimVerdictRecord, DebateClaimRecord, DebatePanelRecord, PanelState
from icarus.store.repository import Store
from icarus.store.tokens import Role

__all__ = [
    "after_panel",
    "current_panels",
    "expected_methods",
    "rebuild_verdicts",
    "recompute",
    "retry_adjudications",
]

Part = TypeVar("Part")


def recompute(
    session: Session,
    claim: DebateClaimRecord,
    debate: repo.DebateRow,
    now: datetime,
    pipeline: DebatePipeline,
    *,
    answered: DebatePanelRecord | None = None,
) -> None:
    """Build the claim's answer from its current panels and keep it if it changed (an event says so).

    ``answered``: the panel just answered, announced with the answer it leads to, before that answer."""
    rows = [repo.panel_row(p) for p in repo.panel_rows(session, claim.id)]
    expected = expected_methods(rows, debate)
    current = current_panels(rows, expected)
    weights = ModelWeights.of(debate.settings)
    adjudicator = _biased(pipeline.adjudicator, weights)
    metered = MeteredAdjudication.start(
        session, pipeline.adjudication_policy, adjudicator, claim.id, current, now
    )
    verdict = build_claim_verdict(
        current,
        expected,
        operator_winner_panel_id=repo.current_winner(session, claim.id),
        previous=repo.claim_verdict(session, claim.id),
        adjudicator=metered.adjudicator if metered is not None else adjudicator,
        provisional_allowed=debate.settings.provisional_claim_verdict,
        elector_enabled=debate.settings.elector_enabled,
        chooser=_biased(pipeline.chooser, weights),
        claim_text=claim.text,
    )
    changed = repo.store_claim_verdict(session, claim.id, verdict, now)
    if metered is not None:
        metered.finish(session, verdict)
    if answered is not None:
        repo.add_event(session, claim.debate_id, "panel", panel_event(session, answered), now)
    if changed:
        data = {"claim_id": claim.id, "claim_verdict": dump_verdict(verdict)}
        repo.add_event(session, claim.debate_id, "claim_verdict", data, now)


def after_panel(
    session: Session,
    claim: DebateClaimRecord,
    row: DebatePanelRecord,
    debate: repo.DebateRow,
    now: datetime,
    pipeline: DebatePipeline,
    *,
    strong_language_auto_retry: bool,
) -> list[int]:
    """A panel was answered: escalation, the strong-language auto retry, the claim's new answer, events.
    Returns the panels queued for the claim."""
    follow_ups: list[int] = []
    if debate.settings.escalate_enabled:
        follow_ups += _escalate(session, claim, debate, now)
    follow_ups += _strong_language_retry(session, claim, debate, now, enabled=strong_language_auto_retry)
    recompute(session, claim, debate, now, pipeline, answered=row)
    return follow_ups


def rebuild_verdicts(
    store: Store, clock: Clock, pipeline: DebatePipeline, caller: Caller, debate_id: str | None = None
) -> int:
    """Build every claim's answer again from its panels (one debate, or all); how many changed.

    Agreements come back without an adjudication call; an unchanged valid adjudicated answer survives
    (``build_claim_verdict``). For an upgrade that changes how answers are built, or a backfill."""
    caller.require(Role.ADMIN, "rebuilding claim verdicts")
    with store.reading() as session:
        query = select(DebateClaimRecord.id).where(DebateClaimRecord.withheld.is_(None))
        if debate_id is not None:
            visible_debate(session, caller, debate_id)
            query = query.where(DebateClaimRecord.debate_id == debate_id)
        claim_ids = list(session.scalars(query.order_by(DebateClaimRecord.id)).all())
    changed = 0
    for claim_id in claim_ids:

        def work(session: Session, claim_id: int = claim_id) -> bool:
            claim = _locked_claim(session, claim_id)
            debate = repo.debate_row(repo.debate_record(session, claim.debate_id))
            before = repo.claim_verdict(session, claim_id)
            recompute(session, claim, debate, clock(), pipeline)
            return repo.claim_verdict(session, claim_id) != before

        changed += store.transaction(work)
    return changed


def retry_adjudications(store: Store, pipeline: DebatePipeline, now: datetime) -> int:
    """Build again the answers whose metered adjudication failed and is due for another attempt."""
    with store.reading() as session:
        due = list(
            session.scalars(
                select(ClaimVerdictRecord.claim_id).where(ClaimVerdictRecord.adjudication_due_at <= now)
            ).all()
        )
    for claim_id in due:

        def work(session: Session, claim_id: int = claim_id) -> None:
            claim = _locked_claim(session, claim_id)
            record = session.get(ClaimVerdictRecord, claim_id)
            if record is None or record.adjudication_due_at is None or record.adjudication_due_at > now:
                return  # another worker retried it already
            debate = repo.debate_row(repo.debate_record(session, claim.debate_id))
            recompute(session, claim, debate, now, pipeline)

        store.transaction(work)
    return len(due)


def expected_methods(rows: Sequence[repo.PanelRow], debate: repo.DebateRow) -> list[ResearchMode]:
    """The methods the answer waits for: configured (those with a panel), escalated and manual ones.

    A configured method with no panel (quota reached, or configured after the claim was shown) is not
    waited for; neither is a plain recheck of another method."""
    have = {r.research_mode for r in rows}
    modes = [m for m in debate.settings.research_modes if m in have]
    modes += [r.research_mode for r in rows if r.escalated or r.manual]
    return list(dict.fromkeys(modes))


def current_panels(rows: Sequence[repo.PanelRow], expected: Sequence[ResearchMode]) -> list[StoredPanel]:
    """Per method the newest answered panel (a rerun replaces the answer before it), else its newest pending
    one when the answer waits for that method. Manual and automatic panels of a method are kept apart."""
    chosen: dict[tuple[ResearchMode, bool], repo.PanelRow] = {}
    for row in rows:  # oldest first, so a later row of the same standing replaces an earlier one
        key = (row.research_mode, row.manual)
        held = chosen.get(key)
        answered = row.state is PanelState.DONE
        awaited = row.research_mode in expected or row.manual
        if answered or ((held is None or held.state is not PanelState.DONE) and awaited):
            chosen[key] = row
    return [repo.stored_panel(r) for r in sorted(chosen.values(), key=lambda r: r.id)]


def _strong_language_retry(
    session: Session, claim: DebateClaimRecord, debate: repo.DebateRow, now: datetime, *, enabled: bool
) -> list[int]:
    """``STRONG_LANGUAGE_AUTO_RETRY``: once every current panel of the claim has answered unverifiable,
    rerun each of their methods once, searching also in English and Spanish."""
    if not enabled:
        return []
    rows = [repo.panel_row(p) for p in repo.panel_rows(session, claim.id)]
    plain = [r for r in rows if not r.strong_language]
    current = current_panels(plain, expected_methods(plain, debate))
    if not should_auto_retry(
        [p.panel.verdict for p in current],
        enabled,
        already_retried=any(r.strong_language for r in rows),
    ):
        return []
    by_id = {r.id: r for r in plain}
    retries: list[int] = []
    for stored in current:
        source = by_id[stored.panel_id]
        retry = repo.add_panel(
            session,
            claim,
            source.research_mode,
            now,
            manual=source.manual,
            escalated=source.escalated,
            strong_language=True,
            billed_token_id=source.billed_token_id,
            billed_organisation_id=source.billed_organisation_id,
        )
        repo.add_event(session, claim.debate_id, "panel", panel_event(session, retry), now)
        retries.append(retry.id)
    return retries


def _escalate(session: Session, claim: DebateClaimRecord, debate: repo.DebateRow, now: datetime) -> list[int]:
    """Queue the next rung of the escalation ladder when the current panels call for one (none twice)."""
    rows = [repo.panel_row(p) for p in repo.panel_rows(session, claim.id)]
    stored = current_panels(rows, expected_methods(rows, debate))
    steps = sum(1 for r in rows if r.escalated)
    rung = next_rung(
        debate.settings.research_modes,
        stored,
        steps,
        debate.settings.escalate_max_steps,
        debate.settings.primary_source_policy,
    )
    if rung is None or any(r.research_mode is rung for r in rows):
        return []
    panel = repo.add_panel(
        session,
        claim,
        rung,
        now,
        escalated=True,
        billed_token_id=debate.created_by,
        billed_organisation_id=debate.organisation_id,
    )
    repo.add_event(session, claim.debate_id, "panel", panel_event(session, panel), now)
    return [panel.id]


def _locked_claim(session: Session, claim_id: int) -> DebateClaimRecord:
    return session.scalars(
        select(DebateClaimRecord).where(DebateClaimRecord.id == claim_id).with_for_update()
    ).one()


def _biased(part: Part, weights: ModelWeights) -> Part:
    """An adjudicator or chooser that asks models (``llm_adjudication``), biased by a debate's weights;
    any other as it is."""
    bias = getattr(part, "biased", None)
    return cast(Part, bias(weights)) if callable(bias) else part
