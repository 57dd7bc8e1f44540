"""H23 recycled media: earlier, dated copies of the subject's images, recorded as ``ImageMatch`` on evidence.

For a check with an image-context claim ("this image shows E") and attached images, each subject image is
hashed (``image_index.perceptual_hash``) and compared with

* the images on every fetched evidence page: each ``<img>`` of the page's snapshot, fetched through the
  check's ``SafeFetcher`` and its budget (size caps, blocked addresses) and dated by the page's publication
  time; and
* the local corpus's image index (built by ``icarus corpus add``): a matching corpus page joins the
  evidence, judged like any other, if research had not already found it.

An item whose copy is within ``policy.media.phash_max_distance`` bits gets an ``ImageMatch`` (its closest
copy, then the earliest). The scorer alone decides what it means: a copy first seen at least
``policy.media.min_age_hours`` before the claimed event refutes the claim (``scoring.icarus.assess``).
Images that cannot be had or read are noted and change nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
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
from icarus.ledger import CapturedImage, Claim, ClaimType, EvidenceItem, EvidenceRole, ImageMatch, Subject
from icarus.lookups.image_index import ImageError, hamming, image_sources, perceptual_hash
from icarus.pipeline.evidence import RetrievedDocument, build_evidence_item, evidence_id_for
from icarus.reputation import Registry
from icarus.research.corpus import LocalCorpus
from icarus.research.providers import SearchProvider
from icarus.scoring.icarus.config import PolicyConfig

__all__ = ["RecycledMediaServices", "with_recycled_images"]

JudgeItem = Callable[[EvidenceItem, Sequence[Claim]], EvidenceItem]


class RecycledMediaServices(Protocol):
    """What the search for earlier copies uses of a check's services."""

    @property
    def providers(self) -> Sequence[SearchProvider]: ...
    @property
    def registry(self) -> Registry: ...
    @property
    def snapshots(self) -> SnapshotStore: ...
    @property
    def policy(self) -> PolicyConfig: ...
    @property
    def fetcher(self) -> SafeFetcher | None: ...


def with_recycled_images(
    subject: Subject,
    claims: Sequence[Claim],
    evidence: Sequence[EvidenceItem],
    services: RecycledMediaServices,
    judge_item: JudgeItem,
    now: datetime,
    budget: FetchBudget | None,
    notes: list[str],
) -> list[EvidenceItem]:
    """``evidence`` with an ``ImageMatch`` on every item showing an earlier copy of a subject image, plus the
    local corpus's pages that show one (judged with ``judge_item`` against the image-context claims).

    Nothing is looked at, and ``evidence`` comes back as it was, when no claim is about an image's context
    or the subject has no image.
    """
    image_claims = [claim for claim in claims if claim.claim_type is ClaimType.IMAGE_CONTEXT]
    if not image_claims or not subject.images:
        return list(evidence)
    hashes = _subject_hashes(subject.images, services, budget, notes)
    if not hashes:
        return list(evidence)
    limit = services.policy.media.phash_max_distance
    items = {item.evidence_id: item for item in evidence}
    matches: dict[str, ImageMatch] = {}
    for item in evidence:
        match = _page_match(item, hashes, services, budget, notes, limit)
        if match is not None:
            matches[item.evidence_id] = match
    for corpus in _corpora(services.providers):
        for image_id, phash in hashes.items():
            for copy in corpus.image_copies(phash, limit):
                document = corpus.get(copy.doc_id)
                if document is None:
                    continue
                evidence_id = evidence_id_for(document.url)
                if evidence_id not in items:
                    retrieved = RetrievedDocument(
                        url=document.url,
                        title=document.title,
                        text=document.text,
                        publisher=document.publisher,
                        published_at=document.published_at,
                        scholarly=document.scholarly,
                    )
                    ref = services.snapshots.put(
                        document.text.encode("utf-8"),
                        {
                            "url": document.url,
                            "final_url": document.url,
                            "content_type": "text/plain; charset=utf-8",
                            "fetched_at": now,
                        },
                    )
                    built = build_evidence_item(
                        retrieved, image_claims[0].text, services.registry, ref, now, EvidenceRole.RESEARCH
                    )
                    items[evidence_id] = judge_item(built, image_claims)
                match = ImageMatch(
                    image_id=image_id, hamming_distance=copy.distance, copy_first_seen_at=copy.first_seen_at
                )
                matches[evidence_id] = _better(matches.get(evidence_id), match)
    return sorted(
        (
            item.model_copy(update={"image_match": matches[item.evidence_id]})
            if item.evidence_id in matches
            else item
            for item in items.values()
        ),
        key=lambda item: item.evidence_id,
    )


def _better(held: ImageMatch | None, found: ImageMatch) -> ImageMatch:
    """The closer copy, then the earlier one."""
    if held is None:
        return found
    return min(held, found, key=lambda match: (match.hamming_distance, match.copy_first_seen_at))


def _corpora(providers: Sequence[SearchProvider]) -> list[LocalCorpus]:
    found = []
    for provider in providers:
        corpus = getattr(provider, "corpus", None)
        if isinstance(corpus, LocalCorpus):
            found.append(corpus)
    return found


def _image_bytes(
    image: CapturedImage, services: RecycledMediaServices, budget: FetchBudget | None
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


def _subject_hashes(
    images: Sequence[CapturedImage],
    services: RecycledMediaServices,
    budget: FetchBudget | None,
    notes: list[str],
) -> dict[str, int]:
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


def _page_match(
    item: EvidenceItem,
    hashes: dict[str, int],
    services: RecycledMediaServices,
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
                best = _better(best, found)
    return best
