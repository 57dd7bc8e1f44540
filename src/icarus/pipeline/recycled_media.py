"""H23 recycled media in a check: earlier, dated copies of the subject's images, recorded as ``ImageMatch``.

For a check with an image-context claim ("this image shows E") and attached images, the look-up
(``icarus.lookups.recycled_media``) hashes each subject image and compares it with the images on every
fetched evidence page. The local corpus's image index (built by ``icarus corpus add``) is searched here: a
matching corpus page joins the evidence, judged like any other, if research had not already found it.

The scorer alone decides what a match means: a copy first seen at least ``policy.media.min_age_hours``
before the claimed event refutes the claim (``scoring.icarus.assess``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol

from icarus.fetching import FetchBudget, SafeFetcher, SnapshotStore
from icarus.ledger import Claim, ClaimType, EvidenceItem, EvidenceRole, ImageMatch, Subject
from icarus.lookups.recycled_media import closer, page_match, subject_hashes
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
    hashes = subject_hashes(subject.images, services, budget, notes)
    if not hashes:
        return list(evidence)
    limit = services.policy.media.phash_max_distance
    items = {item.evidence_id: item for item in evidence}
    matches: dict[str, ImageMatch] = {}
    for item in evidence:
        match = page_match(item, hashes, services, budget, notes, limit)
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
                matches[evidence_id] = closer(matches.get(evidence_id), match)
    return sorted(
        (
            item.model_copy(update={"image_match": matches[item.evidence_id]})
            if item.evidence_id in matches
            else item
            for item in items.values()
        ),
        key=lambda item: item.evidence_id,
    )


def _corpora(providers: Sequence[SearchProvider]) -> list[LocalCorpus]:
    found = []
    for provider in providers:
        corpus = getattr(provider, "corpus", None)
        if isinstance(corpus, LocalCorpus):
            found.append(corpus)
    return found
