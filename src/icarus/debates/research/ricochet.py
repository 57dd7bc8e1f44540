"""ricochet: start from web search results, then follow the relevant links found in the pages read.

Every page is fetched through the SSRF-guarded ``SafeFetcher`` (a link to a private or metadata address
is refused by the guard and the refusal recorded), snapshotted, read, judged and scope-checked like any
search hit. From each page the links worth following (``links.score_links``: overlap with the claim's
terms, primary-source and same-site cues; social networks, navigation pages and links already seen
skipped) become leads one hop deeper. Navigation picks the next lead:

- with an OpenAI-compatible LLM configured, the model chooses among the best ``LINKS_SHOWN`` leads
  (``llm.NavigationChoice``: follow up to three, search again, or stop); a rejected answer is recorded
  and the link score chooses instead;
- offline, the deepest, best-scored lead is followed next, so a trail is followed to its end before
  the next one starts.

When every trail has died it asks for another search (the next query of the claim's plan, or the
LLM's). Searches, pages, depth (link hops from a search result) and elapsed time are bounded; whatever
limit is reached, the evidence gathered is scored under the policy and summarised. The final verdict,
explanation and citations are written separately from navigation: by the LLM "writer" when configured
(it must keep the verdict the policy scored and cite only admitted evidence), else by the deterministic
ledger + policy summary.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from icarus.debates.model import Panel, ResearchMode, Verdict
from icarus.debates.research.agentic import admit, enough_evidence, rescore, searches_unavailable, stance_line
from icarus.debates.research.base import BudgetMeter, ClaimToResearch, ResearchServices
from icarus.debates.research.gather import (
    Findings,
    ledger_claim,
    panel_from,
    pending_panel,
    read_hits,
    run_searches,
)
from icarus.debates.research.links import claim_terms, followable, page_links, score_links
from icarus.debates.research.llm import CallOutcome, DebateLLM, debate_llm
from icarus.fetching import BlockedURL, ExtractionError, FetchBudget, FetchError
from icarus.ledger import EvidenceItem, EvidenceRole
from icarus.pipeline.check import fetch_page
from icarus.pipeline.evidence import RetrievedDocument, build_evidence_item, evidence_id_for
from icarus.provenance.canonical import canonical_url
from icarus.research import PlannedQuery, QueryKind, SearchHit, plan_queries, web_query

__all__ = ["LINKS_PER_PAGE", "LINKS_SHOWN", "MAX_MOVES", "research"]

LINKS_PER_PAGE: Final = 5
"""The best links of each page kept as leads; the rest of a page's links are not followed."""
LINKS_SHOWN: Final = 8
"""Leads shown to the LLM navigator at each move, deepest and best first."""
MAX_MOVES: Final = 64
"""A hard stop for navigation whatever the budget says."""
PLANNED_QUERIES: Final = 6
_EXCERPT_SHOWN: Final = 600


@dataclass
class _Lead:
    url: str
    anchor: str
    depth: int
    score: float
    order: int
    via: str  # "search" or the page the link was found on
    hit: SearchHit | None = None  # the search result, for a lead that came from a search


@dataclass
class _Ricochet:
    claim: ClaimToResearch
    services: ResearchServices
    meter: BudgetMeter
    findings: Findings
    llm: DebateLLM | None
    plan: list[PlannedQuery]
    fetch_budget: FetchBudget
    terms: frozenset[str]
    leads: list[_Lead] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)  # canonical URLs visited or queued
    searched: set[tuple[object, ...]] = field(default_factory=set)
    moves: list[dict[str, Any]] = field(default_factory=list)
    counter: int = 0
    rejected: str | None = None  # why the LLM's answer for the current move was refused
    llm_down: bool = False

    # searching ----------------------------------------------------------------------------------------

    def next_planned(self) -> PlannedQuery | None:
        while self.plan:
            query = self.plan.pop(0)
            if _signature(query) not in self.searched:
                return query
        return None

    def search(self, query: PlannedQuery, why: str, by: str) -> dict[str, Any]:
        move: dict[str, Any] = {"action": "search", "by": by, "why": why, "query": web_query(query)}
        if not self.meter.can_search():
            move["result"] = "search budget spent"
            return move
        self.searched.add(_signature(query))
        found = run_searches([query], self.services.providers, self.meter)
        self.findings.rounds.append(found)
        added = 0
        for rank, hit in enumerate(found.hits):
            self.findings.search_rows.setdefault(hit.url, hit)
            canonical = canonical_url(hit.url)
            if canonical in self.seen:
                continue
            self.seen.add(canonical)
            self._add_lead(_Lead(hit.url, hit.title, 0, 1.0 / (rank + 1), 0, "search", hit))
            added += 1
        move["result"] = f"{added} new results"
        return move

    def _add_lead(self, lead: _Lead) -> None:
        self.counter += 1
        lead.order = self.counter
        self.leads.append(lead)

    # reading ------------------------------------------------------------------------------------------

    def visit(self, lead: _Lead, by: str, why: str) -> dict[str, Any]:
        self.leads.remove(lead)
        move: dict[str, Any] = {
            "action": "follow",
            "by": by,
            "why": why,
            "url": lead.url,
            "depth": lead.depth,
        }
        move["via"] = lead.via
        if not self.meter.can_go_deeper(lead.depth):
            move["result"] = "too deep"
            return move
        if not self.meter.can_read_page():
            move["result"] = "page budget spent"
            return move
        if lead.hit is not None and (lead.hit.text or self.services.fetcher is None):
            # A local-corpus document (its text is at hand) or no network: read it as a check would.
            known = {item.evidence_id for item in self.findings.judged}
            items = read_hits(
                [lead.hit], self.findings.claim, self.services, self.meter, self.claim.as_of, known
            )
            return {**move, **self._admit(items, [])}
        if self.services.fetcher is None:
            move["result"] = "not fetched: no network configured"
            return move
        self.meter.spend_page()
        try:
            captured, page = fetch_page(
                lead.url,
                self.services.fetcher,
                self.services.snapshots,
                archive=self.services.archive,
                budget=self.fetch_budget,
            )
        except (FetchError, ExtractionError) as error:
            move["result"] = f"refused: {error}" if isinstance(error, BlockedURL) else f"failed: {error}"
            return move
        row = lead.hit
        document = RetrievedDocument(
            url=lead.url,
            title=page.title or (row.title if row else lead.anchor),
            text=page.text,
            publisher=page.publisher or (row.publisher if row else ""),
            published_at=page.published_at or (row.published_at if row else None),
            links=page.links,
            scholarly=page.scholarly,
        )
        item = build_evidence_item(
            document,
            self.findings.claim.text,
            self.services.registry,
            captured.ref,
            self.claim.as_of,
            EvidenceRole.RESEARCH,
            page.links,
            archived=captured.meta.archived,
        )
        body = captured.result
        links = page_links(body.body, body.content_type, body.final_url, page.links)
        scored = followable(score_links(links, self.terms, body.final_url, self.seen))[:LINKS_PER_PAGE]
        new_leads = [_Lead(s.url, s.anchor, lead.depth + 1, s.score, 0, lead.url) for s in scored]
        if new_leads and lead.depth + 1 > self.meter.budget.max_depth:
            self.meter.can_go_deeper(lead.depth + 1)  # records that the depth limit stopped the trail
            move["not_followed"] = f"{len(new_leads)} links: depth limit"
            new_leads = []
        return {**move, **self._admit([item], new_leads)}

    def _admit(self, items: list[EvidenceItem], new_leads: list[_Lead]) -> dict[str, Any]:
        judged = admit(self.findings, items, self.claim, self.services)
        for lead in new_leads:
            self.seen.add(canonical_url(lead.url))
            self._add_lead(lead)
        result: dict[str, Any] = {"links": len(new_leads)}
        if judged:
            result["result"] = stance_line(judged[0], self.findings.claim.claim_id)
        else:
            result["result"] = "nothing readable"
        return result

    # choosing -----------------------------------------------------------------------------------------

    def ranked(self) -> list[_Lead]:
        """Deepest first (finish the trail being followed), then best score, then first found."""
        return sorted(self.leads, key=lambda lead: (-lead.depth, -lead.score, lead.order))

    def offline_move(self) -> list[dict[str, Any]]:
        if self.leads:
            best = self.ranked()[0]
            return [self.visit(best, "links", f"best lead (score {best.score:.2f})")]
        query = self.next_planned()
        if query is None:
            return [{"action": "stop", "by": "rule", "why": "every trail ended and the search plan is spent"}]
        why = "search the claim" if not self.findings.rounds else "trail ended: search again"
        return [self.search(query, why, "rule")]

    def llm_move(self) -> list[dict[str, Any]] | None:
        assert self.llm is not None
        if not self.leads:
            return None  # nothing to choose among: searching again is the rule's call
        shown = {f"L{i + 1}": lead for i, lead in enumerate(self.ranked()[:LINKS_SHOWN])}
        gathered = [stance_line(item, self.findings.claim.claim_id) for item in self.findings.judged]
        budget = (
            f"{self.meter.budget.max_searches - self.meter.searches} searches, "
            f"{self.meter.budget.max_pages - self.meter.pages} pages, {self.meter.seconds_left():.0f} s"
        )
        before = len(self.llm.calls)
        answer = self.llm.navigate(
            self.claim.text,
            [(lid, lead.url, lead.anchor) for lid, lead in shown.items()],
            gathered,
            budget,
            timeout_s=self.meter.seconds_left(),
        )
        if answer is None:
            call = self.llm.calls[before] if len(self.llm.calls) > before else None
            self.rejected = f"{call.outcome.value}: {call.detail}" if call else "no answer"
            if call is not None and call.outcome is CallOutcome.UNAVAILABLE:
                self.llm_down = True  # no model answers: link scoring takes the remaining moves
            return None
        if answer.action == "stop":
            return [{"action": "stop", "by": "llm", "why": answer.reason}]
        if answer.action == "search":
            if not self.meter.can_search():
                self.rejected = "invalid: a search with no searches left"
                return None
            text = " ".join((answer.query or "").split())
            try:
                query = PlannedQuery(kind=QueryKind.NORMALIZED, text=text)
            except ValueError:
                self.rejected = "invalid: the query names X/Twitter or uses an operator"
                return None
            if _signature(query) in self.searched:
                self.rejected = f"invalid: repeats the search {text!r}"
                return None
            return [self.search(query, answer.reason, "llm")]
        chosen = list(dict.fromkeys(answer.link_ids))
        return [self.visit(shown[lid], "llm", answer.reason) for lid in chosen if shown[lid] in self.leads]

    def run(self) -> None:
        for _ in range(MAX_MOVES):
            if self.meter.out_of_time():
                self.moves.append({"action": "stop", "by": "budget", "why": "time spent"})
                return
            if self.findings.rounds and enough_evidence(self.findings):
                self.moves.append({"action": "stop", "by": "rule", "why": "enough independent evidence"})
                return
            self.rejected = None
            made = self.llm_move() if self.llm is not None and not self.llm_down else None
            if made is None:
                made = self.offline_move()
                if self.rejected is not None:
                    made[0]["rejected"] = self.rejected
            self.moves.extend(made)
            if any(move["action"] == "stop" for move in made):
                return
            if any(move.get("result") == "search budget spent" for move in made) and not self.leads:
                self.moves.append({"action": "stop", "by": "budget", "why": "search budget spent"})
                return
            if any(move.get("result") == "page budget spent" for move in made):
                self.moves.append({"action": "stop", "by": "budget", "why": "page budget spent"})
                return
        self.moves.append({"action": "stop", "by": "budget", "why": "move limit"})


def _signature(query: PlannedQuery) -> tuple[object, ...]:
    return (query.text.casefold(), query.any_of, query.since, query.until)


def _write(
    panel: Panel, findings: Findings, claim: ClaimToResearch, llm: DebateLLM | None, meter: BudgetMeter
) -> tuple[Panel, str]:
    """The final text: the LLM writer's when configured and acceptable, else the deterministic summary."""
    if llm is None or panel.verdict is Verdict.PENDING:
        return panel, "policy"
    kept = findings.kept
    claim_id = findings.claim.claim_id
    evidence = []
    for item in kept:
        judgment = item.judgment_for(claim_id)
        stance = judgment.stance.stance.value if judgment is not None else "neutral"
        excerpt = item.excerpt.text if item.excerpt else item.text[:_EXCERPT_SHOWN]
        evidence.append((item.evidence_id, item.domain, stance, excerpt[:_EXCERPT_SHOWN]))
    written = llm.write_summary(
        claim.text, claim.language, panel.verdict.value, evidence, timeout_s=max(meter.seconds_left(), 5.0)
    )
    if written is None:
        return panel, "policy"
    by_id = {evidence_id_for(citation.url): citation for citation in panel.sources}
    cited = [by_id[eid] for eid in dict.fromkeys(written.cited_ids) if eid in by_id]
    return (
        panel.model_copy(update={"explanation": written.explanation, "sources": cited or panel.sources}),
        "llm",
    )


def research(claim: ClaimToResearch, services: ResearchServices, meter: BudgetMeter) -> Panel:
    """Research ``claim`` by following links from search results; summarise whatever was gathered."""
    subject, question = ledger_claim(claim.text, claim.as_of)
    findings = Findings(question=claim.text, subject=subject, claim=question)
    walker = _Ricochet(
        claim=claim,
        services=services,
        meter=meter,
        findings=findings,
        llm=debate_llm(services.llm),
        plan=plan_queries(question, claim.said_at, PLANNED_QUERIES),
        fetch_budget=FetchBudget(meter.budget.max_pages, meter.budget.max_seconds, clock=services.clock),
        terms=claim_terms(claim.text),
    )
    walker.run()
    trace: dict[str, Any] = {
        "moves": walker.moves,
        "navigator": "llm" if walker.llm is not None else "links",
        "links_followed": services.fetcher is not None,
    }
    if searches_unavailable(findings.rounds):
        panel = pending_panel(ResearchMode.RICOCHET, findings.rounds)
        return panel.model_copy(update={"trace": {**panel.trace, **trace}})
    rescore(findings, claim, services)
    panel = panel_from(findings, claim, services, ResearchMode.RICOCHET)
    panel, writer = _write(panel, findings, claim, walker.llm, meter)
    trace["writer"] = writer
    if walker.llm is not None:
        trace["llm_calls"] = walker.llm.trace()
    return panel.model_copy(update={"trace": {**panel.trace, **trace}})
