"""What the debate service refuses, each with the HTTP status the API answers it with.

The API maps every ``DebateError`` to ``error.http_status`` in one place, its message as the problem's
``detail`` and ``members()`` beside it; the CLI prints the message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

__all__ = [
    "ClaimNotFound",
    "DebateError",
    "DebateNotFound",
    "InvalidChange",
    "MethodNotInPlan",
    "NotAllowed",
    "PanelNotFound",
    "QuotaExceeded",
    "SpeakersWaiting",
    "SpendLimitReached",
    "UnknownSpeaker",
]


class DebateError(Exception):
    """Base of every refusal: its message is the API's ``detail``; ``members()`` what a client may act on
    besides (``icarus.http.problems.PROBLEM_MEMBERS`` names the members an answer may carry)."""

    http_status: ClassVar[int] = 400

    def members(self) -> dict[str, Any]:
        return {}


class DebateNotFound(DebateError, LookupError):
    """No such debate, or not one the caller's organisation may see (the two are not told apart)."""

    http_status = 404

    def __init__(self, debate_id: str) -> None:
        super().__init__(f"no debate {debate_id!r}")
        self.debate_id = debate_id


class ClaimNotFound(DebateError, LookupError):
    http_status = 404

    def __init__(self, claim_id: int, debate_id: str | None = None) -> None:
        where = f" in debate {debate_id!r}" if debate_id else ""
        super().__init__(f"no claim {claim_id}{where}")
        self.claim_id = claim_id


class PanelNotFound(DebateError, LookupError):
    """Not the id of a research panel this caller may act on (votes, corrections, winners)."""

    http_status = 404

    def __init__(self, panel_id: int) -> None:
        super().__init__(f"no research panel {panel_id}")
        self.panel_id = panel_id


class UnknownSpeaker(DebateError, ValueError):
    """A speaker map names a diarization label this debate has never heard."""

    http_status = 422

    def __init__(self, labels: Sequence[str]) -> None:
        super().__init__("unknown speaker label(s): " + ", ".join(sorted(labels)))
        self.labels = sorted(labels)


class InvalidChange(DebateError, ValueError):
    """A debate setting or model weight that is not allowed (unknown field, out of range, bad method)."""

    http_status = 422

    def __init__(self, message: str, errors: list[dict[str, Any]] | None = None) -> None:
        """``errors``: pydantic's ``{loc, msg, …}`` for each setting at fault, told in the message too."""
        self.errors = [_field_error(error) for error in errors or []]
        said = "; ".join(f"{e['field']}: {e['message']}" for e in self.errors)
        super().__init__(f"{message}: {said}" if said else message)

    def members(self) -> dict[str, Any]:
        return {"errors": self.errors} if self.errors else {}


def _field_error(error: dict[str, Any]) -> dict[str, str]:
    """A settings error as the API's ``{field, message}``, its field under ``body`` like a schema error's."""
    where = ".".join(str(part) for part in error.get("loc", ()))
    return {"field": f"body.{where}" if where else "body", "message": str(error.get("msg", ""))}


class SpeakersWaiting(DebateError):
    """Detection under the speaker gate waits for these diarization labels to be named."""

    http_status = 409

    def __init__(self, still_waiting: Sequence[str]) -> None:
        super().__init__("speakers still unidentified: " + ", ".join(still_waiting))
        self.still_waiting = list(still_waiting)

    def members(self) -> dict[str, Any]:
        return {"still_waiting": self.still_waiting}


class NotAllowed(DebateError, PermissionError):
    """The caller's role does not allow this action."""

    http_status = 403


class MethodNotInPlan(DebateError, PermissionError):
    http_status = 403

    def __init__(self, methods: Sequence[str]) -> None:
        super().__init__("research method(s) not in your plan: " + ", ".join(methods))
        self.methods = list(methods)


class QuotaExceeded(DebateError):
    """The organisation has researched as many claims this month as its plan allows."""

    http_status = 429

    def __init__(self, quota: int) -> None:
        super().__init__(f"claim quota of {quota} per month reached")
        self.quota = quota


class SpendLimitReached(DebateError):
    """The organisation's research spend this month has reached its plan's limit."""

    http_status = 429

    def __init__(self, limit: float, spent: float) -> None:
        super().__init__(f"research spend limit of {limit:g} per month reached ({spent:g} spent)")
        self.limit = limit
        self.spent = spent
