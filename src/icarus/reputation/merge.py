"""The one per-field precedence every registry path uses: a merge of the sources that name one domain.

Sources are ranked by :data:`PRECEDENCE`; a *reviewed* source is a record with method ``manual`` (the shipped
manual file, a review's output, or a manual record in a user's registry file); every other source is
*imported* (a dataset, or a rule from a registration policy). Per field:

- ``source_class`` and ``tier``: the reviewed record's, when there is one. Otherwise the class is ``satire``
  when any import says satire (worst-of), else the first class other than ``news`` in precedence order (``news``
  is what a list without classes gives); the tier is the first one other than ``other`` in precedence order.
- ``score``: the baseline is the reviewed score when there is one, else the score of the first import in
  precedence order that carries no risk flag. A risk flag can only lower it: the score is the minimum of the
  baseline and the score of every source with a flag (a risk rating of no consensus or worse, or the Iffy
  Index) -- reviewed or not.
- ``risk_rating``: the worst any source gives (deprecated > generally unreliable > no consensus); a review
  cannot clear a list's flag. ``on_iffy_index``: set when any source sets it.
- the record's method, ``produced_by`` (all sources, joined by " + "), ``recorded_at``: from the first source
  in precedence order; ``version``: a digest of every source's name and version.

Layers (the shipped manual records, the shipped default registry, then each ``--reputation`` file in order)
combine by :func:`merge_layers`: a layer's source replaces the same source's part from an earlier layer (a
user's reviewed record replaces the shipped one; a newer Lin import replaces the shipped Lin part), and the
merge above is redone. Nothing is ever counted twice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import replace

from icarus.ledger import ReputationMethod, ReputationRecord, RiskRating, SourceClass, SourceTier
from icarus.reputation.entry import RegistryEntry, source_label, source_name

__all__ = ["PRECEDENCE", "RISK_ORDER", "is_flag", "merge_entries", "merge_layers", "rank"]

PRECEDENCE = (
    "manual",
    "perennial",
    "ifcn",
    "dotgov",
    "gov-registration",
    "lin2023",
    "universities",
    "edu-registration",
    "opensources",
    "misinfo-list",
    "iffy",
)
"""Source order for baselines and ties. Editors' ratings (perennial, IFCN) come first; then the identity of
a government body (the .gov registry, government suffix rules), whose policy baseline beats a news-quality
score, as the reviewed records of statistical offices do; then Lin et al.'s continuous score. The
universities list and academic suffix rules come after Lin: they establish who holds a domain, not the
quality of what it hosts, so the domain's own rating wins. Risk lists come last; their flags apply whatever
their rank. An unknown source ranks after all of these."""

RISK_ORDER: dict[RiskRating | None, int] = {
    None: 0,
    RiskRating.GENERALLY_RELIABLE: 0,
    RiskRating.NO_CONSENSUS: 1,
    RiskRating.GENERALLY_UNRELIABLE: 2,
    RiskRating.DEPRECATED: 3,
}


def rank(entry: RegistryEntry) -> int:
    name = source_name(entry)
    return PRECEDENCE.index(name) if name in PRECEDENCE else len(PRECEDENCE)


def is_flag(record: ReputationRecord) -> bool:
    """A risk flag: a rating of no consensus or worse, or the Iffy Index. A flagged score is a ceiling."""
    return record.on_iffy_index or RISK_ORDER[record.risk_rating] > 0


def _parts(entries: Iterable[RegistryEntry]) -> list[RegistryEntry]:
    return [part for e in entries for part in (e.sources or (e,))]


def merge_entries(entries: Iterable[RegistryEntry]) -> RegistryEntry:
    """Combine the entries several sources hold for one domain by the per-field precedence (module doc).

    An entry that is itself a merge contributes its own sources, so merging again never counts one twice.
    The result names the source of each field (:attr:`RegistryEntry.field_sources`).
    """
    ranked = sorted(_parts(entries), key=rank)
    if not ranked:
        raise ValueError("nothing to merge")
    if len(ranked) == 1:
        return ranked[0]
    base = ranked[0]
    reviewed = [e for e in ranked if e.record.method is ReputationMethod.MANUAL]
    sources: dict[str, str] = {}

    # Class and tier: a reviewed record's; else satire if any import says so; else the first informative one.
    satire = next((e for e in ranked if e.source_class is SourceClass.SATIRE), None)
    if reviewed:
        class_from = tier_from = reviewed[0]
    else:
        informative = next((e for e in ranked if e.source_class is not SourceClass.NEWS), base)
        class_from = satire or informative
        tier_from = next((e for e in ranked if e.record.tier is not SourceTier.OTHER), base)
    sources["source_class"] = source_label(class_from)
    sources["tier"] = source_label(tier_from)

    # Score: the reviewed baseline, else the first unflagged import's; every flag is a ceiling.
    baseline = reviewed[0] if reviewed else next((e for e in ranked if not is_flag(e.record)), base)
    score_from = min(
        [baseline, *(e for e in ranked if is_flag(e.record))], key=lambda e: e.record.score
    )  # min() keeps the first of equals: the baseline, then flags in precedence order
    sources["score"] = source_label(score_from)

    worst = max(ranked, key=lambda e: RISK_ORDER[e.record.risk_rating])
    rated = (
        worst
        if RISK_ORDER[worst.record.risk_rating] > 0
        else next((e for e in ranked if e.record.risk_rating is not None), None)
    )
    if rated is not None:
        sources["risk_rating"] = source_label(rated)
    iffy = next((e for e in ranked if e.record.on_iffy_index), None)
    if iffy is not None:
        sources["on_iffy_index"] = source_label(iffy)

    version = hashlib.sha256(
        "|".join(f"{e.record.produced_by}:{e.record.version}" for e in ranked).encode()
    ).hexdigest()[:12]
    record = base.record.model_copy(
        update={
            "score": score_from.record.score,
            "tier": tier_from.record.tier,
            "risk_rating": rated.record.risk_rating if rated is not None else None,
            "on_iffy_index": iffy is not None,
            "produced_by": " + ".join(e.record.produced_by for e in ranked),
            "version": version,
        }
    )
    note = next((e.note for e in ranked if e.note), None)
    return replace(
        base,
        record=record,
        source_class=class_from.source_class,
        sources=tuple(ranked),
        note=note,
        provenance={field: sources[field] for field in sorted(sources)},
    )


def merge_layers(found: Sequence[RegistryEntry]) -> RegistryEntry:
    """One domain's entries from several layers, earliest first: each layer's sources replace the same
    sources' parts from the layers before it, then the parts are merged (:func:`merge_entries`)."""
    parts: list[RegistryEntry] = []
    for entry in found:
        layer = entry.sources or (entry,)
        names = {source_name(part) for part in layer}
        parts = [part for part in parts if source_name(part) not in names]
        parts.extend(layer)
    return merge_entries(parts)
