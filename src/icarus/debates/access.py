"""Who may do what with debates: organisations, plans, the caller, quotas and spend.

A token belongs to at most one organisation; a debate belongs to the organisation of the token that
created it and is visible only inside it (admins see every debate). An organisation's plan lists the
research methods its tokens may run, a monthly claim quota (claims researched) and a monthly spend limit
(research cost of the panels billed to it). Administrators may run any method; quotas and spend limits
still apply to them. A token without an organisation, or an organisation without a plan, has no limits:
that is the single-newsroom installation.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from sqlalchemy import distinct, func, select
from sqlalchemy.orm import Session

from icarus.debates.errors import MethodNotInPlan, NotAllowed, QuotaExceeded, SpendLimitReached
from icarus.debates.model import ResearchMode
from icarus.store.debate_tables import DebatePanelRecord, OrganisationRecord, PlanRecord, TokenOrganisation
from icarus.store.repository import NotFound, Store
from icarus.store.tables import ApiToken
from icarus.store.tokens import Role, TokenInfo

__all__ = [
    "ALL_METHODS",
    "AccessStore",
    "Caller",
    "Organisation",
    "Plan",
    "Usage",
    "check_budget",
    "check_methods",
    "month_start",
    "plan_for_organisation",
    "plan_of",
    "usage",
]

ALL_METHODS: Final = tuple(ResearchMode)


@dataclass(frozen=True)
class Plan:
    """What an organisation may run: these methods, this many claims and this much research cost a month
    (None: no limit)."""

    id: int
    name: str
    methods: tuple[ResearchMode, ...]
    claim_quota: int | None = None
    spend_limit: float | None = None


@dataclass(frozen=True)
class Organisation:
    id: int
    name: str
    plan: Plan | None


@dataclass(frozen=True)
class Caller:
    """Whoever calls the debate service: a token (or the local operator), its organisation and plan."""

    token_id: int | None
    organisation_id: int | None
    role: Role
    plan: Plan | None = None

    @property
    def is_admin(self) -> bool:
        return self.role is Role.ADMIN

    def require(self, needed: Role, action: str) -> None:
        if not self.role.allows(needed):
            raise NotAllowed(f"{action} needs the {needed.value} role, not {self.role.value}")

    def may_see(self, organisation_id: int | None) -> bool:
        return self.is_admin or organisation_id == self.organisation_id

    @classmethod
    def operator(cls) -> Caller:
        """The local operator (the CLI on the machine that holds the database): an admin of nothing."""
        return cls(token_id=None, organisation_id=None, role=Role.ADMIN)


@dataclass(frozen=True)
class Usage:
    """An organisation's claims researched and research cost billed since ``since``."""

    since: datetime
    claims: int
    spend: float


def month_start(now: datetime) -> datetime:
    return now.astimezone(UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def check_methods(caller: Caller, modes: Iterable[ResearchMode]) -> None:
    """Administrators run any method; everyone else only their plan's (no plan: every method)."""
    if caller.is_admin or caller.plan is None:
        return
    refused = [m.value for m in modes if m not in caller.plan.methods]
    if refused:
        raise MethodNotInPlan(refused)


def usage(session: Session, organisation_id: int, now: datetime) -> Usage:
    since = month_start(now)
    billed = (
        DebatePanelRecord.billed_organisation_id == organisation_id,
        DebatePanelRecord.created_at >= since,
    )
    claims = session.scalar(select(func.count(distinct(DebatePanelRecord.claim_id))).where(*billed)) or 0
    spend = session.scalar(select(func.coalesce(func.sum(DebatePanelRecord.cost), 0.0)).where(*billed)) or 0.0
    return Usage(since, int(claims), float(spend))


def check_budget(
    session: Session, organisation_id: int | None, plan: Plan | None, now: datetime, *, new_claim: bool
) -> None:
    """Refuse research once the organisation's spend limit is reached, or a new claim beyond its quota."""
    if organisation_id is None or plan is None or (plan.claim_quota is None and plan.spend_limit is None):
        return
    used = usage(session, organisation_id, now)
    if new_claim and plan.claim_quota is not None and used.claims >= plan.claim_quota:
        raise QuotaExceeded(plan.claim_quota)
    if plan.spend_limit is not None and used.spend >= plan.spend_limit:
        raise SpendLimitReached(plan.spend_limit, used.spend)


class AccessStore:
    """Organisations, plans and which token belongs where."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def create_plan(
        self,
        name: str,
        methods: Sequence[ResearchMode],
        *,
        claim_quota: int | None = None,
        spend_limit: float | None = None,
    ) -> Plan:
        if claim_quota is not None and claim_quota < 0:
            raise ValueError("a claim quota is not negative")
        if spend_limit is not None and spend_limit < 0:
            raise ValueError("a spend limit is not negative")
        now = self.store.clock()

        def work(session: Session) -> Plan:
            row = PlanRecord(
                name=name,
                methods_json=json.dumps([ResearchMode(m).value for m in methods]),
                claim_quota=claim_quota,
                spend_limit=spend_limit,
                created_at=now,
            )
            session.add(row)
            session.flush()
            return plan_of(row)

        return self.store.transaction(work)

    def create_organisation(self, name: str, plan_id: int | None = None) -> Organisation:
        now = self.store.clock()

        def work(session: Session) -> Organisation:
            row = OrganisationRecord(name=name, plan_id=plan_id, created_at=now)
            session.add(row)
            session.flush()
            return _organisation(session, row)

        return self.store.transaction(work)

    def set_plan(self, organisation_id: int, plan_id: int | None) -> Organisation:
        def work(session: Session) -> Organisation:
            row = session.get(OrganisationRecord, organisation_id)
            if row is None:
                raise NotFound(f"no organisation {organisation_id}")
            row.plan_id = plan_id
            return _organisation(session, row)

        return self.store.transaction(work)

    def assign_token(self, token_id: int, organisation_id: int) -> None:
        """Make ``token_id`` a member of ``organisation_id`` (moving it if it belonged elsewhere)."""

        def work(session: Session) -> None:
            if session.get(ApiToken, token_id) is None:
                raise NotFound(f"no token {token_id}")
            if session.get(OrganisationRecord, organisation_id) is None:
                raise NotFound(f"no organisation {organisation_id}")
            link = session.get(TokenOrganisation, token_id)
            if link is None:
                session.add(TokenOrganisation(token_id=token_id, organisation_id=organisation_id))
            else:
                link.organisation_id = organisation_id

        self.store.transaction(work)

    def organisation(self, organisation_id: int) -> Organisation:
        with self.store.reading() as session:
            row = session.get(OrganisationRecord, organisation_id)
            if row is None:
                raise NotFound(f"no organisation {organisation_id}")
            return _organisation(session, row)

    def organisations(self) -> list[Organisation]:
        with self.store.reading() as session:
            rows = session.scalars(select(OrganisationRecord).order_by(OrganisationRecord.id)).all()
            return [_organisation(session, row) for row in rows]

    def caller(self, token: TokenInfo) -> Caller:
        """The caller a live token stands for: its role, organisation and the organisation's plan."""
        with self.store.reading() as session:
            link = session.get(TokenOrganisation, token.id)
            if link is None:
                return Caller(token_id=token.id, organisation_id=None, role=token.role)
            org = session.get(OrganisationRecord, link.organisation_id)
            plan = _plan_by_id(session, org.plan_id if org is not None else None)
            return Caller(token_id=token.id, organisation_id=link.organisation_id, role=token.role, plan=plan)

    def usage(self, organisation_id: int) -> Usage:
        with self.store.reading() as session:
            return usage(session, organisation_id, self.store.clock())


def plan_of(row: PlanRecord) -> Plan:
    return Plan(
        id=row.id,
        name=row.name,
        methods=tuple(ResearchMode(m) for m in json.loads(row.methods_json)),
        claim_quota=row.claim_quota,
        spend_limit=row.spend_limit,
    )


def _plan_by_id(session: Session, plan_id: int | None) -> Plan | None:
    if plan_id is None:
        return None
    row = session.get(PlanRecord, plan_id)
    return plan_of(row) if row is not None else None


def _organisation(session: Session, row: OrganisationRecord) -> Organisation:
    return Organisation(id=row.id, name=row.name, plan=_plan_by_id(session, row.plan_id))


def plan_for_organisation(session: Session, organisation_id: int | None) -> Plan | None:
    """The plan research billed to ``organisation_id`` runs under (None: no organisation or no plan)."""
    if organisation_id is None:
        return None
    row = session.get(OrganisationRecord, organisation_id)
    return _plan_by_id(session, row.plan_id) if row is not None else None
