"""The deletion sweep: ask X whether each checked post still exists, and hide the ones that do not.

Runs on a schedule (``ICARUS_DELETION_SWEEP_MINUTES``, hourly by default, so well within the 24 hours the
policy allows). A post found deleted or protected gets a removal record; from then on every version of
every check about it is served with the post's words and images hidden, while the verdict, the evidence
and the update log stay. Nothing is rewritten: versions are append-only, readers apply the removal.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Final, Protocol

import httpx

from icarus.ledger import SubjectKind
from icarus.remote import AnswerError, parse_json, read_capped
from icarus.settings import Settings
from icarus.store.service import ServiceStore

__all__ = [
    "DeletionSweep",
    "PostStatus",
    "PostStatusSource",
    "SweepReport",
    "XPostStatusSource",
    "x_status_source",
]

log = logging.getLogger("icarus.jobs")

X_API_BASE: Final = "https://api.x.com"
LOOKUP_BATCH: Final = 100  # the X API's limit on ids per lookup


class PostStatus(StrEnum):
    AVAILABLE = "available"
    DELETED = "deleted"
    PROTECTED = "protected"
    UNKNOWN = "unknown"  # X did not say (an outage, an unfamiliar error): nothing is hidden on a guess


class PostStatusSource(Protocol):
    def statuses(self, post_ids: Sequence[str]) -> dict[str, PostStatus]: ...


def _objects(value: object) -> list[Mapping[str, Any]]:
    """The objects in a list from X's answer; a field of another shape holds none."""
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def classify_lookup(payload: object, asked: Sequence[str]) -> dict[str, PostStatus]:
    """Statuses from an X API v2 ``GET /2/tweets?ids=...`` answer (with ``expansions=author_id``).

    An answer of another shape says nothing about any post: they stay unknown, so nothing is hidden.
    """
    found: dict[str, PostStatus] = dict.fromkeys(asked, PostStatus.UNKNOWN)
    if not isinstance(payload, Mapping):
        return found
    includes = payload.get("includes")
    users = {
        str(u.get("id")): bool(u.get("protected"))
        for u in _objects(includes.get("users") if isinstance(includes, Mapping) else None)
    }
    for post in _objects(payload.get("data")):
        if str(post.get("id")) in found:
            protected = users.get(str(post.get("author_id")), False)
            found[str(post["id"])] = PostStatus.PROTECTED if protected else PostStatus.AVAILABLE
    for problem in _objects(payload.get("errors")):
        post_id = str(problem.get("resource_id") or problem.get("value") or "")
        if post_id not in found:
            continue
        kind = f"{problem.get('type', '')} {problem.get('title', '')}".lower()
        if "not-found" in kind or "not found" in kind:
            found[post_id] = PostStatus.DELETED
        elif "not-authorized" in kind or "authorization" in kind:
            found[post_id] = PostStatus.PROTECTED
    return found


class XPostStatusSource:
    """Post statuses from the X API v2 (bearer token from settings, never logged)."""

    def __init__(self, bearer_token: str, base_url: str = X_API_BASE, *, timeout_s: float = 10.0) -> None:
        self._headers = {"Authorization": f"Bearer {bearer_token}"}
        self.base_url = base_url.rstrip("/")
        self._timeout = timeout_s

    def statuses(self, post_ids: Sequence[str]) -> dict[str, PostStatus]:
        params = {"ids": ",".join(post_ids), "expansions": "author_id", "user.fields": "protected"}
        unknown = dict.fromkeys(post_ids, PostStatus.UNKNOWN)
        try:
            # Streamed and capped: an unreadable answer is an outage for this batch, not the end of the sweep.
            with httpx.stream(
                "GET",
                f"{self.base_url}/2/tweets",
                params=params,
                headers=self._headers,
                timeout=self._timeout,
            ) as response:
                if response.status_code != 200:
                    log.warning("deletion sweep: X API answered %d", response.status_code)
                    return unknown
                payload = parse_json(read_capped(response))
        except httpx.HTTPError as exc:
            log.warning("deletion sweep: X API unreachable (%s)", type(exc).__name__)
            return unknown
        except AnswerError as exc:
            log.warning("deletion sweep: X API answer unreadable (%s)", exc)
            return unknown
        return classify_lookup(payload, post_ids)


def x_status_source(settings: Settings) -> PostStatusSource | None:
    """The X API source when a bearer token is configured; None (the sweep does nothing) otherwise."""
    if settings.x_bearer_token is None:
        return None
    base = getattr(settings, "x_api_url", None) or X_API_BASE
    return XPostStatusSource(
        settings.x_bearer_token.get_secret_value(), base, timeout_s=settings.fetch_timeout_s
    )


@dataclass
class SweepReport:
    looked_at: int = 0
    hidden: list[str] = field(default_factory=list)
    unknown: int = 0


class DeletionSweep:
    def __init__(
        self, service: ServiceStore, source: PostStatusSource | None, *, clock: Callable[[], datetime]
    ) -> None:
        self.service, self.source, self.clock = service, source, clock

    def run(self) -> SweepReport:
        report = SweepReport()
        if self.source is None:
            return report
        posts = self.service.visible_subjects(SubjectKind.X_POST.value)
        for start in range(0, len(posts), LOOKUP_BATCH):
            batch = posts[start : start + LOOKUP_BATCH]
            report.looked_at += len(batch)
            for post_id, status in self.source.statuses(batch).items():
                if status in (PostStatus.DELETED, PostStatus.PROTECTED):
                    self.hide(post_id, status)
                    report.hidden.append(post_id)
                elif status is PostStatus.UNKNOWN:
                    report.unknown += 1
        return report

    def hide(self, post_id: str, status: PostStatus) -> bool:
        now = self.clock()
        added = self.service.hide(SubjectKind.X_POST.value, post_id, status.value, now)
        if added:
            for request in self.service.requests_for_post(post_id):
                self.service.add_event(request.check_id, "removal", {"reason": status.value}, now)
        return added
