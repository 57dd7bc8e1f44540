"""H23's look-up: earlier, dated copies of a subject's images among the images of fetched pages.

Each subject image is hashed (``image_index.perceptual_hash``); ``page_match`` compares the hashes with
each ``<img>`` of a fetched evidence page's snapshot, fetched through the check's ``SafeFetcher`` and its
budget (size caps, blocked addresses) and dated by the page's publication time. A copy within
``policy.media.phash_max_distance`` bits is an ``ImageMatch``: the closest copy, then the earliest
(``closer``). Images that cannot be had or read are noted and change nothing. Searching the local corpus's
image index and turning its pages into evidence is the pipeline's part (``icarus.pipeline.recycled_media``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol
from urllib.parse import urljoin, urlsplit

from icarus.fetching import (
    BudgetExceeded,
    FetchBudget,
    FetchError,
    SafeFetcher,
    SnapshotError,
    SnapshotStore,
    capture_url,
)
from icarus.ledger import CapturedImage, EvidenceItem, ImageMatch
from icarus.lookups.image_index import ImageError, hamming, image_sources, perceptual_hash
from icarus.scoring.icarus.config import PolicyConfig

__all__ = ["MediaLookupServices", "closer", "page_match", "subject_hashes"]


class MediaLookupServices(Protocol):
    """What the look-up uses of a check's services."""

    @property
    def snapshots(self) -> SnapshotStore: ...
    @property
    def policy(self) -> PolicyConfig: ...
    @property
    def fetcher(self) -> SafeFetcher | None: ...


def closer(held: ImageMatch | None, found: ImageMatch) -> ImageMatch:
    """The closer copy, then the earlier one."""
    if held is None:
        return found
    return min(held, found, key=lambda match: (match.hamming_distance, match.copy_first_seen_at))


def _image_bytes(
    image: CapturedImage, services: MediaLookupServices, budget: FetchBudget | None
) -> bytes | None:
    """The subject image as captured: from the snapshot store by its hash, else fetched (and snapshotted)."""
    if image.sha256:
        ref = f"sha256:{image.sha256}"
        if ref in services.snapshots:
            return services.snapshots.get(ref)
    if image.url is None or services.fetcher is None:
        return None
    captured = capture_url(image.url, fetcher=services.fetcher, store=services.snapshots, budget=budget)
    return captured.result.body


def subject_hashes(
    images: Sequence[CapturedImage],
    services: MediaLookupServices,
    budget: FetchBudget | None,
    notes: list[str],
) -> dict[str, int]:
    """Each readable subject image's perceptual hash, by image id; what cannot be had or read is noted."""
    hashes: dict[str, int] = {}
    for image in images:
        try:
            data = _image_bytes(image, services, budget)
            if data is None:
                notes.append(f"image {image.image_id}: not available for the recycled-image search")
                continue
            hashes[image.image_id] = perceptual_hash(data)
        except (FetchError, SnapshotError, ImageError) as exc:
            notes.append(f"image {image.image_id}: not hashed ({exc})")
    return hashes


def page_match(
    item: EvidenceItem,
    hashes: dict[str, int],
    services: MediaLookupServices,
    budget: FetchBudget | None,
    notes: list[str],
    limit: int,
) -> ImageMatch | None:
    """The closest copy of a subject image among the images of one fetched page, if within ``limit``."""
    fetcher = services.fetcher
    if fetcher is None or item.snapshot is None or item.published_at is None:
        return None  # an undated page cannot show that its images came first
    try:
        page = services.snapshots.get(item.snapshot.ref)
    except SnapshotError:
        return None
    best: ImageMatch | None = None
    for source in image_sources(page):
        url = urljoin(item.url, source)
        if urlsplit(url).scheme not in ("http", "https"):
            continue
        try:
            captured = capture_url(url, fetcher=fetcher, store=services.snapshots, budget=budget)
            phash = perceptual_hash(captured.result.body)
        except BudgetExceeded as exc:
            notes.append(f"{url}: not fetched for the recycled-image search ({exc})")
            return best
        except (FetchError, ImageError) as exc:
            notes.append(f"{url}: image not compared ({exc})")
            continue
        for image_id, subject_hash in hashes.items():
            distance = hamming(phash, subject_hash)
            if distance <= limit:
                found = ImageMatch(
                    image_id=image_id, hamming_distance=distance, copy_first_seen_at=item.published_at
                )
                best = closer(best, found)
    return best
