"""Which methods a path serves, for ``Allow`` on OPTIONS and 405 answers.

The router answers 405 from the first route whose path matched, so its ``Allow`` named that route's
methods only (``POST`` on ``/v1/checks``, which also serves GET). Here every route of the app is asked,
included routers (debates, LVF, EvidenceVerify, the pages) and all: a method is served when some route
matches the path fully with it.
"""

from __future__ import annotations

from typing import Final

from starlette.routing import BaseRoute, Match
from starlette.types import Scope

__all__ = ["CANDIDATE_METHODS", "allow_header", "served_methods"]

# Every method a route of this app may declare; OPTIONS is answered for any path that serves one.
CANDIDATE_METHODS: Final = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")
OPTIONS: Final = "OPTIONS"


def served_methods(routes: list[BaseRoute], scope: Scope) -> list[str]:
    """The methods some route serves at ``scope``'s path, in ``CANDIDATE_METHODS`` order."""
    served = []
    for method in CANDIDATE_METHODS:
        # A fresh scope per probe: matching writes route details into the scope it is given.
        probe: Scope = {
            "type": "http",
            "method": method,
            "path": scope.get("path", "/"),
            "root_path": scope.get("root_path", ""),
            "headers": [],
            "query_string": b"",
        }
        if any(route.matches(probe)[0] is Match.FULL for route in routes):
            served.append(method)
    return served


def allow_header(methods: list[str]) -> str:
    """``Allow``'s value: the methods served, and OPTIONS, which every served path answers."""
    return ", ".join([*methods, OPTIONS])
