"""Telling a web address from text to check: http(s) in any letter case is an address; another scheme is
refused rather than checked as if its letters were a claim."""

from __future__ import annotations

import re
from typing import Final

__all__ = ["foreign_scheme", "web_address"]

WEB_SCHEMES: Final = ("http", "https")
# A whole input that is one token of the form scheme://...; text with spaces around a URL is text.
_ADDRESS: Final = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]{0,31})://\S*$")


def web_address(text: str) -> str | None:
    """``text`` as an http(s) address with its scheme in lower case (``HTTP://`` is ``http://``), or None."""
    found = _ADDRESS.match(text)
    if found is None or found.group(1).lower() not in WEB_SCHEMES:
        return None
    return found.group(1).lower() + text[found.end(1) :]


def foreign_scheme(text: str) -> str | None:
    """The scheme of an input that is a single address of a scheme other than http(s) (``gopher``), else
    None. Such an input is refused: it is an address that cannot be fetched, not a claim."""
    found = _ADDRESS.match(text.strip())
    if found is None or found.group(1).lower() in WEB_SCHEMES:
        return None
    return found.group(1).lower()
