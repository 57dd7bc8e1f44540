"""decompose: split the claim into sub-questions, research each on its own, combine the answers.

A claim often bundles several checkable things: a figure, the fact or direction it qualifies, a time
qualifier, a comparison, or two clauses joined by "and". Each becomes a sub-question researched, scoped,
scored and corroborated separately (``gather.investigate``); ``panel_verdicts.combine_parts`` combines
their verdicts, which is where ``partially_true`` comes from (the direction holds, the figure does not).

The split is asked of the configured LLM when there is one, and made by rules otherwise (or when the LLM's
answer is rejected: too many parts, a number the claim does not state, or a number of the claim's that no
part states):

* clauses: the claim is cut at ";" and at "and", "but" or "while" introducing a new clause, then at the
  clause boundaries claim extraction uses (``icarus.claims.split_clauses``);
* figures: a clause stating a figure is asked as stated (the figure part) and, when every figure in it is
  the size of a change ("fell 20%", "rose to 3%"), also as the direction without the size ("traffic fell
  in October"), when enough words remain to search for. A figure that is what the clause counts ("at
  least 3 times a month", "a cumulative 29 of Nigeria's 60 years", "36 states") is the fact itself: the
  clause is asked whole, never with its numbers cut out;
* comparisons and time qualifiers stay inside their clause, so each part is checked with them.

At most ``MAX_PARTS`` sub-questions; budgets are shared, so a part researched late may find less.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field

from icarus.claims import split_clauses
from icarus.claims.figures import FALL_VERBS, RISE_VERBS
from icarus.debates.corroboration import figures_found_text
from icarus.debates.model import (
    Citation,
    Corroboration,
    OutOfScopeSource,
    Panel,
    ResearchMode,
    SubQuestion,
    Verdict,
)
from icarus.debates.research.base import BudgetMeter, ClaimToResearch, ResearchServices
from icarus.debates.research.gather import Findings, findings_trace, investigate, panel_from, pending_panel
from icarus.scoring.icarus.panel_verdicts import PanelVerdictName, combine_parts
from icarus.text import words as tx

__all__ = [
    "MAX_PARTS",
    "PART_QUERIES",
    "Part",
    "combine_findings",
    "research",
    "split_claim",
    "sub_questions",
]

MAX_PARTS: Final = 4
PART_QUERIES: Final = 4  # the four most important query kinds per part: the budget is shared by all parts
MIN_PART_WORDS: Final = 3  # fewer content words than this is too little to search for on its own
_CLAUSE_JOINS = re.compile(
    r";\s*|,?\s+(?:and|but|while|whereas)\s+(?=(?:the|a|an|its|their|his|her|this|that|these|it|they|[A-Z]))"
)
_FIGURE_LEAD = r"(?:\s+(?:by|to|of|about|around|nearly|almost|some|roughly|over|more\s+than|less\s+than))*"
# A change verb and the words between it and its size: "fell", "rose by", "grew to about".
_CHANGE_LEAD = rf"(?P<verb>\b(?:{RISE_VERBS}|{FALL_VERBS})){_FIGURE_LEAD}\s*"
_DECOMPOSE_TASK = (
    "Split a claim into at most four short, self-contained sub-claims that can each be checked on their own: "
    "each figure, each named fact, each comparison, each time qualifier. Keep the claim's own words, numbers "
    "and dates; do not add facts."
)


@dataclass(frozen=True)
class Part:
    """One sub-question: its text and why it was split out (clause, figure, fact, llm)."""

    question: str
    kind: str


class _Decomposition(BaseModel):
    model_config = ConfigDict(extra="forbid")
    parts: list[str] = Field(description="the sub-claims, each a full sentence")


def split_claim(text: str) -> list[Part]:
    """The rule-based split (see the module text); the whole claim when nothing splits it. Clauses come
    before directions when there are more parts than ``MAX_PARTS``: a direction repeats its clause without
    the figure, so a clause cut for one would lose figures no other part states."""
    candidates: list[Part] = []
    seen: set[str] = set()

    def add(question: str, kind: str) -> None:
        question = " ".join(question.split()).strip(" ,;.")
        key = question.casefold()
        if question and key not in seen:
            seen.add(key)
            candidates.append(Part(question, kind))

    for clause in _clauses(text):
        stated = tx.stated_figures(clause)
        if not stated:
            add(clause, "clause")
            continue
        add(clause, "figure")
        direction = _direction(clause, [quantity.text for quantity in stated])
        if direction is not None and len(_content_words(direction)) >= MIN_PART_WORDS:
            add(direction, "fact")
    whole = [part for part in candidates if part.kind != "fact"][:MAX_PARTS]
    room = MAX_PARTS - len(whole)
    chosen = {*whole, *[part for part in candidates if part.kind == "fact"][:room]}
    return [part for part in candidates if part in chosen] or [Part(text.strip(), "clause")]


def _direction(clause: str, figures: Sequence[str]) -> str | None:
    """The clause with the size of each change cut out ("fell 20% in October" -> "fell in October"); None
    when a figure is not the size of a change, because cutting it would lose the fact it states."""
    direction = clause
    for figure in figures:
        direction, cut = re.subn(_CHANGE_LEAD + re.escape(figure), r"\g<verb>", direction, count=1)
        if not cut:
            return None
    return direction


def _clauses(text: str) -> list[str]:
    pieces = [piece for piece in _CLAUSE_JOINS.split(text) if piece and piece.strip()]
    clauses: list[str] = []
    for piece in pieces:
        spans = split_clauses(piece, 0, len(piece)) or [(0, len(piece))]
        clauses.extend(piece[start:end] for start, end in spans if _content_words(piece[start:end]))
    return clauses


def _content_words(text: str) -> list[str]:
    return [t.text for t in tx.tokens(text) if t.text not in tx.STOPWORDS and not t.text[0].isdigit()]


def llm_split(claim: ClaimToResearch, services: ResearchServices) -> tuple[list[Part] | None, list[Any]]:
    """The LLM's split, or None when no LLM is configured or its answer is rejected; and the call trace."""
    if services.llm is None:
        return None, []
    from icarus.debates.research.llm import LLMRole, debate_llm  # only where an endpoint is configured

    client = debate_llm(services.llm)
    if client is None:
        return None, []

    stated = _numbers(claim.text)

    def check(answer: _Decomposition) -> str | None:
        if not answer.parts or len(answer.parts) > MAX_PARTS:
            return f"expected 1 to {MAX_PARTS} parts, got {len(answer.parts)}"
        for part in answer.parts:
            added = _numbers(part) - stated
            if added:  # a part may only restate the claim's own figures and dates
                return f"a part states numbers the claim does not: {', '.join(sorted(added))}"
        lost = stated - {number for part in answer.parts for number in _numbers(part)}
        if lost:  # each figure and date of the claim is asked about in some part
            return f"no part states the claim's numbers {', '.join(sorted(lost))}"
        return None

    answer = client.ask(LLMRole.WRITER, _DECOMPOSE_TASK, f"Claim: {claim.text}", _Decomposition, check=check)
    trace = client.trace()
    if answer is None:
        return None, trace
    return [Part(" ".join(p.split()), "llm") for p in answer.parts if p.strip()], trace


def _numbers(text: str) -> set[str]:
    return {token.text for token in tx.tokens(text) if token.text[0].isdigit()}


def decompose(claim: ClaimToResearch, services: ResearchServices) -> tuple[list[Part], dict[str, Any]]:
    parts, calls = llm_split(claim, services)
    if parts:
        return parts, {"split": "llm", "llm_calls": calls}
    return split_claim(claim.text), {"split": "rules", "llm_calls": calls}


def sub_questions(findings: Sequence[Findings], panels: Sequence[Panel]) -> list[SubQuestion]:
    return [
        SubQuestion(
            question=found.question, verdict=panel.verdict, confidence=panel.confidence, sources=panel.sources
        )
        for found, panel in zip(findings, panels, strict=True)
    ]


def combine_findings(
    mode: ResearchMode,
    findings: Sequence[Findings],
    panels: Sequence[Panel],
    trace: dict[str, Any],
) -> Panel:
    """One panel from the parts' panels: the combined verdict, every admitted source once, every set-aside
    document once, and the corroboration of the first part that checked a figure (else the first part's)."""
    researched = [(f, p) for f, p in zip(findings, panels, strict=True) if p.verdict is not Verdict.PENDING]
    if not researched:
        return pending_panel(mode, [r for f in findings for r in f.rounds])
    verdict, confidence = combine_parts(
        [(_name(p.verdict), Decimal(str(p.confidence))) for _, p in researched]
    )
    subs = sub_questions(findings, panels)
    corroborated = [p for _, p in researched if p.corroboration is not None]
    figure_first = sorted(corroborated, key=lambda p: _figure_rank(p.corroboration))
    lead = figure_first[0] if figure_first else None
    lines = [f"{i + 1}. {s.question}: {s.verdict.value}" for i, s in enumerate(subs)]
    explanation = f"Checked in {len(subs)} part(s): " + "; ".join(lines) + "."
    if lead is not None and lead.corroboration is not None and lead.corroboration.capped:
        explanation += f" Only one independent document confirms {lead.corroboration.element}."
    if lead is not None and lead.figures_found:
        explanation += " " + figures_found_text(lead.figures_found)
    part_traces = [findings_trace(f) for f in findings]
    return Panel(
        research_mode=mode,
        verdict=Verdict(verdict),
        confidence=round(float(confidence), 4),
        explanation=explanation,
        sources=_unique_sources([c for _, p in researched for c in p.sources]),
        out_of_scope_sources=_unique_out_of_scope([o for _, p in researched for o in p.out_of_scope_sources]),
        corroboration=lead.corroboration if lead is not None else None,
        sub_questions=subs,
        figures_found=lead.figures_found if lead is not None else [],
        trace={**trace, "parts": part_traces},
    )


def _name(verdict: Verdict) -> PanelVerdictName:
    names: dict[Verdict, PanelVerdictName] = {
        Verdict.TRUE: "true",
        Verdict.FALSE: "false",
        Verdict.PARTIALLY_TRUE: "partially_true",
        Verdict.MISLEADING: "misleading",
    }
    return names.get(verdict, "unverifiable")


def _figure_rank(block: Corroboration | None) -> int:
    return 0 if block is not None and tx.stated_figures(block.element) else 1


def _unique_sources(citations: Sequence[Citation]) -> list[Citation]:
    seen: set[str] = set()
    kept: list[Citation] = []
    for citation in sorted(citations, key=lambda c: (-c.trust, c.url)):
        if citation.url not in seen:
            seen.add(citation.url)
            kept.append(citation)
    return kept


def _unique_out_of_scope(documents: Sequence[OutOfScopeSource]) -> list[OutOfScopeSource]:
    seen: set[str] = set()
    kept: list[OutOfScopeSource] = []
    for document in documents:
        if document.url not in seen:
            seen.add(document.url)
            kept.append(document)
    return kept


def research_parts(
    parts: Sequence[Part], claim: ClaimToResearch, services: ResearchServices, meter: BudgetMeter
) -> tuple[list[Findings], list[Panel]]:
    """Each part researched on its own, in order, within the shared budget."""
    findings: list[Findings] = []
    panels: list[Panel] = []
    for part in parts:
        found = investigate(part.question, claim, services, meter, max_queries=PART_QUERIES)
        findings.append(found)
        panels.append(panel_from(found, claim, services, ResearchMode.DECOMPOSE))
    return findings, panels


def research(claim: ClaimToResearch, services: ResearchServices, meter: BudgetMeter) -> Panel:
    meter.can_go_deeper(0)
    parts, trace = decompose(claim, services)
    findings, panels = research_parts(parts, claim, services, meter)
    return combine_findings(ResearchMode.DECOMPOSE, findings, panels, trace)
