"""Every error answer in one shape: an RFC 9457 problem, served as ``application/problem+json``.

``{"type": "about:blank", "title": "Not Found", "status": 404, "detail": "no check 'x'"}``: ``type`` is
always ``about:blank`` (the status says what kind of problem it is), ``title`` the status's phrase and
``detail`` a sentence in words. Whatever else a client may act on sits beside ``detail`` as a member of
its own, never inside it: ``errors`` (each field at fault), ``line`` and ``reason`` (an unreadable
transcript), ``still_waiting`` (the speakers detection waits for). ``PROBLEM_MEMBERS`` names them all;
the OpenAPI description (``icarus.api.openapi``) documents each.
"""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus
from typing import Any, Final

from fastapi import HTTPException
from fastapi.responses import JSONResponse

__all__ = [
    "PROBLEM_MEDIA_TYPE",
    "PROBLEM_MEMBERS",
    "PROBLEM_TYPE",
    "ProblemException",
    "problem_body",
    "problem_response",
]

PROBLEM_MEDIA_TYPE: Final = "application/problem+json"
PROBLEM_TYPE: Final = "about:blank"
# The members a problem may carry besides RFC 9457's type, title, status and detail.
PROBLEM_MEMBERS: Final = frozenset({"errors", "line", "reason", "still_waiting"})


class ProblemException(HTTPException):
    """An HTTP error whose answer carries ``members`` beside its ``detail`` (see ``PROBLEM_MEMBERS``)."""

    def __init__(
        self,
        status_code: int,
        detail: str,
        *,
        headers: Mapping[str, str] | None = None,
        **members: Any,
    ) -> None:
        unknown = set(members) - PROBLEM_MEMBERS
        if unknown:  # an undocumented member would break the published shape
            raise ValueError(f"not a problem member: {', '.join(sorted(unknown))}")
        super().__init__(status_code, detail=detail, headers=dict(headers) if headers else None)
        self.members = {name: value for name, value in members.items() if value is not None}


def _title(status_code: int) -> str:
    try:
        return HTTPStatus(status_code).phrase
    except ValueError:
        return "Error"


def problem_body(status_code: int, detail: Any, members: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The problem's JSON. A ``detail`` that is not a string (a framework's own) is replaced by the title."""
    title = _title(status_code)
    text = detail if isinstance(detail, str) and detail else title
    return {"type": PROBLEM_TYPE, "title": title, "status": status_code, "detail": text, **(members or {})}


def problem_response(
    status_code: int,
    detail: Any,
    *,
    headers: Mapping[str, str] | None = None,
    members: Mapping[str, Any] | None = None,
) -> JSONResponse:
    return JSONResponse(
        problem_body(status_code, detail, members),
        status_code=status_code,
        headers=dict(headers) if headers else None,
        media_type=PROBLEM_MEDIA_TYPE,
    )
