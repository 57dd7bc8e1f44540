"""agentic: an iterative, tool-using research loop with three tools: search, open a result, finish.

Each step picks one action. With an OpenAI-compatible LLM configured, the model picks it through a strict
JSON action schema (``llm.AgentAction``); an answer that is malformed, oversized, injected or names a
result it was not offered is rejected, recorded in the trace, and the offline rule picks that step
instead. Offline, the rule drives the whole loop:

1. search the claim's own wording first;
2. stop once ``ENOUGH_INDEPENDENT`` publishers (registered domains) read the same way, or an official
   primary source supports or refutes the claim;
3. otherwise open the best-ranked unread result;
4. with nothing left to read, reformulate: the next query of the plan, which narrows to the claim's
   figure, named entities or period (``research.plan_queries``: normalized, refutation, event-dated,
   primary-source, correction);
5. stop when the plan is spent, or at the first budget limit (searches, pages, depth = search rounds
   after the first, seconds) or ``MAX_STEPS``.

Whatever stopped it, the documents read are scope-checked, scored under the configured policy as an
Icarus ledger, corroboration counted, and summarised as the panel; the trace lists every step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from icarus.debates.corroboration import assess_corroboration
from icarus.debates.model import Panel, ResearchMode
from icarus.debates.relevance import ClaimSubject, on_subject
from icarus.debates.research.base import BudgetMeter, ClaimToResearch, ResearchServices
from icarus.debates.research.gather import (
    Findings,
    SearchRound,
    judge_items,
    ledger_claim,
    panel_from,
    pending_panel,
    read_hits,
    run_searches,
    score_items,
)
from icarus.debates.research.llm import CallOutcome, DebateLLM, debate_llm
from icarus.debates.scope import ClaimScope, check_scope
from icarus.ledger import EvidenceItem, SourceClass, Stance
from icarus.provenance.canonical import registered_domain
from icarus.research import PlannedQuery, ProviderStatus, QueryKind, SearchHit, plan_queries

__all__ = [
    "ENOUGH_INDEPENDENT",
    "MAX_STEPS",
    "RESULTS_SHOWN",
    "STANCE_FLOOR",
    "admit",
    "enough_evidence",
    "rescore",
    "research",
    "searches_unavailable",
    "stance_line",
]

MAX_STEPS: Final = 48
"""A hard stop for the loop whatever the budget says: no research needs more steps than this."""
ENOUGH_INDEPENDENT: Final = 2
"""Publishers (registered domains) reading the claim the same way that settle it for the loop."""
STANCE_FLOOR: Final = 0.5
"""A judge's support or refute below this confidence does not count towards settling the claim."""
RESULTS_SHOWN: Final = 8
"""Unread results shown to the LLM at each step, best-ranked first."""
PLANNED_QUERIES: Final = 6  # every kind the planner knows


# --- evidence steps shared with ricochet -----------------------------------------------------------------


def admit(
    findings: Findings, items: Sequence[EvidenceItem], claim: ClaimToResearch, services: ResearchServices
) -> list[EvidenceItem]:
    """Judge ``items`` against the question, check each one's scope, and add them to ``findings``."""
    if not items:
        return []
    scope = ClaimScope.of(findings.question, claim.said_at)
    subject = ClaimSubject.of(findings.question, claim.text)
    judged = judge_items(items, findings.claim, services)
    for item in judged:
        judgment = item.judgment_for(findings.claim.claim_id)
        row = findings.search_rows.get(item.url)
        published = item.published_at or (row.published_at if row is not None else None)
        text = f"{item.title or ''}\n{item.text}"
        findings.scope[item.evidence_id] = on_subject(
            subject, text, check_scope(scope, text, published, judgment.scope if judgment else None)
        )
    findings.judged.extend(judged)
    return judged


def rescore(findings: Findings, claim: ClaimToResearch, services: ResearchServices) -> None:
    """Score the admitted documents as one ledger and count the figure's independent confirmations."""
    kept = findings.kept
    findings.scored = score_items(findings.subject, findings.claim, kept, services, claim.as_of)
    rows = findings.search_rows
    findings.corroboration = assess_corroboration(
        findings.question,
        findings.claim.claim_id,
        kept,
        findings.scored.graph,
        searched=False,
        published_of=lambda item: (
            item.published_at or (rows[item.url].published_at if item.url in rows else None)
        ),
    )


def searches_unavailable(rounds: Sequence[SearchRound]) -> bool:
    """Every search sent failed: research could not start (a search that found nothing did not fail)."""
    attempted = [call for searched in rounds for call in searched.attempted]
    return bool(attempted) and not any(call.status == ProviderStatus.OK.value for call in attempted)


def enough_evidence(findings: Findings) -> bool:
    """Whether the admitted documents already settle the claim for a navigating loop: an official primary
    source reads it one way, or ``ENOUGH_INDEPENDENT`` publishers read it the same way."""
    domains: dict[Stance, set[str]] = {Stance.SUPPORT: set(), Stance.REFUTE: set()}
    for item in findings.kept:
        judgment = item.judgment_for(findings.claim.claim_id)
        if judgment is None or judgment.stance.stance not in domains:
            continue
        if float(judgment.stance.confidence) < STANCE_FLOOR:
            continue
        if item.source_class is SourceClass.PRIMARY_OFFICIAL:
            return True
        domains[judgment.stance.stance].add(registered_domain(item.domain) if item.domain else item.url)
    return any(len(found) >= ENOUGH_INDEPENDENT for found in domains.values())


def stance_line(item: EvidenceItem, claim_id: str) -> str:
    judgment = item.judgment_for(claim_id)
    stance = judgment.stance.stance.value if judgment is not None else "neutral"
    return f"{item.domain or item.url}: read as {stance}"


def _signature(query: PlannedQuery) -> tuple[object, ...]:
    """What makes two searches the same search: words, alternatives and date bounds (not the kind)."""
    return (query.text.casefold(), query.any_of, query.since, query.until)


# --- the loop --------------------------------------------------------------------------------------------


@dataclass
class _Agent:
    claim: ClaimToResearch
    services: ResearchServices
    meter: BudgetMeter
    findings: Findings
    llm: DebateLLM | None
    plan: list[PlannedQuery]
    unread: list[SearchHit] = field(default_factory=list)
    searched: set[tuple[object, ...]] = field(default_factory=set)
    history: list[str] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    llm_down: bool = False

    # tools ---------------------------------------------------------------------------------------------

    def search(self, query: PlannedQuery) -> dict[str, Any]:
        depth = len(self.findings.rounds)
        if not self.meter.can_go_deeper(depth) or not self.meter.can_search():
            return {"result": "budget spent"}
        self.searched.add(_signature(query))
        found = run_searches([query], self.services.providers, self.meter)
        self.findings.rounds.append(found)
        known = {hit.url for hit in self.unread} | {item.url for item in self.findings.judged}
        new = [hit for hit in found.hits if hit.url not in known]
        for hit in new:
            self.findings.search_rows.setdefault(hit.url, hit)
        self.unread.extend(new)
        self.history.append(f"searched {query.text!r}: {len(new)} new results")
        return {"result": f"{len(new)} new results", "providers": [c.status for c in found.calls]}

    def open(self, hit: SearchHit) -> dict[str, Any]:
        self.unread.remove(hit)
        known = {item.evidence_id for item in self.findings.judged}
        items = read_hits([hit], self.findings.claim, self.services, self.meter, self.claim.as_of, known)
        judged = admit(self.findings, items, self.claim, self.services)
        if not judged:
            self.history.append(f"opened {hit.url}: nothing readable")
            return {"result": "nothing readable"}
        line = stance_line(judged[0], self.findings.claim.claim_id)
        self.history.append(f"opened {line}")
        return {"result": line}

    # choosing ------------------------------------------------------------------------------------------

    def next_planned(self) -> PlannedQuery | None:
        while self.plan:
            query = self.plan.pop(0)
            if _signature(query) not in self.searched:
                return query
        return None

    def rule(self) -> tuple[str, PlannedQuery | SearchHit | None, str]:
        if not self.findings.rounds:
            query = self.next_planned()
            return ("search", query, "search the claim") if query else ("finish", None, "nothing to search")
        if enough_evidence(self.findings):
            return "finish", None, "enough independent evidence"
        if self.unread and self.meter.can_read_page():
            return "open", self.unread[0], "best unread result"
        if self.meter.can_search() and self.meter.can_go_deeper(len(self.findings.rounds)):
            query = self.next_planned()
            if query is not None:
                return "search", query, f"evidence thin: reformulate ({query.kind.value})"
        return "finish", None, "budget or plan spent"

    def ask_llm(self, step: dict[str, Any]) -> tuple[str, PlannedQuery | SearchHit | None, str] | None:
        assert self.llm is not None
        shown = self.unread[:RESULTS_SHOWN]
        ids = {f"R{i + 1}": hit for i, hit in enumerate(shown)}
        budget = (
            f"{self.meter.budget.max_searches - self.meter.searches} searches, "
            f"{self.meter.budget.max_pages - self.meter.pages} pages, {self.meter.seconds_left():.0f} s"
        )
        calls_before = len(self.llm.calls)
        answer = self.llm.next_action(
            self.claim.text,
            [(rid, hit.domain, hit.title, hit.snippet) for rid, hit in ids.items()],
            self.history,
            budget,
            timeout_s=self.meter.seconds_left(),
        )
        if answer is None:
            call = self.llm.calls[calls_before] if len(self.llm.calls) > calls_before else None
            step["rejected"] = f"{call.outcome.value}: {call.detail}" if call else "no answer"
            if call is not None and call.outcome is CallOutcome.UNAVAILABLE:
                self.llm_down = True  # no model answers: the rule takes the remaining steps
            return None
        if answer.action == "open":
            assert answer.result_id is not None
            return "open", ids[answer.result_id], answer.reason
        if answer.action == "search":
            text = " ".join((answer.query or "").split())
            try:
                query = PlannedQuery(kind=QueryKind.NORMALIZED, text=text)
            except ValueError:
                step["rejected"] = "invalid: the query names X/Twitter or uses an operator"
                return None
            if _signature(query) in self.searched:
                step["rejected"] = f"invalid: repeats the search {text!r}"
                return None
            return "search", query, answer.reason
        return "finish", None, answer.reason

    def run(self) -> None:
        for number in range(1, MAX_STEPS + 1):
            if self.meter.out_of_time():
                self.steps.append({"step": number, "action": "finish", "by": "budget", "why": "time spent"})
                return
            step: dict[str, Any] = {"step": number}
            chosen = self.ask_llm(step) if self.llm is not None and not self.llm_down else None
            step["by"] = "llm" if chosen is not None else "rule"
            action, target, why = chosen if chosen is not None else self.rule()
            step.update({"action": action, "why": why})
            if action == "search" and isinstance(target, PlannedQuery):
                step["query"] = target.text
                step.update(self.search(target))
                if step["result"] == "budget spent":
                    step["action"] = "finish"
            elif action == "open" and isinstance(target, SearchHit):
                if not self.meter.can_read_page():
                    step.update({"action": "finish", "result": "page budget spent"})
                else:
                    step["url"] = target.url
                    step.update(self.open(target))
            self.steps.append(step)
            if step["action"] == "finish":
                return
        self.steps.append({"step": MAX_STEPS + 1, "action": "finish", "by": "budget", "why": "step limit"})


def research(claim: ClaimToResearch, services: ResearchServices, meter: BudgetMeter) -> Panel:
    """Research ``claim`` by the agentic loop and summarise what it gathered as a panel."""
    subject, question = ledger_claim(claim.text, claim.as_of)
    findings = Findings(question=claim.text, subject=subject, claim=question)
    agent = _Agent(
        claim=claim,
        services=services,
        meter=meter,
        findings=findings,
        llm=debate_llm(services.llm),
        plan=plan_queries(question, claim.said_at, PLANNED_QUERIES),
    )
    agent.run()
    trace: dict[str, Any] = {"steps": agent.steps, "navigator": "llm" if agent.llm else "rule"}
    if agent.llm is not None:
        trace["llm_calls"] = agent.llm.trace()
    if searches_unavailable(findings.rounds):
        panel = pending_panel(ResearchMode.AGENTIC, findings.rounds)
        return panel.model_copy(update={"trace": {**panel.trace, **trace}})
    rescore(findings, claim, services)
    panel = panel_from(findings, claim, services, ResearchMode.AGENTIC)
    return panel.model_copy(update={"trace": {**panel.trace, **trace}})
