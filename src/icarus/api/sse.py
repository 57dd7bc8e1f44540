"""Server-sent events from the ``check_events`` table.

Workers write events to the database, so any API process can stream any check's progress, whichever
worker runs it. The stream polls for rows after the last id it sent; ``Last-Event-ID`` resumes a dropped
connection where it stopped. A comment line every few seconds keeps proxies from closing an idle stream.

The first read happens before the response starts, so a database that is down when the stream is opened
is a 503 like any other request. Once the stream is open, a poll that finds the database unreachable (a
restart) is skipped and the stream keeps polling: events written after the restart arrive on the same
connection.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Final

from fastapi import Request
from fastapi.responses import StreamingResponse
from sqlalchemy.exc import DBAPIError
from starlette.concurrency import run_in_threadpool

from icarus.store.engine import database_unavailable
from icarus.store.service import EventInfo, ServiceStore

__all__ = ["EventStream", "format_event"]

log = logging.getLogger("icarus.api")

POLL_S: Final = 0.5
HEARTBEAT_S: Final = 15.0
MAX_ID_DIGITS: Final = 18  # any 18-digit number fits a 64-bit integer column


def format_event(event: EventInfo) -> str:
    payload = {"check_id": event.check_id, "at": event.at.isoformat(), **event.data}
    return f"id: {event.id}\nevent: {event.kind}\ndata: {json.dumps(payload, ensure_ascii=False)}\n\n"


class EventStream:
    def __init__(self, service: ServiceStore, poll_s: float = POLL_S) -> None:
        self.service, self.poll_s = service, poll_s

    async def response(self, request: Request, check_id: str | None, *, once: bool) -> StreamingResponse:
        header = request.headers.get("last-event-id", "").strip()
        after: int | None = None
        if header.isascii() and header.isdigit():  # ASCII digits only ("²".isdigit() is true)
            # A client resumes after an id it was sent, never one past the newest: an id beyond it (or
            # longer than an id column holds) resumes from now, instead of replaying the whole stream or
            # waiting for ids that do not exist yet.
            newest = await run_in_threadpool(self.service.last_event_id)
            after = min(int(header), newest) if len(header) <= MAX_ID_DIGITS else newest
        if after is None:
            # A check's stream starts at its beginning; the all-checks feed starts now.
            after = 0 if check_id is not None or once else await run_in_threadpool(self.service.last_event_id)
        first = await run_in_threadpool(self._fetch, check_id, after)
        return StreamingResponse(
            self._stream(request, check_id, after, first, once),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    async def _stream(
        self, request: Request, check_id: str | None, after: int, batch: list[EventInfo], once: bool
    ) -> AsyncIterator[str]:
        yield "retry: 2000\n\n"
        idle = 0.0
        while True:
            if batch:
                # One write per batch, not one per event: a client that left mid-batch costs one failed
                # send, not one "socket.send() raised exception." log line per remaining event.
                after = batch[-1].id
                yield "".join(format_event(event) for event in batch)
            if once:
                return
            if batch:
                idle = 0.0
            else:
                idle += self.poll_s
                if idle >= HEARTBEAT_S:
                    idle = 0.0
                    yield ": keep-alive\n\n"
            if await request.is_disconnected():
                return
            await asyncio.sleep(self.poll_s)
            batch = await run_in_threadpool(self._poll, check_id, after)

    def _poll(self, check_id: str | None, after: int) -> list[EventInfo]:
        """The next events, or none while the database is unreachable (the next poll tries again)."""
        try:
            return self._fetch(check_id, after)
        except DBAPIError as exc:
            if not database_unavailable(exc):
                raise
            log.debug("event stream: database unavailable (%s); polling again", type(exc.orig).__name__)
            return []

    def _fetch(self, check_id: str | None, after: int) -> list[EventInfo]:
        if check_id is None:
            return self.service.all_events(after)
        return self.service.events(check_id, after)
