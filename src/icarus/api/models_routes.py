"""``/v1/models`` and a check scored under any model: the registry's models through the API.

- ``GET /v1/models``: every registered model with its family and config hash.
- ``GET /v1/checks/{id}/models``: a version's ledger under each model asked for (``?models=a,b``, else
  the models the check was submitted with), each result naming its model; stored the first time.
- ``POST /v1/checks/{id}/models``: add models to a stored check (api role).
- ``GET /v1/checks/{id}/compare?models=a,b``: what ``icarus compare --json`` prints for the version's ledger.
- ``GET /v1/checks/{id}/versions/{n}/models/{ref}/replay``: recompute one model's result and compare it
  with the stored one byte for byte.
"""

import json
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, HTTPException, Path, Query, status
from pydantic import BaseModel, ConfigDict, Field

from icarus.api.model_results import (
    MAX_MODELS,
    ModelOutcome,
    ModelResults,
    model_or_none,
    verdict_json,
    without_post_words,
)
from icarus.http.auth import Principal, Security
from icarus.jobs.runner import JobRunner
from icarus.ledger import SubjectKind
from icarus.ledger.document import parse_ledger
from icarus.scoring.compare import compare
from icarus.scoring.registry import ScoringModel, default_registry
from icarus.store import NotFound, StoredVersion
from icarus.store.tables import INTEGER_MAX

__all__ = ["ModelsIn", "build_models_router", "parse_models"]

MODEL_REF: Final = r"^[a-z][a-z0-9-]{0,40}@[0-9]+(\.[0-9]+){0,4}$"
CheckId = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{1,64}$", description="The check id.")]
VersionNo = Annotated[int, Path(ge=1, le=INTEGER_MAX, description="Version number, 1 for the first.")]
VersionQuery = Annotated[
    int | None, Query(ge=1, le=INTEGER_MAX, description="Version number; default the latest.")
]
_NOT_FOUND: Final[dict[int | str, dict[str, Any]]] = {404: {"description": "Unknown check or version"}}


class ModelOut(BaseModel):
    ref: str
    family: str
    config_hash: str
    links: dict[str, str]


class ModelsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    models: list[Annotated[str, Field(max_length=64)]] = Field(
        min_length=1, max_length=MAX_MODELS, description="Registered models, name@version."
    )


class ModelResultOut(BaseModel):
    model: str
    family: str
    config_hash: str
    trace_hash: str
    verdicts: list[dict[str, Any]]
    result: dict[str, Any]


class CheckModelsOut(BaseModel):
    id: str
    version: int | None
    models: list[str]
    results: list[ModelResultOut]


class ReplayOut(BaseModel):
    id: str
    version: int
    model: str
    identical: bool
    stored_trace_hash: str | None
    trace_hash: str
    first_stored_now: bool


def _unprocessable(field: str, message: str) -> HTTPException:
    return HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, detail=f"{field}: {message}")


def parse_models(refs: list[str], field: str) -> list[ScoringModel]:
    """Each ref as a registered model; an empty, repeated or unknown ref is a 422 naming ``field``."""
    if not refs:
        raise _unprocessable(field, "name at least one model")
    if len(refs) > MAX_MODELS:
        raise _unprocessable(field, f"at most {MAX_MODELS} models")
    if len(set(refs)) != len(refs):
        raise _unprocessable(field, "a model is named twice")
    models = []
    for ref in refs:
        model = model_or_none(ref)
        if model is None:
            known = ", ".join(default_registry().refs())
            raise _unprocessable(field, f"unknown model {ref[:64]!r}; known: {known}")
        models.append(model)
    return models


def _split(value: str | None) -> list[str]:
    return [part.strip() for part in (value or "").split(",") if part.strip()]


def _result_out(outcome: ModelOutcome) -> ModelResultOut:
    model, result = outcome.model, outcome.result
    return ModelResultOut(
        model=model.ref,
        family=model.family,
        config_hash=model.config_hash,
        trace_hash=str(result.get("trace_hash", "")),
        verdicts=[verdict_json(v) for v in model.verdicts(result)],
        result=result,
    )


def build_models_router(runner: JobRunner, security: Security) -> APIRouter:
    router = APIRouter(prefix="/v1", tags=["models"])
    store, service = runner.store, runner.service
    results = ModelResults(store, runner.clock)
    Reader = Annotated[Principal, Depends(security.reader)]
    Api = Annotated[Principal, Depends(security.api)]
    ModelsQuery = Annotated[
        str | None, Query(max_length=1100, description="Models, comma-separated: name@version,…")
    ]

    def version_or_404(check_id: str, version: int | None) -> StoredVersion | None:
        """The version (latest when None); None for a known check with no version yet; 404 if unknown."""
        try:
            return store.latest(check_id) if version is None else store.version(check_id, version)
        except NotFound as exc:
            if version is None:
                try:
                    service.status(check_id)  # a submitted check still queued is known
                except NotFound:
                    raise HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc)) from None
                return None
            raise HTTPException(status.HTTP_404_NOT_FOUND, detail=str(exc)) from None

    def hidden_reason(ledger: dict[str, Any]) -> str | None:
        """Why the post's words are withheld (deleted or protected), or None."""
        subject = ledger.get("subject") or {}
        if subject.get("kind") != SubjectKind.X_POST.value:
            return None
        removal = service.removal(str(subject.get("kind")), str(subject.get("subject_id", "")))
        return None if removal is None else removal.reason

    def served(ledger: dict[str, Any], value: Any) -> Any:
        reason = hidden_reason(ledger)
        return value if reason is None else without_post_words(value, ledger, reason)

    def scored(check_id: str, stored: StoredVersion | None, models: list[ScoringModel]) -> CheckModelsOut:
        outcomes = (
            []
            if stored is None
            else [results.score(check_id, stored.version, stored.ledger(), m) for m in models]
        )
        shown = [_result_out(o) for o in outcomes]
        if stored is not None:
            ledger = stored.ledger()
            shown = [ModelResultOut.model_validate(served(ledger, r.model_dump())) for r in shown]
        return CheckModelsOut(
            id=check_id,
            version=None if stored is None else stored.version,
            models=[m.ref for m in models],
            results=shown,
        )

    @router.get("/models", response_model=list[ModelOut])
    def list_models(_caller: Reader) -> list[ModelOut]:
        """Every registered scoring model: ledger models, Icarus policies, LVF and EvidenceVerify."""
        registry = default_registry()
        return [
            ModelOut(
                ref=entry.ref,
                family=entry.family,
                config_hash=registry.get(entry.ref).config_hash,
                links={"policy": f"/v1/policies/{entry.ref}", "methodology": f"/methodology/{entry.ref}"},
            )
            for entry in registry.entries()
        ]

    @router.get("/checks/{check_id}/models", response_model=CheckModelsOut, responses=_NOT_FOUND)
    def check_models(
        check_id: CheckId, _caller: Reader, models: ModelsQuery = None, version: VersionQuery = None
    ) -> CheckModelsOut:
        """The version's ledger scored under each model (``models``, else those the check was submitted
        with). Each result names its model; `version` is null while the check has no version yet."""
        stored = version_or_404(check_id, version)
        refs = _split(models) if models is not None else results.requested(check_id)
        chosen = (
            parse_models(refs, "models") if models is not None else [m for m in map(model_or_none, refs) if m]
        )
        return scored(check_id, stored, chosen)

    @router.post("/checks/{check_id}/models", response_model=CheckModelsOut, responses=_NOT_FOUND)
    def add_check_models(check_id: CheckId, body: ModelsIn, _caller: Api) -> CheckModelsOut:
        """Score a stored check under more models too; later versions are scored under them as well."""
        stored = version_or_404(check_id, None)
        chosen = parse_models(body.models, "body.models")
        refs = results.request(check_id, [m.ref for m in chosen])
        return scored(check_id, stored, [m for m in map(model_or_none, refs) if m])

    @router.get("/checks/{check_id}/compare", responses=_NOT_FOUND)
    def compare_models(
        check_id: CheckId,
        _caller: Reader,
        models: Annotated[str, Query(max_length=200, description="Two models: A,B.")],
        version: VersionQuery = None,
    ) -> dict[str, Any]:
        """Both results and where and why they differ, as ``icarus compare --json`` prints them."""
        refs = _split(models)
        if len(refs) != 2:
            raise _unprocessable("models", f"give two models separated by a comma (got {len(refs)})")
        model_a, model_b = parse_models(refs, "models")
        stored = version_or_404(check_id, version)
        if stored is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"check {check_id!r} has no version yet")
        ledger = stored.ledger()
        comparison = compare(parse_ledger(ledger, "stored ledger"), model_a, model_b)
        return {"id": check_id, "version": stored.version, **served(ledger, comparison)}

    @router.get(
        "/checks/{check_id}/versions/{version}/models/{ref}",
        responses={404: {"description": "Unknown check, version or model"}},
    )
    def model_result(
        check_id: CheckId, version: VersionNo, ref: Annotated[str, Path(max_length=64)], _caller: Reader
    ) -> dict[str, Any]:
        """The version's result under one model, trace included, as first stored (scored and stored now
        if it never was): the record `python -m reference score` recomputes."""
        model = model_or_none(ref)
        if model is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"unknown model {ref!r}")
        stored = version_or_404(check_id, version)
        assert stored is not None  # a numbered version either exists or was a 404
        ledger = stored.ledger()
        outcome = results.score(check_id, version, ledger, model)
        record: dict[str, Any] = json.loads(outcome.stored_json or outcome.result_json)
        return dict(served(ledger, record))

    @router.get(
        "/checks/{check_id}/versions/{version}/models/{ref}/replay",
        response_model=ReplayOut,
        responses={404: {"description": "Unknown check, version or model"}},
    )
    def replay_model(
        check_id: CheckId, version: VersionNo, ref: Annotated[str, Path(max_length=64)], _caller: Reader
    ) -> ReplayOut:
        """Recompute the version's result under one model and compare it with the one stored first."""
        model = model_or_none(ref)
        if model is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"unknown model {ref!r}")
        stored = version_or_404(check_id, version)
        assert stored is not None  # a numbered version either exists or was a 404
        before = results.stored_json(check_id, version, model.ref)
        outcome = results.score(check_id, version, stored.ledger(), model)
        first = before is None
        reference = outcome.result_json if first else before
        return ReplayOut(
            id=check_id,
            version=version,
            model=model.ref,
            identical=reference == outcome.result_json,
            stored_trace_hash=None if first else _trace_hash(before),
            trace_hash=str(outcome.result.get("trace_hash", "")),
            first_stored_now=first,
        )

    return router


def _trace_hash(result_json: str | None) -> str | None:
    if result_json is None:
        return None
    value = json.loads(result_json).get("trace_hash")
    return None if value is None else str(value)
