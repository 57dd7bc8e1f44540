"""The excerpt of a retrieved document: the one sentence an evidence item quotes and a judge reads.

The research step keeps, of each document it found, the sentence sharing most content with the claim, and
passes over sentences that only report the claim (``reported_claims``). ``icarus check`` quotes it in the
ledger (G3), the evaluation harness cuts long passages the same way, and ``icarus evidence-verify`` gives its
judge the same sentence of each snippet. Pure functions.
"""

from __future__ import annotations

import re

from icarus.ledger import Span
from icarus.research.reported_claims import is_about_a_statement, reports_a_claim
from icarus.text.words import sentence_spans, stem

__all__ = ["EXCERPT_MAX_CHARS", "FIGURE_WEIGHT", "best_excerpt"]

_WORD = re.compile(r"[a-z0-9%]+")
_STOPWORDS = frozenset(
    "the a an of in on at to for and or is are was were be been by with as that this it its from than".split()
)
EXCERPT_MAX_CHARS = 600


# A shared figure ("12%", "2019", "41,200") says more about which sentence is the evidence than a shared word.
FIGURE_WEIGHT = 2


def _is_figure(word: str) -> bool:
    return any(c.isdigit() for c in word)


def _content_words(text: str) -> set[str]:
    """Words that carry content, stemmed (``declined`` and ``decline`` match); figures kept as written."""
    return {
        word if _is_figure(word) else stem(word)
        for word in _WORD.findall(text.lower())
        if word not in _STOPWORDS
    }


def best_excerpt(text: str, claim_text: str) -> Span:
    """The sentence sharing most content with the claim, a shared figure counting ``FIGURE_WEIGHT`` times a
    shared word (first on ties), as offsets into ``text``. Sentences are the judges' (``sentence_spans``), so
    a decimal point or a thousands separator does not end one and the judge reads the same sentence. How
    often it picks a gold evidence sentence is measured by ``icarus.evaluation.excerpts`` (docs/checking.md).

    A sentence that reports a claim instead of asserting it (``reported_claims.reports_a_claim``: "Posts
    claim that X", "Was X?") is taken only when no other sentence shares a word with the claim, unless the
    claim is itself about a statement (``reported_claims.is_about_a_statement``)."""
    wanted = _content_words(claim_text)
    skip_reports = not is_about_a_statement(claim_text)
    best = Span(start=0, end=min(len(text), EXCERPT_MAX_CHARS))
    best_key = (False, -1)
    for start, end in sentence_spans(text):
        shared = wanted & _content_words(text[start:end])
        score = sum(FIGURE_WEIGHT if _is_figure(word) else 1 for word in shared)
        if (True, score) <= best_key:
            continue  # cannot win even as an assertion: spare the report patterns (long pages)
        # an asserting sentence wins over a report only if it shares something with the claim: one that
        # shares nothing says nothing about it, and a judge reading it would be reading noise
        asserts = score > 0 and not (skip_reports and reports_a_claim(text[start:end]))
        key = (asserts, score)
        if key > best_key:
            best_key = key
            best = Span(start=start, end=min(end, start + EXCERPT_MAX_CHARS))
    return best
