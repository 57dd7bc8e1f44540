"""The four published labels and three confidence bands, shared by every command that prints a result."""

from __future__ import annotations

from enum import StrEnum


class Label(StrEnum):
    SUPPORTED = "supported"
    MISLEADING = "misleading"
    NOT_SUPPORTED = "not_supported"
    UNVERIFIABLE = "unverifiable"

    @property
    def symbol(self) -> str:
        return _SYMBOLS[self]

    @property
    def heading(self) -> str:
        return _TITLES[self]

    @property
    def decided(self) -> bool:
        return self is not Label.UNVERIFIABLE


_SYMBOLS = {
    Label.SUPPORTED: "✅",
    Label.MISLEADING: "⚠️",
    Label.NOT_SUPPORTED: "❌",
    Label.UNVERIFIABLE: "❔",
}
_TITLES = {
    Label.SUPPORTED: "Supported",
    Label.MISLEADING: "Misleading or missing context",
    Label.NOT_SUPPORTED: "Not supported by evidence",
    Label.UNVERIFIABLE: "Unverifiable",
}

# Most adverse first: the overall result is the first of these that any claim carries.
ADVERSITY_ORDER: tuple[Label, ...] = (Label.NOT_SUPPORTED, Label.MISLEADING, Label.SUPPORTED)


class Band(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"

    @property
    def rank(self) -> int:
        return _BAND_RANK[self]


_BAND_RANK = {Band.LOW: 0, Band.MEDIUM: 1, Band.HIGH: 2}


def lower_band(a: Band, b: Band) -> Band:
    return a if a.rank <= b.rank else b


def most_adverse(labels: list[Label]) -> Label:
    """Most adverse decided label; an unverifiable claim never overwrites a decided one."""
    for label in ADVERSITY_ORDER:
        if label in labels:
            return label
    return Label.UNVERIFIABLE
