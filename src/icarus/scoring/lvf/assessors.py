"""LVF assessors: typed judges that score the six criteria 0-10 for one claim.

``LedgerAssessor`` (``ledger-deterministic@1``) always runs. It reads only the evidence ledger and the
provenance graph, so the same ledger always gets the same scores:

* source provenance: the best counted item's directness points, capped for limited access, less a penalty
  for anonymous sourcing and for an item with no content hash or snapshot (not traceable);
* corroboration: points by the number of independent origins (provenance clusters) that support the
  claim, never by the number of articles;
* internal consistency: 10 x supporting origins / (supporting + refuting origins); 0 when the claim
  misstates material it cites (rule 1: a verified H20 self-evidence finding, H16, H12 or H13);
* specificity: points per specific cue in the claim (a number, a percentage, a unit, a date, a name; the
  ledger's figures and event date count as number and date), capped at 10;
* temporal validity: 10 for a historical claim; for a current or ongoing claim, points by the age of the
  newest counted item at the ledger's as-of time;
* bias signal: 10 x the share of counted items without an incentive signal (a disclosed conflict of
  interest, self-citation, a press release, a generally unreliable or Iffy-listed source). A source's
  bias label is display only and is never read.

Scores are decimals rounded half-even to one decimal place. Other assessors (an LLM) implement the same
protocol; the engine reconciles them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from enum import StrEnum
from typing import Protocol, runtime_checkable

from icarus.claims.cues import checkworthiness
from icarus.ledger import Access, Directness, Ledger, RiskRating, SourceClass, TemporalScope
from icarus.scoring.lvf.config import Criterion, LvfConfig
from icarus.scoring.lvf.facts import ClaimFacts, CountedItem

__all__ = [
    "LEDGER_ASSESSOR",
    "LLM_ASSESSOR",
    "SPECIFIC_CUES",
    "AssessmentRequest",
    "Assessor",
    "AssessorResult",
    "AssessorStatus",
    "LedgerAssessor",
    "clamp_score",
]

LEDGER_ASSESSOR = "ledger-deterministic@1"
# The LLM assessor runs at the front door (``icarus.lvf.llm``); its name is here for the methodology page.
LLM_ASSESSOR = "openai-compatible-lvf@1"
SCALE_MAX = Decimal(10)
_TENTH = Decimal("0.1")
SPECIFIC_CUES = ("number", "percent", "unit", "date", "named_entity")
"""Checkworthiness features that make a claim precise enough to test."""

_LIMITED_ACCESS = frozenset({Access.PAYWALL, Access.ABSTRACT_ONLY, Access.SNIPPET_ONLY})


class AssessorStatus(StrEnum):
    OK = "ok"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class AssessmentRequest:
    """Everything an assessor may read about one claim. ``ledger`` is there for excerpts and as-of time."""

    ledger: Ledger
    facts: ClaimFacts
    config: LvfConfig


@dataclass(frozen=True, slots=True)
class AssessorResult:
    """One assessor's answer. A failed assessor has no scores and does not count toward the minimum."""

    assessor: str  # name@version
    provider: str
    version: str
    status: AssessorStatus
    scores: dict[Criterion, Decimal] = field(default_factory=dict)
    notes: dict[Criterion, str] = field(default_factory=dict)
    failure: str = ""
    prompt_hash: str | None = None  # private: what the model was shown
    raw_response: str | None = None  # private: the model's answer exactly as received


@runtime_checkable
class Assessor(Protocol):
    name: str

    def assess(self, request: AssessmentRequest) -> AssessorResult: ...


def clamp_score(value: Decimal) -> Decimal:
    """Clamp to 0-10 and round half-even to one decimal place."""
    return min(max(value, Decimal(0)), SCALE_MAX).quantize(_TENTH, rounding=ROUND_HALF_EVEN)


class LedgerAssessor:
    """The deterministic assessor: computed from the ledger and the provenance graph, never a model."""

    name = LEDGER_ASSESSOR

    def assess(self, request: AssessmentRequest) -> AssessorResult:
        facts, settings = request.facts, request.config.ledger_assessor
        scores: dict[Criterion, Decimal] = {}
        notes: dict[Criterion, str] = {}

        scores[Criterion.SOURCE_PROVENANCE], notes[Criterion.SOURCE_PROVENANCE] = self._provenance(
            facts.counted, request
        )

        supporting, refuting = len(facts.supporting), len(facts.refuting)
        table = settings.corroboration_points
        scores[Criterion.CORROBORATION] = table[min(supporting, len(table) - 1)]
        notes[Criterion.CORROBORATION] = f"{supporting} supporting independent origin(s)"

        if facts.misrepresentations:
            scores[Criterion.INTERNAL_CONSISTENCY] = Decimal(0)
            notes[Criterion.INTERNAL_CONSISTENCY] = "the claim misstates what it cites: " + ", ".join(
                facts.misrepresentations
            )
        elif supporting + refuting == 0:
            scores[Criterion.INTERNAL_CONSISTENCY] = settings.without_evidence
            notes[Criterion.INTERNAL_CONSISTENCY] = "no counted evidence to compare"
        else:
            scores[Criterion.INTERNAL_CONSISTENCY] = SCALE_MAX * supporting / (supporting + refuting)
            notes[Criterion.INTERNAL_CONSISTENCY] = f"{supporting} supporting, {refuting} refuting origin(s)"

        cues = self._specific_cues(request)
        scores[Criterion.SPECIFICITY] = settings.specificity_points_per_cue * len(cues)
        notes[Criterion.SPECIFICITY] = "specific cues: " + (", ".join(cues) or "none")

        scores[Criterion.TEMPORAL_VALIDITY], notes[Criterion.TEMPORAL_VALIDITY] = self._temporal(request)

        if not facts.counted:
            scores[Criterion.BIAS_SIGNAL] = settings.without_evidence
            notes[Criterion.BIAS_SIGNAL] = "no counted evidence"
        else:
            flagged = sum(1 for c in facts.counted if _incentive_signal(c))
            scores[Criterion.BIAS_SIGNAL] = SCALE_MAX * (len(facts.counted) - flagged) / len(facts.counted)
            notes[Criterion.BIAS_SIGNAL] = (
                f"{flagged} of {len(facts.counted)} counted item(s) carry an incentive signal"
            )

        return AssessorResult(
            assessor=self.name,
            provider="icarus",
            version="1",
            status=AssessorStatus.OK,
            scores={c: clamp_score(scores[c]) for c in Criterion},
            notes={c: notes[c] for c in Criterion},
        )

    @staticmethod
    def _provenance(counted: tuple[CountedItem, ...], request: AssessmentRequest) -> tuple[Decimal, str]:
        settings = request.config.ledger_assessor
        if not counted:
            return Decimal(0), "no counted evidence"
        best: tuple[Decimal, str] | None = None
        for entry in counted:
            item = entry.item
            points = settings.directness_points[item.directness.value]
            if item.flags.access in _LIMITED_ACCESS:
                points = min(points, settings.limited_access_cap)
            if item.flags.anonymous_sourcing:
                points -= settings.anonymous_sourcing_penalty
            if not item.content_sha256 or item.snapshot is None:
                points -= settings.untraceable_penalty
            if best is None or points > best[0]:
                best = (points, item.evidence_id)
        assert best is not None
        return best[0], f"best counted item {best[1]}"

    @staticmethod
    def _specific_cues(request: AssessmentRequest) -> list[str]:
        claim = request.facts.claim
        fired = set(checkworthiness(claim.text).features)
        if claim.figures:
            fired.add("number")
        if claim.event_date is not None:
            fired.add("date")
        return [cue for cue in SPECIFIC_CUES if cue in fired]

    @staticmethod
    def _temporal(request: AssessmentRequest) -> tuple[Decimal, str]:
        settings = request.config.ledger_assessor
        claim = request.facts.claim
        if claim.temporal_scope is TemporalScope.HISTORICAL:
            return SCALE_MAX, "a settled past fact: not time-sensitive"
        dates = [d for d in (_dated(c) for c in request.facts.counted) if d is not None]
        if not dates:
            return settings.temporal_undated, "time-sensitive claim without dated counted evidence"
        age_days = (request.ledger.as_of - max(dates)).days
        for step in settings.temporal_steps:
            if age_days <= step.max_age_days:
                return step.points, f"newest counted evidence {age_days} day(s) old"
        return settings.temporal_older, f"newest counted evidence {age_days} day(s) old"


def _dated(entry: CountedItem) -> datetime | None:
    return entry.item.published_at or entry.item.updated_at


def _incentive_signal(entry: CountedItem) -> bool:
    item = entry.item
    record = item.reputation
    return (
        item.flags.conflict_of_interest
        or item.flags.self_citation
        or item.source_class is SourceClass.RELEASE_SERVICE
        or item.directness is Directness.RELEASE
        or record.risk_rating is RiskRating.GENERALLY_UNRELIABLE
        or record.on_iffy_index
    )
