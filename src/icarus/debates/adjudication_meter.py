"""The metered adjudicator at the database: the daily call count and each conflict's retry schedule.

``retries`` decides (pure) whether a conflict may be adjudicated now; this module reads what that needs from
the claim's answer row and the shared budget row, and writes back the calls spent and the retry it schedules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

from sqlalchemy import case, update
from sqlalchemy.orm import Session

from icarus.debates.adjudication import Adjudicator
from icarus.debates.model import Basis, ClaimVerdict, StoredPanel
from icarus.debates.retries import (
    AdjudicationBudget,
    AdjudicationGate,
    AdjudicationRetry,
    AdjudicationRetryPolicy,
    BudgetedAdjudicator,
    adjudication_gate,
    conflict_fingerprint,
    record_adjudication_failure,
)
from icarus.store.debate_tables import AdjudicationBudgetRecord, ClaimVerdictRecord

__all__ = ["BUDGET_ROW", "MeteredAdjudication", "spend_calls"]

BUDGET_ROW: Final = 1
"""The one row of the shared daily adjudication budget."""


@dataclass
class MeteredAdjudication:
    """One answer build's use of a metered adjudicator: whether the conflict may be adjudicated now (attempts,
    backoff, the daily cap), the calls it spends, and the retry it schedules when adjudication fails."""

    session: Session
    claim_id: int
    fingerprint: str
    policy: AdjudicationRetryPolicy
    retry: AdjudicationRetry | None
    budget: AdjudicationBudget
    gate: AdjudicationGate
    adjudicator: BudgetedAdjudicator | None
    now: datetime

    @classmethod
    def start(
        cls,
        session: Session,
        policy: AdjudicationRetryPolicy | None,
        inner: Adjudicator | None,
        claim_id: int,
        panels: Sequence[StoredPanel],
        now: datetime,
    ) -> MeteredAdjudication | None:
        """None when nothing is metered (no policy, or no adjudicator)."""
        if policy is None or inner is None:
            return None
        record = session.get(ClaimVerdictRecord, claim_id)
        retry = (
            AdjudicationRetry.model_validate_json(record.adjudication_json)
            if record is not None and record.adjudication_json
            else None
        )
        row = session.get(AdjudicationBudgetRecord, BUDGET_ROW)
        day = datetime.fromisoformat(row.day).date() if row is not None and row.day else None
        budget = AdjudicationBudget(day=day, calls=row.calls if row is not None else 0)
        fingerprint = conflict_fingerprint(panels)
        gate = adjudication_gate(retry, fingerprint, budget, now, policy)
        allowed = gate is AdjudicationGate.ALLOWED
        adjudicator = BudgetedAdjudicator(inner, budget, now, policy) if allowed else None
        return cls(session, claim_id, fingerprint, policy, retry, budget, gate, adjudicator, now)

    def finish(self, session: Session, verdict: ClaimVerdict | None) -> None:
        record = session.get(ClaimVerdictRecord, self.claim_id)
        if record is None:
            return
        fallback = verdict is not None and verdict.basis is Basis.FALLBACK
        if self.gate is AdjudicationGate.DAILY_CAP and fallback:
            # The day's calls are spent: this conflict waits for tomorrow's (its attempts are untouched).
            tomorrow = self.now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
            record.adjudication_due_at = tomorrow + timedelta(days=1)
            return
        if self.adjudicator is None:
            return  # backing off (already due later) or out of attempts
        spent = self.adjudicator.budget.calls_on(self.now) - self.budget.calls_on(self.now)
        if spent <= 0:
            return  # no conflict to adjudicate: nothing spent, nothing to retry
        spend_calls(session, self.now, spent)
        if fallback:
            retry = record_adjudication_failure(self.retry, self.fingerprint, self.now, self.policy)
            record.adjudication_json = retry.model_dump_json()
            exhausted = retry.attempts >= self.policy.max_attempts
            record.adjudication_due_at = None if exhausted else retry.next_attempt_at
        else:
            record.adjudication_json, record.adjudication_due_at = None, None


def spend_calls(session: Session, now: datetime, calls: int) -> None:
    """Add ``calls`` to today's count in one statement, so concurrent builds never lose a call (the cap may
    be passed by the calls already under way when it is reached)."""
    today = now.astimezone(UTC).date().isoformat()
    if session.get(AdjudicationBudgetRecord, BUDGET_ROW) is None:
        session.add(AdjudicationBudgetRecord(id=BUDGET_ROW, day=today, calls=0))
        session.flush()
    session.execute(
        update(AdjudicationBudgetRecord)
        .where(AdjudicationBudgetRecord.id == BUDGET_ROW)
        .values(
            calls=case(
                (AdjudicationBudgetRecord.day == today, AdjudicationBudgetRecord.calls + calls), else_=calls
            ),
            day=today,
        )
        .execution_options(synchronize_session=False)
    )
