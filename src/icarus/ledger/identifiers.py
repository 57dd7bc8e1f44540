"""Scholarly identifiers in one spelling: DOIs as Crossref keys them, ISSNs as NNNN-NNNC.

Pages, corpora and look-ups write them many ways (``https://doi.org/10.1/X``, ``doi:10.1/x``, ``ISSN 0028 0836``);
the H16 look-up and the H17 rule compare them, so every reader normalises here.
"""

from __future__ import annotations

import re

_DOI_PREFIXES = (
    "https://doi.org/",
    "http://doi.org/",
    "https://dx.doi.org/",
    "http://dx.doi.org/",
    "https://www.doi.org/",
    "http://www.doi.org/",
    "doi.org/",
    "info:doi/",
    "doi:",
)
_DOI = re.compile(r"^10\.\d+(?:\.\d+)*/\S+$")
_MAX_DOI_CHARS = 300  # Crossref's own limit is far below; anything longer is not a DOI
_ISSN = re.compile(r"^(\d{4})-?(\d{3}[\dX])$")


def normalize_doi(value: str | None) -> str | None:
    """``https://doi.org/10.1/X`` or ``doi:10.1/X`` -> ``10.1/x`` (DOIs are case-insensitive); None when it
    is not a DOI."""
    if not value:
        return None
    doi = value.strip().lower()
    if doi.startswith("doi "):
        doi = doi[4:].lstrip()
    for prefix in _DOI_PREFIXES:
        if doi.startswith(prefix):
            doi = doi[len(prefix) :].strip()
            break
    doi = doi.rstrip(".,;")
    return doi if len(doi) <= _MAX_DOI_CHARS and _DOI.match(doi) else None


def normalize_issn(value: str | None) -> str | None:
    """``issn 0028 0836`` or ``urn:issn:00280836`` -> ``0028-0836``; None unless the check digit holds."""
    if not value:
        return None
    text = value.strip().upper()
    for prefix in ("URN:ISSN:", "ISSN:", "ISSN", "E-ISSN", "EISSN", "P-ISSN"):
        if text.startswith(prefix):
            text = text[len(prefix) :].strip(" :")
            break
    text = text.replace(" ", "").replace("\u2010", "-").replace("\u2013", "-")
    match = _ISSN.match(text)
    if match is None:
        return None
    digits = match.group(1) + match.group(2)
    total = sum(int(d) * w for d, w in zip(digits[:7], range(8, 1, -1), strict=True))
    check = (11 - total % 11) % 11
    if digits[7] != ("X" if check == 10 else str(check)):
        return None
    return f"{digits[:4]}-{digits[4:]}"
