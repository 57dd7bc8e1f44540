"""Stored EvidenceVerify stores and results (tables of revision ``0005_models_services``).

An evidence store is kept as revisions: the one submitted is revision 1, and each verification that
updates a twitter item's ``corroboration_status`` (step 3 of the method) writes the store back as the next
revision, naming the verification that wrote it. A result keeps the claim, the store revision, the stance
judge and the independent search's outcome it read, so recomputing it needs nothing from outside.
Nothing is updated or deleted.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from icarus.research.providers import SearchHit
from icarus.scoring.evidenceverify.models import (
    ClaimItem,
    CorroborationStatus,
    EvidenceStore,
    VerificationResult,
)
from icarus.scoring.evidenceverify.verify import SearchOutcome
from icarus.store import Store
from icarus.store.model_tables import EvidenceStoreRevision, EvidenceVerification

__all__ = [
    "StoredStore",
    "StoredVerification",
    "UnknownEvidenceRecord",
    "VerificationRecords",
    "search_from_json",
    "search_to_json",
    "written_back",
]


class UnknownEvidenceRecord(LookupError):
    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "not found"


@dataclass(frozen=True)
class StoredStore:
    store_id: str
    revision: int
    store: EvidenceStore
    written_by: str | None
    created_at: datetime


@dataclass(frozen=True)
class StoredVerification:
    verification_id: str
    store_id: str
    store_revision: int
    claim: ClaimItem
    independent_search: bool
    as_of: datetime
    judge: str
    search: SearchOutcome | None
    result: VerificationResult
    result_json: str
    created_at: datetime
    store_revision_written: int | None = None


def search_to_json(outcome: SearchOutcome | None) -> str | None:
    if outcome is None:
        return None
    hits = [hit.model_dump(mode="json") for hit in outcome.hits if isinstance(hit, SearchHit)]
    return json.dumps({"ran": outcome.ran, "detail": outcome.detail, "hits": hits}, sort_keys=True)


def search_from_json(text: str | None) -> SearchOutcome | None:
    if text is None:
        return None
    data: dict[str, Any] = json.loads(text)
    hits = tuple(SearchHit.model_validate(hit) for hit in data["hits"])
    return SearchOutcome(ran=bool(data["ran"]), hits=hits, detail=str(data["detail"]))


def written_back(store: EvidenceStore, result: VerificationResult) -> EvidenceStore | None:
    """The store with each twitter item's ``corroboration_status`` as the verification found it; None when
    nothing changes."""
    found = {row["evidence_id"]: row["corroboration_status"] for row in result.twitter}
    changed = False
    records = []
    for record in store.evidence:
        status = found.get(record.evidence_id)
        if status is not None and (
            record.corroboration_status is None or record.corroboration_status.value != status
        ):
            record = record.model_copy(update={"corroboration_status": CorroborationStatus(status)})
            changed = True
        records.append(record)
    return store.model_copy(update={"evidence": records}) if changed else None


class VerificationRecords:
    def __init__(self, store: Store, clock: Callable[[], datetime]) -> None:
        self._sessions = sessionmaker(store.engine, expire_on_commit=False)
        self._clock = clock

    def add_store(self, evidence: EvidenceStore) -> StoredStore:
        store_id = "evs-" + uuid.uuid4().hex[:20]
        with self._sessions.begin() as session:
            return self._add_revision(session, store_id, 1, evidence, None)

    def _add_revision(
        self, session: Session, store_id: str, revision: int, evidence: EvidenceStore, written_by: str | None
    ) -> StoredStore:
        row = EvidenceStoreRevision(
            store_id=store_id,
            revision=revision,
            store_json=evidence.model_dump_json(),
            written_by=written_by,
            created_at=self._clock(),
        )
        session.add(row)
        return StoredStore(store_id, revision, evidence, written_by, row.created_at)

    def store(self, store_id: str, revision: int | None = None) -> StoredStore:
        with self._sessions() as session:
            query = select(EvidenceStoreRevision).where(EvidenceStoreRevision.store_id == store_id)
            query = (
                query.where(EvidenceStoreRevision.revision == revision)
                if revision is not None
                else query.order_by(EvidenceStoreRevision.revision.desc()).limit(1)
            )
            row = session.scalars(query).first()
            if row is None:
                raise UnknownEvidenceRecord(
                    f"no evidence store {store_id!r}" + (f" revision {revision}" if revision else "")
                )
            return StoredStore(
                row.store_id,
                row.revision,
                EvidenceStore.model_validate_json(row.store_json),
                row.written_by,
                row.created_at,
            )

    def record(
        self,
        read: StoredStore,
        claim: ClaimItem,
        *,
        independent_search: bool,
        as_of: datetime,
        judge: str,
        search: SearchOutcome | None,
        result: VerificationResult,
    ) -> StoredVerification:
        """Store the result; write the updated corroboration statuses back as the store's next revision."""
        verification_id = "ev-" + uuid.uuid4().hex[:20]
        result_json = result.model_dump_json()
        written: int | None = None
        with self._sessions.begin() as session:
            session.add(
                EvidenceVerification(
                    id=verification_id,
                    store_id=read.store_id,
                    store_revision=read.revision,
                    claim_id=claim.claim_id[:256],
                    claim_json=claim.model_dump_json(),
                    search_json=search_to_json(search),
                    judge=judge,
                    independent_search=independent_search,
                    as_of=as_of,
                    model=result.model,
                    config_hash=result.config_hash,
                    status=result.status.value,
                    result_json=result_json,
                    created_at=self._clock(),
                )
            )
            updated = written_back(read.store, result)
            if updated is not None:
                latest = session.scalar(
                    select(func.max(EvidenceStoreRevision.revision)).where(
                        EvidenceStoreRevision.store_id == read.store_id
                    )
                )
                written = (latest or 0) + 1
                self._add_revision(session, read.store_id, written, updated, verification_id)
        return StoredVerification(
            verification_id,
            read.store_id,
            read.revision,
            claim,
            independent_search,
            as_of,
            judge,
            search,
            result,
            result_json,
            self._clock(),
            written,
        )

    def get(self, verification_id: str) -> StoredVerification:
        with self._sessions() as session:
            row = session.get(EvidenceVerification, verification_id)
            if row is None:
                raise UnknownEvidenceRecord(f"no EvidenceVerify result {verification_id!r}")
            written = session.scalar(
                select(EvidenceStoreRevision.revision).where(
                    EvidenceStoreRevision.written_by == verification_id
                )
            )
            return StoredVerification(
                row.id,
                row.store_id,
                row.store_revision,
                ClaimItem.model_validate_json(row.claim_json),
                row.independent_search,
                row.as_of,
                row.judge,
                search_from_json(row.search_json),
                VerificationResult.model_validate_json(row.result_json),
                row.result_json,
                row.created_at,
                written,
            )
