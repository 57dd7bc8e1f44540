"""A local fake of the X API v2 on 127.0.0.1: replays a recorded mentions timeline and accepts replies.

``GET /2/users/:id/mentions`` filters the recorded mentions by ``since_id`` and serves them newest first,
``page_size`` at a time with ``meta.next_token``, as X does; ``POST /2/tweets`` records the reply and
answers 201 with a new id (or the status queued in ``fail_next``). Every call must carry the bearer token.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

FIXTURES = Path(__file__).parent / "fixtures"
TOKEN = "test-user-token"
BOT_ID = "777000000000000001"


@dataclass
class FakeX:
    recorded: dict[str, Any] = field(
        default_factory=lambda: json.loads((FIXTURES / "mentions.json").read_text())
    )
    page_size: int = 3
    posts: list[dict[str, Any]] = field(default_factory=list)
    mention_requests: list[dict[str, str]] = field(default_factory=list)
    fail_next: list[int] = field(default_factory=list)
    raw_pages: list[bytes] = field(default_factory=list)
    raw_replies: list[bytes] = field(default_factory=list)  # sent as they are to the next POST /2/tweets
    """Bodies served (200, as JSON) in turn to mentions requests before the recorded timeline."""
    next_id: int = 1870000000000000000

    def __post_init__(self) -> None:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, status: int, body: dict[str, Any]) -> None:
                self._send_bytes(status, json.dumps(body).encode())

            def _send_bytes(self, status: int, data: bytes) -> None:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _authorised(self) -> bool:
                if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                    self._send(401, {"title": "Unauthorized", "status": 401, "detail": "Unauthorized"})
                    return False
                return True

            def do_GET(self) -> None:
                if not self._authorised():
                    return
                parts = urlsplit(self.path)
                if parts.path != f"/2/users/{BOT_ID}/mentions":
                    self._send(404, {"title": "Not Found Error"})
                    return
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                fake.mention_requests.append(query)
                if fake.raw_pages:
                    self._send_bytes(200, fake.raw_pages.pop(0))
                    return
                self._send(200, fake.mentions_page(query))

            def do_POST(self) -> None:
                if not self._authorised():
                    return
                if urlsplit(self.path).path != "/2/tweets":
                    self._send(404, {"title": "Not Found Error"})
                    return
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
                assert set(body) == {"text", "reply"} and set(body["reply"]) == {"in_reply_to_tweet_id"}
                if fake.raw_replies:
                    self._send_bytes(201, fake.raw_replies.pop(0))
                    return
                if fake.fail_next:
                    status = fake.fail_next.pop(0)
                    self._send(status, {"title": "Service Unavailable", "status": status})
                    return
                fake.next_id += 1
                post = {
                    "id": str(fake.next_id),
                    "text": body["text"],
                    "edit_history_tweet_ids": [str(fake.next_id)],
                }
                fake.posts.append({**post, "in_reply_to": body["reply"]["in_reply_to_tweet_id"]})
                self._send(201, {"data": post})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def start(self) -> FakeX:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def add_mention(self, mention: dict[str, Any]) -> None:
        self.recorded["data"].insert(0, mention)

    def mentions_page(self, query: dict[str, str]) -> dict[str, Any]:
        since = int(query.get("since_id", "0"))
        newer = sorted(
            (m for m in self.recorded["data"] if int(m["id"]) > since), key=lambda m: -int(m["id"])
        )
        start = int(query.get("pagination_token", "0") or 0)
        page = newer[start : start + self.page_size]
        if not page:
            return {"meta": {"result_count": 0}}
        meta: dict[str, Any] = {
            "result_count": len(page),
            "newest_id": page[0]["id"],
            "oldest_id": page[-1]["id"],
        }
        if start + self.page_size < len(newer):
            meta["next_token"] = str(start + self.page_size)
        referenced = {r["id"] for m in page for r in m.get("referenced_tweets", [])}
        return {
            "data": page,
            "includes": {
                "tweets": [t for t in self.recorded["includes"]["tweets"] if t["id"] in referenced],
                "users": self.recorded["includes"]["users"],
            },
            "errors": [e for e in self.recorded.get("errors", []) if e["resource_id"] in referenced],
            "meta": meta,
        }
