"""The ledger models' golden examples (``golden.json``): read, scored under any model, and rendered.

Each case states its links, the model it is published for and that model's answer. The test suite scores
every case through the Icarus ledger mapping and compares digit for digit; the methodology pages and
docs/ledger-models.md render the same file, so what is published is what is tested.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from icarus.ledger import Authenticity, LedgerClaimType, LinkDirection, ObservationKind, Relevance
from icarus.scoring.ledger.calculate import ClaimInput, LinkInput, assess_claim
from icarus.scoring.ledger.config import LedgerModelConfig

__all__ = [
    "ANSWER_FIELDS",
    "GoldenCase",
    "GoldenLink",
    "answer",
    "golden_cases",
    "golden_markdown",
    "golden_section",
]

GOLDEN_FILE = "golden.json"

# Where each published answer field sits in a claim's trace.
ANSWER_FIELDS: dict[str, tuple[str, ...]] = {
    "evidence_sum": ("evidence_sum",),
    "probability": ("probability",),
    "state": ("assessment_state",),
    "stability": ("stability",),
    "spread": ("variants", "spread"),
    "conservative": ("variants", "conservative"),
    "permissive": ("variants", "permissive"),
    "prior_log_odds": ("prior_log_odds",),
    "stability_capped_by": ("stability_capped_by",),
    "support_groups": ("support_groups",),
}

NO_VALUE = "\u2014"


@dataclass(frozen=True)
class GoldenLink:
    evidence_id: str
    direction: str
    relevance: str
    observation: str
    steps: int
    group: str | None = None
    authenticity: str = Authenticity.UNVERIFIED.value

    def describe(self) -> str:
        sign = {"SUPPORT": "+", "CONTRADICT": "\u2212"}.get(self.direction, "\u00b1")
        steps = "1 step" if self.steps == 1 else f"{self.steps} steps"
        words = [f"{sign}{self.relevance} {self.observation}, {steps}"]
        if self.group is not None:
            words.append(f"group {self.group}")
        if self.authenticity != Authenticity.UNVERIFIED.value:
            words.append(f"authenticity {self.authenticity}")
        return ", ".join(words)


@dataclass(frozen=True)
class GoldenCase:
    case: str
    model: str
    claim_type: str
    about: str
    links: tuple[GoldenLink, ...]
    expected: dict[str, Any]

    def claim_input(self) -> ClaimInput:
        return ClaimInput(
            claim_id="c1",
            claim_type=LedgerClaimType(self.claim_type),
            links=tuple(
                LinkInput(
                    link_id=link.evidence_id,
                    evidence_id=link.evidence_id,
                    direction=LinkDirection(link.direction),
                    relevance=Relevance(link.relevance),
                    observation=ObservationKind(link.observation),
                    interpretive_steps=link.steps,
                    authenticity=Authenticity(link.authenticity),
                    group=link.group,
                )
                for link in self.links
            ),
        )


@cache
def golden_cases() -> tuple[GoldenCase, ...]:
    data = json.loads(resources.files("icarus.scoring.ledger").joinpath(GOLDEN_FILE).read_text("utf-8"))
    return tuple(
        GoldenCase(
            case=row["case"],
            model=row["model"],
            claim_type=row["claim_type"],
            about=row["about"],
            links=tuple(
                GoldenLink(
                    evidence_id=link["id"],
                    direction=link["direction"],
                    relevance=link["relevance"],
                    observation=link["observation"],
                    steps=link["steps"],
                    group=link.get("group"),
                    authenticity=link.get("authenticity", Authenticity.UNVERIFIED.value),
                )
                for link in row["links"]
            ),
            expected=dict(row["expected"]),
        )
        for row in data["cases"]
    )


def trace_answer(trace: dict[str, Any], fields: tuple[str, ...] = tuple(ANSWER_FIELDS)) -> dict[str, Any]:
    """The answer fields read out of a claim's trace (``variants`` is None when nothing was scored)."""
    out: dict[str, Any] = {}
    for name in fields:
        value: Any = trace
        for key in ANSWER_FIELDS[name]:
            value = value.get(key) if isinstance(value, dict) else None
        out[name] = value
    return out


def answer(case: GoldenCase, config: LedgerModelConfig) -> dict[str, Any]:
    """What ``config`` answers for this case's links."""
    return trace_answer(assess_claim(case.claim_input(), config))


def _cell(value: Any) -> str:
    return NO_VALUE if value is None else f"`{value}`"


def _row(case: GoldenCase, result: dict[str, Any], *, stated: bool) -> str:
    links = "; ".join(link.describe() for link in case.links)
    model = f"`{case.model}`" + (" (this model)" if stated else "")
    cells = [
        case.case,
        f"{case.about}: {links} ({case.claim_type})",
        model,
        _cell(result["evidence_sum"]),
        _cell(result["probability"]),
        _cell(result["state"]),
        _cell(result["stability"]),
    ]
    return "| " + " | ".join(cells) + " |"


HEADER = [
    "| case | links | published for | evidence sum | probability | state | stability |",
    "|---|---|---|---|---|---|---|",
]


def golden_markdown() -> list[str]:
    """The published table: every case with the answer of the model it is published for."""
    return [*HEADER, *(_row(case, case.expected, stated=False) for case in golden_cases())]


def golden_section(config: LedgerModelConfig) -> list[str]:
    """A model page's golden examples: every case answered by this model. Where a case is published for
    this model the answer shown is computed here, and the test suite holds it to the published digits."""
    return [
        "## Golden examples",
        "",
        "Examples anyone can recompute by hand from the tables above. Each is published for one model; the "
        "answer shown here is this model's, computed from the same links, so it matches the published "
        "answer digit for digit where the example is published for this model and shows how the models "
        "differ elsewhere.",
        "",
        *HEADER,
        *(_row(case, answer(case, config), stated=case.model == config.ref) for case in golden_cases()),
        "",
    ]
