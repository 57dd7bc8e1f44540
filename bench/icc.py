"""Benchmark of the independent-corroboration core: ``build_graph`` + ``elect_origins`` at growing sizes.

A seeded generator writes evidence shaped like real coverage of many stories: wire originals with
verbatim pickups (datelines, outlet boilerplate, a trimmed last line), rewrites that link to or name their
source, outlet scoops picked up with "first reported by", press releases reproduced by pickups, independent
reports, occasional citation loops and coordinated amplification. It also returns the ground truth: for
each wire story, which items are its verbatim pickups.

Measured in the same run, at 1k and 2k items only: a naive baseline that compares every pair of items by
exact shingle Jaccard. Nothing is extrapolated; the 100k run is measured, not estimated.
"""

from __future__ import annotations

import argparse
import itertools
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import numpy as np

from icarus.ledger.evidence import EvidenceItem, SourceClass
from icarus.ledger.reputation import ReputationMethod, ReputationRecord, SourceTier
from icarus.provenance import ElectionFacts, build_graph, elect_origins
from icarus.provenance.canonical import find_duplicates, item_canonical_url
from icarus.provenance.citations import extract_mentions
from icarus.provenance.embeddings import REWRITE_MIN_COSINE, packaged_embedder
from icarus.provenance.shingles import minhash_signatures, shingle_sets
from icarus.provenance.similarity import similarity_graph
from icarus.scoring.icarus.config import ProvenanceSettings, load_policy

T0 = datetime(2026, 5, 1, 6, 0, tzinfo=UTC)
WIRES = (
    ("The Associated Press", "apnews.com", "AP"),
    ("Reuters", "reuters.com", "Reuters"),
    ("AFP", "afp.com", "AFP"),
)
RELEASE_HOSTS = ("prnewswire.com", "businesswire.com", "globenewswire.com")
SYLLABLES = (
    "ka",
    "lo",
    "mi",
    "ren",
    "tu",
    "sa",
    "vel",
    "dor",
    "pi",
    "an",
    "qu",
    "ber",
    "ix",
    "on",
    "shi",
    "ta",
)


@dataclass
class Corpus:
    items: list[EvidenceItem]
    # wire story -> ids of the original and its verbatim pickups (they belong in one cluster)
    wire_stories: dict[str, list[str]] = field(default_factory=dict)
    # paraphrased rewrite -> the wire story it retells (credited by name; no verbatim run)
    paraphrases: dict[str, str] = field(default_factory=dict)
    # independent report of a wire story's event (its own words and quote) -> that wire story
    independent: dict[str, str] = field(default_factory=dict)


class _Generator:
    def __init__(self, seed: int, outlets: int, paraphrases: bool = False) -> None:
        self.rng = random.Random(seed)
        # Paraphrased rewrites and independent same-event reports draw from their own generator, so that
        # the corpus without them is unchanged.
        self.paraphrases = paraphrases
        self.extra_rng = random.Random(seed + 1)
        self.paraphrased: dict[str, str] = {}
        self.independent: dict[str, str] = {}
        self.np_rng = np.random.default_rng(seed)
        syllables = np.array(SYLLABLES)
        pieces = self.np_rng.integers(0, len(SYLLABLES), size=(6000, 3))
        self.vocab = np.array(["".join(syllables[row]) for row in pieces])
        # Zipf-like word frequencies: stories share common words, rarely five-word runs.
        ranks = np.arange(1, len(self.vocab) + 1)
        self.cumulative = np.cumsum(1 / ranks) / (1 / ranks).sum()
        self.items: list[EvidenceItem] = []
        # More coverage means more outlets, not more stories per outlet: about 25 items per outlet.
        self.outlets = [self._outlet(k) for k in range(outlets)]
        self.counter = itertools.count()

    def _outlet(self, k: int) -> tuple[str, str, list[str]]:
        name = " ".join(w.capitalize() for w in self._words(2)) + f" {k}"
        domain = f"outlet{k}.example"
        footer = [
            f"{name} is published by {name} Media in its home town since {1900 + k % 120}.",
            "Share this article",
        ]
        return name, domain, footer

    def _words(self, count: int) -> list[str]:
        draws = np.searchsorted(self.cumulative, self.np_rng.random(count), side="right")
        return list(self.vocab[np.minimum(draws, len(self.vocab) - 1)])

    def _paragraphs(self, words: int) -> list[str]:
        body = self._words(words)
        return [" ".join(body[i : i + 18]) + "." for i in range(0, words, 18)]

    def _add(
        self,
        *,
        publisher: str,
        domain: str,
        text: str,
        minutes: float,
        source_class: SourceClass = SourceClass.NEWS,
        score: str = "0.80",
        links: Sequence[str] = (),
        title: str | None = None,
        dated: bool = True,
    ) -> EvidenceItem:
        evidence_id = f"ev-{next(self.counter):07d}"
        when = T0 + timedelta(minutes=minutes)
        record = ReputationRecord(
            domain=domain,
            score=Decimal(score),
            tier=SourceTier.WIRE if source_class is SourceClass.WIRE else SourceTier.NATIONAL_NEWS,
            method=ReputationMethod.MANUAL,
            produced_by="bench@1",
            version="1",
        )
        item = EvidenceItem(
            evidence_id=evidence_id,
            url=f"https://{domain}/story/{evidence_id}",
            publisher=publisher,
            domain=domain,
            title=title,
            text=text,
            published_at=when if dated else None,
            retrieved_at=when + timedelta(hours=2),
            reputation=record,
            source_class=source_class,
            links=list(links),
        )
        self.items.append(item)
        return item

    def _pickup_text(self, paragraphs: list[str], outlet: tuple[str, str, list[str]], lead: str) -> str:
        kept = paragraphs if self.rng.random() < 0.6 else paragraphs[:-1]
        return "\n".join([lead + kept[0], *kept[1:], *outlet[2]])

    def story(self, start: float) -> tuple[str, list[str]] | None:
        """One story's coverage; returns (story key, ids that must share a cluster) for wire stories."""
        rng = self.rng
        kind = rng.choices(("wire", "scoop", "release"), weights=(0.5, 0.35, 0.15))[0]
        paragraphs = self._paragraphs(rng.randint(150, 260))
        together: list[str] = []
        if kind == "wire":
            publisher, domain, marker = rng.choice(WIRES)
            lead = f"{rng.choice(('WASHINGTON', 'LONDON', 'PARIS', 'TOKYO'))} ({marker}) — "
            origin = self._add(
                publisher=publisher,
                domain=domain,
                text=lead + "\n".join(paragraphs),
                minutes=start,
                source_class=SourceClass.WIRE,
                score="0.95",
            )
            together.append(origin.evidence_id)
            for _ in range(rng.randint(3, 15)):
                outlet = rng.choice(self.outlets)
                pickup = self._add(
                    publisher=outlet[0],
                    domain=outlet[1],
                    text=self._pickup_text(paragraphs, outlet, lead),
                    minutes=start + rng.uniform(5, 240),
                    dated=rng.random() > 0.05,
                )
                together.append(pickup.evidence_id)
            source_name, source_url = publisher, origin.url
        elif kind == "scoop":
            outlet = rng.choice(self.outlets)
            origin = self._add(
                publisher=outlet[0], domain=outlet[1], text="\n".join(paragraphs), minutes=start
            )
            for _ in range(rng.randint(1, 6)):
                other = rng.choice(self.outlets)
                text = "\n".join(paragraphs) + f"\nThis story was first reported by {outlet[0]}."
                self._add(
                    publisher=other[0], domain=other[1], text=text, minutes=start + rng.uniform(30, 600)
                )
            source_name, source_url = outlet[0], origin.url
        else:
            host = rng.choice(RELEASE_HOSTS)
            origin = self._add(
                publisher="Company via release wire",
                domain=host,
                text="\n".join(paragraphs),
                minutes=start,
                source_class=SourceClass.RELEASE_SERVICE,
            )
            for _ in range(rng.randint(2, 8)):
                outlet = rng.choice(self.outlets)
                intro = " ".join(self._words(20)) + "."
                text = "\n".join([intro, *paragraphs[: max(3, int(len(paragraphs) * 0.85))], *outlet[2]])
                self._add(
                    publisher=outlet[0], domain=outlet[1], text=text, minutes=start + rng.uniform(10, 300)
                )
            source_name, source_url = "", origin.url
        # Rewrites: some new sentences, some of the original's, citing it by link or by name.
        rewrites = []
        for _ in range(rng.randint(0, 4)):
            outlet = rng.choice(self.outlets)
            mixed = self._paragraphs(rng.randint(80, 160)) + rng.sample(paragraphs, k=min(2, len(paragraphs)))
            links: list[str] = []
            roll = rng.random()
            if roll < 0.5:
                links = [source_url]
            elif roll < 0.6 and source_name:
                mixed.append(f"The figures were confirmed, according to {source_name}.")
            rewrite = self._add(
                publisher=outlet[0],
                domain=outlet[1],
                text="\n".join(mixed),
                minutes=start + rng.uniform(60, 900),
                links=links,
            )
            rewrites.append((len(self.items) - 1, rewrite))
        # Occasionally two rewrites cite each other: circular reporting.
        if len(rewrites) >= 2 and rng.random() < 0.05:
            (first_at, first), (second_at, second) = rewrites[0], rewrites[1]
            self.items[first_at] = first.model_copy(update={"links": [*first.links, second.url]})
            self.items[second_at] = second.model_copy(update={"links": [*second.links, first.url]})
        # Independent reporting on the same story.
        for _ in range(rng.randint(0, 2)):
            outlet = rng.choice(self.outlets)
            self._add(
                publisher=outlet[0],
                domain=outlet[1],
                text="\n".join(self._paragraphs(rng.randint(120, 220))),
                minutes=start + rng.uniform(0, 600),
            )
        # Now and then, coordinated amplification: identical posts on several blogs within minutes.
        if rng.random() < 0.03:
            text = "\n".join(self._paragraphs(rng.randint(60, 120)))
            for n in range(rng.randint(3, 5)):
                self._add(
                    publisher=f"Blog {rng.randint(0, 10**6)}",
                    domain=f"blog{rng.randint(0, 10**6)}-{n}.example",
                    text=text,
                    minutes=start + rng.uniform(0, 20),
                    source_class=SourceClass.BLOG,
                )
        if kind == "wire" and self.paraphrases:
            self._retellings(origin, paragraphs, publisher, start)
        if kind == "wire":
            return origin.evidence_id, together
        return None

    def _quote(self) -> str:
        return f'"{" ".join(self._words(14))}," said {" ".join(w.capitalize() for w in self._words(2))}.'

    def _retellings(self, origin: EvidenceItem, paragraphs: list[str], publisher: str, start: float) -> None:
        """Rewrites in other words credited by name (same story), and independent reports of the event
        (many of the same words, their own quote; some credit the wire for a detail)."""
        rng = self.extra_rng
        quote = self._quote()
        index = int(origin.evidence_id.removeprefix("ev-"))  # ids count the items added so far
        origin = origin.model_copy(update={"text": f"{origin.text}\n{quote}"})
        self.items[index] = origin
        for _ in range(rng.randint(1, 3)):
            outlet = rng.choice(self.outlets)
            retold = []
            for paragraph in paragraphs:
                words = [w for w in paragraph.rstrip(".").split() if rng.random() > 0.15]
                rng.shuffle(words)  # the same words, no run of five in the original's order
                retold.append(" ".join(words) + ".")
            text = "\n".join([*retold, quote, f"The details were confirmed, according to {publisher}."])
            rewrite = self._add(
                publisher=outlet[0], domain=outlet[1], text=text, minutes=start + rng.uniform(30, 900)
            )
            self.paraphrased[rewrite.evidence_id] = origin.evidence_id
        story_words = " ".join(paragraphs).replace(".", "").split()
        for _ in range(rng.randint(1, 2)):
            outlet = rng.choice(self.outlets)
            own = []
            for _ in range(len(paragraphs)):
                words = rng.sample(story_words, 9) + self._words(9)
                rng.shuffle(words)
                own.append(" ".join(words) + ".")
            own.append(self._quote())
            if rng.random() < 0.5:
                own.append(f"The first figures were given, according to {publisher}.")
            report = self._add(
                publisher=outlet[0],
                domain=outlet[1],
                text="\n".join(own),
                minutes=start + rng.uniform(0, 600),
            )
            self.independent[report.evidence_id] = origin.evidence_id


def generate(count: int, seed: int = 7, paraphrases: bool = False) -> Corpus:
    """``count`` evidence items of synthetic coverage, deterministic for a seed; with ``paraphrases``,
    every wire story also gets rewrites in other words and independent reports of its event."""
    generator = _Generator(seed, outlets=max(40, count // 25), paraphrases=paraphrases)
    wire_stories: dict[str, list[str]] = {}
    start = 0.0
    while len(generator.items) < count:
        found = generator.story(start)
        if found is not None:
            wire_stories[found[0]] = found[1]
        start += generator.rng.uniform(5, 60)
    items = generator.items[:count]
    kept = {item.evidence_id for item in items}
    complete = {key: ids for key, ids in wire_stories.items() if kept.issuperset(ids)}
    return Corpus(
        items=items,
        wire_stories=complete,
        paraphrases={k: v for k, v in generator.paraphrased.items() if k in kept},
        independent={k: v for k, v in generator.independent.items() if k in kept},
    )


def election_facts(items: Sequence[EvidenceItem]) -> dict[str, ElectionFacts]:
    return {
        item.evidence_id: ElectionFacts(
            first_seen=item.published_at or item.retrieved_at,
            reputation=item.reputation.score,
            precedence=1 if item.source_class is SourceClass.WIRE else 0,
        )
        for item in items
    }


def naive_baseline(items: Sequence[EvidenceItem], settings: ProvenanceSettings) -> tuple[float, int]:
    """All pairs, exact Jaccard of word shingles: the obvious O(n^2) way. Returns (seconds, copy pairs)."""
    begin = time.perf_counter()
    width = settings.shingle_words
    sets = []
    for item in items:
        words = item.text.lower().split()
        sets.append({tuple(words[i : i + width]) for i in range(len(words) - width + 1)})
    threshold = float(settings.similarity_threshold)
    pairs = 0
    for i, left in enumerate(sets):
        for right in sets[i + 1 :]:
            union = len(left | right)
            if union and len(left & right) / union >= threshold:
                pairs += 1
    return time.perf_counter() - begin, pairs


def _time_core(corpus: Corpus, settings: ProvenanceSettings) -> dict[str, Any]:
    facts = election_facts(corpus.items)
    begin = time.perf_counter()
    graph = build_graph(corpus.items, [], settings)
    built = time.perf_counter()
    clusters = elect_origins(graph, facts)
    elected = time.perf_counter()
    cluster_of = {
        member: cluster_id for cluster_id, members in graph.cluster_members.items() for member in members
    }
    agree = sum(1 for ids in corpus.wire_stories.values() if len({cluster_of[i] for i in ids}) == 1)
    return {
        "items": len(corpus.items),
        "build_graph_s": round(built - begin, 3),
        "elect_origins_s": round(elected - built, 3),
        "total_s": round(elected - begin, 3),
        "copy_groups": len(graph.copy_groups),
        "clusters": len(clusters),
        "citation_edges": len(graph.citation_edges),
        "similarity_edges": len(graph.similarity_edges),
        "cycles": len(graph.cycles),
        "amplification_groups": len(graph.amplification_groups),
        "release_overlaps": len(graph.release_overlap),
        "wire_stories": len(corpus.wire_stories),
        "wire_stories_in_one_cluster": agree,
    }


def _same_group(groups: Sequence[Sequence[str]], pairs: dict[str, str]) -> int:
    group_of = {member: number for number, members in enumerate(groups) for member in members}
    return sum(1 for item_id, origin_id in pairs.items() if group_of[item_id] == group_of[origin_id])


def _rewrite_study(size: int, seed: int, settings: ProvenanceSettings) -> dict[str, Any]:
    """Rewrites in other words and independent reports of the same events: how many rewrites join the
    story they retell, how many independent reports are wrongly merged into it, and what the rewrite
    edges cost, against the MinHash-only similarity graph on the same items in the same run."""
    corpus = generate(size, seed, paraphrases=True)
    items = sorted(corpus.items, key=lambda item: item.evidence_id)
    canonical = {item.evidence_id: item_canonical_url(item) for item in items}
    duplicates = find_duplicates(items, canonical)
    cited: dict[str, list[frozenset[str]]] = {}
    for mention in extract_mentions(items, canonical, []):
        cited.setdefault(mention.source, []).append(frozenset(mention.targets))
    packaged_embedder()(
        ["warm up"]
    )  # load the model outside the timings (the judges load it once per process)
    begin = time.perf_counter()
    minhash_only = similarity_graph(items, settings, duplicates, cited, rewrite_embedder=None)
    baseline_s = time.perf_counter() - begin
    begin = time.perf_counter()
    with_rewrites = similarity_graph(items, settings, duplicates, cited)
    rewrites_s = time.perf_counter() - begin
    graph = build_graph(items, [], settings)
    cluster_of = {
        member: cluster_id for cluster_id, members in graph.cluster_members.items() for member in members
    }
    rewrites, independent = len(corpus.paraphrases), len(corpus.independent)
    # How many independent reports read like their event's original to the embedding alone: the merges
    # that only the metadata gates prevent.
    text_of = {item.evidence_id: item.text.lower() for item in items}
    pairs = sorted(corpus.independent.items())
    embed = packaged_embedder()
    reports = embed([text_of[report] for report, _ in pairs])
    originals = embed([text_of[origin] for _, origin in pairs])
    alike = int(np.count_nonzero((reports * originals).sum(axis=1) >= float(REWRITE_MIN_COSINE)))
    credited = sum(
        1 for report, origin in pairs if any(origin in targets for targets in cited.get(report, ()))
    )
    in_cluster = sum(1 for r, o in corpus.paraphrases.items() if cluster_of[r] == cluster_of[o])
    merged_cluster = sum(
        1
        for r, o in corpus.independent.items()
        if cluster_of[r] == cluster_of[o] and not any(o in targets for targets in cited.get(r, ()))
    )
    return {
        "items": len(items),
        "paraphrased_rewrites": rewrites,
        "independent_reports": independent,
        "rewrite_recall_minhash_only": round(
            _same_group(minhash_only.copy_groups, corpus.paraphrases) / rewrites, 4
        ),
        "rewrite_recall_with_embeddings": round(
            _same_group(with_rewrites.copy_groups, corpus.paraphrases) / rewrites, 4
        ),
        "rewrite_recall_clusters": round(in_cluster / rewrites, 4),
        "false_merge_rate_minhash_only": round(
            _same_group(minhash_only.copy_groups, corpus.independent) / independent, 4
        ),
        "false_merge_rate_with_embeddings": round(
            _same_group(with_rewrites.copy_groups, corpus.independent) / independent, 4
        ),
        "false_merge_rate_clusters_uncredited": round(merged_cluster / independent, 4),
        "independent_reports_crediting_the_wire": credited,
        "independent_reports_alike_by_embedding_alone": round(alike / independent, 4),
        "rewrite_edges": sum(1 for edge in with_rewrites.edges if edge.kind == "rewrite"),
        "similarity_minhash_only_s": round(baseline_s, 3),
        "similarity_with_embeddings_s": round(rewrites_s, 3),
        "time_ratio": round(rewrites_s / baseline_s, 2),
    }


def _minhash_comparison(corpus: Corpus, settings: ProvenanceSettings) -> dict[str, Any]:
    """Text to signatures: our numpy MinHash against datasketch's ``MinHash.bulk`` on the same items."""
    from datasketch import MinHash

    texts = [item.text.lower() for item in corpus.items]
    begin = time.perf_counter()
    minhash_signatures(shingle_sets(texts, settings.shingle_words), settings.minhash_permutations, 1)
    ours = time.perf_counter() - begin
    begin = time.perf_counter()
    width = settings.shingle_words
    shingled = []
    for text in texts:
        words = text.split()
        shingled.append([" ".join(words[i : i + width]).encode() for i in range(len(words) - width + 1)])
    MinHash.bulk(shingled, num_perm=settings.minhash_permutations, seed=1)
    theirs = time.perf_counter() - begin
    return {"items": len(texts), "numpy_s": round(ours, 3), "datasketch_bulk_s": round(theirs, 3)}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--skip-100k", action="store_true", help="leave out the 100k-item run")
    parser.add_argument("--seed", type=int, default=7)
    args, _ = parser.parse_known_args(argv)
    settings = load_policy("icarus@1.1").provenance
    sizes = [1_000, 2_000, 10_000] + ([] if args.skip_100k else [100_000])
    runs: dict[int, dict[str, Any]] = {}
    for size in sizes:
        corpus = generate(size, args.seed)
        runs[size] = _time_core(corpus, settings)
        if size <= 2_000:
            seconds, pairs = naive_baseline(corpus.items, settings)
            runs[size]["naive_all_pairs_s"] = round(seconds, 3)
            runs[size]["naive_copy_pairs"] = pairs
            runs[size]["naive_over_ours"] = round(seconds / runs[size]["total_s"], 2)
    result: dict[str, Any] = {
        "runs": [runs[size] for size in sizes],
        "rewrites": _rewrite_study(10_000, args.seed, settings),
        "minhash": [_minhash_comparison(generate(size, args.seed), settings) for size in (1_000, 10_000)],
        "targets": {"10k_total_s_below": 10, "growth_100k_over_10k_below": 12},
    }
    if 100_000 in runs:
        result["growth_100k_over_10k"] = round(runs[100_000]["total_s"] / runs[10_000]["total_s"], 2)
    return result
