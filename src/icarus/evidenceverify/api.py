"""``/v1/evidence-verify``: verify a debate claim against an evidence store over HTTP, stored and replayable.

- ``POST /v1/evidence-verify`` (api): a claim item and an evidence store (stored as a new store), or the id
  of a stored store. The result is stored with everything it read; the updated ``corroboration_status`` of
  each cited twitter item is written back as the store's next revision.
- ``GET /v1/evidence-verify/{id}`` (reader): a stored result; ``…/replay`` recomputes it from what it read
  (the stored claim, store revision, stance judge and search outcome) and compares it byte for byte.
- ``GET /v1/evidence-verify/stores/{store_id}`` (reader): a store, its latest revision or ``?revision=n``.
"""

from datetime import UTC, datetime
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, HTTPException, Path, Query, status
from fastapi.responses import JSONResponse
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator

from icarus.evidenceverify.records import (
    StoredStore,
    StoredVerification,
    UnknownEvidenceRecord,
    VerificationRecords,
)
from icarus.evidenceverify.search import independent_search
from icarus.evidenceverify.service import default_stance_judge, evidence_verify
from icarus.http.auth import Principal, Security
from icarus.judges.protocol import Judge
from icarus.judges.registry import JudgeConfigError, create_judge
from icarus.request_schema import exactly_one_of
from icarus.research.registry import configured_providers
from icarus.scoring.evidenceverify.criticality import OfflineCriticalityJudge
from icarus.scoring.evidenceverify.models import (
    ClaimItem,
    EvidenceStore,
    VerificationResult,
    load_evidenceverify_config,
)
from icarus.scoring.evidenceverify.verify import SearchOutcome, search_needed
from icarus.settings import Settings
from icarus.store import Store
from icarus.store.tables import INTEGER_MAX

__all__ = ["EvidenceVerifyIn", "build_evidence_verify_router", "verification_view"]
STORE_ID: Final = r"^evs-[0-9a-f]{20}$"
VERIFICATION_ID: Final = r"^ev-[0-9a-f]{20}$"
VerificationId = Annotated[str, Path(pattern=VERIFICATION_ID, description="EvidenceVerify result id.")]


_STORES: Final = ("store", "store_id")  # where the evidence comes from: exactly one is given


class EvidenceVerifyIn(BaseModel):
    """A claim item and exactly one of ``store`` and ``store_id``; ``store_revision`` only with ``store_id``."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra=exactly_one_of(_STORES, needs={"store_revision": "store_id"})
    )
    claim: ClaimItem
    store: EvidenceStore | None = Field(default=None, description="An evidence store (evidence_store.json).")
    store_id: str | None = Field(default=None, pattern=STORE_ID, description="A stored evidence store.")
    store_revision: int | None = Field(
        default=None, ge=1, le=INTEGER_MAX, description="Its revision; default the latest."
    )
    independent_search: bool = Field(default=False, description="Run a fresh search from the claim text.")
    as_of: AwareDatetime | None = Field(
        default=None, description="UTC time the search speaks for; default now."
    )
    judge: str | None = Field(
        default=None,
        pattern=r"^[a-z][a-z0-9-]{0,40}@[0-9][0-9.]{0,15}$",
        description="Stance judge name@version; default the LLM judge when configured, else offline-lexical@1.",
    )

    @model_validator(mode="after")
    def _one_store(self) -> "EvidenceVerifyIn":
        given = [name for name in _STORES if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of store, store_id (got {', '.join(given) or 'none'})")
        if self.store_revision is not None and self.store_id is None:
            raise ValueError("store_revision needs store_id")
        return self


def verification_view(stored: StoredVerification) -> dict[str, Any]:
    return {
        "id": stored.verification_id,
        "store_id": stored.store_id,
        "store_revision": stored.store_revision,
        "store_revision_written": stored.store_revision_written,
        "judge": stored.judge,
        "independent_search": stored.independent_search,
        "as_of": stored.as_of.isoformat().replace("+00:00", "Z"),
        "created_at": stored.created_at.isoformat().replace("+00:00", "Z"),
        "claim": stored.claim.model_dump(mode="json"),
        "result": stored.result.model_dump(mode="json"),
        "links": {
            "self": f"/v1/evidence-verify/{stored.verification_id}",
            "replay": f"/v1/evidence-verify/{stored.verification_id}/replay",
            "store": f"/v1/evidence-verify/stores/{stored.store_id}",
            "page": f"/evidence-verify/{stored.verification_id}",
        },
    }


def _store_view(stored: StoredStore) -> dict[str, Any]:
    return {
        "store_id": stored.store_id,
        "revision": stored.revision,
        "written_by": stored.written_by,
        "created_at": stored.created_at.isoformat().replace("+00:00", "Z"),
        "store": stored.store.model_dump(mode="json"),
    }


def _unprocessable(message: str) -> HTTPException:
    return HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, detail=message)


def build_evidence_verify_router(
    store: Store, security: Security, settings: Settings, records: VerificationRecords
) -> APIRouter:
    router = APIRouter(prefix="/v1/evidence-verify", tags=["evidenceverify"])
    Reader = Annotated[Principal, Depends(security.reader)]
    Api = Annotated[Principal, Depends(security.api)]
    config = load_evidenceverify_config()

    def judge_named(name: str) -> Judge:
        try:
            return create_judge(name, settings)
        except (JudgeConfigError, KeyError) as exc:
            raise _unprocessable(f"judge: {exc}") from None

    def verify(
        claim: ClaimItem,
        evidence: EvidenceStore,
        judge_name: str,
        independent: bool,
        as_of: datetime,
        searched: SearchOutcome | None,
    ) -> VerificationResult:
        return evidence_verify(
            claim,
            evidence,
            config,
            stance_judge=judge_named(judge_name),
            criticality_judge=OfflineCriticalityJudge(),
            providers=[],
            independent=independent,
            as_of=as_of,
            searched=searched,
        )

    def stored_or_404(verification_id: str) -> StoredVerification:
        try:
            return records.get(verification_id)
        except UnknownEvidenceRecord as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc)) from None

    @router.post(
        "",
        status_code=status.HTTP_201_CREATED,
        responses={404: {"description": "Unknown store"}, 422: {"description": "Invalid input"}},
    )
    def submit(body: EvidenceVerifyIn, _caller: Api) -> JSONResponse:
        """Verify the claim against the store: status, notes, confidence; stored and replayable."""
        judge_name = body.judge or default_stance_judge(settings)
        judge_named(judge_name)  # an unknown judge is refused before anything is stored or searched
        if body.store_id is not None:
            try:
                read = records.store(body.store_id, body.store_revision)
            except UnknownEvidenceRecord as exc:
                raise HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc)) from None
        else:
            assert body.store is not None
            read = records.add_store(body.store)
        as_of = body.as_of or datetime.now(UTC)
        searched: SearchOutcome | None = None
        if search_needed(body.claim, read.store, body.independent_search):
            searched = independent_search(
                body.claim, read.store, configured_providers(settings), config, as_of
            )
        result = verify(body.claim, read.store, judge_name, body.independent_search, as_of, searched)
        stored = records.record(
            read,
            body.claim,
            independent_search=body.independent_search,
            as_of=as_of,
            judge=judge_name,
            search=searched,
            result=result,
        )
        return JSONResponse(
            verification_view(stored),
            status_code=status.HTTP_201_CREATED,
            headers={"Location": f"/v1/evidence-verify/{stored.verification_id}"},
        )

    @router.get("/stores/{store_id}", responses={404: {"description": "Unknown store or revision"}})
    def get_store(
        store_id: Annotated[str, Path(pattern=STORE_ID)],
        _caller: Reader,
        revision: Annotated[int | None, Query(ge=1, le=INTEGER_MAX)] = None,
    ) -> dict[str, Any]:
        """An evidence store as stored: its latest revision, or one revision."""
        try:
            return _store_view(records.store(store_id, revision))
        except UnknownEvidenceRecord as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc)) from None

    @router.get("/{verification_id}", responses={404: {"description": "Unknown result"}})
    def get_result(verification_id: VerificationId, _caller: Reader) -> dict[str, Any]:
        """A stored result with the claim, store revision, judge and search state it read."""
        return verification_view(stored_or_404(verification_id))

    @router.get("/{verification_id}/replay", responses={404: {"description": "Unknown result"}})
    def replay(verification_id: VerificationId, _caller: Reader) -> dict[str, Any]:
        """Recompute the result from what it read and compare it with the stored one byte for byte."""
        stored = stored_or_404(verification_id)
        evidence = records.store(stored.store_id, stored.store_revision).store
        again = verify(
            stored.claim, evidence, stored.judge, stored.independent_search, stored.as_of, stored.search
        )
        again_json = again.model_dump_json()
        return {
            "id": verification_id,
            "identical": again_json == stored.result_json,
            "result": again.model_dump(mode="json"),
        }

    return router
