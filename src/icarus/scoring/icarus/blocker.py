"""A blocker: one thing that kept a claim at ❔, or a decided claim below high, as a code, figures and a
sentence. The type alone, so that a claim's outcome can carry its blockers while ``blockers`` (which
reads the outcome to find them) imports both."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Blocker", "BlockerCode", "FigureValue"]


class BlockerCode(StrEnum):
    """Stable blocker codes, in the order a claim lists them."""

    INELIGIBLE_DISPOSITION = "ineligible_disposition"  # G0
    IMAGE_TEXT_UNRELIABLE = "image_text_unreliable"  # G2
    UNANCHORED_EVIDENCE = "unanchored_evidence"  # G3 replaced the label
    EVIDENCE_RETRACTED = "evidence_retracted"  # G4 replaced the label
    DEVELOPING = "developing"  # G6 held a decided label
    GATE = "gate"  # any other gate that replaced the label
    NO_EVIDENCE = "no_evidence"
    OUT_OF_SCOPE = "out_of_scope"
    RISK_LIST = "risk_list"
    EXCLUDED = "excluded"
    JUDGE_NEUTRAL = "judge_neutral"
    NOT_ON_FILE = "not_on_file"
    UNDER_COUNTING_THRESHOLD = "under_counting_threshold"
    MIXED_ORIGIN = "mixed_origin"
    TOTAL_BELOW_FLOOR = "total_below_floor"
    INDEPENDENT_ORIGINS = "independent_origins"
    POLARITY_SHORT = "polarity_short"
    TOO_MANY_HOPS = "too_many_hops"
    UNRESOLVED = "unresolved"  # a ❔ no other blocker explains (kept so a ❔ never lists nothing)
    CORRECTION_WINDOW = "correction_window"  # G5 band cap
    ONGOING_BAND_CAP = "ongoing_band_cap"  # G6 band cap
    CONFIDENCE_BELOW_HIGH = "confidence_below_high"
    CONFIDENCE_PENALTY = "confidence_penalty"
    BAND_CAPPED = "band_capped"  # a decided claim's band under what its score earns, by no cap named above
    PUBLICATION_BLOCKED = "publication_blocked"  # G7 (added by ``publish.block_publication``)


FigureValue = str | int | tuple[str, ...] | Mapping[str, str] | Mapping[str, Mapping[str, str]]


@dataclass(frozen=True, slots=True)
class Blocker:
    """One thing that stops a verdict (or a high band): a stable code, its figures and a sentence."""

    code: BlockerCode
    message: str
    figures: tuple[tuple[str, FigureValue], ...] = ()

    def as_json(self) -> dict[str, object]:
        """``{"code": ..., <figures>..., "message": ...}``: lists for tuples, strings for decimals."""
        data: dict[str, object] = {"code": self.code.value}
        for key, value in self.figures:
            data[key] = list(value) if isinstance(value, tuple) else value
        data["message"] = self.message
        return data

    def figure(self, key: str) -> FigureValue | None:
        return next((value for name, value in self.figures if name == key), None)
