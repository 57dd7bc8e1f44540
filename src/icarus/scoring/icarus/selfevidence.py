"""Rule 1's inputs: ways the post misstates what it cites or what the evidence says (H20, H16, H12, H13),
and the subject-side numeric caveat (H15)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from icarus.ledger import Claim, EvidenceItem, EvidenceRole, Figure, Ledger
from icarus.scoring.icarus.assess import LIMITED_ACCESS, RETRACTION_UPDATES
from icarus.scoring.icarus.config import PolicyConfig
from icarus.scoring.icarus.statistics import arithmetic_fails, conflates_percent_and_points, lacks_base_rate

RETRACTION_DISCLOSURE = ("retract", "withdrawn")


@dataclass(frozen=True, slots=True)
class Misrepresentation:
    rule: str
    message: str
    evidence_id: str | None = None
    excerpt: str | None = None


@dataclass(frozen=True, slots=True)
class SelfEvidenceCheck:
    misrepresentations: tuple[Misrepresentation, ...]
    rejected_findings: tuple[str, ...]  # why proposed H20 findings were not verified
    caveats: tuple[str, ...]
    flags: tuple[str, ...]
    # (rule, figure) for each flag above: the claim's own figure that rule fired on.
    flagged_figures: tuple[tuple[str, Figure], ...] = ()


def check_claim(claim: Claim, ledger: Ledger, policy: PolicyConfig) -> SelfEvidenceCheck:
    items = {item.evidence_id: item for item in ledger.evidence}
    found: list[Misrepresentation] = []
    rejected: list[str] = []
    caveats: list[str] = []
    flags: list[str] = []
    flagged: list[tuple[str, Figure]] = []

    for finding in claim.self_evidence:
        item = items.get(finding.evidence_id)
        problem = _finding_problem(
            item, finding.span.slice(item.text) if item else "", finding.excerpt, ledger
        )
        if problem:
            rejected.append(f"{finding.kind.value} on {finding.evidence_id}: {problem}")
            continue
        found.append(
            Misrepresentation(
                "H20",
                f"{finding.kind.value.replace('_', ' ')}; the cited material reads: \u201c{finding.excerpt}\u201d",
                finding.evidence_id,
                finding.excerpt,
            )
        )

    for item in ledger.evidence:
        if _cites_retracted_without_saying(item, claim, ledger, policy):
            found.append(Misrepresentation("H16", "cites retracted work without saying so", item.evidence_id))

    tolerance = policy.statistics.relative_tolerance
    for figure in claim.figures:
        if _subject_conflates(figure, claim, ledger, tolerance):
            flags.append("H12")
            flagged.append(("H12", figure))
            if policy.live("H12.force_misleading"):
                found.append(
                    Misrepresentation("H12", f"percent and percentage points conflated ({figure.measure})")
                )
        elif policy.live("H13.arithmetic") and arithmetic_fails(figure, tolerance):
            flags.append("H13")
            flagged.append(("H13", figure))
            found.append(
                Misrepresentation("H13", f"stated figure does not follow from its inputs ({figure.measure})")
            )
        if lacks_base_rate(figure):
            flags.append("H15")
            flagged.append(("H15", figure))
            if policy.live("H15.caveat"):
                caveats.append("numeric context missing: relative figure without a base rate")
    return SelfEvidenceCheck(
        tuple(found),
        tuple(rejected),
        tuple(dict.fromkeys(caveats)),
        tuple(dict.fromkeys(flags)),
        tuple(flagged),
    )


def _finding_problem(item: EvidenceItem | None, sliced: str, excerpt: str, ledger: Ledger) -> str:
    if item is None:
        return "cites an evidence id that is not in the ledger"
    cited_urls = {link.url for link in ledger.subject.cited_links}
    cited_ids = {link.evidence_id for link in ledger.subject.cited_links}
    if (
        item.role is not EvidenceRole.CITED_BY_SUBJECT
        and item.url not in cited_urls
        and item.evidence_id not in cited_ids
    ):
        return "the item is not material the post cites"
    if item.flags.access in LIMITED_ACCESS:
        return f"access limited ({item.flags.access.value}) cannot anchor a self-evidence finding (H28)"
    if not excerpt.strip():
        return "empty excerpt"
    if sliced != excerpt:
        return "excerpt is not a verbatim substring of the snapshot at its offsets"
    return ""


def _cites_retracted_without_saying(
    item: EvidenceItem, claim: Claim, ledger: Ledger, policy: PolicyConfig
) -> bool:
    if item.role is not EvidenceRole.CITED_BY_SUBJECT or item.judgment_for(claim.claim_id) is None:
        return False
    retracted = item.flags.retracted
    if policy.live("H16.lookup"):
        retracted = retracted or any(
            update.update_type in RETRACTION_UPDATES for lookup in item.lookups for update in lookup.updates
        )
    else:
        retracted = retracted or any(
            update.update_type in RETRACTION_UPDATES and update.source not in ("crossref", "retraction_watch")
            for lookup in item.lookups
            for update in lookup.updates
        )
    if not retracted:
        return False
    subject_text = " ".join(field.text for field in ledger.subject.fields).lower()
    return not any(word in subject_text for word in RETRACTION_DISCLOSURE)


def _subject_conflates(figure: Figure, claim: Claim, ledger: Ledger, tolerance: Decimal) -> bool:
    """H12 on the post's figure, using its own levels or the levels the matched evidence gives."""
    if conflates_percent_and_points(figure, None, tolerance):
        return True
    for item in ledger.evidence:
        judgment = item.judgment_for(claim.claim_id)
        if judgment is None:
            continue
        for reference in item.figures:
            same_measure = reference.measure == figure.measure and len(reference.operands) == 2
            if same_measure and conflates_percent_and_points(figure, list(reference.operands), tolerance):
                return True
    return False
