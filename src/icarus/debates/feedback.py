"""Feedback: what reviewers and readers say about the answers.

A reviewer may choose the winning panel of a claim (it answers from then on, basis ``operator``), reject a
selection, or correct one panel's verdict (shown beside it). Readers' votes and notes are recorded as
feedback and never change a verdict or pick a winner.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from sqlalchemy import update
from sqlalchemy.orm import Session

from icarus.debates import repository as repo
from icarus.debates.access import Caller
from icarus.debates.answers import recompute
from icarus.debates.debate import stored_json
from icarus.debates.errors import ClaimNotFound, InvalidChange
from icarus.debates.model import Verdict
from icarus.debates.queries import claim_results
from icarus.debates.results import ClaimResults, FeedbackRecorded, PanelView, panel_view
from icarus.debates.retries import apply_winner_rejection
from icarus.debates.runtime import Clock, DebatePipeline
from icarus.debates.visibility import visible_debate, visible_panel
from icarus.store.debate_tables import DebateFeedbackRecord, WinnerSelectionRecord, WinnerState
from icarus.store.repository import Store
from icarus.store.tokens import Role

__all__ = ["FEEDBACK_KINDS", "correct_verdict", "feedback", "reject_winner", "select_winner"]

FEEDBACK_KINDS: Final = frozenset(
    {"vote", "panel_feedback", "answer_feedback", "claim_extraction", "translation"}
)
PANEL_KINDS: Final = ("vote", "panel_feedback", "translation")
"""The feedback kinds that name a research panel."""


def select_winner(
    store: Store, clock: Clock, pipeline: DebatePipeline, caller: Caller, claim_id: int, panel_id: int
) -> ClaimResults:
    """An operator's winner answers for the claim from now on (basis ``operator``)."""
    caller.require(Role.REVIEWER, "choosing a winner")
    now = clock()

    def work(session: Session) -> str:
        panel, claim, debate = visible_panel(session, caller, panel_id, claim_id, finished=True)
        session.execute(
            update(WinnerSelectionRecord)
            .where(
                WinnerSelectionRecord.claim_id == claim.id,
                WinnerSelectionRecord.state == WinnerState.CURRENT.value,
            )
            .values(state=WinnerState.SUPERSEDED.value)
            .execution_options(synchronize_session=False)
        )
        session.add(
            WinnerSelectionRecord(
                claim_id=claim.id,
                panel_id=panel.id,
                state=WinnerState.CURRENT.value,
                token_id=caller.token_id,
                at=now,
            )
        )
        session.flush()
        recompute(session, claim, debate, now, pipeline)
        return claim.debate_id

    debate_id = store.transaction(work)
    return claim_results(store, caller, claim_id, debate_id)


def reject_winner(store: Store, clock: Clock, caller: Caller, claim_id: int, panel_id: int) -> ClaimResults:
    """Record that a selection of ``panel_id`` is rejected. The previous winner stays as it was."""
    caller.require(Role.REVIEWER, "rejecting a winner")
    now = clock()

    def work(session: Session) -> str:
        panel, claim, _debate = visible_panel(session, caller, panel_id, claim_id)
        kept = apply_winner_rejection(repo.current_winner(session, claim.id), panel.id)
        session.add(
            WinnerSelectionRecord(
                claim_id=claim.id,
                panel_id=panel.id,
                state=WinnerState.REJECTED.value,
                token_id=caller.token_id,
                at=now,
            )
        )
        session.add(
            DebateFeedbackRecord(
                kind="winner_rejection",
                debate_id=claim.debate_id,
                claim_id=claim.id,
                panel_id=panel.id,
                token_id=caller.token_id,
                data_json=stored_json({"winner_kept": kept}),
                at=now,
            )
        )
        return claim.debate_id

    debate_id = store.transaction(work)
    return claim_results(store, caller, claim_id, debate_id)


def correct_verdict(
    store: Store, clock: Clock, caller: Caller, panel_id: int, verdict: Verdict, note: str | None = None
) -> PanelView:
    """A reviewer's correction of one research panel's verdict, shown beside the panel; ``note`` (why,
    optional) is kept with it."""
    caller.require(Role.REVIEWER, "correcting a verdict")
    if verdict is Verdict.PENDING:
        raise InvalidChange("a correction names a verdict, not pending")
    now = clock()

    def work(session: Session) -> PanelView:
        panel, claim, _debate = visible_panel(session, caller, panel_id)
        panel.corrected_verdict = verdict.value
        session.add(
            DebateFeedbackRecord(
                kind="correction",
                debate_id=claim.debate_id,
                claim_id=claim.id,
                panel_id=panel.id,
                token_id=caller.token_id,
                data_json=stored_json({"verdict": verdict.value, "note": (note or "").strip() or None}),
                at=now,
            )
        )
        session.flush()
        return panel_view(repo.panel_row(panel))

    return store.transaction(work)


def feedback(
    store: Store,
    clock: Clock,
    caller: Caller,
    kind: str,
    *,
    panel_id: int | None = None,
    claim_id: int | None = None,
    debate_id: str | None = None,
    data: Mapping[str, Any] | None = None,
) -> FeedbackRecorded:
    """Record feedback: ``vote``/``panel_feedback``/``translation`` name a research panel,
    ``answer_feedback`` a claim (shown verdict, basis, considered panel ids, reasons, benchmark consent),
    ``claim_extraction`` a claim or a debate. None of it changes a verdict or picks a winner."""
    caller.require(Role.READER, "giving feedback")
    if kind not in FEEDBACK_KINDS:
        raise InvalidChange(f"unknown feedback kind {kind!r}")
    now = clock()

    def work(session: Session) -> FeedbackRecorded:
        nonlocal claim_id, debate_id
        if kind in PANEL_KINDS:
            if panel_id is None:
                raise InvalidChange(f"{kind} names a research panel")
            _panel, claim, _debate = visible_panel(session, caller, panel_id, claim_id)
            claim_id, debate_id = claim.id, claim.debate_id
        elif claim_id is not None:
            claim = repo.claim_record(session, claim_id, debate_id)
            visible_debate(session, caller, claim.debate_id, missing=ClaimNotFound(claim_id, debate_id))
            debate_id = claim.debate_id
        elif debate_id is not None and kind == "claim_extraction":
            visible_debate(session, caller, debate_id)
        else:
            raise InvalidChange(f"{kind} names a claim")
        row = DebateFeedbackRecord(
            kind=kind,
            debate_id=debate_id,
            claim_id=claim_id,
            panel_id=panel_id,
            token_id=caller.token_id,
            data_json=stored_json(dict(data or {})),
            at=now,
        )
        session.add(row)
        session.flush()
        return FeedbackRecorded(row.id, kind)

    return store.transaction(work)
