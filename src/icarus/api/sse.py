"""Server-sent events from the ``check_events`` table.

Workers write events to the database, so any API process can stream any check's progress, whichever
worker runs it. The stream polls for rows after the last id it sent; ``Last-Event-ID`` resumes a dropped
connection where it stopped. A comment line every few seconds keeps proxies from closing an idle stream.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Final

from fastapi import Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from icarus.store.service import EventInfo, ServiceStore

__all__ = ["EventStream", "format_event"]

POLL_S: Final = 0.5
HEARTBEAT_S: Final = 15.0


def format_event(event: EventInfo) -> str:
    payload = {"check_id": event.check_id, "at": event.at.isoformat(), **event.data}
    return f"id: {event.id}\nevent: {event.kind}\ndata: {json.dumps(payload, ensure_ascii=False)}\n\n"


class EventStream:
    def __init__(self, service: ServiceStore, poll_s: float = POLL_S) -> None:
        self.service, self.poll_s = service, poll_s

    def response(self, request: Request, check_id: str | None, *, once: bool) -> StreamingResponse:
        header = request.headers.get("last-event-id", "")
        after = int(header) if header.isdigit() else None
        return StreamingResponse(
            self._stream(request, check_id, after, once),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    async def _stream(
        self, request: Request, check_id: str | None, after: int | None, once: bool
    ) -> AsyncIterator[str]:
        if after is None:
            # A check's stream starts at its beginning; the all-checks feed starts now.
            after = 0 if check_id is not None or once else await run_in_threadpool(self.service.last_event_id)
        yield "retry: 2000\n\n"
        idle = 0.0
        while True:
            batch = await run_in_threadpool(self._fetch, check_id, after)
            for event in batch:
                after = event.id
                yield format_event(event)
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

    def _fetch(self, check_id: str | None, after: int) -> list[EventInfo]:
        if check_id is None:
            return self.service.all_events(after)
        return self.service.events(check_id, after)
