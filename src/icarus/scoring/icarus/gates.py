"""Hard gates G0-G7. Gates run after scoring and may only weaken or prevent a conclusion.

Each function here is a pure test that says whether its gate fires and why; ``engine`` applies the
effect (a decided label becomes unverifiable, a band is capped, rechecks are scheduled). G3 and G4 compare
scoring passes that ``engine`` runs; ``g4_retraction`` says what G4 publishes from the two labels.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from icarus.ledger import Claim, Disposition, FieldName, Ledger, SubjectKind
from icarus.scoring.icarus import markers
from icarus.scoring.icarus.aggregate import ClusterSummary
from icarus.scoring.icarus.confidence import band_for
from icarus.scoring.icarus.config import PolicyConfig
from icarus.scoring.labels import Band, Label, most_adverse
from icarus.text.markers import NEGATION_WORDS

DISPOSITION_REASONS = {
    Disposition.OPINION: "non-literal opinion",
    Disposition.PREDICTION: "prediction",
    Disposition.SATIRE: "satire",
    Disposition.JOKE: "joke",
    Disposition.PERSONAL_ADVICE: "personal advice",
    Disposition.PRIVATE_INDIVIDUAL: "concerns a named private individual",
    Disposition.IMPLIED_NEEDS_INTENT: "implied claim that would need a guess at intent",
}


@dataclass(frozen=True, slots=True)
class GateEvent:
    gate: str
    effect: str  # "unverifiable", "band_cap", "recheck", "caveat", "blocked", "rejected_draft"
    message: str


def g0_ineligibility(claim: Claim, ledger: Ledger) -> str | None:
    """G0: the reason a claim may not receive a factual verdict, or None if it may."""
    subject = ledger.subject
    if subject.kind is SubjectKind.X_POST and not subject.is_direct_parent:
        return "the subject is not the tagging reply's direct parent"
    if not subject.language.lower().startswith("en"):
        if subject.language_confidence is not None:
            return (
                f"not English ({subject.language}, identified with confidence {subject.language_confidence})"
            )
        return f"not English ({subject.language})"
    if subject.has_video_or_audio and claim.source_field is FieldName.TRANSCRIPT:
        return "drawn from video or audio"
    source = subject.field_text(claim.source_field)
    if source is None:
        return f"the subject has no captured {claim.source_field.value} field"
    if claim.span.end > len(source) or claim.span.slice(source) != claim.text:
        return f"the displayed claim is not an exact slice of {claim.source_field.value}"
    if claim.disposition is not Disposition.CHECKABLE:
        return DISPOSITION_REASONS[claim.disposition]
    return None


RETRACTED = "evidence retracted"


def g4_retraction(before: Label, after: Label) -> tuple[Label, GateEvent] | None:
    """G4, as ruled on 2026-12-01 (spec section 6.10): what to publish when applying retractions (V = 0)
    moved the label from ``before`` to ``after``; None when it did not move.

    The recomputed label is published, whatever it is, with the reason "evidence retracted". G4 itself acts
    only on a ✅ or ❌ whose rule (4 or 5) no longer holds after the retraction: that claim becomes ❔ (and
    its band low). So ⚠️ -> ❌ publishes ❌ and ❔ -> ⚠️ publishes ⚠️, while ✅ -> ❔, ✅ -> ⚠️ and ✅ -> ❌
    (likewise from ❌) publish ❔: a gate never flips ✅ and ❌ into each other.
    """
    if after is before:
        return None
    if before in (Label.SUPPORTED, Label.NOT_SUPPORTED):
        return Label.UNVERIFIABLE, GateEvent("G4", "unverifiable", RETRACTED)
    return after, GateEvent("G4", "recomputed", RETRACTED)


def g2_unreliable_image_text(claim: Claim, ledger: Ledger, policy: PolicyConfig) -> str | None:
    """G2: a load-bearing token of image-derived claim text was read with low confidence or disputed."""
    if claim.source_field is not FieldName.IMAGE_TEXT:
        return None
    threshold = policy.gates.ocr_min_confidence
    for image in ledger.subject.images:
        for token in image.tokens:
            overlaps = token.span.start < claim.span.end and token.span.end > claim.span.start
            second = token.second_pass_text
            # Either reading can carry the meaning: "now" read as "not" by the second pass matters.
            if not overlaps or not (is_load_bearing(token.text) or (second and is_load_bearing(second))):
                continue
            if token.confidence < threshold:
                return f"image text \u201c{token.text}\u201d read with confidence {token.confidence}"
            if token.second_pass_text is not None and token.second_pass_text != token.text:
                return f"two OCR passes disagree: \u201c{token.text}\u201d vs \u201c{token.second_pass_text}\u201d"
    return None


def is_load_bearing(token: str) -> bool:
    """Digits, units, negations and capitalised names carry a claim's meaning."""
    bare = token.strip(".,;:!?\"'()[]")
    lowered = bare.lower()
    return (
        bool(markers.DIGIT.search(bare))
        or lowered in markers.UNIT_WORDS
        or lowered in NEGATION_WORDS
        or lowered.endswith("n't")
        or (len(bare) > 1 and bare[0].isupper())
    )


def g5_correction_window(counted: list[ClusterSummary], as_of: datetime, policy: PolicyConfig) -> str | None:
    """G5: a counted item has an open correction or expression of concern, or was corrected, updated or
    changed (H24/H25) within the correction window."""
    window = timedelta(hours=policy.gates.correction_window_hours)
    for summary in counted:
        for member in summary.members:
            if member.open_correction:
                return f"{member.evidence_id} has an unresolved correction or expression of concern"
            if member.last_change is not None and as_of - member.last_change[0] < window:
                return f"{member.evidence_id} was {member.last_change[1]} within the correction window"
    return None


def g6_is_ongoing(claim: Claim, counted: list[ClusterSummary], as_of: datetime, policy: PolicyConfig) -> bool:
    """G6's test of an ongoing situation, as the spec defines one: the event began less than the window ago
    with no concluding statement, or a counted item carries live or breaking markers. The extractor's
    ``ongoing`` wording label alone does not hold a label back (it schedules rechecks), and a claim worded
    in the past tense about an incident that began an hour ago is still a developing story."""
    window = timedelta(hours=policy.gates.ongoing_window_hours)
    recent = (
        claim.event_started_at is not None
        and as_of - claim.event_started_at < window
        and not claim.event_concluded
    )
    live = any(member.live_coverage for summary in counted for member in summary.members)
    return recent or live


def g6_hold(claim: Claim, scored: Label, ledger: Ledger, policy: PolicyConfig) -> tuple[bool, bool]:
    """G6 for an ongoing claim: (hold the label as unverifiable, cap the band at medium)."""
    started = ledger.history.started_at or ledger.as_of
    offsets = policy.gates.recheck_offsets_minutes
    first_recheck = started + timedelta(minutes=offsets[0])
    cap = ledger.as_of < started + timedelta(hours=policy.gates.ongoing_window_hours)
    if not scored.decided:
        return False, cap
    if ledger.as_of < first_recheck:
        return True, cap
    earlier = [run for run in ledger.history.prior_runs if run.as_of < ledger.as_of]
    if not earlier:
        return True, cap
    previous = max(earlier, key=lambda run: run.as_of).scored_labels.get(claim.claim_id)
    return previous != scored.value, cap


def g7_violations(
    result: dict[str, Any], ledger: Ledger, policy: PolicyConfig, scores: dict[str, Decimal] | None = None
) -> list[str]:
    """G7: publication integrity of an assembled result. Any violation blocks the version.

    ``scores`` maps claim ids to their confidence scores: a published band may sit below the band its score
    earns (gates cap bands) but never above it.
    """
    problems: list[str] = []
    labels: list[Label] = []
    allowed = {label.value for label in Label}
    bands = {band.value for band in Band}
    for claim in result.get("claims", []):
        if claim.get("label") not in allowed:
            problems.append(f"claim {claim.get('id')}: label {claim.get('label')!r} is not one of the four")
            continue
        labels.append(Label(claim["label"]))
        if claim.get("band") not in bands:
            problems.append(f"claim {claim.get('id')}: band {claim.get('band')!r} is not a band")
        elif scores is not None and claim.get("id") in scores:
            earned = band_for(scores[claim["id"]], policy)
            if Band(claim["band"]).rank > earned.rank:
                problems.append(f"claim {claim['id']}: band {claim['band']} is above what its score earns")
    overall = result.get("overall", {})
    if overall.get("label") not in allowed:
        problems.append("overall label is not one of the four")
    elif labels and overall["label"] != most_adverse(labels).value:
        problems.append("overall label is not the most adverse decided claim")
    elif not labels and overall["label"] != Label.UNVERIFIABLE.value:
        problems.append("overall label is decided although no claim was assessed")
    for draft in ledger.drafts:
        if markers.HONESTY_OR_INTENT.search(draft.text):
            problems.append(f"draft for {draft.claim_id} asserts honesty or intent")
        if markers.AI_DETECTOR.search(draft.text):
            problems.append(f"draft for {draft.claim_id} cites an AI-text-detector score")
    return problems


def g3_rejected_drafts(ledger: Ledger) -> list[str]:
    """G3 for model drafts: a citation of a URL or id that is not in the ledger rejects the draft."""
    ids = {item.evidence_id for item in ledger.evidence}
    urls = {item.url for item in ledger.evidence}
    rejected: list[str] = []
    for draft in ledger.drafts:
        unknown = [i for i in draft.cited_evidence_ids if i not in ids] + [
            u for u in draft.cited_urls if u not in urls
        ]
        if unknown:
            rejected.append(
                f"draft for {draft.claim_id} cites what the ledger does not hold: {', '.join(unknown)}"
            )
    return rejected
