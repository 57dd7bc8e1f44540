"""Retry schedules (search outage, adjudication) and which panels may be acted on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from icarus.debates.adjudication import (
    AdjudicationOutcome,
    AdjudicationRequest,
    OfflineAdjudicator,
    build_claim_verdict,
)
from icarus.debates.errors import PanelNotFound
from icarus.debates.model import (
    Basis,
    Citation,
    Panel,
    ResearchDelay,
    ResearchMode,
    StoredPanel,
    Verdict,
)
from icarus.debates.retries import (
    SEARCH_RETRY_DELAYS,
    AdjudicationBudget,
    AdjudicationGate,
    AdjudicationRetry,
    AdjudicationRetryPolicy,
    BudgetedAdjudicator,
    PanelNotEligible,
    adjudication_gate,
    apply_winner_rejection,
    conflict_fingerprint,
    eligible_panel,
    give_up_panel,
    next_search_retry,
    record_adjudication_failure,
    search_unavailable_panel,
)

NOW = datetime(2026, 12, 1, 21, 0, tzinfo=UTC)
POLICY = AdjudicationRetryPolicy(
    max_attempts=3, base_delay=timedelta(minutes=5), max_delay=timedelta(minutes=15), daily_cap=2
)


def stored(
    panel_id: int, verdict: Verdict, url: str = "", mode: ResearchMode = ResearchMode.TWO_STEP
) -> StoredPanel:
    sources = [Citation(url=url, domain=url.split("/")[2])] if url else []
    return StoredPanel(
        panel_id=panel_id, panel=Panel(research_mode=mode, verdict=verdict, confidence=0.5, sources=sources)
    )


# --- search outage ------------------------------------------------------------------------------


def test_the_documented_schedule() -> None:
    assert (timedelta(minutes=10), timedelta(minutes=30), timedelta(hours=2)) == SEARCH_RETRY_DELAYS


@pytest.mark.parametrize(
    ("attempts", "expected"),
    [
        (0, NOW + timedelta(minutes=10)),
        (1, NOW + timedelta(minutes=30)),
        (2, NOW + timedelta(hours=2)),
        (3, None),  # then unverifiable
        (4, None),
    ],
)
def test_search_retry_schedule(attempts: int, expected: datetime | None) -> None:
    assert next_search_retry(attempts, NOW) == expected


def test_search_retry_rejects_nonsense() -> None:
    with pytest.raises(ValueError):
        next_search_retry(-1, NOW)
    with pytest.raises(ValueError):
        next_search_retry(0, NOW.replace(tzinfo=None))


def test_a_search_outage_panel_is_pending_and_holds_the_barrier() -> None:
    panel = search_unavailable_panel(ResearchMode.DECOMPOSE)
    assert (panel.verdict, panel.research_delay_reason) == (Verdict.PENDING, ResearchDelay.SEARCH_UNAVAILABLE)
    panels = [stored(1, Verdict.TRUE, "https://a.org/x"), StoredPanel(panel_id=2, panel=panel)]
    assert build_claim_verdict(panels, [ResearchMode.TWO_STEP, ResearchMode.DECOMPOSE]) is None


def test_giving_up_makes_the_panel_unverifiable_and_completes_the_barrier() -> None:
    pending = search_unavailable_panel(ResearchMode.DECOMPOSE).model_copy(update={"trace": {"queries": 3}})
    given_up = give_up_panel(pending, 3)
    assert (given_up.verdict, given_up.confidence, given_up.research_delay_reason) == (
        Verdict.UNVERIFIABLE,
        0.0,
        None,
    )
    assert given_up.research_mode is ResearchMode.DECOMPOSE
    assert "3 automatic retries" in given_up.explanation
    assert given_up.trace == {"queries": 3, "gave_up": "search_unavailable", "retries": 3}
    panels = [stored(1, Verdict.TRUE, "https://a.org/x"), StoredPanel(panel_id=2, panel=given_up)]
    answer = build_claim_verdict(panels, [ResearchMode.TWO_STEP, ResearchMode.DECOMPOSE])
    assert answer is not None
    assert (answer.verdict, answer.basis) == (Verdict.TRUE, Basis.AGREEMENT)


# --- the daily cap ------------------------------------------------------------------------------


def test_the_daily_cap_counts_per_utc_day() -> None:
    budget = AdjudicationBudget()
    assert budget.remaining(NOW, POLICY) == 2
    budget = budget.spend(NOW).spend(NOW)
    assert (budget.day, budget.calls) == (NOW.date(), 2)
    assert budget.remaining(NOW, POLICY) == 0
    # 23:59:59 UTC is still today; midnight UTC is a new day
    assert budget.remaining(NOW.replace(hour=23, minute=59, second=59), POLICY) == 0
    tomorrow = (NOW + timedelta(days=1)).replace(hour=0)
    assert budget.remaining(tomorrow, POLICY) == 2
    assert budget.spend(tomorrow) == AdjudicationBudget(day=tomorrow.date(), calls=1)


def test_the_day_is_the_utc_day_whatever_the_zone_of_now() -> None:
    budget = AdjudicationBudget().spend(NOW).spend(NOW)
    # 21:00 UTC is already the next day in UTC+5, but the cap is keyed by the UTC day
    assert budget.remaining(NOW.astimezone(timezone(timedelta(hours=5))), POLICY) == 0


def _conflict() -> list[StoredPanel]:
    return [
        stored(1, Verdict.TRUE, "https://a.org/x"),
        stored(2, Verdict.FALSE, "https://b.org/y", ResearchMode.DECOMPOSE),
    ]


class Counting:
    def __init__(self) -> None:
        self.calls = 0

    def adjudicate(self, request: AdjudicationRequest) -> AdjudicationOutcome | None:
        self.calls += 1
        return OfflineAdjudicator().adjudicate(request)


def test_the_budgeted_adjudicator_spends_per_call_and_stops_at_the_cap() -> None:
    inner = Counting()
    adjudicator = BudgetedAdjudicator(inner, AdjudicationBudget(), NOW, POLICY)
    first = build_claim_verdict(_conflict(), [], adjudicator=adjudicator)
    second = build_claim_verdict(_conflict(), [], adjudicator=adjudicator)
    third = build_claim_verdict(_conflict(), [], adjudicator=adjudicator)
    assert [a.basis for a in (first, second, third) if a is not None] == [
        Basis.ADJUDICATED,
        Basis.ADJUDICATED,
        Basis.FALLBACK,
    ]
    assert inner.calls == 2
    assert adjudicator.budget == AdjudicationBudget(day=NOW.date(), calls=2)


def test_a_capped_rebuild_keeps_the_unchanged_adjudicated_answer() -> None:
    adjudicator = BudgetedAdjudicator(Counting(), AdjudicationBudget(day=NOW.date(), calls=1), NOW, POLICY)
    previous = build_claim_verdict(_conflict(), [], adjudicator=adjudicator)
    assert previous is not None and previous.basis is Basis.ADJUDICATED
    assert adjudicator.budget.remaining(NOW, POLICY) == 0
    assert build_claim_verdict(_conflict(), [], adjudicator=adjudicator, previous=previous) == previous


# --- adjudication retries -----------------------------------------------------------------------


def test_the_conflict_key_follows_the_panels_fingerprints() -> None:
    panels = _conflict()
    assert conflict_fingerprint(panels) == conflict_fingerprint(list(reversed(panels)))
    changed = [panels[0], stored(2, Verdict.MISLEADING, "https://b.org/y", ResearchMode.DECOMPOSE)]
    assert conflict_fingerprint(changed) != conflict_fingerprint(panels)


def test_backoff_doubles_up_to_the_ceiling() -> None:
    retry = None
    waits = []
    for _ in range(4):
        retry = record_adjudication_failure(retry, "k", NOW, POLICY)
        assert retry.next_attempt_at is not None
        waits.append(retry.next_attempt_at - NOW)
    assert waits == [
        timedelta(minutes=5),
        timedelta(minutes=10),
        timedelta(minutes=15),
        timedelta(minutes=15),
    ]
    assert retry is not None and retry.attempts == 4


def test_the_gate_backs_off_then_allows_then_exhausts_the_attempts() -> None:
    budget = AdjudicationBudget()
    assert adjudication_gate(None, "k", budget, NOW, POLICY) is AdjudicationGate.ALLOWED
    retry = record_adjudication_failure(None, "k", NOW, POLICY)
    due = NOW + timedelta(minutes=5)
    assert (
        adjudication_gate(retry, "k", budget, due - timedelta(seconds=1), POLICY)
        is AdjudicationGate.BACKING_OFF
    )
    assert adjudication_gate(retry, "k", budget, due, POLICY) is AdjudicationGate.ALLOWED
    retry = record_adjudication_failure(retry, "k", due, POLICY)
    retry = record_adjudication_failure(retry, "k", due, POLICY)
    assert retry.attempts == POLICY.max_attempts
    assert (
        adjudication_gate(retry, "k", budget, NOW + timedelta(days=1), POLICY)
        is AdjudicationGate.ATTEMPTS_EXHAUSTED
    )


def test_new_evidence_starts_a_fresh_attempt_budget() -> None:
    exhausted = AdjudicationRetry(
        fingerprint="old", attempts=POLICY.max_attempts, next_attempt_at=NOW + timedelta(hours=1)
    )
    assert adjudication_gate(exhausted, "new", AdjudicationBudget(), NOW, POLICY) is AdjudicationGate.ALLOWED
    assert record_adjudication_failure(exhausted, "new", NOW, POLICY).attempts == 1


def test_the_shared_daily_cap_closes_the_gate() -> None:
    spent = AdjudicationBudget(day=NOW.date(), calls=POLICY.daily_cap)
    assert adjudication_gate(None, "k", spent, NOW, POLICY) is AdjudicationGate.DAILY_CAP
    assert (
        adjudication_gate(
            None, "k", AdjudicationBudget(day=NOW.date(), calls=POLICY.daily_cap - 1), NOW, POLICY
        )
        is AdjudicationGate.ALLOWED
    )


# --- eligibility --------------------------------------------------------------------------------


def test_only_a_claims_research_panels_are_eligible() -> None:
    panels = [stored(1, Verdict.TRUE), stored(2, Verdict.PENDING)]
    assert eligible_panel(1, panels).panel_id == 1
    assert eligible_panel(2, panels).panel_id == 2  # votes and translations may name a pending panel
    for not_a_panel in (3, 0, -1):
        with pytest.raises(PanelNotEligible) as raised:
            eligible_panel(not_a_panel, panels)
        assert isinstance(raised.value, PanelNotFound)
        assert raised.value.http_status == 404


def test_a_winner_must_have_finished() -> None:
    panels = [stored(1, Verdict.TRUE), stored(2, Verdict.PENDING)]
    assert eligible_panel(1, panels, require_finished=True).panel_id == 1
    with pytest.raises(PanelNotEligible):
        eligible_panel(2, panels, require_finished=True)


@pytest.mark.parametrize(("current", "rejected"), [(1, 2), (1, 1), (None, 2)])
def test_rejecting_a_winner_selection_leaves_the_previous_winner(current: int | None, rejected: int) -> None:
    assert apply_winner_rejection(current, rejected) == current
