"""Rewritten copies: an item that credits another and retells its story in other words (H2, H3).

A rewrite shares no long verbatim run with its original, so shingles miss it; its attribution alone may
name a publisher with several items in the ledger, and then the citation graph cannot tell which of them
it retells. Text embeddings tell, but embedding similarity alone never merges anything: two independent
reports of one event read alike. An edge (kind ``rewrite``) joins item ``i`` to item ``t`` only when all
of these agree:

* attribution: ``i`` credits ``t`` by a link, a wire marker or an attribution phrase naming ``t``'s
  publisher (a mention whose targets include ``t``), and every credit of ``i``'s copy group that does not
  already resolve inside the group names ``t`` too, and none points at material under review. Members of
  a copy group share their citations, so joining a rewrite that also cites someone else would make the
  original derive from that someone; such a rewrite stays a citation, not a copy;
* time: both carry a publication date, at most ``REWRITE_WINDOW`` apart;
* quotes: when both quote someone (runs of ``QUOTE_RUN_WORDS`` words inside quotation marks), they share
  at least one quoted run. Reports that each carry their own interviews are separate reporting;
* length: both cleaned texts have at least ``REWRITE_MIN_WORDS`` words;
* vocabulary: the Jaccard of their distinct words of four letters or more is at least
  ``REWRITE_MIN_SHARED_VOCABULARY`` (no verbatim run is needed, only the same names, figures and terms);
* embedding: the cosine of the two texts' WordLlama embeddings (mean-pooled static token vectors, unit
  length) is at least ``REWRITE_MIN_COSINE``, and ``t`` is the closest of the credited items (ties go to
  the lowest id), closer by ``REWRITE_MARGIN`` than any credited item outside ``t``'s copy group. A copy
  group of rewrites takes its one closest pair, so it joins one original at most: a rewrite credited to
  "Reuters" never ties two Reuters stories together.

An edge only merges copy groups. A rewrite left without one still derives from what it credits through
the citation graph, so it never starts a cluster of its own either way. The embedding model is loaded only when some pair passes every other test.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from decimal import Decimal
from typing import Any

import numpy as np
import numpy.typing as npt

from icarus.ledger.evidence import EvidenceItem
from icarus.provenance.citations import ARTIFACT_PREFIX

__all__ = [
    "QUOTE_RUN_WORDS",
    "REWRITE_MARGIN",
    "REWRITE_MAX_CANDIDATES",
    "REWRITE_MIN_COSINE",
    "REWRITE_MIN_SHARED_VOCABULARY",
    "REWRITE_MIN_WORDS",
    "REWRITE_WINDOW",
    "Embedder",
    "packaged_embedder",
    "quoted_runs",
    "rewrite_pairs",
]

REWRITE_MIN_COSINE = Decimal("0.75")
"""Embedding cosine at or above which a credited item may be a rewrite of the item it credits."""

REWRITE_MARGIN = Decimal("0.05")
"""How much closer the chosen original must be than the next credited story: otherwise the embedding
cannot tell which one was retold, and the credit stays an ordinary citation."""

REWRITE_WINDOW = timedelta(hours=72)
"""Longest gap between the publication times of a rewrite and its original."""

QUOTE_RUN_WORDS = 5
"""Quoted passages are compared as runs of this many words: a rewrite may trim a quote, not reword it."""

REWRITE_MIN_WORDS = 30
"""Below this many words a text's embedding says too little about which story it tells."""

REWRITE_MAX_CANDIDATES = 256
"""At most this many credited items (the closest in time) are weighed for one rewrite: a publisher with
thousands of items in a ledger cannot make the step quadratic."""

REWRITE_MIN_SHARED_VOCABULARY = Decimal("0.20")
"""Jaccard of two texts' distinct words of four letters or more: a retelling keeps the story's names,
figures and key terms, while separate stories (and gibberish, which static embeddings cannot tell apart)
share few of them."""

Matrix = npt.NDArray[np.float32]
Embedder = Callable[[list[str]], Matrix]
"""Texts to one unit-length row each."""

_SCORE_PLACES = Decimal("0.0001")
# A retelling follows its original's lead: the first characters say which story a text tells, and
# reading only them keeps the cost per text bounded.
_EMBED_CHARS = 1500
_QUOTE_MAX_CHARS = 600  # a "quotation" longer than this is an unbalanced mark, not a quote
_QUOTED = re.compile(rf"“([^”]{{1,{_QUOTE_MAX_CHARS}}})”|\"([^\"]{{1,{_QUOTE_MAX_CHARS}}})\"")
_WORDS = re.compile(r"[^\W_]+")
_TOKEN_SPANS = re.compile(r"\S+")  # what the tokenizer sees between spaces
_VOCABULARY_MIN_CHARS = 4


def packaged_embedder() -> Embedder:
    """The WordLlama model the judges use, from the installed package (never a download): the token
    vectors of each text's first ``_EMBED_CHARS`` characters, mean-pooled to unit length.

    Static vectors make a text's pool the sum of its words' pools, so each distinct word is tokenised once
    (alone, its first piece carries the word-start mark it has inside a sentence) and a text's vector is
    its word counts times the word vectors: the same vectors as ``WordLlama.embed``, at a fraction of
    the cost.
    """
    # Imported here: WordLlama (and SciPy) are loaded only when some pair needs an embedding.
    from scipy.sparse import csr_matrix

    from icarus.text.wordllama import load_wordllama

    model = load_wordllama()
    table = np.asarray(model.embedding, dtype=np.float32)
    tokenizer = model.tokenizer

    def counts(rows: list[list[int]], width: int) -> Any:
        lengths = np.array([len(row) for row in rows], dtype=np.int64)
        columns = np.array([column for row in rows for column in row], dtype=np.int64)
        indptr = np.concatenate(([0], np.cumsum(lengths)))
        return csr_matrix(
            (np.ones(len(columns), dtype=np.float32), columns, indptr), shape=(len(rows), width)
        )

    def embed(texts: list[str]) -> Matrix:
        word_lists = [_TOKEN_SPANS.findall(text[:_EMBED_CHARS]) for text in texts]
        vocabulary = {
            word: n for n, word in enumerate(dict.fromkeys(w for words in word_lists for w in words))
        }
        encoded = tokenizer.encode_batch(list(vocabulary), is_pretokenized=False, add_special_tokens=False)
        limit = len(table) - 1
        token_rows = [
            [min(max(i, 0), limit) for i, kept in zip(enc.ids, enc.attention_mask, strict=True) if kept]
            for enc in encoded
        ]
        word_vectors = counts(token_rows, len(table)) @ table
        text_rows = [[vocabulary[word] for word in words] for words in word_lists]
        vectors = np.asarray(counts(text_rows, len(vocabulary)) @ word_vectors, dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit: Matrix = vectors / np.maximum(norms, 1e-8)
        return unit

    return embed


def quoted_runs(text: str) -> frozenset[tuple[str, ...]]:
    """Every run of ``QUOTE_RUN_WORDS`` lower-cased words inside a quotation in ``text``."""
    runs: set[tuple[str, ...]] = set()
    for match in _QUOTED.finditer(text):
        words = _WORDS.findall((match.group(1) or match.group(2)).lower())
        runs.update(
            tuple(words[start : start + QUOTE_RUN_WORDS]) for start in range(len(words) - QUOTE_RUN_WORDS + 1)
        )
    return frozenset(runs)


def _raw_text(item: EvidenceItem) -> str:
    if item.text:
        return item.text
    return item.excerpt.text if item.excerpt is not None else ""


class _Facts:
    """What the gates read about each item, computed once per item that takes part."""

    def __init__(self, evidence: Sequence[EvidenceItem], texts: Sequence[str]) -> None:
        self.evidence = evidence
        self.texts = texts
        self._quotes: dict[int, frozenset[tuple[str, ...]]] = {}
        self._long_enough: dict[int, bool] = {}
        self._vocabulary: dict[str, frozenset[str]] = {}
        self._seconds = np.array(
            [np.nan if item.published_at is None else item.published_at.timestamp() for item in evidence]
        )

    def in_window(self, i: int, candidates: npt.NDArray[np.int64]) -> list[int]:
        """The candidates published within ``REWRITE_WINDOW`` of ``i`` (none when either is undated), at
        most ``REWRITE_MAX_CANDIDATES`` of them, the closest in time (ties: the lowest position), in order."""
        gap = np.abs(self._seconds[candidates] - self._seconds[i])  # NaN, so never within, when undated
        inside = np.flatnonzero(gap <= REWRITE_WINDOW.total_seconds())
        if len(inside) > REWRITE_MAX_CANDIDATES:
            nearest = inside[np.lexsort((inside, gap[inside]))[:REWRITE_MAX_CANDIDATES]]
            inside = np.sort(nearest)
        within: list[int] = candidates[inside].tolist()
        return within

    def long_enough(self, i: int) -> bool:
        known = self._long_enough.get(i)
        if known is None:
            known = self._long_enough[i] = len(_WORDS.findall(self.texts[i])) >= REWRITE_MIN_WORDS
        return known

    def vocabulary(self, i: int) -> frozenset[str]:
        text = self.texts[i]  # copies share one text: their vocabulary is read once
        known = self._vocabulary.get(text)
        if known is None:
            found = _WORDS.findall(text)
            known = self._vocabulary[text] = frozenset(w for w in found if len(w) >= _VOCABULARY_MIN_CHARS)
        return known

    def quotes(self, i: int) -> frozenset[tuple[str, ...]]:
        known = self._quotes.get(i)
        if known is None:
            known = self._quotes[i] = quoted_runs(_raw_text(self.evidence[i]))
        return known

    def metadata_agrees(self, i: int, t: int) -> bool:
        """Every gate but the time window (``in_window``) and the embedding."""
        if not (self.long_enough(i) and self.long_enough(t)):
            return False
        quotes_i, quotes_t = self.quotes(i), self.quotes(t)
        if quotes_i and quotes_t and quotes_i.isdisjoint(quotes_t):
            return False
        words_i, words_t = self.vocabulary(i), self.vocabulary(t)
        shared = len(words_i & words_t)
        return shared > 0 and Decimal(shared) >= REWRITE_MIN_SHARED_VOCABULARY * len(words_i | words_t)


def _sole_credit(
    target_sets: set[frozenset[str]],
    positions: Callable[[frozenset[str]], frozenset[int]],
    group_of: Sequence[int],
    group: int,
) -> list[int]:
    """The ledger items that every credit of ``group`` names, outside the group itself, in order.

    Credits that already resolve inside the group are left aside (they stay inside it). Nothing when the
    group credits no one else, credits two sources, or points at material under review: joining a group
    that cites elsewhere would make the original derive from what the rewrite cites.
    """
    common: frozenset[int] | None = None
    for targets in target_sets:
        if any(target.startswith(ARTIFACT_PREFIX) for target in targets):
            return []
        inside = positions(targets)
        if any(group_of[t] == group for t in inside):
            continue
        common = inside if common is None else common & inside
        if not common:
            return []
    return sorted(common or ())


def rewrite_pairs(
    evidence: Sequence[EvidenceItem],
    texts: Sequence[str],
    group_of: Sequence[int],
    cited: Mapping[str, Sequence[frozenset[str]]],
    embedder: Callable[[], Embedder] = packaged_embedder,
) -> list[tuple[int, int, Decimal]]:
    """(rewrite, original, cosine) index pairs that pass every gate, in order.

    ``texts`` are the items' cleaned texts and ``group_of`` their copy groups before this step; ``cited``
    maps an item id to the target set of each of its mentions. ``embedder`` is called at most once, and
    only when some pair reaches the embedding test.
    """
    index = {item.evidence_id: i for i, item in enumerate(evidence)}
    facts = _Facts(evidence, texts)
    members_of: dict[int, list[int]] = defaultdict(list)
    for i, group in enumerate(group_of):
        members_of[group].append(i)
    credits: dict[int, set[frozenset[str]]] = defaultdict(set)
    for source_id, target_sets in cited.items():
        position = index.get(source_id)
        if position is not None:
            credits[group_of[position]].update(target_sets)
    known_positions: dict[frozenset[str], frozenset[int]] = {}  # a publisher's targets are shared sets

    def positions(targets: frozenset[str]) -> frozenset[int]:
        found = known_positions.get(targets)
        if found is None:
            found = known_positions[targets] = frozenset(index[t] for t in targets if t in index)
        return found

    # (member, candidate originals) per group of rewrites, after every gate but the embedding.
    requests: list[tuple[int, list[int]]] = []
    for group in sorted(credits):
        candidates = np.array(_sole_credit(credits[group], positions, group_of, group), dtype=np.int64)
        if not len(candidates):
            continue
        for i in members_of[group]:
            passing = [t for t in facts.in_window(i, candidates) if facts.metadata_agrees(i, t)]
            if passing:
                requests.append((i, passing))
    if not requests:
        return []
    embed = embedder()
    needed = sorted({i for i, _ in requests} | {t for _, passing in requests for t in passing})
    distinct = {texts[i]: None for i in needed}
    row_of_text = {text: row for row, text in enumerate(distinct)}
    vectors = embed(list(distinct))
    row = {i: row_of_text[texts[i]] for i in needed}
    # Per group of rewrites and per group of candidate originals, the closest pair (ties: lowest ids).
    closest: dict[int, dict[int, tuple[Decimal, int, int]]] = defaultdict(dict)
    for i, passing in requests:
        cosines = vectors[[row[t] for t in passing]] @ vectors[row[i]]
        for t, value in zip(passing, cosines.tolist(), strict=True):
            cosine = Decimal(value).quantize(_SCORE_PLACES)
            per_original = closest[group_of[i]]
            held = per_original.get(group_of[t])
            if held is None or (cosine, -i, -t) > (held[0], -held[1], -held[2]):
                per_original[group_of[t]] = (cosine, i, t)
    # Each group of rewrites joins one original at most, and only one the embedding clearly singles out.
    pairs: dict[tuple[int, int], Decimal] = {}
    for per_original in closest.values():
        ranked = sorted(per_original.values(), key=lambda entry: (-entry[0], entry[1], entry[2]))
        cosine, i, t = ranked[0]
        runner_up = ranked[1][0] if len(ranked) > 1 else None
        if cosine >= REWRITE_MIN_COSINE and (runner_up is None or cosine - runner_up >= REWRITE_MARGIN):
            pairs[(min(i, t), max(i, t))] = cosine
    return [(left, right, cosine) for (left, right), cosine in sorted(pairs.items())]
