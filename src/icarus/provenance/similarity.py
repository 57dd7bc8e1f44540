"""H2 similarity, H19 release overlap and H21 amplification: which items are copies of one another.

Steps, each deterministic:

1. Boilerplate removal. Lines are lower-cased and their whitespace collapsed; short share/subscribe/cookie
   lines are dropped, and so are lines a domain repeats in three or more items when they are only a
   minority of those items' text (a footer or a sidebar, not a story the domain ran three times);
   see ``boilerplate``.
2. Verbatim word shingles (``shingle_words`` words) hashed into MinHash signatures
   (``minhash_permutations``, seeded by ``minhash_seed``).
3. Candidate pairs from locality-sensitive hashing (``lsh``): signatures are cut into the bands that
   ``datasketch.MinHashLSH`` chooses for the threshold (weighted towards recall), and documents that
   share a band become candidates.
   Identical signatures are collapsed first, so a story copied a thousand times costs one comparison.
   A candidate becomes an edge (kind ``shingles``) only when its estimated Jaccard reaches
   ``similarity_threshold``. Items with fewer than ten shingles get no shingle edges.
   A trimmed copy (the first paragraphs of a story) has a low Jaccard with the whole: a text with at least
   ``similarity_threshold`` of its shingles in another copy group's texts joins that group (``containment``,
   counted exactly; see ``containment_edges``).
4. Other edges: identical normalised text or an H1 duplicate (``identical``); the same normalised title
   with the same byline or an estimated Jaccard of at least ``similarity_threshold - 0.20``
   (``metadata``); H19 containment of an item's ``release_shingle_words``-word shingles in a press
   release at or above ``release_containment`` (``release_containment``); H21 coordinated amplification
   (``amplification``).
5. Rewrites: an item that credits another and retells it in other words, judged by text embeddings and
   only where attribution, publication time and quotations agree (``rewrite``; see ``embeddings``).

Copy groups are the connected components of that graph. This is the seed's "community detection" step,
done with components on purpose rather than modularity or Leiden: with components, adding an item can
only merge groups, never split one, so a new copy can never raise the independent corroboration count.
Modularity-based communities can split a group when an item is added.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

import numpy as np
import numpy.typing as npt

from icarus.ledger.evidence import EvidenceItem, SourceClass
from icarus.ledger.policy import ProvenanceSettings
from icarus.provenance.arrays import dense_ids, distinct_sorted, run_positions
from icarus.provenance.boilerplate import clean_texts, raw_text
from icarus.provenance.canonical import registered_domain
from icarus.provenance.citations import normalise_name
from icarus.provenance.embeddings import Embedder, packaged_embedder, rewrite_pairs
from icarus.provenance.graphs import weak_components
from icarus.provenance.lsh import candidate_pairs, lsh_bands
from icarus.provenance.model import SimilarityEdge
from icarus.provenance.shingles import (
    I64,
    U32,
    estimated_matches,
    minhash_signatures,
    shingle_sets,
    words_of,
)

__all__ = [
    "CONTAINMENT_MAX_HOLDERS",
    "MIN_SHINGLES",
    "RELEASE_WIRE_DOMAINS",
    "SimilarityResult",
    "clean_texts",
    "meets",
    "normalise_title",
    "similarity_graph",
]

MIN_SHINGLES = 10
"""Below this many distinct shingles an item's text is too short to judge copying by overlap."""

CONTAINMENT_MAX_HOLDERS = 64
"""A shingle more copy groups than this hold does not lead to containment candidates (bounds the work)."""
_LOOKUPS_PER_CHUNK = 1 << 22

RELEASE_WIRE_DOMAINS = frozenset(
    {"prnewswire.com", "businesswire.com", "globenewswire.com", "eurekalert.org"}
)
"""H19: hosts of press-release wires; an item hosted there is a release whatever its source class."""

_TITLE_SEPARATOR = re.compile(r"\s+[|–—-]\s+")
_WORDS = re.compile(r"[^\W_]+")
_METADATA_SLACK = Decimal("0.20")
_SCORE_PLACES = Decimal("0.0001")
_ONE = Decimal(1).quantize(_SCORE_PLACES)


def meets(numerator: int, denominator: int, threshold: Decimal) -> bool:
    """``numerator / denominator >= threshold``, exactly (no binary floats)."""
    return denominator > 0 and Decimal(numerator) >= threshold * denominator


def _score(numerator: int, denominator: int) -> Decimal:
    return (Decimal(numerator) / Decimal(denominator)).quantize(_SCORE_PLACES)


def normalise_title(title: str | None, publisher: str) -> str:
    """Lower-case words of the title, without a trailing ``| Publisher`` or ``- Publisher``."""
    if not title:
        return ""
    parts = _TITLE_SEPARATOR.split(title)
    if len(parts) > 1 and normalise_name(parts[-1]) == normalise_name(publisher):
        title = " ".join(parts[:-1])
    return " ".join(_WORDS.findall(title.lower()))


@dataclass(frozen=True, slots=True)
class SimilarityResult:
    edges: tuple[SimilarityEdge, ...]
    # index of each item's copy group; groups are numbered by their lowest member id
    group_index: tuple[int, ...]
    copy_groups: tuple[tuple[str, ...], ...]
    release_overlap: dict[str, Decimal]
    amplification_groups: tuple[tuple[str, ...], ...]
    # (item id, release id, containment) for each H19 overlap at or above the threshold
    release_pairs: tuple[tuple[str, str, Decimal], ...]
    overlap: TextOverlap


class TextOverlap:
    """Which of several candidate items a given item's text overlaps most (by MinHash agreement)."""

    def __init__(self, ids: Sequence[str], signatures: U32, has_signature: npt.NDArray[np.bool_]) -> None:
        self._index = {evidence_id: i for i, evidence_id in enumerate(ids)}
        self._signatures = signatures
        self._has_signature = has_signature
        # Every mention of one publisher passes the same candidate tuple (all of that publisher's items),
        # and in large ledgers it is long: its signature rows are gathered once, not once per mention.
        self._prepared: dict[int, tuple[Sequence[str], I64, I64, U32]] = {}

    def _prepare(self, candidates: Sequence[str]) -> tuple[I64, I64, U32]:
        """Positions of the candidates that have signatures, of those that do not, and the former's rows."""
        entry = self._prepared.get(id(candidates))
        if entry is None or entry[0] is not candidates:  # the entry holds the tuple, so its id stays unique
            rows = np.array([self._index.get(candidate, -1) for candidate in candidates], dtype=np.int64)
            signed = rows >= 0
            signed[signed] = self._has_signature[rows[signed]]
            scored = np.flatnonzero(signed)
            entry = (candidates, scored, np.flatnonzero(~signed), self._signatures[rows[scored]])
            self._prepared[id(candidates)] = entry
        return entry[1], entry[2], entry[3]

    def closest(self, source: str, candidates: Sequence[str]) -> tuple[str, ...]:
        """Among candidate evidence items, those sharing the most signature positions with ``source``.

        Candidates that are not evidence items (virtual nodes) are always kept. Nothing is dropped when
        ``source`` has no signature or shares no position with any candidate.
        """
        row = self._index[source]
        if not self._has_signature[row]:
            return tuple(candidates)
        scored, unscored, rows = self._prepare(candidates)
        if len(scored) < 2:
            return tuple(candidates)
        agree = np.count_nonzero(rows == self._signatures[row], axis=1)
        best = int(agree.max())
        if best == 0:
            return tuple(candidates)
        kept = np.union1d(unscored, scored[agree == best])  # sorted: the candidates' own order
        return tuple(candidates[position] for position in kept.tolist())


class _EdgeSink:
    """Collects similarity edges: index pairs for the components, id-keyed edges for the record."""

    def __init__(self, ids: Sequence[str]) -> None:
        self.ids = ids
        self.pairs: list[tuple[int, int]] = []
        self.edges: dict[tuple[str, str, str], Decimal] = {}

    def add(self, left: int, right: int, score: Decimal, kind: str) -> None:
        if left == right:
            return
        a, b = sorted((self.ids[left], self.ids[right]))
        key = (a, b, kind)
        if key not in self.edges or self.edges[key] < score:
            self.edges[key] = score
        self.pairs.append((left, right))

    def chain(self, members: Iterable[int], score: Decimal, kind: str) -> None:
        ordered = sorted(members)
        for left, right in itertools.pairwise(ordered):
            self.add(left, right, score, kind)


def _byline_key(item: EvidenceItem) -> str:
    return " ".join(_WORDS.findall((item.byline or "").lower()))


class _Similarity:
    """Working state for one ledger (items already sorted by id)."""

    def __init__(self, evidence: Sequence[EvidenceItem], settings: ProvenanceSettings) -> None:
        self.evidence = evidence
        self.settings = settings
        self.ids = [item.evidence_id for item in evidence]
        self.sink = _EdgeSink(self.ids)
        self.permutations = settings.minhash_permutations
        # Identical cleaned texts share one signature: compute it once per distinct text.
        unique_index: dict[str, int] = {}
        text_of = [unique_index.setdefault(text, len(unique_index)) for text in clean_texts(evidence)]
        self.unique_texts = list(unique_index)
        self.words = words_of(self.unique_texts)
        shingles = shingle_sets(self.words, settings.shingle_words)
        self.shingles = shingles
        unique_signatures = minhash_signatures(shingles, self.permutations, settings.minhash_seed)
        self.text_of = np.asarray(text_of, dtype=np.int64)
        self.shingle_counts = shingles.counts[self.text_of]
        self.has_signature = self.shingle_counts >= MIN_SHINGLES
        self.signatures = unique_signatures[self.text_of]

    def estimated_jaccard(self, left: int, right: int) -> tuple[int, bool]:
        """Agreeing signature positions, and whether both items have a signature at all."""
        if not (self.has_signature[left] and self.has_signature[right]):
            return 0, False
        return int(np.count_nonzero(self.signatures[left] == self.signatures[right])), True

    def identical(self, duplicate_of: Mapping[str, str]) -> None:
        index = {evidence_id: i for i, evidence_id in enumerate(self.ids)}
        for later, first in duplicate_of.items():
            self.sink.add(index[first], index[later], _ONE, "identical")
        # Verbatim text, however short, before any per-domain boilerplate removal.
        by_text: dict[str, list[int]] = defaultdict(list)
        folded: dict[str, str] = {}  # verbatim copies share one folding
        for i, item in enumerate(self.evidence):
            raw = raw_text(item)
            text = folded.get(raw)
            if text is None:
                text = folded[raw] = " ".join(raw.lower().split())
            if text:
                by_text[text].append(i)
        for members in by_text.values():
            self.sink.chain(members, _ONE, "identical")

    def shingle_edges(self) -> None:
        eligible = np.flatnonzero(self.has_signature)
        if len(eligible) < 2:
            return
        signatures = self.signatures[eligible]
        keys = signatures.view(np.dtype((np.void, signatures.dtype.itemsize * self.permutations))).ravel()
        _, first_of_class, class_of = np.unique(keys, return_index=True, return_inverse=True)
        for position, cls in enumerate(class_of.ravel().tolist()):
            leader = int(first_of_class[cls])
            if leader != position:
                self.sink.add(int(eligible[leader]), int(eligible[position]), _ONE, "shingles")
        representatives = eligible[first_of_class]
        bands, rows = lsh_bands(self.settings.similarity_threshold, self.permutations)
        left, right = candidate_pairs(self.signatures[representatives], bands, rows)
        left, right = representatives[left], representatives[right]
        matches = estimated_matches(self.signatures, left, right)
        need = math.ceil(self.settings.similarity_threshold * self.permutations)
        keep = matches >= need
        for a, b, match in zip(
            left[keep].tolist(), right[keep].tolist(), matches[keep].tolist(), strict=True
        ):
            self.sink.add(a, b, _score(match, self.permutations), "shingles")

    def containment_edges(self) -> None:
        """Trimmed copies: a text whose shingles lie, ``similarity_threshold`` or more of them, in the texts
        of another copy group joins that group (kind ``containment``).

        A pickup that runs only the first paragraphs of a story shares few of the story's shingles, so
        its Jaccard stays low while nearly all of its own shingles are the story's. Counts are exact (no
        estimate), against the copy groups as the other edges left them, in one pass; an edge only merges
        groups, so adding a copy never splits one.

        Candidate groups come from a prefix filter: if ``need`` of a text's ``n`` shingles must lie in a
        group, that group holds at least one of any ``n - need + 1`` of them, so only the text's rarest
        shingles are looked up. A shingle that more than ``CONTAINMENT_MAX_HOLDERS`` groups hold (a
        notice or a statement carried everywhere) is not looked up: this bounds the work on hostile input,
        where many items share one long passage, and such items are left to the Jaccard edges.
        """
        counts = self.shingles.counts
        eligible = np.flatnonzero(counts >= MIN_SHINGLES)
        if len(eligible) < 2:
            return
        groups = self.components()
        group_of_item = np.empty(len(self.ids), dtype=np.int64)
        for number, members in enumerate(groups):
            group_of_item[members] = number
        leader = np.array([members[0] for members in groups], dtype=np.int64)
        # Each text stands for its first item; items sharing a text are in one group already.
        _, first_item = np.unique(self.text_of, return_index=True)
        sizes = counts[eligible]
        text_group = group_of_item[first_item[eligible]]
        owner = np.repeat(np.arange(len(eligible)), sizes)  # position in ``eligible``
        text_start = np.cumsum(sizes) - sizes  # where each text's shingles begin in ``owner``
        hashes = self.shingles.hashes[run_positions(self.shingles.offsets[eligible], sizes)]
        shingle, distinct_count = dense_ids(hashes)
        groups_count = len(groups)
        # Which groups hold each shingle: sorted codes shingle * groups + group, one per pair.
        held = distinct_sorted(shingle * groups_count + text_group[owner])
        held_group = held % groups_count
        holders = np.bincount(held // groups_count, minlength=distinct_count)
        first_holder = np.cumsum(holders) - holders
        numerator, denominator = self.settings.similarity_threshold.as_integer_ratio()
        need = -(-(numerator * sizes) // denominator)  # ceil(threshold x size), exact
        # The prefix: each text's n - need + 1 rarest shingles (ties by shingle id), held elsewhere too.
        # Holder counts over the cap rank alike (those shingles are dropped), which keeps one sort key.
        rarity = np.minimum(holders[shingle], CONTAINMENT_MAX_HOLDERS + 1) * distinct_count + shingle
        order = np.argsort(owner * ((CONTAINMENT_MAX_HOLDERS + 2) * distinct_count) + rarity)
        rank = np.arange(len(order)) - np.repeat(text_start, sizes)
        in_prefix = order[rank < (sizes - need + 1)[owner[order]]]
        spans = holders[shingle[in_prefix]]
        looked_up = (spans > 1) & (spans <= CONTAINMENT_MAX_HOLDERS)
        in_prefix, spans = in_prefix[looked_up], spans[looked_up]
        probe_text = np.repeat(owner[in_prefix], spans)
        probe_group = held_group[run_positions(first_holder[shingle[in_prefix]], spans)]
        elsewhere = probe_group != text_group[probe_text]
        candidates = distinct_sorted(probe_text[elsewhere] * groups_count + probe_group[elsewhere])
        if not len(candidates):
            return
        # Exact count, in bounded chunks: every shingle of the text looked up among the group's.
        text_item = first_item[eligible]
        lookups = int(sizes[candidates // groups_count].sum())
        for chunk in np.array_split(candidates, -(-lookups // _LOOKUPS_PER_CHUNK)):
            text, group = chunk // groups_count, chunk % groups_count
            reach = sizes[text]
            codes = shingle[run_positions(text_start[text], reach)] * groups_count + np.repeat(group, reach)
            found = held[np.minimum(np.searchsorted(held, codes), len(held) - 1)] == codes
            shared = np.add.reduceat(found.astype(np.int64), np.cumsum(reach) - reach)
            keep = shared >= need[text]
            for t, g, count in zip(
                text[keep].tolist(), group[keep].tolist(), shared[keep].tolist(), strict=True
            ):
                self.sink.add(int(text_item[t]), int(leader[g]), _score(count, int(sizes[t])), "containment")

    def rewrite_edges(
        self, cited: Mapping[str, Sequence[frozenset[str]]], embedder: Callable[[], Embedder]
    ) -> None:
        """Rewritten copies (kind ``rewrite``): see ``icarus.provenance.embeddings``."""
        group_of = [0] * len(self.ids)
        for number, members in enumerate(self.components()):
            for i in members:
                group_of[i] = number
        texts = [self.unique_texts[text] for text in self.text_of.tolist()]
        for left, right, cosine in rewrite_pairs(self.evidence, texts, group_of, cited, embedder):
            self.sink.add(left, right, cosine, "rewrite")

    def metadata_edges(self) -> None:
        by_title: dict[str, list[int]] = defaultdict(list)
        for i, item in enumerate(self.evidence):
            key = normalise_title(item.title, item.publisher)
            if key:
                by_title[key].append(i)
        slack_threshold = self.settings.similarity_threshold - _METADATA_SLACK
        for members in by_title.values():
            if len(members) < 2:
                continue
            by_byline: dict[str, list[int]] = defaultdict(list)
            for i in members:
                byline = _byline_key(self.evidence[i])
                if byline:
                    by_byline[byline].append(i)
            for same_byline in by_byline.values():
                for left, right in itertools.pairwise(same_byline):
                    match, known = self.estimated_jaccard(left, right)
                    score = _score(match, self.permutations) if known else Decimal(0).quantize(_SCORE_PLACES)
                    self.sink.add(left, right, score, "metadata")
            # By overlap: one comparison per distinct text in the title group, members follow their text.
            leaders: dict[int, int] = {}
            for i in members:
                if self.has_signature[i]:
                    leader = leaders.setdefault(int(self.text_of[i]), i)
                    if leader != i:
                        self.sink.add(leader, i, _ONE, "metadata")
            texts = np.array(sorted(leaders.values()), dtype=np.int64)
            for position in range(len(texts) - 1):
                left = int(texts[position])
                rest = texts[position + 1 :]
                agree = np.count_nonzero(self.signatures[rest] == self.signatures[left], axis=1)
                for right, match in zip(rest.tolist(), agree.tolist(), strict=True):
                    if meets(match, self.permutations, slack_threshold):
                        self.sink.add(left, right, _score(match, self.permutations), "metadata")

    def release_edges(self) -> tuple[dict[str, Decimal], list[tuple[str, str, Decimal]]]:
        """H19: containment of each item's long shingles in each release."""
        is_release = [
            item.source_class is SourceClass.RELEASE_SERVICE
            or registered_domain(item.domain) in RELEASE_WIRE_DOMAINS
            for item in self.evidence
        ]
        release_items = [i for i, flag in enumerate(is_release) if flag]
        if not release_items:
            return {}, []
        long = shingle_sets(self.words, self.settings.release_shingle_words)
        counts = long.counts
        texts = len(counts)
        release_texts = sorted({int(self.text_of[i]) for i in release_items})
        release_hashes = np.concatenate(
            [long.hashes[long.offsets[t] : long.offsets[t + 1]] for t in release_texts]
        )
        release_owner = np.concatenate([np.full(int(counts[t]), t, dtype=np.int64) for t in release_texts])
        order = np.argsort(release_hashes, kind="stable")
        release_hashes, release_owner = release_hashes[order], release_owner[order]
        # Every (text, release text) pair that shares a long shingle, and how many they share.
        lo = np.searchsorted(release_hashes, long.hashes, side="left")
        hits = np.searchsorted(release_hashes, long.hashes, side="right") - lo
        total = int(hits.sum())
        hit_text = np.repeat(np.repeat(np.arange(texts), counts), hits)
        hit_index = np.repeat(lo, hits) + np.arange(total) - np.repeat(np.cumsum(hits) - hits, hits)
        pair_codes, shared = np.unique(hit_text * texts + release_owner[hit_index], return_counts=True)
        containment: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for code, count in zip(pair_codes.tolist(), shared.tolist(), strict=True):
            text, release_text = divmod(code, texts)
            if meets(count, int(counts[text]), self.settings.release_containment):
                containment[text].append((release_text, count))
        releases_by_text: dict[int, list[int]] = defaultdict(list)
        for i in release_items:
            releases_by_text[int(self.text_of[i])].append(i)
        overlap: dict[str, Decimal] = {}
        pairs: list[tuple[str, str, Decimal]] = []
        for i, item in enumerate(self.evidence):
            text = int(self.text_of[i])
            if is_release[i] or counts[text] < MIN_SHINGLES:
                continue
            for release_text, count in containment.get(text, ()):
                score = _score(count, int(counts[text]))
                for release in releases_by_text[release_text]:
                    self.sink.add(i, release, score, "release_containment")
                    pairs.append((item.evidence_id, self.ids[release], score))
                    overlap[item.evidence_id] = max(overlap.get(item.evidence_id, score), score)
        return overlap, pairs

    def amplification(
        self, cited: Mapping[str, Sequence[frozenset[str]]], groups: Sequence[Sequence[int]]
    ) -> list[tuple[str, ...]]:
        """H21: enough near-identical items from enough domains inside the window, with no shared origin.

        Within each copy group, items are taken in publication order; from each not-yet-used item a set
        grows greedily with later items inside the window that are close to every member already chosen.
        """
        settings = self.settings
        window = timedelta(minutes=settings.amplification_window_minutes)
        found: list[tuple[str, ...]] = []
        cache: dict[tuple[int, int], bool] = {}

        def close(left: int, right: int) -> bool:
            a, b = int(self.text_of[left]), int(self.text_of[right])
            if a == b:
                return True
            key = (min(a, b), max(a, b))
            if key not in cache:
                match, _ = self.estimated_jaccard(left, right)
                cache[key] = meets(match, self.permutations, settings.amplification_similarity)
            return cache[key]

        for group in groups:
            dated = [
                (published, i)
                for i in group
                if (published := self.evidence[i].published_at) is not None and self.has_signature[i]
            ]
            if len(dated) < settings.amplification_min_items:
                continue
            dated.sort(key=lambda entry: (entry[0], self.ids[entry[1]]))
            used: set[int] = set()
            for start, (start_time, first) in enumerate(dated):
                if first in used:
                    continue
                chosen = [first]
                for published, candidate in dated[start + 1 :]:
                    if published - start_time > window:
                        break
                    if candidate not in used and all(close(candidate, member) for member in chosen):
                        chosen.append(candidate)
                if self._is_amplification(chosen, cited):
                    used.update(chosen)
                    found.append(tuple(sorted(self.ids[i] for i in chosen)))
                    self.sink.chain(chosen, self._min_score(chosen), "amplification")
        return sorted(found)

    def _is_amplification(self, chosen: Sequence[int], cited: Mapping[str, Sequence[frozenset[str]]]) -> bool:
        settings = self.settings
        if len(chosen) < settings.amplification_min_items:
            return False
        if (
            len({registered_domain(self.evidence[i].domain) for i in chosen})
            < settings.amplification_min_domains
        ):
            return False
        # A shared attributed origin (one member citing another, or two members citing the same source)
        # makes this ordinary syndication, which H2 already handles.
        ids = {self.ids[i] for i in chosen}
        seen: set[frozenset[str]] = set()
        for i in chosen:
            for targets in cited.get(self.ids[i], ()):
                if not ids.isdisjoint(targets) or targets in seen:
                    return False
                seen.add(targets)
        return True

    def _min_score(self, chosen: Sequence[int]) -> Decimal:
        lowest = self.permutations
        for position, left in enumerate(chosen):
            for right in chosen[position + 1 :]:
                lowest = min(lowest, self.estimated_jaccard(left, right)[0])
        return _score(lowest, self.permutations)

    def components(self) -> list[list[int]]:
        groups = [sorted(component) for component in weak_components(len(self.ids), self.sink.pairs)]
        return sorted(groups, key=lambda members: members[0])


def similarity_graph(
    evidence: Sequence[EvidenceItem],
    settings: ProvenanceSettings,
    duplicate_of: Mapping[str, str],
    cited: Mapping[str, Sequence[frozenset[str]]],
    *,
    rewrite_embedder: Callable[[], Embedder] | None = packaged_embedder,
) -> SimilarityResult:
    """Copy groups over ``evidence`` (which must be sorted by id).

    ``cited`` maps each item to the target set of each of its citations, for H21's shared-origin test and
    for the attribution gate of rewrite edges. ``rewrite_embedder`` supplies the embedding model for
    those edges; ``None`` leaves rewrites out (verbatim and metadata similarity only).
    """
    state = _Similarity(evidence, settings)
    state.identical(duplicate_of)
    state.shingle_edges()
    state.metadata_edges()
    state.containment_edges()
    if rewrite_embedder is not None:
        state.rewrite_edges(cited, rewrite_embedder)
    release_overlap, release_pairs = state.release_edges()
    amplification = state.amplification(cited, state.components())
    groups = state.components()
    group_index = [0] * len(state.ids)
    for number, members in enumerate(groups):
        for i in members:
            group_index[i] = number
    edges = tuple(
        SimilarityEdge(a, b, score, kind) for (a, b, kind), score in sorted(state.sink.edges.items())
    )
    return SimilarityResult(
        edges=edges,
        group_index=tuple(group_index),
        copy_groups=tuple(tuple(state.ids[i] for i in members) for members in groups),
        release_overlap=dict(sorted(release_overlap.items())),
        amplification_groups=tuple(amplification),
        release_pairs=tuple(sorted(release_pairs)),
        overlap=TextOverlap(state.ids, state.signatures, state.has_signature),
    )
