"""schema.org ClaimReview JSON-LD for the decided claims of a published result.

Only decided claims get one: a ❔ claim has no rating to publish. The rating scale is Icarus's own three
decided labels (1 not supported, 2 misleading, 3 supported) with the label's title as ``alternateName``,
which is the part search engines show.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["RATINGS", "claim_reviews"]

RATINGS: Final = {
    "not_supported": (1, "Not supported"),
    "misleading": (2, "Misleading"),
    "supported": (3, "Supported"),
}
WORST, BEST = 1, 3


def claim_reviews(
    result: Mapping[str, Any],
    *,
    report_url: str,
    published_at: str,
    organisation_url: str,
    subject_url: str | None = None,
) -> list[dict[str, Any]]:
    """One ClaimReview per decided claim of ``result``, each pointing at the version's report page."""
    reviews: list[dict[str, Any]] = []
    for claim in result.get("claims") or []:
        if not isinstance(claim, Mapping) or claim.get("label") not in RATINGS:
            continue
        value, title = RATINGS[str(claim["label"])]
        item: dict[str, Any] = {"@type": "Claim"}
        if subject_url:
            item["appearance"] = [{"@type": "CreativeWork", "url": subject_url}]
        reviews.append(
            {
                "@context": "https://schema.org",
                "@type": "ClaimReview",
                "url": f"{report_url}#claim-{claim.get('id')}",
                "claimReviewed": str(claim.get("text", "")),
                "datePublished": published_at,
                "author": {"@type": "Organization", "name": "Icarus", "url": organisation_url},
                "reviewRating": {
                    "@type": "Rating",
                    "ratingValue": value,
                    "worstRating": WORST,
                    "bestRating": BEST,
                    "alternateName": title,
                    "ratingExplanation": f"confidence band: {claim.get('band')}; as of {result.get('as_of')}",
                },
                "itemReviewed": item,
            }
        )
    return reviews
