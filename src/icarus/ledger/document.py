"""The evidence ledger: one JSON document holding everything a score is computed from."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import Field, ValidationError, model_validator

from icarus.jsonlines import json_error_reason
from icarus.ledger.assistance import ModelStep, QueryPlan
from icarus.ledger.base import LedgerModel, UtcDatetime
from icarus.ledger.claims import Claim
from icarus.ledger.evidence import EvidenceItem
from icarus.ledger.subject import Subject

LEDGER_SCHEMA_VERSION: Final = "icarus-ledger/1"
MAX_LEDGER_BYTES = 64 * 1024 * 1024


class ExplanationDraft(LedgerModel):
    """A model-written explanation. G3 rejects it if it cites anything not in the ledger."""

    claim_id: str = Field(description="The claim the draft explains.")
    text: str = Field(
        description="The draft's wording; G7 blocks wording about honesty or intent, or AI-detector scores."
    )
    cited_evidence_ids: list[str] = Field(
        default_factory=list, description="Evidence ids the draft cites; each must be in the ledger (G3)."
    )
    cited_urls: list[str] = Field(
        default_factory=list, description="URLs the draft cites; each must be an evidence item's url (G3)."
    )


PublishedLabel = Literal["supported", "misleading", "not_supported", "unverifiable"]
"""The four published labels as JSON values: ✅ supported, ⚠️ misleading, ❌ not_supported, ❔ unverifiable."""


class PriorRun(LedgerModel):
    """An earlier run of the same check: G6 needs the label each claim scored before gates held it."""

    as_of: UtcDatetime = Field(description="The as-of time of that earlier run (UTC timestamp).")
    scored_labels: dict[str, PublishedLabel] = Field(
        default_factory=dict,
        description="claim_id → the label that run scored before G6 held it (what it published may differ).",
    )


class CheckHistory(LedgerModel):
    """Earlier runs of the same check, filled by the check runner; read by G6 and the recheck schedule.

    An ongoing claim may publish a decided label only from the first recheck (+15 min after ``started_at``)
    on, and only when the latest earlier run scored the same label. An empty history means a first run.
    """

    started_at: UtcDatetime | None = Field(
        default=None, description="When the check's first version ran; rechecks count from it."
    )
    prior_runs: list[PriorRun] = Field(
        default_factory=list, description="Earlier runs, any order; G6 compares with the latest before as_of."
    )


class Ledger(LedgerModel):
    """One evidence ledger: everything a score is computed from, in one JSON document.

    Validation beyond the field types: claim ids and evidence ids are each unique, and every judgment names
    a claim in this ledger. Exact slices (G0, G3) are checked when scoring, not when loading.
    """

    schema_version: Literal["icarus-ledger/1"] = Field(
        default=LEDGER_SCHEMA_VERSION, description="Format version; a format change gets a new version."
    )
    ledger_id: str = Field(description="Identifier of this ledger; echoed in every result scored from it.")
    as_of: UtcDatetime = Field(description="The UTC time the result speaks for; scoring never reads a clock.")
    subject: Subject = Field(description="What was checked, as captured.")
    claims: list[Claim] = Field(default_factory=list, description="The atomic claims found in the subject.")
    evidence: list[EvidenceItem] = Field(
        default_factory=list, description="Every evidence item gathered, counted or not; nothing is erased."
    )
    drafts: list[ExplanationDraft] = Field(
        default_factory=list, description="Model-written explanation drafts, validated by G3 and G7."
    )
    history: CheckHistory = Field(
        default_factory=CheckHistory, description="Earlier runs of the same check (G6)."
    )
    query_plans: list[QueryPlan] = Field(
        default_factory=list,
        description="The validated searches that ran for each claim; no rule reads them.",
    )
    model_steps: list[ModelStep] = Field(
        default_factory=list,
        description="Each model-assisted step of the check and what validation made of it; no rule reads them.",
    )

    @model_validator(mode="after")
    def _consistent_ids(self) -> Ledger:
        _require_unique("claim_id", [c.claim_id for c in self.claims])
        _require_unique("evidence_id", [e.evidence_id for e in self.evidence])
        known_claims = {c.claim_id for c in self.claims}
        for item in self.evidence:
            for judgment in item.judgments:
                if judgment.claim_id not in known_claims:
                    raise ValueError(
                        f"evidence {item.evidence_id!r} judges unknown claim {judgment.claim_id!r}"
                    )
        return self

    def claim(self, claim_id: str) -> Claim:
        for claim in self.claims:
            if claim.claim_id == claim_id:
                return claim
        raise KeyError(claim_id)


def _require_unique(kind: str, ids: list[str]) -> None:
    seen: set[str] = set()
    for value in ids:
        if value in seen:
            raise ValueError(f"duplicate {kind} {value!r}")
        seen.add(value)


class LedgerError(ValueError):
    """A ledger file that cannot be used, with a message a person can act on."""


def load_ledger(path: Path) -> Ledger:
    """Read and validate a ledger file; every failure becomes one clear LedgerError."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise LedgerError(f"cannot read ledger {path}: {exc.strerror}") from exc
    if size > MAX_LEDGER_BYTES:
        raise LedgerError(f"ledger {path} is {size} bytes; the limit is {MAX_LEDGER_BYTES}")
    try:
        raw: Any = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise LedgerError(f"ledger {path} is not UTF-8 text") from exc
    except json.JSONDecodeError as exc:
        raise LedgerError(f"ledger {path} is not valid JSON: line {exc.lineno}: {exc.msg}") from exc
    except ValueError as exc:  # an integer literal longer than Python converts (sys.get_int_max_str_digits)
        raise LedgerError(f"ledger {path} is not valid JSON: {json_error_reason(exc)}") from exc
    except RecursionError as exc:
        raise LedgerError(f"ledger {path} nests too deeply to be a ledger") from exc
    except OSError as exc:  # a folder, a file that vanished or cannot be read
        raise LedgerError(f"cannot read ledger {path}: {exc.strerror or exc}") from exc
    where = _lone_surrogate(raw)
    if where is not None:
        raise LedgerError(f"ledger {path} is not valid Unicode: a lone surrogate escape in {where}")
    return parse_ledger(raw, source=str(path))


_SURROGATE = re.compile("[\ud800-\udfff]")


def _lone_surrogate(raw: Any) -> str | None:
    """Where the parsed JSON holds a lone surrogate, or None. ``json`` decodes an unpaired ``\\ud800``
    escape into a str that no UTF-8 encoder accepts, so hashing or storing the ledger would fail later."""
    stack: list[tuple[Any, str]] = [(raw, "(root)")]
    while stack:  # iterative: JSON may nest as deep as the parser allowed
        value, where = stack.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value):
                return where
        elif isinstance(value, dict):
            for key, inner in value.items():
                inner_where = key if where == "(root)" else f"{where}.{key}"
                if _SURROGATE.search(key):
                    return inner_where
                stack.append((inner, inner_where))
        elif isinstance(value, list):
            stack.extend((inner, f"{where}.{i}") for i, inner in enumerate(value))
    return None


def parse_ledger(raw: Any, source: str = "ledger") -> Ledger:
    try:
        return Ledger.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in exc.errors()[:10]
        )
        more = "" if exc.error_count() <= 10 else f" (and {exc.error_count() - 10} more)"
        raise LedgerError(f"{source} does not match the ledger schema: {problems}{more}") from exc


def ledger_json_schema() -> dict[str, Any]:
    schema = Ledger.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://icarus.invalid/schema/icarus-ledger-1.json"
    return schema
