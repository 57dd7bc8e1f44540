"""Rewritten copies: a credited retelling joins its original; independent reports of one event never merge."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import numpy as np
import pytest

from icarus.ledger.evidence import EvidenceItem, SourceClass
from icarus.provenance import build_graph, embeddings
from icarus.provenance.canonical import find_duplicates, item_canonical_url
from icarus.provenance.citations import extract_mentions
from icarus.provenance.embeddings import (
    REWRITE_MIN_COSINE,
    REWRITE_WINDOW,
    Embedder,
    packaged_embedder,
    quoted_runs,
    rewrite_pairs,
)
from icarus.provenance.similarity import SimilarityResult, clean_texts, similarity_graph
from icarus.scoring.icarus.config import ProvenanceSettings
from tests.provenance.conftest import item

FIRE = (
    "LONDON (Reuters) - A fire tore through a six-storey apartment block in west London early on Tuesday, "
    "forcing about 150 residents to flee their homes, the London Fire Brigade said. "
    '"Crews worked through the night in very difficult conditions to bring the blaze under control," '
    "station commander Dan Reid said. Ten fire engines and around 70 firefighters were sent to the building "
    "on Latimer Road. No injuries were reported and the cause of the fire is under investigation, "
    "the brigade added."
)
FIRE_REWRITE = (
    "Around 150 people had to leave their homes when a blaze ripped through a six-storey residential block "
    "on Latimer Road in west London in the early hours of Tuesday, Reuters reported. Some 70 firefighters "
    "and ten fire engines attended, according to the brigade. "
    '"Crews worked through the night in very difficult conditions," said station commander Dan Reid. '
    "Nobody was hurt, and investigators are still working out what caused the fire."
)
FIRE_REWRITE_UNQUOTED = (
    "Around 150 people had to leave their homes when a blaze ripped through a six-storey residential block "
    "on Latimer Road in west London in the early hours of Tuesday, Reuters reported. Some 70 firefighters "
    "and ten fire engines attended, the brigade's station commander Dan Reid said, adding that crews had "
    "spent the whole night fighting it. Nobody was hurt, and investigators are still working out what "
    "caused the fire."
)
RATES = (
    "LONDON (Reuters) - The Bank of England held interest rates at 5.25 percent on Thursday, with Governor "
    "Andrew Bailey saying it was too early to talk about cuts while inflation remains well above the "
    "two percent target. Markets had expected the decision, and sterling was little changed against the "
    "dollar after the announcement. Six members of the monetary policy committee voted to hold."
)
# Two outlets' own reporting of the same fire: their own witnesses, their own quotes, their own sources.
FIRE_WITNESSES = (
    "Residents of a six-storey block on Latimer Road in west London described scenes of panic early on "
    "Tuesday as a fire spread through the building and about 150 people fled their homes. "
    '"I grabbed my kids and ran down the stairs, the smoke was everywhere," said Amina Khan, 34, who '
    "lives on the fourth floor. Ten fire engines were sent, according to the London Fire Brigade, and "
    "no one was injured. The cause of the fire is not yet known."
)
FIRE_COUNCIL = (
    "A fire forced about 150 residents out of a six-storey block of flats on Latimer Road in west London "
    "early on Tuesday. Kensington and Chelsea council said it had opened a rest centre at a nearby "
    'leisure centre. "We are making sure every family has somewhere safe to sleep tonight," council '
    "leader Elizabeth Campbell said. Firefighters brought the blaze under control by morning and no one "
    "was hurt, the council said. The cause is being investigated."
)


def _reuters(evidence_id: str, text: str, minutes: float = 0) -> EvidenceItem:
    return item(
        evidence_id,
        publisher="Reuters",
        domain="reuters.com",
        text=text,
        minutes=minutes,
        source_class=SourceClass.WIRE,
    )


def _similarity(
    evidence: list[EvidenceItem], settings: ProvenanceSettings, embedder: bool = True
) -> SimilarityResult:
    items = sorted(evidence, key=lambda entry: entry.evidence_id)
    canonical = {entry.evidence_id: item_canonical_url(entry) for entry in items}
    cited: dict[str, list[frozenset[str]]] = {}
    for mention in extract_mentions(items, canonical, []):
        cited.setdefault(mention.source, []).append(frozenset(mention.targets))
    return similarity_graph(
        items,
        settings,
        find_duplicates(items, canonical),
        cited,
        rewrite_embedder=packaged_embedder if embedder else None,
    )


def _cosine(left: str, right: str) -> float:
    vectors = packaged_embedder()([left, right])
    return float(np.dot(vectors[0], vectors[1]))


def test_a_rewrite_credited_to_the_wire_joins_the_story_it_retells(settings: ProvenanceSettings) -> None:
    evidence = [
        _reuters("rt-a", RATES, minutes=-30),
        _reuters("rt-b", FIRE),
        item("courier", publisher="Daily Courier", text=FIRE_REWRITE, minutes=90),
    ]
    graph = build_graph(evidence, [], settings)
    assert ("courier", "rt-b") in [group for group in graph.copy_groups if len(group) > 1]
    rewrite_edges = [edge for edge in graph.similarity_edges if edge.kind == "rewrite"]
    assert [(edge.a, edge.b) for edge in rewrite_edges] == [("courier", "rt-b")]
    assert rewrite_edges[0].score >= REWRITE_MIN_COSINE
    assert graph.cluster_of("courier") == graph.cluster_of("rt-b") != graph.cluster_of("rt-a")
    assert len(graph.cluster_members) == 2


def test_without_a_verbatim_run_only_the_embedding_finds_the_story_retold(
    settings: ProvenanceSettings,
) -> None:
    """No quote and no shared run: shingles cannot narrow "Reuters reported" to one of the Reuters stories,
    and the citation graph alone sends the rewrite to the lowest id, the rates story."""
    evidence = [
        _reuters("rt-a", RATES, minutes=-30),
        _reuters("rt-b", FIRE),
        item("courier", publisher="Daily Courier", text=FIRE_REWRITE_UNQUOTED, minutes=90),
    ]
    graph = build_graph(evidence, [], settings)
    assert graph.cluster_of("courier") == graph.cluster_of("rt-b")
    without = _similarity(evidence, settings, embedder=False)
    assert ("courier",) in without.copy_groups  # alone: shingles see no copy
    assert ("courier", "rt-b") in _similarity(evidence, settings).copy_groups


def test_independent_reports_of_one_event_stay_separate_though_they_read_alike(
    settings: ProvenanceSettings,
) -> None:
    # The embedding alone would put them together: it is the metadata that keeps them apart.
    assert _cosine(FIRE, FIRE_WITNESSES) >= float(REWRITE_MIN_COSINE)
    evidence = [
        _reuters("rt-b", FIRE),
        item("gazette", publisher="Gazette", text=FIRE_WITNESSES, minutes=20),
        item("herald", publisher="Herald", text=FIRE_COUNCIL, minutes=25),
    ]
    graph = build_graph(evidence, [], settings)
    assert not [edge for edge in graph.similarity_edges if edge.kind == "rewrite"]
    assert len(graph.cluster_members) == 3


def test_a_credit_does_not_merge_reports_that_carry_different_quotes(settings: ProvenanceSettings) -> None:
    """The gazette credits Reuters for one detail but quotes its own witness: its own reporting, so at
    most a citation (H3), never a copy."""
    credited = FIRE_WITNESSES + " The blaze was first reported by Reuters."
    assert _cosine(FIRE, credited) >= float(REWRITE_MIN_COSINE)
    evidence = [_reuters("rt-b", FIRE), item("gazette", publisher="Gazette", text=credited, minutes=20)]
    result = _similarity(evidence, settings)
    assert result.copy_groups == (("gazette",), ("rt-b",))


def test_a_rewrite_crediting_two_sources_stays_a_citation(settings: ProvenanceSettings) -> None:
    blended = FIRE_REWRITE + " Additional reporting by The Associated Press."
    ap = item("ap-1", publisher="The Associated Press", domain="apnews.com", text=RATES, minutes=5)
    evidence = [
        ap,
        _reuters("rt-b", FIRE),
        item("courier", publisher="Daily Courier", text=blended, minutes=90),
    ]
    graph = build_graph(evidence, [], settings)
    assert not [edge for edge in graph.similarity_edges if edge.kind == "rewrite"]


def _courier_after(gap: timedelta | None) -> list[EvidenceItem]:
    rewrite = item(
        "courier",
        publisher="Daily Courier",
        text=FIRE_REWRITE,
        minutes=None if gap is None else gap.total_seconds() / 60,
    )
    return [_reuters("rt-a", RATES), _reuters("rt-b", FIRE), rewrite]


def test_the_time_window_boundary(settings: ProvenanceSettings) -> None:
    def joined(gap: timedelta | None) -> bool:
        graph = build_graph(_courier_after(gap), [], settings)
        return any(edge.kind == "rewrite" for edge in graph.similarity_edges)

    assert joined(REWRITE_WINDOW)
    assert joined(-REWRITE_WINDOW)
    assert not joined(REWRITE_WINDOW + timedelta(minutes=1))
    assert not joined(None)  # an undated item cannot show it was written in the window


def _counting(calls: list[int]) -> Callable[[], Embedder]:
    def factory() -> Embedder:
        calls.append(1)
        return packaged_embedder()

    return factory


def test_the_model_is_loaded_only_when_some_pair_passes_every_other_gate(
    settings: ProvenanceSettings,
) -> None:
    evidence = sorted(
        [_reuters("rt-b", FIRE), item("gazette", text=FIRE_WITNESSES, minutes=20)],
        key=lambda e: e.evidence_id,
    )
    texts = clean_texts(evidence)
    calls: list[int] = []
    assert rewrite_pairs(evidence, texts, [0, 1], {}, _counting(calls)) == []
    assert calls == []
    cited = {"gazette": [frozenset({"rt-b"})]}  # credited, but its own quotes
    assert rewrite_pairs(evidence, texts, [0, 1], cited, _counting(calls)) == []
    assert calls == []


def test_quoted_runs_read_curly_and_straight_quotes() -> None:
    runs = quoted_runs('He said “we will rebuild every home on this road” and "no one was hurt at all."')
    assert ("we", "will", "rebuild", "every", "home") in runs
    assert ("no", "one", "was", "hurt", "at") in runs
    assert quoted_runs('a "short quote" only') == frozenset()


def test_only_the_credited_items_closest_in_time_are_weighed(
    settings: ProvenanceSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A publisher with thousands of items cannot make the step quadratic: past the cap, the credited items
    nearest in time are the ones weighed."""
    evidence = [
        _reuters("rt-a", RATES, minutes=80),  # nearer the rewrite in time, another story
        _reuters("rt-b", FIRE),
        item("courier", publisher="Daily Courier", text=FIRE_REWRITE_UNQUOTED, minutes=90),
    ]
    monkeypatch.setattr(embeddings, "REWRITE_MAX_CANDIDATES", 1)
    assert ("courier",) in _similarity(evidence, settings).copy_groups
    monkeypatch.setattr(embeddings, "REWRITE_MAX_CANDIDATES", 2)
    assert ("courier", "rt-b") in _similarity(evidence, settings).copy_groups
