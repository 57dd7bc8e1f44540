"""The elector: which research panel speaks for a claim.

A verdict is *confirmed* when at least two voting panels hold it and it strictly outnumbers every other
verdict. Manual panels (added with ``manually_added``) never vote; escalated panels do. PENDING and empty
tokens are not votes; UNVERIFIABLE is. Tokens compare case-insensitively and exactly, so ``FALSE`` and
``MISLEADING`` are different votes and a 2–2 tie confirms nothing.

``elect`` picks one panel. A confirmed verdict is settled by arithmetic (source count, source trust,
confidence) among the panels that hold it, manual ones included, without asking anyone. Otherwise a single
panel or a unanimous set is taken as it is, and only a real split goes to a ``Chooser``. The chooser sees a
redacted view of each panel: never its confidence, never its sub-questions, so it judges the evidence and
not the method's self-assessment. ``OfflineChooser`` is the deterministic chooser used when no model is
configured.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime
from enum import StrEnum
from typing import Final, Protocol

from pydantic import BaseModel, ConfigDict

from icarus.debates.model import Citation, Panel, ResearchMode, StoredPanel, Verdict

__all__ = [
    "MIN_CONFIRMING_PANELS",
    "SUBSTANTIVE_VERDICTS",
    "Chooser",
    "ChooserCitation",
    "ChooserPanel",
    "Election",
    "ElectionReason",
    "OfflineChooser",
    "agreement_rank",
    "best_sourced",
    "chooser_view",
    "completed",
    "confirmed_from_tokens",
    "confirmed_verdict",
    "elect",
    "source_count",
    "source_trust",
    "verdict_token",
]

MIN_CONFIRMING_PANELS: Final = 2
"""A verdict held by one panel is an opinion; two independent methods make it confirmed."""

SUBSTANTIVE_VERDICTS: Final = frozenset(
    {Verdict.TRUE, Verdict.FALSE, Verdict.PARTIALLY_TRUE, Verdict.MISLEADING}
)
"""Verdicts that say something about the claim (UNVERIFIABLE abstains, PENDING is not an answer)."""

_VERDICTS_BY_TOKEN: Final = {v.value: v for v in Verdict}


def verdict_token(token: str | None) -> Verdict | None:
    """The vote a verdict token casts: case-insensitive, otherwise exact; PENDING, empty or unknown cast none."""
    if not token:
        return None
    verdict = _VERDICTS_BY_TOKEN.get(token.casefold())
    return None if verdict is None or verdict is Verdict.PENDING else verdict


def confirmed_from_tokens(tokens: Iterable[str | None]) -> Verdict | None:
    """The confirmed verdict among these votes, or None (fewer than two holders, or a tie at the top)."""
    counts = Counter(v for v in map(verdict_token, tokens) if v is not None)
    ranked = counts.most_common(2)
    if not ranked or ranked[0][1] < MIN_CONFIRMING_PANELS:
        return None
    if len(ranked) > 1 and ranked[1][1] == ranked[0][1]:
        return None
    return ranked[0][0]


def confirmed_verdict(panels: Sequence[StoredPanel]) -> Verdict | None:
    """The verdict the non-manual panels confirm, or None. Manual panels do not vote."""
    return confirmed_from_tokens(p.panel.verdict.value for p in panels if not p.manual)


def completed(panels: Iterable[StoredPanel]) -> list[StoredPanel]:
    """The panels whose research has finished (anything but PENDING)."""
    return [p for p in panels if p.panel.verdict is not Verdict.PENDING]


def _distinct_sources(panel: Panel) -> list[Citation]:
    seen: dict[str, Citation] = {}
    for citation in panel.sources:
        seen.setdefault(citation.url, citation)
    return list(seen.values())


def source_count(panel: Panel) -> int:
    """How many distinct URLs the panel cites."""
    return len(_distinct_sources(panel))


def source_trust(panel: Panel) -> float:
    """The mean reputation of the panel's distinct cited sources; 0 when it cites none."""
    sources = _distinct_sources(panel)
    return sum(c.trust for c in sources) / len(sources) if sources else 0.0


def agreement_rank(stored: StoredPanel) -> tuple[int, float, float, int]:
    """Sort key, best first: more sources, then more trusted sources, then confidence, then the older panel."""
    panel = stored.panel
    return (-source_count(panel), -source_trust(panel), -panel.confidence, stored.panel_id)


def best_sourced(panels: Iterable[StoredPanel]) -> StoredPanel:
    """The best-sourced panel by ``agreement_rank``. Raises ValueError when there is none."""
    ranked = sorted(panels, key=agreement_rank)
    if not ranked:
        raise ValueError("no panel to rank")
    return ranked[0]


class ElectionReason(StrEnum):
    CONFIRMED = "confirmed"
    SINGLE_PANEL = "single_panel"
    UNANIMOUS = "unanimous"
    CHOSEN = "chosen"


class Election(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    panel_id: int
    verdict: Verdict
    reason: ElectionReason


class ChooserCitation(BaseModel):
    """What a chooser may know about a cited source."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    url: str
    domain: str
    title: str = ""
    excerpt: str = ""
    stance: str = "neutral"
    published_at: datetime | None = None
    is_primary: bool = False


class ChooserPanel(BaseModel):
    """A panel as a chooser sees it: the verdict, its explanation and its evidence. Confidence and
    sub-questions are left out on purpose, so the choice rests on the evidence alone."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    panel_id: int
    research_mode: ResearchMode
    verdict: Verdict
    explanation: str
    sources: tuple[ChooserCitation, ...]


def chooser_view(stored: StoredPanel) -> ChooserPanel:
    panel = stored.panel
    return ChooserPanel(
        panel_id=stored.panel_id,
        research_mode=panel.research_mode,
        verdict=panel.verdict,
        explanation=panel.explanation,
        sources=tuple(
            ChooserCitation(
                url=c.url,
                domain=c.domain,
                title=c.title,
                excerpt=c.excerpt,
                stance=c.stance,
                published_at=c.published_at,
                is_primary=c.is_primary,
            )
            for c in _distinct_sources(panel)
        ),
    )


class Chooser(Protocol):
    """Picks one panel from a split. Returns a ``panel_id`` from ``candidates``; anything else (or None)
    is ignored and the offline choice stands."""

    def choose(self, candidates: Sequence[ChooserPanel]) -> int | None: ...


_STANCE_SUPPORTING: Final = {
    Verdict.TRUE: frozenset({"supports"}),
    Verdict.FALSE: frozenset({"refutes"}),
    Verdict.PARTIALLY_TRUE: frozenset({"supports", "refutes"}),
    Verdict.MISLEADING: frozenset({"supports", "refutes"}),
}


def _support_tier(view: ChooserPanel) -> int:
    """3: a verdict a cited source bears out; 2: an UNVERIFIABLE that says what is missing;
    1: a bare UNVERIFIABLE; 0: a verdict nothing cited bears out."""
    if view.verdict is Verdict.UNVERIFIABLE:
        return 2 if view.explanation.strip() else 1
    stances = _STANCE_SUPPORTING.get(view.verdict, frozenset())
    return 3 if any(c.stance in stances for c in view.sources) else 0


def _newest_source(view: ChooserPanel) -> float:
    dates = [c.published_at.timestamp() for c in view.sources if c.published_at is not None]
    return max(dates, default=float("-inf"))


class OfflineChooser:
    """The deterministic chooser: a supported verdict first, then honest missing evidence, then the most
    current sources, then more sources, then the older panel."""

    def choose(self, candidates: Sequence[ChooserPanel]) -> int | None:
        if not candidates:
            return None
        best = min(
            candidates,
            key=lambda v: (-_support_tier(v), -_newest_source(v), -len(v.sources), v.panel_id),
        )
        return best.panel_id


def elect(panels: Sequence[StoredPanel], chooser: Chooser | None = None) -> Election | None:
    """Pick the panel that speaks for the claim, or None while no panel has finished."""
    candidates = completed(panels)
    if not candidates:
        return None
    confirmed = confirmed_verdict(candidates)
    if confirmed is not None:
        winner = best_sourced(p for p in candidates if p.panel.verdict is confirmed)
        return Election(panel_id=winner.panel_id, verdict=confirmed, reason=ElectionReason.CONFIRMED)
    if len(candidates) == 1:
        only = candidates[0]
        return Election(
            panel_id=only.panel_id, verdict=only.panel.verdict, reason=ElectionReason.SINGLE_PANEL
        )
    if len({p.panel.verdict for p in candidates}) == 1:
        winner = best_sourced(candidates)
        return Election(
            panel_id=winner.panel_id, verdict=winner.panel.verdict, reason=ElectionReason.UNANIMOUS
        )
    views = [chooser_view(p) for p in candidates]
    by_id = {p.panel_id: p for p in candidates}
    picked = chooser.choose(views) if chooser is not None else None
    if picked not in by_id:
        picked = OfflineChooser().choose(views)
    assert picked is not None  # candidates is not empty
    winner = by_id[picked]
    return Election(panel_id=winner.panel_id, verdict=winner.panel.verdict, reason=ElectionReason.CHOSEN)
