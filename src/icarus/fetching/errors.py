"""Typed failures for fetching, snapshots and extraction.

Every way a fetch can fail is one of these, with a message a person can act on, so that callers catch
``FetchError`` (or ``SnapshotError``, ``ExtractionError``) and never see a raw library traceback.
"""

from __future__ import annotations

__all__ = [
    "BadStatus",
    "BlockedURL",
    "BodyTooLarge",
    "BudgetExceeded",
    "ConnectFailed",
    "CorruptSnapshot",
    "DecodingFailed",
    "DecompressionBomb",
    "DocumentTooLarge",
    "ExtractionError",
    "FetchError",
    "FetchTimeout",
    "InvalidSnapshotRef",
    "ResolutionFailed",
    "SnapshotError",
    "SnapshotNotFound",
    "TooManyRedirects",
    "UnsupportedContentType",
    "UnsupportedEncoding",
    "UnsupportedForExtraction",
]


class FetchError(Exception):
    """A fetch did not produce a usable response. ``url`` is the address being fetched when it failed."""

    def __init__(self, message: str, *, url: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.url = url

    def __str__(self) -> str:
        return f"{self.message} ({self.url})" if self.url else self.message


class BlockedURL(FetchError):
    """The SSRF guard refused the address. ``reason`` says which rule refused it."""

    def __init__(self, reason: str, *, url: str | None = None) -> None:
        super().__init__(f"blocked: {reason}", url=url)
        self.reason = reason


class ResolutionFailed(FetchError):
    """The host name did not resolve."""


class ConnectFailed(FetchError):
    """No connection could be made (after retries), or the server broke the connection."""


class FetchTimeout(FetchError):
    """The server was too slow: a connect, read or whole-request timeout ran out."""


class BadStatus(FetchError):
    """The final response had a status other than 2xx (after retries for transient ones)."""

    def __init__(self, status: int, message: str, *, url: str | None = None) -> None:
        super().__init__(message, url=url)
        self.status = status


class TooManyRedirects(FetchError):
    """More redirects than the configured maximum."""


class BodyTooLarge(FetchError):
    """The body on the wire was larger than the byte cap; the transfer was aborted."""


class DecompressionBomb(FetchError):
    """The decoded body grew past the decompression cap; decoding was aborted."""


class DecodingFailed(FetchError):
    """The body's Content-Encoding could not be decoded (corrupt or truncated stream)."""


class UnsupportedEncoding(FetchError):
    """The server used a Content-Encoding this fetcher does not decode (it is never advertised)."""


class UnsupportedContentType(FetchError):
    """The response's media type is not on the allowlist (or is missing)."""


class BudgetExceeded(FetchError):
    """The per-check fetch budget (number of fetches or wall-clock seconds) is spent."""


class SnapshotError(Exception):
    """A snapshot could not be stored or read."""


class InvalidSnapshotRef(SnapshotError, ValueError):
    """A snapshot reference is not ``sha256:`` followed by 64 lowercase hex digits."""


class SnapshotNotFound(SnapshotError, KeyError):
    """No snapshot is stored under this reference."""

    def __str__(self) -> str:
        # KeyError would quote the message; keep it readable.
        return str(self.args[0]) if self.args else "snapshot not found"


class CorruptSnapshot(SnapshotError):
    """The stored bytes no longer hash to their reference: the object was altered on disk."""


class ExtractionError(Exception):
    """A document could not be turned into text."""


class DocumentTooLarge(ExtractionError):
    """The document is larger than the extractor will parse."""


class UnsupportedForExtraction(ExtractionError):
    """This media type has no text extractor here (images go to OCR elsewhere)."""
