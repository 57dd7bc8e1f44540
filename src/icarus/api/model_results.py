"""A check's ledger scored under other models: which models were asked for, and their stored results.

Every model is a pure function of the ledger, so a result can always be recomputed; the first result of
each (check, version, model) is stored as canonical JSON so that a later recomputation ("replay under
this model") can be compared with what was served, byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Final

from pydantic import ConfigDict, Field, field_validator
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import sessionmaker

from icarus.jobs.inputs import CheckInput, InputKind
from icarus.ledger.document import parse_ledger
from icarus.reports.redaction import hidden_text
from icarus.request_schema import SPACE_CLASS, exactly_one_of, schema_rules
from icarus.scoring.canonical import canonical_json
from icarus.scoring.icarus.config import POLICY_FILES
from icarus.scoring.registry import (
    ScoringModel,
    UnknownModelError,
    Verdict,
    default_registry,
    get_model,
    parse_ref,
)
from icarus.store import Store
from icarus.store.model_tables import CheckModel, ModelResult
from icarus.web.model import OtherModelResult

__all__ = [
    "MAX_MODELS",
    "CheckSubmission",
    "ModelOutcome",
    "ModelResults",
    "model_or_none",
    "verdict_json",
    "without_post_words",
]


MAX_MODELS = 16
# What the server accepts of each field, as the patterns the schema publishes (ASCII classes and escapes
# only, so they read the same in the schema's dialect and in Python). A url: http(s) in any letter case,
# then no whitespace, control character or backslash (the fetch guard's refusals). A post: an id or an
# x.com/twitter.com status URL, without whitespace anywhere.
URL_PATTERN: Final = rf"^[Hh][Tt][Tt][Pp][Ss]?://[^{SPACE_CLASS}\x00-\x1f\x7f\\]*$"
POST_PATTERN: Final = (
    r"^(?:[0-9]{1,25}|https?://(?:www\.|mobile\.)?(?:x|twitter)\.com/"
    rf"[^/{SPACE_CLASS}]+/status(?:es)?/[0-9]{{1,25}}(?:[/?#][^{SPACE_CLASS}]*)?)$"
)
SUBJECT_FIELDS: Final = tuple(kind.value for kind in InputKind)  # exactly one of them is given


def _narrow_strings(schema: dict[str, Any]) -> None:
    """No empty url, post or text (a ``minLength``), a url and a post as the server reads them (a
    ``pattern``), only a shipped policy and only registered models, each once (an ``enum``)."""
    narrowing: dict[str, dict[str, Any]] = {
        "text": {"minLength": 1},
        "url": {"minLength": 1, "pattern": URL_PATTERN},
        "post": {"minLength": 1, "pattern": POST_PATTERN},
        "policy": {"enum": sorted(POLICY_FILES)},
    }
    properties = schema.get("properties", {})
    for name, extra in narrowing.items():
        for branch in properties.get(name, {}).get("anyOf", []):
            if branch.get("type") == "string":
                branch.update(extra)
    for branch in properties.get("models", {}).get("anyOf", []):
        if branch.get("type") == "array":
            branch.update({"minItems": 1, "uniqueItems": True})
            branch["items"] = {"type": "string", "enum": default_registry().refs()}


class CheckSubmission(CheckInput):
    """A check request that may also name models to score the same ledger under, besides its policy."""

    model_config = ConfigDict(json_schema_extra=schema_rules(_narrow_strings, exactly_one_of(SUBJECT_FIELDS)))

    models: list[Annotated[str, Field(max_length=64)]] | None = Field(
        default=None,
        max_length=MAX_MODELS,
        description="More models (name@version) to score the check's ledger under; see /v1/models.",
    )

    @field_validator("post", mode="before")
    @classmethod
    def _post_as_published(cls, value: Any) -> Any:
        # Stricter than tweet_id_from (which strips spaces and reads any Unicode digit): what the schema says.
        if isinstance(value, str) and re.fullmatch(POST_PATTERN, value) is None:
            raise ValueError(
                f"not an X post id or status URL: {value[:80]!r} (ASCII digits, or an x.com/twitter.com "
                "status URL, with no spaces)"
            )
        return value

    def stored(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True, exclude={"policy", "models"})


@dataclass(frozen=True)
class ModelOutcome:
    """One version's ledger under one model: the result as served and whether it was stored before."""

    model: ScoringModel
    result: dict[str, Any]
    result_json: str
    stored_json: str | None  # the first result stored for this (check, version, model), if any

    @property
    def identical_to_stored(self) -> bool | None:
        return None if self.stored_json is None else self.stored_json == self.result_json


def _post_words(ledger: Mapping[str, Any]) -> list[str]:
    """The words Icarus redistributed from the subject: captured fields, context, image text, claims."""
    subject = ledger.get("subject") or {}
    words = [
        str(captured.get("text") or "")
        for key in ("fields", "context")
        for captured in subject.get(key) or []
        if isinstance(captured, dict)
    ]
    words += [
        str(image.get("ocr_text") or "") for image in subject.get("images") or [] if isinstance(image, dict)
    ]
    for claim in ledger.get("claims") or []:
        if isinstance(claim, dict):
            words += [str(claim.get("text") or ""), str(claim.get("normalized") or "")]
    return sorted({w for w in words if w.strip()}, key=len, reverse=True)


def without_post_words(value: Any, ledger: Mapping[str, Any], reason: str) -> Any:
    """``value`` (any model's JSON result) with every string that holds words of a removed post replaced
    by the notice the reports use: the same rule whatever shape the model's result has."""
    words = _post_words(ledger)
    notice = hidden_text(reason)

    def walk(node: Any) -> Any:
        if isinstance(node, str):
            return notice if any(w in node for w in words) else node
        if isinstance(node, list):
            return [walk(item) for item in node]
        if isinstance(node, dict):
            return {key: walk(item) for key, item in node.items()}
        return node

    return walk(value)


def model_or_none(ref: str) -> ScoringModel | None:
    try:
        parse_ref(ref)
        return get_model(ref)
    except (UnknownModelError, ValueError):
        return None


def verdict_json(verdict: Verdict) -> dict[str, Any]:
    return {
        "claim_id": verdict.claim_id,
        "outcome": verdict.outcome,
        "band": verdict.band,
        "probability": verdict.probability,
        "shown_as": verdict.shown_as,
    }


class ModelResults:
    """Reads and appends ``check_models`` and ``model_results``; never updates or deletes a row."""

    def __init__(self, store: Store, clock: Callable[[], datetime]) -> None:
        self._sessions = sessionmaker(store.engine, expire_on_commit=False)
        self._clock = clock

    def request(self, check_id: str, refs: Sequence[str]) -> list[str]:
        """Add ``refs`` to the models the check is scored under (kept in request order); return them all."""
        with self._sessions.begin() as session:
            known = {
                row.model: row.position
                for row in session.scalars(select(CheckModel).where(CheckModel.check_id == check_id))
            }
            for ref in refs:
                if ref not in known:
                    known[ref] = len(known)
                    session.add(
                        CheckModel(
                            check_id=check_id, model=ref, position=known[ref], requested_at=self._clock()
                        )
                    )
        return sorted(known, key=known.__getitem__)

    def requested(self, check_id: str) -> list[str]:
        with self._sessions() as session:
            rows = session.scalars(
                select(CheckModel).where(CheckModel.check_id == check_id).order_by(CheckModel.position)
            ).all()
            return [row.model for row in rows]

    def score(self, check_id: str, version: int, ledger: dict[str, Any], model: ScoringModel) -> ModelOutcome:
        """Score the version's ledger under ``model``; store the result the first time."""
        result = model.score(parse_ledger(ledger, "stored ledger"))
        result_json = canonical_json(result)
        stored = self.stored_json(check_id, version, model.ref)
        if stored is None:
            try:
                with self._sessions.begin() as session:
                    session.add(
                        ModelResult(
                            check_id=check_id,
                            version=version,
                            model=model.ref,
                            family=model.family,
                            config_hash=model.config_hash,
                            trace_hash=str(result.get("trace_hash", "")),
                            result_json=result_json,
                            created_at=self._clock(),
                        )
                    )
            except IntegrityError:  # stored by a concurrent request a moment ago
                stored = self.stored_json(check_id, version, model.ref)
        return ModelOutcome(model, result, result_json, stored)

    def for_page(self, check_id: str, version: int, ledger: dict[str, Any]) -> list[OtherModelResult]:
        """The version's ledger under each model the check asked for, as the report page lists them."""
        shown = []
        for ref in self.requested(check_id):
            model = model_or_none(ref)
            if model is None:
                continue
            outcome = self.score(check_id, version, ledger, model)
            lines = [(v.claim_id, v.shown_as) for v in model.verdicts(outcome.result)]
            shown.append(OtherModelResult(model.ref, model.family, lines))
        return shown

    def stored_json(self, check_id: str, version: int, ref: str) -> str | None:
        with self._sessions() as session:
            return session.scalar(
                select(ModelResult.result_json).where(
                    ModelResult.check_id == check_id, ModelResult.version == version, ModelResult.model == ref
                )
            )
