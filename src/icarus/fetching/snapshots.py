"""Content-addressed snapshots on disk, and archive copies standing in for pages that could not be fetched.

Layout under ``root``::

    objects/<2 hex>/<62 hex>             the body, named by its SHA-256, written once and never rewritten
    meta/<2 hex>/<62 hex>/<sha256>.json  one file per distinct metadata record for that body

A body fetched twice (two URLs, two times) is stored once; each fetch's metadata is its own immutable
record, itself named by the hash of its canonical JSON, so nothing is ever edited in place. Reads verify
the hash and raise ``CorruptSnapshot`` on mismatch. Writes go to a temporary file in the same directory
and are published with ``os.link``, which is atomic and fails rather than overwrite an existing object.

H24: when a page cannot be snapshotted, an ``ArchiveSource`` may supply an archived copy; it is stored
like any other body with ``archived=True`` and the ``archive_url`` it came from, so reports label it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from icarus.fetching.errors import (
    BlockedURL,
    BudgetExceeded,
    CorruptSnapshot,
    FetchError,
    InvalidSnapshotRef,
    SnapshotError,
    SnapshotNotFound,
)
from icarus.fetching.fetch import FetchBudget, FetchResult, SafeFetcher

__all__ = [
    "ArchiveSource",
    "ArchivedCopy",
    "Capture",
    "OfflineArchive",
    "SnapshotMeta",
    "SnapshotStore",
    "WaybackArchive",
    "capture_url",
    "parse_ref",
]

_REF = re.compile(r"sha256:([0-9a-f]{64})")
_TIMESTAMP = re.compile(r"[0-9]{4,14}")


def parse_ref(ref: str) -> str:
    """The 64-hex digest of a ``sha256:<hex>`` reference; anything else raises ``InvalidSnapshotRef``.

    Only lowercase hex is accepted, so a reference can never name a path outside the store.
    """
    match = _REF.fullmatch(ref) if isinstance(ref, str) else None
    if match is None:
        shown = ref[:80] if isinstance(ref, str) else type(ref).__name__
        raise InvalidSnapshotRef(f"not a snapshot reference (want 'sha256:' + 64 hex digits): {shown!r}")
    return match.group(1)


class SnapshotMeta(BaseModel):
    """What is known about one capture of a body. ``archived`` marks an archive copy (H24)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    url: str
    final_url: str
    content_type: str
    fetched_at: datetime
    archived: bool = False
    archive_url: str | None = None

    @field_validator("fetched_at")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        if value.tzinfo is None:
            raise ValueError("fetched_at must be timezone-aware")
        return value.astimezone(UTC)

    @model_validator(mode="after")
    def _archive_fields(self) -> SnapshotMeta:
        if self.archived and not self.archive_url:
            raise ValueError("an archived snapshot needs the archive_url it came from")
        if self.archive_url and not self.archived:
            raise ValueError("archive_url is only set on archived snapshots")
        return self

    def canonical_json(self) -> bytes:
        return json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":")).encode()


class SnapshotStore:
    """Immutable, content-addressed blobs with metadata sidecars, verified on every read."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def put(self, body: bytes, meta: SnapshotMeta | Mapping[str, Any]) -> str:
        """Store ``body`` (once) and this metadata record (once); return ``"sha256:<hex>"``."""
        record = self._meta(meta)
        digest = hashlib.sha256(body).hexdigest()
        self._write_once(self._object_path(digest), body)
        encoded = record.canonical_json()
        meta_dir = self._meta_dir(digest)
        self._write_once(meta_dir / f"{hashlib.sha256(encoded).hexdigest()}.json", encoded)
        return f"sha256:{digest}"

    def get(self, ref: str) -> bytes:
        """The body stored under ``ref``, after checking it still hashes to ``ref``."""
        digest = parse_ref(ref)
        path = self._object_path(digest)
        try:
            body = path.read_bytes()
        except FileNotFoundError:
            raise SnapshotNotFound(f"no snapshot {ref}") from None
        except OSError as exc:
            raise SnapshotError(f"cannot read snapshot {ref}: {exc}") from exc
        actual = hashlib.sha256(body).hexdigest()
        if actual != digest:
            raise CorruptSnapshot(f"snapshot {ref} is corrupt: its bytes hash to sha256:{actual}")
        return body

    def __contains__(self, ref: object) -> bool:
        if not isinstance(ref, str) or _REF.fullmatch(ref) is None:
            return False
        return self._object_path(parse_ref(ref)).is_file()

    def metadata(self, ref: str) -> list[SnapshotMeta]:
        """Every metadata record stored for ``ref``, oldest fetch first."""
        digest = parse_ref(ref)
        if not self._object_path(digest).is_file():
            raise SnapshotNotFound(f"no snapshot {ref}")
        records: list[SnapshotMeta] = []
        meta_dir = self._meta_dir(digest)
        for path in sorted(meta_dir.glob("*.json")) if meta_dir.is_dir() else []:
            raw = path.read_bytes()
            if hashlib.sha256(raw).hexdigest() != path.stem:
                raise CorruptSnapshot(f"metadata record {path.name} for {ref} is corrupt")
            try:
                records.append(SnapshotMeta.model_validate_json(raw))
            except ValidationError as exc:
                raise CorruptSnapshot(f"metadata record {path.name} for {ref} is unreadable") from exc
        return sorted(records, key=lambda m: (m.fetched_at, m.url))

    def _meta(self, meta: SnapshotMeta | Mapping[str, Any]) -> SnapshotMeta:
        if isinstance(meta, SnapshotMeta):
            return meta
        try:
            return SnapshotMeta.model_validate(dict(meta))
        except ValidationError as exc:
            raise SnapshotError(f"invalid snapshot metadata: {exc}") from exc

    def _object_path(self, digest: str) -> Path:
        return self.root / "objects" / digest[:2] / digest[2:]

    def _meta_dir(self, digest: str) -> Path:
        return self.root / "meta" / digest[:2] / digest[2:]

    @staticmethod
    def _write_once(path: Path, data: bytes) -> None:
        if path.exists():
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.chmod(tmp, 0o444)
                with contextlib.suppress(FileExistsError):  # a concurrent writer stored the same bytes
                    os.link(tmp, path)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
        except OSError as exc:
            raise SnapshotError(f"cannot write {path.name}: {exc}") from exc


@dataclass(frozen=True)
class ArchivedCopy:
    """An archive's copy of a page: where a person can see it, when it was captured, and its bytes."""

    archive_url: str
    original_url: str
    captured_at: datetime | None
    result: FetchResult


class ArchiveSource(Protocol):
    """Finds an archived copy of a URL, or returns None when the archive has none.

    Raises ``FetchError`` only when the archive itself could not be asked.
    """

    name: str

    def find(
        self, url: str, *, near: datetime | None = None, budget: FetchBudget | None = None
    ) -> ArchivedCopy | None: ...


@dataclass(frozen=True)
class OfflineArchive:
    """The embedded default: no archive is consulted, so there is never an archived copy."""

    name: str = "offline"

    def find(
        self, url: str, *, near: datetime | None = None, budget: FetchBudget | None = None
    ) -> ArchivedCopy | None:
        return None


class WaybackArchive:
    """A Wayback-Machine-style archive at ``base_url``.

    Asks ``<base>/wayback/available?url=…&timestamp=…`` for the closest capture, then fetches the raw
    capture from ``<base>/web/<timestamp>id_/<url>`` (the ``id_`` form returns the page as archived,
    without the archive's toolbar). Both requests go through the given ``SafeFetcher``. The archive URL
    recorded is the viewable ``<base>/web/<timestamp>/<url>``.
    """

    name = "wayback"

    def __init__(self, base_url: str, fetcher: SafeFetcher) -> None:
        self.base_url = base_url.rstrip("/")
        self.fetcher = fetcher

    def find(
        self, url: str, *, near: datetime | None = None, budget: FetchBudget | None = None
    ) -> ArchivedCopy | None:
        query = f"url={quote(url, safe='')}"
        if near is not None:
            query += f"&timestamp={near.astimezone(UTC):%Y%m%d%H%M%S}"
        lookup = self.fetcher.fetch(
            f"{self.base_url}/wayback/available?{query}", budget=budget, accept=["application/json"]
        )
        timestamp = _closest_timestamp(lookup.body)
        if timestamp is None:
            return None
        raw = self.fetcher.fetch(f"{self.base_url}/web/{timestamp}id_/{url}", budget=budget)
        return ArchivedCopy(
            archive_url=f"{self.base_url}/web/{timestamp}/{url}",
            original_url=url,
            captured_at=_parse_timestamp(timestamp),
            result=raw,
        )


def _closest_timestamp(body: bytes) -> str | None:
    try:
        data = json.loads(body)
        closest = data["archived_snapshots"]["closest"]
    except (ValueError, KeyError, TypeError, RecursionError):
        return None
    if not isinstance(closest, dict) or closest.get("available") is False:
        return None
    if str(closest.get("status", "200")) != "200":
        return None
    timestamp = closest.get("timestamp")
    # Only digits go into the capture URL we build: the archive's answer is not trusted to be well formed.
    if not isinstance(timestamp, str) or not _TIMESTAMP.fullmatch(timestamp):
        return None
    return timestamp


def _parse_timestamp(timestamp: str) -> datetime | None:
    padded = timestamp.ljust(14, "0")
    try:
        return datetime.strptime(padded, "%Y%m%d%H%M%S").replace(tzinfo=UTC)
    except ValueError:
        return None


@dataclass(frozen=True)
class Capture:
    """A stored snapshot of a URL: its reference, the metadata record written, and the fetch behind it."""

    ref: str
    meta: SnapshotMeta
    result: FetchResult
    live_error: FetchError | None = None
    """Why the live page could not be fetched, when an archive copy stands in for it."""


def capture_url(
    url: str,
    *,
    fetcher: SafeFetcher,
    store: SnapshotStore,
    archive: ArchiveSource | None = None,
    budget: FetchBudget | None = None,
) -> Capture:
    """Fetch ``url`` and store the snapshot; if the live fetch fails, store an archive copy instead (H24).

    The archive is not asked when the guard blocked the URL (an internal address has no public archive and
    should not be sent to one) or when the budget is spent; then, and when the archive has no copy, the
    live fetch's error is raised.
    """
    try:
        result = fetcher.fetch(url, budget=budget)
    except (BlockedURL, BudgetExceeded):
        raise
    except FetchError as live_error:
        source = archive if archive is not None else OfflineArchive()
        try:
            copy = source.find(url, budget=budget)
        except FetchError as archive_error:
            raise live_error from archive_error
        if copy is None:
            raise
        meta = SnapshotMeta(
            url=url,
            final_url=copy.result.final_url,
            content_type=copy.result.content_type,
            fetched_at=copy.result.fetched_at,
            archived=True,
            archive_url=copy.archive_url,
        )
        ref = store.put(copy.result.body, meta)
        return Capture(ref=ref, meta=meta, result=copy.result, live_error=live_error)
    meta = SnapshotMeta(
        url=url, final_url=result.final_url, content_type=result.content_type, fetched_at=result.fetched_at
    )
    return Capture(ref=store.put(result.body, meta), meta=meta, result=result)
