"""The LVF v3.0 arithmetic, one function per formula. Pure decimals in, decimals out.

* ``passes_gate``: checkworthiness at or above the gate goes on; below it the claim is skipped.
* ``reconcile``: the median of the assessors' scores per criterion, and its spread (max - min); a spread
  above the configured maximum holds the run (exactly the maximum does not).
* ``lvf_component``: the weighted sum of the reconciled criteria x 10 (0-100).
* ``nli_component``: 100 x supporting stance mass / (supporting + refuting mass) over independent origins.
* ``reliability_component``: 100 x the mean reputation of the counted origins; 0 with nothing counted, so
  a reputable publisher cannot lift a claim that has no counted evidence.
* ``combine``: the weighted sum of the components under the formula in force (``with_nli`` or the
  ``without_nli`` fallback), kept to two decimal places; ``display_score`` rounds it half-even to a whole
  number, which the label and band read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from enum import StrEnum
from statistics import median

from icarus.scoring.lvf.config import Component, Criterion, Formula, LvfConfig
from icarus.scoring.lvf.inputs import RunInputs

__all__ = [
    "SCORE_STEP",
    "Band",
    "LvfLabel",
    "Reconciled",
    "band_for",
    "combine",
    "display_score",
    "label_for",
    "lvf_component",
    "nli_component",
    "passes_gate",
    "reconcile",
    "reliability_component",
]

SCORE_STEP = Decimal("0.01")  # components and the score are kept to two places
_HUNDRED = Decimal(100)


class LvfLabel(StrEnum):
    FACTUAL = "Factual"
    RUMOUR = "Rumour"
    OPINION = "Opinion"


class Band(StrEnum):
    HIGH = "High"
    MEDIUM = "Medium"
    LOW = "Low"


@dataclass(frozen=True, slots=True)
class Reconciled:
    criterion: Criterion
    scores: dict[str, Decimal]  # assessor name -> score
    median: Decimal
    spread: Decimal
    held: bool  # spread above the configured maximum


def passes_gate(checkworthiness: Decimal, config: LvfConfig) -> bool:
    return checkworthiness >= config.checkworthiness_gate


def reconcile(
    results: Mapping[str, Mapping[Criterion, Decimal]], config: LvfConfig
) -> tuple[Reconciled, ...]:
    """Per criterion, in the config's order: the median and spread of every assessor's score."""
    if not results:
        raise ValueError("reconciliation needs at least one assessor's scores")
    reconciled = []
    for criterion in config.criteria:
        scores = {name: result[criterion] for name, result in sorted(results.items())}
        values: Sequence[Decimal] = list(scores.values())
        spread = max(values) - min(values)
        reconciled.append(
            Reconciled(
                criterion=criterion,
                scores=scores,
                median=Decimal(median(values)),
                spread=spread,
                held=spread > config.reconciliation.max_spread,
            )
        )
    return tuple(reconciled)


def lvf_component(reconciled: Sequence[Reconciled], config: LvfConfig) -> Decimal:
    total = sum((config.criteria[r.criterion] * r.median for r in reconciled), Decimal(0))
    return (total * 10).quantize(SCORE_STEP, rounding=ROUND_HALF_EVEN)


def nli_component(inputs: RunInputs) -> Decimal | None:
    """None when no stance judge answered: the component did not run and the fallback formula applies."""
    if not inputs.stance_judge_ran:
        return None
    support = sum((o.confidence for o in inputs.origins if o.stance == "support"), Decimal(0))
    refute = sum((o.confidence for o in inputs.origins if o.stance == "refute"), Decimal(0))
    if support + refute == 0:
        return Decimal("0.00")
    return (_HUNDRED * support / (support + refute)).quantize(SCORE_STEP, rounding=ROUND_HALF_EVEN)


def reliability_component(inputs: RunInputs) -> Decimal:
    if not inputs.origins:
        return Decimal("0.00")
    mean = sum((o.reputation for o in inputs.origins), Decimal(0)) / len(inputs.origins)
    return (_HUNDRED * mean).quantize(SCORE_STEP, rounding=ROUND_HALF_EVEN)


def combine(components: Mapping[Component, Decimal | None], formula: Formula) -> Decimal:
    total = Decimal(0)
    for component in Component:
        weight = formula.weight(component)
        value = components.get(component)
        if weight and value is None:
            raise ValueError(f"component {component.value} has weight {weight} but no value")
        if value is not None:
            total += weight * value
    return total.quantize(SCORE_STEP, rounding=ROUND_HALF_EVEN)


def display_score(score: Decimal) -> int:
    return int(score.quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def label_for(display: int, config: LvfConfig) -> LvfLabel:
    if display >= config.labels.factual:
        return LvfLabel.FACTUAL
    if display >= config.labels.rumour:
        return LvfLabel.RUMOUR
    return LvfLabel.OPINION


def band_for(display: int, config: LvfConfig) -> Band:
    if display >= config.bands.high:
        return Band.HIGH
    if display >= config.bands.medium:
        return Band.MEDIUM
    return Band.LOW
