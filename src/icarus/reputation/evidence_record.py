"""The reputation record an evidence item carries: the registry's record, and the record without Lin et
al.'s rating wherever that rating gave the score.

A ledger is scored under every published policy version, and ``icarus@1.0`` publishes the Lin et al.
rating as not yet live. The record therefore carries both readings (``ReputationRecord.without_lin``), and
the scoring core picks the one the policy in force allows (``icarus.scoring.icarus.not_live``). Without the
rating, the domain keeps the baseline of its other sources, merged by the same precedence; a domain that
only Lin et al. rate is not on file, and takes the heuristic estimate.
"""

from __future__ import annotations

from icarus.ledger import ReputationRecord
from icarus.reputation.entry import RegistryEntry, source_name
from icarus.reputation.heuristic import estimate
from icarus.reputation.merge import merge_entries

__all__ = ["LIN", "evidence_record"]

LIN = "lin2023"


def _score_from_lin(entry: RegistryEntry) -> bool:
    label = entry.field_sources.get("score", "")
    return label.split("@", 1)[0] == LIN


def evidence_record(entry: RegistryEntry) -> ReputationRecord:
    """``entry.record``, with ``without_lin`` set when the score is Lin et al.'s."""
    if not _score_from_lin(entry):
        return entry.record
    others = [part for part in (entry.sources or (entry,)) if source_name(part) != LIN]
    fallback = merge_entries(others).record if others else estimate(entry.record.domain)
    return entry.record.model_copy(update={"without_lin": fallback})
