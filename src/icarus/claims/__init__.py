"""Claim extraction: atomic claims sliced verbatim from a captured subject, with what checking them needs.

``extract_claims`` is pure and deterministic: the same subject and budget give the same claims, ids and
order. Every claim's ``text`` is exactly its source field sliced at its ``span`` (G0).
"""

from icarus.claims.cues import CHECKWORTHINESS_FEATURES, Checkworthiness, Feature, checkworthiness, normalize
from icarus.claims.extract import FIELD_PREFERENCE, RELEVANCE_THRESHOLD, ClaimSet, extract_claims
from icarus.claims.figures import extract_figures
from icarus.claims.segment import split_clauses, split_sentences, trim_span

__all__ = [
    "CHECKWORTHINESS_FEATURES",
    "FIELD_PREFERENCE",
    "RELEVANCE_THRESHOLD",
    "Checkworthiness",
    "ClaimSet",
    "Feature",
    "checkworthiness",
    "extract_claims",
    "extract_figures",
    "normalize",
    "split_clauses",
    "split_sentences",
    "trim_span",
]
