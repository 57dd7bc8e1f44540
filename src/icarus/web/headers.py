"""Security headers on every answer: a Content-Security-Policy, nosniff, no framing, a referrer policy.

The pages inline their stylesheet and scripts (one request per page), so the page policy allows exactly
those blocks by their SHA-256 hashes (``inline_styles``, ``inline_scripts``) and nothing else: no inline
script or style that is not ours, no ``style`` attributes, no other origin. Pages talk only to their own
origin (the event stream, the debate pages' calls) and are never framed. Swagger UI (``/docs``) loads its
script and stylesheet from this origin and so gets its own policy (see ``icarus.api.openapi``).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from functools import cache
from typing import Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from icarus.web._env import inline_scripts, inline_styles

__all__ = ["FIXED_HEADERS", "SecurityHeaders", "csp_hash", "page_policy"]

# Sent with every answer, pages and API alike.
FIXED_HEADERS: Final = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",  # for browsers that predate CSP's frame-ancestors
    # Links out to sources carry no Referer: which report a reader came from is theirs to tell.
    "Referrer-Policy": "same-origin",
}


def csp_hash(text: str) -> str:
    """The CSP source expression that allows exactly the inline block ``text``."""
    digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
    return f"'sha256-{digest}'"


@cache
def page_policy() -> str:
    """The pages' Content-Security-Policy: their own inline blocks by hash, their own origin to talk to."""
    scripts = " ".join(sorted({csp_hash(text) for text in inline_scripts()}))
    styles = " ".join(sorted({csp_hash(text) for text in inline_styles()}))
    return "; ".join(
        (
            "default-src 'none'",
            f"script-src {scripts}",
            f"style-src {styles}",
            "img-src 'self'",
            "connect-src 'self'",
            "form-action 'self'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
        )
    )


class SecurityHeaders:
    """Add ``FIXED_HEADERS`` and a Content-Security-Policy to every HTTP answer that does not set its own:
    the policy of the longest matching prefix in ``policies``, else ``default``."""

    def __init__(self, app: ASGIApp, default: str, policies: Mapping[str, str] | None = None) -> None:
        self.app, self.default = app, default
        self.policies = sorted((policies or {}).items(), key=lambda item: -len(item[0]))

    def _policy(self, path: str) -> str:
        return next((policy for prefix, policy in self.policies if path.startswith(prefix)), self.default)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        added = {
            name.lower().encode("latin-1"): value.encode("latin-1")
            for name, value in (
                FIXED_HEADERS | {"Content-Security-Policy": self._policy(scope["path"])}
            ).items()
        }

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(name, value) for name, value in added.items() if name not in present]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, with_headers)
