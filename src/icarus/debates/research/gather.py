"""The research steps the methods share: search, read, judge, check scope, score, corroborate, summarise.

One question (the whole claim, or one part of it) is researched by ``investigate``: its searches run on
the services' providers within the meter's budget (``run_searches``), each hit becomes an evidence item as a
check makes it (``pipeline.check.evidence_from_hit``), the judge reads each against the question
(``pipeline.check.judge_evidence``), documents measuring another quantity, place or period are set aside
(``icarus.debates.scope``), and so are documents not about the claim's subject at all
(``icarus.debates.relevance``); the rest form an Icarus ledger scored under the configured policy
(``score_ledger``), and the load-bearing figure's independent confirmations are counted
(``icarus.debates.corroboration``), with one extra search when only one confirms. ``panel_from`` turns
the findings into a ``Panel``; ``pending_panel`` is the answer when every main search failed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from icarus.claims import extract_figures
from icarus.claims.cues import claim_type, event_date, temporal_scope
from icarus.debates.citations import CitationContext, cite
from icarus.debates.corroboration import CorroborationCheck, assess_corroboration
from icarus.debates.model import (
    Citation,
    FigureEntry,
    OutOfScopeSource,
    Panel,
    ResearchDelay,
    ResearchMode,
    ScopeDecision,
    Verdict,
)
from icarus.debates.relevance import ClaimSubject, on_subject
from icarus.debates.research.base import BudgetMeter, ClaimToResearch, ResearchServices
from icarus.debates.scope import ClaimScope, ScopeCheck, check_scope, describe_set_aside
from icarus.fetching import FetchBudget
from icarus.judges import judge_all
from icarus.ledger import (
    CapturedField,
    Claim,
    EvidenceItem,
    FieldName,
    Ledger,
    Span,
    Subject,
    SubjectKind,
)
from icarus.ledger.judgments import ScopeAnswer, Stance
from icarus.lookups import enrich
from icarus.pipeline.check import DOCUMENTS_PER_QUERY, evidence_from_hit, judge_evidence, search_with
from icarus.pipeline.evidence import evidence_id_for
from icarus.provenance import ProvenanceGraph
from icarus.research import PlannedQuery, ProviderStatus, QueryKind, SearchHit, SearchProvider, plan_queries
from icarus.scoring.icarus.engine import provenance_graph, score_ledger
from icarus.scoring.icarus.panel_verdicts import panel_confidence, verdict_for_label
from icarus.scoring.labels import Label

__all__ = [
    "CONFIRMATION_TERMS",
    "QUESTION_CLAIM_ID",
    "Findings",
    "ProviderCall",
    "Scored",
    "SearchRound",
    "cite_all",
    "explain",
    "findings_trace",
    "follow_up",
    "investigate",
    "judge_items",
    "ledger_claim",
    "out_of_scope",
    "panel_from",
    "pending_panel",
    "read_hits",
    "run_searches",
    "score_items",
]

QUESTION_CLAIM_ID: Final = "c1"
MAIN_QUERIES: Final = 6  # every kind plan_queries knows, once each
_BUDGET_NOTE: Final = "research budget spent"
CONFIRMATION_TERMS: Final = ("confirmed", "announced", "statement", "according to")


def ledger_claim(text: str, as_of: datetime, claim_id: str = QUESTION_CLAIM_ID) -> tuple[Subject, Claim]:
    """The question as a text subject and one whole claim of it, read as claim extraction reads a clause:
    its figures, tense, type and event date."""
    digest = hashlib.sha256(f"{text}\n{as_of.isoformat()}".encode()).hexdigest()[:16]
    subject = Subject(
        kind=SubjectKind.TEXT,
        subject_id=f"debate-claim:{digest}",
        captured_at=as_of,
        fields=[CapturedField(name=FieldName.PLAIN_TEXT, text=text, artifact_id=f"debate-claim:{digest}")],
    )
    claim = Claim(
        claim_id=claim_id,
        source_field=FieldName.PLAIN_TEXT,
        span=Span(start=0, end=len(text)),
        text=text,
        temporal_scope=temporal_scope(text, text),
        claim_type=claim_type(text),
        event_date=event_date(text),
        figures=extract_figures(text, 0, len(text)),
    )
    return subject, claim


# --- searching -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProviderCall:
    provider: str
    query: str
    status: str  # ok | error | not_run (``not_run`` with _BUDGET_NOTE when the budget stopped it)
    hits: int
    detail: str = ""


@dataclass
class SearchRound:
    """The searches of one round: what was asked, of whom, what came back."""

    queries: list[PlannedQuery] = field(default_factory=list)
    hits: list[SearchHit] = field(default_factory=list)
    calls: list[ProviderCall] = field(default_factory=list)

    @property
    def attempted(self) -> list[ProviderCall]:
        return [call for call in self.calls if call.detail != _BUDGET_NOTE]

    @property
    def unavailable(self) -> bool:
        """Every search sent failed or could not run: no provider answered. A search that answered with
        no hits is an answer."""
        attempted = self.attempted
        return bool(attempted) and not any(call.status == ProviderStatus.OK.value for call in attempted)


def run_searches(
    queries: Sequence[PlannedQuery],
    providers: Sequence[SearchProvider],
    meter: BudgetMeter,
    limit: int = DOCUMENTS_PER_QUERY,
) -> SearchRound:
    """Each query on each provider while the budget lasts; hits deduplicated by URL, in the order found."""
    found = SearchRound(queries=list(queries))
    seen: set[str] = set()
    for query in queries:
        for provider in providers:
            name = getattr(provider, "name", type(provider).__name__)
            if not meter.can_search():
                found.calls.append(ProviderCall(name, query.text, "not_run", 0, _BUDGET_NOTE))
                continue
            meter.spend_search()
            result = search_with(provider, query)
            found.calls.append(
                ProviderCall(
                    result.provider, query.text, result.status.value, len(result.hits), result.detail
                )
            )
            for hit in result.hits:
                if hit.url not in seen:
                    seen.add(hit.url)
                    found.hits.append(hit)
    return found


# --- reading, judging, scoring ----------------------------------------------------------------------------


def read_hits(
    hits: Sequence[SearchHit],
    claim: Claim,
    services: ResearchServices,
    meter: BudgetMeter,
    as_of: datetime,
    skip: set[str] | None = None,
) -> list[EvidenceItem]:
    """An evidence item per hit not in ``skip`` (evidence ids), one page of the budget each, as a check
    reads them: the fetched page where a fetcher is configured, else the provider's text or snippet."""
    skip = skip if skip is not None else set()
    check = services.check_services(meter)
    fetch_budget = FetchBudget(max(0, meter.budget.max_pages - meter.pages), max(0.0, meter.seconds_left()))
    items: list[EvidenceItem] = []
    for hit in hits:
        if evidence_id_for(hit.url) in skip:
            continue
        if not meter.can_read_page():
            break
        meter.spend_page()
        item = evidence_from_hit(hit, claim, check, as_of, fetch_budget)
        if item is not None:
            skip.add(item.evidence_id)
            items.append(item)
    return items


def judge_items(
    items: Sequence[EvidenceItem], claim: Claim, services: ResearchServices
) -> list[EvidenceItem]:
    """Each item judged against the question, as a check judges its evidence."""
    return judge_all(services.judge, lambda judge, item: judge_evidence(item, [claim], judge), list(items))


@dataclass(frozen=True)
class Scored:
    """A question's ledger, its scored result and what the panel reads of it."""

    ledger: Ledger
    result: dict[str, Any]
    graph: ProvenanceGraph
    label: Label
    confidence: float
    reason: str
    origins: dict[str, str]  # cluster id -> elected origin evidence id


def score_items(
    subject: Subject, claim: Claim, items: Sequence[EvidenceItem], services: ResearchServices, as_of: datetime
) -> Scored:
    """The ledger of ``items`` for ``claim``, enriched and scored under the services' policy."""
    ledger = Ledger(
        ledger_id=f"debate-{subject.subject_id.rsplit(':', 1)[-1]}",
        as_of=as_of,
        subject=subject,
        claims=[claim],
        evidence=sorted(items, key=lambda item: item.evidence_id),
    )
    ledger = enrich(ledger, services.lookups, services.policy)
    graph = provenance_graph(ledger, services.policy)
    result = score_ledger(ledger, services.policy, graph)
    published = result["claims"][0]
    traced = result["trace"]["claims"][0]
    last_pass = traced["passes"][-1] if traced.get("passes") else {}
    origins = {c["cluster_id"]: c["origin"] for c in last_pass.get("clusters", []) if c.get("origin")}
    reasons = published.get("reasons") or [{"message": ""}]
    confidence = panel_confidence(traced.get("confidence", {}).get("score"), published.get("band"))
    return Scored(
        ledger=ledger,
        result=result,
        graph=graph,
        label=Label(published["label"]),
        confidence=float(confidence),
        reason=str(reasons[0]["message"]),
        origins=origins,
    )


# --- one question ----------------------------------------------------------------------------------------


@dataclass
class Findings:
    """Everything one question's research found, and what was made of it."""

    question: str
    subject: Subject
    claim: Claim
    rounds: list[SearchRound] = field(default_factory=list)
    judged: list[EvidenceItem] = field(default_factory=list)
    scope: dict[str, ScopeCheck] = field(default_factory=dict)
    search_rows: dict[str, SearchHit] = field(default_factory=dict)
    scored: Scored | None = None
    corroboration: CorroborationCheck | None = None

    @property
    def kept(self) -> list[EvidenceItem]:
        return [item for item in self.judged if self._kept(item)]

    @property
    def set_aside(self) -> list[EvidenceItem]:
        return [item for item in self.judged if not self._kept(item)]

    def _kept(self, item: EvidenceItem) -> bool:
        check = self.scope.get(item.evidence_id)
        return check is None or check.kept

    @property
    def unavailable(self) -> bool:
        """The main searches (the first round) all failed."""
        return bool(self.rounds) and self.rounds[0].unavailable


def investigate(
    question: str,
    claim: ClaimToResearch,
    services: ResearchServices,
    meter: BudgetMeter,
    *,
    queries: Sequence[PlannedQuery] | None = None,
    max_queries: int = MAIN_QUERIES,
    check_scope_of: bool = True,
    corroborate: bool = True,
) -> Findings:
    """Research ``question`` (the claim or a part of it) and score what was found."""
    subject, ledger_question = ledger_claim(question, claim.as_of)
    findings = Findings(question=question, subject=subject, claim=ledger_question)
    planned = (
        list(queries) if queries is not None else plan_queries(ledger_question, claim.said_at, max_queries)
    )
    _add_round(findings, planned, claim, services, meter, check_scope_of)
    if findings.unavailable:
        return findings
    _score(findings, claim, services, searched=False, corroborate=corroborate)
    check = findings.corroboration
    if corroborate and check is not None and check.needs_extra_search and meter.can_search():
        extra = _corroboration_query(check.block.element, ledger_question, claim.said_at)
        if extra is not None:
            _add_round(findings, [extra], claim, services, meter, check_scope_of)
            _score(findings, claim, services, searched=True, corroborate=True)
    return findings


def follow_up(
    findings: Findings,
    queries: Sequence[PlannedQuery],
    claim: ClaimToResearch,
    services: ResearchServices,
    meter: BudgetMeter,
    *,
    check_scope_of: bool = True,
) -> Findings:
    """Another round of searches for the same question; the new documents join and it is scored again."""
    if queries:
        _add_round(findings, queries, claim, services, meter, check_scope_of)
        searched = findings.corroboration.block.searched if findings.corroboration else False
        _score(findings, claim, services, searched=searched, corroborate=findings.corroboration is not None)
    return findings


def _add_round(
    findings: Findings,
    queries: Sequence[PlannedQuery],
    claim: ClaimToResearch,
    services: ResearchServices,
    meter: BudgetMeter,
    check_scope_of: bool,
) -> None:
    searched = run_searches(queries, services.providers, meter)
    findings.rounds.append(searched)
    for hit in searched.hits:
        findings.search_rows.setdefault(hit.url, hit)
    known = {item.evidence_id for item in findings.judged}
    new = read_hits(searched.hits, findings.claim, services, meter, claim.as_of, known)
    judged = judge_items(new, findings.claim, services)
    if check_scope_of:
        scope = ClaimScope.of(findings.question, claim.said_at, claim.text, claim.country)
        subject = ClaimSubject.of(findings.question, claim.text)
        for item in judged:
            judgment = item.judgment_for(findings.claim.claim_id)
            text = f"{item.title or ''}\n{item.text}"
            row = findings.search_rows.get(item.url)
            published = item.published_at or (row.published_at if row is not None else None)
            scoped = check_scope(scope, text, published, judgment.scope if judgment is not None else None)
            findings.scope[item.evidence_id] = on_subject(subject, text, scoped)
        judged = [_scope_settled(item, findings) for item in judged]
    findings.judged.extend(judged)


def _scope_settled(item: EvidenceItem, findings: Findings) -> EvidenceItem:
    """The item with the panel's scope decision in its judgment: a document found to measure the claim's
    quantity, place and period is in scope for the scorer too (H26), even where the judge read a differing
    value as a quantity mismatch; that value then counts for or against the claim."""
    check = findings.scope.get(item.evidence_id)
    judgment = item.judgment_for(findings.claim.claim_id)
    if check is None or check.decision is not ScopeDecision.SAME_SCOPE or judgment is None:
        return item
    if judgment.scope.matches:
        return item
    settled = judgment.model_copy(update={"scope": ScopeAnswer(matches=True, judge=judgment.scope.judge)})
    others = [j for j in item.judgments if j.claim_id != judgment.claim_id]
    return item.model_copy(update={"judgments": [*others, settled]})


def _score(
    findings: Findings,
    claim: ClaimToResearch,
    services: ResearchServices,
    *,
    searched: bool,
    corroborate: bool,
) -> None:
    kept = findings.kept
    findings.scored = score_items(findings.subject, findings.claim, kept, services, claim.as_of)
    if corroborate:
        rows = findings.search_rows
        findings.corroboration = assess_corroboration(
            findings.question,
            findings.claim.claim_id,
            kept,
            findings.scored.graph,
            searched=searched,
            published_of=lambda item: (
                item.published_at or (rows[item.url].published_at if item.url in rows else None)
            ),
        )


def _corroboration_query(element: str, question: Claim, as_of: datetime) -> PlannedQuery | None:
    """One narrow search for another independent source of the element: the question's primary-source
    terms with the figure as a phrase, or, for a named fact, with words of a confirmation instead of the
    primary-source words already searched."""
    planned = plan_queries(question, as_of, MAIN_QUERIES)
    primary = next((query for query in planned if query.kind is QueryKind.PRIMARY_SOURCE), None)
    if primary is None:
        return None
    try:
        if element != question.text.strip():
            return PlannedQuery(kind=primary.kind, text=f'"{element}" {primary.text}', any_of=primary.any_of)
        return PlannedQuery(kind=primary.kind, text=primary.text, any_of=CONFIRMATION_TERMS)
    except ValueError:
        return None


# --- panels ----------------------------------------------------------------------------------------------


def pending_panel(mode: ResearchMode, rounds: Sequence[SearchRound]) -> Panel:
    """Research could not start: every main search failed. Retried later; never a verdict."""
    return Panel(
        research_mode=mode,
        verdict=Verdict.PENDING,
        confidence=0.0,
        explanation="Search is unavailable: every search provider failed or could not be reached. "
        "The claim will be researched again.",
        research_delay_reason=ResearchDelay.SEARCH_UNAVAILABLE,
        trace={"searches": _calls_trace(rounds)},
    )


def panel_from(
    findings: Findings, claim: ClaimToResearch, services: ResearchServices, mode: ResearchMode
) -> Panel:
    """The panel for one researched question."""
    if findings.unavailable or findings.scored is None:
        return pending_panel(mode, findings.rounds)
    scored = findings.scored
    verdict = Verdict(verdict_for_label(scored.label.value))
    confidence = scored.confidence
    capped = False
    sentences = [explain(findings)]
    corroboration = None
    figures: list[FigureEntry] = []
    if findings.corroboration is not None:
        check = findings.corroboration
        if verdict is Verdict.TRUE:
            confidence, capped = check.capped_confidence(confidence)
        corroboration = check.block.model_copy(update={"capped": capped})
        figures = check.figures_found
        sentences.append(check.explanation(capped=capped))
    return Panel(
        research_mode=mode,
        verdict=verdict,
        confidence=round(confidence, 4),
        explanation=" ".join(s for s in sentences if s),
        sources=cite_all(findings, claim, services),
        out_of_scope_sources=out_of_scope(findings),
        corroboration=corroboration,
        figures_found=figures,
        trace=findings_trace(findings),
    )


def cite_all(findings: Findings, claim: ClaimToResearch, services: ResearchServices) -> list[Citation]:
    """A citation per admitted (in-scope) document the judge read as supporting or refuting the question,
    most trusted first. Admitted documents that speak to neither stay in the ledger, uncited."""
    if findings.scored is None:
        return []
    context = CitationContext(
        claim_id=findings.claim.claim_id,
        registry=services.registry,
        graph=findings.scored.graph,
        origins=findings.scored.origins,
        search_rows=findings.search_rows,
        speaker=claim.speaker,
    )
    cited = [
        cite(
            item,
            context,
            findings.scope[item.evidence_id].decision if item.evidence_id in findings.scope else None,
        )
        for item in findings.kept
        if _speaks_to(item, findings.claim.claim_id)
    ]
    return sorted(cited, key=lambda c: (-c.trust, c.url))


def _speaks_to(item: EvidenceItem, claim_id: str) -> bool:
    judgment = item.judgment_for(claim_id)
    return judgment is not None and judgment.stance.stance is not Stance.NEUTRAL


def out_of_scope(findings: Findings) -> list[OutOfScopeSource]:
    return [
        OutOfScopeSource(
            url=item.url,
            domain=item.domain,
            title=item.title or "",
            scope_decision=findings.scope[item.evidence_id].decision,
            measures=findings.scope[item.evidence_id].measures,
        )
        for item in findings.set_aside
    ]


def explain(findings: Findings) -> str:
    """What the evidence says, in words: the scorer's reason, how many sources, what was set aside."""
    assert findings.scored is not None
    scored = findings.scored
    if not findings.judged:
        return "No document found speaks to the claim."
    if not findings.kept:
        return describe_set_aside(findings.scope[item.evidence_id].measures for item in findings.set_aside)
    sentence = f"{scored.label.heading}: {scored.reason}." if scored.reason else f"{scored.label.heading}."
    check = findings.corroboration
    if check is not None and check.block.confirming:
        official = " including an official source" if check.block.official_source else ""
        sentence += (
            f" {check.block.independent_confirmations} independent confirmation(s) of "
            f"{check.block.element}{official}."
        )
    if findings.set_aside:
        sentence += f" {len(findings.set_aside)} document(s) set aside as measuring something else."
    return sentence


def findings_trace(findings: Findings) -> dict[str, Any]:
    scored = findings.scored
    return {
        "question": findings.question,
        "searches": _calls_trace(findings.rounds),
        "documents": {
            "read": len(findings.judged),
            "admitted": len(findings.kept),
            "set_aside": len(findings.set_aside),
        },
        "policy": scored.result["policy"] if scored else None,
        "label": scored.label.value if scored else None,
        "band": scored.result["claims"][0].get("band") if scored else None,
        "ledger_hash": scored.result.get("ledger_hash") if scored else None,
    }


def _calls_trace(rounds: Sequence[SearchRound]) -> list[dict[str, Any]]:
    return [
        {
            "round": index,
            "provider": c.provider,
            "query": c.query,
            "status": c.status,
            "hits": c.hits,
            "detail": c.detail,
        }
        for index, searched in enumerate(rounds)
        for c in searched.calls
    ]
