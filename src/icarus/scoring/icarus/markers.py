"""Text markers the deterministic rules look for in snapshot text. Each list belongs to one rule."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from icarus.text.markers import INSTRUCTION_INJECTION

# H11: anonymous sourcing.
ANONYMOUS_SOURCING = re.compile(
    r"\b(?:sources said|sources say|according to (?:two|three|several|multiple)? ?sources|"
    r"people familiar with|person familiar with|on condition of anonymity|"
    r"(?:an?|the) (?:\w+ )?official who was not authori[sz]ed|speaking anonymously|who declined to be named)\b",
    re.IGNORECASE,
)

# H17: preprint servers (by host) and wording.
PREPRINT_HOSTS: frozenset[str] = frozenset(
    {
        "arxiv.org",
        "biorxiv.org",
        "medrxiv.org",
        "ssrn.com",
        "researchsquare.com",
        "osf.io",
        "chemrxiv.org",
        "preprints.org",
    }
)
PREPRINT_WORDING = re.compile(
    r"\b(?:not (?:yet )?(?:been )?peer[- ]reviewed|preprint|has not been certified by peer review)\b",
    re.IGNORECASE,
)

# H18: a disclosed conflict of interest that names an interested party.
CONFLICT_OF_INTEREST = re.compile(
    r"\b(?:(?:funded|sponsored|paid for|commissioned) by (?:the )?[A-Z][\w&.-]+|"
    r"(?:competing|conflicting) interests?:?\s+(?!none\b|no\b|the authors declare no)\w+|"
    r"(?:is|are) (?:a )?(?:paid )?consultants? (?:to|for) [A-Z])",
)

# H25: news corrections and wire correction slugs.
CORRECTION_MARKER = re.compile(
    r"(?:\bCorrection:|\bClarification:|\bEditor'?s note:|\bupdated to correct\b|\bCORRECTED-|\bREFILE-|"
    r"\bCORRECTS\b|\bThis (?:article|story) has been corrected\b)",
)
CORRECTION_PENDING = re.compile(r"\bcorrection (?:pending|under review)\b", re.IGNORECASE)

# G6: live coverage markers in a title or the first lines.
LIVE_MARKER = re.compile(
    r"\b(?:live updates?|LIVE:|breaking(?: news)?:?|developing story|developing:)", re.IGNORECASE
)

# H24: pages that are really "not found" templates.
NOT_FOUND_TITLE = re.compile(
    r"\b(?:404|page not found|not found|page (?:does not|doesn't) exist)\b", re.IGNORECASE
)

# G2: what makes an OCR token load-bearing (with ``NEGATION_WORDS``, shared from ``icarus.text.markers``).
UNIT_WORDS: frozenset[str] = frozenset(
    {
        "%",
        "percent",
        "per",
        "cent",
        "million",
        "billion",
        "trillion",
        "thousand",
        "km",
        "kg",
        "mph",
        "kw",
        "mw",
        "gw",
        "usd",
        "eur",
        "$",
        "£",
        "€",
        "pp",
        "points",
    }
)
DIGIT = re.compile(r"\d")

# G7: wording that judges a person's honesty or intent, or cites AI-text detection.
HONESTY_OR_INTENT = re.compile(
    r"\b(?:is|are|was|were) (?:a )?(?:liar|liars|lying|dishonest)\b|\bdeliberately (?:misled|lied|deceived)\b|"
    r"\bintend(?:ed|s)? to (?:mislead|deceive)\b|\bin bad faith\b",
    re.IGNORECASE,
)
AI_DETECTOR = re.compile(
    r"\b(?:AI[- ]text detector|AI[- ]generated according to|GPTZero|ZeroGPT|Originality\.ai)\b", re.IGNORECASE
)


# --- detection, once per text ---------------------------------------------------------------------------
# Each pattern runs only when one of its cheap trigger words occurs in the lower-cased text: regex scans of
# long pages dominate scoring time otherwise.
_TRIGGERS: dict[str, tuple[str, ...]] = {
    "anonymous": ("source", "familiar", "anonym", "authori", "declined to be named"),
    "preprint": ("peer", "preprint"),
    "conflict": ("funded", "sponsored", "paid for", "commissioned", "interest", "consultant"),
    "correction": ("correct", "clarification", "editor", "refile"),
    "correction_pending": ("correction",),
    "injection": ("ignore", "disregard", "you are", "prompt", "as an ai", "respond", "answer", "reply", "<"),
}


@dataclass(frozen=True, slots=True)
class TextSignals:
    """What the rules' text markers found in one item's text and title."""

    anonymous_sourcing: bool
    preprint_wording: bool
    conflict_of_interest: bool
    correction_marker: bool
    correction_pending: bool
    instruction_injection: bool
    live_title: bool
    not_found_title: bool


def _found(pattern: re.Pattern[str], key: str, text: str, lowered: str) -> bool:
    return any(trigger in lowered for trigger in _TRIGGERS[key]) and pattern.search(text) is not None


@lru_cache(maxsize=8192)
def text_signals(text: str, title: str, excerpt: str) -> TextSignals:
    lowered = text.lower()
    lowered_excerpt = excerpt.lower()
    return TextSignals(
        anonymous_sourcing=_found(ANONYMOUS_SOURCING, "anonymous", text, lowered),
        preprint_wording=_found(PREPRINT_WORDING, "preprint", text, lowered),
        conflict_of_interest=_found(CONFLICT_OF_INTEREST, "conflict", text, lowered),
        correction_marker=_found(CORRECTION_MARKER, "correction", text, lowered)
        or CORRECTION_MARKER.search(title) is not None,
        correction_pending=_found(CORRECTION_PENDING, "correction_pending", text, lowered),
        instruction_injection=_found(INSTRUCTION_INJECTION, "injection", text, lowered)
        or _found(INSTRUCTION_INJECTION, "injection", excerpt, lowered_excerpt),
        live_title=LIVE_MARKER.search(title) is not None,
        not_found_title=NOT_FOUND_TITLE.search(title) is not None,
    )
