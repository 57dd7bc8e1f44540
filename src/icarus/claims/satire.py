"""Claims about satire itself: "…, says satirical site The Onion".

The rubric gives satire no factual verdict (G0) and no corroboration weight, "unless the claim concerns the
satire itself" (H6). A clause that credits its words to a source it calls satirical is such a claim: it
asserts what the satire published, not the event the satire describes (``cues.credits_satire``; extraction
types it ``quote``). For it, the satirical source's own piece is the evidence that matters, so a judgment
of an item from that same source is marked ``claim_is_about_source`` and H6 lets it weigh. Items from
other satirical sources stay at weight 0: they are not the satire the claim is about.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from icarus.claims.cues import credits_satire
from icarus.ledger.claims import Claim
from icarus.ledger.evidence import EvidenceItem, SourceClass

__all__ = ["admit_satire_about_itself", "names_source"]

_NOT_ALNUM = re.compile(r"[\W_]+")
_MIN_NAME_CHARS = 4  # shorter names ("AP", "X") would match inside any word


def names_source(claim_text: str, item: EvidenceItem) -> bool:
    """The claim names the item's publisher, or the first label of its domain ("theonion" in theonion.com),
    compared without spaces or punctuation."""
    said = _NOT_ALNUM.sub("", claim_text).casefold()
    names = [_NOT_ALNUM.sub("", item.publisher).casefold(), item.domain.split(".")[0].casefold()]
    return any(len(name) >= _MIN_NAME_CHARS and name in said for name in names)


def admit_satire_about_itself(
    evidence: Sequence[EvidenceItem], claims: Sequence[Claim]
) -> list[EvidenceItem]:
    """``evidence`` with each judgment of a satirical item against a claim about that same satire marked
    ``claim_is_about_source`` (H6's exception). Everything else is returned as it was."""
    about_satire = {claim.claim_id: claim.text for claim in claims if credits_satire(claim.text)}
    if not about_satire:
        return list(evidence)
    updated: list[EvidenceItem] = []
    for item in evidence:
        if item.source_class is not SourceClass.SATIRE:
            updated.append(item)
            continue
        judgments = [
            judgment.model_copy(update={"claim_is_about_source": True})
            if judgment.claim_id in about_satire and names_source(about_satire[judgment.claim_id], item)
            else judgment
            for judgment in item.judgments
        ]
        updated.append(item.model_copy(update={"judgments": judgments}))
    return updated
