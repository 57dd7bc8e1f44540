"""A registry entry: the reputation record the scorer uses, its source class, and where each field came from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from icarus.ledger import ReputationMethod, ReputationRecord, SourceClass

__all__ = ["FIELDS", "RegistryEntry", "source_label", "source_name"]

FIELDS = ("score", "tier", "source_class", "risk_rating", "on_iffy_index")
"""The fields of an entry that a merge decides one by one, and for which it names the source."""


@dataclass(frozen=True)
class RegistryEntry:
    record: ReputationRecord
    source_class: SourceClass
    sources: tuple[RegistryEntry, ...] = ()
    """When several sources name the domain: each one's own entry, from which ``record`` was merged. A later
    import of one of those datasets replaces its own part and the merge is redone, so nothing is counted twice."""
    note: str | None = None
    """What the source says about who holds the domain (the .gov registry's owning organisation, a
    university's name, the registration rule that matched), for display."""
    provenance: Mapping[str, str] | None = field(default=None, compare=False)
    """Set by a merge: which source set each field (see :attr:`field_sources`). Derived from ``sources``, so it
    takes no part in equality."""

    @property
    def field_sources(self) -> dict[str, str]:
        """Field name -> the label of the source that set it (``source_label``); a field no source set (no
        risk rating, not on the Iffy Index) is absent."""
        if self.provenance is not None:
            return dict(self.provenance)
        label = source_label(self)
        fields = {"score": label, "tier": label, "source_class": label}
        if self.record.risk_rating is not None:
            fields["risk_rating"] = label
        if self.record.on_iffy_index:
            fields["on_iffy_index"] = label
        return fields


def source_name(entry: RegistryEntry) -> str:
    """The source an entry comes from: ``manual`` for any reviewed record, else its dataset or rule name."""
    if entry.record.method is ReputationMethod.MANUAL:
        return "manual"
    return entry.record.produced_by.split("@", 1)[0]


def source_label(entry: RegistryEntry) -> str:
    """Source name and version as shown beside a field: ``lin2023@<file sha>``, ``perennial@2021-03-17``,
    ``manual reviewer:editor@2`` (a reviewed record: who and which record version), ``heuristic
    domain-features@1`` (an estimate, not on file)."""
    record = entry.record
    if record.method is ReputationMethod.MANUAL:
        return f"manual {record.produced_by}@{record.version}"
    if record.method is ReputationMethod.HEURISTIC:
        return f"heuristic {record.produced_by}"
    return record.produced_by
