"""Query plans a model proposes, validated; the validated plan is what runs and what the report shows.

``plan_for_claim`` asks the model (when one is configured) for searches of the six kinds the planner knows
(``queries.QueryKind``). Each proposed search is checked, and dropped with its reason recorded when:

* its kind is not one of the six;
* its text is empty, longer than ``MAX_QUERY_CHARS`` characters or ``MAX_QUERY_WORDS`` words, or an
  alternative is longer than ``MAX_ALTERNATIVE_CHARS``;
* it or an alternative names X or Twitter or uses a ``site:`` operator (X search is never corroboration);
* a date is not a calendar date, ``since`` falls after ``until``, or ``until`` lies after the check's
  as-of date;
* it shares no word with the claim (a search about something else);
* it repeats an earlier search, or comes after the budget (``max_queries``) is spent.

The kinds the validated proposals leave uncovered are then filled with the deterministic planner's searches
of those kinds, in priority order, while the budget lasts. Offline, or when the model gives nothing usable,
the plan is ``plan_queries`` exactly. Either way the plan is returned with its ledger record
(``QueryPlan``), each search marked ``model`` or ``planner``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from icarus.claims.implied import checked_text
from icarus.ledger.assistance import AssistStep, ModelStep, PlannedSearch, QueryPlan
from icarus.ledger.claims import Claim
from icarus.llm.assist import ModelAssist
from icarus.llm.quarantine import data_block, quarantine
from icarus.research.queries import PRIORITY, PlannedQuery, QueryKind, plan_queries

__all__ = [
    "MAX_ALTERNATIVE_CHARS",
    "MAX_QUERY_CHARS",
    "MAX_QUERY_WORDS",
    "PlanOutcome",
    "QueryPlanAnswer",
    "plan_for_claim",
    "plan_record",
]

MAX_QUERY_CHARS = 200
MAX_QUERY_WORDS = 32
"""Search engines cap query length; the planner's own close-wording query stops at the same count."""
MAX_ALTERNATIVE_CHARS = 40
MAX_ALTERNATIVES = 8
MAX_PROPOSED_QUERIES = 24

_WORD = re.compile(r"\w+")
_TASK = (
    "You plan web searches that find evidence for and against one claim, for a fact-checking engine. Use "
    "these kinds: close_wording (the claim's own words), normalized (a neutral restatement), refutation "
    "(with words such as false, debunked), event_dated (bounded by the event's dates), primary_source "
    "(the official record or dataset) and correction (corrections and retractions). Plain words and "
    "double-quoted phrases only; no site: operators; never search X or Twitter. Dates are YYYY-MM-DD or null."
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _ProposedQuery(_Strict):
    kind: str = Field(max_length=32)
    text: str = Field(max_length=MAX_QUERY_CHARS * 2)
    any_of: list[str] = Field(max_length=MAX_ALTERNATIVES * 2)
    since: str | None = Field(max_length=32)
    until: str | None = Field(max_length=32)


class QueryPlanAnswer(_Strict):
    """What the model must return: the searches it proposes, most useful first."""

    queries: list[_ProposedQuery] = Field(max_length=MAX_PROPOSED_QUERIES)


@dataclass(frozen=True, slots=True)
class PlanOutcome:
    """The searches to run, the plan's ledger record, and the model step's record (None offline)."""

    queries: list[PlannedQuery]
    plan: QueryPlan
    step: ModelStep | None


def plan_record(claim_id: str, queries: list[PlannedQuery], by_model: set[int] | None = None) -> QueryPlan:
    """The ledger's record of a plan; ``by_model`` holds the positions of the model's searches."""
    chosen = by_model or set()
    return QueryPlan(
        claim_id=claim_id,
        searches=[
            PlannedSearch(
                kind=query.kind.value,
                text=query.text,
                any_of=list(query.any_of),
                since=query.since,
                until=query.until,
                proposed_by="model" if n in chosen else "planner",
            )
            for n, query in enumerate(queries)
        ],
    )


def plan_for_claim(
    claim: Claim, as_of: datetime, max_queries: int, assist: ModelAssist | None = None
) -> PlanOutcome:
    """The validated plan for ``claim``: the model's checked searches topped up by the planner's, or the
    planner's alone offline. An implied claim is planned from its statement."""
    planned_claim = (
        claim if claim.implication is None else claim.model_copy(update={"text": checked_text(claim)})
    )
    fallback = plan_queries(planned_claim, as_of, max_queries)
    if assist is None or max_queries <= 0:
        return PlanOutcome(fallback, plan_record(claim.claim_id, fallback), None)
    text = quarantine(checked_text(claim)).text
    blocks = [
        f"Claim id: {claim.claim_id}. Check as of {as_of.astimezone(UTC).date().isoformat()}.",
        f"At most {max_queries} searches.",
        data_block(f"claim {claim.claim_id}", text),
    ]
    asked = assist.ask(AssistStep.QUERY_PLAN, _TASK, blocks, QueryPlanAnswer, claim_id=claim.claim_id)
    if asked.answer is None:
        return PlanOutcome(fallback, plan_record(claim.claim_id, fallback), asked.record())
    accepted, rejected = _validate(
        asked.answer, checked_text(claim), as_of.astimezone(UTC).date(), max_queries
    )
    if not accepted:
        return PlanOutcome(
            fallback, plan_record(claim.claim_id, fallback), asked.record(rejected, used=False)
        )
    covered = {query.kind for query in accepted}
    seen = {_signature(query) for query in accepted}
    queries = list(accepted)
    for query in fallback:
        if len(queries) >= max_queries:
            break
        if query.kind not in covered and _signature(query) not in seen:
            queries.append(query)
    queries.sort(key=lambda query: PRIORITY.index(query.kind))  # stable: the model's order within a kind
    by_model = {n for n, query in enumerate(queries) if any(query is chosen for chosen in accepted)}
    return PlanOutcome(queries, plan_record(claim.claim_id, queries, by_model), asked.record(rejected))


def _signature(query: PlannedQuery) -> tuple[str, tuple[str, ...], date | None, date | None]:
    return (query.text.casefold(), query.any_of, query.since, query.until)


def _validate(
    answer: QueryPlanAnswer, claim_text: str, as_of_day: date, max_queries: int
) -> tuple[list[PlannedQuery], list[str]]:
    claim_words = {word.casefold() for word in _WORD.findall(claim_text) if len(word) > 2 or word.isdigit()}
    kinds = {kind.value: kind for kind in QueryKind}
    accepted: list[PlannedQuery] = []
    rejected: list[str] = []
    seen: set[tuple[str, tuple[str, ...], date | None, date | None]] = set()
    for n, proposal in enumerate(answer.queries, start=1):
        problem, query = _check(proposal, kinds, claim_words, as_of_day)
        if query is not None and _signature(query) in seen:
            problem, query = "it repeats an earlier search", None
        if query is not None and len(accepted) >= max_queries:
            problem, query = f"beyond the budget of {max_queries} searches", None
        if query is None:
            rejected.append(f"search {n}: {problem}")
            continue
        seen.add(_signature(query))
        accepted.append(query)
    return accepted, rejected


def _check(
    proposal: _ProposedQuery, kinds: dict[str, QueryKind], claim_words: set[str], as_of_day: date
) -> tuple[str, PlannedQuery | None]:
    kind = kinds.get(proposal.kind)
    if kind is None:
        return f"kind {proposal.kind[:32]!r} is not one of the six", None
    text = " ".join(proposal.text.split())
    if not text:
        return "its text is empty", None
    if len(text) > MAX_QUERY_CHARS or len(text.split()) > MAX_QUERY_WORDS:
        return f"its text is longer than {MAX_QUERY_CHARS} characters or {MAX_QUERY_WORDS} words", None
    alternatives = tuple(" ".join(term.split()) for term in proposal.any_of if term.strip())
    if len(alternatives) > MAX_ALTERNATIVES or any(
        len(term) > MAX_ALTERNATIVE_CHARS for term in alternatives
    ):
        return f"more than {MAX_ALTERNATIVES} alternatives, or one longer than {MAX_ALTERNATIVE_CHARS}", None
    try:
        since = date.fromisoformat(proposal.since) if proposal.since else None
        until = date.fromisoformat(proposal.until) if proposal.until else None
    except ValueError:
        return "a date is not a calendar date (YYYY-MM-DD)", None
    if since is not None and until is not None and since > until:
        return "its since date falls after its until date", None
    latest = until or since
    if latest is not None and latest > as_of_day:
        return "it asks for material dated after the check's as-of date", None
    try:
        query = PlannedQuery(kind=kind, text=text, any_of=alternatives, since=since, until=until)
        for term in alternatives:
            PlannedQuery(kind=kind, text=term)
    except ValidationError:
        return "it names X/Twitter or uses a site: operator", None
    if not claim_words & {word.casefold() for word in _WORD.findall(text)}:
        return "it shares no word with the claim", None
    return "", query
