"""Reading an outside service's answer (X API, RDAP, Crossref, web search): a capped body, then JSON that
cannot crash.

An answer is input like any other: it may be endless, nested deeper than Python's parser goes, hold an
integer longer than Python converts, or not be JSON or UTF-8 at all. Each of these is an
:class:`AnswerError` (a ``ValueError``) whose message says what is wrong in a few words and never quotes the
body; the adapter turns it into the failure its caller already handles.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from icarus.jsonlines import json_error_reason

if TYPE_CHECKING:
    import httpx

__all__ = ["MAX_ANSWER_BYTES", "AnswerError", "json_object_answer", "parse_json", "read_capped"]

MAX_ANSWER_BYTES: Final = 5 * 1024 * 1024
"""Largest answer read from an API (after decompression). The answers these adapters ask for are tens of
kilobytes; a page of 100 posts with their expansions is well under a megabyte."""


class AnswerError(ValueError):
    """The answer cannot be read: too large, or not JSON this process can parse."""


def read_capped(response: httpx.Response, limit: int = MAX_ANSWER_BYTES) -> bytes:
    """The decoded body of a *streamed* response, stopping as soon as it passes ``limit`` bytes.

    A response read without streaming is already whole in memory, however large: open it with
    ``client.stream(...)``. Raises ``httpx.HTTPError`` when the connection fails mid-body.
    """
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > limit:
            raise AnswerError(f"answer larger than {limit:,} bytes")
    return bytes(body)


def parse_json(body: bytes) -> Any:
    """``body`` as JSON; every way it can fail is an :class:`AnswerError`."""
    try:
        return json.loads(body)
    except RecursionError:
        raise AnswerError("malformed JSON (nested too deeply)") from None
    except ValueError as exc:  # JSONDecodeError, not UTF-8, or an integer literal too long to convert
        raise AnswerError(f"malformed JSON ({json_error_reason(exc)})") from None


def json_object_answer(
    client: httpx.Client, method: str, url: str, check: Callable[[httpx.Response], None], **kwargs: Any
) -> dict[str, Any]:
    """The JSON object one request answers, its body streamed and capped. ``check`` sees the response before
    the body is read (its status) and may raise. A failed connection is an ``httpx.HTTPError``; a body that
    is too large, not JSON or not an object is an :class:`AnswerError`."""
    # Streamed, so an endless answer is cut off at the cap instead of filling memory.
    with client.stream(method, url, **kwargs) as response:
        check(response)
        payload = parse_json(read_capped(response))
    if not isinstance(payload, dict):
        raise AnswerError("not a JSON object")
    return payload
