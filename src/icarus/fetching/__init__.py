"""Evidence collection at the edge: safe fetching, content-addressed snapshots, and text extraction.

- ``SafeFetcher`` fetches public http(s) URLs behind an SSRF guard (every redirect and retry re-checked,
  connections pinned to the checked address), with byte and decompression caps, a content-type
  allowlist, timeouts, retries with backoff, a per-host rate limit and a per-check ``FetchBudget``.
- ``SnapshotStore`` keeps bodies immutable and content-addressed (``sha256:<hex>``), verified on read;
  ``capture_url`` stores a live snapshot or, failing that, a labelled archive copy (H24).
- ``extract_page`` turns HTML, PDF, text and JSON into text and metadata, keeping hidden text visible to
  H30 in ``hidden_text_fragments``.

Every failure is a typed error: ``FetchError``, ``SnapshotError`` or ``ExtractionError`` subclasses.
"""

from icarus.fetching.errors import (
    BadStatus,
    BlockedURL,
    BodyTooLarge,
    BudgetExceeded,
    ConnectFailed,
    CorruptSnapshot,
    DecodingFailed,
    DecompressionBomb,
    DocumentTooLarge,
    ExtractionError,
    FetchError,
    FetchTimeout,
    InvalidSnapshotRef,
    ResolutionFailed,
    SnapshotError,
    SnapshotNotFound,
    TooManyRedirects,
    UnsupportedContentType,
    UnsupportedEncoding,
    UnsupportedForExtraction,
)
from icarus.fetching.extract import ExtractedPage, ExtractLimits, extract_page
from icarus.fetching.fetch import (
    ALLOWED_CONTENT_TYPES,
    FetchBudget,
    FetchLimits,
    FetchResult,
    HostRateLimiter,
    SafeFetcher,
)
from icarus.fetching.guard import CheckedURL, GuardPolicy, URLGuard, address_block_reason, system_resolver
from icarus.fetching.snapshots import (
    ArchivedCopy,
    ArchiveSource,
    Capture,
    OfflineArchive,
    SnapshotMeta,
    SnapshotStore,
    WaybackArchive,
    capture_url,
    parse_ref,
)

__all__ = [
    "ALLOWED_CONTENT_TYPES",
    "ArchiveSource",
    "ArchivedCopy",
    "BadStatus",
    "BlockedURL",
    "BodyTooLarge",
    "BudgetExceeded",
    "Capture",
    "CheckedURL",
    "ConnectFailed",
    "CorruptSnapshot",
    "DecodingFailed",
    "DecompressionBomb",
    "DocumentTooLarge",
    "ExtractLimits",
    "ExtractedPage",
    "ExtractionError",
    "FetchBudget",
    "FetchError",
    "FetchLimits",
    "FetchResult",
    "FetchTimeout",
    "GuardPolicy",
    "HostRateLimiter",
    "InvalidSnapshotRef",
    "OfflineArchive",
    "ResolutionFailed",
    "SafeFetcher",
    "SnapshotError",
    "SnapshotMeta",
    "SnapshotNotFound",
    "SnapshotStore",
    "TooManyRedirects",
    "URLGuard",
    "UnsupportedContentType",
    "UnsupportedEncoding",
    "UnsupportedForExtraction",
    "WaybackArchive",
    "address_block_reason",
    "capture_url",
    "extract_page",
    "parse_ref",
    "system_resolver",
]
