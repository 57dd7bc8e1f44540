"""H2 similarity: boilerplate removal, shingles, the exact threshold, metadata overlap, short texts."""

from __future__ import annotations

from decimal import Decimal

import numpy as np

from icarus.provenance import build_graph
from icarus.provenance.boilerplate import clean_texts
from icarus.provenance.lsh import candidate_pairs, lsh_bands
from icarus.provenance.shingles import minhash_signatures, shingle_sets
from icarus.provenance.similarity import MIN_SHINGLES, meets
from icarus.scoring.icarus.config import ProvenanceSettings
from tests.provenance.conftest import item, story, words


def test_h2_threshold_comparison_is_exact_at_the_boundary() -> None:
    assert meets(7, 10, Decimal("0.70"))
    assert not meets(69, 100, Decimal("0.70"))
    # With 128 permutations 0.70 needs 90 agreeing positions: 89.6 rounds up, never down.
    assert meets(90, 128, Decimal("0.70"))
    assert not meets(89, 128, Decimal("0.70"))
    assert not meets(0, 0, Decimal("0"))


def test_h2_shingles_are_distinct_and_sized() -> None:
    sets = shingle_sets(["a b c d e f", "a b c d", "x y z x y z x y z"], 5)
    assert sets.counts.tolist() == [2, 0, 3]
    # the same words in the same order hash the same in any document
    again = shingle_sets(["q r", "a b c d e f"], 5)
    assert sorted(again.hashes.tolist()) == sorted(sets.hashes[: sets.offsets[1]].tolist())


def test_h2_minhash_estimates_jaccard() -> None:
    base = words(1, 400)
    changed = base[:300] + words(2, 100)
    sets = shingle_sets([" ".join(base), " ".join(changed)], 5)
    signatures = minhash_signatures(sets, 128, 1)
    exact = 296 / (396 + 100)  # 296 shared shingles out of 496 distinct
    estimate = np.count_nonzero(signatures[0] == signatures[1]) / 128
    assert abs(estimate - exact) < 0.15
    assert (signatures == minhash_signatures(sets, 128, 1)).all()  # seeded, not random


def test_h2_lsh_finds_near_copies_and_skips_strangers() -> None:
    texts = [" ".join(words(1, 200)), " ".join(words(1, 190) + ["extra"] * 3), " ".join(words(3, 200))]
    signatures = minhash_signatures(shingle_sets(texts, 5), 128, 1)
    left, right = candidate_pairs(signatures, *lsh_bands(Decimal("0.70"), 128))
    assert list(zip(left.tolist(), right.tolist(), strict=True)) == [(0, 1)]


def test_h2_near_copy_joins_and_rewrite_stays_apart(settings: ProvenanceSettings) -> None:
    original = words(10, 200)
    near = original[:185] + words(11, 15)  # about 0.85 shingle Jaccard
    far = original[:60] + words(12, 140)  # about 0.2
    evidence = [
        item("orig", text=" ".join(original)),
        item("near", text=" ".join(near)),
        item("far", text=" ".join(far)),
    ]
    graph = build_graph(evidence, [], settings)
    assert graph.copy_groups == (("far",), ("near", "orig"))
    [edge] = [edge for edge in graph.similarity_edges if edge.kind == "shingles"]
    assert (edge.a, edge.b) == ("near", "orig")
    assert edge.score >= Decimal("0.70")


def test_h2_boilerplate_lines_repeated_across_a_domain_are_removed() -> None:
    footer = "Copyright Daily Planet Media Group, every story checked twice by our desk"
    evidence = [
        item(f"dp-{n}", domain="dailyplanet.example", title=f"Story {n}", text=f"{story(n)}\n{footer}")
        for n in range(3)
    ]
    evidence.append(item("solo", domain="other.example", text=f"{story(9)}\n{footer}"))
    cleaned = clean_texts(evidence)
    assert all(footer.lower() not in text for text in cleaned[:3])
    assert footer.lower() in cleaned[3]  # another domain's copy of the line is its own business


def test_h2_one_story_run_three_times_by_a_domain_is_not_boilerplate() -> None:
    footer = "Copyright Daily Planet Media Group, every story checked twice by our desk"
    evidence = [item(f"dp-{n}", domain="dailyplanet.example", text=f"{story(1)}\n{footer}") for n in range(3)]
    evidence += [
        item(f"dp-x{n}", domain="dailyplanet.example", text=f"{story(2 + n)}\n{footer}") for n in range(2)
    ]
    cleaned = clean_texts(evidence)
    assert all(story(1).lower().splitlines()[0] in text for text in cleaned[:3])
    assert all(footer.lower() not in text for text in cleaned)


def test_h2_share_and_cookie_lines_are_removed() -> None:
    text = "Share this on Facebook\nWe use cookies to improve your experience.\nThe Council Voted Today."
    assert clean_texts([item("a", text=text)]) == ["the council voted today."]


def test_h2_boilerplate_only_overlap_does_not_make_copies(settings: ProvenanceSettings) -> None:
    footer = "\n".join(" ".join(words(500 + n, 12)) for n in range(6))
    evidence = [
        item(f"s{n}", domain="site.example", title=f"T{n}", text=f"{story(n, 30)}\n{footer}")
        for n in range(4)
    ]
    assert len(build_graph(evidence, [], settings).copy_groups) == 4


def test_h2_short_texts_get_no_shingle_edges_but_verbatim_copies_still_join(
    settings: ProvenanceSettings,
) -> None:
    short = " ".join(words(7, 12))  # 8 five-word shingles, below the minimum
    assert shingle_sets([short], 5).count(0) < MIN_SHINGLES
    evidence = [item("a", text=short), item("b", text=short.upper()), item("c", text=short + " tail")]
    graph = build_graph(evidence, [], settings)
    assert graph.copy_groups == (("a", "b"), ("c",))
    assert {edge.kind for edge in graph.similarity_edges} == {"identical"}


def test_h2_excerpt_text_is_used_when_text_is_empty(settings: ProvenanceSettings) -> None:
    from icarus.ledger.base import Span
    from icarus.ledger.evidence import Excerpt

    body = story(21)
    excerpt = Excerpt(span=Span(start=0, end=len(body)), text=body)
    graph = build_graph([item("a", excerpt=excerpt), item("b", text=body + "\nextra words")], [], settings)
    assert graph.copy_groups == (("a", "b"),)


def test_h2_metadata_same_title_and_byline_joins(settings: ProvenanceSettings) -> None:
    evidence = [
        item("a", title="Council approves budget | Outlet a", byline="Jane Roe", text=story(31)),
        item("b", title="Council approves budget", byline="jane roe", text=story(32)),
        item("c", title="Council approves budget", byline="John Doe", text=story(33)),
    ]
    graph = build_graph(evidence, [], settings)
    assert graph.copy_groups == (("a", "b"), ("c",))
    assert [edge.kind for edge in graph.similarity_edges] == ["metadata"]


def test_h2_metadata_same_title_and_moderate_overlap_joins(settings: ProvenanceSettings) -> None:
    base = words(40, 200)
    # about 0.6 Jaccard: below the shingle threshold, above the metadata one (0.50)
    variant = base[:150] + words(41, 50)
    evidence = [
        item("a", title="Rates rise again", text=" ".join(base)),
        item("b", title="Rates Rise Again!", text=" ".join(variant)),
        item("c", title="Something else", text=" ".join(variant)[::-1]),
    ]
    graph = build_graph(evidence, [], settings)
    assert ("a", "b") in graph.copy_groups
    assert any(edge.kind == "metadata" for edge in graph.similarity_edges)
