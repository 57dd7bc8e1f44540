"""decompose_invest: decompose, then investigate each sub-question a second time, more narrowly.

After a sub-question's first round (as ``decompose`` researches it), a follow-up query plan is drawn from
what that round found:

* the originator: the source the admitted documents credit most often ("according to the Halden Port
  Authority"), or the elected origin's publisher, searched with the sub-question's key terms, to reach the
  primary document behind the relays;
* the figure: the sub-question's figure with its unit and period ("12%" "October"), with the words of the
  measure, to find other independent statements of the value.

The follow-up is one level deeper (``Budget.max_depth`` must allow depth 1); its documents join the
sub-question's and it is scored again. ``SubQuestion.follow_up`` says what was investigated.
"""

from __future__ import annotations

from collections import Counter
from typing import Final

from icarus.debates.model import Panel, ResearchMode
from icarus.debates.research.base import BudgetMeter, ClaimToResearch, ResearchServices
from icarus.debates.research.decompose import PART_QUERIES, combine_findings, decompose
from icarus.debates.research.gather import Findings, follow_up, investigate, panel_from
from icarus.research import PlannedQuery, QueryKind
from icarus.text import words as tx

__all__ = ["FOLLOW_UP_DEPTH", "follow_up_queries", "research"]

FOLLOW_UP_DEPTH: Final = 1
_KEY_TERMS: Final = 6  # enough words to keep the follow-up on the sub-question's topic


def follow_up_queries(findings: Findings) -> tuple[list[PlannedQuery], str | None]:
    """The narrower searches a sub-question's first round suggests, and a sentence saying what they are."""
    key = _key_terms(findings.question)
    queries: list[PlannedQuery] = []
    said: list[str] = []
    originator = _originator(findings)
    if originator:
        query = _query(QueryKind.PRIMARY_SOURCE, f'"{originator}" {key}')
        if query is not None:
            queries.append(query)
            said.append(f"the originator {originator}")
    stated = tx.stated_figures(findings.question)
    if stated:
        period = " ".join(
            sorted(tx.months(findings.question) | {str(y) for y in tx.years(findings.question)})
        )
        query = _query(QueryKind.CLOSE_WORDING, f'"{stated[0].text}" {period} {key}')
        if query is not None:
            queries.append(query)
            said.append(f"the figure {stated[0].text}" + (f" for {period}" if period else ""))
    if not said:
        return [], None
    return queries, "Followed up " + " and ".join(said) + "."


def _originator(findings: Findings) -> str | None:
    credited = Counter(
        attribution.target_name
        for item in findings.kept
        for attribution in item.attributions
        if attribution.target_name
    )
    if credited:
        return credited.most_common(1)[0][0]
    if findings.scored is None:
        return None
    origins = set(findings.scored.origins.values())
    publishers = [item.publisher for item in findings.kept if item.evidence_id in origins and item.publisher]
    return publishers[0] if publishers else None


def _key_terms(question: str) -> str:
    words = [t.text for t in tx.tokens(question) if t.text not in tx.STOPWORDS and not t.text[0].isdigit()]
    return " ".join(list(dict.fromkeys(words))[:_KEY_TERMS])


def _query(kind: QueryKind, text: str) -> PlannedQuery | None:
    text = " ".join(text.split())
    try:
        return PlannedQuery(kind=kind, text=text) if text else None
    except ValueError:
        return None


def research(claim: ClaimToResearch, services: ResearchServices, meter: BudgetMeter) -> Panel:
    meter.can_go_deeper(0)
    parts, trace = decompose(claim, services)
    findings: list[Findings] = []
    panels: list[Panel] = []
    follow_ups: list[str | None] = []
    for part in parts:
        found = investigate(part.question, claim, services, meter, max_queries=PART_QUERIES)
        said: str | None = None
        if not found.unavailable and meter.can_go_deeper(FOLLOW_UP_DEPTH):
            queries, said = follow_up_queries(found)
            follow_up(found, queries, claim, services, meter)
        findings.append(found)
        follow_ups.append(said)
        panels.append(panel_from(found, claim, services, ResearchMode.DECOMPOSE_INVEST))
    panel = combine_findings(ResearchMode.DECOMPOSE_INVEST, findings, panels, trace)
    if not panel.sub_questions:  # pending: nothing was researched
        return panel
    subs = [
        sub.model_copy(update={"follow_up": said})
        for sub, said in zip(panel.sub_questions, follow_ups, strict=True)
    ]
    return panel.model_copy(update={"sub_questions": subs})
