"""Organisations, plans, quotas and spend: who may research what, and who pays for it."""

from __future__ import annotations

import pytest

from icarus.debates.access import AccessStore, Caller, month_start
from icarus.debates.errors import DebateNotFound, MethodNotInPlan, QuotaExceeded, SpendLimitReached
from icarus.debates.model import DebateSettings, ResearchMode, Verdict
from icarus.store import Store
from icarus.store.tokens import Role, TokenStore
from tests.debates.store_fixtures import FakeClock, ScriptedResearch, make_service, segment, sourced
from tests.debates.store_fixtures import clock as clock
from tests.debates.store_fixtures import db_url as db_url
from tests.debates.store_fixtures import store as store

TWO_STEP = ResearchMode.TWO_STEP
AGENTIC = ResearchMode.AGENTIC


def member(store: Store, clock: FakeClock, role: Role, organisation_id: int) -> Caller:
    issued = TokenStore(store).create(f"{role.value}-{organisation_id}", role, clock.now)
    access = AccessStore(store)
    access.assign_token(issued.info.id, organisation_id)
    return access.caller(issued.info)


def newsroom(store: Store, clock: FakeClock, **limits: float | int | None) -> tuple[Caller, Caller]:
    access = AccessStore(store)
    plan = access.create_plan(f"plan-{len(access.organisations())}", [TWO_STEP], **limits)  # type: ignore[arg-type]
    org = access.create_organisation(f"org-{len(access.organisations())}", plan.id)
    return member(store, clock, Role.API, org.id), member(store, clock, Role.ADMIN, org.id)


def test_a_token_is_a_member_of_its_organisation_under_its_plan(store: Store, clock: FakeClock) -> None:
    api, _admin = newsroom(store, clock, claim_quota=5, spend_limit=2.5)
    assert api.organisation_id is not None and api.plan is not None
    assert (api.plan.methods, api.plan.claim_quota, api.plan.spend_limit) == ((TWO_STEP,), 5, 2.5)
    bare = TokenStore(store).create("loner", Role.API, clock.now)
    assert AccessStore(store).caller(bare.info) == Caller(bare.info.id, None, Role.API)


def test_only_admins_run_methods_outside_their_plan(store: Store, clock: FakeClock) -> None:
    api, admin = newsroom(store, clock)
    service = make_service(store, clock)
    with pytest.raises(MethodNotInPlan) as refused:
        service.create_debate(api, DebateSettings(research_modes=[TWO_STEP, AGENTIC]))
    assert refused.value.methods == ["agentic"] and refused.value.http_status == 403
    debate = service.create_debate(api, DebateSettings(research_modes=[TWO_STEP]))
    with pytest.raises(MethodNotInPlan):
        service.submit_claim(api, debate.id, "Taxes rose 5 percent.", AGENTIC)
    with pytest.raises(MethodNotInPlan):
        service.update_debate(api, debate.id, {"research_modes": ["agentic"]})
    submitted = service.submit_claim(admin, debate.id, "Taxes rose 5 percent.", AGENTIC)
    assert submitted.research_modes == [AGENTIC]


def test_a_debate_is_visible_only_inside_its_organisation(store: Store, clock: FakeClock) -> None:
    ours, _ = newsroom(store, clock)
    theirs, _ = newsroom(store, clock)
    service = make_service(store, clock)
    debate = service.create_debate(ours, DebateSettings(research_modes=[]))
    with pytest.raises(DebateNotFound):
        service.get_debate(theirs, debate.id)
    with pytest.raises(DebateNotFound):
        service.add_segments(theirs, debate.id, [segment("s1", "Taxes rose 5 percent.")])
    assert [d.id for d in service.list_debates(ours)] == [debate.id]
    assert service.list_debates(theirs) == []
    assert service.get_debate(Caller.operator(), debate.id).organisation_id == ours.organisation_id


def test_the_claim_quota_refuses_a_new_claim_but_not_a_recheck(store: Store, clock: FakeClock) -> None:
    api, admin = newsroom(store, clock, claim_quota=1)
    service = make_service(store, clock)
    debate = service.create_debate(api, DebateSettings(research_modes=[TWO_STEP]))
    service.submit_claim(api, debate.id, "Taxes rose 5 percent.")
    with pytest.raises(QuotaExceeded) as refused:
        service.submit_claim(admin, debate.id, "Crime fell 10 percent.")  # quotas bind admins too
    assert refused.value.quota == 1 and refused.value.http_status == 429
    again = service.submit_claim(api, debate.id, "Taxes rose 5 percent.", strong_language=True)
    assert again.panel_ids  # rechecking a counted claim is not a new claim


def test_the_quota_resets_with_the_month(store: Store, clock: FakeClock) -> None:
    api, _ = newsroom(store, clock, claim_quota=1)
    service = make_service(store, clock)
    debate = service.create_debate(api, DebateSettings(research_modes=[TWO_STEP]))
    service.submit_claim(api, debate.id, "Taxes rose 5 percent.")
    clock.now = month_start(clock.now).replace(month=clock.now.month % 12 + 1, year=clock.now.year + 1)
    assert service.submit_claim(api, debate.id, "Crime fell 10 percent.").created


def test_detected_claims_beyond_the_quota_are_shown_but_not_researched(
    store: Store, clock: FakeClock
) -> None:
    api, _ = newsroom(store, clock, claim_quota=1)
    service = make_service(store, clock)
    debate = service.create_debate(api, DebateSettings(research_modes=[TWO_STEP]))
    service.add_segments(
        api, debate.id, [segment("s1", "Taxes rose 5 percent."), segment("s2", "Crime fell 10.")]
    )
    first, second = service.list_claims(api, debate.id)
    assert (first.panels_done, second.panels_done, second.panels_pending) == (1, 0, 0)
    assert "research_refused" in [e.kind for e in service.events_after(api, debate.id)]


def test_research_cost_is_billed_to_the_submitter_until_the_spend_limit(
    store: Store, clock: FakeClock
) -> None:
    api, admin = newsroom(store, clock, spend_limit=1.0)
    research = ScriptedResearch(answers={TWO_STEP: lambda _c: sourced(TWO_STEP, Verdict.TRUE, cost=0.6)})
    service = make_service(store, clock, research)
    debate = service.create_debate(api, DebateSettings(research_modes=[TWO_STEP]))
    service.submit_claim(admin, debate.id, "Taxes rose 5 percent.")
    service.submit_claim(api, debate.id, "Crime fell 10 percent.")
    usage = AccessStore(store).usage(admin.organisation_id or 0)
    assert usage.claims == 2 and usage.spend == pytest.approx(1.2)
    claims = service.list_claims(api, debate.id)
    assert [c.research_cost for c in claims] == [0.6, 0.6]
    assert [service.claim_results(api, c.claim_id).panels[0].cost for c in claims] == [0.6, 0.6]
    with pytest.raises(SpendLimitReached) as refused:
        service.submit_claim(api, debate.id, "Wages grew 3 percent.")
    assert refused.value.http_status == 429


def test_a_token_without_organisation_or_plan_has_no_limits(store: Store, clock: FakeClock) -> None:
    loner = AccessStore(store).caller(TokenStore(store).create("loner", Role.API, clock.now).info)
    service = make_service(store, clock)
    debate = service.create_debate(loner, DebateSettings(research_modes=[AGENTIC]))
    for n in range(3):
        assert service.submit_claim(loner, debate.id, f"Taxes rose {n} percent.").panel_ids
