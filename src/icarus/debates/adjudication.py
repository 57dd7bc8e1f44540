"""One answer per claim: agreement, adjudication of sourced conflicts, the operator's winner, or a fallback.

``build_claim_verdict`` turns a claim's research panels into its ``ClaimVerdict``:

* **Completion barrier.** Nothing (None) while a panel is PENDING or an expected method has no finished
  panel; manual panels add their method to what is expected. With ``provisional_allowed`` a finished
  two_step panel may answer early, marked ``provisional``.
* **Operator.** A winner chosen by an operator always answers (basis ``operator``).
* **Agreement.** All finished panels agree, or the sourced substantive panels agree and the rest abstain
  (UNVERIFIABLE, or a verdict no source bears out): the best-sourced agreeing panel answers (basis
  ``agreement``); an enabled elector only advises which agreeing panel that is. No adjudicator is asked,
  so historical agreements backfill for free.
* **Adjudication.** Sourced panels with different substantive verdicts go to an ``Adjudicator``. A
  disagreement by degree (anything but TRUE against FALSE) may not end UNVERIFIABLE; a direct TRUE/FALSE
  contradiction may, but only with an irreconcilable-evidence reason and admitted citations from both
  sides. A rejected UNVERIFIABLE is retried once with an explicit instruction to reconcile.
* **Fallback.** Without a usable adjudication a cautious substantive panel answers (basis ``fallback``):
  for PARTIALLY_TRUE against FALSE, shared admitted URLs favour PARTIALLY_TRUE, else source trust, source
  count, confidence and panel id decide; other conflicts prefer PARTIALLY_TRUE, MISLEADING, FALSE, then TRUE.
* **Survival.** A valid adjudicated answer whose panels have not changed (``fingerprint_unchanged``) is
  kept as it is, whether or not adjudication is available now.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from enum import StrEnum
from typing import Final, Protocol

from pydantic import BaseModel, ConfigDict, Field

from icarus.debates.elector import (
    SUBSTANTIVE_VERDICTS,
    Chooser,
    agreement_rank,
    best_sourced,
    completed,
    elect,
    source_count,
    source_trust,
)
from icarus.debates.model import (
    AdjudicationReason,
    Basis,
    Citation,
    ClaimVerdict,
    Panel,
    ResearchMode,
    StoredPanel,
    Verdict,
)

__all__ = [
    "FALLBACK_ORDER",
    "RECONCILE_INSTRUCTION",
    "AdjudicationOutcome",
    "AdjudicationRequest",
    "Adjudicator",
    "Disagreement",
    "OfflineAdjudicator",
    "build_claim_verdict",
    "fallback_panel",
    "fingerprint_unchanged",
    "panel_fingerprint",
    "rejection",
]

FALLBACK_ORDER: Final = (Verdict.PARTIALLY_TRUE, Verdict.MISLEADING, Verdict.FALSE, Verdict.TRUE)
"""The most cautious substantive verdict first: what a fallback prefers when panels conflict."""

RECONCILE_INSTRUCTION: Final = (
    "Your previous answer, unverifiable, was rejected. Reconcile the panels into one substantive verdict "
    "(true, false, partially_true or misleading) and cite the admitted evidence by URL. Unverifiable is "
    "accepted only for a direct true/false contradiction, with an explicit irreconcilable-evidence reason "
    "and admitted citations from both sides."
)

_FINGERPRINT_VERSION: Final = "fp1"


# --- fingerprints -----------------------------------------------------------------------------------


def _digest(value: object, length: int) -> str:
    encoded = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str).encode()
    return hashlib.sha256(encoded).hexdigest()[:length]


def _date_text(moment: datetime) -> str:
    return (moment.astimezone(UTC) if moment.tzinfo is not None else moment).isoformat()


def _citation_core(c: Citation) -> list[object]:
    return [c.url, c.stance, c.excerpt, c.scope_decision]


def panel_fingerprint(panel: Panel) -> str:
    """What a rebuild compares: the verdict, the evidence and its dates.

    Citation order, titles, trust scores and provenance labels do not count. Dates are kept beside the
    evidence, one entry per dated document, so ``fingerprint_unchanged`` can tell a date filled in where
    none was recorded (not a change) from a date that moved or vanished (a change)."""
    core: dict[str, object] = {
        "mode": panel.research_mode.value,
        "verdict": panel.verdict.value,
        "sources": sorted(_citation_core(c) for c in panel.sources),
        "out_of_scope": sorted([o.url, o.scope_decision.value] for o in panel.out_of_scope_sources),
        "sub_questions": sorted(
            [q.question, q.verdict.value, sorted(_citation_core(c) for c in q.sources)]
            for q in panel.sub_questions
        ),
        "figures": sorted([f.url, f.value] for f in panel.figures_found),
        "corroboration": None,
    }
    dated: dict[str, set[str]] = {}

    def note(place: str, key: list[str], moment: datetime | None) -> None:
        if moment is not None:
            dated.setdefault(_digest([place, *key], 10), set()).add(_date_text(moment))

    for c in panel.sources:
        note("source", [c.url], c.published_at)
    for q in panel.sub_questions:
        for c in q.sources:
            note("sub_question", [q.question, c.url], c.published_at)
    for f in panel.figures_found:
        note("figure", [f.url, f.value], f.published)
    if panel.corroboration is not None:
        corroboration = panel.corroboration
        core["corroboration"] = [
            corroboration.element,
            sorted([e.url, e.value] for e in corroboration.confirming),
            sorted([e.url, e.value] for e in corroboration.contradicting),
        ]
        for side, entries in (
            ("confirming", corroboration.confirming),
            ("contradicting", corroboration.contradicting),
        ):
            for e in entries:
                note(side, [e.url, e.value], e.published)
    dates = ",".join(f"{key}={'|'.join(sorted(moments))}" for key, moments in sorted(dated.items()))
    return f"{_FINGERPRINT_VERSION}:{_digest(core, 16)};{dates}"


def _parse_fingerprint(fingerprint: str) -> tuple[str, dict[str, str]] | None:
    version, _, rest = fingerprint.partition(":")
    core, separator, dates = rest.partition(";")
    if version != _FINGERPRINT_VERSION or not separator or not core:
        return None
    entries = dict(item.split("=", 1) for item in dates.split(",") if "=" in item)
    return core, entries


def fingerprint_unchanged(old: str, new: str) -> bool:
    """Whether a panel is, for its claim's answer, the same as when ``old`` was taken.

    Equal evidence and verdict, and every date recorded then is still recorded now and is the same; a date
    recorded now where none was before does not count as a change. Unreadable fingerprints must match exactly."""
    parsed_old, parsed_new = _parse_fingerprint(old), _parse_fingerprint(new)
    if parsed_old is None or parsed_new is None:
        return bool(old) and old == new
    (old_core, old_dates), (new_core, new_dates) = parsed_old, parsed_new
    return old_core == new_core and all(new_dates.get(key) == moment for key, moment in old_dates.items())


# --- the adjudicator --------------------------------------------------------------------------------


class Disagreement(StrEnum):
    DEGREE = "degree"
    """Anything short of TRUE against FALSE: reconcilable, never UNVERIFIABLE."""
    DIRECT = "direct"
    """Sourced panels say TRUE and FALSE."""


class AdjudicationRequest(BaseModel):
    """The conflict an adjudicator settles: the finished panels, with their admitted evidence, scope
    exclusions and corroboration decisions."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    panels: tuple[StoredPanel, ...]
    disagreement: Disagreement
    admitted_urls: tuple[str, ...] = Field(
        description="URLs the panels cite as evidence: the only citable ones"
    )
    instruction: str | None = Field(
        default=None, description="set on the retry after a rejected unverifiable"
    )
    claim_text: str = Field(default="", description="the claim the panels answer, when known")


class AdjudicationOutcome(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    verdict: Verdict
    confidence: float = Field(ge=0.0, le=1.0)
    explanation: str = ""
    cited_urls: tuple[str, ...] = ()
    irreconcilable_reason: str | None = None


class Adjudicator(Protocol):
    """Settles a sourced conflict; None when synthesis failed or is unavailable."""

    def adjudicate(self, request: AdjudicationRequest) -> AdjudicationOutcome | None: ...


def _trust_rank(stored: StoredPanel) -> tuple[float, int, float, int]:
    """Sort key for PARTIALLY_TRUE against FALSE without shared evidence: trust first."""
    panel = stored.panel
    return (-source_trust(panel), -source_count(panel), -panel.confidence, stored.panel_id)


def _urls(panels: Iterable[StoredPanel]) -> set[str]:
    return {c.url for p in panels for c in p.panel.sources}


def _sourced_substantive(panels: Iterable[StoredPanel]) -> list[StoredPanel]:
    return [p for p in panels if p.panel.verdict in SUBSTANTIVE_VERDICTS and p.panel.sources]


def _disagreement(conflicting: Sequence[StoredPanel]) -> Disagreement:
    verdicts = {p.panel.verdict for p in conflicting}
    return Disagreement.DIRECT if {Verdict.TRUE, Verdict.FALSE} <= verdicts else Disagreement.DEGREE


def fallback_panel(conflicting: Sequence[StoredPanel]) -> StoredPanel:
    """The cautious substantive panel that answers when adjudication is unavailable or fails."""
    substantive = [p for p in conflicting if p.panel.verdict in SUBSTANTIVE_VERDICTS]
    if not substantive:
        raise ValueError("no substantive panel to fall back on")
    verdicts = {p.panel.verdict for p in substantive}
    if verdicts == {Verdict.PARTIALLY_TRUE, Verdict.FALSE}:
        partial = [p for p in substantive if p.panel.verdict is Verdict.PARTIALLY_TRUE]
        false = [p for p in substantive if p.panel.verdict is Verdict.FALSE]
        if _urls(partial) & _urls(false):
            return min(partial, key=_trust_rank)
        return min(substantive, key=_trust_rank)
    return min(substantive, key=lambda p: (FALLBACK_ORDER.index(p.panel.verdict), agreement_rank(p)))


class OfflineAdjudicator:
    """Deterministic reconciliation for when no model is configured.

    A disagreement by degree is reconciled to the panel the fallback rules pick, citing its evidence. A
    direct TRUE/FALSE contradiction between sourced panels is reported as irreconcilable evidence, citing the
    best-sourced document on each side: without a model to weigh them, neither side can be preferred."""

    def adjudicate(self, request: AdjudicationRequest) -> AdjudicationOutcome | None:
        conflicting = _sourced_substantive(request.panels)
        if not conflicting:
            return None
        if request.disagreement is Disagreement.DEGREE:
            chosen = fallback_panel(conflicting)
            others = ", ".join(
                sorted(
                    {
                        p.panel.verdict.value
                        for p in conflicting
                        if p.panel.verdict is not chosen.panel.verdict
                    }
                )
            )
            return AdjudicationOutcome(
                verdict=chosen.panel.verdict,
                confidence=chosen.panel.confidence,
                explanation=(
                    f"The panels differ by degree ({chosen.panel.verdict.value} against {others}); "
                    f"reconciled to {chosen.panel.verdict.value}. {chosen.panel.explanation}"
                ).strip(),
                cited_urls=tuple(dict.fromkeys(c.url for c in chosen.panel.sources)),
            )
        true_side = best_sourced(p for p in conflicting if p.panel.verdict is Verdict.TRUE)
        false_side = best_sourced(p for p in conflicting if p.panel.verdict is Verdict.FALSE)
        reason = (
            f"Sourced panels contradict each other: {true_side.panel.sources[0].domain} supports the claim "
            f"and {false_side.panel.sources[0].domain} refutes it."
        )
        return AdjudicationOutcome(
            verdict=Verdict.UNVERIFIABLE,
            confidence=min(true_side.panel.confidence, false_side.panel.confidence),
            explanation=reason,
            cited_urls=(true_side.panel.sources[0].url, false_side.panel.sources[0].url),
            irreconcilable_reason=reason,
        )


# --- building the answer ----------------------------------------------------------------------------


def _fingerprints(panels: Iterable[StoredPanel]) -> dict[int, str]:
    return {p.panel_id: panel_fingerprint(p.panel) for p in panels}


def _from_panel(
    stored: StoredPanel,
    basis: Basis,
    considered: Sequence[StoredPanel],
    *,
    reason: AdjudicationReason | None = None,
    provisional: bool = False,
) -> ClaimVerdict:
    panel = stored.panel
    return ClaimVerdict(
        verdict=panel.verdict,
        confidence=panel.confidence,
        explanation=panel.explanation,
        sources=list(panel.sources),
        basis=basis,
        adjudication_reason=reason,
        panel_ids=sorted(p.panel_id for p in considered),
        selected_panel_id=stored.panel_id,
        provisional=provisional,
        panel_fingerprints=_fingerprints(considered),
    )


def _research_complete(panels: Sequence[StoredPanel], expected_modes: Iterable[ResearchMode]) -> bool:
    if any(p.panel.verdict is Verdict.PENDING for p in panels):
        return False
    expected = set(expected_modes) | {p.panel.research_mode for p in panels if p.manual}
    return expected <= {p.panel.research_mode for p in panels}


def _agreement_verdict(finished: Sequence[StoredPanel]) -> Verdict | None:
    """The verdict the panels agree on, treating UNVERIFIABLE and unsourced verdicts as abstentions when
    sourced panels agree; None when sourced substantive verdicts conflict or nothing sourced settles it."""
    verdicts = {p.panel.verdict for p in finished}
    if len(verdicts) == 1:
        return next(iter(verdicts))
    sourced = {p.panel.verdict for p in _sourced_substantive(finished)}
    return next(iter(sourced)) if len(sourced) == 1 else None


def _agreement_answer(
    finished: Sequence[StoredPanel], verdict: Verdict, elector_enabled: bool, chooser: Chooser | None
) -> ClaimVerdict:
    agreeing = [p for p in finished if p.panel.verdict is verdict]
    selected = best_sourced(agreeing)
    if elector_enabled:
        election = elect(finished, chooser)
        advised = next(
            (p for p in agreeing if election is not None and p.panel_id == election.panel_id), None
        )
        selected = advised or selected
    return _from_panel(selected, Basis.AGREEMENT, finished)


def _admitted_citations(panels: Sequence[StoredPanel]) -> dict[str, Citation]:
    admitted: dict[str, Citation] = {}
    for stored in sorted(panels, key=agreement_rank):
        for citation in stored.panel.sources:
            admitted.setdefault(citation.url, citation)
    return admitted


def rejection(outcome: AdjudicationOutcome, request: AdjudicationRequest) -> str | None:
    """Why ``outcome`` cannot answer ``request``, in words; None when it is usable."""
    if outcome.verdict is Verdict.PENDING:
        return "pending is not an answer"
    admitted = set(request.admitted_urls) | _urls(request.panels)
    cited = {url for url in outcome.cited_urls if url in admitted}
    if not cited:
        return "it cites none of the admitted evidence"
    if outcome.verdict in SUBSTANTIVE_VERDICTS:
        return None
    if request.disagreement is not Disagreement.DIRECT:
        return "unverifiable for a disagreement by degree, which must be reconciled"
    if not (outcome.irreconcilable_reason or "").strip():
        return "unverifiable without an irreconcilable-evidence reason"
    sides = [[p for p in request.panels if p.panel.verdict is v] for v in (Verdict.TRUE, Verdict.FALSE)]
    if not all(cited & _urls(side) for side in sides):
        return "unverifiable without admitted citations from both sides"
    return None


def _accepted(
    outcome: AdjudicationOutcome | None, request: AdjudicationRequest, admitted: dict[str, Citation]
) -> tuple[list[Citation], AdjudicationReason] | None:
    """The outcome's admitted citations and reason if it is usable, else None."""
    if outcome is None or rejection(outcome, request) is not None:
        return None
    cited = [admitted[url] for url in dict.fromkeys(outcome.cited_urls) if url in admitted]
    if not cited:
        return None
    if outcome.verdict in SUBSTANTIVE_VERDICTS:
        return cited, AdjudicationReason.RECONCILED_PANELS
    return cited, AdjudicationReason.IRRECONCILABLE_EVIDENCE


def _adjudicated(
    finished: Sequence[StoredPanel], adjudicator: Adjudicator | None, claim_text: str = ""
) -> ClaimVerdict:
    conflicting = _sourced_substantive(finished)
    disagreement = _disagreement(conflicting)
    admitted = _admitted_citations(finished)
    if adjudicator is not None:
        request = AdjudicationRequest(
            panels=tuple(finished),
            disagreement=disagreement,
            admitted_urls=tuple(admitted),
            claim_text=claim_text,
        )
        outcome = adjudicator.adjudicate(request)
        accepted = _accepted(outcome, request, admitted)
        if accepted is None and outcome is not None and outcome.verdict is Verdict.UNVERIFIABLE:
            request = request.model_copy(update={"instruction": RECONCILE_INSTRUCTION})
            outcome = adjudicator.adjudicate(request)
            accepted = _accepted(outcome, request, admitted)
        if accepted is not None and outcome is not None:
            cited, accepted_reason = accepted
            return ClaimVerdict(
                verdict=outcome.verdict,
                confidence=outcome.confidence,
                explanation=outcome.explanation or outcome.irreconcilable_reason or "",
                sources=cited,
                basis=Basis.ADJUDICATED,
                adjudication_reason=accepted_reason,
                panel_ids=sorted(p.panel_id for p in finished),
                panel_fingerprints=_fingerprints(finished),
            )
    fallback_reason = (
        AdjudicationReason.RECONCILABLE_PANELS_FALLBACK if disagreement is Disagreement.DEGREE else None
    )
    return _from_panel(fallback_panel(conflicting), Basis.FALLBACK, finished, reason=fallback_reason)


def _survives(previous: ClaimVerdict | None, finished: Sequence[StoredPanel]) -> bool:
    """Whether a stored adjudicated answer still stands: same panels, unchanged, and still valid."""
    if previous is None or previous.basis is not Basis.ADJUDICATED or previous.verdict is Verdict.PENDING:
        return False
    current = {p.panel_id: p for p in finished}
    if set(previous.panel_ids) != set(current) or set(previous.panel_fingerprints) != set(current):
        return False
    if not all(
        fingerprint_unchanged(previous.panel_fingerprints[pid], panel_fingerprint(stored.panel))
        for pid, stored in current.items()
    ):
        return False
    admitted = _urls(finished)
    if not previous.sources or any(c.url not in admitted for c in previous.sources):
        return False
    if previous.verdict in SUBSTANTIVE_VERDICTS:
        return previous.adjudication_reason is AdjudicationReason.RECONCILED_PANELS
    return (
        previous.adjudication_reason is AdjudicationReason.IRRECONCILABLE_EVIDENCE
        and _disagreement(_sourced_substantive(finished)) is Disagreement.DIRECT
    )


def build_claim_verdict(
    panels: Sequence[StoredPanel],
    expected_modes: Iterable[ResearchMode],
    *,
    operator_winner_panel_id: int | None = None,
    previous: ClaimVerdict | None = None,
    adjudicator: Adjudicator | None = None,
    provisional_allowed: bool = False,
    elector_enabled: bool = False,
    chooser: Chooser | None = None,
    claim_text: str = "",
) -> ClaimVerdict | None:
    """The claim's one answer, or None while research is pending.

    ``adjudicator`` None means adjudication is disabled, capped or unavailable: conflicts fall back (an
    unchanged adjudicated ``previous`` survives). Each ``adjudicate`` call may be billed; there are at most
    two per build (the second only after a rejected UNVERIFIABLE). ``claim_text`` is shown to the
    adjudicator, when it reads one."""
    finished = completed(panels)
    winner = next((p for p in finished if p.panel_id == operator_winner_panel_id), None)
    if winner is not None:
        return _from_panel(winner, Basis.OPERATOR, finished)
    if not _research_complete(panels, expected_modes):
        two_step = [p for p in finished if p.panel.research_mode is ResearchMode.TWO_STEP]
        if provisional_allowed and two_step:
            return _from_panel(best_sourced(two_step), Basis.AGREEMENT, finished, provisional=True)
        return None
    if not finished:
        return None
    agreed = _agreement_verdict(finished)
    if agreed is not None:
        return _agreement_answer(finished, agreed, elector_enabled, chooser)
    if not _sourced_substantive(finished):
        # Nothing sourced to adjudicate: the most cautious of the unsupported verdicts stands, flagged.
        return _from_panel(fallback_panel(finished), Basis.FALLBACK, finished)
    if previous is not None and _survives(previous, finished):
        return previous
    return _adjudicated(finished, adjudicator, claim_text)
