"""When to try again: search outages, adjudication retries, and which panels operators may act on.

Search outage. When every main search of a method fails (providers down or timing out) its panel stays
PENDING with ``research_delay_reason: search_unavailable`` and does not satisfy the completion barrier. It
is retried 10 minutes, 30 minutes and 2 hours after each failure; once those retries have failed too the
panel becomes UNVERIFIABLE. A search that succeeds and finds nothing is ordinary research, not an outage.

Adjudication retries. A failed adjudication is retried with exponential backoff, up to a bounded number of
attempts per conflict. The conflict is keyed by its panels' fingerprints, so new evidence starts afresh.
Every adjudication call, retries and backfills of historical conflicts included, spends from one daily cap
shared by all claims. ``AdjudicationBudget`` and ``AdjudicationRetry`` are plain state: the caller stores
them and passes them back in; nothing here reads a clock or a store.

Eligibility. Votes, translations, manual verdict corrections and winner selection apply only to a claim's
research panels; any other id is refused as not found.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from enum import StrEnum
from typing import Final

from pydantic import BaseModel, ConfigDict, Field

from icarus.debates.adjudication import (
    AdjudicationOutcome,
    AdjudicationRequest,
    Adjudicator,
    panel_fingerprint,
)
from icarus.debates.errors import PanelNotFound
from icarus.debates.model import Panel, ResearchDelay, ResearchMode, StoredPanel, Verdict

__all__ = [
    "SEARCH_RETRY_DELAYS",
    "AdjudicationBudget",
    "AdjudicationGate",
    "AdjudicationRetry",
    "AdjudicationRetryPolicy",
    "BudgetedAdjudicator",
    "PanelNotEligible",
    "adjudication_gate",
    "apply_winner_rejection",
    "conflict_fingerprint",
    "eligible_panel",
    "give_up_panel",
    "next_search_retry",
    "record_adjudication_failure",
    "search_unavailable_panel",
]

SEARCH_RETRY_DELAYS: Final = (timedelta(minutes=10), timedelta(minutes=30), timedelta(hours=2))
"""The wait before each automatic retry of a method whose searches all failed; then it gives up."""


def _require_aware(now: datetime) -> None:
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")


# --- search outage ----------------------------------------------------------------------------------


def next_search_retry(
    attempts_so_far: int, now: datetime, delays: Sequence[timedelta] = SEARCH_RETRY_DELAYS
) -> datetime | None:
    """When to retry a method whose searches all failed just now, or None: give up (``give_up_panel``).

    ``attempts_so_far`` counts the retries already made: 0 after the first failure."""
    if attempts_so_far < 0:
        raise ValueError("attempts_so_far cannot be negative")
    _require_aware(now)
    return now + delays[attempts_so_far] if attempts_so_far < len(delays) else None


def search_unavailable_panel(research_mode: ResearchMode) -> Panel:
    """The incomplete panel a method leaves while search is unavailable."""
    return Panel(
        research_mode=research_mode,
        verdict=Verdict.PENDING,
        confidence=0.0,
        explanation="Search is unavailable; research will be retried.",
        research_delay_reason=ResearchDelay.SEARCH_UNAVAILABLE,
    )


def give_up_panel(panel: Panel, retries_made: int) -> Panel:
    """The UNVERIFIABLE answer for a method whose searches stayed unavailable through every retry.

    It is no longer delayed (the reason moves to the explanation and the trace), so it now satisfies the
    completion barrier."""
    return panel.model_copy(
        update={
            "verdict": Verdict.UNVERIFIABLE,
            "confidence": 0.0,
            "explanation": (
                f"Search stayed unavailable after {retries_made} automatic retries, so this method could "
                "not research the claim."
            ),
            "research_delay_reason": None,
            "trace": {
                **panel.trace,
                "gave_up": ResearchDelay.SEARCH_UNAVAILABLE.value,
                "retries": retries_made,
            },
        }
    )


# --- adjudication retries and the daily cap ---------------------------------------------------------


@dataclass(frozen=True)
class AdjudicationRetryPolicy:
    max_attempts: int = 4
    """Attempts per conflict (per fingerprint) before it stays on its fallback answer."""
    base_delay: timedelta = timedelta(minutes=5)
    max_delay: timedelta = timedelta(hours=6)
    daily_cap: int = 500
    """Adjudication calls per UTC day, all claims together."""


class AdjudicationBudget(BaseModel):
    """The shared daily call count, keyed by the UTC day it counts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    day: date | None = None
    calls: int = Field(default=0, ge=0)

    def calls_on(self, now: datetime) -> int:
        """Calls already made on ``now``'s UTC day (a new day starts at zero)."""
        _require_aware(now)
        return self.calls if self.day == now.astimezone(UTC).date() else 0

    def remaining(self, now: datetime, policy: AdjudicationRetryPolicy) -> int:
        return max(0, policy.daily_cap - self.calls_on(now))

    def spend(self, now: datetime) -> AdjudicationBudget:
        return AdjudicationBudget(day=now.astimezone(UTC).date(), calls=self.calls_on(now) + 1)


class AdjudicationRetry(BaseModel):
    """One conflict's attempts so far; a different fingerprint means a new conflict."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fingerprint: str
    attempts: int = Field(default=0, ge=0)
    next_attempt_at: datetime | None = None


class AdjudicationGate(StrEnum):
    ALLOWED = "allowed"
    BACKING_OFF = "backing_off"
    ATTEMPTS_EXHAUSTED = "attempts_exhausted"
    DAILY_CAP = "daily_cap"


def conflict_fingerprint(panels: Sequence[StoredPanel]) -> str:
    """The key of a claim's conflict: its panels and their fingerprints, in panel order."""
    parts = sorted(f"{p.panel_id}={panel_fingerprint(p.panel)}" for p in panels)
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]


def _current(retry: AdjudicationRetry | None, fingerprint: str) -> AdjudicationRetry:
    if retry is None or retry.fingerprint != fingerprint:
        return AdjudicationRetry(fingerprint=fingerprint)
    return retry


def adjudication_gate(
    retry: AdjudicationRetry | None,
    fingerprint: str,
    budget: AdjudicationBudget,
    now: datetime,
    policy: AdjudicationRetryPolicy = AdjudicationRetryPolicy(),
) -> AdjudicationGate:
    """Whether this conflict may be adjudicated now. A build that may not passes no adjudicator."""
    _require_aware(now)
    state = _current(retry, fingerprint)
    if state.attempts >= policy.max_attempts:
        return AdjudicationGate.ATTEMPTS_EXHAUSTED
    if state.next_attempt_at is not None and now < state.next_attempt_at:
        return AdjudicationGate.BACKING_OFF
    if budget.remaining(now, policy) <= 0:
        return AdjudicationGate.DAILY_CAP
    return AdjudicationGate.ALLOWED


def record_adjudication_failure(
    retry: AdjudicationRetry | None,
    fingerprint: str,
    now: datetime,
    policy: AdjudicationRetryPolicy = AdjudicationRetryPolicy(),
) -> AdjudicationRetry:
    """The state after a failed attempt: one more attempt, the next one after a doubled wait."""
    _require_aware(now)
    state = _current(retry, fingerprint)
    attempts = state.attempts + 1
    delay = min(policy.base_delay * 2 ** (attempts - 1), policy.max_delay)
    return AdjudicationRetry(fingerprint=fingerprint, attempts=attempts, next_attempt_at=now + delay)


class BudgetedAdjudicator:
    """An adjudicator that spends from the shared daily cap on every call and answers None (unavailable)
    once the cap is reached. Read ``budget`` afterwards and store it."""

    def __init__(
        self,
        inner: Adjudicator,
        budget: AdjudicationBudget,
        now: datetime,
        policy: AdjudicationRetryPolicy = AdjudicationRetryPolicy(),
    ) -> None:
        _require_aware(now)
        self.inner = inner
        self.budget = budget
        self.now = now
        self.policy = policy

    def adjudicate(self, request: AdjudicationRequest) -> AdjudicationOutcome | None:
        if self.budget.remaining(self.now, self.policy) <= 0:
            return None
        self.budget = self.budget.spend(self.now)
        return self.inner.adjudicate(request)


# --- which panels operators and readers may act on --------------------------------------------------


class PanelNotEligible(PanelNotFound):
    """Not one of the claim's research panels (or, for a winner, not a finished one): answered as 404."""


def eligible_panel(
    panel_id: int, panels: Sequence[StoredPanel], *, require_finished: bool = False
) -> StoredPanel:
    """The research panel ``panel_id`` names among a claim's ``panels``; raises ``PanelNotEligible``.

    Votes, translations and corrections may name any of them; a winner must have finished
    (``require_finished``), since a pending panel has no answer to give."""
    for stored in panels:
        if stored.panel_id == panel_id:
            if require_finished and stored.panel.verdict is Verdict.PENDING:
                break
            return stored
    raise PanelNotEligible(panel_id)


def apply_winner_rejection(current_winner: int | None, rejected: int) -> int | None:
    """The winner after a selection of ``rejected`` is rejected: the previous winner, unchanged.

    A rejection is a review of one selection; it never clears or replaces the winner. An operator changes
    the winner only by selecting another panel."""
    del rejected  # recorded as feedback by the caller; it does not move the winner
    return current_winner
