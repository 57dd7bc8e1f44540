"""The stored record of one LVF run, its public projection, and how a stored run is rendered.

A run keeps its methodology version, config hash, the exact weights it applied and every component value,
so it renders, and recomputes, from itself alone: a v2.0 run shows v2.0 weights for ever, whatever the
current version is. A later run is a new record; nothing here edits one. A run that read evidence from
accepted challenges names them (``challenges``); a run that read none has no such key at all, so its
canonical JSON and hash are what they were before challenges could feed a run.

``public_summary`` is an allowlist: it copies counts and component results field by field and nothing
else. Source bodies, excerpts, prompts, model responses, assessor notes and reviewer notes are never in
it, because nothing copies them there.
"""

from __future__ import annotations

from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal
from enum import StrEnum
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from icarus.scoring.canonical import canonical_json, format_decimal, sha256_hex
from icarus.scoring.lvf.config import Component, Criterion, FormulaName
from icarus.scoring.lvf.formula import Band, LvfLabel
from icarus.scoring.lvf.inputs import RunInputs

__all__ = [
    "RUN_FORMAT",
    "AssessorRecord",
    "ChallengeUse",
    "ComponentRecord",
    "CriterionRecord",
    "Hold",
    "LvfRun",
    "RunCounts",
    "RunStatus",
    "public_summary",
    "recompute_score",
    "render_run",
]

RUN_FORMAT: Final = "icarus-lvf-run/1"
NOT_RUN: Final = "not run"


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RunStatus(StrEnum):
    """``scored``: published. ``held``: kept for more evidence or human review. ``skipped``: below the
    checkworthiness gate, no costly stage ran."""

    SCORED = "scored"
    HELD = "held"
    SKIPPED = "skipped"


class Hold(_Record):
    code: Literal["assessor_spread", "too_few_assessors"]
    detail: str


class AssessorRecord(_Record):
    assessor: str
    provider: str
    version: str
    status: Literal["ok", "failed"]
    scores: dict[Criterion, Decimal] = Field(default_factory=dict)
    notes: dict[Criterion, str] = Field(default_factory=dict, description="Private: never published.")
    failure: str = ""
    prompt_hash: str | None = Field(default=None, description="Private: never published.")
    raw_response: str | None = Field(default=None, description="Private: never published.")


class CriterionRecord(_Record):
    criterion: Criterion
    weight: Decimal
    scores: dict[str, Decimal]
    median: Decimal
    spread: Decimal


class ComponentRecord(_Record):
    component: Component
    status: Literal["ran", "not run"]
    value: Decimal | None
    weight: Decimal
    note: str = ""


class RunCounts(_Record):
    judged_items: int
    counted_items: int
    clusters: int
    independent_origins: int
    supporting_origins: int
    refuting_origins: int


class ChallengeUse(_Record):
    """An accepted challenge whose evidence this run read: which one, the items it became, and a hash of
    the submitted evidence (so the run says exactly what it used without repeating it)."""

    challenge_id: str
    challenged_run_id: int
    evidence_ids: tuple[str, ...]
    evidence_hash: str


class LvfRun(_Record):
    """One LVF run over one claim of one ledger."""

    run_format: Literal["icarus-lvf-run/1"] = RUN_FORMAT
    methodology: str = Field(description="name@version of the LVF methodology, e.g. lvf@3.0.")
    config_hash: str
    code_hash: str
    ledger_id: str
    ledger_hash: str
    claim_id: str
    claim_text: str = Field(
        description="The claim as the subject states it (it is the subject, not a source)."
    )
    checked_at: datetime = Field(description="The ledger's as-of time: the date the evidence speaks for.")
    status: RunStatus
    checkworthiness: Decimal
    checkworthiness_gate: Decimal
    checkworthiness_features: tuple[str, ...]
    skip_reason: str = ""
    formula: FormulaName | None = None
    assessors: tuple[AssessorRecord, ...] = ()
    criteria: tuple[CriterionRecord, ...] = ()
    components: tuple[ComponentRecord, ...] = ()
    score: Decimal | None = None
    display_score: int | None = None
    label: LvfLabel | None = None
    band: Band | None = None
    holds: tuple[Hold, ...] = ()
    counts: RunCounts | None = None
    external_search: Literal["not run"] = NOT_RUN
    limitations: tuple[str, ...] = ()
    challenges: tuple[ChallengeUse, ...] = Field(
        default=(), description="Accepted challenges whose evidence this run read; absent when none."
    )
    inputs: RunInputs | None = Field(
        default=None,
        description="What the NLI and reliability components read (per independent origin: stance, "
        "confidence, reputation); absent on a skipped run and on runs stored before it was recorded.",
    )

    def canonical_json(self) -> str:
        document = self.model_dump(mode="python")
        if not self.challenges:
            del document["challenges"]  # runs without challenges keep their earlier bytes and hash
        if self.inputs is None:
            del document["inputs"]
        return canonical_json(document)

    @property
    def run_hash(self) -> str:
        return "sha256:" + sha256_hex(self.canonical_json())

    def component(self, component: Component) -> ComponentRecord | None:
        for record in self.components:
            if record.component is component:
                return record
        return None


def recompute_score(run: LvfRun) -> Decimal | None:
    """The score again, from the run's own stored weights and component values (never the current config)."""
    if run.status is RunStatus.SKIPPED:
        return None
    total = Decimal(0)
    for record in run.components:
        if record.value is not None:
            total += record.weight * record.value
    return total.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)


def _dec(value: Decimal | None) -> str | None:
    return None if value is None else format_decimal(value)


def public_summary(run: LvfRun) -> dict[str, Any]:
    """The allowlisted public projection: counts and component results only."""
    summary: dict[str, Any] = {
        "methodology": run.methodology,
        "config_hash": run.config_hash,
        "ledger_id": run.ledger_id,
        "claim_id": run.claim_id,
        "checked_at": run.checked_at.isoformat().replace("+00:00", "Z"),
        "status": run.status.value,
        "checkworthiness": _dec(run.checkworthiness),
        "checkworthiness_gate": _dec(run.checkworthiness_gate),
        "formula": run.formula.value if run.formula else None,
        "score": run.display_score if run.status is RunStatus.SCORED else None,
        "label": run.label.value if run.label and run.status is RunStatus.SCORED else None,
        "band": run.band.value if run.band and run.status is RunStatus.SCORED else None,
        "holds": [hold.code for hold in run.holds],
        "components": [
            {
                "component": c.component.value,
                "status": c.status,
                "value": _dec(c.value),
                "weight": _dec(c.weight),
            }
            for c in run.components
        ],
        "criteria": [
            {
                "criterion": c.criterion.value,
                "weight": _dec(c.weight),
                "median": _dec(c.median),
                "spread": _dec(c.spread),
            }
            for c in run.criteria
        ],
        "assessors": [{"assessor": a.assessor, "status": a.status} for a in run.assessors],
        "counts": run.counts.model_dump() if run.counts else None,
        "external_search": run.external_search,
        "limitations": list(run.limitations),
    }
    if run.challenges:
        # Ids and counts only: never the submitted excerpts, reasons, submitters or reviewer notes.
        summary["challenges"] = [
            {"challenge_id": c.challenge_id, "evidence_items": len(c.evidence_ids)} for c in run.challenges
        ]
    return summary


def _pct(weight: Decimal) -> str:
    return format_decimal((weight * 100).normalize()).removesuffix(".0") + " %"


def render_run(run: LvfRun) -> str:
    """Plain-text explanation of a stored run, from the run alone: its own weights, its own components."""
    lines = [f"LVF run under {run.methodology} (config {run.config_hash[:19]}…)"]
    lines.append(f"Claim {run.claim_id} of ledger {run.ledger_id}: {run.claim_text}")
    lines.append(f"Checked {run.checked_at.isoformat().replace('+00:00', 'Z')}")
    lines.append(f"Checkworthiness {run.checkworthiness} (gate {run.checkworthiness_gate})")
    if run.status is RunStatus.SKIPPED:
        lines.append(f"Skipped: {run.skip_reason}")
    else:
        if run.status is RunStatus.HELD:
            lines.append("Held for more evidence or human review: " + "; ".join(h.detail for h in run.holds))
        verdict = f"{run.label.value if run.label else '-'} · {run.band.value if run.band else '-'} band"
        prefix = "Provisional " if run.status is RunStatus.HELD else ""
        lines.append(f"{prefix}score {run.display_score} / 100 ({verdict})")
        formula = run.formula.value if run.formula else "-"
        lines.append(f"Formula {formula}, weights as stored on this run:")
        for c in run.components:
            value = NOT_RUN if c.value is None else format_decimal(c.value)
            lines.append(f"  {c.component.value:<16} {_pct(c.weight):>6}  {value}")
        lines.append("Criteria (median of assessors, spread):")
        for r in run.criteria:
            lines.append(
                f"  {r.criterion.heading:<22} {_pct(r.weight):>6}  {format_decimal(r.median)}"
                f"  spread {format_decimal(r.spread)}"
            )
        lines.append("Assessors: " + ", ".join(f"{a.assessor} ({a.status})" for a in run.assessors))
        if run.challenges:
            lines.append(
                "Evidence from accepted challenges: "
                + ", ".join(f"{c.challenge_id} ({len(c.evidence_ids)} item(s))" for c in run.challenges)
            )
    lines.append(f"External search: {run.external_search}")
    if run.limitations:
        lines.append("Limitations:")
        lines += [f"  - {text}" for text in run.limitations]
    return "\n".join(lines) + "\n"
