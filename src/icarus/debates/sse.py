"""A debate's live feed as server-sent events.

Workers write a debate's events (a claim detected, a panel finished, the claim's one answer changed) to
the database, so any API process can stream any debate, whichever worker did the research. The stream
polls for events after the last id it sent; ``Last-Event-ID`` resumes a dropped connection where it
stopped. Each poll reads at most ``BATCH`` events, so a client resuming far behind is caught up in steady
pages instead of one unbounded read. A comment line every few seconds keeps proxies from closing an idle
stream.

The first read happens before the response starts, so an unknown or foreign debate is a 404 like any
other request. Once the stream is open, a poll that finds the database unreachable is skipped and the
stream keeps polling.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Final, Protocol

from fastapi import Request
from fastapi.responses import StreamingResponse
from sqlalchemy.exc import DBAPIError
from starlette.concurrency import run_in_threadpool

from icarus.store.engine import database_unavailable

__all__ = ["BATCH", "EventLike", "FetchEvents", "debate_event_stream", "format_debate_event", "resume_from"]

log = logging.getLogger("icarus.debates")

POLL_S: Final = 0.5
HEARTBEAT_S: Final = 15.0
BATCH: Final = 200
MAX_ID_DIGITS: Final = 18  # any 18-digit number fits a 64-bit integer column
RETRY_MS: Final = 2000


class EventLike(Protocol):
    """One stored debate event: its id orders the feed, ``kind`` names it, ``data`` is its JSON body."""

    @property
    def id(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def data(self) -> Mapping[str, Any]: ...


FetchEvents = Callable[[int, int], Sequence[EventLike]]
"""``fetch(after_id, limit)``: the next events, oldest first."""


def resume_from(header: str | None) -> int | None:
    """The id to resume after: ``Last-Event-ID`` when it is a plain decimal a 64-bit column holds, else
    None. ASCII digits only: ``"²".isdigit()`` is true."""
    value = (header or "").strip()
    if value.isascii() and value.isdigit() and len(value) <= MAX_ID_DIGITS:
        return int(value)
    return None


def format_debate_event(event: EventLike, debate_id: str) -> str:
    payload: dict[str, Any] = {"debate_id": debate_id, **event.data}
    at = getattr(event, "at", None)
    if isinstance(at, datetime) and "at" not in payload:
        payload["at"] = at.isoformat()
    body = json.dumps(payload, ensure_ascii=False, default=str)
    return f"id: {event.id}\nevent: {event.kind}\ndata: {body}\n\n"


async def debate_event_stream(
    request: Request,
    debate_id: str,
    fetch: FetchEvents,
    *,
    once: bool,
    poll_s: float = POLL_S,
    after: int | None = None,
) -> StreamingResponse:
    """The debate's events after ``Last-Event-ID``, else after ``after``, else from the start; ``once``
    sends what exists and closes. The header wins: it is what a reconnecting browser sends."""
    resumed = resume_from(request.headers.get("last-event-id"))
    start = resumed if resumed is not None else (after or 0)
    first = await run_in_threadpool(fetch, start, BATCH)  # raises (404) before the response starts
    return StreamingResponse(
        _stream(request, debate_id, fetch, start, list(first), once=once, poll_s=poll_s),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


async def _stream(
    request: Request,
    debate_id: str,
    fetch: FetchEvents,
    after: int,
    batch: list[EventLike],
    *,
    once: bool,
    poll_s: float,
) -> AsyncIterator[str]:
    yield f"retry: {RETRY_MS}\n\n"
    idle = 0.0
    while True:
        for event in batch:
            after = event.id
            yield format_debate_event(event, debate_id)
        if once and len(batch) < BATCH:
            return
        if batch:
            idle = 0.0
        else:
            idle += poll_s
            if idle >= HEARTBEAT_S:
                idle = 0.0
                yield ": keep-alive\n\n"
        if await request.is_disconnected():
            return
        if len(batch) < BATCH:  # caught up: wait before asking again
            await asyncio.sleep(poll_s)
        batch = list(await run_in_threadpool(_poll, fetch, after))


def _poll(fetch: FetchEvents, after: int) -> Sequence[EventLike]:
    try:
        return fetch(after, BATCH)
    except DBAPIError as exc:
        if not database_unavailable(exc):
            raise
        log.debug("debate stream: database unavailable (%s); polling again", type(exc.orig).__name__)
        return []
