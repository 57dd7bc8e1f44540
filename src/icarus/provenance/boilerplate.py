"""Step 1 of H2: each item's text without boilerplate, lower-cased, one normalised line per line.

Short share/subscribe/cookie lines are dropped, and so are lines a domain repeats in three or more items when
they are only a minority of those items' text (a footer or a sidebar, not a story the domain ran three times).
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections import defaultdict
from collections.abc import Sequence

from icarus.ledger.evidence import EvidenceItem
from icarus.provenance.canonical import registered_domain

__all__ = ["clean_texts", "raw_text"]

# A line this short that asks the reader to share, subscribe or accept cookies is page furniture.
_FURNITURE = re.compile(
    r"\b(?:share (?:this|on|via)|subscribe|sign up|newsletter|cookies?|follow us|all rights reserved|"
    r"advertisement|read more|click here|recommended for you|related:)"
)
# Literal pieces, one of which every furniture match contains: most texts hold none and skip the scan.
_FURNITURE_NEEDLES = (
    "share ", "subscribe", "sign up", "newsletter", "cookie", "follow us", "all rights reserved",
    "advertisement", "read more", "click here", "recommended for you", "related:",
)  # fmt: skip
_FURNITURE_MAX_WORDS = 25
_BOILERPLATE_ITEMS = 3


def raw_text(item: EvidenceItem) -> str:
    if item.text:
        return item.text
    return item.excerpt.text if item.excerpt is not None else ""


def _normalised_lines(text: str) -> list[str]:
    lowered = text.lower()
    raw_lines = lowered.splitlines()
    furniture: set[int] = set()
    hits = []
    if any(needle in lowered for needle in _FURNITURE_NEEDLES):
        hits = [match.start() for match in _FURNITURE.finditer(lowered)]
    if hits:
        # One scan of the whole text; map each hit to its line by the lines' start offsets.
        starts = list(
            itertools.accumulate((len(line) for line in lowered.splitlines(keepends=True)), initial=0)
        )
        furniture = {bisect.bisect_right(starts, hit) - 1 for hit in hits}
    lines = []
    for number, raw in enumerate(raw_lines):
        words = raw.split()
        if words and not (number in furniture and len(words) <= _FURNITURE_MAX_WORDS):
            lines.append(" ".join(words))
    return lines


def _repeated_boilerplate(domains: Sequence[str], lines_of: Sequence[Sequence[str]]) -> dict[str, set[str]]:
    """Per domain, the lines that are page furniture rather than shared story text.

    A line in at least three items of a domain is a candidate. Candidates found in exactly the same items
    are judged together: if, together, they are most of those items' text, the items are copies of one
    story and the lines are kept; if they are a minority, they are a footer or sidebar and are dropped.
    """
    items_with: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    text_length: list[int] = []
    for index, (domain, lines) in enumerate(zip(domains, lines_of, strict=True)):
        distinct = set(lines)
        text_length.append(sum(map(len, distinct)))
        per_domain = items_with[domain]
        for line in distinct:
            per_domain[line].append(index)
    boilerplate: dict[str, set[str]] = defaultdict(set)
    for domain, per_domain in items_with.items():
        together: dict[tuple[int, ...], list[str]] = defaultdict(list)
        for line, holders in per_domain.items():
            if len(holders) >= _BOILERPLATE_ITEMS:
                together[tuple(holders)].append(line)
        for group, lines in together.items():
            shared = sum(map(len, lines))
            if shared * 2 * len(group) < sum(text_length[index] for index in group):
                boilerplate[domain].update(lines)
    return boilerplate


def clean_texts(evidence: Sequence[EvidenceItem]) -> list[str]:
    """Each item's text without boilerplate, lower-cased, one normalised line per line."""
    raw = [raw_text(item) for item in evidence]
    # Verbatim pickups are common: normalise each distinct text once.
    normalised = {text: _normalised_lines(text) for text in dict.fromkeys(raw)}
    lines_of = [normalised[text] for text in raw]
    domains = [registered_domain(item.domain) for item in evidence]
    repeated = _repeated_boilerplate(domains, lines_of)
    cleaned = []
    for domain, lines in zip(domains, lines_of, strict=True):
        dropped = repeated.get(domain)
        kept = [line for line in lines if line not in dropped] if dropped else lines
        cleaned.append("\n".join(kept))
    return cleaned
