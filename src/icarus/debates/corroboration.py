"""How many independent documents confirm the claim's load-bearing figure or named fact.

The load-bearing element is the claim's first stated figure ("12%"), or, when it states none, the claim
itself as a named fact. Of the in-scope evidence, a document confirms when it states that figure (read in
its quoted sentence first, then in its text) or, for a named fact, when the judge reads support; it
contradicts when its quoted sentence gives another value in the same unit, or the judge reads a refutation.

Confirming documents count as independent only when they do not relay each other, do not credit the same
originator and are not on the same publisher domain. Relays are the provenance graph's clusters (ICC: copy
groups and citation edges, ``icarus.provenance``, as the scorer builds them); credited originators are the
items' attributions ("according to the Halden Port Authority"). An official statistical or text source
(``primary_official``) is sufficient on its own. With a single independent confirmation the method runs
one extra corroboration search when its budget allows; if that still leaves one, the panel's confidence is
capped at ``SINGLE_SOURCE_CONFIDENCE_CAP`` and the explanation says so. When documents give different
values, every value found is listed (FIGURES FOUND) so the explanation must account for the disagreement.
Figures are read with ``icarus.text.words.stated_figures``: the digits of a name or code ("COVID-19",
"G7", "H1N1") are not a figure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Final

from icarus.debates.model import Corroboration, FigureEntry
from icarus.ledger import EvidenceItem, SourceClass
from icarus.ledger.judgments import Stance
from icarus.provenance import ProvenanceGraph
from icarus.text import words as tx

__all__ = [
    "MIN_INDEPENDENT_CONFIRMATIONS",
    "SINGLE_SOURCE_CONFIDENCE_CAP",
    "CorroborationCheck",
    "LoadBearing",
    "assess_corroboration",
    "figures_found_text",
]

MIN_INDEPENDENT_CONFIRMATIONS: Final = 2
SINGLE_SOURCE_CONFIDENCE_CAP: Final = 0.6
"""The most confidence a verdict resting on one independent document (not official) may carry."""
_STANCE_ONLY_VALUE = "disputes the claim"  # a refutation that states no competing figure


@dataclass(frozen=True)
class LoadBearing:
    """The claim's figure (value and unit) or, with no figure, the claim as a named fact."""

    element: str
    value: Decimal | None = None
    unit: str = ""

    @classmethod
    def of(cls, claim_text: str) -> LoadBearing:
        stated = tx.stated_figures(claim_text)
        if stated:
            first = stated[0]
            return cls(first.text, first.value, first.unit)
        return cls(claim_text.strip())

    def stated_in(self, text: str) -> bool:
        return self.value is not None and any(self._same(q) for q in tx.stated_figures(text))

    def other_value_in(self, text: str) -> str | None:
        """A figure in ``text`` in the claim's unit with another value, as written."""
        if self.value is None:
            return None
        for quantity in tx.stated_figures(text):
            if quantity.unit == self.unit and not tx.same_value(abs(quantity.value), abs(self.value)):
                return quantity.text
        return None

    def _same(self, quantity: tx.Quantity) -> bool:
        assert self.value is not None
        # A bare number ("13:20", "page 20") does not state "20%": a unit the claim gives must be there.
        units_agree = quantity.unit == self.unit or not self.unit
        return units_agree and tx.same_value(abs(quantity.value), abs(self.value))


@dataclass(frozen=True)
class CorroborationCheck:
    """The corroboration block, the FIGURES FOUND list and the sentence the explanation gains."""

    block: Corroboration
    figures_found: list[FigureEntry] = field(default_factory=list)

    @property
    def needs_extra_search(self) -> bool:
        return (
            not self.block.searched
            and self.block.independent_confirmations == 1
            and not self.block.sufficient
        )

    @property
    def single_source(self) -> bool:
        return self.block.independent_confirmations == 1 and not self.block.sufficient

    def capped_confidence(self, confidence: float) -> tuple[float, bool]:
        """``confidence``, capped when one independent non-official document is all that confirms."""
        if self.single_source:
            return min(confidence, SINGLE_SOURCE_CONFIDENCE_CAP), True
        return confidence, False

    def explanation(self, *, capped: bool) -> str:
        """The cap sentence (when the cap was applied) and the FIGURES FOUND block (when values differ)."""
        sentences: list[str] = []
        if capped:
            sentences.append(
                f"Only one independent document confirms {self.block.element}; confidence is capped."
            )
        if self.figures_found:
            sentences.append(figures_found_text(self.figures_found))
        return " ".join(sentences)


def assess_corroboration(
    claim_text: str,
    claim_id: str,
    items: Sequence[EvidenceItem],
    graph: ProvenanceGraph,
    *,
    searched: bool = False,
    published_of: Callable[[EvidenceItem], datetime | None] = lambda item: item.published_at,
) -> CorroborationCheck:
    """Count the independent confirmations of the claim's load-bearing element among ``items`` (the
    in-scope, judged evidence of the ledger ``graph`` was built from)."""
    element = LoadBearing.of(claim_text)
    confirming: list[EvidenceItem] = []
    confirming_entries: list[FigureEntry] = []
    contradicting_entries: list[FigureEntry] = []
    for item in items:
        judgment = item.judgment_for(claim_id)
        stance = judgment.stance.stance if judgment is not None else Stance.NEUTRAL
        quoted = item.excerpt.text if item.excerpt is not None else ""
        entry = _entry_factory(item, published_of(item))
        if element.value is not None:
            if stance is not Stance.REFUTE and (element.stated_in(quoted) or element.stated_in(item.text)):
                confirming.append(item)
                confirming_entries.append(entry(element.element))
                continue
            other = element.other_value_in(quoted)
            if other is not None:
                contradicting_entries.append(entry(other))
                continue
        elif stance is Stance.SUPPORT:
            confirming.append(item)
            confirming_entries.append(entry(element.element))
            continue
        if stance is Stance.REFUTE:
            contradicting_entries.append(entry(_STANCE_ONLY_VALUE))
    independent = _independent_groups(confirming, graph)
    official = any(item.source_class is SourceClass.PRIMARY_OFFICIAL for item in confirming)
    block = Corroboration(
        element=element.element,
        independent_confirmations=independent,
        official_source=official,
        sufficient=official or independent >= MIN_INDEPENDENT_CONFIRMATIONS,
        confirming=confirming_entries,
        contradicting=contradicting_entries,
        searched=searched,
    )
    figures = [e for e in (*confirming_entries, *contradicting_entries) if e.value != _STANCE_ONLY_VALUE]
    differing = len({_normalised(e.value) for e in figures}) > 1
    return CorroborationCheck(block, figures if differing else [])


def figures_found_text(figures: Sequence[FigureEntry]) -> str:
    """The FIGURES FOUND block: each value with the domains that give it."""
    by_value: dict[str, list[str]] = {}
    for entry in figures:
        domains = by_value.setdefault(entry.value, [])
        if entry.domain not in domains:
            domains.append(entry.domain)
    listed = "; ".join(f"{value} ({', '.join(domains)})" for value, domains in by_value.items())
    return f"FIGURES FOUND: {listed}. The sources disagree on the value."


def _entry_factory(item: EvidenceItem, published: datetime | None) -> Callable[[str], FigureEntry]:
    def entry(value: str) -> FigureEntry:
        return FigureEntry(url=item.url, domain=item.domain, value=value, published=published)

    return entry


def _normalised(value: str) -> str:
    stated = tx.stated_figures(value)
    return f"{abs(stated[0].value).normalize()}{stated[0].unit}" if stated else value.casefold()


def _independent_groups(items: Sequence[EvidenceItem], graph: ProvenanceGraph) -> int:
    """Confirming items joined when they share a provenance cluster, a publisher domain or a credited
    originator; the number of groups left."""
    parent = list(range(len(items)))

    def find(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    first_with: dict[tuple[str, str], int] = {}
    for index, item in enumerate(items):
        for key in _independence_keys(item, graph):
            if key in first_with:
                parent[find(index)] = find(first_with[key])
            else:
                first_with[key] = index
    return len({find(index) for index in range(len(items))})


def _independence_keys(item: EvidenceItem, graph: ProvenanceGraph) -> list[tuple[str, str]]:
    keys = [("domain", item.domain or item.url)]
    if item.evidence_id in graph.canonical_urls:
        keys.append(("cluster", graph.cluster_of(item.evidence_id)))
    for attribution in item.attributions:
        if attribution.target_url:
            keys.append(("originator", attribution.target_url))
        if attribution.target_name:
            keys.append(("originator", _name_key(attribution.target_name)))
    if item.publisher:  # an originator's own page joins the pages that credit it by name
        keys.append(("originator", _name_key(item.publisher)))
    return keys


def _name_key(name: str) -> str:
    folded = " ".join(name.casefold().split())
    return folded.removeprefix("the ")
