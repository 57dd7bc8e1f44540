"""From a scored claim to a research panel's verdict, and how the parts of a decomposed claim combine.

A panel speaks the verdicts a debate reader sees: ``true``, ``false``, ``partially_true``, ``misleading``
and ``unverifiable`` (``pending`` is a state of research, never a scoring outcome). A published label maps
one to one: ✅ supported → ``true``, ❌ not supported → ``false``, ⚠️ misleading → ``misleading``,
❔ unverifiable → ``unverifiable``.

``combine_parts`` is the rule for a claim split into parts, each researched and scored on its own:

1. No strict majority of the parts decided (not ``unverifiable``) → ``unverifiable``: too little of the
   claim was settled to answer for it (one part of two is not enough).
2. Otherwise only the decided parts count:
   every one ``true`` → ``true``; every one ``false`` → ``false``; every one ``misleading`` →
   ``misleading``; some ``true`` and some ``false``, ``misleading`` or ``partially_true`` →
   ``partially_true``; no ``true`` part, a mix of ``false`` and ``misleading`` → ``false``; a mix of
   ``partially_true`` with ``false`` or ``misleading`` only → ``partially_true``.

Its confidence is the mean confidence of the decided parts, scaled by the share of parts decided.
Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Final, Literal

from icarus.scoring.labels import Band, Label

__all__ = [
    "BAND_CONFIDENCE",
    "LABEL_VERDICTS",
    "PanelVerdictName",
    "combine_parts",
    "panel_confidence",
    "verdict_for_label",
]

PanelVerdictName = Literal["true", "false", "partially_true", "misleading", "unverifiable"]

LABEL_VERDICTS: Final[Mapping[Label, PanelVerdictName]] = {
    Label.SUPPORTED: "true",
    Label.NOT_SUPPORTED: "false",
    Label.MISLEADING: "misleading",
    Label.UNVERIFIABLE: "unverifiable",
}

BAND_CONFIDENCE: Final[Mapping[Band, Decimal]] = {
    Band.HIGH: Decimal("0.85"),
    Band.MEDIUM: Decimal("0.6"),
    Band.LOW: Decimal("0.35"),
}
"""Stands in for the confidence score when a result gives only its band."""


def verdict_for_label(label: str) -> PanelVerdictName:
    """The panel verdict for a published label (``supported``, ``misleading``, ``not_supported``,
    ``unverifiable``). Raises ``ValueError`` for anything else."""
    return LABEL_VERDICTS[Label(label)]


def panel_confidence(score: str | Decimal | None, band: str | None) -> Decimal:
    """The claim's confidence score from the result trace, clamped to [0, 1]; the band's stand-in when the
    score is missing; 0 when neither is known."""
    if score is not None:
        return min(Decimal(1), max(Decimal(0), Decimal(score)))
    if band is not None:
        return BAND_CONFIDENCE[Band(band)]
    return Decimal(0)


def combine_parts(parts: Sequence[tuple[PanelVerdictName, Decimal]]) -> tuple[PanelVerdictName, Decimal]:
    """The verdict and confidence of a claim from its parts' (verdict, confidence); see the module text."""
    decided = [(verdict, confidence) for verdict, confidence in parts if verdict != "unverifiable"]
    if not parts or len(decided) * 2 <= len(parts):
        return "unverifiable", Decimal(0)
    verdicts: set[PanelVerdictName] = {verdict for verdict, _ in decided}
    confidence = sum((c for _, c in decided), Decimal(0)) / len(parts)  # mean of decided × share decided
    return _combined(verdicts), confidence


def _combined(verdicts: set[PanelVerdictName]) -> PanelVerdictName:
    if len(verdicts) == 1:
        return next(iter(verdicts))
    if "true" in verdicts or "partially_true" in verdicts:
        return "partially_true"
    return "false"  # false and misleading parts, none true: the claim as stated does not hold
