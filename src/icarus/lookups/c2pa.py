"""H22 look-up: validate the content credentials (C2PA manifest) of an evidence item's media.

The item's snapshot is the media: an image, video, audio file or PDF kept in the content-addressed store.
Validation is local (c2pa-python wraps the reference c2pa-rs reader), so it needs no network and runs by
default. What each outcome means for scoring:

- no manifest → ``ok`` with state ``none``: neutral, and common, since platforms strip credentials;
- ``Valid`` or ``Trusted`` (signed by a configured trust anchor) → a provenance chain only, never the truth
  of a caption;
- ``Invalid`` (e.g. ``assertion.dataHash.mismatch`` after the pixels changed) → H22's multiplier on V;
- a snapshot that is not media (an HTML page) → ``not_run``: there is nothing to validate;
- unreadable media or a reader failure → ``error``, whose observations the rules ignore.

The adapter never raises.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from icarus.fetching import SnapshotError, SnapshotStore
from icarus.ledger import C2paState, EvidenceItem, LookupName, LookupResult, LookupStatus

# Media kinds that can carry content credentials; anything else (HTML, plain text) is not media.
MEDIA_PREFIXES = ("image/", "video/", "audio/")
MEDIA_TYPES = frozenset({"application/pdf"})

# Leading bytes of common media formats, for snapshots stored without a usable content type.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
    (b"II*\x00", "image/tiff"),
    (b"MM\x00*", "image/tiff"),
)

_STATES: Mapping[str, C2paState] = {
    "valid": C2paState.VALID,
    "trusted": C2paState.TRUSTED,
    "invalid": C2paState.INVALID,
}

_MAX_CODES_SHOWN = 5


def _provider() -> str:
    try:
        return f"c2pa-python@{version('c2pa-python')}"
    except PackageNotFoundError:  # pragma: no cover - the package is a declared dependency
        return "c2pa-python"


def sniff_media_type(body: bytes) -> str | None:
    """The media type the leading bytes announce, or None when they match no media format we read."""
    for magic, media_type in _MAGIC:
        if body.startswith(magic):
            return media_type
    if body[:4] == b"RIFF" and body[8:12] == b"WEBP":
        return "image/webp"
    if body[4:8] == b"ftyp":
        return "video/mp4"
    return None


def is_media(media_type: str | None) -> bool:
    if not media_type:
        return False
    bare = media_type.split(";")[0].strip().lower()
    return bare.startswith(MEDIA_PREFIXES) or bare in MEDIA_TYPES


def failure_codes(results: Any) -> list[str]:
    """The failure codes of the active manifest in c2pa's validation results (empty when none)."""
    if not isinstance(results, dict):
        return []
    active = results.get("activeManifest")
    failures = active.get("failure", []) if isinstance(active, dict) else []
    return [str(f["code"]) for f in failures if isinstance(f, dict) and "code" in f]


class C2paLookup:
    """Validates the C2PA manifest of an item's media snapshot.

    ``trust_anchors`` is a PEM bundle of certificate authorities whose signatures count as trusted; without
    it a well-formed, correctly signed manifest is ``valid`` but never ``trusted``.
    """

    name = LookupName.C2PA

    def __init__(self, snapshots: SnapshotStore, trust_anchors: str | None = None) -> None:
        self.snapshots = snapshots
        self.trust_anchors = trust_anchors
        self.provider = _provider()

    @classmethod
    def from_files(cls, snapshots: SnapshotStore, trust_anchors_pem: Path | None) -> C2paLookup:
        anchors = trust_anchors_pem.read_text(encoding="utf-8") if trust_anchors_pem else None
        return cls(snapshots, anchors)

    def _result(self, status: LookupStatus, detail: str, state: C2paState | None = None) -> LookupResult:
        return LookupResult(
            name=self.name, status=status, provider=self.provider, c2pa_state=state, detail=detail
        )

    def _media_type(self, ref: str, body: bytes) -> str | None:
        sniffed = sniff_media_type(body)
        if sniffed:
            return sniffed
        try:
            recorded = [meta.content_type for meta in self.snapshots.metadata(ref)]
        except SnapshotError:
            recorded = []
        return next((t.split(";")[0].strip().lower() for t in recorded if is_media(t)), None)

    def lookup(self, item: EvidenceItem) -> LookupResult:
        if item.snapshot is None:
            return self._result(LookupStatus.NOT_RUN, "no snapshot to validate")
        try:
            body = self.snapshots.get(item.snapshot.ref)
        except SnapshotError as exc:
            return self._result(LookupStatus.ERROR, f"snapshot unreadable: {exc}"[:300])
        media_type = self._media_type(item.snapshot.ref, body)
        if media_type is None:
            return self._result(
                LookupStatus.NOT_RUN, "the snapshot is not media; no content credentials apply"
            )
        try:
            return self._validate(body, media_type)
        except Exception as exc:  # the native reader's failures must never lose the check
            return self._result(LookupStatus.ERROR, f"{media_type}: {type(exc).__name__}: {exc}"[:300])

    def _validate(self, body: bytes, media_type: str) -> LookupResult:
        import c2pa  # a 50 MB native library: loaded only when there is media to read

        context = None
        if self.trust_anchors:
            settings = {"trust": {"trust_anchors": self.trust_anchors}, "verify": {"verify_trust": True}}
            context = c2pa.Context(c2pa.Settings.from_json(json.dumps(settings)))
        try:
            reader = c2pa.Reader(media_type, io.BytesIO(body), context=context)
        except c2pa.C2paError as exc:
            if "ManifestNotFound" in type(exc).__name__ or "ManifestNotFound" in str(exc):
                return self._result(LookupStatus.OK, f"{media_type}: no manifest", C2paState.NONE)
            raise
        with reader:
            raw_state = reader.get_validation_state()
            codes = failure_codes(reader.get_validation_results())
        state = _STATES.get(str(raw_state).lower())
        if state is None:
            return self._result(LookupStatus.ERROR, f"{media_type}: unknown validation state {raw_state!r}")
        detail = f"{media_type}: {raw_state}"
        if codes:
            shown = ", ".join(codes[:_MAX_CODES_SHOWN])
            detail += f" ({shown}{', …' if len(codes) > _MAX_CODES_SHOWN else ''})"
        return self._result(LookupStatus.OK, detail, state)
